/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the record descriptor tables: both seed records decoded
 * field by field from bytes written at the seed documents' offsets, with a
 * distinct value in every field so a wrong offset or width cannot pass.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <math.h>

#include <cmocka.h>

#include "builder.h"
#include "engine/check.h"
#include "engine/hooks.h"
#include "records/catalog.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/records.h"

/* PRCSMT_CAL_STATUS: the start of a change (IBM MRPRCSMT). */
#define PRCSMT_CAL_START 0x80

#define TOD UINT64_C(0xE39CE53726000000)

static const struct zvm_field *field(const struct zvm_record_desc *d,
                                     const char *ibm_name) {
  for (size_t i = 0; i < d->main.nfields; i++)
    if (d->main.fields[i].ibm_name != NULL &&
        strcmp(d->main.fields[i].ibm_name, ibm_name) == 0)
      return &d->main.fields[i];
  fail_msg("no field %s in %s", ibm_name, d->ibm_name);
  return NULL;
}

static const struct zvm_field *entry_field(const struct zvm_array *a,
                                           const char *ibm_name) {
  for (size_t i = 0; i < a->entry.nfields; i++)
    if (strcmp(a->entry.fields[i].ibm_name, ibm_name) == 0)
      return &a->entry.fields[i];
  fail_msg("no entry field %s", ibm_name);
  return NULL;
}

/* IBM MRUSEITE (z/VM V6R2.0), typed in again from the document:
 * name, decimal offset, length, signed. */
static const struct {
  const char *name;
  unsigned offset, width;
  bool is_signed;
  unsigned count;
} useite_seed[] = {
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
#define USEITE_SEED_COUNT (sizeof(useite_seed) / sizeof(useite_seed[0]))

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
  for (unsigned i = 0; i < USEITE_SEED_COUNT; i++)
    for (unsigned e = 0; e < useite_seed[i].count; e++)
      put(&full, useite_seed[i].offset + (size_t)e * useite_seed[i].width,
          useite_seed[i].width, distinct(i, e, useite_seed[i].width));
  memcpy(b->data + r + 20, full.data + 20, n - 20);
  tb_free(&full);
}

