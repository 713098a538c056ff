/* SPDX-License-Identifier: MIT */
/*
 * The values of a mapper's pass in one array, for tests and fuzz targets:
 * built from zvm_mapper_next_value() (the public iterator) on every call,
 * items copied. Valid until the next call in the same program.
 */
#ifndef ZVM_TESTS_MAPPER_VALUES_H
#define ZVM_TESTS_MAPPER_VALUES_H

#include <stdlib.h>
#include <string.h>

#include "zvm_monitor/mapper.h"

static struct {
  struct zvm_value *v;
  size_t cap;
  struct zvm_value_item *items;
  size_t cap_items;
} mapper_values_buf;

/* NULL and *n = 0 if out of memory. */
static inline const struct zvm_value *mapper_values(struct zvm_mapper *m,
                                                    size_t *n) {
  struct zvm_value_iter it = ZVM_VALUE_ITER_INIT;
  struct zvm_value v;
  size_t nv = 0, nitems = 0;
  *n = 0;
  while (zvm_mapper_next_value(m, &it, &v)) {
    if (nv == mapper_values_buf.cap) {
      size_t cap = mapper_values_buf.cap ? 2 * mapper_values_buf.cap : 64;
      struct zvm_value *p = realloc(mapper_values_buf.v, cap * sizeof(*p));
      if (p == NULL)
        return NULL;
      mapper_values_buf.v = p;
      mapper_values_buf.cap = cap;
    }
    if (nitems + v.nitems > mapper_values_buf.cap_items) {
      size_t cap = 2 * (nitems + v.nitems) + 64;
      struct zvm_value_item *p =
          realloc(mapper_values_buf.items, cap * sizeof(*p));
      if (p == NULL)
        return NULL;
      mapper_values_buf.items = p;
      mapper_values_buf.cap_items = cap;
    }
    /* Items are copied; pointers are set below, once the item array no
     * longer moves. */
    if (v.nitems > 0)
      memcpy(mapper_values_buf.items + nitems, v.items,
             v.nitems * sizeof(*v.items));
    v.items = NULL;
    nitems += v.nitems;
    mapper_values_buf.v[nv++] = v;
  }
  nitems = 0;
  for (size_t i = 0; i < nv; i++) {
    if (mapper_values_buf.v[i].nitems > 0)
      mapper_values_buf.v[i].items = mapper_values_buf.items + nitems;
    nitems += mapper_values_buf.v[i].nitems;
  }
  *n = nv;
  return mapper_values_buf.v;
}

#endif /* ZVM_TESTS_MAPPER_VALUES_H */
