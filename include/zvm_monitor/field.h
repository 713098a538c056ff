/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - reading a descriptor's fields from the bytes of a record
 * (or an array entry): the one set of readers; every length checked.
 */
#ifndef ZVM_MONITOR_FIELD_H
#define ZVM_MONITOR_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/records.h"

/* Whether the field's bytes are a number (not text, not the record
 * count). */
static inline bool zvm_field_is_numeric(const struct zvm_field *f) {
  return f->type != ZVM_TYPE_EBCDIC && f->type != ZVM_TYPE_RECORD_COUNT &&
         f->kind != ZVM_FIELD_TEXT;
}

/* True if element idx of field f lies fully inside len bytes. */
bool zvm_field_present(const struct zvm_field *f, size_t len, unsigned idx);

/* Element idx of a numeric field, raw (false if absent or not numeric). */
bool zvm_field_u64(const struct zvm_field *f, const uint8_t *data, size_t len,
                   unsigned idx, uint64_t *out);
bool zvm_field_i64(const struct zvm_field *f, const uint8_t *data, size_t len,
                   unsigned idx, int64_t *out);

/* Element idx as the value dispatched: TOD/CPU-timer conversion, sign,
 * DECREMENTS and scale applied. Counters give *derive, gauges *gauge.
 * False if absent, not dispatched, or not representable. */
bool zvm_field_value(const struct zvm_field *f, const uint8_t *data, size_t len,
                     unsigned idx, int64_t *derive, double *gauge);

enum zvm_array_status {
  ZVM_ARRAY_OK = 0,
  ZVM_ARRAY_ABSENT, /* record too short to hold the locating fields */
  ZVM_ARRAY_BAD,    /* zero entry size, or entries outside the record */
};

struct zvm_array_view {
  const uint8_t *base; /* entry 0 */
  size_t count;
  size_t entry_size;
};

/* Locate a record's array, checking every entry lies inside rec_len. A
 * count of 0 is OK (no entries). */
enum zvm_array_status zvm_array_locate(const struct zvm_array *a,
                                       const uint8_t *rec, size_t rec_len,
                                       struct zvm_array_view *view);

static inline const uint8_t *zvm_array_entry(const struct zvm_array_view *v,
                                             size_t i) {
  return v->base + i * v->entry_size;
}

#endif /* ZVM_MONITOR_FIELD_H */
