/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - checking a descriptor before it is used: the registry
 * checks every descriptor it is given (built-in tables, <Record> blocks at
 * start-up), and a unit test every built-in table. Offsets/widths
 * plausible, no field in the 20-byte header unless it is a key or layout
 * field, types and widths compatible, names non-empty and valid collectd
 * names ([A-Za-z0-9_], < 64 bytes), no duplicate data source names, keys
 * pointing at suitable fields, arrays' locating fields inside the fixed
 * part. 0, or -1 with a one-line reason.
 */
#ifndef ZVM_ENGINE_CHECK_H
#define ZVM_ENGINE_CHECK_H

#include <stddef.h>

#include "base/util.h" /* zvm_format_error(): the error convention */
#include "zvm_monitor/records.h"

int zvm_record_check(const struct zvm_record_desc *d, char *err,
                     size_t err_size);

struct zvm_registry;
/* zvm_registry_add() of a descriptor already checked (the built-in tables
 * are constants, checked once per process: tests and fuzz targets build
 * thousands of configurations). */
int zvm_registry_add_checked(struct zvm_registry *r,
                             const struct zvm_record_desc *d);

#endif /* ZVM_ENGINE_CHECK_H */
