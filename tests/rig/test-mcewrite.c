/* SPDX-License-Identifier: MIT */
/*
 * The rig's writer of monitor bytes (mcewrite.c) against the layouts it
 * writes: the EBCDIC table against the C library's code page 037 (iconv
 * "IBM037"), the MRHDR (IBM, z/VM Performance, MRHDR), the MCE (the
 * kernel's drivers/s390/char/monreader.c, struct mon_mca_entry), the TOD
 * clock, the APPLDATA header and product IDs, 4 KB frames.
 */
#include "mcewrite.h"

#include <iconv.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

/* Every ASCII character: the table's code is code page 037's, and a
 * character outside the table is -1 (the writers refuse it). */
static void ebcdic_is_cp037(void **state) {
  (void)state;
  static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                              "abcdefghijklmnopqrstuvwxyz"
                              "0123456789 .+$-/%_?:#@";
  iconv_t cd = iconv_open("IBM037", "ASCII");
  unsigned in_table = 0;
  for (int c = 1; c < 128; c++) {
    int e = mw_ebcdic((char)c);
    if (strchr(table, c) == NULL) {
      assert_int_equal(e, -1);
      continue;
    }
    in_table++;
    assert_in_range(e, 0x40, 0xFF);
    if (cd != (iconv_t)-1) {
      char in = (char)c, out = 0, *ip = &in, *op = &out;
      size_t il = 1, ol = 1;
      assert_int_not_equal(iconv(cd, &ip, &il, &op, &ol), (size_t)-1);
      assert_int_equal(e, (uint8_t)out);
    }
  }
  assert_int_equal(in_table, strlen(table));
  if (cd != (iconv_t)-1)
    iconv_close(cd);
  /* Without the C library's tables, code page 037 as IBM prints it. */
  assert_int_equal(mw_ebcdic('A'), 0xC1);
  assert_int_equal(mw_ebcdic('J'), 0xD1);
  assert_int_equal(mw_ebcdic('S'), 0xE2);
  assert_int_equal(mw_ebcdic('z'), 0xA9);
  assert_int_equal(mw_ebcdic('0'), 0xF0);
  assert_int_equal(mw_ebcdic('$'), 0x5B);
  assert_int_equal(mw_ebcdic('#'), 0x7B);
  assert_int_equal(mw_ebcdic('@'), 0x7C);
}

/* A name blank padded to its field; nothing written beside it. */
static void ebcdic_name_padded(void **state) {
  (void)state;
  uint8_t b[12];
  memset(b, 0xEE, sizeof(b));
  mw_put_ebcdic(b, sizeof(b), 2, "LNX$1", 8);
  static const uint8_t want[12] = {0xEE, 0xEE, 0xD3, 0xD5, 0xE7, 0x5B,
                                   0xF1, 0x40, 0x40, 0x40, 0xEE, 0xEE};
  assert_memory_equal(b, want, sizeof(b));
  /* A longer name is cut to the field. */
  mw_put_ebcdic(b, sizeof(b), 0, "ABCDEFGHIJ", 4);
  assert_memory_equal(b, "\xC1\xC2\xC3\xC4", 4);
  assert_int_equal(b[4], 0xE7);
}

static void big_endian_fields(void **state) {
  (void)state;
  uint8_t b[16] = {0};
  mw_put(b, sizeof(b), 0, 2, 0x1234);
  mw_put(b, sizeof(b), 2, 4, 0x89ABCDEF);
  mw_put(b, sizeof(b), 6, 8, UINT64_C(0x0102030405060708));
  mw_put(b, sizeof(b), 14, 2, 0x1FFFF); /* only the field's bytes */
  static const uint8_t want[16] = {0x12, 0x34, 0x89, 0xAB, 0xCD, 0xEF,
                                   0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
                                   0x07, 0x08, 0xFF, 0xFF};
  assert_memory_equal(b, want, sizeof(b));
  uint64_t v = 0;
  assert_true(mw_get_be(b, sizeof(b), 2, 4, &v));
  assert_int_equal(v, 0x89ABCDEF);
  assert_int_equal(mw_load_be32(b + 2), 0x89ABCDEF);
  assert_int_equal(mw_load_be16(b), 0x1234);
  /* Outside the buffer: refused, nothing written. */
  assert_false(mw_put_be(b, sizeof(b), 15, 2, 0));
  assert_false(mw_get_be(b, sizeof(b), 17, 1, &v));
  assert_int_equal(b[15], 0xFF);
}

