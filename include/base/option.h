/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the one option system: a table of rows, each an option's
 * name, the kind of value it takes and its handler. The plugin's options
 * (config/conf.c), the replay options (io/replay.c) and the <Record>
 * block options (config/recconf.c) are such tables; the collectd glue
 * turns an option's value into the kind its row names in one place and
 * hands it to the row's handler. Adding an option is one row and its
 * handler; a key without a row is an unknown option.
 */
#ifndef ZVM_BASE_OPTION_H
#define ZVM_BASE_OPTION_H

#include <stdbool.h>
#include <stddef.h>

/* The value an option takes. */
enum zvm_option_kind {
  ZVM_OPTION_UNKNOWN = 0, /* no such option */
  ZVM_OPTION_STRING,
  ZVM_OPTION_BOOLEAN,
  ZVM_OPTION_NUMBER,
  ZVM_OPTION_STRING_OR_NUMBER, /* Domain "user" or Domain 4 */
  ZVM_OPTION_BLOCK,            /* a block with a string (<Field "name">) */
};

/* A value as the configuration gave it. */
struct zvm_option_value {
  enum zvm_option_kind type; /* STRING, BOOLEAN or NUMBER */
  const char *string;
  bool boolean;
  double number;
};

struct zvm_option;
/* A row's handler: apply v to target (the table's struct). 0, or -1 with a
 * one-line reason naming the option in err. */
typedef int zvm_option_fn(void *target, const struct zvm_option *o,
                          const struct zvm_option_value *v, char *err,
                          size_t err_size);

struct zvm_option {
  const char *key; /* matched case-insensitively, as collectd does */
  enum zvm_option_kind kind;
  zvm_option_fn *set; /* NULL for a block (its rows are another table) */
  int arg;            /* for a handler that serves several rows */
};

/* The row of key in rows[0..n), or NULL. */
const struct zvm_option *zvm_option_find(const struct zvm_option *rows,
                                         size_t n, const char *key);

/* "string", "boolean", "numeric", "string or numeric", "string (the
 * name)": how an error names the kind a row takes. */
const char *zvm_option_kind_name(enum zvm_option_kind kind);

/* Whether a value of type t is one a row of kind k takes. */
bool zvm_option_accepts(enum zvm_option_kind k, enum zvm_option_kind t);

#endif /* ZVM_BASE_OPTION_H */
