/*
 * zvm_monitor - record descriptor tables and generic field access.
 *
 * Each table is IBM's control-block layout for one monitor record, copied
 * field by field from the seed document named in the table. Offsets are
 * from the start of the record, MRHDR included.
 */
#include "zvm_monitor/records.h"
#include "zvm_monitor/be.h"

#include "zvm_monitor/hooks.h"

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FIELD(ibm, name, off, len, n, type_, kind_)                            \
  {                                                                            \
    .ibm_name = ibm, .metric = name, .offset = off, .width = len, .count = n,  \
    .type = ZVM_TYPE_##type_, .kind = ZVM_FIELD_##kind_                        \
  }
#define U(ibm, name, off, len, kind_)                                          \
  FIELD(ibm, name, off, len, 1, UNSIGNED, kind_)
#define S(ibm, name, off, len, kind_)                                          \
  FIELD(ibm, name, off, len, 1, SIGNED, kind_)
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------
 * D1R11 MRMTREND Interval End, D1R13 MRMTREOF End of Frame: header only.
 * Source: IBM mon730 pages (see shared/reference/zvm-monitor-facts.md 3.2).
 */
const struct zvm_record_desc zvm_rec_mtrend = {
    .domain = ZVM_DOMAIN_MONITOR,
    .number = ZVM_MTR_INTERVAL_END,
    .ibm_name = "MRMTREND",
    .title = "Interval End",
    .zvm_level = "z/VM V7R3.0",
    .source = "IBM mon730 MRMTREND (reference: zvm-monitor-facts.md 3.2)",
    .length = ZVM_MRHDR_LEN,
};

const struct zvm_record_desc zvm_rec_mtreof = {
    .domain = ZVM_DOMAIN_MONITOR,
    .number = ZVM_MTR_END_OF_FRAME,
    .ibm_name = "MRMTREOF",
    .title = "End of Frame Indicator",
    .zvm_level = "z/VM V7R3.0",
    .source = "IBM mon730 MRMTREOF (reference: zvm-monitor-facts.md 3.2)",
    .length = ZVM_MRHDR_LEN,
};

/* ------------------------------------------------------------------------
 * D4R10 MRUSEITE User Interaction at Transaction End (event).
 * Source: seed 002 (IBM MRUSEITE, z/VM V6R2.0, 200 bytes).
 */
/* Positions in useite_fields of the fields read by name; a unit test
 * checks they point at the right offsets. */
#define USEITE_VMDUSER 1
#define USEITE_VMDCPUAD 2
#define USEITE_VMDPUTYP 46

static const struct zvm_field useite_fields[] = {
    /* Not in the bytes: every D4R10 record of the user is a transaction
     * end (seed 002: "User Interaction at Transaction End"). */
    {.ibm_name = NULL,
     .metric = "transactions",
     .count = 1,
     .type = ZVM_TYPE_RECORD_COUNT,
     .kind = ZVM_FIELD_COUNTER,
     .single_type = "total_events"},
    {.ibm_name = "USEITE_VMDUSER",
     .metric = "vmduser",
     .offset = 20,
     .width = 8,
     .count = 1,
     .type = ZVM_TYPE_EBCDIC,
     .kind = ZVM_FIELD_TEXT},
    U("USEITE_VMDCPUAD", "vmdcpuad", 28, 2, ID),
    S("USEITE_VMDSLCNT", "vmdslcnt", 30, 2, GAUGE),
    U("USEITE_VMDSVMFX", "vmdsvmfx", 32, 4, COUNTER),
    {.ibm_name = "USEITE_VMDSVMID",
     .metric = "vmdsvmid",
     .offset = 36,
     .width = 8,
     .count = 1,
     .type = ZVM_TYPE_EBCDIC,
     .kind = ZVM_FIELD_TEXT},
    U("USEITE_VMDSVMWT", "vmdsvmwt", 44, 1, FLAGS),
    U("USEITE_VMDSVMW2", "vmdsvmw2", 45, 1, FLAGS),
    U("USEITE_VMDRDYCM", "vmdrdycm", 46, 1, FLAGS),
    U("USEITE_CALFLAG1", "calflag1", 47, 1, FLAGS),
    U("USEITE_HFQUCT", "hfquct", 48, 4, COUNTER),
    U("USEITE_HFDISP0", "hfdisp0", 52, 4, COUNTER),
    U("USEITE_HFDISP1", "hfdisp1", 56, 4, COUNTER),
    U("USEITE_HFDISP2", "hfdisp2", 60, 4, COUNTER),
    U("USEITE_HFDISP3", "hfdisp3", 64, 4, COUNTER),
    U("USEITE_HFELIG0", "hfelig0", 68, 4, COUNTER),
    U("USEITE_HFELIG1", "hfelig1", 72, 4, COUNTER),
    U("USEITE_HFELIG2", "hfelig2", 76, 4, COUNTER),
    U("USEITE_HFELIG3", "hfelig3", 80, 4, COUNTER),
    U("USEITE_HFSTCT", "hfstct", 84, 4, COUNTER),
    U("USEITE_HFTIDL", "hftidl", 88, 4, COUNTER),
    U("USEITE_HFTSVM", "hftsvm", 92, 4, COUNTER),
    U("USEITE_HFIOWT", "hfiowt", 96, 4, COUNTER),
    U("USEITE_HFCFWT", "hfcfwt", 100, 4, COUNTER),
    U("USEITE_HFSIMWT", "hfsimwt", 104, 4, COUNTER),
    U("USEITE_HFWTPAG", "hfwtpag", 108, 4, COUNTER),
    U("USEITE_HFCPUWT", "hfcpuwt", 112, 4, COUNTER),
    U("USEITE_HFCPURN", "hfcpurn", 116, 4, COUNTER),
    U("USEITE_HFESVM", "hfesvm", 120, 4, COUNTER),
    U("USEITE_HFLOAD", "hfload", 124, 4, COUNTER),
    U("USEITE_HFDORM", "hfdorm", 128, 4, COUNTER),
    S("USEITE_HFDSVM", "hfdsvm", 132, 4, COUNTER),
    U("USEITE_HFOTHR", "hfothr", 136, 4, COUNTER),
    U("USEITE_VMDCNTID", "vmdcntid", 140, 2, COUNTER),
    U("USEITE_VMDCTIDL", "vmdctidl", 142, 2, COUNTER),
    U("USEITE_VMDDFRWK", "vmddfrwk", 144, 4, GAUGE),
    U("USEITE_VMDSTATE", "vmdstate", 148, 1, CODE),
    U("USEITE_CALOSTAT", "calostat", 149, 1, FLAGS),
    U("USEITE_CALRSTAT", "calrstat", 150, 1, FLAGS),
    FIELD("USEITE_VMDCPRMD", "vmdcprmd", 152, 2, 4, UNSIGNED, COUNTER),
    FIELD("USEITE_VMDCWSGD", "vmdcwsgd", 160, 2, 4, UNSIGNED, COUNTER),
    FIELD("USEITE_VMDCETSD", "vmdcetsd", 168, 2, 4, UNSIGNED, COUNTER),
    FIELD("USEITE_VMDCIDLD", "vmdcidld", 176, 2, 4, UNSIGNED, COUNTER),
    U("USEITE_HFIOACT", "hfioact", 184, 4, COUNTER),
    U("USEITE_HFLLIST", "hfllist", 188, 4, COUNTER),
    U("USEITE_HFPGACT", "hfpgact", 192, 4, COUNTER),
    U("USEITE_VMDPUTYP", "vmdputyp", 196, 1, CODE),
    U("USEITE_VMDCFGEM", "vmdcfgem", 197, 1, FLAGS),
    U("USEITE_VMDPUST", "vmdpust", 198, 1, FLAGS),
};
/* What the guest's descriptor and its per-VMDBK view share: the source
 * and the layout of every field; they differ in their key. */
