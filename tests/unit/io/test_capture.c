/* SPDX-License-Identifier: MIT */
/*
 * Capture files (plugin/io/capture.c): what is written is read back exactly,
 * the bytes are pcapng as the draft specifies, damage is found where it
 * starts and everything before it is kept, a full disk leaves a complete
 * file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zvm_monitor/be.h"
#include "zvm_monitor/capture.h"

#define T0 UINT64_C(1700000000123456)

static char tmpl[64];

static int tmp_file(void) {
  snprintf(tmpl, sizeof(tmpl), "/tmp/test_capture.XXXXXX");
  int fd = mkstemp(tmpl);
  assert_true(fd >= 0);
  unlink(tmpl);
  return fd;
}

/* The whole file behind fd. */
static uint8_t *slurp(int fd, size_t *len) {
  struct stat st;
  assert_int_equal(fstat(fd, &st), 0);
  uint8_t *b = malloc((size_t)st.st_size + 1);
  assert_non_null(b);
  assert_int_equal(pread(fd, b, (size_t)st.st_size, 0), st.st_size);
  *len = (size_t)st.st_size;
  return b;
}

static void fill(uint8_t *b, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    b[i] = (uint8_t)(seed * 31u + i * 7u);
}

/* A capture of: set 0 (5 bytes), event EIO, set 1 (4096 bytes), empty set. */
static uint8_t *sample_capture(size_t *len) {
  int fd = tmp_file(), err = 0;
  uint8_t s0[5], s1[4096];
  fill(s0, sizeof(s0), 1);
  fill(s1, sizeof(s1), 2);
  struct zvm_cap_writer *w =
      zvm_cap_writer_start(fd, "test 1.0", "/dev/monreader", &err);
  assert_non_null(w);
  assert_int_equal(zvm_cap_write_set(w, s0, sizeof(s0), T0), 0);
  struct zvm_reader_event ev = {.type = ZVM_READER_EV_EIO,
                                .err = EIO,
                                .set_discarded = true,
                                .discarded_bytes = 4108};
  assert_int_equal(zvm_cap_write_event(w, &ev, T0 + 1), 0);
  assert_int_equal(zvm_cap_write_set(w, s1, sizeof(s1), T0 + 2000000), 0);
  assert_int_equal(zvm_cap_write_set(w, NULL, 0, T0 + 3000000), 0);
  uint64_t bytes = zvm_cap_writer_bytes(w);
  zvm_cap_writer_free(w);
  uint8_t *b = slurp(fd, len);
  assert_int_equal(bytes, *len);
  close(fd);
  return b;
}

/* Offsets of every block in a capture. */
static size_t block_offsets(const uint8_t *b, size_t len, size_t *off,
                            size_t max) {
  size_t n = 0;
  for (size_t p = 0; p + 8 <= len && n < max; p += zvm_load_be32(b + p + 4))
    off[n++] = p;
  return n;
}

static void expect_sample(struct zvm_cap_reader *r, size_t upto) {
  struct zvm_cap_item it;
  uint8_t s0[5], s1[4096];
  fill(s0, sizeof(s0), 1);
  fill(s1, sizeof(s1), 2);
  if (upto < 1)
    return;
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_SET);
  assert_int_equal(it.time_us, T0);
  assert_int_equal(it.len, 5);
  assert_memory_equal(it.data, s0, 5);
  if (upto < 2)
    return;
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_EVENT);
  assert_int_equal(it.time_us, T0 + 1);
  assert_int_equal(it.event.type, ZVM_READER_EV_EIO);
  assert_int_equal(it.event.err, EIO);
  assert_true(it.event.set_discarded);
  assert_int_equal(it.event.discarded_bytes, 4108);
  if (upto < 3)
    return;
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_SET);
  assert_int_equal(it.time_us, T0 + 2000000);
  assert_int_equal(it.len, 4096);
  assert_memory_equal(it.data, s1, 4096);
  if (upto < 4)
    return;
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_SET);
  assert_int_equal(it.len, 0);
}

static void round_trip(void **state) {
  (void)state;
  size_t len;
  uint8_t *b = sample_capture(&len);
  struct zvm_cap_reader *r = zvm_cap_reader_mem(b, len, 0);
  struct zvm_cap_item it;
  expect_sample(r, 4);
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_END);
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_END);
  assert_int_equal(zvm_cap_reader_get_stats(r)->sets, 3);
  assert_int_equal(zvm_cap_reader_get_stats(r)->events, 1);
  assert_int_equal(zvm_cap_reader_get_stats(r)->blocks, 7);
  zvm_cap_reader_free(r);
  free(b);
}

