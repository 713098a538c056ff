/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - a guest's values summed over its VMDBKs (see vmdbk.h).
 */
#include "records/vmdbk.h"
#include "base/util.h"

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
