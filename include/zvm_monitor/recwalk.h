/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - walking a complete data set with a registry's descriptors:
 * every selected record that has a table is handed to cb. Unknown records
 * are skipped by their length and counted; a record whose array does not
 * fit inside it is counted (array_rejected) and still handed to cb, whose
 * zvm_array_locate() (field.h) then says ZVM_ARRAY_BAD.
 */
#ifndef ZVM_MONITOR_RECWALK_H
#define ZVM_MONITOR_RECWALK_H

#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/decode.h"
#include "zvm_monitor/records.h"

struct zvm_registry; /* registry.h */

struct zvm_decode_stats {
  struct zvm_walk_stats walk;
  uint64_t unknown;        /* valid records without a table */
  uint64_t array_rejected; /* records whose array lies outside them
                              (their fixed part is still used) */
};

typedef void (*zvm_record_cb)(const struct zvm_record *rec,
                              const struct zvm_record_desc *desc, void *ctx);

/* With a registry's tables (built-in and user-defined); with the built-in
 * ones only: zvm_decode_set() (builtin.h). */
void zvm_decode_set_with(const struct zvm_registry *r, const uint8_t *buf,
                         size_t len, zvm_domain_mask_t select, zvm_record_cb cb,
                         void *ctx, struct zvm_decode_stats *stats);

#endif /* ZVM_MONITOR_RECWALK_H */
