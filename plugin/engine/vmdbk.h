/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - a guest's counters summed over its VMDBKs (mapping layer;
 * no bytes, no collectd).
 *
 * D4R10 is written per VMDBK: "a separate record is generated for each
 * VMDBK in a virtual complex that contributed to the transaction" (IBM
 * z/VM V6R2 monitor record MRUSEITE (D4R10),
 * www.vm.ibm.com/pubs/mon620/MRUSEITE.HTML), one VMDBK per virtual CPU, told
 * apart by USEITE_VMDCPUAD. Each VMDBK's high-frequency counters are its own,
 * so a guest's counter is the sum over its VMDBKs of each one's latest value;
 * a VMDBK that skips transactions keeps its last values in the sum, so
 * the sum never goes backwards while the guest is tracked.
 *
 * The set holds n values per VMDBK (the caller's value slots, counters and
 * levels alike; the caller decides which it sums) and their sums.
 */
#ifndef ZVM_ENGINE_VMDBK_H
#define ZVM_ENGINE_VMDBK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/records.h"

/* VMDBKs tracked per guest at most (z/VM allows 64 virtual CPUs per
 * guest); records of further VMDBKs are refused. */
#define ZVM_VMDBK_MAX 256

struct zvm_vmdbk {
  uint16_t cpuad;  /* USEITE_VMDCPUAD */
  bool base;       /* its latest record had CALBASE (CALFLAG1 X'80') */
  int64_t *values; /* n values of its latest record */
  bool *present;   /* value k was in that record (older, shorter layouts) */
};

struct zvm_vmdbk_set {
  size_t n;
  size_t count, cap;
  struct zvm_vmdbk *v;
  int64_t *sum;      /* n sums over the VMDBKs that have value k */
  unsigned *holders; /* VMDBKs contributing to sum k */
};

/* n values per VMDBK; 0, or -1 if out of memory. */
int zvm_vmdbk_init(struct zvm_vmdbk_set *s, size_t n);
void zvm_vmdbk_free(struct zvm_vmdbk_set *s);
/* Forget every VMDBK (the guest logged off): sums start again at 0. */
void zvm_vmdbk_clear(struct zvm_vmdbk_set *s);

enum zvm_vmdbk_status {
  ZVM_VMDBK_OK = 0,
  ZVM_VMDBK_NOMEM,
  ZVM_VMDBK_FULL, /* ZVM_VMDBK_MAX VMDBKs already */
};

/* The latest record of VMDBK cpuad: values[k] where present[k]. The sums
 * change by the difference to that VMDBK's previous values; a value absent
 * now keeps its previous value in the sum. */
enum zvm_vmdbk_status zvm_vmdbk_update(struct zvm_vmdbk_set *s, uint16_t cpuad,
                                       bool base, const int64_t *values,
                                       const bool *present);

/* Sum of value k over the VMDBKs; false if none had it. Sums saturate at
 * INT64_MAX / INT64_MIN. */
bool zvm_vmdbk_sum(const struct zvm_vmdbk_set *s, size_t k, int64_t *out);

/* The VMDBK with this address, or NULL. */
const struct zvm_vmdbk *zvm_vmdbk_find(const struct zvm_vmdbk_set *s,
                                       uint16_t cpuad);

/* The base VMDBK (latest record with CALBASE), or NULL if none seen. */
const struct zvm_vmdbk *zvm_vmdbk_base(const struct zvm_vmdbk_set *s);

/* ------------------------------------------------------------------------
 * The hooks that sum a per-VMDBK record per guest (D4R10 built in, and a
 * <Record> block with a Kind "processor" field). The descriptor's main
 * layout is keyed by the guest's user ID; its hook_data points to a
 * struct zvm_vmdbk_fields that says where a record names its VMDBK. Per
 * guest (the engine's instance):
 *
 *   - a counter is the sum over its VMDBKs of each VMDBK's latest value:
 *     a VMDBK that skips records keeps its last values in the sum, which
 *     never goes backwards while the guest is tracked;
 *   - a gauge is not summed: the base VMDBK's latest value (before a base
 *     record has been seen: the latest record's);
 *   - a record count (ZVM_TYPE_RECORD_COUNT) counts the base VMDBK's
 *     records only: one per event, however many VMDBKs wrote it.
 *
 * A guest with a single VMDBK costs what a record without the hooks
 * costs (the engine keeps its latest record); the sums are kept only for
 * a guest that shows a second VMDBK. The instances start afresh with the
 * guest's session (hooks .guest_session: a logon or logoff).
 */
struct zvm_vmdbk_fields {
  /* The VMDBK's processor address (D4R10 USEITE_VMDCPUAD): unsigned, 1,
   * 2, 4 or 8 bytes. A record too short for it is address 0. */
  uint16_t cpuad_offset;
  uint8_t cpuad_width;
  /* The base VMDBK's flag (D4R10 CALBASE, X'80' of USEITE_CALFLAG1): set
   * if (byte(s) & base_mask) != 0. base_width 0: no flag, every record
   * is its VMDBK's base record (levels follow the latest record, and the
   * record count counts every record). A record too short for it is a
   * base record. */
  uint16_t base_offset;
  uint8_t base_width;
  uint64_t base_mask;
};

struct zvm_record_hooks;
extern const struct zvm_record_hooks zvm_vmdbk_hooks;

#endif /* ZVM_ENGINE_VMDBK_H */
