/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the built-in records' descriptors, inside the plugin: one
 * per record file (plugin/records/, plugin/appldata/aplsdt.c), and the
 * catalogue of them (catalog.c). Record files name each other's layouts
 * through it (a logoff restarts the guest's D4R10 instance), the
 * configuration copies the D10R2 descriptor, and the tests check every
 * table. The tools and the glue need only builtin.h.
 */
#ifndef ZVM_RECORDS_CATALOG_H
#define ZVM_RECORDS_CATALOG_H

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

/* Every built-in descriptor, for iteration (tests, fuzz targets). */
extern const struct zvm_record_desc *const zvm_record_tables[];
extern const size_t zvm_record_table_count;

/* Built-in descriptor for a record, or NULL (a scan of the few tables). */
const struct zvm_record_desc *zvm_record_find(uint8_t domain, uint16_t number);

#endif /* ZVM_RECORDS_CATALOG_H */
