/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the catalogue of built-in records: a record file defines
 * const struct zvm_record_desc zvm_rec_<name>, and <name> is one word in
 * the list below.
 */
#include "zvm_monitor/builtin.h"

#include "appldata/appldata.h"
#include "engine/check.h"
#include "engine/walk.h"
#include "records/catalog.h"
#include "zvm_monitor/registry.h"

#include <stdatomic.h>
#include <stdbool.h>

#define ZVM_BUILTIN_RECORDS(X)                                                 \
  X(mtrend)                                                                    \
  X(mtreof) X(uselon) X(uselof) X(useite) X(prcsmt) X(sytprp) X(aplsdt)

#define DECLARE(name) extern const struct zvm_record_desc zvm_rec_##name;
ZVM_BUILTIN_RECORDS(DECLARE)
#undef DECLARE

#define ENTRY(name) &zvm_rec_##name,
const struct zvm_record_desc *const zvm_record_tables[] = {
    ZVM_BUILTIN_RECORDS(ENTRY)};
#undef ENTRY
const size_t zvm_record_table_count = ZVM_COUNT_OF(zvm_record_tables);

/* A handful of tables: a scan is as fast as an index. (The registry,
 * which the mapper uses, is indexed.) */
const struct zvm_record_desc *zvm_record_find(uint8_t domain, uint16_t number) {
  for (size_t i = 0; i < zvm_record_table_count; i++)
    if (zvm_record_tables[i]->domain == domain &&
        zvm_record_tables[i]->number == number)
      return zvm_record_tables[i];
  return NULL;
}

int zvm_registry_add_builtins(struct zvm_registry *r) {
  /* The built-in tables are constants: zvm_record_check() them once per
   * process, not for every configuration built. */
  static atomic_bool checked;
  bool known_good = atomic_load(&checked);
  for (size_t i = 0; i < zvm_record_table_count; i++)
    if ((known_good ? zvm_registry_add_checked(r, zvm_record_tables[i])
                    : zvm_registry_add(r, zvm_record_tables[i], false, NULL,
                                       NULL, 0)) != 0)
      return -1;
  atomic_store(&checked, true);
  return 0;
}

struct zvm_registry *zvm_registry_builtin(void) {
  struct zvm_registry *r = zvm_registry_create();
  if (r != NULL && zvm_registry_add_builtins(r) != 0) {
    zvm_registry_destroy(r);
    return NULL;
  }
  return r;
}

static void decode_builtin(const uint8_t *buf, size_t len,
                           zvm_domain_mask_t select, zvm_record_cb cb,
                           void *ctx, struct zvm_decode_stats *stats) {
  struct zvm_walk walk;
  struct zvm_record rec;
  zvm_walk_init(&walk, buf, len, select);
  while (zvm_walk_next(&walk, &rec)) {
    const struct zvm_record_desc *desc =
        zvm_record_find(rec.domain, rec.number);
    if (zvm_record_accept(desc, &rec, stats) && cb != NULL)
      cb(&rec, desc, ctx);
  }
  zvm_walk_stats_add(&stats->walk, &walk.stats);
}

void zvm_decode_set(const uint8_t *buf, size_t len, zvm_domain_mask_t select,
                    zvm_record_cb cb, void *ctx,
                    struct zvm_decode_stats *stats) {
  decode_builtin(buf, len, select, cb, ctx, stats);
}
