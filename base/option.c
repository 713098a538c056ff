/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - option tables (option.h).
 */
#include "base/option.h"

#include "base/select.h"
#include "base/util.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const struct zvm_option *zvm_option_find(const struct zvm_option *rows,
                                         size_t n, const char *key) {
  for (size_t i = 0; key != NULL && i < n; i++)
    if (strcasecmp(key, rows[i].key) == 0)
      return &rows[i];
  return NULL;
}

const char *zvm_option_kind_name(enum zvm_option_kind kind) {
  switch (kind) {
  case ZVM_OPTION_BOOLEAN:
    return "boolean";
  case ZVM_OPTION_NUMBER:
    return "numeric";
  case ZVM_OPTION_STRING_OR_NUMBER:
    return "string or numeric";
  case ZVM_OPTION_BLOCK:
    return "string (the field name)";
  case ZVM_OPTION_STRING:
  case ZVM_OPTION_UNKNOWN:
    break;
  }
  return "string";
}

bool zvm_option_accepts(enum zvm_option_kind k, enum zvm_option_kind t) {
  switch (k) {
  case ZVM_OPTION_STRING_OR_NUMBER:
    return t == ZVM_OPTION_STRING || t == ZVM_OPTION_NUMBER;
  case ZVM_OPTION_BLOCK:
    return t == ZVM_OPTION_STRING;
  case ZVM_OPTION_STRING:
  case ZVM_OPTION_BOOLEAN:
  case ZVM_OPTION_NUMBER:
    return t == k;
  case ZVM_OPTION_UNKNOWN:
    break;
  }
  return false;
}

int zvm_option_apply(const struct zvm_option *rows, size_t n, void *target,
                     const char *key, const struct zvm_option_value *v,
                     const char *unknown_hint, char *err, size_t err_size) {
  const struct zvm_option *o = zvm_option_find(rows, n, key);
  if (o == NULL || o->set == NULL)
    return zvm_format_error(err, err_size, "unknown option \"%s\"%s",
                            key != NULL ? key : "",
                            unknown_hint != NULL ? unknown_hint : "");
  if (!zvm_option_accepts(o->kind, v->type) ||
      (v->type == ZVM_OPTION_STRING && v->string == NULL))
    return zvm_format_error(err, err_size,
                            "%s: exactly one %s value is required", key,
                            zvm_option_kind_name(o->kind));
  return o->set(target, o, v, err, err_size);
}

int zvm_option_set_flag(void *t, const struct zvm_option *o,
                        const struct zvm_option_value *v, char *err,
                        size_t err_size) {
  (void)err;
  (void)err_size;
  *(bool *)((char *)t + o->arg) = v->boolean;
  return 0;
}

int zvm_option_add_select(void *t, const struct zvm_option *o,
                          const struct zvm_option_value *v, char *err,
                          size_t err_size) {
  struct zvm_select *s = (struct zvm_select *)((char *)t + o->arg);
  return zvm_select_add(s, o->key, v->string, err, err_size);
}

int zvm_option_invert_select(void *t, const struct zvm_option *o,
                             const struct zvm_option_value *v, char *err,
                             size_t err_size) {
  (void)err;
  (void)err_size;
  zvm_select_invert((struct zvm_select *)((char *)t + o->arg), v->boolean);
  return 0;
}

/* A bound as a refusal prints it: a power of two from 2^32 on as "2^N"
 * (2^53: the largest whole number a double holds exactly), else as is. */
static const char *bound_text(double x, char buf[32]) {
  uint64_t u =
      x >= 4294967296.0 && x < 18446744073709551616.0 ? (uint64_t)x : 0;
  int e = 0;
  while (u > 1 && (u & 1) == 0) {
    u >>= 1;
    e++;
  }
  if (u == 1 && (double)((uint64_t)1 << e) == x)
    snprintf(buf, 32, "2^%d", e);
  else
    snprintf(buf, 32, "%.15g", x);
  return buf;
}

/* A choice's words as a refusal lists them: "a, b or c". */
static void list_words(const struct zvm_option_rule *r, char *buf,
                       size_t size) {
  size_t n = 0, last = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < r->nwords; i++)
    if (r->words[i] != NULL)
      last = i;
  for (size_t i = 0; i < r->nwords && n < size; i++)
    if (r->words[i] != NULL)
      n += (size_t)snprintf(buf + n, size - n, "%s%s",
                            n == 0      ? ""
                            : i == last ? " or "
                                        : ", ",
                            r->words[i]);
}

int zvm_option_check(const struct zvm_option *o,
                     const struct zvm_option_value *v, char *err,
                     size_t err_size) {
  const struct zvm_option_rule *r = o->rule;
  if (r->words != NULL) {
    for (size_t i = 0; i < r->nwords; i++)
      if (r->words[i] != NULL && strcasecmp(v->string, r->words[i]) == 0)
        return (int)i;
    char sb[ZVM_SHOWN_MAX], use[256];
    if (r->use == NULL)
      list_words(r, use, sizeof(use));
    return zvm_format_error(err, err_size, "unknown %s \"%s\" (use %s)", o->key,
                            zvm_shown(v->string, sb),
                            r->use != NULL ? r->use : use);
  }
  double x = v->number;
  /* NaN fails the range; within it, a whole number's cast is defined
   * (whole: min >= 0, max below 2^64). */
  if (x >= r->min && x <= r->max && (!r->whole || x == (double)(uint64_t)x))
    return 0;
  char lo[32], hi[32];
  return zvm_format_error(
      err, err_size, "%s %g must be a %snumber%s%s from %s to %s%s%s%s", o->key,
      x, r->whole ? "whole " : "", r->unit != NULL ? " of " : "",
      r->unit != NULL ? r->unit : "", bound_text(r->min, lo),
      bound_text(r->max, hi), r->note != NULL ? " (" : "",
      r->note != NULL ? r->note : "", r->note != NULL ? ")" : "");
}

int zvm_option_set_rule(void *t, const struct zvm_option *o,
                        const struct zvm_option_value *v, char *err,
                        size_t err_size) {
  const struct zvm_option_rule *r = o->rule;
  int index = zvm_option_check(o, v, err, err_size);
  if (index < 0)
    return -1;
  char *member = (char *)t + o->arg;
  if (r->words == NULL && !r->whole) {
    memcpy(member, &v->number, sizeof(double));
    return 0;
  }
  uint64_t x = r->words != NULL ? (uint64_t)index : (uint64_t)v->number;
  /* The unsigned integer of the member's size, in host order. */
  uint8_t u8 = (uint8_t)x;
  uint16_t u16 = (uint16_t)x;
  uint32_t u32 = (uint32_t)x;
  const void *from = r->size == 1   ? (const void *)&u8
                     : r->size == 2 ? (const void *)&u16
                     : r->size == 4 ? (const void *)&u32
                                    : (const void *)&x;
  memcpy(member, from, r->size);
  return 0;
}
