/*
 * zvm_monitor - D4R10 MRUSEITE hook: a guest's values summed over its
 * VMDBKs.
 *
 * Seed 002 (MRUSEITE, z/VM V6R2.0): "A separate record is generated for
 * each VMDBK in a virtual complex that contributed to the transaction";
 * a virtual MP guest has one VMDBK per virtual CPU, told apart by
 * USEITE_VMDCPUAD (offset 28), and the base VMDBK has USEITE_CALBASE
 * (X'80' in USEITE_CALFLAG1, offset 47). Each VMDBK's high-frequency
 * counters are its own. So, per guest (the engine's instance):
 *
 *   - a counter is the sum over its VMDBKs of each VMDBK's latest value
 *     (vmdbk.h): a VMDBK that skips transactions keeps its last values in
 *     the sum, which never goes backwards while the guest is tracked;
 *   - a level (VMDSLCNT, VMDDFRWK: the layout's gauges) is not summed: it
 *     is the base VMDBK's latest value (before a base record has been
 *     seen: the latest record's);
 *   - transactions counts the base VMDBK's records only: one per
 *     transaction, however many VMDBKs contributed.
 *
 * zvm_useite_end_guest() ends a guest's per-VMDBK state at once (its
 * logoff).
 */
#include "zvm_monitor/hooks.h"
#include "zvm_monitor/vmdbk.h"

#include <string.h>

#define USEITE_VMDCPUAD_OFF 28 /* Unsigned 2 */
#define USEITE_CALFLAG1_OFF 47 /* Bitstring 1 */
#define USEITE_CALBASE 0x80
#define EBCDIC_BLANK 0x40

/* Per guest (inst->state). */
struct useite_state {
  struct zvm_vmdbk_set vmdbks; /* one entry per VMDCPUAD */
  bool ready;                  /* vmdbks initialised */
  bool failed;                 /* out of memory once: no values */
  uint16_t latest_cpuad;       /* VMDBK of the guest's latest record */
  /* Records without CALBASE: transactions = the guest's records (the
   * engine counts every one, also one without a usable time) - these. */
  uint64_t nonbase_records;
};

/* The value of data source k of a record, as an integer (D4R10's values
 * are integers: counters and the two levels). */
static bool element_value(const struct zvm_field *f, unsigned idx,
                          const uint8_t *data, size_t len, int64_t *out) {
  int64_t x = 0;
  double g = 0;
  if (!zvm_field_value(f, data, len, idx, &x, &g))
    return false;
  *out = f->kind == ZVM_FIELD_GAUGE ? (int64_t)g : x;
  return true;
}

