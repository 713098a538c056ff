/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - writing a built-in record's table: one ZVM_FIELD row per
 * field (records.h's struct zvm_field), indexed by the record file's enum.
 */
#ifndef ZVM_ENGINE_TABLE_H
#define ZVM_ENGINE_TABLE_H

#include "zvm_monitor/records.h"

/* One field of a built-in table, at its index in the record file's enum
 * (so a hook names it by that index and the compiler keeps them apart):
 *
 *   ZVM_FIELD(USEITE_HFCPURN, "USEITE_HFCPURN", "hfcpurn", 116, 4, 1,
 *             UNSIGNED, COUNTER),
 *
 * index, IBM name, data source name, offset, width, element count, type
 * (ZVM_TYPE_*), kind (ZVM_FIELD_*), then any further member as a
 * designated initializer (.flags, .single_type, ...). */
#define ZVM_FIELD(idx, ibm, name, off, len, n, type_, kind_, ...)              \
  [idx] = {.ibm_name = (ibm),                                                  \
           .metric = (name),                                                   \
           .offset = (off),                                                    \
           .width = (len),                                                     \
           .count = (n),                                                       \
           .type = ZVM_TYPE_##type_,                                           \
           .kind = ZVM_FIELD_##kind_,                                          \
           __VA_ARGS__}

#endif /* ZVM_ENGINE_TABLE_H */