/* MRHDR: 0 MRHDRLEN, 2 MRHDRZER, 4 MRHDRDM, 6 MRHDRRC, 8 MRHDRTOD. */
static void mrhdr_layout(void **state) {
  (void)state;
  uint8_t r[24];
  memset(r, 0xEE, sizeof(r));
  mw_mrhdr(r, sizeof(r), 200, 4, 10, UINT64_C(0xD1A2B3C4D5E6F708));
  static const uint8_t want[20] = {0x00, 0xC8, 0x00, 0x00, 0x04, 0x00, 0x00,
                                   0x0A, 0xD1, 0xA2, 0xB3, 0xC4, 0xD5, 0xE6,
                                   0xF7, 0x08, 0x00, 0x00, 0x00, 0x00};
  assert_memory_equal(r, want, sizeof(want));
  assert_int_equal(r[20], 0xEE);
  mw_end_of_frame(r, MW_MRHDR_LEN, 0);
  assert_int_equal(mw_load_be16(r), 20);
  assert_int_equal(r[4], 1);
  assert_int_equal(mw_load_be16(r + 6), 13);
}

/* MCE: type, domain mask (2 bytes), a zero byte, start, end. */
static void mce_layout(void **state) {
  (void)state;
  uint8_t m[MW_MCE_LEN];
  memset(m, 0xEE, sizeof(m));
  mw_mce(m, MW_MCE_SAMPLE, MW_DOM(0) | MW_DOM(4) | MW_DOM(10), 0x0B000000,
         0x0B004461);
  static const uint8_t want[MW_MCE_LEN] = {0xE2, 0x88, 0x20, 0x00, 0x0B, 0x00,
                                           0x00, 0x00, 0x0B, 0x00, 0x44, 0x61};
  assert_memory_equal(m, want, sizeof(want));
}

/* TOD: bit 51 is one microsecond, 0 is 1900-01-01. */
static void tod_clock(void **state) {
  (void)state;
  assert_int_equal(mw_tod(0), UINT64_C(0x7D91048BCA000000));
  assert_int_equal(mw_tod(1), UINT64_C(0x7D91048BCA001000));
  /* 2042-09-17T23:53:47.370496Z: the clock wraps (modulo 2^64). */
  assert_int_equal(mw_tod(UINT64_C(2294610827370495)),
                   UINT64_MAX - UINT64_C(0xFFF));
  assert_int_equal(mw_tod(UINT64_C(2294610827370496)), 0);
}

static void appldata_header(void **state) {
  (void)state;
  uint8_t r[MW_APHDR_LEN + 4];
  memset(r, 0, sizeof(r));
  uint8_t prod[16];
  mw_apl_kernel_product(prod, 2, "01");
  static const uint8_t kernel[16] = {0xD3, 0xC9, 0xD5, 0xE4, 0xE7, 0xD2,
                                     0xD9, 0xD5, 0xD3, 0x02, 0xF2, 0xF6,
                                     0xF0, 0xF1, 0xF0, 0xF1};
  assert_memory_equal(prod, kernel, 16);
  mw_aphdr(r, sizeof(r), 4, "LNX001", prod);
  assert_int_equal(mw_load_be16(r + 20), 52); /* CALDATOF */
  assert_int_equal(mw_load_be16(r + 22), 4);  /* CALDATLN */
  assert_memory_equal(r + 24, "\xD3\xD5\xE7\xF0\xF0\xF1\x40\x40", 8);
  assert_memory_equal(r + 32, kernel, 16);
  mw_apl_tool_product(prod, 0x0102, 3, 0x0405);
  static const uint8_t tool[16] = {'L',  'N',  'X', 'A', 'P', 'P', 'L',  0x01,
                                   0x02, 0x03, 0,   0,   0,   0,   0x04, 0x05};
  assert_memory_equal(prod, tool, 16);
}

/* A record fits when 20 bytes stay free for the end-of-frame record. */
static void frames(void **state) {
  (void)state;
  assert_int_equal(mw_frame_left(0x09000000), 4096);
  assert_int_equal(mw_frame_left(0x09000FFF), 1);
  assert_int_equal(mw_frame_left(0x09001000), 4096);
  assert_true(mw_frame_fits(0x09000F00, 256 - 20));
  assert_false(mw_frame_fits(0x09000F00, 256 - 19));
  assert_true(mw_frame_fits(0x09000000, 4076));
  assert_false(mw_frame_fits(0x09000000, 4077));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(ebcdic_is_cp037),   cmocka_unit_test(ebcdic_name_padded),
      cmocka_unit_test(big_endian_fields), cmocka_unit_test(mrhdr_layout),
      cmocka_unit_test(mce_layout),        cmocka_unit_test(tod_clock),
      cmocka_unit_test(appldata_header),   cmocka_unit_test(frames),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
