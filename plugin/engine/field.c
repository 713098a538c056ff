/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - reading a descriptor's fields from a record's bytes: every
 * offset and length checked against the bytes there are.
 */
#include "zvm_monitor/field.h"
#include "zvm_monitor/be.h"
#include "zvm_monitor/decode.h"

#include <math.h>

static bool field_in_bytes(const struct zvm_field *f) {
  return f->type != ZVM_TYPE_RECORD_COUNT;
}

bool zvm_field_present(const struct zvm_field *f, size_t len, unsigned idx) {
  if (idx >= f->count || !field_in_bytes(f))
    return false;
  return zvm_in_bounds(len, (size_t)f->offset + (size_t)idx * f->width,
                       f->width);
}

bool zvm_field_u64(const struct zvm_field *f, const uint8_t *data, size_t len,
                   unsigned idx, uint64_t *out) {
  if (!zvm_field_is_numeric(f) || !zvm_field_present(f, len, idx))
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
  if (f->flags & ZVM_FIELD_MASK) {
    *gauge = (raw & f->mask) != 0 ? 1 : 0;
    *derive = 0;
    return f->kind == ZVM_FIELD_GAUGE;
  }
  if (f->flags &
      (ZVM_FIELD_FF_IS_MAX | ZVM_FIELD_MAX_FLAG | ZVM_FIELD_TOP_BIT)) {
    /* One-byte codes of IBM MRPRCSMT (z/VM V6R4.0): the flag, or the count
     * unless MAX. */
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
