/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the pure decoder: big-endian accessors, MCE validation, the
 * set walker (frames, D1R13 padding, bad headers, selection), TOD and EBCDIC
 * names. All input is built byte by byte with tests/rig/builder.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "builder.h"
#include "zvm_monitor/be.h"
#include "zvm_monitor/decode.h"

#define DCSS_BASE 0x09000000u
/* 2026-11-21 00:00:00 UTC, computed by hand (see test_tod_conversion). */
#define TOD_20261121 UINT64_C(0xE39CE53726000000)

/* ---------------------------------------------------------------- BE ---- */

static void test_be_unsigned(void **state) {
  (void)state;
  const uint8_t buf[] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xFE};
  uint8_t u8 = 0;
  uint16_t u16 = 0;
  uint32_t u32 = 0;
  uint64_t u64 = 0;

  assert_true(zvm_be_u8(buf, sizeof(buf), 8, &u8));
  assert_int_equal(u8, 0xFE);
  assert_true(zvm_be_u16(buf, sizeof(buf), 1, &u16));
  assert_int_equal(u16, 0x2345);
  assert_true(zvm_be_u32(buf, sizeof(buf), 4, &u32));
  assert_int_equal(u32, 0x89ABCDEF);
  assert_true(zvm_be_u64(buf, sizeof(buf), 0, &u64));
  assert_true(u64 == UINT64_C(0x0123456789ABCDEF));
  assert_true(zvm_be_u64(buf, sizeof(buf), 1, &u64));
  assert_true(u64 == UINT64_C(0x23456789ABCDEFFE));

  assert_true(zvm_be_uint(buf, sizeof(buf), 2, 2, &u64));
  assert_true(u64 == 0x4567);
  assert_false(zvm_be_uint(buf, sizeof(buf), 0, 3, &u64)); /* no such width */
}

static void test_be_bounds(void **state) {
  (void)state;
  const uint8_t buf[4] = {0xAA, 0xBB, 0xCC, 0xDD};
  uint16_t u16 = 0x1111;
  uint32_t u32 = 0x22222222;
  uint64_t u64 = 0x33;

  assert_false(zvm_be_u16(buf, sizeof(buf), 3, &u16));
  assert_int_equal(u16, 0x1111); /* untouched on failure */
  assert_true(zvm_be_u16(buf, sizeof(buf), 2, &u16));
  assert_int_equal(u16, 0xCCDD);
  assert_false(zvm_be_u32(buf, sizeof(buf), 1, &u32));
  assert_false(zvm_be_u32(buf, 3, 0, &u32));
  assert_int_equal(u32, 0x22222222);
  assert_false(zvm_be_u64(buf, sizeof(buf), 0, &u64));
  /* Offsets near SIZE_MAX must not wrap around into the buffer. */
  assert_false(zvm_be_u16(buf, sizeof(buf), SIZE_MAX, &u16));
  assert_false(zvm_be_u32(buf, sizeof(buf), SIZE_MAX - 1, &u32));
  assert_false(zvm_be_u8(buf, 0, 0, (uint8_t *)&u16));
  assert_true(zvm_in_bounds(4, 4, 0));
  assert_false(zvm_in_bounds(4, 5, 0));
}

