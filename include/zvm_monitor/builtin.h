/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the built-in records (one file per record under
 * plugin/records/ and plugin/appldata/aplsdt.c, listed in
 * plugin/records/catalog.c): what the tools and the glue use of them.
 */
#ifndef ZVM_MONITOR_BUILTIN_H
#define ZVM_MONITOR_BUILTIN_H

#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/decode.h"
#include "zvm_monitor/recwalk.h"

struct zvm_registry; /* registry.h */

/* Adds every built-in descriptor to r. 0, or -1 if out of memory. */
int zvm_registry_add_builtins(struct zvm_registry *r);

/* A new registry of every built-in descriptor (what a configuration
 * starts from, conf.h); NULL if out of memory. */
struct zvm_registry *zvm_registry_builtin(void);

/* zvm_decode_set_with() with the built-in descriptors. */
void zvm_decode_set(const uint8_t *buf, size_t len, zvm_domain_mask_t select,
                    zvm_record_cb cb, void *ctx,
                    struct zvm_decode_stats *stats);

#endif /* ZVM_MONITOR_BUILTIN_H */
