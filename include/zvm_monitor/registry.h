/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the registry: built-in and user-defined descriptors, O(1) by
 * (domain, record). Not thread-safe; built at configuration time, then
 * read-only.
 */
#ifndef ZVM_MONITOR_REGISTRY_H
#define ZVM_MONITOR_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/records.h"

struct zvm_registry;

/* An empty registry; NULL if out of memory. */
struct zvm_registry *zvm_registry_create(void);
/* (Every built-in descriptor: zvm_registry_add_builtins(), builtin.h.) */
/* Frees the registry and the descriptors it owns. */
void zvm_registry_destroy(struct zvm_registry *r);

/* Add d (checked with zvm_record_check first). If a descriptor for the
 * same (domain, record) exists: replace it if replace is true, else fail.
 * A type name already used by another record fails. If free_desc is not
 * NULL the registry owns d and calls free_desc(d) when it is replaced or
 * the registry destroyed (also when adding fails). 0, or -1 with a
 * one-line reason in err. */
int zvm_registry_add(struct zvm_registry *r, const struct zvm_record_desc *d,
                     bool replace,
                     void (*free_desc)(const struct zvm_record_desc *d),
                     char *err, size_t err_size);

const struct zvm_record_desc *zvm_registry_find(const struct zvm_registry *r,
                                                uint8_t domain,
                                                uint16_t number);
/* Iteration in the order of addition. */
size_t zvm_registry_count(const struct zvm_registry *r);
const struct zvm_record_desc *zvm_registry_at(const struct zvm_registry *r,
                                              size_t i);

/* A descriptor with options (records.h) and no hook_data is held as the
 * registry's own copy whose hook_data is its own struct of the options,
 * with their defaults. The row of key among the option rows of the
 * descriptors held, and in *target the struct it sets; NULL if none has
 * one. */
const struct zvm_option *zvm_registry_option(const struct zvm_registry *r,
                                             const char *key, void **target);

#endif /* ZVM_MONITOR_REGISTRY_H */