#define USEITE_SOURCE                                                          \
  .domain = ZVM_DOMAIN_USER, .number = 10, .ibm_name = "MRUSEITE",             \
  .zvm_level = "z/VM V6R2.0",                                                  \
  .source = "seed 002 (IBM MRUSEITE control block, updated 23 Nov 2011)",      \
  .length = 200
#define USEITE_LAYOUT                                                          \
  .type_name = "zvm_useite", .fields = useite_fields,                          \
  .nfields = COUNT_OF(useite_fields), .length = 200

const struct zvm_record_desc zvm_rec_useite = {
    USEITE_SOURCE,
    .title = "User Interaction at Transaction End",
    .main = {USEITE_LAYOUT, .key = {.nparts = 1,
                                    .part = {{.kind = ZVM_KEY_USERID,
                                              .field = USEITE_VMDUSER}}}},
    .hooks = &zvm_useite_hooks, /* one record per VMDBK: sums per guest */
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

const struct zvm_field *const zvm_useite_vmduser =
    &useite_fields[USEITE_VMDUSER];
const struct zvm_field *const zvm_useite_vmdputyp =
    &useite_fields[USEITE_VMDPUTYP];

/* ------------------------------------------------------------------------
 * D5R21 MRPRCSMT Multithreading config change event.
 * Source: seed 004 (IBM MRPRCSMT, z/VM V6R4.0, 36 bytes + CPUTINFO array).
 */
enum {
  PRCSMT_RCCSMTSQ,
  PRCSMT_CAL_STATUS,
  PRCSMT_CALMAXTC,
  PRCSMT_RCCCOALL,
  PRCSMT_RCCSMALL,
  PRCSMT_RCCSMSET,
  PRCSMT_CAL_CPUTACNT,
  PRCSMT_CAL_CPUTAESZ,
  PRCSMT_CAL_CPUTAOFF,
  PRCSMT_RCCCOALL_MAX,
  PRCSMT_RCCSMALL_MAX,
};

/* A thread count (seed 004: "values from 0 to the configured max threads
 * value (PRCSMT_CALMAXTC) or the value 255 (X'FF') to indicate that MAX
 * was specified"): type "threads" with OneValuePerList, X'FF' as NaN. */
#define THREADS_MAX(ibm, name, off)                                            \
  {                                                                            \
    .ibm_name = ibm, .metric = name, .offset = off, .width = 1, .count = 1,    \
    .kind = ZVM_FIELD_GAUGE, .flags = ZVM_FIELD_FF_IS_MAX,                     \
    .single_type = "threads"                                                   \
  }
/* Its flag: bool-<name>_is_max, 1 when the count is X'FF' (MAX). */
#define MAX_FLAG(ibm, name, off)                                               \
  {                                                                            \
    .ibm_name = ibm, .metric = name "_is_max", .offset = off, .width = 1,      \
    .count = 1, .kind = ZVM_FIELD_GAUGE, .flags = ZVM_FIELD_MAX_FLAG,          \
    .single_type = "bool"                                                      \
  }

static const struct zvm_field prcsmt_fields[] = {
    /* Dispatched under the names of the first release (type "gauge" with
     * OneValuePerList). */
    [PRCSMT_RCCSMTSQ] = {.ibm_name = "PRCSMT_RCCSMTSQ",
                         .metric = "mt_config_seq",
                         .offset = 20,
                         .width = 4,
                         .count = 1,
                         .kind = ZVM_FIELD_GAUGE,
                         .single_type = "gauge"},
    [PRCSMT_CAL_STATUS] = U("PRCSMT_CAL_STATUS", "cal_status", 24, 1, FLAGS),
    [PRCSMT_CALMAXTC] = {.ibm_name = "PRCSMT_CALMAXTC",
                         .metric = "mt_max_threads",
                         .offset = 25,
                         .width = 1,
                         .count = 1,
                         .kind = ZVM_FIELD_GAUGE,
                         .single_type = "gauge"},
    /* Thread counts for ALL on the MULTITHREADING statement and the SET
     * MULTITHREAD command (X'FF' = MAX: NaN, and a flag below). */
    [PRCSMT_RCCCOALL] = THREADS_MAX("PRCSMT_RCCCOALL", "statement_all", 26),
    [PRCSMT_RCCSMALL] = THREADS_MAX("PRCSMT_RCCSMALL", "set_all", 27),
    /* RCCSMSET: its one defined bit, RCCSMINI (X'80', SET MULTITHREAD
     * INITIAL), as bool-set_initial. */
    [PRCSMT_RCCSMSET] = {.ibm_name = "PRCSMT_RCCSMSET",
                         .metric = "set_initial",
                         .offset = 28,
                         .width = 1,
                         .count = 1,
                         .kind = ZVM_FIELD_GAUGE,
                         .flags = ZVM_FIELD_TOP_BIT,
                         .single_type = "bool"},
    [PRCSMT_CAL_CPUTACNT] =
        U("PRCSMT_CAL_CPUTACNT", "cal_cputacnt", 29, 1, LAYOUT),
    [PRCSMT_CAL_CPUTAESZ] =
        U("PRCSMT_CAL_CPUTAESZ", "cal_cputaesz", 30, 2, LAYOUT),
    [PRCSMT_CAL_CPUTAOFF] =
        U("PRCSMT_CAL_CPUTAOFF", "cal_cputaoff", 32, 2, LAYOUT),
    [PRCSMT_RCCCOALL_MAX] = MAX_FLAG("PRCSMT_RCCCOALL", "statement_all", 26),
    [PRCSMT_RCCSMALL_MAX] = MAX_FLAG("PRCSMT_RCCSMALL", "set_all", 27),
};

enum {
  CPUTINFO_CPUTYPE,
  CPUTINFO_RCCCOMNT,
  CPUTINFO_RCCHWMNT,
  CPUTINFO_RCCSYMNT,
  CPUTINFO_RCCACMNT,
  CPUTINFO_RCCSMMNT,
  CPUTINFO_RCCCRMNT,
  CPUTINFO_RCCCOMNT_MAX,
  CPUTINFO_RCCSMMNT_MAX,
  CPUTINFO_RCCCRMNT_MAX,
};

/* Thread counts per CPU type (type "threads" with OneValuePerList; the
 * first release's names for four of them). Every count is X'FF'-safe
 * (NaN); the three MAX can be given for (MULTITHREADING statement, SET
 * MULTITHREAD command, the resulting request) also have a flag. */
static const struct zvm_field cputinfo_fields[] = {
    [CPUTINFO_CPUTYPE] = U("PRCSMT_CAL_CPUTYPE", "cputype", 0, 1, ID),
    [CPUTINFO_RCCCOMNT] = THREADS_MAX("PRCSMT_CAL_RCCCOMNT", "statement", 1),
    [CPUTINFO_RCCHWMNT] = THREADS_MAX("PRCSMT_CAL_RCCHWMNT", "hardware_max", 2),
    [CPUTINFO_RCCSYMNT] = THREADS_MAX("PRCSMT_CAL_RCCSYMNT", "zvm_max", 3),
    [CPUTINFO_RCCACMNT] = THREADS_MAX("PRCSMT_CAL_RCCACMNT", "activated", 4),
    [CPUTINFO_RCCSMMNT] = THREADS_MAX("PRCSMT_CAL_RCCSMMNT", "set_command", 5),
    [CPUTINFO_RCCCRMNT] = THREADS_MAX("PRCSMT_CAL_RCCCRMNT", "requested", 6),
    [CPUTINFO_RCCCOMNT_MAX] = MAX_FLAG("PRCSMT_CAL_RCCCOMNT", "statement", 1),
    [CPUTINFO_RCCSMMNT_MAX] = MAX_FLAG("PRCSMT_CAL_RCCSMMNT", "set_command", 5),
    [CPUTINFO_RCCCRMNT_MAX] = MAX_FLAG("PRCSMT_CAL_RCCCRMNT", "requested", 6),
};

static const struct zvm_array prcsmt_cputinfo = {
    .ibm_name = "PRCSMT_CPUTINFO",
    .count_field = &prcsmt_fields[PRCSMT_CAL_CPUTACNT],
    .size_field = &prcsmt_fields[PRCSMT_CAL_CPUTAESZ],
    .offset_field = &prcsmt_fields[PRCSMT_CAL_CPUTAOFF],
    .entry =
        {
            .type_name = "zvm_prcsmt_cpu",
            .key = {.nparts = 1,
                    .part = {{.kind = ZVM_KEY_CPU_TYPE,
                              .field = CPUTINFO_CPUTYPE}}},
            .fields = cputinfo_fields,
            .nfields = COUNT_OF(cputinfo_fields),
            .length = 8,
        },
};

const struct zvm_record_desc zvm_rec_prcsmt = {
    .domain = ZVM_DOMAIN_PROCESSOR,
    .number = 21,
    .ibm_name = "MRPRCSMT",
    .title = "Multithreading config change event",
    .zvm_level = "z/VM V6R4.0",
    .source = "seed 004 (IBM MRPRCSMT control block, updated 5 Oct 2016)",
    .length = 36,
    .main =
        {
            .type_name = "zvm_prcsmt",
            .key = {.nparts = 1,
                    .part = {{.kind = ZVM_KEY_FIXED,
                              .field = -1,
                              .text = "system"}}},
            .fields = prcsmt_fields,
            .nfields = COUNT_OF(prcsmt_fields),
            .length = 36,
        },
    .arrays = &prcsmt_cputinfo,
    .narrays = 1,
    .hooks = &zvm_prcsmt_hooks, /* start/end notifications */
};

const struct zvm_field *const zvm_prcsmt_rccsmtsq =
    &prcsmt_fields[PRCSMT_RCCSMTSQ];
const struct zvm_field *const zvm_prcsmt_cal_status =
    &prcsmt_fields[PRCSMT_CAL_STATUS];
const struct zvm_field *const zvm_prcsmt_calmaxtc =
    &prcsmt_fields[PRCSMT_CALMAXTC];
const struct zvm_field *const zvm_prcsmt_rcccoall =
    &prcsmt_fields[PRCSMT_RCCCOALL];
const struct zvm_field *const zvm_prcsmt_rccsmall =
    &prcsmt_fields[PRCSMT_RCCSMALL];
const struct zvm_field *const zvm_prcsmt_rccsmset =
    &prcsmt_fields[PRCSMT_RCCSMSET];
const struct zvm_field *const zvm_cputinfo_rcccomnt =
    &cputinfo_fields[CPUTINFO_RCCCOMNT];
const struct zvm_field *const zvm_cputinfo_rccsmmnt =
    &cputinfo_fields[CPUTINFO_RCCSMMNT];
const struct zvm_field *const zvm_cputinfo_cputype =
    &cputinfo_fields[CPUTINFO_CPUTYPE];
const struct zvm_field *const zvm_cputinfo_rccacmnt =
    &cputinfo_fields[CPUTINFO_RCCACMNT];
const struct zvm_field *const zvm_cputinfo_rcccrmnt =
    &cputinfo_fields[CPUTINFO_RCCCRMNT];
const struct zvm_field *const zvm_cputinfo_rcchwmnt =
    &cputinfo_fields[CPUTINFO_RCCHWMNT];
const struct zvm_field *const zvm_cputinfo_rccsymnt =
    &cputinfo_fields[CPUTINFO_RCCSYMNT];

/* ------------------------------------------------------------------------
 * Built-in tables and their lookup.
 */
const struct zvm_record_desc *const zvm_record_tables[] = {
    &zvm_rec_mtrend, &zvm_rec_mtreof, &zvm_rec_uselon, &zvm_rec_uselof,
    &zvm_rec_useite, &zvm_rec_prcsmt, &zvm_rec_sytprp, /* records_sytprp.c */
    &zvm_rec_aplsdt,                                   /* hooks_appldata.c */
};
const size_t zvm_record_table_count = COUNT_OF(zvm_record_tables);

/* A handful of tables: a scan is as fast as an index, and a new table is
 * one line in the list above. (The registry, which the mapper uses, is
 * indexed.) */
const struct zvm_record_desc *zvm_record_find(uint8_t domain, uint16_t number) {
  for (size_t i = 0; i < zvm_record_table_count; i++)
    if (zvm_record_tables[i]->domain == domain &&
        zvm_record_tables[i]->number == number)
      return zvm_record_tables[i];
  return NULL;
}

const char *zvm_cpu_type_name(uint8_t type) {
  switch (type) {
  case ZVM_CPU_CP:
    return "cp";
  case ZVM_CPU_ZAAP:
    return "zaap";
  case ZVM_CPU_IFL:
    return "ifl";
  case ZVM_CPU_ICF:
    return "icf";
  case ZVM_CPU_ZIIP:
    return "ziip";
  default:
    return NULL;
  }
}

/* ------------------------------------------------------------------------
 * Field access.
 */
bool zvm_field_dispatched(const struct zvm_field *f) {
  return f->kind == ZVM_FIELD_COUNTER || f->kind == ZVM_FIELD_GAUGE;
}

static bool field_in_bytes(const struct zvm_field *f) {
  return f->type != ZVM_TYPE_RECORD_COUNT;
}

static bool field_is_numeric(const struct zvm_field *f) {
  return f->type != ZVM_TYPE_EBCDIC && f->type != ZVM_TYPE_RECORD_COUNT &&
         f->kind != ZVM_FIELD_TEXT;
}

int zvm_field_element_name(const struct zvm_field *f, unsigned idx, char *buf,
                           size_t size) {
  int n;
  if (f->count <= 1)
    n = snprintf(buf, size, "%s", f->metric);
  else
    n = snprintf(buf, size, "%s%s%u", f->metric,
                 f->elem_prefix != NULL ? f->elem_prefix
                 : f->count == 4        ? "_q"
                                        : "_",
                 idx);
  return n >= 0 && (size_t)n < size ? n : -1;
}

bool zvm_field_present(const struct zvm_field *f, size_t len, unsigned idx) {
  if (idx >= f->count || !field_in_bytes(f))
    return false;
  return zvm_in_bounds(len, (size_t)f->offset + (size_t)idx * f->width,
                       f->width);
}

bool zvm_field_u64(const struct zvm_field *f, const uint8_t *data, size_t len,
                   unsigned idx, uint64_t *out) {
  if (!field_is_numeric(f) || !zvm_field_present(f, len, idx))
    return false;
  return zvm_be_uint(data, len, (size_t)f->offset + (size_t)idx * f->width,
                     f->width, out);
}

bool zvm_field_i64(const struct zvm_field *f, const uint8_t *data, size_t len,
                   unsigned idx, int64_t *out) {
  uint64_t raw;
  if (!zvm_field_u64(f, data, len, idx, &raw))
    return false;
  if (f->type == ZVM_TYPE_SIGNED) {
    *out = zvm_sign_extend(raw, f->width);
  } else {
    if (raw > (uint64_t)INT64_MAX)
      return false;
    *out = (int64_t)raw;
  }
  return true;
}

bool zvm_field_value(const struct zvm_field *f, const uint8_t *data, size_t len,
                     unsigned idx, int64_t *derive, double *gauge) {
  if (!zvm_field_dispatched(f))
    return false;
  uint64_t raw;
  if (!zvm_field_u64(f, data, len, idx, &raw))
    return false;
  int64_t x;
  if (f->flags &
      (ZVM_FIELD_FF_IS_MAX | ZVM_FIELD_MAX_FLAG | ZVM_FIELD_TOP_BIT)) {
    /* One-byte codes of seed 004: the flag, or the count unless MAX. */
    bool is_max = raw == UINT64_MAX >> (64 - 8 * f->width);
    if (f->flags & ZVM_FIELD_TOP_BIT)
      *gauge = (double)((raw >> (8 * f->width - 1)) & 1);
    else if (f->flags & ZVM_FIELD_MAX_FLAG)
      *gauge = is_max ? 1 : 0;
    else
      *gauge = is_max ? NAN : (double)raw;
    *derive = 0;
    return f->kind == ZVM_FIELD_GAUGE;
  }
  /* A count down from X'7FFF...' (IBM: SYTPRP_PFXPRBTM "starts at
   * x'7FFFFFFF_00000000' and advances down") becomes what was used since:
   * X'7FFFFFFFFFFFFFFF' minus the value, in the type's unit, a positive
   * number that grows at the rate the field falls. Modulo 2^64, so a timer
   * that runs past zero (negative) keeps growing. */
  bool down = (f->flags & ZVM_FIELD_DECREMENTS) && f->width == 8 &&
              (f->type == ZVM_TYPE_UNSIGNED || f->type == ZVM_TYPE_CPU_TIMER);
  if (down)
    raw = UINT64_C(0x7FFFFFFFFFFFFFFF) - raw;
  switch (f->type) {
  case ZVM_TYPE_SIGNED:
    x = zvm_sign_extend(raw, f->width);
    break;
  case ZVM_TYPE_TOD: {
    uint64_t us;
    if (!zvm_tod_to_unix_us(raw, &us))
      return false; /* no monitor time is before 1970 */
    if (f->kind == ZVM_FIELD_GAUGE) {
      double sec = (double)us / 1e6;
      *gauge = f->scale != 0 ? sec * f->scale : sec;
      return true;
    }
    x = (int64_t)us;
    break;
  }
  case ZVM_TYPE_CPU_TIMER:
    x = (int64_t)zvm_timer_to_us(raw); /* < 2^52: fits */
    break;
  default:
    if (raw > (uint64_t)INT64_MAX)
      return false;
    x = (int64_t)raw;
    break;
  }
  if ((f->flags & ZVM_FIELD_DECREMENTS) && !down)
    x = -x; /* raw >= 0 here or small negative: no overflow */
  if (f->kind == ZVM_FIELD_GAUGE) {
    *gauge = f->scale != 0 ? (double)x * f->scale : (double)x;
    return true;
  }
  if (f->scale != 0 && f->scale != 1) {
    double d = (double)x * f->scale;
    if (!(d > -9.2e18 && d < 9.2e18))
      return false;
    x = (int64_t)d;
  }
  *derive = x;
  return true;
}

enum zvm_array_status zvm_array_locate(const struct zvm_array *a,
                                       const uint8_t *rec, size_t rec_len,
                                       struct zvm_array_view *view) {
  uint64_t count, entry_size, offset;
  if (!zvm_field_u64(a->count_field, rec, rec_len, 0, &count) ||
      !zvm_field_u64(a->size_field, rec, rec_len, 0, &entry_size) ||
      !zvm_field_u64(a->offset_field, rec, rec_len, 0, &offset))
    return ZVM_ARRAY_ABSENT;

  if (count == 0) {
    *view = (struct zvm_array_view){.base = rec, .count = 0, .entry_size = 0};
    return ZVM_ARRAY_OK;
  }
  /* Entries may not overlap the header, must have a size, and all of them
   * must lie inside the record. The quotient test cannot overflow for any
   * widths of the locating fields. */
  if (entry_size == 0 || offset < ZVM_MRHDR_LEN || offset > rec_len ||
      count > (rec_len - offset) / entry_size)
    return ZVM_ARRAY_BAD;

  *view = (struct zvm_array_view){
      .base = rec + offset,
      .count = (size_t)count,
      .entry_size = (size_t)entry_size,
  };
  return ZVM_ARRAY_OK;
}

/* ------------------------------------------------------------------------
 * Data sources and types.db lines.
 */
size_t zvm_layout_data_sources(const struct zvm_layout *l, struct zvm_ds *ds,
                               size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < l->nfields; i++) {
    const struct zvm_field *f = &l->fields[i];
    if (!zvm_field_dispatched(f))
      continue;
    for (unsigned e = 0; e < f->count; e++, n++) {
      if (n >= max)
        continue;
      if (zvm_field_element_name(f, e, ds[n].name, sizeof(ds[n].name)) < 0)
        ds[n].name[0] = '\0'; /* zvm_record_check() rejects such names */
      bool counter = f->kind == ZVM_FIELD_COUNTER;
      ds[n].type = counter ? ZVM_DS_DERIVE : ZVM_DS_GAUGE;
      /* A DERIVE minimum bounds the rate (types.db(5)); every counter,
       * one that counts down included, is dispatched with a rate >= 0. */
      ds[n].min = counter ? 0 : NAN;
      ds[n].max = NAN;
    }
  }
  return n;
}

