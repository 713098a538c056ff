/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the check the walk applies to every record, for the
 * walkers inside the plugin (the catalogue's, the mapper's).
 */
#ifndef ZVM_ENGINE_WALK_H
#define ZVM_ENGINE_WALK_H

#include <stdbool.h>

#include "zvm_monitor/decode.h"
#include "zvm_monitor/records.h"
#include "zvm_monitor/recwalk.h"

/* zvm_record_accept()'s check of d's arrays (d->narrays > 0). */
void zvm_record_check_arrays(const struct zvm_record_desc *d,
                             const struct zvm_record *rec,
                             struct zvm_decode_stats *stats);

/* The check zvm_decode_set() applies to every walked record, for callers
 * that walk a set themselves: false (and counted) if d is NULL (unknown
 * record); an array of d outside the record is counted (array_rejected)
 * and the record still accepted (its fixed part is used). Inline: it runs
 * for every record, and most records have no arrays. */
static inline bool zvm_record_accept(const struct zvm_record_desc *d,
                                     const struct zvm_record *rec,
                                     struct zvm_decode_stats *stats) {
  if (d == NULL) {
    stats->unknown++;
    return false;
  }
  if (d->narrays > 0)
    zvm_record_check_arrays(d, rec, stats);
  return true;
}

#endif /* ZVM_ENGINE_WALK_H */
