/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the descriptor model's few functions: CPU type names, which
 * fields are dispatched, an element's data source name. The descriptors
 * themselves are data, one file per record (plugin/records/,
 * plugin/appldata/aplsdt.c).
 */
#include "zvm_monitor/records.h"

#include <stdio.h>

const char *zvm_cpu_type_name(uint8_t type) {
  switch (type) {
  case ZVM_CPU_CP:
    return "cp";
  case ZVM_CPU_ZAAP:
    return "zaap";
  case ZVM_CPU_IFL:
    return "ifl";
  case ZVM_CPU_ICF:
    return "icf";
  case ZVM_CPU_ZIIP:
    return "ziip";
  default:
    return NULL;
  }
}

bool zvm_field_dispatched(const struct zvm_field *f) {
  return f->kind == ZVM_FIELD_COUNTER || f->kind == ZVM_FIELD_GAUGE;
}

int zvm_field_element_name(const struct zvm_field *f, unsigned idx, char *buf,
                           size_t size) {
  int n;
  if (f->count <= 1)
    n = snprintf(buf, size, "%s", f->metric);
  else
    n = snprintf(buf, size, "%s%s%u", f->metric,
                 f->elem_prefix != NULL ? f->elem_prefix : "_", idx);
  return n >= 0 && (size_t)n < size ? n : -1;
}