/* The bytes themselves, as draft-ietf-opsawg-pcapng lays them out. */
static void pcapng_layout(void **state) {
  (void)state;
  size_t len, off[16];
  uint8_t *b = sample_capture(&len);
  size_t n = block_offsets(b, len, off, 16);
  assert_int_equal(n, 7);
  /* SHB: type, byte-order magic (big-endian), version 1.0, length -1 */
  assert_int_equal(zvm_load_be32(b), 0x0A0D0D0A);
  assert_int_equal(zvm_load_be32(b + 8), 0x1A2B3C4D);
  assert_int_equal(zvm_load_be16(b + 12), 1);
  assert_int_equal(zvm_load_be16(b + 14), 0);
  assert_int_equal(zvm_load_be64(b + 16), UINT64_MAX);
  /* IDBs: LINKTYPE_USER0 for sets, LINKTYPE_USER1 for events */
  assert_int_equal(zvm_load_be32(b + off[1]), 1);
  assert_int_equal(zvm_load_be16(b + off[1] + 8), 147);
  assert_int_equal(zvm_load_be16(b + off[2] + 8), 148);
  /* EPB of set 0: interface 0, timestamp, caplen = origlen = 5, padded */
  const uint8_t *e = b + off[3];
  assert_int_equal(zvm_load_be32(e), 6);
  assert_int_equal(zvm_load_be32(e + 4), 12 + 20 + 8);
  assert_int_equal(zvm_load_be32(e + 8), 0);
  assert_int_equal(
      (uint64_t)zvm_load_be32(e + 12) << 32 | zvm_load_be32(e + 16), T0);
  assert_int_equal(zvm_load_be32(e + 20), 5);
  assert_int_equal(zvm_load_be32(e + 24), 5);
  assert_int_equal(zvm_load_be32(e + 36), 40);
  /* the event: interface 1, 16-byte payload, then an opt_comment */
  e = b + off[4];
  assert_int_equal(zvm_load_be32(e + 8), 1);
  assert_int_equal(zvm_load_be32(e + 20), 16);
  assert_int_equal(e[28], 1);                 /* version */
  assert_int_equal(e[29], ZVM_READER_EV_EIO); /* type */
  assert_int_equal(e[30], 1);                 /* a set was discarded */
  assert_int_equal(zvm_load_be32(e + 32), EIO);
  assert_int_equal(zvm_load_be64(e + 36), 4108);
  assert_int_equal(zvm_load_be16(e + 44), 1); /* opt_comment */
  uint16_t clen = zvm_load_be16(e + 46);
  assert_true(clen > 0);
  assert_memory_equal(e + 48, "zvm_monitor event EIO", 21);
  free(b);
}

/* Every prefix of a capture (a kill -9 while writing): the sets of the
 * complete blocks come back, then an error at the cut block's offset, or
 * a clean end when the cut falls between blocks. */
static void truncation_keeps_complete_blocks(void **state) {
  (void)state;
  size_t len, off[16];
  uint8_t *b = sample_capture(&len);
  size_t n = block_offsets(b, len, off, 16);
  off[n] = len;
  for (size_t cut = 0; cut < len; cut++) {
    size_t complete = 0; /* blocks fully inside the prefix */
    while (complete < n && off[complete + 1] <= cut)
      complete++;
    size_t items = complete > 3 ? complete - 3 : 0;
    struct zvm_cap_reader *r = zvm_cap_reader_mem(b, cut, 0);
    struct zvm_cap_item it;
    expect_sample(r, items);
    enum zvm_cap_kind k = zvm_cap_next(r, &it);
    if (cut == off[complete] && cut > 0) {
      assert_int_equal(k, ZVM_CAP_END);
    } else {
      assert_int_equal(k, ZVM_CAP_ERROR);
      assert_int_equal(zvm_cap_reader_error_offset(r), off[complete]);
    }
    zvm_cap_reader_free(r);
  }
  free(b);
}

