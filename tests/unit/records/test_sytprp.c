/* SPDX-License-Identifier: MIT */
/*
 * D0R2 MRSYTPRP (processor data; plugin/records/sytprp.c): its table is
 * IBM's (z/VM 6.4 page mon640/MRSYTPRP.HTML), its values decoded from bytes
 * written at IBM's offsets. (Its mapping, and records defined in
 * collectd.conf: tests/unit/mapper/test_sytprp_map.c.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "builder.h"
#include "engine/check.h"
#include "records/catalog.h"
#include "sytprp_record.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/records.h"

#define SEC 1700000000u

/* The built-in table is IBM's: exactly the four confirmed fields. */
static void test_table(void **state) {
  (void)state;
  const struct zvm_record_desc *d = zvm_record_find(0, 2);
  assert_ptr_equal(d, &zvm_rec_sytprp);
  static const struct {
    const char *ibm;
    unsigned off, width;
    enum zvm_field_type type;
    enum zvm_field_kind kind;
  } want[] = {
      {"SYTPRP_PFXCPUAD", 20, 2, ZVM_TYPE_UNSIGNED, ZVM_FIELD_ID},
      {"SYTPRP_PLSCUHAF", 22, 2, ZVM_TYPE_UNSIGNED, ZVM_FIELD_COUNTER},
      {"SYTPRP_PFXPRBTM", 24, 8, ZVM_TYPE_CPU_TIMER, ZVM_FIELD_COUNTER},
      {"SYTPRP_PFXUTIME", 32, 8, ZVM_TYPE_CPU_TIMER, ZVM_FIELD_COUNTER},
  };
  assert_int_equal(d->main.nfields, 4);
  for (size_t i = 0; i < 4; i++) {
    const struct zvm_field *fl = &d->main.fields[i];
    assert_string_equal(fl->ibm_name, want[i].ibm);
    assert_int_equal(fl->offset, want[i].off);
    assert_int_equal(fl->width, want[i].width);
    assert_int_equal(fl->type, want[i].type);
    assert_int_equal(fl->kind, want[i].kind);
    assert_int_equal(fl->flags, i == 2 ? ZVM_FIELD_DECREMENTS : 0);
  }
  assert_string_equal(d->main.type_name, "zvm_sytprp");
  assert_int_equal(d->main.key.nparts, 1);
  assert_int_equal(d->main.key.part[0].kind, ZVM_KEY_NUMBER);
  assert_int_equal(d->main.key.part[0].field, 0);
  char err[256];
  if (zvm_record_check(d, err, sizeof(err)) != 0)
    fail_msg("%s", err);
}

/* Field values from bytes: the down-counting timer grows, sub-microsecond
 * bits are dropped, a timer run past zero keeps growing. */
static void test_field_values(void **state) {
  (void)state;
  struct tb rs;
  tb_init(&rs);
  sytprp(&rs, 352, tb_tod(SEC, 0), 7, 65535, 1234567, 7654321);
  const struct zvm_field *fl = zvm_rec_sytprp.main.fields;
  int64_t d;
  double g;
  assert_true(zvm_field_value(&fl[1], rs.data, rs.len, 0, &d, &g));
  assert_int_equal(d, 65535);
  assert_true(zvm_field_value(&fl[2], rs.data, rs.len, 0, &d, &g));
  assert_int_equal(d, down_us(1234567));
  /* X'7FFFFFFFFFFFFFFF' - X'7FFFFFFF00000000' is 0xFFFFFFFF: 1048575 us
   * more than the time used, a constant that no rate sees. */
  assert_int_equal(d, 1234567 + ((UINT64_C(0xFFFFFFFF) + 0x123) >> 12));
  assert_true(zvm_field_value(&fl[3], rs.data, rs.len, 0, &d, &g));
  assert_int_equal(d, 7654321);
  /* The key field is not a value. */
  assert_false(zvm_field_value(&fl[0], rs.data, rs.len, 0, &d, &g));

  /* PFXPRBTM below zero (negative as a signed timer). */
  tb_put_u64(&rs, 24, UINT64_C(0xFFFFFFFFFFFFF000));
  assert_true(zvm_field_value(&fl[2], rs.data, rs.len, 0, &d, &g));
  assert_int_equal(d, (int64_t)((UINT64_C(0x7FFFFFFFFFFFFFFF) -
                                 UINT64_C(0xFFFFFFFFFFFFF000)) >>
                                12));
  assert_true(d > (int64_t)(UINT64_C(0x7FFFFFFFFFFFFFFF) >> 12));
  tb_free(&rs);
}

/* Two sample intervals, two processors: one value list per processor with
 * the documented data sources, and rates of CPU microseconds per second. */
int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table),
      cmocka_unit_test(test_field_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
