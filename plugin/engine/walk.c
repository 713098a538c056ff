/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - walking a data set with a registry's descriptors.
 */
#include "engine/walk.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/recwalk.h"
#include "zvm_monitor/registry.h"

void zvm_record_check_arrays(const struct zvm_record_desc *d,
                             const struct zvm_record *rec,
                             struct zvm_decode_stats *stats) {
  /* An unusable array is counted, yet the record's fixed part is still
   * accepted: the mapper locates the arrays itself and skips a bad one. */
  for (size_t a = 0; a < d->narrays; a++) {
    struct zvm_array_view view;
    if (zvm_array_locate(&d->arrays[a], rec->data, rec->len, &view) ==
        ZVM_ARRAY_BAD) {
      stats->array_rejected++;
      break;
    }
  }
}

void zvm_decode_set_with(const struct zvm_registry *r, const uint8_t *buf,
                         size_t len, zvm_domain_mask_t select, zvm_record_cb cb,
                         void *ctx, struct zvm_decode_stats *stats) {
  struct zvm_walk walk;
  struct zvm_record rec;
  zvm_walk_init(&walk, buf, len, select);
  while (zvm_walk_next(&walk, &rec)) {
    const struct zvm_record_desc *desc =
        zvm_registry_find(r, rec.domain, rec.number);
    if (zvm_record_accept(desc, &rec, stats) && cb != NULL)
      cb(&rec, desc, ctx);
  }
  zvm_walk_stats_add(&stats->walk, &walk.stats);
}
