/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the one option system of every plugin: a table of rows,
 * each an option's name, the kind of value it takes and its handler.
 * zvm_monitor's options (plugin/config/conf.c), a record's own options
 * (plugin/appldata/aplsdt.c: D10R2's), its replay options
 * (plugin/io/replay.c) and <Record> block options (plugin/config/recconf.c),
 * hypfs's (hypfs/conf.c) and dmstats's (dmstats/conf.c) are such tables;
 * the shared collectd glue (base/collectd.h) turns an option's value into
 * the kind its row names in one place and applies the row
 * (zvm_option_apply). Adding an option is one row and its handler (or one
 * of the shared handlers below); a key without a row is an unknown option.
 * A row may declare what its value may be, its rule: one of a table of
 * words, or a number within bounds. The shared handler of rules checks and
 * stores it and words the refusal from the rule, so a handler only does
 * what a rule cannot say (and checks the rule first).
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

/* What a row's value may be, and the size of the member it goes to (at
 * the row's arg): a choice (words) or a number (min, max). */
struct zvm_option_rule {
  /* A choice: one of words[0..nwords) (case-insensitive; a NULL entry is
   * no word); its index goes to the member, an unsigned integer or enum.
   * use: the choices as a refusal lists them; NULL: "a, b or c". */
  const char *const *words;
  size_t nwords;
  const char *use;
  /* A number from min to max: whole (min >= 0; the member an unsigned
   * integer) or not (the member a double). A refusal reads "KEY VALUE
   * must be a whole number of UNIT from MIN to MAX (NOTE)"; unit and note
   * may be NULL. */
  double min, max;
  bool whole;
  const char *unit, *note;
  size_t size; /* of the member (1, 2, 4 or 8 bytes): ZVM_OPTION_SIZE */
};
/* The words of a choice: .words and .nwords of a table of names. */
#define ZVM_OPTION_WORDS(table)                                                \
  .words = (table), .nwords = sizeof(table) / sizeof((table)[0])
/* The size of the member of a rule (.size). */
#define ZVM_OPTION_SIZE(type, member) sizeof(((type *)0)->member)

struct zvm_option {
  const char *key; /* matched case-insensitively, as collectd does */
  enum zvm_option_kind kind;
  zvm_option_fn *set; /* NULL for a block (its rows are another table) */
  int arg;            /* for a handler that serves several rows */
  /* The value's rule (zvm_option_set_rule, zvm_option_check); NULL: the
   * handler checks the value. */
  const struct zvm_option_rule *rule;
};

/* The row of key in rows[0..n), or NULL. */
const struct zvm_option *zvm_option_find(const struct zvm_option *rows,
                                         size_t n, const char *key);

/* "string", "boolean", "numeric", "string or numeric", "string (the
 * name)": how an error names the kind a row takes. */
const char *zvm_option_kind_name(enum zvm_option_kind kind);

/* Whether a value of type t is one a row of kind k takes. */
bool zvm_option_accepts(enum zvm_option_kind k, enum zvm_option_kind t);

/* Apply the row of key in rows[0..n) to target with value v: 0, or -1 with
 * a one-line reason in err. An unknown key is "unknown option "KEY"" and
 * then unknown_hint (NULL: nothing; " (see collectd-hypfs(5) for the
 * options)"); a value of a kind the row does not take is "KEY: exactly one
 * KIND value is required". */
int zvm_option_apply(const struct zvm_option *rows, size_t n, void *target,
                     const char *key, const struct zvm_option_value *v,
                     const char *unknown_hint, char *err, size_t err_size);

/* The handlers rows share; o->arg is the offset of the member they set in
 * the table's struct (offsetof). */
/* A bool member: the option's boolean. */
zvm_option_fn zvm_option_set_flag;
/* A struct zvm_select member (select.h): one more entry. */
zvm_option_fn zvm_option_add_select;
/* A struct zvm_select member: IgnoreSelected (inverts it). */
zvm_option_fn zvm_option_invert_select;
/* The member the row's rule (o->rule) describes: the chosen word's index
 * or the number, once it passes zvm_option_check. */
zvm_option_fn zvm_option_set_rule;

/* Whether v passes the row's rule: a choice's index, a number's 0; or -1
 * with "unknown KEY "VALUE" (use a, b or c)" or "KEY VALUE must be a whole
 * number from MIN to MAX" in err. For a handler that checks more than its
 * rule: it checks this first. */
int zvm_option_check(const struct zvm_option *o,
                     const struct zvm_option_value *v, char *err,
                     size_t err_size);

#endif /* ZVM_BASE_OPTION_H */
