/* SPDX-License-Identifier: MIT */
/*
 * The number of value-list types the built-in records register (today
 * zvm_useite, zvm_prcsmt, zvm_prcsmt_cpu, zvm_sytprp): every layout of the
 * catalogue with a type, so a new record's type needs no change in the
 * tests that count them.
 */
#ifndef ZVM_TESTS_BUILTIN_TYPES_H
#define ZVM_TESTS_BUILTIN_TYPES_H

#include <stddef.h>

#include "records/catalog.h"
#include "zvm_monitor/builtin.h"

static inline size_t builtin_types(void) {
  size_t n = 0;
  for (size_t t = 0; t < zvm_record_table_count; t++) {
    const struct zvm_record_desc *d = zvm_record_tables[t];
    n += d->main.type_name != NULL && !d->main.one_value_per_list;
    for (size_t a = 0; a < d->narrays; a++)
      n += d->arrays[a].entry.type_name != NULL &&
           !d->arrays[a].entry.one_value_per_list;
  }
  return n;
}

#endif /* ZVM_TESTS_BUILTIN_TYPES_H */
