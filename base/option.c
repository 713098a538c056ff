/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - option tables (option.h).
 */
#include "base/option.h"

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