static void corruption_is_named(void **state) {
  (void)state;
  size_t len, off[16];
  uint8_t *b = sample_capture(&len);
  size_t n = block_offsets(b, len, off, 16);
  assert_int_equal(n, 7);
  struct zvm_cap_item it;

  /* the trailing length of set 1's block */
  uint8_t *c = malloc(len);
  memcpy(c, b, len);
  c[off[6] - 1] ^= 0x04;
  struct zvm_cap_reader *r = zvm_cap_reader_mem(c, len, 0);
  expect_sample(r, 2);
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_ERROR);
  assert_int_equal(zvm_cap_reader_error_offset(r), off[5]);
  assert_non_null(strstr(zvm_cap_reader_error(r), "corrupted"));
  zvm_cap_reader_free(r);

  /* a block length that is not a multiple of 4 */
  memcpy(c, b, len);
  c[off[4] + 7] ^= 1;
  r = zvm_cap_reader_mem(c, len, 0);
  expect_sample(r, 1);
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_ERROR);
  assert_int_equal(zvm_cap_reader_error_offset(r), off[4]);
  zvm_cap_reader_free(r);

  /* a packet on an interface the section did not describe */
  memcpy(c, b, len);
  c[off[3] + 11] = 7;
  r = zvm_cap_reader_mem(c, len, 0);
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_ERROR);
  assert_int_equal(zvm_cap_reader_error_offset(r), off[3]);
  assert_non_null(strstr(zvm_cap_reader_error(r), "interface 7"));
  zvm_cap_reader_free(r);

  /* caplen larger than the block */
  memcpy(c, b, len);
  c[off[3] + 23] = 200;
  r = zvm_cap_reader_mem(c, len, 0);
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_ERROR);
  zvm_cap_reader_free(r);

  /* not pcapng at all; empty */
  r = zvm_cap_reader_mem((const uint8_t *)"hello, world", 12, 0);
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_ERROR);
  assert_int_equal(zvm_cap_reader_error_offset(r), 0);
  zvm_cap_reader_free(r);
  r = zvm_cap_reader_mem(NULL, 0, 0);
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_ERROR);
  assert_non_null(strstr(zvm_cap_reader_error(r), "empty"));
  zvm_cap_reader_free(r);

  /* a block above the limit */
  r = zvm_cap_reader_mem(b, len, 1024);
  expect_sample(r, 2);
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_ERROR);
  assert_int_equal(zvm_cap_reader_error_offset(r), off[5]);
  zvm_cap_reader_free(r);
  free(c);
  free(b);
}

/* Convert a big-endian capture to little-endian, as editcap on an x86
 * machine would write it: every pcapng field swapped, packet data not. */
static void swap32(uint8_t *p) {
  uint8_t t = p[0];
  p[0] = p[3];
  p[3] = t;
  t = p[1];
  p[1] = p[2];
  p[2] = t;
}

static void swap16(uint8_t *p) {
  uint8_t t = p[0];
  p[0] = p[1];
  p[1] = t;
}

static void swap_options(uint8_t *p, size_t len) {
  size_t o = 0;
  while (o + 4 <= len) {
    uint16_t code = zvm_load_be16(p + o), olen = zvm_load_be16(p + o + 2);
    swap16(p + o);
    swap16(p + o + 2);
    o += 4 + ((olen + 3u) & ~3u);
    if (code == 0)
      break;
  }
}

static void little_endian_and_sections(void **state) {
  (void)state;
  size_t len, off[16];
  uint8_t *b = sample_capture(&len);
  size_t n = block_offsets(b, len, off, 16);
  uint8_t *c = malloc(2 * len);
  memcpy(c, b, len);
  for (size_t i = 0; i < n; i++) {
    uint8_t *p = c + off[i];
    uint32_t type = zvm_load_be32(p), total = zvm_load_be32(p + 4);
    swap32(p);
    swap32(p + 4);
    swap32(p + total - 4);
    if (type == 0x0A0D0D0A) {
      swap32(p + 8);
      swap16(p + 12);
      swap16(p + 14);
      swap_options(p + 24, total - 28);
    } else if (type == 1) {
      swap16(p + 8);
      swap32(p + 12);
      swap_options(p + 16, total - 20);
    } else if (type == 6) {
      uint32_t caplen = zvm_load_be32(p + 20);
      for (int f = 8; f < 28; f += 4)
        swap32(p + f);
      size_t opts = 28 + ((caplen + 3u) & ~3u);
      swap_options(p + opts, total - 4 - opts);
    }
  }
  /* cat little.pcapng big.pcapng: two sections */
  memcpy(c + len, b, len);
  struct zvm_cap_reader *r = zvm_cap_reader_mem(c, 2 * len, 0);
  struct zvm_cap_item it;
  expect_sample(r, 4);
  expect_sample(r, 4);
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_END);
  zvm_cap_reader_free(r);
  free(c);
  free(b);
}

