/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - a guest's values summed over its VMDBKs (see vmdbk.h).
 */
#include "engine/vmdbk.h"
#include "base/util.h"
#include "engine/hooks.h"
#include "zvm_monitor/be.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/typesdb.h"

#include <stdlib.h>
#include <string.h>

int zvm_vmdbk_init(struct zvm_vmdbk_set *s, size_t n) {
  *s = (struct zvm_vmdbk_set){.n = n};
  s->sum = calloc(n ? n : 1, sizeof(*s->sum));
  s->holders = calloc(n ? n : 1, sizeof(*s->holders));
  if (s->sum == NULL || s->holders == NULL) {
    zvm_vmdbk_free(s);
    return -1;
  }
  return 0;
}

void zvm_vmdbk_clear(struct zvm_vmdbk_set *s) {
  for (size_t i = 0; i < s->count; i++) {
    free(s->v[i].values);
    free(s->v[i].present);
  }
  s->count = 0;
  if (s->n > 0) {
    memset(s->sum, 0, s->n * sizeof(*s->sum));
    memset(s->holders, 0, s->n * sizeof(*s->holders));
  }
}

void zvm_vmdbk_free(struct zvm_vmdbk_set *s) {
  if (s->sum != NULL && s->holders != NULL)
    zvm_vmdbk_clear(s);
  free(s->v);
  free(s->sum);
  free(s->holders);
  *s = (struct zvm_vmdbk_set){0};
}

static int64_t add_saturated(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r))
    return r;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

/* Sum k again from every VMDBK (after an overflow of the running sum). */
static void resum(struct zvm_vmdbk_set *s, size_t k) {
  int64_t sum = 0;
  for (size_t i = 0; i < s->count; i++)
    if (s->v[i].present[k])
      sum = add_saturated(sum, s->v[i].values[k]);
  s->sum[k] = sum;
}

static struct zvm_vmdbk *vmdbk_add(struct zvm_vmdbk_set *s, uint16_t cpuad,
                                   enum zvm_vmdbk_status *status) {
  if (s->count >= ZVM_VMDBK_MAX) {
    *status = ZVM_VMDBK_FULL;
    return NULL;
  }
  *status = ZVM_VMDBK_NOMEM;
  if (!zvm_grow(&s->v, &s->cap, s->count, sizeof(*s->v), 2))
    return NULL;
  struct zvm_vmdbk *d = &s->v[s->count];
  *d = (struct zvm_vmdbk){.cpuad = cpuad};
  d->values = calloc(s->n ? s->n : 1, sizeof(*d->values));
  d->present = calloc(s->n ? s->n : 1, sizeof(*d->present));
  if (d->values == NULL || d->present == NULL) {
    free(d->values);
    free(d->present);
    return NULL;
  }
  s->count++;
  return d;
}

enum zvm_vmdbk_status zvm_vmdbk_update(struct zvm_vmdbk_set *s, uint16_t cpuad,
                                       bool base, const int64_t *values,
                                       const bool *present) {
  struct zvm_vmdbk *d = (struct zvm_vmdbk *)zvm_vmdbk_find(s, cpuad);
  if (d == NULL) {
    enum zvm_vmdbk_status status;
    d = vmdbk_add(s, cpuad, &status);
    if (d == NULL)
      return status;
  }
  if (base) {
    /* One base VMDBK per guest: a new base (re-defined CPU 0) takes over. */
    for (size_t i = 0; i < s->count; i++)
      s->v[i].base = false;
  }
  d->base = base;
  for (size_t k = 0; k < s->n; k++) {
    if (!present[k])
      continue; /* absent from this (shorter) record: keep the last value */
    int64_t old = d->present[k] ? d->values[k] : 0, delta;
    if (!d->present[k])
      s->holders[k]++;
    d->present[k] = true;
    d->values[k] = values[k];
    /* A saturated sum is no base for a difference: sum again. */
    if (s->sum[k] == INT64_MAX || s->sum[k] == INT64_MIN ||
        __builtin_sub_overflow(values[k], old, &delta) ||
        __builtin_add_overflow(s->sum[k], delta, &s->sum[k]))
      resum(s, k);
  }
  return ZVM_VMDBK_OK;
}

bool zvm_vmdbk_sum(const struct zvm_vmdbk_set *s, size_t k, int64_t *out) {
  if (k >= s->n || s->holders[k] == 0)
    return false;
  *out = s->sum[k];
  return true;
}

const struct zvm_vmdbk *zvm_vmdbk_find(const struct zvm_vmdbk_set *s,
                                       uint16_t cpuad) {
  /* A guest has a handful of VMDBKs: a linear search is the fastest. */
  for (size_t i = 0; i < s->count; i++)
    if (s->v[i].cpuad == cpuad)
      return &s->v[i];
  return NULL;
}