static void test_useite_every_field(void **state) {
  (void)state;
  const struct zvm_record_desc *d = &zvm_rec_useite;
  assert_ptr_equal(zvm_record_find(4, 10), d);
  assert_int_equal(d->length, 200);
  /* The table has exactly the seed's fields plus the two text fields and
   * the record count (transactions). */
  assert_int_equal(d->main.nfields, USEITE_SEED_COUNT + 3);
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
  for (unsigned i = 0; i < USEITE_SEED_COUNT; i++) {
    const struct zvm_field *f = field(d, useite_seed[i].name);
    assert_int_equal(f->offset, useite_seed[i].offset);
    assert_int_equal(f->width, useite_seed[i].width);
    assert_int_equal(f->count, useite_seed[i].count);
    assert_int_equal(f->type == ZVM_TYPE_SIGNED, useite_seed[i].is_signed);
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

/* Every table: fields inside the documented length, no two overlap, the
 * metric name is the lower-case IBM name without the record prefix. */
static void test_table_consistency(void **state) {
  (void)state;
  assert_int_equal(zvm_record_table_count, 8);
  assert_ptr_equal(zvm_record_find(4, 1), &zvm_rec_uselon);
  assert_ptr_equal(zvm_record_find(4, 2), &zvm_rec_uselof);
  assert_ptr_equal(zvm_record_find(0, 2), &zvm_rec_sytprp);
  assert_ptr_equal(zvm_record_find(10, 2), &zvm_rec_aplsdt);
  for (size_t t = 0; t < zvm_record_table_count; t++) {
    const struct zvm_record_desc *d = zvm_record_tables[t];
    assert_ptr_equal(zvm_record_find(d->domain, d->number), d);
    assert_non_null(d->zvm_level);
    assert_non_null(d->source);
    assert_non_null(d->title);
    uint8_t used[256] = {0};
    char err[256];
    if (zvm_record_check(d, err, sizeof(err)) != 0)
      fail_msg("%s", err);
    /* and every layout a select hook may hand out */
    for (size_t j = 0; d->hooks != NULL && j < d->hooks->nlayouts; j++)
      if (zvm_record_check(d->hooks->layouts[j], err, sizeof(err)) != 0)
        fail_msg("%s (a layout of %s's select hook)", err, d->ibm_name);
    for (size_t i = 0; i < d->main.nfields; i++) {
      const struct zvm_field *f = &d->main.fields[i];
      if (f->type == ZVM_TYPE_RECORD_COUNT)
        continue; /* not in the bytes */
      size_t end = f->offset + (size_t)f->width * f->count;
      assert_true(f->offset >= ZVM_MRHDR_LEN);
      assert_true(end <= d->length);
      if (f->flags & ZVM_FIELD_MAX_FLAG)
        continue; /* a second view of a count's byte: "is it MAX?" */
      for (size_t o = f->offset; o < end; o++) {
        assert_int_equal(used[o], 0);
        used[o] = 1;
      }
      if (f->single_type != NULL)
        continue; /* dispatched under the first release's names */
      const char *us = strchr(f->ibm_name, '_');
      assert_non_null(us);
      assert_int_equal(strlen(f->metric), strlen(us + 1));
      for (size_t k = 0; f->metric[k]; k++)
        assert_int_equal(f->metric[k],
                         (char)(us[1 + k] >= 'A' && us[1 + k] <= 'Z'
                                    ? us[1 + k] - 'A' + 'a'
                                    : us[1 + k]));
    }
  }
  assert_null(zvm_record_find(4, 3));
  assert_null(zvm_record_find(0, 0));
  assert_null(zvm_record_find(200, 10));
  assert_null(zvm_record_find(4, 1000));
  assert_string_equal(zvm_cpu_type_name(0), "cp");
  assert_string_equal(zvm_cpu_type_name(2), "zaap");
  assert_string_equal(zvm_cpu_type_name(3), "ifl");
  assert_string_equal(zvm_cpu_type_name(4), "icf");
  assert_string_equal(zvm_cpu_type_name(5), "ziip");
  assert_null(zvm_cpu_type_name(1));
  assert_null(zvm_cpu_type_name(6));
}

/* ------------------------------------------------------------ PRCSMT ---- */

struct cputinfo {
  uint8_t type, co, hw, sy, ac, sm, cr;
};

/* D5R21 as in IBM MRPRCSMT (z/VM V6R4.0); entries placed at aoff with stride
 * aesz. */
static size_t build_prcsmt(struct tb *b, uint8_t status,
                           const struct cputinfo *e, unsigned cnt,
                           uint16_t aesz, uint16_t aoff, uint16_t len) {
  size_t r = tb_record(b, len, 5, 21, TOD);
  tb_put_u32(b, r + 20, 0x00000007); /* RCCSMTSQ */
  tb_put_u8(b, r + 24, status);      /* CAL_STATUS */
  tb_put_u8(b, r + 25, 2);           /* CALMAXTC */
  tb_put_u8(b, r + 26, 0xFF);        /* RCCCOALL: MAX */
  tb_put_u8(b, r + 27, 1);           /* RCCSMALL */
  tb_put_u8(b, r + 28, 0x80);        /* RCCSMSET: INITIAL */
  tb_put_u8(b, r + 29, (uint8_t)cnt);
  tb_put_u16(b, r + 30, aesz);
  tb_put_u16(b, r + 32, aoff);
  tb_put_u16(b, r + 34, 0xBEEF); /* reserved */
  for (unsigned i = 0; e != NULL && i < cnt; i++) {
    size_t p = r + aoff + (size_t)i * aesz;
    const uint8_t bytes[8] = {e[i].type, e[i].co, e[i].hw, e[i].sy,
                              e[i].ac,   e[i].sm, e[i].cr, 0x5A};
    for (size_t k = 0; k < 8 && k < aesz; k++)
      tb_put_u8(b, p + k, bytes[k]);
  }
  return r;
}

static const struct cputinfo five[] = {
    {0x00, 1, 2, 1, 1, 0, 1},       {0x02, 3, 4, 5, 6, 7, 8},
    {0x03, 2, 2, 2, 2, 0xFF, 2},    {0x04, 9, 10, 11, 12, 13, 14},
    {0x05, 15, 16, 17, 18, 19, 20},
};

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

/* zvm_decode_set: known records reach the callback, unknown ones and bad
 * arrays are counted. */
struct seen {
  unsigned useite, prcsmt, mtrend, other;
  uint32_t last_hfcpurn;
};

static void on_record(const struct zvm_record *rec,
                      const struct zvm_record_desc *desc, void *ctx) {
  struct seen *s = ctx;
  if (desc == &zvm_rec_useite) {
    s->useite++;
    uint64_t v = 0;
    assert_true(zvm_field_u64(field(desc, "USEITE_HFCPURN"), rec->data,
                              rec->len, 0, &v));
    s->last_hfcpurn = (uint32_t)v;
  } else if (desc == &zvm_rec_prcsmt) {
    s->prcsmt++;
  } else if (desc == &zvm_rec_mtrend) {
    s->mtrend++;
  } else {
    s->other++;
  }
}

static void test_decode_set(void **state) {
  (void)state;
  struct tb rs, set;
  tb_init(&rs);
  tb_init(&set);
  size_t r = tb_record(&rs, 200, 4, 10, TOD);
  tb_put_u32(&rs, r + 116, 0xCAFEF00D);
  tb_record(&rs, 116, 0, 1, TOD); /* D0R1: no table */
  tb_record(&rs, 64, 4, 3, TOD);  /* D4R3: no table */
  build_prcsmt(&rs, 0x80, five, 2, 8, 36, 52);
  size_t bad = build_prcsmt(&rs, 0x40, five, 2, 8, 36, 52);
  tb_put_u8(&rs, bad + 29, 3); /* 3 entries do not fit in 52 bytes */
  tb_record(&rs, 20, 1, 11, TOD);
  tb_record_set(&set, 0xC5, 0xCC00, 0x09000000, &rs);

  struct seen s = {0};
  struct zvm_decode_stats st = {0};
  zvm_decode_set(set.data, set.len, ZVM_DOMAINS_ALL, on_record, &s, &st);
  assert_int_equal(s.useite, 1);
  assert_int_equal(s.last_hfcpurn, 0xCAFEF00D);
  /* The record with the unusable array is counted and still handed on:
   * its fixed part and notification are not lost. */
  assert_int_equal(s.prcsmt, 2);
  assert_int_equal(s.mtrend, 1);
  assert_int_equal(s.other, 0);
  assert_int_equal(st.unknown, 2);
  assert_int_equal(st.array_rejected, 1);
  assert_int_equal(st.walk.records, 6);
  assert_int_equal(st.walk.interval_end, 1);

  /* Totals accumulate over sets; selection counts as filtered. */
  memset(&s, 0, sizeof(s));
  zvm_decode_set(set.data, set.len, ZVM_DOMAIN_BIT(ZVM_DOMAIN_USER), on_record,
                 &s, &st);
  assert_int_equal(s.useite, 1);
  assert_int_equal(s.prcsmt + s.mtrend, 0);
  assert_int_equal(st.unknown, 3);
  assert_int_equal(st.walk.filtered, 4);
  assert_int_equal(st.walk.records, 12);
  tb_free(&rs);
  tb_free(&set);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_useite_every_field),
      cmocka_unit_test(test_useite_signed_and_unsigned),
      cmocka_unit_test(test_useite_short_record),
      cmocka_unit_test(test_useite_longer_record),
      cmocka_unit_test(test_table_consistency),
      cmocka_unit_test(test_prcsmt_fixed_part),
      cmocka_unit_test(test_prcsmt_cputinfo_counts),
      cmocka_unit_test(test_prcsmt_cputinfo_bounds),
      cmocka_unit_test(test_decode_set),
  };
  return cmocka_run_group_tests_name("records", tests, NULL, NULL);
}
