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
#include "records/catalog.h"
#include "records/vmdbk.h"
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

static const struct zvm_record_hooks useite_hooks;

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
    .hooks = &useite_hooks, /* one record per VMDBK: sums per guest */
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

/* The latest record of one VMDBK, kept as bytes: decoding it costs far
 * more than copying it, and only a virtual MP guest needs it decoded. */
#define USEITE_COPY 256 /* bytes kept: MRUSEITE is 200 at V6R2 */
struct vmdbk_copy {
  uint16_t cpuad;
  bool base;
  bool dirty; /* newer than what vmdbks holds */
  uint16_t len;
  uint8_t bytes[USEITE_COPY];
};

/* Per guest. A guest starts with one VMDBK: while every record is its
 * base VMDBK's, the engine keeps the latest record and the hook keeps
 * nothing but inst->hook_word (USEITE_W_*: the one VMDBK's address, seen,
 * MP). At the first record of another VMDBK, or without CALBASE, the
 * guest is a virtual MP guest: the base VMDBK's latest record is taken
 * from the engine, and every VMDBK's is kept in inst->state. */
#define USEITE_W_CPUAD 0xFFFFu            /* the one VMDBK while not MP */
#define USEITE_W_SEEN (UINT64_C(1) << 16) /* a record of it was seen */
#define USEITE_W_MP (UINT64_C(1) << 17)   /* a virtual MP guest */

struct useite_state {
  struct vmdbk_copy *copies; /* one per VMDCPUAD seen */
  size_t ncopies, cap;
  struct zvm_vmdbk_set vmdbks; /* their values and sums (MP guests) */
  bool ready;                  /* vmdbks initialised */
  uint16_t latest_cpuad;       /* VMDBK of the guest's latest record */
  /* Records without CALBASE: transactions = the guest's records (the
   * engine counts every one, also one without a usable time) - these. */
  uint64_t nonbase_records;
};

/* inst->state: an MP guest's state, allocated when the guest shows it is
 * one (most guests never do: the entity stays small). */
struct useite_slot {
  struct useite_state *mp;
};

/* The MP state of inst, allocated on first use; NULL if out of memory. */
static struct useite_state *mp_state(struct zvm_instance *inst) {
  struct useite_slot *slot = inst->state;
  if (slot->mp == NULL)
    slot->mp = calloc(1, sizeof(*slot->mp));
  return slot->mp;
}

static struct vmdbk_copy *copy_for(struct useite_state *st, uint16_t cpuad) {
  for (size_t i = 0; i < st->ncopies; i++)
    if (st->copies[i].cpuad == cpuad)
      return &st->copies[i];
  if (st->ncopies >= ZVM_VMDBK_MAX)
    return NULL; /* more VMDBKs than a guest can have */
  if (!zvm_grow(&st->copies, &st->cap, st->ncopies, sizeof(*st->copies), 1))
    return NULL;
  /* A new slot from zvm_grow() is not zeroed: every member is set here,
   * so no flag of a slot is ever read uninitialised. */
  struct vmdbk_copy *c = &st->copies[st->ncopies++];
  *c = (struct vmdbk_copy){.cpuad = cpuad};
  return c;
}

static enum zvm_hook_verdict useite_mp(struct zvm_hook_ctx *ctx,
                                       struct zvm_instance *inst,
                                       const uint8_t *data, size_t len,
                                       uint16_t cpuad, bool base);

static enum zvm_hook_verdict useite_instance(struct zvm_hook_ctx *ctx,
                                             struct zvm_instance *inst,
                                             const uint8_t *data, size_t len,
                                             uint64_t time_us) {
  (void)time_us;

  /* A record too short for the VMDBK address is the guest's only VMDBK
   * of an older layout: address 0, base. */
  uint16_t cpuad = 0;
  uint8_t calflag1 = USEITE_CALBASE;
  (void)zvm_be_u16(data, len, useite_fields[USEITE_VMDCPUAD].offset, &cpuad);
  (void)zvm_be_u8(data, len, useite_fields[USEITE_CALFLAG1].offset, &calflag1);
  bool base = (calflag1 & USEITE_CALBASE) != 0;

  /* One VMDBK, every record its base's (a guest with one virtual CPU, the
   * common case): the guest's values are its latest record's, read by the
   * engine (a shorter record yields only the fields it holds). Kept short,
   * on the instance's hook word: it runs for every record. */
  uint64_t w = inst->hook_word;
  if (!(w & USEITE_W_MP) && base &&
      (!(w & USEITE_W_SEEN) || cpuad == (w & USEITE_W_CPUAD))) {
    inst->hook_word = USEITE_W_SEEN | cpuad;
    return ZVM_HOOK_KEEP;
  }
  return useite_mp(ctx, inst, data, len, cpuad, base);
}