int zvm_layout_types_db_line(const struct zvm_layout *l, char *buf,
                             size_t size) {
  if (l->type_name == NULL || size == 0)
    return -1;
  size_t n = zvm_layout_data_sources(l, NULL, 0);
  if (n == 0)
    return -1;
  struct zvm_ds *ds = calloc(n, sizeof(*ds));
  if (ds == NULL)
    return -1;
  zvm_layout_data_sources(l, ds, n);
  size_t len = 0;
  int w = snprintf(buf, size, "%s\t", l->type_name);
  bool ok = w >= 0 && (size_t)w < size;
  len = ok ? (size_t)w : 0;
  for (size_t i = 0; ok && i < n; i++) {
    char min[32] = "U", max[32] = "U";
    if (!isnan(ds[i].min))
      snprintf(min, sizeof(min), "%g", ds[i].min);
    if (!isnan(ds[i].max))
      snprintf(max, sizeof(max), "%g", ds[i].max);
    w = snprintf(buf + len, size - len, "%s%s:%s:%s:%s", i ? ", " : "",
                 ds[i].name, ds[i].type == ZVM_DS_DERIVE ? "DERIVE" : "GAUGE",
                 min, max);
    ok = w >= 0 && (size_t)w < size - len;
    if (ok)
      len += (size_t)w;
  }
  free(ds);
  return ok ? (int)len : -1;
}