const struct zvm_vmdbk *zvm_vmdbk_base(const struct zvm_vmdbk_set *s) {
  for (size_t i = 0; i < s->count; i++)
    if (s->v[i].base)
      return &s->v[i];
  return NULL;
}

/* ------------------------------------------------------------------------
 * The hooks (vmdbk.h).
 */
/* The latest record of one VMDBK, kept as bytes: decoding it costs far
 * more than copying it, and only a virtual MP guest needs it decoded. At
 * most the bytes the layout's fields cover are kept (copy_size()). */
struct vmdbk_copy {
  uint16_t cpuad;
  bool base;
  bool dirty; /* newer than what vmdbks holds */
  uint16_t len;
  uint8_t *bytes; /* copy_size() bytes */
};

/* Per guest. A guest starts with one VMDBK: while every record is its
 * base VMDBK's, the engine keeps the latest record and the hook keeps
 * nothing but inst->hook_word (VMDBK_W_*: the one VMDBK's address, seen,
 * MP). At the first record of another VMDBK, or without CALBASE, the
 * guest is a virtual MP guest: the base VMDBK's latest record is taken
 * from the engine, and every VMDBK's is kept in inst->state. */
#define VMDBK_W_CPUAD 0xFFFFu            /* the one VMDBK while not MP */
#define VMDBK_W_SEEN (UINT64_C(1) << 16) /* a record of it was seen */
#define VMDBK_W_MP (UINT64_C(1) << 17)   /* a virtual MP guest */

struct vmdbk_state {
  struct vmdbk_copy *copies; /* one per VMDCPUAD seen */
  size_t ncopies, cap;
  struct zvm_vmdbk_set vmdbks; /* their values and sums (MP guests) */
  bool ready;                  /* vmdbks initialised */
  uint16_t latest_cpuad;       /* VMDBK of the guest's latest record */
  size_t copy_size;            /* bytes a copy keeps (copy_size()) */
  /* Records without CALBASE: transactions = the guest's records (the
   * engine counts every one, also one without a usable time) - these. */
  uint64_t nonbase_records;
};

/* inst->state: an MP guest's state, allocated when the guest shows it is
 * one (most guests never do: the entity stays small). */
struct vmdbk_slot {
  struct vmdbk_state *mp;
};

/* Bytes of a record the layout's fields cover (what a copy keeps). */
static size_t copy_size(const struct zvm_layout *l) {
  size_t size = 0;
  for (size_t i = 0; i < l->nfields; i++) {
    const struct zvm_field *f = &l->fields[i];
    size_t end = (size_t)f->offset + (size_t)f->width * f->count;
    if (f->type != ZVM_TYPE_RECORD_COUNT && end > size)
      size = end;
  }
  return size;
}

/* The MP state of inst, allocated on first use; NULL if out of memory. */
static struct vmdbk_state *mp_state(struct zvm_instance *inst) {
  struct vmdbk_slot *slot = inst->state;
  if (slot->mp == NULL) {
    slot->mp = calloc(1, sizeof(*slot->mp));
    if (slot->mp != NULL)
      slot->mp->copy_size = copy_size(inst->layout);
  }
  return slot->mp;
}

static struct vmdbk_copy *copy_for(struct vmdbk_state *st, uint16_t cpuad) {
  for (size_t i = 0; i < st->ncopies; i++)
    if (st->copies[i].cpuad == cpuad)
      return &st->copies[i];
  if (st->ncopies >= ZVM_VMDBK_MAX)
    return NULL; /* more VMDBKs than a guest can have */
  if (!zvm_grow(&st->copies, &st->cap, st->ncopies, sizeof(*st->copies), 1))
    return NULL;
  uint8_t *bytes = malloc(st->copy_size ? st->copy_size : 1);
  if (bytes == NULL)
    return NULL;
  /* A new slot from zvm_grow() is not zeroed: every member is set here,
   * so no flag of a slot is ever read uninitialised. */
  struct vmdbk_copy *c = &st->copies[st->ncopies++];
  *c = (struct vmdbk_copy){.cpuad = cpuad, .bytes = bytes};
  return c;
}

/* Keep len bytes of a VMDBK's latest record in c. */
static void copy_keep(const struct vmdbk_state *st, struct vmdbk_copy *c,
                      bool base, const uint8_t *data, size_t len) {
  c->base = base;
  c->dirty = true;
  c->len = (uint16_t)(len < st->copy_size ? len : st->copy_size);
  memcpy(c->bytes, data, c->len);
}

