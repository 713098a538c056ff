/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - D4R10 MRUSEITE, User Interaction at Transaction End
 * (event record, domain 4 user, record 10).
 *
 * Source: IBM, z/VM V6R2.0 monitor record MRUSEITE, page last updated
 * 23 Nov 2011: https://www.vm.ibm.com/pubs/mon620/MRUSEITE.HTML (200
 * bytes). Offsets are from the start of the record, MRHDR included.
 *
 * Values: one value list per guest (type zvm_useite), one data source per
 * counter field (lower-case IBM name without USEITE_; 4-element arrays
 * <field>_q0.._q3, the dispatch queues Q0..Q3), and "transactions".
 *
 * "A separate record is generated for each VMDBK in a virtual complex
 * that contributed to the transaction" (IBM): a virtual MP guest has one
 * VMDBK per virtual CPU, told apart by USEITE_VMDCPUAD, and the base
 * VMDBK has USEITE_CALBASE (X'80' in USEITE_CALFLAG1). Each VMDBK's
 * high-frequency counters are its own. So, per guest (the engine's
 * instance), the hooks below make:
 *
 *   - a counter the sum over its VMDBKs of each VMDBK's latest value
 *     (vmdbk.h): a VMDBK that skips transactions keeps its last values in
 *     the sum, which never goes backwards while the guest is tracked;
 *   - a level (VMDSLCNT, VMDDFRWK: the layout's gauges) not summed: the
 *     base VMDBK's latest value (before a base record has been seen: the
 *     latest record's);
 *   - transactions the base VMDBK's records only: one per transaction,
 *     however many VMDBKs contributed.
 *
 * A guest's logoff or logon (D4R2/D4R1, uselof.c, uselon.c) restarts its
 * instance: the engine releases this state (useite_release), so the
 * VMDBKs of the next session are summed afresh.
 */
#include "base/util.h"
#include "engine/hooks.h"
#include "engine/table.h"
#include "engine/vmdbk.h"
#include "records/catalog.h"
#include "zvm_monitor/be.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/typesdb.h"

#include <stdlib.h>
#include <string.h>

enum {
  USEITE_TRANSACTIONS,
  USEITE_VMDUSER,
  USEITE_VMDCPUAD,
  USEITE_VMDSLCNT,
  USEITE_VMDSVMFX,
  USEITE_VMDSVMID,
  USEITE_VMDSVMWT,
  USEITE_VMDSVMW2,
  USEITE_VMDRDYCM,
  USEITE_CALFLAG1,
  USEITE_HFQUCT,
  USEITE_HFDISP0,
  USEITE_HFDISP1,
  USEITE_HFDISP2,
  USEITE_HFDISP3,
  USEITE_HFELIG0,
  USEITE_HFELIG1,
  USEITE_HFELIG2,
  USEITE_HFELIG3,
  USEITE_HFSTCT,
  USEITE_HFTIDL,
  USEITE_HFTSVM,
  USEITE_HFIOWT,
  USEITE_HFCFWT,
  USEITE_HFSIMWT,
  USEITE_HFWTPAG,
  USEITE_HFCPUWT,
  USEITE_HFCPURN,
  USEITE_HFESVM,
  USEITE_HFLOAD,
  USEITE_HFDORM,
  USEITE_HFDSVM,
  USEITE_HFOTHR,
  USEITE_VMDCNTID,
  USEITE_VMDCTIDL,
  USEITE_VMDDFRWK,
  USEITE_VMDSTATE,
  USEITE_CALOSTAT,
  USEITE_CALRSTAT,
  USEITE_VMDCPRMD,
  USEITE_VMDCWSGD,
  USEITE_VMDCETSD,
  USEITE_VMDCIDLD,
  USEITE_HFIOACT,
  USEITE_HFLLIST,
  USEITE_HFPGACT,
  USEITE_VMDPUTYP,
  USEITE_VMDCFGEM,
  USEITE_VMDPUST,
};

static const struct zvm_field useite_fields[] = {
    /* Not in the bytes: every D4R10 record of the user is a transaction
     * end (IBM: "User Interaction at Transaction End"). */
    ZVM_FIELD(USEITE_TRANSACTIONS, NULL, "transactions", 0, 0, 1, RECORD_COUNT,
              COUNTER, .single_type = "total_events"),
    ZVM_FIELD(USEITE_VMDUSER, "USEITE_VMDUSER", "vmduser", 20, 8, 1, EBCDIC,
              TEXT),
    ZVM_FIELD(USEITE_VMDCPUAD, "USEITE_VMDCPUAD", "vmdcpuad", 28, 2, 1,
              UNSIGNED, ID),
    ZVM_FIELD(USEITE_VMDSLCNT, "USEITE_VMDSLCNT", "vmdslcnt", 30, 2, 1, SIGNED,
              GAUGE),
    ZVM_FIELD(USEITE_VMDSVMFX, "USEITE_VMDSVMFX", "vmdsvmfx", 32, 4, 1,
              UNSIGNED, COUNTER),
    ZVM_FIELD(USEITE_VMDSVMID, "USEITE_VMDSVMID", "vmdsvmid", 36, 8, 1, EBCDIC,
              TEXT),
    ZVM_FIELD(USEITE_VMDSVMWT, "USEITE_VMDSVMWT", "vmdsvmwt", 44, 1, 1,
              UNSIGNED, FLAGS),
    ZVM_FIELD(USEITE_VMDSVMW2, "USEITE_VMDSVMW2", "vmdsvmw2", 45, 1, 1,
              UNSIGNED, FLAGS),
    ZVM_FIELD(USEITE_VMDRDYCM, "USEITE_VMDRDYCM", "vmdrdycm", 46, 1, 1,
              UNSIGNED, FLAGS),
    ZVM_FIELD(USEITE_CALFLAG1, "USEITE_CALFLAG1", "calflag1", 47, 1, 1,
              UNSIGNED, FLAGS),
    ZVM_FIELD(USEITE_HFQUCT, "USEITE_HFQUCT", "hfquct", 48, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFDISP0, "USEITE_HFDISP0", "hfdisp0", 52, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFDISP1, "USEITE_HFDISP1", "hfdisp1", 56, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFDISP2, "USEITE_HFDISP2", "hfdisp2", 60, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFDISP3, "USEITE_HFDISP3", "hfdisp3", 64, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFELIG0, "USEITE_HFELIG0", "hfelig0", 68, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFELIG1, "USEITE_HFELIG1", "hfelig1", 72, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFELIG2, "USEITE_HFELIG2", "hfelig2", 76, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFELIG3, "USEITE_HFELIG3", "hfelig3", 80, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFSTCT, "USEITE_HFSTCT", "hfstct", 84, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFTIDL, "USEITE_HFTIDL", "hftidl", 88, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFTSVM, "USEITE_HFTSVM", "hftsvm", 92, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFIOWT, "USEITE_HFIOWT", "hfiowt", 96, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFCFWT, "USEITE_HFCFWT", "hfcfwt", 100, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFSIMWT, "USEITE_HFSIMWT", "hfsimwt", 104, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFWTPAG, "USEITE_HFWTPAG", "hfwtpag", 108, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFCPUWT, "USEITE_HFCPUWT", "hfcpuwt", 112, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFCPURN, "USEITE_HFCPURN", "hfcpurn", 116, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFESVM, "USEITE_HFESVM", "hfesvm", 120, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFLOAD, "USEITE_HFLOAD", "hfload", 124, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFDORM, "USEITE_HFDORM", "hfdorm", 128, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFDSVM, "USEITE_HFDSVM", "hfdsvm", 132, 4, 1, SIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFOTHR, "USEITE_HFOTHR", "hfothr", 136, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_VMDCNTID, "USEITE_VMDCNTID", "vmdcntid", 140, 2, 1,
              UNSIGNED, COUNTER),
    ZVM_FIELD(USEITE_VMDCTIDL, "USEITE_VMDCTIDL", "vmdctidl", 142, 2, 1,
              UNSIGNED, COUNTER),
    ZVM_FIELD(USEITE_VMDDFRWK, "USEITE_VMDDFRWK", "vmddfrwk", 144, 4, 1,
              UNSIGNED, GAUGE),
    ZVM_FIELD(USEITE_VMDSTATE, "USEITE_VMDSTATE", "vmdstate", 148, 1, 1,
              UNSIGNED, CODE),
    ZVM_FIELD(USEITE_CALOSTAT, "USEITE_CALOSTAT", "calostat", 149, 1, 1,
              UNSIGNED, FLAGS),
    ZVM_FIELD(USEITE_CALRSTAT, "USEITE_CALRSTAT", "calrstat", 150, 1, 1,
              UNSIGNED, FLAGS),
    /* One element per dispatch queue Q0..Q3: vmdcprmd_q0 .. _q3. */
    ZVM_FIELD(USEITE_VMDCPRMD, "USEITE_VMDCPRMD", "vmdcprmd", 152, 2, 4,
              UNSIGNED, COUNTER, .elem_prefix = "_q"),
    ZVM_FIELD(USEITE_VMDCWSGD, "USEITE_VMDCWSGD", "vmdcwsgd", 160, 2, 4,
              UNSIGNED, COUNTER, .elem_prefix = "_q"),
    ZVM_FIELD(USEITE_VMDCETSD, "USEITE_VMDCETSD", "vmdcetsd", 168, 2, 4,
              UNSIGNED, COUNTER, .elem_prefix = "_q"),
    ZVM_FIELD(USEITE_VMDCIDLD, "USEITE_VMDCIDLD", "vmdcidld", 176, 2, 4,
              UNSIGNED, COUNTER, .elem_prefix = "_q"),
    ZVM_FIELD(USEITE_HFIOACT, "USEITE_HFIOACT", "hfioact", 184, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFLLIST, "USEITE_HFLLIST", "hfllist", 188, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_HFPGACT, "USEITE_HFPGACT", "hfpgact", 192, 4, 1, UNSIGNED,
              COUNTER),
    ZVM_FIELD(USEITE_VMDPUTYP, "USEITE_VMDPUTYP", "vmdputyp", 196, 1, 1,
              UNSIGNED, CODE),
    ZVM_FIELD(USEITE_VMDCFGEM, "USEITE_VMDCFGEM", "vmdcfgem", 197, 1, 1,
              UNSIGNED, FLAGS),
    ZVM_FIELD(USEITE_VMDPUST, "USEITE_VMDPUST", "vmdpust", 198, 1, 1, UNSIGNED,
              FLAGS),
};

/* USEITE_CALFLAG1: CALBASE, the record is the base VMDBK's. */
#define USEITE_CALBASE 0x80

/* Where a record names its VMDBK, for the per-guest sums (vmdbk.h). */
static const struct zvm_vmdbk_fields useite_vmdbk = {
    .cpuad_offset = 28, /* USEITE_VMDCPUAD */
    .cpuad_width = 2,
    .base_offset = 47, /* USEITE_CALFLAG1 */
    .base_width = 1,
    .base_mask = USEITE_CALBASE,
};

/* What the guest's descriptor and its per-VMDBK view share: the source
 * and the layout of every field; they differ in their key. */
#define USEITE_SOURCE                                                          \
  .domain = ZVM_DOMAIN_USER, .number = 10, .ibm_name = "MRUSEITE",             \
  .zvm_level = "z/VM V6R2.0",                                                  \
  .source = "https://www.vm.ibm.com/pubs/mon620/MRUSEITE.HTML "                \
            "(updated 23 Nov 2011)",                                           \
  .length = 200
#define USEITE_LAYOUT                                                          \
  .type_name = "zvm_useite", .fields = useite_fields,                          \
  .nfields = ZVM_COUNT_OF(useite_fields), .length = 200

const struct zvm_record_desc zvm_rec_useite = {
    USEITE_SOURCE,
    .title = "User Interaction at Transaction End",
    .main = {USEITE_LAYOUT, .key = {.nparts = 1,
                                    .part = {{.kind = ZVM_KEY_USERID,
                                              .field = USEITE_VMDUSER}}}},
    .hooks = &zvm_vmdbk_hooks, /* one record per VMDBK: sums per guest */
    .hook_data = (void *)&useite_vmdbk,
    .per_cpu_view = &zvm_rec_useite_vcpu,
};

/* ReportByVirtualCPU: every VMDBK of a guest on its own (plugin instance
 * "<user>-vcpu<VMDCPUAD>"), its latest record's values as they are; the
 * same fields and type as the guest's list. */
const struct zvm_record_desc zvm_rec_useite_vcpu = {
    USEITE_SOURCE,
    .title = "User Interaction at Transaction End, per VMDBK",
    .main = {USEITE_LAYOUT,
             .key = {.nparts = 2,
                     .part = {{.kind = ZVM_KEY_USERID, .field = USEITE_VMDUSER},
                              {.kind = ZVM_KEY_NUMBER,
                               .field = USEITE_VMDCPUAD,
                               .text = "-vcpu"}}}},
};
