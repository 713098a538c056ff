/*
 * zvm_monitor - the built-in records: one descriptor per record, each in
 * its own file (plugin/records/, plugin/appldata/aplsdt.c), and the
 * catalogue of them (plugin/records/catalog.c).
 */
#ifndef ZVM_MONITOR_BUILTIN_H
#define ZVM_MONITOR_BUILTIN_H

#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/records.h"

extern const struct zvm_record_desc zvm_rec_mtrend; /* D1R11 */
extern const struct zvm_record_desc zvm_rec_mtreof; /* D1R13 */
extern const struct zvm_record_desc zvm_rec_useite; /* D4R10 */
/* D4R10 per VMDBK (ReportByVirtualCPU), not in the catalogue: see
 * zvm_record_desc.per_cpu_view. */
extern const struct zvm_record_desc zvm_rec_useite_vcpu;
extern const struct zvm_record_desc zvm_rec_prcsmt; /* D5R21 */
extern const struct zvm_record_desc zvm_rec_sytprp; /* D0R2 */
extern const struct zvm_record_desc zvm_rec_uselon; /* D4R1 */
extern const struct zvm_record_desc zvm_rec_uselof; /* D4R2 */
extern const struct zvm_record_desc zvm_rec_aplsdt; /* D10R2 */

/* Every built-in descriptor, for iteration (documentation, tests). */
extern const struct zvm_record_desc *const zvm_record_tables[];
extern const size_t zvm_record_table_count;

/* Built-in descriptor for a record, or NULL (a scan of the few tables). */
const struct zvm_record_desc *zvm_record_find(uint8_t domain, uint16_t number);

/* Adds every built-in descriptor to r. 0, or -1 if out of memory. */
int zvm_registry_add_builtins(struct zvm_registry *r);

/* zvm_decode_set_with() with the built-in descriptors. */
void zvm_decode_set(const uint8_t *buf, size_t len, zvm_domain_mask_t select,
                    zvm_record_cb cb, void *ctx,
                    struct zvm_decode_stats *stats);

#endif /* ZVM_MONITOR_BUILTIN_H */