static enum zvm_hook_verdict vmdbk_mp(struct zvm_hook_ctx *ctx,
                                      struct zvm_instance *inst,
                                      const uint8_t *data, size_t len,
                                      uint16_t cpuad, bool base);

static enum zvm_hook_verdict vmdbk_instance(struct zvm_hook_ctx *ctx,
                                            struct zvm_instance *inst,
                                            const uint8_t *data, size_t len,
                                            uint64_t time_us) {
  (void)time_us;

  /* A record too short for the VMDBK address is the guest's only VMDBK
   * of an older layout: address 0, base. */
  const struct zvm_vmdbk_fields *vf = ctx->hook_data;
  uint64_t cpuad = 0, flag = vf->base_mask;
  (void)zvm_be_uint(data, len, vf->cpuad_offset, vf->cpuad_width, &cpuad);
  if (vf->base_width > 0)
    (void)zvm_be_uint(data, len, vf->base_offset, vf->base_width, &flag);
  bool base = vf->base_width == 0 || (flag & vf->base_mask) != 0;

  /* One VMDBK, every record its base's (a guest with one virtual CPU, the
   * common case): the guest's values are its latest record's, read by the
   * engine (a shorter record yields only the fields it holds). Kept short,
   * on the instance's hook word: it runs for every record. */
  uint64_t w = inst->hook_word;
  if (!(w & VMDBK_W_MP) && base &&
      (!(w & VMDBK_W_SEEN) || cpuad == (w & VMDBK_W_CPUAD))) {
    inst->hook_word = VMDBK_W_SEEN | cpuad;
    return ZVM_HOOK_KEEP;
  }
  return vmdbk_mp(ctx, inst, data, len, (uint16_t)cpuad, base);
}

/* A virtual MP guest's record (or the one that shows it is one). */
static __attribute__((noinline)) enum zvm_hook_verdict
vmdbk_mp(struct zvm_hook_ctx *ctx, struct zvm_instance *inst,
         const uint8_t *data, size_t len, uint16_t cpuad, bool base) {
  struct vmdbk_state *st = mp_state(inst);
  if (st == NULL)
    return ZVM_HOOK_DROP; /* out of memory: the sums stay as they were */
  uint64_t w = inst->hook_word;
  if (!(w & VMDBK_W_MP)) {
    inst->hook_word = w | VMDBK_W_MP;
    if (w & VMDBK_W_SEEN) {
      size_t klen;
      const uint8_t *kept = zvm_hook_kept(ctx, inst, &klen);
      struct vmdbk_copy *b =
          kept != NULL ? copy_for(st, (uint16_t)(w & VMDBK_W_CPUAD)) : NULL;
      if (b != NULL)
        copy_keep(st, b, true, kept, klen);
    }
  }

  struct vmdbk_copy *c = copy_for(st, cpuad);
  if (c == NULL)
    return ZVM_HOOK_DROP; /* the sums stay as they were */
  copy_keep(st, c, base, data, len);
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
static bool vmdbks_update(struct vmdbk_state *st, const struct zvm_layout *l) {
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

static bool vmdbk_values(struct zvm_hook_ctx *ctx,
                         const struct zvm_instance *inst,
                         struct zvm_value_item *items, size_t nitems) {
  (void)ctx;
  if (!(inst->hook_word & VMDBK_W_MP))
    return true; /* KEEP: the items are the kept record's */
  struct vmdbk_state *st = ((const struct vmdbk_slot *)inst->state)->mp;
  if (st == NULL || st->ncopies == 0)
    return false; /* ended (logoff) since its records: nothing to sum */
  const struct zvm_layout *l = inst->layout;
  if (!vmdbks_update(st, l))
    return false; /* out of memory: no list this pass */
  /* Without a base flag every record is its VMDBK's base record: the
   * levels are the latest record's. */
  const struct zvm_vmdbk_fields *vf = ctx->hook_data;
  const struct zvm_vmdbk *level_src =
      vf->base_width > 0 ? zvm_vmdbk_base(&st->vmdbks) : NULL;
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

static void vmdbk_release(void *state) {
  struct vmdbk_slot *slot = state;
  struct vmdbk_state *st = slot->mp;
  if (st == NULL)
    return;
  if (st->ready)
    zvm_vmdbk_free(&st->vmdbks);
  for (size_t i = 0; i < st->ncopies; i++)
    free(st->copies[i].bytes);
  free(st->copies);
  free(st);
  slot->mp = NULL;
}

const struct zvm_record_hooks zvm_vmdbk_hooks = {
    .instance = vmdbk_instance,
    .values = vmdbk_values,
    .state_size = sizeof(struct vmdbk_slot),
    .state_release = vmdbk_release,
    .guest_session = true,
    .notify_kind = ZVM_NOTIFY_NONE,
};