/* ------------------------------------------------------------------------
 * Checking descriptors.
 */
int zvm_format_error(char *err, size_t err_size, const char *fmt, ...) {
  if (err != NULL && err_size > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    /* A reason quotes the configuration's text, which may hold control
     * characters: the log line stays one line. */
    for (char *p = err; *p != '\0'; p++)
      if ((unsigned char)*p < 0x20 || *p == 0x7f)
        *p = '?';
  }
  return -1;
}

/* collectd's names: letters, digits, '_' (and '-' only in instances). */
static bool valid_name(const char *s, size_t max) {
  if (s == NULL || s[0] == '\0' || strlen(s) >= max)
    return false;
  for (const char *p = s; *p != '\0'; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
          (*p >= '0' && *p <= '9') || *p == '_'))
      return false;
  return true;
}

static const char *field_label(const struct zvm_field *f) {
  return f->ibm_name != NULL ? f->ibm_name : f->metric;
}

static int check_field(const struct zvm_field *f, bool in_entry, char *err,
                       size_t err_size) {
  const char *name = field_label(f);
  if (f->metric == NULL || f->metric[0] == '\0')
    return zvm_format_error(err, err_size, "field %s has no name",
                            name ? name : "?");
  if (f->count == 0)
    return zvm_format_error(err, err_size, "field %s: count 0", name);
  if (f->type == ZVM_TYPE_RECORD_COUNT)
    return f->kind == ZVM_FIELD_COUNTER && f->count == 1
               ? 0
               : zvm_format_error(err, err_size,
                                  "field %s: a record count is one counter",
                                  name);
  switch (f->type) {
  case ZVM_TYPE_UNSIGNED:
  case ZVM_TYPE_SIGNED:
    if (f->width != 1 && f->width != 2 && f->width != 4 && f->width != 8)
      return zvm_format_error(err, err_size,
                              "field %s: width %u (use 1, 2, 4 or 8)", name,
                              (unsigned)f->width);
    break;
  case ZVM_TYPE_TOD:
  case ZVM_TYPE_CPU_TIMER:
    if (f->width != 8)
      return zvm_format_error(err, err_size,
                              "field %s: TOD and CPU-timer fields are 8 bytes",
                              name);
    break;
  case ZVM_TYPE_EBCDIC:
    if (f->width == 0 || zvm_field_dispatched(f))
      return zvm_format_error(
          err, err_size, "field %s: EBCDIC text cannot be a counter or gauge",
          name);
    break;
  default:
    return zvm_format_error(err, err_size, "field %s: unknown type", name);
  }
  if (!in_entry && f->offset < ZVM_MRHDR_LEN && zvm_field_dispatched(f))
    return zvm_format_error(
        err, err_size, "field %s: offset %u lies in the 20-byte record header",
        name, (unsigned)f->offset);
  if ((size_t)f->offset + (size_t)f->width * f->count > UINT16_MAX)
    return zvm_format_error(err, err_size, "field %s lies past 64 KiB", name);
  if (zvm_field_dispatched(f)) {
    char ds[64];
    for (unsigned e = 0; e < f->count; e++)
      if (zvm_field_element_name(f, e, ds, sizeof(ds)) < 0 ||
          !valid_name(ds, sizeof(ds)))
        return zvm_format_error(
            err, err_size,
            "field %s: \"%s\" is not a valid data source name "
            "(letters, digits, '_'; at most 63)",
            name, f->metric);
  }
  return 0;
}

