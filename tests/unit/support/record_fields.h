/* SPDX-License-Identifier: MIT */
/*
 * A built-in record's fields by IBM name, for the record tests
 * (tests/unit/records/): the table row of a name in the main part or in an
 * array's entry; a missing name fails the test. Include after <cmocka.h>.
 */
#ifndef ZVM_TESTS_RECORD_FIELDS_H
#define ZVM_TESTS_RECORD_FIELDS_H

#include <stddef.h>
#include <string.h>

#include "zvm_monitor/records.h"

/* The TOD every record of the record tests carries. */
#define TOD UINT64_C(0xE39CE53726000000)

static inline const struct zvm_field *field(const struct zvm_record_desc *d,
                                            const char *ibm_name) {
  for (size_t i = 0; i < d->main.nfields; i++)
    if (d->main.fields[i].ibm_name != NULL &&
        strcmp(d->main.fields[i].ibm_name, ibm_name) == 0)
      return &d->main.fields[i];
  fail_msg("no field %s in %s", ibm_name, d->ibm_name);
  return NULL;
}

static inline const struct zvm_field *entry_field(const struct zvm_array *a,
                                                  const char *ibm_name) {
  for (size_t i = 0; i < a->entry.nfields; i++)
    if (strcmp(a->entry.fields[i].ibm_name, ibm_name) == 0)
      return &a->entry.fields[i];
  fail_msg("no entry field %s", ibm_name);
  return NULL;
}

#endif /* ZVM_TESTS_RECORD_FIELDS_H */
