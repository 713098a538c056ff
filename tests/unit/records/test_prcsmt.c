/* SPDX-License-Identifier: MIT */
/*
 * D5R21 MRPRCSMT (multithreading configuration, IBM's page for z/VM
 * V6R4.0; plugin/records/prcsmt.c): the fixed part and the CPUTINFO array
 * decoded field by field from bytes written at IBM's offsets, entries of
 * every count and size, and every bound of the array.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <math.h>

#include <cmocka.h>

#include "builder.h"
#include "prcsmt_record.h"
#include "record_fields.h"
#include "records/catalog.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/records.h"

static void check_entries(const struct zvm_array_view *v,
                          const struct cputinfo *want, unsigned cnt) {
  const struct zvm_array *a = &zvm_rec_prcsmt.arrays[0];
  static const char *names[] = {"PRCSMT_CAL_CPUTYPE",  "PRCSMT_CAL_RCCCOMNT",
                                "PRCSMT_CAL_RCCHWMNT", "PRCSMT_CAL_RCCSYMNT",
                                "PRCSMT_CAL_RCCACMNT", "PRCSMT_CAL_RCCSMMNT",
                                "PRCSMT_CAL_RCCCRMNT"};
  assert_int_equal(v->count, cnt);
  for (unsigned i = 0; i < cnt; i++) {
    const uint8_t *e = zvm_array_entry(v, i);
    const uint8_t w[7] = {want[i].type, want[i].co, want[i].hw, want[i].sy,
                          want[i].ac,   want[i].sm, want[i].cr};
    for (unsigned k = 0; k < 7; k++) {
      const struct zvm_field *f = entry_field(a, names[k]);
      assert_int_equal(f->offset,
                       k); /* IBM MRPRCSMT (z/VM V6R4.0): one byte each, 0..6 */
      uint64_t got = 0;
      assert_true(zvm_field_u64(f, e, v->entry_size, 0, &got));
      assert_int_equal(got, w[k]);
    }
  }
}

static void test_prcsmt_fixed_part(void **state) {
  (void)state;
  struct tb b;
  tb_init(&b);
  build_prcsmt(&b, PRCSMT_CAL_START, five, 1, 8, 36, 44);
  const struct zvm_record_desc *d = &zvm_rec_prcsmt;
  assert_ptr_equal(zvm_record_find(5, 21), d);
  static const struct {
    const char *name;
    unsigned off, width;
    uint64_t want;
  } fixed[] = {
      {"PRCSMT_RCCSMTSQ", 20, 4, 7},      {"PRCSMT_CAL_STATUS", 24, 1, 0x80},
      {"PRCSMT_CALMAXTC", 25, 1, 2},      {"PRCSMT_RCCCOALL", 26, 1, 0xFF},
      {"PRCSMT_RCCSMALL", 27, 1, 1},      {"PRCSMT_RCCSMSET", 28, 1, 0x80},
      {"PRCSMT_CAL_CPUTACNT", 29, 1, 1},  {"PRCSMT_CAL_CPUTAESZ", 30, 2, 8},
      {"PRCSMT_CAL_CPUTAOFF", 32, 2, 36},
  };
  /* Every field of IBM MRPRCSMT (z/VM V6R4.0), plus the MAX flags of RCCCOALL
   * and RCCSMALL (second views of their bytes). */
  assert_int_equal(d->main.nfields, sizeof(fixed) / sizeof(fixed[0]) + 2);
  for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
    const struct zvm_field *f = field(d, fixed[i].name);
    assert_int_equal(f->offset, fixed[i].off);
    assert_int_equal(f->width, fixed[i].width);
    uint64_t v;
    assert_true(zvm_field_u64(f, b.data, b.len, 0, &v));
    assert_int_equal(v, fixed[i].want);
  }
  /* The array entry's fields the hooks read, by name. */
  assert_int_equal(entry_field(&d->arrays[0], "PRCSMT_CAL_CPUTYPE")->offset, 0);
  assert_int_equal(entry_field(&d->arrays[0], "PRCSMT_CAL_RCCACMNT")->offset,
                   4);

  /* Values (IBM MRPRCSMT, z/VM V6R4.0): X'FF' in RCCCOALL is MAX: NaN, never
   * 255, and its flag is 1; RCCSMALL 1 is a count, flag 0; RCCSMSET X'80' is
   * INITIAL. */
  static const struct {
    const char *metric;
    double want; /* NaN: NaN */
  } values[] = {
      {"mt_config_seq", 7},   {"mt_max_threads", 2},
      {"statement_all", NAN}, {"statement_all_is_max", 1},
      {"set_all", 1},         {"set_all_is_max", 0},
      {"set_initial", 1},
  };
  for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
    const struct zvm_field *f = NULL;
    for (size_t k = 0; k < d->main.nfields; k++)
      if (strcmp(d->main.fields[k].metric, values[i].metric) == 0)
        f = &d->main.fields[k];
    if (f == NULL)
      fail_msg("no field %s", values[i].metric);
    int64_t x;
    double g = -1;
    assert_true(zvm_field_value(f, b.data, b.len, 0, &x, &g));
    if (isnan(values[i].want))
      assert_true(isnan(g));
    else if (g != values[i].want)
      fail_msg("%s: %g, want %g", values[i].metric, g, values[i].want);
  }
  tb_put_u8(&b, 28, 0x7F); /* every bit but RCCSMINI */
  for (size_t k = 0; k < d->main.nfields; k++)
    if (strcmp(d->main.fields[k].metric, "set_initial") == 0) {
      int64_t x;
      double g = -1;
      assert_true(
          zvm_field_value(&d->main.fields[k], b.data, b.len, 0, &x, &g));
      assert_true(g == 0);
    }
  tb_free(&b);
}

