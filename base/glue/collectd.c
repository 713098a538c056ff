/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the collectd side of the base (collectd.h), compiled into
 * every plugin's collectd object.
 */
#include "collectd/core/daemon/collectd.h"

#include "collectd/core/daemon/plugin.h"
#include "collectd/core/utils/common/common.h"

#include "base/collectd.h"
#include "base/util.h"

int zvm_glue_option_value(oconfig_item_t *child, enum zvm_option_kind kind,
                          struct zvm_option_value *v, char **str, char *err,
                          size_t err_size) {
  *str = NULL;
  *v = (struct zvm_option_value){.type = ZVM_OPTION_STRING};
  int status = -1;
  switch (kind) {
  case ZVM_OPTION_STRING_OR_NUMBER:
    if (child->values_num == 1 &&
        child->values[0].type == OCONFIG_TYPE_NUMBER) {
      *v = (struct zvm_option_value){.type = ZVM_OPTION_NUMBER,
                                     .number = child->values[0].value.number};
      return 0;
    }
    /* a string */
    __attribute__((fallthrough));
  case ZVM_OPTION_STRING:
  case ZVM_OPTION_BLOCK:
    status = cf_util_get_string(child, str);
    v->string = *str;
    break;
  case ZVM_OPTION_BOOLEAN:
    v->type = ZVM_OPTION_BOOLEAN;
    status = cf_util_get_boolean(child, &v->boolean);
    break;
  case ZVM_OPTION_NUMBER:
    v->type = ZVM_OPTION_NUMBER;
    status = cf_util_get_double(child, &v->number);
    break;
  case ZVM_OPTION_UNKNOWN:
    return zvm_format_error(err, err_size, "unknown option \"%s\"", child->key);
  }
  if (status == 0)
    return 0;
  return zvm_format_error(err, err_size, "%s: exactly one %s value is required",
                          child->key, zvm_option_kind_name(kind));
}

int zvm_glue_option(const struct zvm_option *rows, size_t n, void *target,
                    oconfig_item_t *child, const char *unknown_hint, char *err,
                    size_t err_size) {
  const struct zvm_option *o = zvm_option_find(rows, n, child->key);
  if (o == NULL)
    return zvm_format_error(err, err_size, "unknown option \"%s\"%s",
                            child->key,
                            unknown_hint != NULL ? unknown_hint : "");
  struct zvm_option_value v;
  char *str;
  if (zvm_glue_option_value(child, o->kind, &v, &str, err, err_size) != 0)
    return -1;
  int status = zvm_option_apply(rows, n, target, child->key, &v, unknown_hint,
                                err, err_size);
  sfree(str);
  return status;
}

/* ds[0..n) as collectd's data sources (sources: n entries). */
static void data_sources(const struct zvm_ds *ds, size_t n,
                         data_source_t *sources) {
  for (size_t i = 0; i < n; i++) {
    memset(&sources[i], 0, sizeof(sources[i]));
    sstrncpy(sources[i].name, ds[i].name, sizeof(sources[i].name));
    sources[i].type =
        ds[i].type == ZVM_DS_DERIVE ? DS_TYPE_DERIVE : DS_TYPE_GAUGE;
    sources[i].min = ds[i].min;
    sources[i].max = ds[i].max;
  }
}

enum zvm_glue_type_known
zvm_glue_type_known(const char *type, const struct zvm_ds *ds, size_t n) {
  const data_set_t *known = plugin_get_ds(type);
  if (known == NULL)
    return ZVM_GLUE_TYPE_NEW;
  bool same = known->ds_num == n;
  for (size_t i = 0; same && i < n; i++)
    same = strcmp(known->ds[i].name, ds[i].name) == 0 &&
           known->ds[i].type ==
               (ds[i].type == ZVM_DS_DERIVE ? DS_TYPE_DERIVE : DS_TYPE_GAUGE);
  return same ? ZVM_GLUE_TYPE_SAME : ZVM_GLUE_TYPE_DIFFERENT;
}

int zvm_glue_type_register(const char *type, const struct zvm_ds *ds,
                           size_t n) {
  data_source_t *sources = calloc(n > 0 ? n : 1, sizeof(*sources));
  if (sources == NULL)
    return -1;
  data_sources(ds, n, sources);
  data_set_t set = {.ds_num = n, .ds = sources};
  sstrncpy(set.type, type, sizeof(set.type));
  int status = plugin_register_data_set(&set); /* the daemon keeps a copy */
  free(sources);
  return status;
}
