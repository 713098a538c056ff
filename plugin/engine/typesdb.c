/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - a layout's data sources and its types.db line (the
 * plugin's data sets, contrib/zvm_monitor.types.db).
 */
#include "zvm_monitor/typesdb.h"

#include <math.h>
#include <stdlib.h>

size_t zvm_layout_data_sources(const struct zvm_layout *l, struct zvm_ds *ds,
                               size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < l->nfields; i++) {
    const struct zvm_field *f = &l->fields[i];
    if (!zvm_field_dispatched(f))
      continue;
    for (unsigned e = 0; e < f->count; e++, n++) {
      if (n >= max)
        continue;
      if (zvm_field_element_name(f, e, ds[n].name, sizeof(ds[n].name)) < 0)
        ds[n].name[0] = '\0'; /* zvm_record_check() rejects such names */
      bool counter = f->kind == ZVM_FIELD_COUNTER;
      ds[n].type = counter ? ZVM_DS_DERIVE : ZVM_DS_GAUGE;
      /* A DERIVE minimum bounds the rate (types.db(5)); every counter,
       * one that counts down included, is dispatched with a rate >= 0. */
      ds[n].min = counter ? 0 : NAN;
      ds[n].max = NAN;
    }
  }
  return n;
}

int zvm_layout_types_db_line(const struct zvm_layout *l, char *buf,
                             size_t size) {
  if (l->type_name == NULL || size == 0)
    return -1;
  size_t n = zvm_layout_data_sources(l, NULL, 0);
  if (n == 0)
    return -1;
  struct zvm_ds *ds = calloc(n, sizeof(*ds));
  if (ds == NULL)
    return -1;
  zvm_layout_data_sources(l, ds, n);
  int len = zvm_types_db_line(l->type_name, ds, n, buf, size);
  free(ds);
  return len;
}
