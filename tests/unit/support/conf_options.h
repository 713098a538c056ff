/* SPDX-License-Identifier: MIT */
/*
 * The plugin's options applied one at a time by name, as the tests set
 * them: through the rows of zvm_conf_options() (conf.h), the table the
 * collectd glue applies collectd.conf with. Test code only: the plugin
 * turns collectd's values into the kind a row takes in its glue.
 */
#ifndef ZVM_TESTS_CONF_OPTIONS_H
#define ZVM_TESTS_CONF_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/option.h"
#include "base/util.h"
#include "zvm_monitor/conf.h"

/* The value an option takes; ZVM_CONF_UNKNOWN for an unknown key. */
enum zvm_conf_kind {
  ZVM_CONF_UNKNOWN = ZVM_OPTION_UNKNOWN,
  ZVM_CONF_STRING = ZVM_OPTION_STRING,
  ZVM_CONF_BOOLEAN = ZVM_OPTION_BOOLEAN,
  ZVM_CONF_NUMBER = ZVM_OPTION_NUMBER,
  ZVM_CONF_STRING_OR_NUMBER = ZVM_OPTION_STRING_OR_NUMBER, /* Domain 4 */
};

static inline const struct zvm_option *conf_row(const char *key) {
  size_t n;
  const struct zvm_option *rows = zvm_conf_options(&n);
  return zvm_option_find(rows, n, key);
}

/* The row of key for c (its own or one of its records', conf.h), and in
 * *target the struct it sets. */
static inline const struct zvm_option *
conf_row_of(struct zvm_conf *c, const char *key, void **target) {
  return key != NULL ? zvm_conf_option(c, key, target) : NULL;
}

/* Option names are matched case-insensitively, as collectd does. */
static inline enum zvm_conf_kind zvm_conf_option_kind(const char *key) {
  const struct zvm_option *o = conf_row(key);
  return o != NULL ? (enum zvm_conf_kind)o->kind : ZVM_CONF_UNKNOWN;
}

/* Apply one option. On error write a one-line reason naming the option into
 * err (err_size bytes) and return -1; the struct is left as it was. */
static inline int zvm_conf_set_string(struct zvm_conf *c, const char *key,
                                      const char *value, char *err,
                                      size_t err_size) {
  void *target = NULL;
  const struct zvm_option *o = conf_row_of(c, key, &target);
  if (o == NULL)
    return zvm_format_error(err, err_size, "unknown option \"%s\"",
                            key != NULL ? key : "");
  if (!zvm_option_accepts(o->kind, ZVM_OPTION_STRING))
    return zvm_format_error(err, err_size,
                            "%s: a %s value is required, not a string", key,
                            zvm_option_kind_name(o->kind));
  if (value == NULL)
    return zvm_format_error(err, err_size, "%s: missing value", key);
  const struct zvm_option_value v = {.type = ZVM_OPTION_STRING,
                                     .string = value};
  return o->set(target, o, &v, err, err_size);
}

static inline int zvm_conf_set_boolean(struct zvm_conf *c, const char *key,
                                       bool value, char *err, size_t err_size) {
  void *target = NULL;
  const struct zvm_option *o = conf_row_of(c, key, &target);
  if (o == NULL)
    return zvm_format_error(err, err_size, "unknown option \"%s\"",
                            key != NULL ? key : "");
  if (!zvm_option_accepts(o->kind, ZVM_OPTION_BOOLEAN))
    return zvm_format_error(err, err_size, "%s: a boolean is not a valid value",
                            key);
  const struct zvm_option_value v = {.type = ZVM_OPTION_BOOLEAN,
                                     .boolean = value};
  return o->set(target, o, &v, err, err_size);
}

static inline int zvm_conf_set_number(struct zvm_conf *c, const char *key,
                                      double value, char *err,
                                      size_t err_size) {
  void *target = NULL;
  const struct zvm_option *o = conf_row_of(c, key, &target);
  if (o == NULL)
    return zvm_format_error(err, err_size, "unknown option \"%s\"",
                            key != NULL ? key : "");
  if (!zvm_option_accepts(o->kind, ZVM_OPTION_NUMBER))
    return zvm_format_error(
        err, err_size, "%s: a %s value is required, not a number", key,
        o->kind == ZVM_OPTION_BOOLEAN ? "boolean" : "string");
  const struct zvm_option_value v = {.type = ZVM_OPTION_NUMBER,
                                     .number = value};
  return o->set(target, o, &v, err, err_size);
}

#endif /* ZVM_TESTS_CONF_OPTIONS_H */
