/* SPDX-License-Identifier: MIT */
/*
 * Shared by the fuzz targets (tests/fuzz/fuzz_<name>.c). Each target is one
 * LLVMFuzzerTestOneInput(); it is linked either with clang's libFuzzer
 * (tests/fuzz/fuzz.mk, 'make fuzz') or with tests/fuzz/replay.c, which
 * replays the committed corpus in 'make check' with any compiler and on any
 * host (under ASan/UBSan, valgrind and qemu-s390x in tests/run).
 *
 * A target checks invariants with FUZZ_CHECK: a violation prints what failed
 * and aborts, which libFuzzer reports as a crash and make check as a failed
 * test.
 */
#ifndef ZVM_TESTS_FUZZ_H
#define ZVM_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__,   \
              #cond);                                                          \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* Big-endian loads written independently of include/zvm_monitor/be.h, so
 * the targets check the decoder instead of agreeing with it. */
static inline uint64_t fuzz_be(const uint8_t *p, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; i++)
    v = (v << 8) | p[i];
  return v;
}

/* A copy of buf in its own heap block of exactly len bytes, so ASan (and
 * valgrind) catch a read one byte before or after it. */
static inline uint8_t *fuzz_dup(const uint8_t *buf, size_t len) {
  uint8_t *p = calloc(len ? len : 1, 1);
  FUZZ_CHECK(p != NULL);
  if (len > 0)
    memcpy(p, buf, len);
  return p;
}

#endif
