/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the capture-file reader (plugin/io/capture.c) on arbitrary
 * bytes, as a damaged or hostile pcapng file.
 *
 * Input: the bytes of a capture file. Read to the end or to the damage;
 * every item must lie inside the input, offsets must grow, the error must
 * name an offset inside the input, and every item returned before an error
 * must come back identically when the input is cut at the damage (what a
 * replay keeps is what it would have kept from the shorter file). Then the
 * sets are written again and read back: the round trip must be exact.
 */
#define _GNU_SOURCE /* memfd_create */
#include "fuzz.h"

#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

#include "zvm_monitor/capture.h"

#define MAX_ITEMS 4096

struct seen {
  size_t n;
  uint64_t offset[MAX_ITEMS];
  uint64_t time[MAX_ITEMS];
  size_t len[MAX_ITEMS];
  uint32_t sum[MAX_ITEMS];
};

static uint32_t sum_of(const uint8_t *p, size_t len) {
  uint32_t s = 0;
  for (size_t i = 0; i < len; i++)
    s = s * 31u + p[i];
  return s;
}

/* Read everything; returns the final kind and fills out. */
static enum zvm_cap_kind read_all(const uint8_t *data, size_t size,
                                  struct seen *out, uint64_t *err_off) {
  struct zvm_cap_reader *r = zvm_cap_reader_mem(data, size, 1 << 16);
  FUZZ_CHECK(r != NULL);
  struct zvm_cap_item it;
  enum zvm_cap_kind k;
  uint64_t last = 0;
  out->n = 0;
  while ((k = zvm_cap_next(r, &it)) == ZVM_CAP_SET || k == ZVM_CAP_EVENT) {
    FUZZ_CHECK(it.offset < size);
    FUZZ_CHECK(out->n == 0 || it.offset > last);
    last = it.offset;
    if (k == ZVM_CAP_SET) {
      FUZZ_CHECK(it.len <= size);
      FUZZ_CHECK(it.len == 0 ||
                 (it.data >= data && it.data + it.len <= data + size) ||
                 it.data != NULL);
    } else {
      FUZZ_CHECK(it.event.type >= 1 && it.event.type <= ZVM_READER_EV_MAX);
    }
    if (out->n < MAX_ITEMS) {
      out->offset[out->n] = it.offset;
      out->time[out->n] = it.time_us;
      out->len[out->n] = k == ZVM_CAP_SET ? it.len : (size_t)-1;
      out->sum[out->n] = k == ZVM_CAP_SET
                             ? sum_of(it.data, it.len)
                             : (uint32_t)it.event.type * 31u +
                                   (uint32_t)it.event.err * 7u +
                                   (it.event.set_discarded ? 1u : 0u) +
                                   (uint32_t)(it.event.discarded_bytes * 13u);
      out->n++;
    }
  }
  FUZZ_CHECK(zvm_cap_next(r, &it) == k); /* sticky */
  *err_off = k == ZVM_CAP_ERROR ? zvm_cap_reader_error_offset(r) : size;
  if (k == ZVM_CAP_ERROR) {
    FUZZ_CHECK(*err_off <= size);
    FUZZ_CHECK(strlen(zvm_cap_reader_error(r)) > 0);
  }
  zvm_cap_reader_free(r);
  return k;
}

static struct seen a, b;

/* Write what was read (sets and events, with their times) as a capture of
 * our own and read it back: the same items, byte for byte. The file is
 * one memfd of the target's, emptied for each input (a new one would cost
 * more than the round trip). */
static void round_trip(const uint8_t *data, size_t size) {
  static int fd = -1;
  int err = 0;
  if (fd < 0)
    fd = memfd_create("fuzz_capture", 0);
  FUZZ_CHECK(fd >= 0);
  FUZZ_CHECK(ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0);
  struct zvm_cap_writer *w = zvm_cap_writer_start(fd, "fuzz", "dev", &err);
  FUZZ_CHECK(w != NULL);
  struct zvm_cap_reader *r = zvm_cap_reader_mem(data, size, 1 << 16);
  FUZZ_CHECK(r != NULL);
  struct zvm_cap_item it;
  enum zvm_cap_kind k;
  size_t n = 0;
  while ((k = zvm_cap_next(r, &it)) == ZVM_CAP_SET || k == ZVM_CAP_EVENT) {
    if (k == ZVM_CAP_SET)
      FUZZ_CHECK(zvm_cap_write_set(w, it.data, it.len, it.time_us) == 0);
    else
      FUZZ_CHECK(zvm_cap_write_event(w, &it.event, it.time_us) == 0);
    n++;
  }
  zvm_cap_reader_free(r);
  size_t len = (size_t)zvm_cap_writer_bytes(w);
  zvm_cap_writer_free(w);
  uint8_t *copy = malloc(len);
  FUZZ_CHECK(copy != NULL && pread(fd, copy, len, 0) == (ssize_t)len);
  uint64_t err_b;
  FUZZ_CHECK(read_all(copy, len, &b, &err_b) == ZVM_CAP_END);
  FUZZ_CHECK(b.n == (n < MAX_ITEMS ? n : MAX_ITEMS));
  for (size_t i = 0; i < b.n && i < a.n; i++) {
    FUZZ_CHECK(a.time[i] == b.time[i]);
    FUZZ_CHECK(a.len[i] == b.len[i]);
    FUZZ_CHECK(a.sum[i] == b.sum[i]);
  }
  free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint64_t err_a, err_b;
  enum zvm_cap_kind ka = read_all(data, size, &a, &err_a);
  if (ka == ZVM_CAP_ERROR && a.n < MAX_ITEMS) {
    /* The same items from the input cut where the damage starts. */
    (void)read_all(data, (size_t)err_a, &b, &err_b);
    FUZZ_CHECK(b.n == a.n);
    for (size_t i = 0; i < a.n; i++) {
      FUZZ_CHECK(a.offset[i] == b.offset[i]);
      FUZZ_CHECK(a.time[i] == b.time[i]);
      FUZZ_CHECK(a.len[i] == b.len[i]);
      FUZZ_CHECK(a.sum[i] == b.sum[i]);
    }
  }
  if (a.n > 0 && a.n < MAX_ITEMS)
    round_trip(data, size);
  return 0;
}
