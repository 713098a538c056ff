/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - big-endian field access for z/VM monitor data.
 *
 * All z/VM monitor data is big-endian. Values are assembled with shifts so
 * the result is the same on s390x and x86_64; nothing here casts a struct
 * onto a buffer. The checked accessors test the bounds first and return
 * false without touching *out when the field is not fully inside buf.
 */
#ifndef ZVM_MONITOR_BE_H
#define ZVM_MONITOR_BE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Unchecked loads: the caller has already proven p[0..width-1] is valid. */
static inline uint16_t zvm_load_be16(const uint8_t *p) {
  return (uint16_t)(((uint16_t)p[0] << 8) | p[1]);
}

static inline uint32_t zvm_load_be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
         ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline uint64_t zvm_load_be64(const uint8_t *p) {
  return ((uint64_t)zvm_load_be32(p) << 32) | zvm_load_be32(p + 4);
}

/* Two's complement reinterpretation without implementation-defined casts. */
static inline int64_t zvm_sign_extend(uint64_t v, unsigned width) {
  if (width >= 8)
    return v <= (uint64_t)INT64_MAX ? (int64_t)v : -(int64_t)(~v) - 1;
  uint64_t sign = (uint64_t)1 << (width * 8 - 1);
  uint64_t mask = (sign << 1) - 1;
  v &= mask;
  return (v & sign) ? (int64_t)v - (int64_t)(sign << 1) : (int64_t)v;
}

/* True when [off, off + width) lies inside a buffer of len bytes. */
static inline bool zvm_in_bounds(size_t len, size_t off, size_t width) {
  return off <= len && width <= len - off;
}

/* Unsigned big-endian integer of 1, 2, 4 or 8 bytes (other widths: false). */
static inline bool zvm_be_uint(const uint8_t *buf, size_t len, size_t off,
                               unsigned width, uint64_t *out) {
  if (!zvm_in_bounds(len, off, width))
    return false;
  const uint8_t *p = buf + off;
  switch (width) {
  case 1:
    *out = p[0];
    return true;
  case 2:
    *out = zvm_load_be16(p);
    return true;
  case 4:
    *out = zvm_load_be32(p);
    return true;
  case 8:
    *out = zvm_load_be64(p);
    return true;
  default:
    return false;
  }
}

static inline bool zvm_be_int(const uint8_t *buf, size_t len, size_t off,
                              unsigned width, int64_t *out) {
  uint64_t v;
  if (!zvm_be_uint(buf, len, off, width, &v))
    return false;
  *out = zvm_sign_extend(v, width);
  return true;
}

static inline bool zvm_be_u8(const uint8_t *buf, size_t len, size_t off,
                             uint8_t *out) {
  if (!zvm_in_bounds(len, off, 1))
    return false;
  *out = buf[off];
  return true;
}

static inline bool zvm_be_u16(const uint8_t *buf, size_t len, size_t off,
                              uint16_t *out) {
  if (!zvm_in_bounds(len, off, 2))
    return false;
  *out = zvm_load_be16(buf + off);
  return true;
}

static inline bool zvm_be_u32(const uint8_t *buf, size_t len, size_t off,
                              uint32_t *out) {
  if (!zvm_in_bounds(len, off, 4))
    return false;
  *out = zvm_load_be32(buf + off);
  return true;
}

static inline bool zvm_be_u64(const uint8_t *buf, size_t len, size_t off,
                              uint64_t *out) {
  if (!zvm_in_bounds(len, off, 8))
    return false;
  *out = zvm_load_be64(buf + off);
  return true;
}

static inline bool zvm_be_s16(const uint8_t *buf, size_t len, size_t off,
                              int16_t *out) {
  uint16_t v;
  if (!zvm_be_u16(buf, len, off, &v))
    return false;
  *out = (int16_t)zvm_sign_extend(v, 2);
  return true;
}

static inline bool zvm_be_s32(const uint8_t *buf, size_t len, size_t off,
                              int32_t *out) {
  uint32_t v;
  if (!zvm_be_u32(buf, len, off, &v))
    return false;
  *out = (int32_t)zvm_sign_extend(v, 4);
  return true;
}

static inline bool zvm_be_s64(const uint8_t *buf, size_t len, size_t off,
                              int64_t *out) {
  uint64_t v;
  if (!zvm_be_u64(buf, len, off, &v))
    return false;
  *out = zvm_sign_extend(v, 8);
  return true;
}

#endif /* ZVM_MONITOR_BE_H */