static enum zvm_hook_verdict useite_instance(struct zvm_hook_ctx *ctx,
                                             struct zvm_instance *inst,
                                             const uint8_t *data, size_t len,
                                             uint64_t time_us) {
  (void)ctx;
  (void)time_us;
  struct useite_state *st = inst->state;
  const struct zvm_layout *l = inst->layout;
  size_t nds = zvm_layout_data_sources(l, NULL, 0);
  if (nds > ZVM_LAYOUT_DS_MAX)
    return ZVM_HOOK_DROP;
  if (!st->ready) {
    if (zvm_vmdbk_init(&st->vmdbks, nds) != 0) {
      st->failed = true;
      return ZVM_HOOK_DROP;
    }
    st->ready = true;
  }

  /* A record too short for the VMDBK address is the guest's only VMDBK
   * of an older layout: address 0, base. */
  uint16_t cpuad = 0;
  bool base = true;
  if (len >= USEITE_VMDCPUAD_OFF + 2)
    cpuad = (uint16_t)(data[USEITE_VMDCPUAD_OFF] << 8 |
                       data[USEITE_VMDCPUAD_OFF + 1]);
  if (len > USEITE_CALFLAG1_OFF)
    base = (data[USEITE_CALFLAG1_OFF] & USEITE_CALBASE) != 0;

  int64_t values[ZVM_LAYOUT_DS_MAX];
  bool present[ZVM_LAYOUT_DS_MAX];
  size_t k = 0;
  for (size_t i = 0; i < l->nfields; i++) {
    const struct zvm_field *f = &l->fields[i];
    if (!zvm_field_dispatched(f))
      continue;
    for (unsigned idx = 0; idx < f->count && k < nds; idx++, k++) {
      values[k] = 0;
      present[k] = f->type != ZVM_TYPE_RECORD_COUNT &&
                   element_value(f, idx, data, len, &values[k]);
    }
  }
  if (zvm_vmdbk_update(&st->vmdbks, cpuad, base, values, present) !=
      ZVM_VMDBK_OK)
    return ZVM_HOOK_DROP; /* more VMDBKs than a guest can have, or no
                             memory: the sums stay as they were */
  st->latest_cpuad = cpuad;
  if (!base)
    st->nonbase_records++;
  /* One VMDBK, every record its base's (a guest with one virtual CPU, the
   * common case): the sums are the record's own values, so the engine
   * keeps the record and reads it (a shorter record then yields only the
   * fields it holds). Otherwise the values hook gives the sums. */
  if (st->vmdbks.count == 1 && st->nonbase_records == 0)
    return ZVM_HOOK_KEEP;
  return ZVM_HOOK_PENDING;
}

static bool useite_values(struct zvm_hook_ctx *ctx,
                          const struct zvm_instance *inst,
                          struct zvm_value_item *items, size_t nitems) {
  (void)ctx;
  const struct useite_state *st = inst->state;
  if (!st->ready || st->failed)
    return false;
  if (st->vmdbks.count == 1 && st->nonbase_records == 0)
    return true; /* KEEP: the items are the kept record's */
  const struct zvm_vmdbk *level_src = zvm_vmdbk_base(&st->vmdbks);
  if (level_src == NULL)
    level_src = zvm_vmdbk_find(&st->vmdbks, st->latest_cpuad);
  const struct zvm_layout *l = inst->layout;
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
      }
      else if (f->kind == ZVM_FIELD_GAUGE)
        v = level_src != NULL && level_src->present[k] ? level_src->values[k]
                                                       : 0;
      else
        (void)zvm_vmdbk_sum(&st->vmdbks, k, &v);
      if (items[k].kind == ZVM_VALUE_DERIVE)
        items[k].derive = v;
      else
        items[k].gauge = (double)v;
    }
  }
  return true;
}

static void useite_release(void *state) {
  struct useite_state *st = state;
  if (st->ready)
    zvm_vmdbk_free(&st->vmdbks);
  st->ready = false;
}

bool zvm_useite_end_guest(struct zvm_hook_ctx *ctx, const uint8_t userid[8]) {
  /* The key as the engine forms it for a USERID part: the 8 EBCDIC bytes,
   * trailing blanks or NULs as blanks, big-endian (records.h). */
  uint8_t b[8];
  memcpy(b, userid, sizeof(b));
  int i = 7;
  for (; i >= 0 && (b[i] == EBCDIC_BLANK || b[i] == 0x00); i--)
    b[i] = EBCDIC_BLANK;
  if (i < 0)
    return false;
  struct zvm_key_value key = {{0}};
  for (unsigned j = 0; j < 8; j++)
    key.v[0] = key.v[0] << 8 | b[j];
  struct zvm_instance *inst = zvm_hook_find(ctx, &zvm_rec_useite.main, &key);
  if (inst == NULL || inst->state == NULL)
    return false;
  struct useite_state *st = inst->state;
  if (st->ready)
    zvm_vmdbk_clear(&st->vmdbks);
  return true;
}

const struct zvm_record_hooks zvm_useite_hooks = {
    .instance = useite_instance,
    .values = useite_values,
    .state_size = sizeof(struct useite_state),
    .state_release = useite_release,
};