static void test_prcsmt_cputinfo_counts(void **state) {
  (void)state;
  struct tb b;
  struct zvm_array_view v;
  const struct zvm_array *a = &zvm_rec_prcsmt.arrays[0];
  tb_init(&b);

  build_prcsmt(&b, 0x40, NULL, 0, 8, 36, 36); /* no entries */
  assert_int_equal(zvm_array_locate(a, b.data, b.len, &v), ZVM_ARRAY_OK);
  assert_int_equal(v.count, 0);

  tb_reset(&b);
  build_prcsmt(&b, 0x40, five + 2, 1, 8, 36, 44); /* one: IFL */
  assert_int_equal(zvm_array_locate(a, b.data, b.len, &v), ZVM_ARRAY_OK);
  check_entries(&v, five + 2, 1);

  tb_reset(&b);
  build_prcsmt(&b, 0x40, five, 5, 8, 36, 76); /* many */
  assert_int_equal(zvm_array_locate(a, b.data, b.len, &v), ZVM_ARRAY_OK);
  check_entries(&v, five, 5);

  /* A newer level with a longer entry and the array further out. */
  tb_reset(&b);
  build_prcsmt(&b, 0x40, five, 5, 12, 40, 100);
  assert_int_equal(zvm_array_locate(a, b.data, b.len, &v), ZVM_ARRAY_OK);
  assert_int_equal(v.entry_size, 12);
  check_entries(&v, five, 5);
  tb_free(&b);
}

static void test_prcsmt_cputinfo_bounds(void **state) {
  (void)state;
  struct tb b;
  struct zvm_array_view v;
  const struct zvm_array *a = &zvm_rec_prcsmt.arrays[0];
  tb_init(&b);

  /* last entry one byte past MRHDRLEN */
  build_prcsmt(&b, 0x40, five, 5, 8, 36, 76);
  tb_put_u16(&b, 0, 75); /* MRHDRLEN, as the walker would pass it */
  assert_int_equal(zvm_array_locate(a, b.data, 75, &v), ZVM_ARRAY_BAD);
  assert_int_equal(zvm_array_locate(a, b.data, 76, &v), ZVM_ARRAY_OK);
  /* offset pointing outside the record */
  tb_reset(&b);
  build_prcsmt(&b, 0x40, five, 1, 8, 36, 44);
  tb_put_u16(&b, 32, 0xFFF0);
  assert_int_equal(zvm_array_locate(a, b.data, b.len, &v), ZVM_ARRAY_BAD);
  /* offset into the header */
  tb_put_u16(&b, 32, 8);
  assert_int_equal(zvm_array_locate(a, b.data, b.len, &v), ZVM_ARRAY_BAD);
  /* entry size 0 with entries */
  tb_put_u16(&b, 32, 36);
  tb_put_u16(&b, 30, 0);
  assert_int_equal(zvm_array_locate(a, b.data, b.len, &v), ZVM_ARRAY_BAD);
  /* huge count x size */
  tb_put_u8(&b, 29, 255);
  tb_put_u16(&b, 30, 0xFFFF);
  assert_int_equal(zvm_array_locate(a, b.data, b.len, &v), ZVM_ARRAY_BAD);
  /* record too short to say where the array is */
  tb_reset(&b);
  build_prcsmt(&b, 0x40, NULL, 0, 8, 36, 36);
  assert_int_equal(zvm_array_locate(a, b.data, 33, &v), ZVM_ARRAY_ABSENT);

  /* A smaller entry than the table: only the bytes it has are fields. */
  tb_reset(&b);
  build_prcsmt(&b, 0x40, five + 1, 2, 4, 36, 44);
  assert_int_equal(zvm_array_locate(a, b.data, b.len, &v), ZVM_ARRAY_OK);
  assert_int_equal(v.entry_size, 4);
  uint64_t got;
  const uint8_t *e1 = zvm_array_entry(&v, 1);
  assert_true(zvm_field_u64(entry_field(a, "PRCSMT_CAL_RCCSYMNT"), e1,
                            v.entry_size, 0, &got));
  assert_int_equal(got, five[2].sy);
  assert_false(zvm_field_u64(entry_field(a, "PRCSMT_CAL_RCCACMNT"), e1,
                             v.entry_size, 0, &got));
  tb_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_prcsmt_fixed_part),
      cmocka_unit_test(test_prcsmt_cputinfo_counts),
      cmocka_unit_test(test_prcsmt_cputinfo_bounds),
  };
  return cmocka_run_group_tests_name("prcsmt", tests, NULL, NULL);
}
