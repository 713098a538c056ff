/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - option tables (option.h).
 */
#include "base/option.h"

#include "base/select.h"
#include "base/util.h"

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