/* Blocks and packets the capture does not use are skipped; a set cut by a
 * snaplen is not returned. */
static void foreign_blocks_skipped(void **state) {
  (void)state;
  size_t len, off[16];
  uint8_t *b = sample_capture(&len);
  size_t n = block_offsets(b, len, off, 16);
  assert_int_equal(n, 7);
  /* a custom block (type 0x00000BAD) of 16 bytes after the IDBs, and set
   * 1 marked as cut (origlen > caplen) */
  static const uint8_t custom[16] = {0, 0, 0x0B, 0xAD, 0, 0, 0, 16,
                                     1, 2, 3,    4,    0, 0, 0, 16};
  uint8_t *c = malloc(len + 16);
  memcpy(c, b, off[3]);
  memcpy(c + off[3], custom, 16);
  memcpy(c + off[3] + 16, b + off[3], len - off[3]);
  c[off[5] + 16 + 27] = 0xFF;
  struct zvm_cap_reader *r = zvm_cap_reader_mem(c, len + 16, 0);
  struct zvm_cap_item it;
  expect_sample(r, 2);
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_SET);
  assert_int_equal(it.len, 0); /* set 1 skipped */
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_END);
  assert_int_equal(zvm_cap_reader_get_stats(r)->skipped_blocks, 1);
  assert_int_equal(zvm_cap_reader_get_stats(r)->cut_sets, 1);
  zvm_cap_reader_free(r);
  free(c);
  free(b);
}

/* A full disk: the write fails with ENOSPC and nothing is written. */
static void disk_full(void **state) {
  (void)state;
  int fd = open("/dev/full", O_WRONLY);
  if (fd < 0) {
    print_message("SKIP: disk_full: cannot open /dev/full (a container "
                  "without /dev bound?)\n");
    skip();
  }
  int err = 0;
  assert_null(zvm_cap_writer_start(fd, "t", "d", &err));
  assert_int_equal(err, ENOSPC);
  close(fd);
}

/* Reading from an fd; a set too large for pcapng is refused. */
static void file_reader_and_size_limit(void **state) {
  (void)state;
  int fd = tmp_file(), err = 0;
  struct zvm_cap_writer *w = zvm_cap_writer_start(fd, "t", "d", &err);
  assert_non_null(w);
  uint8_t set[100];
  fill(set, sizeof(set), 3);
  assert_int_equal(zvm_cap_write_set(w, set, sizeof(set), T0), 0);
  assert_int_equal(zvm_cap_write_set(w, set, UINT32_MAX, T0), EFBIG);
  zvm_cap_writer_free(w);
  assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
  struct zvm_cap_reader *r = zvm_cap_reader_fd(fd, 0);
  struct zvm_cap_item it;
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_SET);
  assert_memory_equal(it.data, set, sizeof(set));
  assert_int_equal(zvm_cap_next(r, &it), ZVM_CAP_END);
  zvm_cap_reader_free(r);
  close(fd);
}

static void event_names(void **state) {
  (void)state;
  char t[200];
  assert_string_equal(zvm_cap_event_name(ZVM_READER_EV_EOVERFLOW), "EOVERFLOW");
  assert_string_equal(zvm_cap_event_name(0), "unknown");
  assert_string_equal(zvm_cap_event_name(99), "unknown");
  struct zvm_reader_event ev = {.type = ZVM_READER_EV_EFAULT,
                                .err = EFAULT,
                                .set_discarded = true,
                                .discarded_bytes = 12};
  zvm_cap_event_text(&ev, t, sizeof(t));
  assert_non_null(strstr(t, "EFAULT"));
  assert_non_null(strstr(t, "12 bytes"));
  zvm_cap_event_text(&ev, t, 8); /* cut, terminated */
  assert_int_equal(strlen(t), 7);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(round_trip),
      cmocka_unit_test(pcapng_layout),
      cmocka_unit_test(truncation_keeps_complete_blocks),
      cmocka_unit_test(corruption_is_named),
      cmocka_unit_test(little_endian_and_sections),
      cmocka_unit_test(foreign_blocks_skipped),
      cmocka_unit_test(disk_full),
      cmocka_unit_test(file_reader_and_size_limit),
      cmocka_unit_test(event_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
