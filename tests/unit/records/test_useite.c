/* SPDX-License-Identifier: MIT */
/*
 * D4R10 MRUSEITE (user activity, IBM's page for z/VM V6R2.0;
 * plugin/records/useite.c): its table decoded field by field from bytes
 * written at IBM's offsets, with a distinct value in every field so a
 * wrong offset or width cannot pass; signed and unsigned, shorter and
 * longer records. (Its mapping, the per-VMDBK sums included, is tested
 * in tests/unit/mapper/test_mapper.c.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "builder.h"
#include "record_fields.h"
#include "records/catalog.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/records.h"

/* IBM MRUSEITE (z/VM V6R2.0), typed in again from the document:
 * name, decimal offset, length, signed. */
static const struct {
  const char *name;
  unsigned offset, width;
  bool is_signed;
  unsigned count;
} useite_ibm[] = {
    {"USEITE_VMDCPUAD", 28, 2, false, 1},
    {"USEITE_VMDSLCNT", 30, 2, true, 1},
    {"USEITE_VMDSVMFX", 32, 4, false, 1},
    {"USEITE_VMDSVMWT", 44, 1, false, 1},
    {"USEITE_VMDSVMW2", 45, 1, false, 1},
    {"USEITE_VMDRDYCM", 46, 1, false, 1},
    {"USEITE_CALFLAG1", 47, 1, false, 1},
    {"USEITE_HFQUCT", 48, 4, false, 1},
    {"USEITE_HFDISP0", 52, 4, false, 1},
    {"USEITE_HFDISP1", 56, 4, false, 1},
    {"USEITE_HFDISP2", 60, 4, false, 1},
    {"USEITE_HFDISP3", 64, 4, false, 1},
    {"USEITE_HFELIG0", 68, 4, false, 1},
    {"USEITE_HFELIG1", 72, 4, false, 1},
    {"USEITE_HFELIG2", 76, 4, false, 1},
    {"USEITE_HFELIG3", 80, 4, false, 1},
    {"USEITE_HFSTCT", 84, 4, false, 1},
    {"USEITE_HFTIDL", 88, 4, false, 1},
    {"USEITE_HFTSVM", 92, 4, false, 1},
    {"USEITE_HFIOWT", 96, 4, false, 1},
    {"USEITE_HFCFWT", 100, 4, false, 1},
    {"USEITE_HFSIMWT", 104, 4, false, 1},
    {"USEITE_HFWTPAG", 108, 4, false, 1},
    {"USEITE_HFCPUWT", 112, 4, false, 1},
    {"USEITE_HFCPURN", 116, 4, false, 1},
    {"USEITE_HFESVM", 120, 4, false, 1},
    {"USEITE_HFLOAD", 124, 4, false, 1},
    {"USEITE_HFDORM", 128, 4, false, 1},
    {"USEITE_HFDSVM", 132, 4, true, 1},
    {"USEITE_HFOTHR", 136, 4, false, 1},
    {"USEITE_VMDCNTID", 140, 2, false, 1},
    {"USEITE_VMDCTIDL", 142, 2, false, 1},
    {"USEITE_VMDDFRWK", 144, 4, false, 1},
    {"USEITE_VMDSTATE", 148, 1, false, 1},
    {"USEITE_CALOSTAT", 149, 1, false, 1},
    {"USEITE_CALRSTAT", 150, 1, false, 1},
    {"USEITE_VMDCPRMD", 152, 2, false, 4},
    {"USEITE_VMDCWSGD", 160, 2, false, 4},
    {"USEITE_VMDCETSD", 168, 2, false, 4},
    {"USEITE_VMDCIDLD", 176, 2, false, 4},
    {"USEITE_HFIOACT", 184, 4, false, 1},
    {"USEITE_HFLLIST", 188, 4, false, 1},
    {"USEITE_HFPGACT", 192, 4, false, 1},
    {"USEITE_VMDPUTYP", 196, 1, false, 1},
    {"USEITE_VMDCFGEM", 197, 1, false, 1},
    {"USEITE_VMDPUST", 198, 1, false, 1},
};
#define USEITE_IBM_COUNT (sizeof(useite_ibm) / sizeof(useite_ibm[0]))

/* A value unique to (field, element) that fills the whole width, with the
 * top bit set so that unsigned counters above 2^31 are exercised. */
