/* SPDX-License-Identifier: MIT */
/*
 * The catalogue of built-in records (plugin/records/catalog.c): every
 * table consistent (fields inside the record, none overlapping, names
 * from IBM's), and a record set decoded with it (zvm_decode_set): known
 * records reach the callback, unknown ones and unusable arrays are
 * counted. A record's own fields are its own test's
 * (tests/unit/records/test_<name>.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "builder.h"
#include "engine/check.h"
#include "engine/hooks.h"
#include "prcsmt_record.h"
#include "record_fields.h"
#include "records/catalog.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/records.h"
#include "zvm_monitor/registry.h"

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
  /* The registry of the built-in records (what a configuration starts
   * from): one entry per table. */
  struct zvm_registry *r = zvm_registry_builtin();
  assert_non_null(r);
  assert_int_equal(zvm_registry_count(r), zvm_record_table_count);
  assert_ptr_equal(zvm_registry_find(r, 4, 10), &zvm_rec_useite);
  assert_ptr_equal(zvm_registry_find(r, 5, 21), &zvm_rec_prcsmt);
  assert_null(zvm_registry_find(r, 0, 99));
  assert_null(zvm_registry_find(r, 16, 1));
  zvm_registry_destroy(r);
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

/* zvm_decode_set: known records reach the callback, unknown ones and bad
 * arrays are counted. The callback knows no record: it counts what it is
 * handed per descriptor and keeps a copy of the last record of each; what
 * each record should see is the table in the test. */
#define SEEN_MAX 16
struct seen {
  size_t n; /* descriptors seen */
  const struct zvm_record_desc *desc[SEEN_MAX];
  unsigned count[SEEN_MAX];
  uint8_t last[SEEN_MAX][256]; /* the last record of each, its bytes */
  uint16_t last_len[SEEN_MAX];
};

static void on_record(const struct zvm_record *rec,
                      const struct zvm_record_desc *desc, void *ctx) {
  struct seen *s = ctx;
  size_t i = 0;
  while (i < s->n && s->desc[i] != desc)
    i++;
  if (i == s->n) {
    assert_true(s->n < SEEN_MAX);
    s->desc[s->n++] = desc;
  }
  s->count[i]++;
  assert_true(rec->len <= sizeof(s->last[i]));
  memcpy(s->last[i], rec->data, rec->len);
  s->last_len[i] = rec->len;
}

/* How many records of desc the callback saw; the last one in *data. */
static unsigned seen_of(const struct seen *s, const struct zvm_record_desc *d,
                        const uint8_t **data, size_t *len) {
  for (size_t i = 0; i < s->n; i++)
    if (s->desc[i] == d) {
      if (data != NULL) {
        *data = s->last[i];
        *len = s->last_len[i];
      }
      return s->count[i];
    }
  return 0;
}

static unsigned seen_total(const struct seen *s) {
  unsigned n = 0;
  for (size_t i = 0; i < s->n; i++)
    n += s->count[i];
  return n;
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

  /* The record with the unusable array is counted and still handed on:
   * its fixed part and notification are not lost. */
  static const struct {
    const struct zvm_record_desc *desc;
    unsigned all, user; /* records handed on: all domains; User only */
  } want[] = {
      {&zvm_rec_useite, 1, 1},
      {&zvm_rec_prcsmt, 2, 0},
      {&zvm_rec_mtrend, 1, 0},
  };
  const size_t nwant = sizeof(want) / sizeof(want[0]);

  struct seen s = {0};
  struct zvm_decode_stats st = {0};
  zvm_decode_set(set.data, set.len, ZVM_DOMAINS_ALL, on_record, &s, &st);
  unsigned total = 0;
  for (size_t i = 0; i < nwant; i++) {
    assert_int_equal(seen_of(&s, want[i].desc, NULL, NULL), want[i].all);
    total += want[i].all;
  }
  assert_int_equal(seen_total(&s), total); /* and no other record */
  /* The D4R10 record reached the callback whole. */
  const uint8_t *data = NULL;
  size_t len = 0;
  seen_of(&s, &zvm_rec_useite, &data, &len);
  uint64_t v = 0;
  assert_true(zvm_field_u64(field(&zvm_rec_useite, "USEITE_HFCPURN"), data, len,
                            0, &v));
  assert_int_equal(v, 0xCAFEF00D);
  assert_int_equal(st.unknown, 2);
  assert_int_equal(st.array_rejected, 1);
  assert_int_equal(st.walk.records, 6);
  assert_int_equal(st.walk.interval_end, 1);

  /* Totals accumulate over sets; selection counts as filtered. */
  memset(&s, 0, sizeof(s));
  zvm_decode_set(set.data, set.len, ZVM_DOMAIN_BIT(ZVM_DOMAIN_USER), on_record,
                 &s, &st);
  total = 0;
  for (size_t i = 0; i < nwant; i++) {
    assert_int_equal(seen_of(&s, want[i].desc, NULL, NULL), want[i].user);
    total += want[i].user;
  }
  assert_int_equal(seen_total(&s), total);
  assert_int_equal(st.unknown, 3);
  assert_int_equal(st.walk.filtered, 4);
  assert_int_equal(st.walk.records, 12);
  tb_free(&rs);
  tb_free(&set);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_consistency),
      cmocka_unit_test(test_decode_set),
  };
  return cmocka_run_group_tests_name("catalog", tests, NULL, NULL);
}