static int check_layout(const struct zvm_layout *l, bool in_entry,
                        const char *what, char *err, size_t err_size) {
  for (size_t i = 0; i < l->nfields; i++)
    if (check_field(&l->fields[i], in_entry, err, err_size) != 0)
      return -1;
  size_t nds = zvm_layout_data_sources(l, NULL, 0);
  if (nds > ZVM_LAYOUT_DS_MAX)
    return zvm_format_error(err, err_size,
                            "%s: %zu values, more than %d in one value list",
                            what, nds, ZVM_LAYOUT_DS_MAX);
  if (l->type_name != NULL && !valid_name(l->type_name, 64))
    return zvm_format_error(err, err_size,
                            "%s: \"%s\" is not a valid type name", what,
                            l->type_name);
  if (nds > 0 && l->type_name == NULL && !l->one_value_per_list)
    return zvm_format_error(err, err_size, "%s: values but no type name", what);
  /* Duplicate data source names (quadratic, at configuration time). */
  if (nds > 1) {
    struct zvm_ds *ds = calloc(nds, sizeof(*ds));
    if (ds == NULL)
      return zvm_format_error(err, err_size, "out of memory");
    zvm_layout_data_sources(l, ds, nds);
    for (size_t i = 0; i < nds; i++)
      for (size_t j = i + 1; j < nds; j++)
        if (strcasecmp(ds[i].name, ds[j].name) == 0) {
          zvm_format_error(err, err_size, "%s: data source \"%s\" twice", what,
                           ds[i].name);
          free(ds);
          return -1;
        }
    free(ds);
  }
  if (l->key.nparts > ZVM_KEY_PARTS_MAX)
    return zvm_format_error(err, err_size, "%s: too many key parts", what);
  for (unsigned p = 0; p < l->key.nparts; p++) {
    const struct zvm_key_part *k = &l->key.part[p];
    if (k->kind == ZVM_KEY_FIXED) {
      if (k->text == NULL)
        return zvm_format_error(err, err_size, "%s: fixed key without a name",
                                what);
      continue;
    }
    if (k->field < 0 || (size_t)k->field >= l->nfields)
      return zvm_format_error(err, err_size, "%s: key field out of range",
                              what);
    const struct zvm_field *f = &l->fields[k->field];
    bool text = k->kind == ZVM_KEY_USERID || k->kind == ZVM_KEY_EBCDIC;
    if (text != (f->type == ZVM_TYPE_EBCDIC) || f->width == 0 || f->width > 8 ||
        f->count != 1)
      return zvm_format_error(
          err, err_size,
          "%s: key field %s cannot name an instance (EBCDIC "
          "names and numbers up to 8 bytes)",
          what, field_label(f));
  }
  return 0;
}