static void test_be_signed(void **state) {
  (void)state;
  const uint8_t buf[] = {0xFF, 0xFF, 0x80, 0x00, 0x7F, 0xFF, 0xFF, 0xFE,
                         0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  int16_t s16;
  int32_t s32;
  int64_t s64;

  assert_true(zvm_be_s16(buf, sizeof(buf), 0, &s16));
  assert_int_equal(s16, -1);
  assert_true(zvm_be_s16(buf, sizeof(buf), 2, &s16));
  assert_int_equal(s16, -32768);
  assert_true(zvm_be_s16(buf, sizeof(buf), 4, &s16));
  assert_int_equal(s16, 32767);
  assert_true(zvm_be_s32(buf, sizeof(buf), 4, &s32));
  assert_int_equal(s32, 0x7FFFFFFE);
  assert_true(zvm_be_s32(buf, sizeof(buf), 8, &s32));
  assert_true(s32 == INT32_MIN);
  assert_true(zvm_be_s32(buf, sizeof(buf), 0, &s32));
  assert_int_equal(s32, -32768); /* 0xFFFF8000 */
  assert_true(zvm_be_s64(buf, sizeof(buf), 8, &s64));
  assert_true(s64 == INT64_MIN);
  assert_true(zvm_be_int(buf, sizeof(buf), 6, 2, &s64));
  assert_true(s64 == -2);
  assert_true(zvm_sign_extend(UINT64_C(0xFFFFFFFFFFFFFFFE), 8) == -2);
  assert_true(zvm_sign_extend(0x80, 1) == -128);
  assert_true(zvm_sign_extend(0x7F, 1) == 127);
}

/* --------------------------------------------------------------- MCE ---- */

static void test_mce_fields(void **state) {
  (void)state;
  struct tb b;
  tb_init(&b);
  tb_mce(&b, 0xE2, 0x0820, DCSS_BASE + 0x100, DCSS_BASE + 0x1FF);
  tb_fill(&b, 0, 0x100);

  struct zvm_mce mce;
  assert_int_equal(zvm_mce_parse(b.data, b.len, &mce), ZVM_MCE_OK);
  assert_int_equal(mce.type, ZVM_MCE_SAMPLE);
  assert_int_equal(mce.start, DCSS_BASE + 0x100);
  assert_int_equal(mce.end, DCSS_BASE + 0x1FF);
  assert_true(zvm_mce_records_len(&mce) == 0x100);
  /* byte 1 X'08' = user domain (4); byte 2 X'20' = appldata (10) */
  assert_int_equal(mce.domains, ZVM_DOMAIN_BIT(ZVM_DOMAIN_USER) |
                                    ZVM_DOMAIN_BIT(ZVM_DOMAIN_APPLDATA));
  assert_int_equal(ZVM_DOMAIN_BIT(0), 0x8000);
  assert_int_equal(ZVM_DOMAIN_BIT(7), 0x0100);
  assert_int_equal(ZVM_DOMAIN_BIT(8), 0x0080);

  tb_reset(&b);
  tb_mce(&b, 0xC5, 0x4000, 0x1000, 0x1013);
  tb_fill(&b, 0, 20);
  assert_int_equal(zvm_mce_parse(b.data, b.len, &mce), ZVM_MCE_OK);
  assert_int_equal(mce.type, ZVM_MCE_EVENT);
  assert_int_equal(mce.domains, ZVM_DOMAIN_BIT(ZVM_DOMAIN_MONITOR));
  tb_free(&b);
}

static void test_mce_rejects(void **state) {
  (void)state;
  static const struct {
    const char *what;
    uint8_t type;
    uint16_t domains;
    uint32_t start, end;
    size_t data_bytes;
    size_t total_len; /* 0: everything built */
    enum zvm_mce_status want;
  } cases[] = {
      {"truncated MCE", 0xE2, 0x0800, 0x1000, 0x1013, 20, 11,
       ZVM_MCE_TRUNCATED},
      {"zero type", 0x00, 0x0800, 0x1000, 0x1013, 20, 0, ZVM_MCE_BAD_TYPE},
      {"no domains", 0xE2, 0x0000, 0x1000, 0x1013, 20, 0, ZVM_MCE_NO_DOMAINS},
      {"end == start", 0xE2, 0x0800, 0x1000, 0x1000, 20, 0, ZVM_MCE_BAD_RANGE},
      {"end < start", 0xE2, 0x0800, 0x2000, 0x1000, 20, 0, ZVM_MCE_BAD_RANGE},
      {"one byte short", 0xE2, 0x0800, 0x1000, 0x1063, 99, 0,
       ZVM_MCE_SHORT_DATA},
      {"4 GB claim", 0xC5, 0x0800, 0x00000000, 0xFFFFFFFF, 20, 0,
       ZVM_MCE_SHORT_DATA},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct tb b;
    struct zvm_mce mce = {.type = 0x77};
    tb_init(&b);
    tb_mce(&b, cases[i].type, cases[i].domains, cases[i].start, cases[i].end);
    tb_fill(&b, 0, cases[i].data_bytes);
    size_t len = cases[i].total_len ? cases[i].total_len : b.len;
    enum zvm_mce_status got = zvm_mce_parse(b.data, len, &mce);
    if (got != cases[i].want)
      fail_msg("%s: got %d want %d", cases[i].what, got, cases[i].want);
    assert_int_equal(mce.type, 0x77); /* untouched */
    tb_free(&b);
  }
}

/* ------------------------------------------------------------ walker ---- */

/* A D4R10-shaped record: 200 bytes, user ID at 20, HFCPURN at 116. */
static void useite(struct tb *b, const char *user, uint32_t hfcpurn,
                   uint64_t tod) {
  size_t r = tb_record(b, 200, 4, 10, tod);
  tb_put_ebcdic(b, r + 20, user, 8);
  tb_put_u32(b, r + 116, hfcpurn);
}

struct collected {
  struct zvm_record rec[256];
  size_t n;
};

static void walk_all(const struct tb *set, zvm_domain_mask_t select,
                     struct collected *out, struct zvm_walk_stats *stats) {
  struct zvm_walk w;
  zvm_walk_init(&w, set->data, set->len, select);
  out->n = 0;
  while (out->n < 256 && zvm_walk_next(&w, &out->rec[out->n]))
    out->n++;
  assert_false(zvm_walk_next(&w, &out->rec[0])); /* stays finished */
  *stats = w.stats;
}

static uint32_t rec_u32(const struct zvm_record *r, size_t off) {
  uint32_t v = 0;
  assert_true(zvm_be_u32(r->data, r->len, off, &v));
  return v;
}

static void test_walk_one_record_set(void **state) {
  (void)state;
  struct tb rs, set;
  tb_init(&rs);
  tb_init(&set);
  useite(&rs, "LINUX01", 111, TOD_20261121 + 0x1000);
  size_t r2 = tb_record(&rs, 44, 5, 21, TOD_20261121 + 0x2000);
  tb_put_u32(&rs, r2 + 20, 3);
  tb_record(&rs, 20, 1, 11, TOD_20261121 + 0x3000);
  tb_record_set(&set, 0xC5, 0x0C40, DCSS_BASE + 0x40, &rs);

  struct collected c;
  struct zvm_walk_stats st;
  walk_all(&set, ZVM_DOMAINS_ALL, &c, &st);

  assert_int_equal(c.n, 3);
  assert_int_equal(c.rec[0].domain, 4);
  assert_int_equal(c.rec[0].number, 10);
  assert_int_equal(c.rec[0].len, 200);
  assert_true(c.rec[0].tod == TOD_20261121 + 0x1000);
  assert_int_equal(c.rec[0].addr, DCSS_BASE + 0x40);
  assert_int_equal(rec_u32(&c.rec[0], 116), 111);
  assert_ptr_equal(c.rec[0].data, set.data + 12);
  assert_int_equal(c.rec[0].mce.type, 0xC5);

  assert_int_equal(c.rec[1].domain, 5);
  assert_int_equal(c.rec[1].number, 21);
  assert_int_equal(c.rec[1].len, 44);
  assert_int_equal(c.rec[1].addr, DCSS_BASE + 0x40 + 200);
  assert_int_equal(rec_u32(&c.rec[1], 20), 3);

  assert_int_equal(c.rec[2].domain, 1);
  assert_int_equal(c.rec[2].number, 11);
  assert_true(c.rec[2].tod == TOD_20261121 + 0x3000);

  assert_int_equal(st.record_sets, 1);
  assert_int_equal(st.records, 3);
  assert_int_equal(st.interval_end, 1);
  assert_int_equal(st.malformed, 0);
  assert_int_equal(st.mce_rejected, 0);
  assert_int_equal(st.filtered, 0);
  tb_free(&rs);
  tb_free(&set);
}

static void test_walk_several_record_sets(void **state) {
  (void)state;
  struct tb rs1, rs2, set;
  tb_init(&rs1);
  tb_init(&rs2);
  tb_init(&set);
  useite(&rs1, "A", 1, TOD_20261121);
  useite(&rs1, "B", 2, TOD_20261121);
  useite(&rs2, "C", 3, TOD_20261121);
  tb_record_set(&set, 0xE2, 0x0800, DCSS_BASE + 0x10000, &rs1);
  tb_record_set(&set, 0xC5, 0x0800, DCSS_BASE + 0x20000, &rs2);

  struct collected c;
  struct zvm_walk_stats st;
  walk_all(&set, ZVM_DOMAINS_ALL, &c, &st);
  assert_int_equal(c.n, 3);
  assert_int_equal(rec_u32(&c.rec[0], 116), 1);
  assert_int_equal(rec_u32(&c.rec[1], 116), 2);
  assert_int_equal(rec_u32(&c.rec[2], 116), 3);
  assert_int_equal(c.rec[1].addr, DCSS_BASE + 0x10000 + 200);
  assert_int_equal(c.rec[2].addr, DCSS_BASE + 0x20000);
  assert_int_equal(c.rec[1].mce.type, 0xE2); /* a copy, not the walker's */
  assert_int_equal(st.record_sets, 2);
  assert_int_equal(st.records, 3);
  tb_free(&rs1);
  tb_free(&rs2);
  tb_free(&set);
}

/* Records laid out in 4 KB frames with D1R13; the padding holds a
 * well-formed D4R99 header that must never be reported. */
static void test_walk_frames_and_padding(void **state) {
  (void)state;
  /* Start mid-frame so that frame boundaries come from the DCSS address,
   * not from the buffer offset: 256 bytes left in the first frame. */
  const uint32_t base = DCSS_BASE + 0xF00;
  struct tb_frames f;
  struct tb rec, set;
  tb_frames_init(&f, base, 0x00, TOD_20261121);
  tb_init(&rec);
  tb_init(&set);
  char name[16]; /* "G%03d" of any int fits */
  for (int i = 0; i < 50; i++) {
    tb_reset(&rec);
    snprintf(name, sizeof(name), "G%03d", i);
    useite(&rec, name, (uint32_t)(1000 + i), TOD_20261121 + (uint64_t)i);
    tb_frames_add(&f, &rec);
  }
  /* Plant decoys in every padding area (right after each D1R13). */
  size_t decoys = 0;
  for (size_t off = 0; off + 40 <= f.rs.len; off++) {
    if (f.rs.data[off] == 0x00 && f.rs.data[off + 1] == 20 &&
        f.rs.data[off + 4] == 1 && f.rs.data[off + 7] == 13) {
      tb_put_u16(&f.rs, off + 20, 20);
      tb_put_u8(&f.rs, off + 24, 4);
      tb_put_u16(&f.rs, off + 26, 99);
      decoys++;
      off += 39;
    }
  }
  assert_int_equal(decoys, 3);
  tb_record_set(&set, 0xE2, 0x4800, base, &f.rs);

  struct collected c;
  struct zvm_walk_stats st;
  walk_all(&set, ZVM_DOMAINS_ALL, &c, &st);

  /* Frame 1 (256 bytes): 1 record + EOF + 36 pad; frames 2-3: 20 records
   * + EOF + 76 pad each; frame 4: the last 9 records. */
  assert_int_equal(st.end_of_frame, 3);
  assert_int_equal(st.padding_bytes, 36 + 76 + 76);
  assert_int_equal(st.records, 53);
  assert_int_equal(st.malformed, 0);
  size_t useites = 0;
  for (size_t i = 0; i < c.n; i++) {
    assert_false(c.rec[i].domain == 4 && c.rec[i].number == 99);
    if (c.rec[i].domain == 4 && c.rec[i].number == 10) {
      assert_int_equal(rec_u32(&c.rec[i], 116), 1000 + useites);
      /* CP never lets a record cross a frame. */
      assert_int_equal(c.rec[i].addr / 4096, (c.rec[i].addr + 199) / 4096);
      useites++;
    }
  }
  assert_int_equal(useites, 50);
  assert_int_equal(c.rec[1].domain, 1);
  assert_int_equal(c.rec[1].number, 13);
  assert_int_equal(c.rec[1].addr, base + 200);
  assert_int_equal(c.rec[2].addr, DCSS_BASE + 0x1000);
  tb_frames_free(&f);
  tb_free(&rec);
  tb_free(&set);
}

/* A D1R13 whose frame would run past the end of its record set: the walk
 * stops at the record set's end and continues with the next MCE. */
static void test_walk_eof_at_record_set_end(void **state) {
  (void)state;
  struct tb rs1, rs2, set;
  tb_init(&rs1);
  tb_init(&rs2);
  tb_init(&set);
  useite(&rs1, "A", 7, TOD_20261121);
  tb_record(&rs1, 20, 1, 13, TOD_20261121);
  useite(&rs2, "B", 8, TOD_20261121);
  tb_record_set(&set, 0xE2, 0x0800, DCSS_BASE, &rs1);
  tb_record_set(&set, 0xE2, 0x0800, DCSS_BASE + 0x3000, &rs2);

  struct collected c;
  struct zvm_walk_stats st;
  walk_all(&set, ZVM_DOMAINS_ALL, &c, &st);
  assert_int_equal(c.n, 3);
  assert_int_equal(rec_u32(&c.rec[0], 116), 7);
  assert_int_equal(c.rec[1].number, 13);
  assert_int_equal(rec_u32(&c.rec[2], 116), 8);
  assert_int_equal(st.padding_bytes, 0);
  assert_int_equal(st.end_of_frame, 1);
  tb_free(&rs1);
  tb_free(&rs2);
  tb_free(&set);
}

/* Each kind of bad header ends its record set, counted once; records
 * before it are kept and the next record set is walked normally. */
static void test_walk_bad_headers(void **state) {
  (void)state;
  enum { HDR_ZERO, HDR_19, HDR_OVERLONG, HDR_ZER_NONZERO, TRAILING_10 };
  for (int kind = HDR_ZERO; kind <= TRAILING_10; kind++) {
    struct tb rs1, rs2, set;
    tb_init(&rs1);
    tb_init(&rs2);
    tb_init(&set);
    useite(&rs1, "GOOD1", 1, TOD_20261121);
    size_t bad = rs1.len;
    switch (kind) {
    case HDR_ZERO:
      tb_record(&rs1, 20, 4, 10, TOD_20261121);
      tb_put_u16(&rs1, bad, 0);
      break;
    case HDR_19:
      tb_record(&rs1, 20, 4, 10, TOD_20261121);
      tb_put_u16(&rs1, bad, 19);
      break;
    case HDR_OVERLONG: /* claims 200, the record set ends 50 bytes in */
      tb_record(&rs1, 50, 4, 10, TOD_20261121);
      tb_put_u16(&rs1, bad, 200);
      break;
    case HDR_ZER_NONZERO:
      tb_record(&rs1, 20, 4, 10, TOD_20261121);
      tb_put_u16(&rs1, bad + 2, 1);
      break;
    case TRAILING_10:
      tb_fill(&rs1, 0x00, 10);
      break;
    }
    if (kind != TRAILING_10 && kind != HDR_OVERLONG)
      useite(&rs1, "LOST", 2, TOD_20261121); /* after the bad one */
    useite(&rs2, "GOOD2", 3, TOD_20261121);
    tb_record_set(&set, 0xC5, 0x0800, DCSS_BASE, &rs1);
    tb_record_set(&set, 0xC5, 0x0800, DCSS_BASE + 0x8000, &rs2);

    struct collected c;
    struct zvm_walk_stats st;
    walk_all(&set, ZVM_DOMAINS_ALL, &c, &st);
    if (c.n != 2 || st.malformed != 1)
      fail_msg("kind %d: %zu records, %llu malformed", kind, c.n,
               (unsigned long long)st.malformed);
    assert_int_equal(rec_u32(&c.rec[0], 116), 1);
    assert_int_equal(rec_u32(&c.rec[1], 116), 3);
    assert_int_equal(st.records, 2);
    assert_int_equal(st.record_sets, 2);
    tb_free(&rs1);
    tb_free(&rs2);
    tb_free(&set);
  }
}

/* The set ends before the last record set's claimed end (a truncated set):
 * that record set is rejected as a whole, the earlier one is kept. */
static void test_walk_truncated_set(void **state) {
  (void)state;
  struct tb rs1, rs2, set;
  tb_init(&rs1);
  tb_init(&rs2);
  tb_init(&set);
  useite(&rs1, "KEPT", 1, TOD_20261121);
  useite(&rs2, "CUT1", 2, TOD_20261121);
  useite(&rs2, "CUT2", 3, TOD_20261121);
  tb_record_set(&set, 0xC5, 0x0800, DCSS_BASE, &rs1);
  tb_record_set(&set, 0xC5, 0x0800, DCSS_BASE + 0x1000, &rs2);

  struct zvm_walk w;
  struct zvm_record r;
  zvm_walk_init(&w, set.data, set.len - 150, ZVM_DOMAINS_ALL);
  assert_true(zvm_walk_next(&w, &r));
  assert_int_equal(rec_u32(&r, 116), 1);
  assert_false(zvm_walk_next(&w, &r));
  assert_int_equal(w.stats.mce_rejected, 1);
  assert_int_equal(w.stats.record_sets, 1);
  assert_int_equal(w.stats.records, 1);

  /* A set cut inside an MCE. */
  zvm_walk_init(&w, set.data, 12 + 200 + 5, ZVM_DOMAINS_ALL);
  assert_true(zvm_walk_next(&w, &r));
  assert_false(zvm_walk_next(&w, &r));
  assert_int_equal(w.stats.mce_rejected, 1);
  tb_free(&rs1);
  tb_free(&rs2);
  tb_free(&set);
}

static void test_walk_rejected_mce_ends_set(void **state) {
  (void)state;
  struct tb rs, set;
  tb_init(&rs);
  tb_init(&set);
  useite(&rs, "A", 5, TOD_20261121);
  tb_record_set(&set, 0xC5, 0x0800, DCSS_BASE, &rs);
  tb_mce(&set, 0x00, 0x0800, DCSS_BASE + 0x1000, DCSS_BASE + 0x1000 + 199);
  tb_bytes(&set, rs.data, rs.len);
  tb_record_set(&set, 0xC5, 0x0800, DCSS_BASE + 0x2000, &rs);

  struct collected c;
  struct zvm_walk_stats st;
  walk_all(&set, ZVM_DOMAINS_ALL, &c, &st);
  assert_int_equal(c.n, 1);
  assert_int_equal(st.mce_rejected, 1);
  assert_int_equal(st.record_sets, 1);

  /* Nothing but garbage, and nothing at all. */
  static const uint8_t junk[5] = {0xE2, 1, 2, 3, 4};
  struct zvm_walk w;
  struct zvm_record r;
  zvm_walk_init(&w, junk, sizeof(junk), ZVM_DOMAINS_ALL);
  assert_false(zvm_walk_next(&w, &r));
  assert_int_equal(w.stats.mce_rejected, 1);
  /* An empty set is the driver's answer to an MCA it rejected. */
  zvm_walk_init(&w, junk, 0, ZVM_DOMAINS_ALL);
  assert_false(zvm_walk_next(&w, &r));
  assert_int_equal(w.stats.mce_rejected, 1);
  assert_int_equal(w.stats.record_sets, 0);
  tb_free(&rs);
  tb_free(&set);
}

static void test_walk_domain_selection(void **state) {
  (void)state;
  struct tb_frames f;
  struct tb rec, set, other;
  tb_frames_init(&f, DCSS_BASE + 0xF00, 0xEE, TOD_20261121);
  tb_init(&rec);
  tb_init(&set);
  tb_init(&other);
  /* user and processor records across a frame boundary */
  for (int i = 0; i < 3; i++) {
    tb_reset(&rec);
    useite(&rec, "U", (uint32_t)i, TOD_20261121);
    tb_frames_add(&f, &rec);
    tb_reset(&rec);
    tb_record(&rec, 36, 5, 21, TOD_20261121);
    tb_frames_add(&f, &rec);
  }
  tb_record_set(&set, 0xC5, 0x0C00, f.base, &f.rs);
  /* an I/O-domain record set: skipped by its MCE mask */
  tb_record(&other, 64, 6, 3, TOD_20261121);
  tb_record(&other, 64, 6, 3, TOD_20261121);
  tb_record_set(&set, 0xE2, 0x0200, DCSS_BASE + 0x9000, &other);

  struct collected c;
  struct zvm_walk_stats st;
  walk_all(&set, ZVM_DOMAIN_BIT(ZVM_DOMAIN_USER), &c, &st);
  assert_int_equal(c.n, 3);
  for (size_t i = 0; i < c.n; i++) {
    assert_int_equal(c.rec[i].domain, 4);
    assert_int_equal(rec_u32(&c.rec[i], 116), i);
  }
  /* 3 processor + 1 EOF (still used for framing) + 2 I/O filtered. */
  assert_int_equal(st.end_of_frame, 1);
  assert_int_equal(st.filtered, 6);
  assert_int_equal(st.records, 9);
  assert_int_equal(st.malformed, 0);

  walk_all(&set, ZVM_DOMAIN_BIT(ZVM_DOMAIN_IO), &c, &st);
  assert_int_equal(c.n, 2);
  assert_int_equal(c.rec[0].domain, 6);
  assert_int_equal(st.filtered, 7);
  tb_frames_free(&f);
  tb_free(&rec);
  tb_free(&set);
  tb_free(&other);
}

/* Unknown domains (even > 15) are walked past by their length. */
static void test_walk_unknown_records(void **state) {
  (void)state;
  struct tb rs, set;
  tb_init(&rs);
  tb_init(&set);
  tb_record(&rs, 116, 0, 1, TOD_20261121);
  tb_record(&rs, 33, 200, 7, TOD_20261121);
  useite(&rs, "AFTER", 9, TOD_20261121);
  tb_record_set(&set, 0xE2, 0x8800, DCSS_BASE, &rs);

  struct collected c;
  struct zvm_walk_stats st;
  walk_all(&set, ZVM_DOMAINS_ALL, &c, &st);
  assert_int_equal(st.records, 3);
  assert_int_equal(c.n, 2); /* domain 200 cannot be selected */
  assert_int_equal(st.filtered, 1);
  assert_int_equal(c.rec[0].len, 116);
  assert_int_equal(rec_u32(&c.rec[1], 116), 9);
  tb_free(&rs);
  tb_free(&set);
}

static void test_walk_stats_add(void **state) {
  (void)state;
  struct zvm_walk_stats a = {1, 2, 3, 4, 5, 6, 7, 8};
  struct zvm_walk_stats b = {10, 20, 30, 40, 50, 60, 70, 80};
  zvm_walk_stats_add(&a, &b);
  assert_int_equal(a.record_sets, 11);
  assert_int_equal(a.mce_rejected, 22);
  assert_int_equal(a.records, 33);
  assert_int_equal(a.malformed, 44);
  assert_int_equal(a.filtered, 55);
  assert_int_equal(a.end_of_frame, 66);
  assert_int_equal(a.interval_end, 77);
  assert_int_equal(a.padding_bytes, 88);
}

/* --------------------------------------------------------------- TOD ---- */

static void test_tod_conversion(void **state) {
  (void)state;
  uint64_t us = 42;
  /* Values computed by hand: (tod - 0x7D91048BCA000000) >> 12. */
  assert_true(zvm_tod_to_unix_us(UINT64_C(0x7D91048BCA000000), &us));
  assert_true(us == 0);
  assert_true(zvm_tod_to_unix_us(TOD_20261121, &us));
  assert_true(us == UINT64_C(1795219200000000));
  assert_true(zvm_tod_to_unix_us(UINT64_C(0xB361183F48000000), &us));
  assert_true(us == UINT64_C(946684800000000)); /* 2000-01-01 */
  /* sub-microsecond bits are dropped */
  assert_true(zvm_tod_to_unix_us(UINT64_C(0xDD2A3F0E5B4C1FFF), &us));
  assert_true(us == UINT64_C(1681787460326593));
  assert_true(zvm_tod_to_unix_us(UINT64_C(0xFFFFFFFFFFFFFFFF), &us));
  assert_true(us == UINT64_C(2294610827370495)); /* 2042-09-17 */
  us = 42;
  assert_false(zvm_tod_to_unix_us(UINT64_C(0x7D91048BC9FFFFFF), &us));
  assert_false(zvm_tod_to_unix_us(0, &us));
  assert_true(us == 42);
  /* the builder agrees */
  assert_true(tb_tod(1795219200, 0) == TOD_20261121);
}

/* ------------------------------------------------------------- names ---- */

static int format(const char *ascii, char *out, size_t size) {
  uint8_t e[8];
  struct tb b;
  tb_init(&b);
  tb_ebcdic(&b, ascii, 8);
  memcpy(e, b.data, 8);
  tb_free(&b);
  return zvm_name_format(e, 8, out, size);
}

static void test_name_format(void **state) {
  (void)state;
  char out[ZVM_NAME_MAX];
  assert_int_equal(format("LINUX07", out, sizeof(out)), 7);
  assert_string_equal(out, "LINUX07");
  assert_int_equal(format("A@#$_-+9", out, sizeof(out)), 8);
  assert_string_equal(out, "A@#$_-+9");
  assert_int_equal(format("TCPIP", out, sizeof(out)), 5);
  assert_string_equal(out, "TCPIP");
  /* blanks, separators and lower case are escaped, never passed through */
  assert_int_equal(format("A B", out, sizeof(out)), 5);
  assert_string_equal(out, "A%40B");
  assert_int_equal(format("a/b.c:", out, sizeof(out)), 18);
  assert_string_equal(out, "%81%61%82%4B%83%7A");
  /* all blank: no name */
  assert_int_equal(format("", out, sizeof(out)), -1);
  /* too small an output buffer is refused, not overrun */
  assert_int_equal(format("LINUX07", out, 7), -1);
  assert_string_equal(out, ""); /* nothing half-written is left behind */
  assert_int_equal(format("LINUX07", out, 8), 7);

  const uint8_t raw[8] = {0xD3, 0x00, 0x15, 0xFF, 0x40, 0x40, 0x00, 0x00};
  assert_int_equal(zvm_name_format(raw, 8, out, sizeof(out)), 10);
  assert_string_equal(out, "L%00%15%FF");
  assert_int_equal(zvm_name_format(raw, 8, out, 10), -1);
}

/* Every byte value, in every position: only safe characters come out. */
static void test_name_format_every_byte(void **state) {
  (void)state;
  char out[ZVM_NAME_MAX];
  for (unsigned v = 0; v < 256; v++) {
    for (unsigned pos = 0; pos < 8; pos++) {
      uint8_t e[8] = {0xC1, 0xC1, 0xC1, 0xC1, 0xC1, 0xC1, 0xC1, 0xC1};
      e[pos] = (uint8_t)v;
      int n = zvm_name_format(e, 8, out, sizeof(out));
      assert_true(n > 0 && n < (int)sizeof(out));
      assert_int_equal(strlen(out), (size_t)n);
      for (int i = 0; i < n; i++)
        assert_non_null(
            strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@#$_-+%", out[i]));
    }
  }
  /* Distinct inputs never collide. */
  char seen[256][ZVM_NAME_MAX];
  for (unsigned v = 0; v < 256; v++) {
    uint8_t e[2] = {0xC1, (uint8_t)v};
    zvm_name_format(e, 2, seen[v], sizeof(seen[v]));
    for (unsigned u = 0; u < v; u++) {
      /* trailing blank and NUL are trimmed: both mean "A" */
      if ((u == 0x00 || u == 0x40) && (v == 0x00 || v == 0x40))
        continue;
      assert_string_not_equal(seen[u], seen[v]);
    }
  }
  assert_int_equal(zvm_ebcdic_to_latin1(0xC1), 'A');
  assert_int_equal(zvm_ebcdic_to_latin1(0xF0), '0');
  assert_int_equal(zvm_ebcdic_to_latin1(0x40), ' ');
  assert_int_equal(zvm_ebcdic_to_latin1(0x81), 'a');
  assert_int_equal(zvm_ebcdic_to_latin1(0x7C), '@');
  assert_int_equal(zvm_ebcdic_to_latin1(0x5B), '$');
  assert_int_equal(zvm_ebcdic_to_latin1(0x7B), '#');
  assert_int_equal(zvm_ebcdic_to_latin1(0x6D), '_');
}

static void test_domain_names(void **state) {
  (void)state;
  assert_int_equal(zvm_domain_from_name("system"), 0);
  assert_int_equal(zvm_domain_from_name("Monitor"), 1);
  assert_int_equal(zvm_domain_from_name("USER"), 4);
  assert_int_equal(zvm_domain_from_name("processor"), 5);
  assert_int_equal(zvm_domain_from_name("i/o"), 6);
  assert_int_equal(zvm_domain_from_name("virtual_network"), 8);
  assert_int_equal(zvm_domain_from_name("appldata"), 10);
  assert_int_equal(zvm_domain_from_name("ssi"), 11);
  assert_int_equal(zvm_domain_from_name("7"), 7);
  assert_int_equal(zvm_domain_from_name("15"), 15);
  assert_int_equal(zvm_domain_from_name("16"), -1);
  assert_int_equal(zvm_domain_from_name("-1"), -1);
  assert_int_equal(zvm_domain_from_name("004"), -1);
  assert_int_equal(zvm_domain_from_name("users"), -1);
  assert_int_equal(zvm_domain_from_name(""), -1);
  assert_int_equal(zvm_domain_from_name(NULL), -1);
  assert_string_equal(zvm_domain_name(4), "user");
  assert_string_equal(zvm_domain_name(6), "i/o");
  assert_null(zvm_domain_name(12));
  assert_null(zvm_domain_name(99));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_be_unsigned),
      cmocka_unit_test(test_be_bounds),
      cmocka_unit_test(test_be_signed),
      cmocka_unit_test(test_mce_fields),
      cmocka_unit_test(test_mce_rejects),
      cmocka_unit_test(test_walk_one_record_set),
      cmocka_unit_test(test_walk_several_record_sets),
      cmocka_unit_test(test_walk_frames_and_padding),
      cmocka_unit_test(test_walk_eof_at_record_set_end),
      cmocka_unit_test(test_walk_bad_headers),
      cmocka_unit_test(test_walk_truncated_set),
      cmocka_unit_test(test_walk_rejected_mce_ends_set),
      cmocka_unit_test(test_walk_domain_selection),
      cmocka_unit_test(test_walk_unknown_records),
      cmocka_unit_test(test_walk_stats_add),
      cmocka_unit_test(test_tod_conversion),
      cmocka_unit_test(test_name_format),
      cmocka_unit_test(test_name_format_every_byte),
      cmocka_unit_test(test_domain_names),
  };
  return cmocka_run_group_tests_name("decoder", tests, NULL, NULL);
}