/* A virtual MP guest's record (or the one that shows it is one). */
static __attribute__((noinline)) enum zvm_hook_verdict
useite_mp(struct zvm_hook_ctx *ctx, struct zvm_instance *inst,
          const uint8_t *data, size_t len, uint16_t cpuad, bool base) {
  struct useite_state *st = mp_state(inst);
  if (st == NULL)
    return ZVM_HOOK_DROP; /* out of memory: the sums stay as they were */
  uint64_t w = inst->hook_word;
  if (!(w & USEITE_W_MP)) {
    inst->hook_word = w | USEITE_W_MP;
    if (w & USEITE_W_SEEN) {
      size_t klen;
      const uint8_t *kept = zvm_hook_kept(ctx, inst, &klen);
      struct vmdbk_copy *b =
          kept != NULL ? copy_for(st, (uint16_t)(w & USEITE_W_CPUAD)) : NULL;
      if (b != NULL) {
        b->base = true;
        b->dirty = true;
        b->len = (uint16_t)(klen < USEITE_COPY ? klen : USEITE_COPY);
        memcpy(b->bytes, kept, b->len);
      }
    }
  }

  struct vmdbk_copy *c = copy_for(st, cpuad);
  if (c == NULL)
    return ZVM_HOOK_DROP; /* the sums stay as they were */
  c->base = base;
  c->dirty = true;
  c->len = (uint16_t)(len < USEITE_COPY ? len : USEITE_COPY);
  memcpy(c->bytes, data, c->len);
  st->latest_cpuad = cpuad;
  if (!base)
    st->nonbase_records++;
  return ZVM_HOOK_PENDING; /* the values hook gives the sums */
}

/* The value of element idx of a field as an integer (D4R10's values are
 * integers: counters and the two levels). */
static bool element_value(const struct zvm_field *f, unsigned idx,
                          const uint8_t *data, size_t len, int64_t *out) {
  int64_t x = 0;
  double g = 0;
  if (!zvm_field_value(f, data, len, idx, &x, &g))
    return false;
  *out = f->kind == ZVM_FIELD_GAUGE ? (int64_t)g : x;
  return true;
}

/* Decode the VMDBKs with newer records into vmdbks (their sums move by the
 * difference to their previous values). False if out of memory. */
static bool vmdbks_update(struct useite_state *st, const struct zvm_layout *l) {
  size_t nds = zvm_layout_data_sources(l, NULL, 0);
  if (nds > ZVM_LAYOUT_DS_MAX)
    return false;
  if (!st->ready) {
    if (zvm_vmdbk_init(&st->vmdbks, nds) != 0)
      return false;
    st->ready = true;
  }
  int64_t values[ZVM_LAYOUT_DS_MAX];
  bool present[ZVM_LAYOUT_DS_MAX];
  for (size_t c = 0; c < st->ncopies; c++) {
    struct vmdbk_copy *cp = &st->copies[c];
    if (!cp->dirty)
      continue;
    size_t k = 0;
    for (size_t i = 0; i < l->nfields; i++) {
      const struct zvm_field *f = &l->fields[i];
      if (!zvm_field_dispatched(f))
        continue;
      for (unsigned idx = 0; idx < f->count && k < nds; idx++, k++) {
        values[k] = 0;
        present[k] = f->type != ZVM_TYPE_RECORD_COUNT &&
                     element_value(f, idx, cp->bytes, cp->len, &values[k]);
      }
    }
    if (zvm_vmdbk_update(&st->vmdbks, cp->cpuad, cp->base, values, present) !=
        ZVM_VMDBK_OK)
      return false;
    cp->dirty = false;
  }
  return true;
}

static bool useite_values(struct zvm_hook_ctx *ctx,
                          const struct zvm_instance *inst,
                          struct zvm_value_item *items, size_t nitems) {
  (void)ctx;
  if (!(inst->hook_word & USEITE_W_MP))
    return true; /* KEEP: the items are the kept record's */
  struct useite_state *st = ((const struct useite_slot *)inst->state)->mp;
  if (st == NULL || st->ncopies == 0)
    return false; /* ended (logoff) since its records: nothing to sum */
  const struct zvm_layout *l = inst->layout;
  if (!vmdbks_update(st, l))
    return false; /* out of memory: no list this pass */
  const struct zvm_vmdbk *level_src = zvm_vmdbk_base(&st->vmdbks);
  if (level_src == NULL)
    level_src = zvm_vmdbk_find(&st->vmdbks, st->latest_cpuad);
  size_t k = 0;
  for (size_t i = 0; i < l->nfields; i++) {
    const struct zvm_field *f = &l->fields[i];
    if (!zvm_field_dispatched(f))
      continue;
    for (unsigned idx = 0; idx < f->count && k < nitems; idx++, k++) {
      int64_t v = 0;
      if (f->type == ZVM_TYPE_RECORD_COUNT) {
        uint64_t t = inst->records - st->nonbase_records;
        v = t > INT64_MAX ? INT64_MAX : (int64_t)t;
      } else if (f->kind == ZVM_FIELD_GAUGE) {
        v = level_src != NULL && level_src->present[k] ? level_src->values[k]
                                                       : 0;
      } else {
        (void)zvm_vmdbk_sum(&st->vmdbks, k, &v);
      }
      if (items[k].kind == ZVM_VALUE_DERIVE)
        items[k].derive = v;
      else
        items[k].gauge = (double)v;
    }
  }
  return true;
}

static void useite_release(void *state) {
  struct useite_slot *slot = state;
  struct useite_state *st = slot->mp;
  if (st == NULL)
    return;
  if (st->ready)
    zvm_vmdbk_free(&st->vmdbks);
  free(st->copies);
  free(st);
  slot->mp = NULL;
}

static const struct zvm_record_hooks useite_hooks = {
    .instance = useite_instance,
    .values = useite_values,
    .state_size = sizeof(struct useite_slot),
    .state_release = useite_release,
    .notify_kind = ZVM_NOTIFY_NONE,
};
