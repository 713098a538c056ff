/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the collectd side of the base, shared by the glue of every
 * plugin (zvm_monitor, hypfs, dmstats): an option of collectd.conf applied
 * through a table's row (option.h), a type (types.h) compared with and
 * registered as collectd's data set.
 *
 * Why a glue file of its own and not part of libzvmbase: the base's
 * library must build and be tested without collectd's headers, as the
 * plugins' cores are; this file (base/glue/collectd.c) needs them, so each
 * plugin's collectd object compiles it with its own glue, with collectd's
 * flags. Its functions are not static, but the plugins export only
 * module_register (-export-symbols-regex), so nothing of it leaves a
 * plugin's .so.
 */
#ifndef ZVM_BASE_COLLECTD_H
#define ZVM_BASE_COLLECTD_H

#include "collectd/core/daemon/plugin.h"

#include "base/option.h"
#include "base/types.h"

/* child's value as the kind a row takes (cf_util_get_*): not exactly one
 * value of that kind is "KEY: exactly one KIND value is required". *str is
 * the string to free (sfree). 0, or -1 with the reason in err. */
int zvm_glue_option_value(oconfig_item_t *child, enum zvm_option_kind kind,
                          struct zvm_option_value *v, char **str, char *err,
                          size_t err_size);

/* child applied to target through its row of rows[0..n): 0, or -1 with a
 * one-line reason in err (an unknown key: "unknown option "KEY"" and
 * unknown_hint, NULL for none). */
int zvm_glue_option(const struct zvm_option *rows, size_t n, void *target,
                    oconfig_item_t *child, const char *unknown_hint, char *err,
                    size_t err_size);

/* What collectd knows of a type's name. */
enum zvm_glue_type_known {
  ZVM_GLUE_TYPE_NEW,       /* no such type yet */
  ZVM_GLUE_TYPE_SAME,      /* the same data sources (names and kinds) */
  ZVM_GLUE_TYPE_DIFFERENT, /* a TypesDB line or a plugin defined it else */
};
enum zvm_glue_type_known zvm_glue_type_known(const char *type,
                                             const struct zvm_ds *ds, size_t n);

/* plugin_register_data_set() of type with ds[0..n): its status. */
int zvm_glue_type_register(const char *type, const struct zvm_ds *ds, size_t n);

#endif /* ZVM_BASE_COLLECTD_H */