static uint64_t distinct(unsigned i, unsigned elem, unsigned width) {
  uint64_t v = 0x80u | (i << 1) | (elem << 7);
  for (unsigned b = 1; b < width; b++)
    v = (v << 8) | ((i * 7 + elem * 3 + b * 29) & 0xFF);
  return v & (width == 8 ? UINT64_MAX : ((UINT64_C(1) << (width * 8)) - 1));
}

static void put(struct tb *b, size_t off, unsigned width, uint64_t v) {
  switch (width) {
  case 1:
    tb_put_u8(b, off, (uint8_t)v);
    break;
  case 2:
    tb_put_u16(b, off, (uint16_t)v);
    break;
  case 4:
    tb_put_u32(b, off, (uint32_t)v);
    break;
  default:
    tb_put_u64(b, off, v);
  }
}

static void build_useite(struct tb *b, uint16_t len) {
  size_t r = tb_record(b, len, 4, 10, TOD);
  size_t n = len < 200 ? len : 200;
  struct tb full;
  tb_init(&full);
  tb_record(&full, 200, 4, 10, TOD);
  tb_put_ebcdic(&full, 20, "LINUX07", 8);
  tb_put_ebcdic(&full, 36, "TCPIP", 8);
  for (unsigned i = 0; i < USEITE_IBM_COUNT; i++)
    for (unsigned e = 0; e < useite_ibm[i].count; e++)
      put(&full, useite_ibm[i].offset + (size_t)e * useite_ibm[i].width,
          useite_ibm[i].width, distinct(i, e, useite_ibm[i].width));
  memcpy(b->data + r + 20, full.data + 20, n - 20);
  tb_free(&full);
}

static void test_useite_every_field(void **state) {
  (void)state;
  const struct zvm_record_desc *d = &zvm_rec_useite;
  assert_ptr_equal(zvm_record_find(4, 10), d);
  assert_int_equal(d->length, 200);
  /* The table has exactly IBM's fields plus the two text fields and
   * the record count (transactions). */
  assert_int_equal(d->main.nfields, USEITE_IBM_COUNT + 3);
  assert_null(d->main.fields[0].ibm_name);
  assert_string_equal(d->main.fields[0].metric, "transactions");
  assert_int_equal(d->main.fields[0].type, ZVM_TYPE_RECORD_COUNT);
  assert_string_equal(d->main.type_name, "zvm_useite");
  assert_int_equal(d->main.key.nparts, 1);
  assert_int_equal(d->main.key.part[0].kind, ZVM_KEY_USERID);
  assert_ptr_equal(&d->main.fields[d->main.key.part[0].field],
                   field(d, "USEITE_VMDUSER"));

  struct tb b;
  tb_init(&b);
  build_useite(&b, 200);
  for (unsigned i = 0; i < USEITE_IBM_COUNT; i++) {
    const struct zvm_field *f = field(d, useite_ibm[i].name);
    assert_int_equal(f->offset, useite_ibm[i].offset);
    assert_int_equal(f->width, useite_ibm[i].width);
    assert_int_equal(f->count, useite_ibm[i].count);
    assert_int_equal(f->type == ZVM_TYPE_SIGNED, useite_ibm[i].is_signed);
    for (unsigned e = 0; e < f->count; e++) {
      uint64_t raw = 0;
      assert_true(zvm_field_u64(f, b.data, b.len, e, &raw));
      if (raw != distinct(i, e, f->width))
        fail_msg("%s[%u]: got %#llx", f->ibm_name, e, (unsigned long long)raw);
      int64_t v = 0;
      assert_true(zvm_field_i64(f, b.data, b.len, e, &v));
      if (f->type == ZVM_TYPE_SIGNED)
        assert_true(v < 0); /* the top bit is set in every value */
      else
        assert_true(v > 0 && (uint64_t)v == raw);
    }
    assert_false(zvm_field_present(f, b.len, f->count));
  }
  /* Text fields: the user ID and the SVM partner. */
  char name[ZVM_NAME_MAX];
  const struct zvm_field *u = field(d, "USEITE_VMDUSER");
  assert_string_equal(u->ibm_name, "USEITE_VMDUSER");
  assert_int_equal(u->offset, 20);
  assert_int_equal(u->kind, ZVM_FIELD_TEXT);
  assert_int_equal(
      zvm_name_format(b.data + u->offset, u->width, name, sizeof(name)), 7);
  assert_string_equal(name, "LINUX07");
  const struct zvm_field *svm = field(d, "USEITE_VMDSVMID");
  assert_int_equal(svm->offset, 36);
  assert_int_equal(svm->width, 8);
  assert_int_equal(
      zvm_name_format(b.data + svm->offset, svm->width, name, sizeof(name)), 5);
  assert_string_equal(name, "TCPIP");
  uint64_t dummy;
  assert_false(zvm_field_u64(u, b.data, b.len, 0, &dummy)); /* not numeric */

  assert_int_equal(field(d, "USEITE_VMDPUTYP")->offset, 196);

  /* The dispatch-queue arrays declare "_q" in their rows. */
  const struct zvm_field *q = field(d, "USEITE_VMDCIDLD");
  assert_int_equal(q->count, 4);
  assert_int_equal(zvm_field_element_name(q, 3, name, sizeof(name)), 11);
  assert_string_equal(name, "vmdcidld_q3");
  tb_free(&b);
}

