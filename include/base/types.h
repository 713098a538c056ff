/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the value-list types a plugin registers, front-end
 * neutral: a type is a name and its data sources (types.db(5)). What the
 * plugins share: the data source, a type's types.db line, and the check of
 * a shipped types.db file against what a plugin registers (the unit
 * tests). The registration with collectd is the shared glue's
 * (base/collectd.h), the only part that sees collectd.
 */
#ifndef ZVM_BASE_TYPES_H
#define ZVM_BASE_TYPES_H

#include <stddef.h>

enum zvm_ds_type { ZVM_DS_DERIVE, ZVM_DS_GAUGE };

struct zvm_ds {
  char name[64]; /* collectd's DATA_MAX_NAME_LEN */
  enum zvm_ds_type type;
  double min, max; /* NAN = unknown ("U") */
};

/* The types.db line of type with data sources ds[0..n) ("zvm_useite\t
 * transactions:DERIVE:0:U, ..."), without a newline, into buf; its length,
 * or -1 if it does not fit. */
int zvm_types_db_line(const char *type, const struct zvm_ds *ds, size_t n,
                      char *buf, size_t size);

/* Whether the types.db file at path holds exactly n types, in order, line
 * i (comments and blank lines skipped) being what line_of(i) writes. 0, or
 * -1 with the first difference (or why the file cannot be read) in err. */
int zvm_types_db_compare(const char *path, size_t n,
                         int (*line_of)(size_t i, char *buf, size_t size,
                                        void *ctx),
                         void *ctx, char *err, size_t err_size);

#endif /* ZVM_BASE_TYPES_H */
