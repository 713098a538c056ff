/* SPDX-License-Identifier: MIT */
/*
 * The replay options applied one at a time by name, as the tests set them:
 * through the rows of zvm_replay_options_table() (replay.h), the table the
 * collectd glue applies collectd.conf with. Test code only.
 */
#ifndef ZVM_TESTS_REPLAY_OPTIONS_H
#define ZVM_TESTS_REPLAY_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/option.h"
#include "base/util.h"
#include "zvm_monitor/replay.h"

static inline const struct zvm_option *replay_row(const char *key) {
  size_t n;
  const struct zvm_option *rows = zvm_replay_options_table(&n);
  return zvm_option_find(rows, n, key);
}

/* A value of type v->type for option key: through its row, or refused
 * naming the kind the option takes. */
static inline int replay_option_set(struct zvm_replay_options *o,
                                    const char *key,
                                    const struct zvm_option_value *v, char *err,
                                    size_t err_size) {
  const struct zvm_option *row = replay_row(key);
  if (row == NULL)
    return zvm_format_error(err, err_size, "unknown option \"%s\"",
                            key != NULL ? key : "");
  if (!zvm_option_accepts(row->kind, v->type))
    return zvm_format_error(err, err_size, "%s: a %s is not allowed", key,
                            v->type == ZVM_OPTION_STRING   ? "string"
                            : v->type == ZVM_OPTION_NUMBER ? "number"
                                                           : "boolean");
  return row->set(o, row, v, err, err_size);
}

/* ReplayFile "PATTERN", ReplaySpeed "recorded"|"fast": 0, or -1 with a
 * reason in err. */
static inline int zvm_replay_option_string(struct zvm_replay_options *o,
                                           const char *key, const char *value,
                                           char *err, size_t err_size) {
  const struct zvm_option_value v = {.type = ZVM_OPTION_STRING,
                                     .string = value};
  return replay_option_set(o, key, &v, err, err_size);
}

/* ReplaySpeed N (N > 0: N times the recorded pace). */
static inline int zvm_replay_option_number(struct zvm_replay_options *o,
                                           const char *key, double value,
                                           char *err, size_t err_size) {
  const struct zvm_option_value v = {.type = ZVM_OPTION_NUMBER,
                                     .number = value};
  return replay_option_set(o, key, &v, err, err_size);
}

/* ReplayLoop true|false. */
static inline int zvm_replay_option_boolean(struct zvm_replay_options *o,
                                            const char *key, bool value,
                                            char *err, size_t err_size) {
  const struct zvm_option_value v = {.type = ZVM_OPTION_BOOLEAN,
                                     .boolean = value};
  return replay_option_set(o, key, &v, err, err_size);
}

#endif /* ZVM_TESTS_REPLAY_OPTIONS_H */