static void test_useite_signed_and_unsigned(void **state) {
  (void)state;
  struct tb b;
  tb_init(&b);
  build_useite(&b, 200);
  tb_put_u16(&b, 30, 0xFFFF);      /* VMDSLCNT, Signed 2 */
  tb_put_u32(&b, 132, 0xFFFFFFFE); /* HFDSVM, Signed 4 */
  tb_put_u32(&b, 116, 0xFFFFFFFE); /* HFCPURN, Unsigned 4 */
  int64_t v;
  assert_true(zvm_field_i64(field(&zvm_rec_useite, "USEITE_VMDSLCNT"), b.data,
                            b.len, 0, &v));
  assert_true(v == -1);
  assert_true(zvm_field_i64(field(&zvm_rec_useite, "USEITE_HFDSVM"), b.data,
                            b.len, 0, &v));
  assert_true(v == -2);
  assert_true(zvm_field_i64(field(&zvm_rec_useite, "USEITE_HFCPURN"), b.data,
                            b.len, 0, &v));
  assert_true(v == INT64_C(4294967294));
  tb_free(&b);
}

/* A shorter record (older level or cut): only fully contained fields. */
static void test_useite_short_record(void **state) {
  (void)state;
  struct tb b;
  tb_init(&b);
  build_useite(&b, 121);
  const struct zvm_record_desc *d = &zvm_rec_useite;
  uint64_t v;
  assert_true(zvm_field_u64(field(d, "USEITE_HFCPURN"), b.data, b.len, 0, &v));
  assert_int_equal(v, distinct(24, 0, 4)); /* ends at 120: present */
  assert_false(zvm_field_u64(field(d, "USEITE_HFESVM"), b.data, b.len, 0,
                             &v)); /* 120..123 only partly there */
  assert_false(
      zvm_field_present(field(d, "USEITE_VMDCPRMD"), b.len, 0)); /* 152 */
  size_t present = 0;
  for (size_t i = 0; i < d->main.nfields; i++)
    if (zvm_field_present(&d->main.fields[i], b.len, 0))
      present++;
  assert_int_equal(present, 27); /* VMDUSER .. HFCPURN */

  /* Array elements are judged one by one. */
  tb_reset(&b);
  build_useite(&b, 156);
  assert_true(zvm_field_present(field(d, "USEITE_VMDCPRMD"), b.len, 1));
  assert_false(zvm_field_present(field(d, "USEITE_VMDCPRMD"), b.len, 2));
  assert_true(zvm_field_u64(field(d, "USEITE_VMDCPRMD"), b.data, b.len, 1, &v));
  assert_int_equal(v, distinct(36, 1, 2));
  tb_free(&b);
}

/* A longer record (newer z/VM): the known part decodes unchanged. */
static void test_useite_longer_record(void **state) {
  (void)state;
  struct tb b;
  tb_init(&b);
  build_useite(&b, 200);
  size_t before = b.len;
  tb_fill(&b, 0xA5, 56);
  tb_put_u16(&b, 0, (uint16_t)(before + 56));
  uint64_t v;
  const struct zvm_field *f = field(&zvm_rec_useite, "USEITE_HFPGACT");
  assert_true(zvm_field_u64(f, b.data, b.len, 0, &v));
  assert_int_equal(v, distinct(42, 0, 4));
  tb_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_useite_every_field),
      cmocka_unit_test(test_useite_signed_and_unsigned),
      cmocka_unit_test(test_useite_short_record),
      cmocka_unit_test(test_useite_longer_record),
  };
  return cmocka_run_group_tests_name("useite", tests, NULL, NULL);
}