int zvm_record_check(const struct zvm_record_desc *d, char *err,
                     size_t err_size) {
  char what[48];
  snprintf(what, sizeof(what), "record D%uR%u", (unsigned)d->domain,
           (unsigned)d->number);
  if (d->domain >= ZVM_DOMAIN_COUNT)
    return zvm_format_error(err, err_size, "%s: domain must be 0-15", what);
  if (check_layout(&d->main, d->window, what, err, err_size) != 0)
    return -1;
  for (size_t a = 0; a < d->narrays; a++) {
    const struct zvm_array *arr = &d->arrays[a];
    const struct zvm_field *loc[3] = {arr->count_field, arr->size_field,
                                      arr->offset_field};
    for (unsigned i = 0; i < 3; i++)
      if (loc[i] == NULL || !field_is_numeric(loc[i]) ||
          loc[i]->offset < ZVM_MRHDR_LEN)
        return zvm_format_error(
            err, err_size,
            "%s: array %s needs numeric count, size and offset "
            "fields after the header",
            what, arr->ibm_name ? arr->ibm_name : "?");
    if (check_layout(&arr->entry, true, what, err, err_size) != 0)
      return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------------
 * Registry: per domain a table indexed by record number, grown to the
 * largest number added (record numbers are small in practice).
 */
struct reg_entry {
  const struct zvm_record_desc *desc;
  void (*free_desc)(const struct zvm_record_desc *d);
};

struct zvm_registry {
  struct reg_entry *all; /* in order of addition */
  size_t n, cap;
  size_t *slot[ZVM_DOMAIN_COUNT]; /* record number -> 1 + index in all */
  size_t nslots[ZVM_DOMAIN_COUNT];
};

struct zvm_registry *zvm_registry_create(void) {
  return calloc(1, sizeof(struct zvm_registry));
}

static int registry_add(struct zvm_registry *r, const struct zvm_record_desc *d,
                        bool replace,
                        void (*free_desc)(const struct zvm_record_desc *d),
                        char *err, size_t err_size, bool checked);

int zvm_registry_add_builtins(struct zvm_registry *r) {
  /* The built-in tables are constants: zvm_record_check() them once per
   * process, not for every configuration built (tests and fuzz targets
   * build thousands). */
  static atomic_bool checked;
  bool known_good = atomic_load(&checked);
  for (size_t i = 0; i < zvm_record_table_count; i++)
    if (registry_add(r, zvm_record_tables[i], false, NULL, NULL, 0,
                     known_good) != 0)
      return -1;
  atomic_store(&checked, true);
  return 0;
}

void zvm_registry_destroy(struct zvm_registry *r) {
  if (r == NULL)
    return;
  for (size_t i = 0; i < r->n; i++)
    if (r->all[i].free_desc != NULL)
      r->all[i].free_desc(r->all[i].desc);
  free(r->all);
  for (unsigned d = 0; d < ZVM_DOMAIN_COUNT; d++)
    free(r->slot[d]);
  free(r);
}

static bool type_clash(const struct zvm_layout *a, const struct zvm_layout *b) {
  return a->type_name != NULL && b->type_name != NULL &&
         strcmp(a->type_name, b->type_name) == 0;
}

/* A type name of d already used by another record than skip. */
static const char *clashing_type(const struct zvm_registry *r,
                                 const struct zvm_record_desc *d,
                                 const struct zvm_record_desc *skip) {
  for (size_t i = 0; i < r->n; i++) {
    const struct zvm_record_desc *o = r->all[i].desc;
    if (o == skip)
      continue;
    const struct zvm_layout *ol[8], *dl[8];
    size_t on = 0, dn = 0;
    ol[on++] = &o->main;
    for (size_t a = 0; a < o->narrays && on < 8; a++)
      ol[on++] = &o->arrays[a].entry;
    dl[dn++] = &d->main;
    for (size_t a = 0; a < d->narrays && dn < 8; a++)
      dl[dn++] = &d->arrays[a].entry;
    for (size_t x = 0; x < dn; x++)
      for (size_t y = 0; y < on; y++)
        if (type_clash(dl[x], ol[y]))
          return dl[x]->type_name;
  }
  return NULL;
}

int zvm_registry_add(struct zvm_registry *r, const struct zvm_record_desc *d,
                     bool replace,
                     void (*free_desc)(const struct zvm_record_desc *d),
                     char *err, size_t err_size) {
  return registry_add(r, d, replace, free_desc, err, err_size, false);
}

static int registry_add(struct zvm_registry *r, const struct zvm_record_desc *d,
                        bool replace,
                        void (*free_desc)(const struct zvm_record_desc *d),
                        char *err, size_t err_size, bool checked) {
  int status = checked ? 0 : zvm_record_check(d, err, err_size);
  const struct zvm_record_desc *old =
      status == 0 ? zvm_registry_find(r, d->domain, d->number) : NULL;
  if (status == 0 && old != NULL && !replace)
    status = zvm_format_error(
        err, err_size, "record D%uR%u is defined twice (%s and %s)",
        (unsigned)d->domain, (unsigned)d->number,
        old->ibm_name ? old->ibm_name : "?", d->ibm_name ? d->ibm_name : "?");
  const char *type = status == 0 ? clashing_type(r, d, old) : NULL;
  if (type != NULL)
    status = zvm_format_error(err, err_size,
                              "record D%uR%u: type name \"%s\" is already used",
                              (unsigned)d->domain, (unsigned)d->number, type);
  if (status != 0) {
    if (free_desc != NULL)
      free_desc(d);
    return -1;
  }

  if (old != NULL) {
    size_t i = r->slot[d->domain][d->number] - 1;
    if (r->all[i].free_desc != NULL)
      r->all[i].free_desc(r->all[i].desc);
    r->all[i] = (struct reg_entry){d, free_desc};
    return 0;
  }

  if (d->number >= r->nslots[d->domain]) {
    size_t n = (size_t)d->number + 1;
    if (n < 64)
      n = 64;
    size_t *tmp = realloc(r->slot[d->domain], n * sizeof(*tmp));
    if (tmp == NULL)
      goto nomem;
    memset(tmp + r->nslots[d->domain], 0,
           (n - r->nslots[d->domain]) * sizeof(*tmp));
    r->slot[d->domain] = tmp;
    r->nslots[d->domain] = n;
  }
  if (r->n == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 16;
    struct reg_entry *tmp = realloc(r->all, cap * sizeof(*tmp));
    if (tmp == NULL)
      goto nomem;
    r->all = tmp;
    r->cap = cap;
  }
  r->all[r->n++] = (struct reg_entry){d, free_desc};
  r->slot[d->domain][d->number] = r->n;
  return 0;

nomem:
  if (free_desc != NULL)
    free_desc(d);
  return zvm_format_error(err, err_size, "out of memory");
}

const struct zvm_record_desc *zvm_registry_find(const struct zvm_registry *r,
                                                uint8_t domain,
                                                uint16_t number) {
  if (domain >= ZVM_DOMAIN_COUNT || number >= r->nslots[domain])
    return NULL;
  size_t i = r->slot[domain][number];
  return i ? r->all[i - 1].desc : NULL;
}

size_t zvm_registry_count(const struct zvm_registry *r) { return r->n; }

const struct zvm_record_desc *zvm_registry_at(const struct zvm_registry *r,
                                              size_t i) {
  return i < r->n ? r->all[i].desc : NULL;
}

/* ------------------------------------------------------------------------
 * Walking a set with the tables.
 */
void zvm_record_check_arrays(const struct zvm_record_desc *d,
                             const struct zvm_record *rec,
                             struct zvm_decode_stats *stats) {
  /* An unusable array is counted, yet the record's fixed part is still
   * accepted: the mapper locates the arrays itself and skips a bad one. */
  for (size_t a = 0; a < d->narrays; a++) {
    struct zvm_array_view view;
    if (zvm_array_locate(&d->arrays[a], rec->data, rec->len, &view) ==
        ZVM_ARRAY_BAD) {
      stats->array_rejected++;
      break;
    }
  }
}

static void decode_set(const struct zvm_registry *r, const uint8_t *buf,
                       size_t len, zvm_domain_mask_t select, zvm_record_cb cb,
                       void *ctx, struct zvm_decode_stats *stats) {
  struct zvm_walk walk;
  struct zvm_record rec;
  zvm_walk_init(&walk, buf, len, select);
  while (zvm_walk_next(&walk, &rec)) {
    const struct zvm_record_desc *desc =
        r != NULL ? zvm_registry_find(r, rec.domain, rec.number)
                  : zvm_record_find(rec.domain, rec.number);
    if (zvm_record_accept(desc, &rec, stats) && cb != NULL)
      cb(&rec, desc, ctx);
  }
  zvm_walk_stats_add(&stats->walk, &walk.stats);
}

void zvm_decode_set(const uint8_t *buf, size_t len, zvm_domain_mask_t select,
                    zvm_record_cb cb, void *ctx,
                    struct zvm_decode_stats *stats) {
  decode_set(NULL, buf, len, select, cb, ctx, stats);
}

void zvm_decode_set_with(const struct zvm_registry *r, const uint8_t *buf,
                         size_t len, zvm_domain_mask_t select, zvm_record_cb cb,
                         void *ctx, struct zvm_decode_stats *stats) {
  decode_set(r, buf, len, select, cb, ctx, stats);
}
