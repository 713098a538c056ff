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
#ifndef ZVM_RECORDS_VMDBK_H
#define ZVM_RECORDS_VMDBK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif /* ZVM_RECORDS_VMDBK_H */
