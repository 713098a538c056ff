/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the data sources of a layout's value list
 * (plugin_register_data_set, the generated types.db).
 */
#ifndef ZVM_MONITOR_TYPESDB_H
#define ZVM_MONITOR_TYPESDB_H

#include <stddef.h>

#include "base/types.h"
#include "zvm_monitor/records.h"

/* Most data sources in one value list (zvm_record_check() enforces it). */
#define ZVM_LAYOUT_DS_MAX 256

/* The data sources of l's value list, in order: every dispatched field
 * element, in field order. Writes at most max entries to ds and returns
 * the total number. */
size_t zvm_layout_data_sources(const struct zvm_layout *l, struct zvm_ds *ds,
                               size_t max);

/* One types.db line for l ("zvm_useite\ttransactions:DERIVE:0:U, ...")
 * into buf; its length, or -1 if it does not fit or l has no type. */
int zvm_layout_types_db_line(const struct zvm_layout *l, char *buf,
                             size_t size);

#endif /* ZVM_MONITOR_TYPESDB_H */
