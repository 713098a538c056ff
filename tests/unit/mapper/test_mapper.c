/* SPDX-License-Identifier: MIT */
/*
 * Metric mapper (plugin/mapper/mapper.c): identifiers, values, times and
 * notifications from data sets built byte by byte with tests/rig/builder.h.
 * Expected names and offsets are written out from the seeds (002 for
 * D4R10, 004 for D5R21), not taken from the record tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "builtin_types.h"
#include "conf_options.h"
#include "mapper_fixture.h"
#include "mapper_values.h"
#include "zvm_monitor/conf.h"
#include "zvm_monitor/mapper.h"
#include "zvm_monitor/typesdb.h"

#define SEC 1700000000u /* 2023-11-14 */
#define US(sec, micro) ((uint64_t)(sec)*1000000u + (micro))
#define NOW US(SEC + 100, 0)
#define DCSS_ADDR 0x00400000u
/* Reader counters (plugin_instance "reader"): errors-{eoverflow,eio,efault,
 * open,malformed,stream}, total_objects-{sets,sets_dropped,records,skipped,
 * restamped,short_records,time_future}, total_bytes-read, and APPLDATA's
 * total_objects-appldata_{torn,unknown,dropped}. */
#define READER_VALUES 17
/* D5R21 values per CPU type: six thread counts and three _is_max flags;
 * system: mt_config_seq, mt_max_threads, statement_all, set_all, their two
 * _is_max flags and set_initial. */
#define MT_TYPE_VALUES 9
#define MT_SYSTEM_VALUES 7

/* ------------------------------------------------------------------------
 * Expected D4R10 values (IBM MRUSEITE, z/VM V6R2.0).
 */
struct exp_field {
  unsigned off;
  unsigned width;
  bool is_signed;
  const char *type;
  const char *type_instance;
};

static const struct exp_field useite_exp[] = {
    {30, 2, true, "gauge", "vmdslcnt"},
    {32, 4, false, "derive", "vmdsvmfx"},
    {48, 4, false, "derive", "hfquct"},
    {52, 4, false, "derive", "hfdisp0"},
    {56, 4, false, "derive", "hfdisp1"},
    {60, 4, false, "derive", "hfdisp2"},
    {64, 4, false, "derive", "hfdisp3"},
    {68, 4, false, "derive", "hfelig0"},
    {72, 4, false, "derive", "hfelig1"},
    {76, 4, false, "derive", "hfelig2"},
    {80, 4, false, "derive", "hfelig3"},
    {84, 4, false, "derive", "hfstct"},
    {88, 4, false, "derive", "hftidl"},
    {92, 4, false, "derive", "hftsvm"},
    {96, 4, false, "derive", "hfiowt"},
    {100, 4, false, "derive", "hfcfwt"},
    {104, 4, false, "derive", "hfsimwt"},
    {108, 4, false, "derive", "hfwtpag"},
    {112, 4, false, "derive", "hfcpuwt"},
    {116, 4, false, "derive", "hfcpurn"},
    {120, 4, false, "derive", "hfesvm"},
    {124, 4, false, "derive", "hfload"},
    {128, 4, false, "derive", "hfdorm"},
    {132, 4, true, "derive", "hfdsvm"},
    {136, 4, false, "derive", "hfothr"},
    {140, 2, false, "derive", "vmdcntid"},
    {142, 2, false, "derive", "vmdctidl"},
    {144, 4, false, "gauge", "vmddfrwk"},
    {152, 2, false, "derive", "vmdcprmd_q0"},
    {154, 2, false, "derive", "vmdcprmd_q1"},
    {156, 2, false, "derive", "vmdcprmd_q2"},
    {158, 2, false, "derive", "vmdcprmd_q3"},
    {160, 2, false, "derive", "vmdcwsgd_q0"},
    {162, 2, false, "derive", "vmdcwsgd_q1"},
    {164, 2, false, "derive", "vmdcwsgd_q2"},
    {166, 2, false, "derive", "vmdcwsgd_q3"},
    {168, 2, false, "derive", "vmdcetsd_q0"},
    {170, 2, false, "derive", "vmdcetsd_q1"},
    {172, 2, false, "derive", "vmdcetsd_q2"},
    {174, 2, false, "derive", "vmdcetsd_q3"},
    {176, 2, false, "derive", "vmdcidld_q0"},
    {178, 2, false, "derive", "vmdcidld_q1"},
    {180, 2, false, "derive", "vmdcidld_q2"},
    {182, 2, false, "derive", "vmdcidld_q3"},
    {184, 4, false, "derive", "hfioact"},
    {188, 4, false, "derive", "hfllist"},
    {192, 4, false, "derive", "hfpgact"},
};
#define USEITE_NEXP (sizeof(useite_exp) / sizeof(useite_exp[0]))

/* Raw field value: distinct per field and per record ("salt"); a few are
 * chosen to exercise sign handling. */
static uint32_t raw_value(const struct exp_field *e, unsigned salt) {
  if (strcmp(e->type_instance, "hfcpurn") == 0)
    return 0x80000005u + salt; /* unsigned above 2^31 stays positive */
  if (strcmp(e->type_instance, "hfdsvm") == 0)
    return 0xFFFFFFFEu - salt; /* Signed: -2 - salt */
  if (strcmp(e->type_instance, "vmdslcnt") == 0)
    return 0xFFFDu - salt; /* Signed 2 bytes: -3 - salt */
  return e->off * 1000u + e->width * 10u + salt;
}

static int64_t field_value(const struct exp_field *e, unsigned salt) {
  uint32_t raw = raw_value(e, salt);
  if (!e->is_signed)
    return e->width == 2 ? (int64_t)(raw & 0xFFFF) : (int64_t)raw;
  if (e->width == 2)
    return (int64_t)(int16_t)(uint16_t)raw;
  return (int64_t)(int32_t)raw;
}

/* Append one D4R10 record (200 bytes, or len) to a record set. */
static void add_useite(struct tb *rs, const char *user, uint64_t tod,
                       unsigned salt, uint16_t len) {
  size_t rec = tb_record(rs, len, 4, 10, tod);
  tb_put_ebcdic(rs, rec + 20, user, 8);
  if (len >= 30)
    tb_put_u16(rs, rec + 28, 0x0102); /* VMDCPUAD: an ID, not dispatched */
  if (len >= 48)
    tb_put_u8(rs, rec + 47, 0x80); /* CALFLAG1: CALBASE, the only VMDBK */
  if (len >= 197)
    tb_put_u8(rs, rec + 196, 3); /* VMDPUTYP: a code, not dispatched */
  for (size_t i = 0; i < USEITE_NEXP; i++) {
    const struct exp_field *e = &useite_exp[i];
    if (e->off + e->width > len)
      continue;
    if (e->width == 2)
      tb_put_u16(rs, rec + e->off, (uint16_t)raw_value(e, salt));
    else
      tb_put_u32(rs, rec + e->off, raw_value(e, salt));
  }
}

struct cputinfo {
  uint8_t type, hw, sy, act, crmnt;
};

static void add_prcsmt(struct tb *rs, uint64_t tod, uint32_t seq,
                       uint8_t status, uint8_t maxtc,
                       const struct cputinfo *cpus, size_t n) {
  size_t rec = tb_record(rs, (uint16_t)(36 + 8 * n), 5, 21, tod);
  tb_put_u32(rs, rec + 20, seq);
  tb_put_u8(rs, rec + 24, status);
  tb_put_u8(rs, rec + 25, maxtc);
  tb_put_u8(rs, rec + 29, (uint8_t)n); /* CAL_CPUTACNT */
  tb_put_u16(rs, rec + 30, 8);         /* CAL_CPUTAESZ */
  tb_put_u16(rs, rec + 32, 36);        /* CAL_CPUTAOFF */
  for (size_t i = 0; i < n; i++) {
    size_t e = rec + 36 + 8 * i;
    tb_put_u8(rs, e + 0, cpus[i].type);
    tb_put_u8(rs, e + 1, 1); /* RCCCOMNT */
    tb_put_u8(rs, e + 2, cpus[i].hw);
    tb_put_u8(rs, e + 3, cpus[i].sy);
    tb_put_u8(rs, e + 4, cpus[i].act);
    tb_put_u8(rs, e + 5, 0); /* RCCSMMNT */
    tb_put_u8(rs, e + 6, cpus[i].crmnt);
  }
}

/* A complete data set: one event MCE with the given record set. */
static void make_set(struct tb *set, uint16_t domains, const struct tb *rs) {
  tb_reset(set);
  tb_record_set(set, 0xC5, domains, DCSS_ADDR, rs);
}

/* ------------------------------------------------------------------------
 * Fixture and lookups.
 */
struct fx {
  struct mapper_fx mf; /* conf, mapper m, builders rs and set */
  const struct zvm_value *v;
  size_t nv;
  const struct zvm_notification *n;
  size_t nn;
  /* Identifiers and times seen in earlier passes, to prove strictly
   * increasing times and no duplicates across the whole test. */
  struct seen {
    char id[4 * ZVM_ID_MAX];
    uint64_t time_us;
  } * seen;
  size_t nseen;
};

static int setup(void **state) {
  struct fx *f = calloc(1, sizeof(*f));
  assert_non_null(f);
  mapper_fx_init(&f->mf);
  /* Most tests check values by identifier: one value per list. The
   * default, one list per record instance, has tests of its own
   * (test_default_*). */
  f->mf.conf.one_value_per_list = true;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fx *f = *state;
  mapper_fx_free(&f->mf);
  free(f->seen);
  free(f);
  return 0;
}

static void id_of(const struct zvm_value *v, char *buf, size_t size) {
  snprintf(buf, size, "%s/%s/%s/%s", v->host, v->plugin_instance, v->type,
           v->type_instance);
}

/* End a pass; check that no identifier repeats within it and that every
 * timed identifier's time is above all earlier ones. */
static void finish(struct fx *f, const struct zvm_source_health *rs) {
  assert_int_equal(zvm_mapper_finish(f->mf.m, NOW, rs), 0);
  f->v = mapper_values(f->mf.m, &f->nv);
  f->n = zvm_mapper_notifications(f->mf.m, &f->nn);
  for (size_t i = 0; i < f->nv; i++) {
    char a[4 * ZVM_ID_MAX], b[4 * ZVM_ID_MAX];
    id_of(&f->v[i], a, sizeof(a));
    for (size_t j = i + 1; j < f->nv; j++) {
      id_of(&f->v[j], b, sizeof(b));
      if (strcmp(a, b) == 0)
        fail_msg("%s dispatched twice in one pass", a);
    }
    if (f->v[i].time_us == 0)
      continue;
    bool found = false;
    for (size_t j = 0; j < f->nseen; j++) {
      if (strcmp(f->seen[j].id, a) != 0)
        continue;
      found = true;
      if (f->v[i].time_us <= f->seen[j].time_us)
        fail_msg("%s: time %llu not after %llu", a,
                 (unsigned long long)f->v[i].time_us,
                 (unsigned long long)f->seen[j].time_us);
      f->seen[j].time_us = f->v[i].time_us;
    }
    if (!found) {
      f->seen = realloc(f->seen, (f->nseen + 1) * sizeof(*f->seen));
      assert_non_null(f->seen);
      snprintf(f->seen[f->nseen].id, sizeof(f->seen[f->nseen].id), "%s", a);
      f->seen[f->nseen++].time_us = f->v[i].time_us;
    }
  }
}

/* One pass with the record set in f->mf.rs as a single data set. */
static void pass(struct fx *f, uint16_t domains) {
  make_set(&f->mf.set, domains, &f->mf.rs);
  zvm_mapper_add_set(f->mf.m, f->mf.set.data, f->mf.set.len);
  tb_reset(&f->mf.rs);
  finish(f, NULL);
}

static const struct zvm_value *find(const struct fx *f, const char *host,
                                    const char *pi, const char *type,
                                    const char *ti) {
  const struct zvm_value *hit = NULL;
  for (size_t i = 0; i < f->nv; i++) {
    const struct zvm_value *v = &f->v[i];
    if (strcmp(v->host, host) == 0 && strcmp(v->plugin_instance, pi) == 0 &&
        strcmp(v->type, type) == 0 && strcmp(v->type_instance, ti) == 0) {
      if (hit != NULL)
        fail_msg("%s/%s/%s-%s twice", host, pi, type, ti);
      hit = v;
    }
  }
  return hit;
}

static size_t count_pi(const struct fx *f, const char *host, const char *pi) {
  size_t n = 0;
  for (size_t i = 0; i < f->nv; i++)
    if (strcmp(f->v[i].host, host) == 0 &&
        strcmp(f->v[i].plugin_instance, pi) == 0)
      n++;
  return n;
}

static void expect_derive(const struct fx *f, const char *host, const char *pi,
                          const char *type, const char *ti, int64_t value,
                          uint64_t time_us) {
  const struct zvm_value *v = find(f, host, pi, type, ti);
  if (v == NULL)
    fail_msg("missing %s/%s/%s-%s", host, pi, type, ti);
  assert_int_equal(v->kind, ZVM_VALUE_DERIVE);
  if (v->derive != value)
    fail_msg("%s/%s-%s: %lld, want %lld", pi, type, ti, (long long)v->derive,
             (long long)value);
  assert_int_equal(v->time_us, time_us);
}

static void expect_gauge(const struct fx *f, const char *host, const char *pi,
                         const char *type, const char *ti, double value,
                         uint64_t time_us) {
  const struct zvm_value *v = find(f, host, pi, type, ti);
  if (v == NULL)
    fail_msg("missing %s/%s/%s-%s", host, pi, type, ti);
  assert_int_equal(v->kind, ZVM_VALUE_GAUGE);
  if (v->gauge != value)
    fail_msg("%s/%s-%s: %g, want %g", pi, type, ti, v->gauge, value);
  assert_int_equal(v->time_us, time_us);
}

/* Every value of a user record, exactly, and nothing else for that user. */
static void expect_user(const struct fx *f, const char *host, const char *pi,
                        unsigned salt, uint64_t transactions,
                        uint64_t time_us) {
  expect_derive(f, host, pi, "total_events", "transactions",
                (int64_t)transactions, time_us);
  for (size_t i = 0; i < USEITE_NEXP; i++) {
    const struct exp_field *e = &useite_exp[i];
    if (strcmp(e->type, "derive") == 0)
      expect_derive(f, host, pi, "derive", e->type_instance,
                    field_value(e, salt), time_us);
    else
      expect_gauge(f, host, pi, "gauge", e->type_instance,
                   (double)field_value(e, salt), time_us);
  }
  assert_int_equal(count_pi(f, host, pi), 1 + USEITE_NEXP);
}

static uint64_t reader_value(const struct fx *f, const char *type,
                             const char *ti) {
  const struct zvm_value *v = find(f, "", "reader", type, ti);
  if (v == NULL)
    fail_msg("missing reader/%s-%s", type, ti);
  assert_int_equal(v->kind, ZVM_VALUE_DERIVE);
  assert_int_equal(v->time_us, 0); /* stamped "now" by the daemon */
  return (uint64_t)v->derive;
}

/* ------------------------------------------------------------------------
 * D4R10.
 */
static void test_useite_every_field(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 123456), 0, 200);
  pass(f, TB_DOM(4));

  expect_user(f, "", "LINUX07", 0, 1, US(SEC, 123456));
  /* The sign rules, spelled out. */
  expect_derive(f, "", "LINUX07", "derive", "hfcpurn", 2147483653,
                US(SEC, 123456));
  expect_derive(f, "", "LINUX07", "derive", "hfdsvm", -2, US(SEC, 123456));
  expect_gauge(f, "", "LINUX07", "gauge", "vmdslcnt", -3, US(SEC, 123456));
  /* IDs, codes, flags and text are not values. */
  assert_null(find(f, "", "LINUX07", "derive", "vmdcpuad"));
  assert_null(find(f, "", "LINUX07", "gauge", "vmdputyp"));
  /* Reader counters come along (ReportReaderStats defaults to true). */
  assert_int_equal(count_pi(f, "", "reader"), READER_VALUES);
  assert_int_equal(f->nv, 1 + USEITE_NEXP + READER_VALUES);
  assert_int_equal(f->nn, 0);
}

/* UserField: only the named values (a field names all its elements). */
static void test_userfield_selection(void **state) {
  struct fx *f = *state;
  mapper_fx_option(&f->mf, "UserField", "hfcpurn");
  mapper_fx_option(&f->mf, "UserField", "vmdcprmd");
  mapper_fx_option(&f->mf, "UserField", "VMDSLCNT");
  mapper_fx_start(&f->mf);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 7), 0, 200);
  pass(f, TB_DOM(4));
  expect_derive(f, "", "LINUX07", "derive", "hfcpurn", 2147483653, US(SEC, 7));
  expect_gauge(f, "", "LINUX07", "gauge", "vmdslcnt", -3, US(SEC, 7));
  for (size_t i = 0; i < USEITE_NEXP; i++)
    if (strncmp(useite_exp[i].type_instance, "vmdcprmd_q", 10) == 0)
      expect_derive(f, "", "LINUX07", "derive", useite_exp[i].type_instance,
                    field_value(&useite_exp[i], 0), US(SEC, 7));
  /* No transactions unless named; nothing else. */
  assert_null(find(f, "", "LINUX07", "total_events", "transactions"));
  assert_int_equal(count_pi(f, "", "LINUX07"), 1 + 1 + 4);
  /* Every record is still counted. */
  assert_int_equal(reader_value(f, "total_objects", "records"), 1);

  zvm_mapper_destroy(f->mf.m);
  mapper_fx_option(&f->mf, "UserField", "transactions");
  mapper_fx_start(&f->mf);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 8), 0, 200);
  pass(f, TB_DOM(4));
  expect_derive(f, "", "LINUX07", "total_events", "transactions", 1,
                US(SEC, 8));
  assert_int_equal(count_pi(f, "", "LINUX07"), 1 + 1 + 1 + 4);
}

/* The default: one list of type zvm_useite per user, data sources in the
 * order of contrib/zvm_monitor.types.db. */
static void test_default_useite_one_list(void **state) {
  struct fx *f = *state;
  f->mf.conf.one_value_per_list = false;
  mapper_fx_start(&f->mf);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 3), 5, 200);
  add_useite(&f->mf.rs, "LINUX08", tb_tod(SEC, 4), 6, 102); /* short */
  pass(f, TB_DOM(4));
  const struct zvm_value *v = find(f, "", "LINUX07", "zvm_useite", "");
  assert_non_null(v);
  assert_int_equal(v->time_us, US(SEC, 3));
  assert_int_equal(v->nitems, 1 + USEITE_NEXP);
  assert_int_equal(v->items[0].kind, ZVM_VALUE_DERIVE);
  assert_int_equal(v->items[0].derive, 1); /* transactions */
  for (size_t i = 0; i < USEITE_NEXP; i++) {
    const struct exp_field *e = &useite_exp[i];
    const struct zvm_value_item *it = &v->items[1 + i];
    if (strcmp(e->type, "derive") == 0) {
      assert_int_equal(it->kind, ZVM_VALUE_DERIVE);
      assert_int_equal(it->derive, field_value(e, 5));
    } else {
      assert_int_equal(it->kind, ZVM_VALUE_GAUGE);
      assert_true(it->gauge == (double)field_value(e, 5));
    }
  }
  assert_int_equal(count_pi(f, "", "LINUX07"), 1);
  /* A record without every field: its values one by one, as by default. */
  assert_null(find(f, "", "LINUX08", "zvm_useite", ""));
  expect_derive(f, "", "LINUX08", "derive", "hfiowt",
                field_value(&useite_exp[14], 6), US(SEC, 4));
  assert_int_equal(count_pi(f, "", "LINUX08"), 1 + 15);

  /* The shipped types.db names the same data sources in the same order,
   * DERIVE for counters and GAUGE for gauges. */
  FILE *fp = fopen(ZVM_TYPES_DB, "r");
  assert_non_null(fp);
  char line[4096], want[4096];
  bool found = false;
  while (fgets(line, sizeof(line), fp) != NULL)
    if (strncmp(line, "zvm_useite\t", 11) == 0) {
      found = true;
      break;
    }
  fclose(fp);
  assert_true(found);
  int n = snprintf(want, sizeof(want), "zvm_useite\ttransactions:DERIVE:0:U");
  for (size_t i = 0; i < USEITE_NEXP; i++)
    n += snprintf(want + n, sizeof(want) - (size_t)n, ", %s:%s",
                  useite_exp[i].type_instance,
                  strcmp(useite_exp[i].type, "derive") == 0 ? "DERIVE:0:U"
                                                            : "GAUGE:U:U");
  snprintf(want + n, sizeof(want) - (size_t)n, "\n");
  assert_string_equal(line, want);
}

/* The front-end-neutral view of the same values: record, instance,
 * layout, field, beside the collectd names. */
static void test_neutral_value_model(void **state) {
  struct fx *f = *state;
  f->mf.conf.one_value_per_list = false;
  mapper_fx_start(&f->mf);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 3), 5, 200);
  add_useite(&f->mf.rs, "LINUX08", tb_tod(SEC, 4), 6, 102); /* short */
  pass(f, TB_DOM(4));
  const struct zvm_value *v = find(f, "", "LINUX07", "zvm_useite", "");
  assert_non_null(v);
  assert_non_null(v->record);
  assert_int_equal(v->record->domain, 4);
  assert_int_equal(v->record->number, 10);
  assert_ptr_equal(v->layout, &v->record->main);
  assert_string_equal(v->instance, "LINUX07");
  assert_null(v->field);
  struct zvm_ds ds[ZVM_LAYOUT_DS_MAX];
  assert_int_equal(zvm_layout_data_sources(v->layout, ds, ZVM_LAYOUT_DS_MAX),
                   v->nitems);
  assert_string_equal(ds[0].name, "transactions");
  /* One value of the short record: its field is named. */
  v = find(f, "", "LINUX08", "derive", "hfiowt");
  assert_non_null(v);
  assert_string_equal(v->instance, "LINUX08");
  assert_string_equal(v->field, "hfiowt");
  assert_int_equal(v->record->number, 10);
  /* The reader's counters: no record, instance "reader". */
  v = find(f, "", "reader", "total_objects", "records");
  assert_non_null(v);
  assert_null(v->record);
  assert_string_equal(v->instance, "reader");
  assert_string_equal(v->field, "records");

  /* GuestsAsHosts names the collectd host by the guest; the instance
   * stays the guest's name. */
  zvm_mapper_destroy(f->mf.m);
  f->mf.conf.guests_as_hosts = true;
  mapper_fx_start(&f->mf);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 5), 5, 200);
  pass(f, TB_DOM(4));
  v = find(f, "linux07", "", "zvm_useite", "");
  assert_non_null(v);
  assert_string_equal(v->instance, "LINUX07");
}

static void test_useite_short_record(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  /* An older, shorter layout: only fields it fully contains. */
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 0), 0, 102);
  pass(f, TB_DOM(4));
  expect_derive(f, "", "LINUX07", "derive", "hfiowt",
                field_value(&useite_exp[14], 0), US(SEC, 0));
  assert_null(find(f, "", "LINUX07", "derive", "hfcfwt"));
  /* transactions + vmdslcnt, vmdsvmfx, hfquct .. hfiowt */
  assert_int_equal(count_pi(f, "", "LINUX07"), 1 + 15);
}

static void test_guests_as_hosts(void **state) {
  struct fx *f = *state;
  f->mf.conf.guests_as_hosts = true;
  mapper_fx_start(&f->mf);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 5), 3, 200);
  add_prcsmt(&f->mf.rs, tb_tod(SEC, 6), 2, 0, 2,
             (const struct cputinfo[]){{3, 2, 2, 2, 2}}, 1);
  pass(f, TB_DOM(4) | TB_DOM(5));
  expect_user(f, "linux07", "", 3, 1, US(SEC, 5));
  assert_int_equal(count_pi(f, "", "LINUX07"), 0);
  /* Hypervisor-wide values stay under the daemon's host. */
  expect_gauge(f, "", "ifl", "threads", "activated", 2, US(SEC, 6));
  expect_derive(f, "", "reader", "total_objects", "records", 2, 0);
}

static void test_hostile_userid(void **state) {
  struct fx *f = *state;
  f->mf.conf.guests_as_hosts = true;
  mapper_fx_start(&f->mf);
  size_t rec = tb_record(&f->mf.rs, 200, 4, 10, tb_tod(SEC, 1));
  /* "A./ B", then lower-case 'a' (X'81'), a NUL and a quote (X'7F'). */
  static const uint8_t id[8] = {0xC1, 0x4B, 0x61, 0x40, 0xC2, 0x81, 0x00, 0x7F};
  memcpy(f->mf.rs.data + rec + 20, id, sizeof(id));
  f->mf.rs.data[rec + 47] = 0x80; /* CALBASE: a transaction */
  pass(f, TB_DOM(4));
  /* Escaped by EBCDIC byte; lower-casing keeps distinct IDs distinct. */
  expect_derive(f, "a%4b%61%40b%81%00%7f", "", "total_events", "transactions",
                1, US(SEC, 1));
  for (size_t i = 0; i < f->nv; i++)
    assert_null(strpbrk(f->v[i].host, " ./\\\"'\n,:;=()"));

  zvm_mapper_destroy(f->mf.m);
  f->mf.conf.guests_as_hosts = false;
  mapper_fx_start(&f->mf);
  rec = tb_record(&f->mf.rs, 200, 4, 10, tb_tod(SEC, 2));
  memcpy(f->mf.rs.data + rec + 20, id, sizeof(id));
  f->mf.rs.data[rec + 47] = 0x80;
  pass(f, TB_DOM(4));
  expect_derive(f, "", "A%4B%61%40B%81%00%7F", "total_events", "transactions",
                1, US(SEC, 2));
}

static void test_blank_userid(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  add_useite(&f->mf.rs, "", tb_tod(SEC, 1), 0, 200);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 1), 0, 200);
  pass(f, TB_DOM(4));
  assert_int_equal(f->nv, READER_VALUES + 1 + USEITE_NEXP);
  assert_int_equal(reader_value(f, "total_objects", "skipped"), 1);
}

/* ------------------------------------------------------------------------
 * Selection.
 */
static void add_four_users(struct fx *f, uint64_t tod) {
  add_useite(&f->mf.rs, "LINUX07", tod, 1, 200);
  add_useite(&f->mf.rs, "WEB01", tod, 2, 200);
  add_useite(&f->mf.rs, "WEB02", tod, 3, 200);
  add_useite(&f->mf.rs, "DB2", tod, 4, 200);
}

static void test_userid_exact_and_regex(void **state) {
  struct fx *f = *state;
  mapper_fx_option(&f->mf, "UserID", "linux07");
  mapper_fx_option(&f->mf, "UserID", "/^WEB0[1]$/");
  mapper_fx_start(&f->mf);
  add_four_users(f, tb_tod(SEC, 9));
  pass(f, TB_DOM(4));
  expect_user(f, "", "LINUX07", 1, 1, US(SEC, 9));
  expect_user(f, "", "WEB01", 2, 1, US(SEC, 9));
  assert_int_equal(count_pi(f, "", "WEB02"), 0);
  assert_int_equal(count_pi(f, "", "DB2"), 0);
  assert_int_equal(reader_value(f, "total_objects", "records"), 4);
  assert_int_equal(reader_value(f, "total_objects", "skipped"), 2);

  /* The decision is cached per user: still right on the next pass. */
  add_four_users(f, tb_tod(SEC, 10));
  pass(f, TB_DOM(4));
  assert_int_equal(count_pi(f, "", "WEB02"), 0);
  expect_user(f, "", "WEB01", 2, 2, US(SEC, 10));
  assert_int_equal(reader_value(f, "total_objects", "skipped"), 4);
}

static void test_userid_ignore_selected(void **state) {
  struct fx *f = *state;
  mapper_fx_option(&f->mf, "UserID", "LINUX07");
  mapper_fx_option(&f->mf, "UserID", "/^WEB0[1]$/");
  zvm_select_invert(&f->mf.conf.userids, true);
  mapper_fx_start(&f->mf);
  add_four_users(f, tb_tod(SEC, 9));
  pass(f, TB_DOM(4));
  assert_int_equal(count_pi(f, "", "LINUX07"), 0);
  assert_int_equal(count_pi(f, "", "WEB01"), 0);
  expect_user(f, "", "WEB02", 3, 1, US(SEC, 9));
  expect_user(f, "", "DB2", 4, 1, US(SEC, 9));
  assert_int_equal(reader_value(f, "total_objects", "skipped"), 2);
}

static void test_domain_selection(void **state) {
  struct fx *f = *state;
  mapper_fx_option(&f->mf, "Domain", "processor");
  mapper_fx_start(&f->mf);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 1), 0, 200);
  add_prcsmt(&f->mf.rs, tb_tod(SEC, 2), 4, 0, 2,
             (const struct cputinfo[]){{3, 2, 2, 1, 1}}, 1);
  pass(f, TB_DOM(4) | TB_DOM(5));
  assert_int_equal(count_pi(f, "", "LINUX07"), 0);
  expect_gauge(f, "", "ifl", "threads", "activated", 1, US(SEC, 2));
  /* Filtered records are still records, and skipped. */
  assert_int_equal(reader_value(f, "total_objects", "records"), 2);
  assert_int_equal(reader_value(f, "total_objects", "skipped"), 1);

  /* A record set whose MCE names only unselected domains. */
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 3), 0, 200);
  add_useite(&f->mf.rs, "LINUX08", tb_tod(SEC, 3), 0, 200);
  pass(f, TB_DOM(4));
  assert_int_equal(f->nv, READER_VALUES);
  assert_int_equal(reader_value(f, "total_objects", "skipped"), 3);
}

/* ------------------------------------------------------------------------
 * Aggregation and time order.
 */
/* A D4R10 of VMDBK cpuad (IBM MRUSEITE: one per virtual CPU) with HFCPURN,
 * VMDSLCNT (a level) and CALBASE as given. */
static void add_vmdbk(struct tb *rs, const char *user, uint64_t tod,
                      uint16_t cpuad, bool base, uint32_t hfcpurn,
                      int16_t slcnt) {
  size_t rec = tb_record(rs, 200, 4, 10, tod);
  tb_put_ebcdic(rs, rec + 20, user, 8);
  tb_put_u16(rs, rec + 28, cpuad);              /* VMDCPUAD */
  tb_put_u16(rs, rec + 30, (uint16_t)slcnt);    /* VMDSLCNT */
  tb_put_u8(rs, rec + 47, base ? 0x80 : 0x00);  /* CALFLAG1 */
  tb_put_u32(rs, rec + 116, hfcpurn);           /* HFCPURN */
  tb_put_u32(rs, rec + 48, 10u * (cpuad + 1u)); /* HFQUCT */
}

/* LINUX07's guest values at time t: HFCPURN (a counter, summed),
 * transactions and VMDSLCNT (a level, the base VMDBK's). */
static void expect_guest(const struct fx *f, int64_t hfcpurn,
                         int64_t transactions, double slcnt, uint64_t t) {
  expect_derive(f, "", "LINUX07", "derive", "hfcpurn", hfcpurn, t);
  expect_derive(f, "", "LINUX07", "total_events", "transactions", transactions,
                t);
  expect_gauge(f, "", "LINUX07", "gauge", "vmdslcnt", slcnt, t);
}

/* A virtual MP guest's counters are the sum over its VMDBKs of
 * each one's latest value; a VMDBK that skips a transaction keeps
 * contributing; transactions counts base records; levels are the base's. */
static void test_useite_per_vmdbk(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  /* The two VMDBKs of the issue (hfcpurn 1116 and 5000117). */
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 1), 0, true, 1116, 3);
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 2), 1, false, 5000117, 5);
  pass(f, TB_DOM(4));
  expect_derive(f, "", "LINUX07", "derive", "hfquct", 30, US(SEC, 2));
  expect_guest(f, 5001233, 1, 3, US(SEC, 2));

  /* Next transaction: VMDBK 1 skips it; its last value stays in the sum,
   * which never goes back (no 1116 -> 5000117 -> 1116 any more). */
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 3), 0, true, 1200, 4);
  pass(f, TB_DOM(4));
  expect_guest(f, 5001317, 2, 4, US(SEC, 3));

  /* A non-base record alone: the sum moves, transactions and the level
   * (the base's) do not. */
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 4), 1, false, 5000200, 9);
  pass(f, TB_DOM(4));
  expect_guest(f, 5001400, 2, 4, US(SEC, 4));

  /* Three VMDBKs in one pass, two records of VMDBK 2: its latest counts. */
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 5), 0, true, 1300, 1);
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 5), 2, false, 100, 2);
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 6), 0, true, 1400, 2);
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 6), 2, false, 150, 6);
  pass(f, TB_DOM(4));
  expect_guest(f, 1400 + 5000200 + 150, 4, 2, US(SEC, 6));
}

/* A guest with one virtual CPU for a while that then gets a second one
 * (CP DEFINE CPU): the first VMDBK's latest values enter the sum. */
static void test_useite_becomes_mp(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 1), 0, true, 100, 2);
  pass(f, TB_DOM(4));
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 2), 0, true, 150, 3);
  pass(f, TB_DOM(4));
  expect_derive(f, "", "LINUX07", "derive", "hfcpurn", 150, US(SEC, 2));
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 3), 1, false, 40, 9);
  pass(f, TB_DOM(4));
  expect_guest(f, 190, 2, 3, US(SEC, 3));
}

/* A logoff (D4R2, one per VMDBK) ends the guest's per-VMDBK state: the
 * next session's VMDBKs are summed afresh, the old VMDBK 1 no longer adds. */
static void test_useite_logoff_restarts(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 1), 0, true, 1000, 1);
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 2), 1, false, 500, 1);
  pass(f, TB_DOM(4));
  expect_derive(f, "", "LINUX07", "derive", "hfcpurn", 1500, US(SEC, 2));
  for (uint16_t v = 0; v < 2; v++) {
    size_t r = tb_record(&f->mf.rs, 30, 4, 2, tb_tod(SEC, 3)); /* MRUSELOF */
    tb_put_ebcdic(&f->mf.rs, r + 20, "LINUX07", 8);
    tb_put_u16(&f->mf.rs, r + 28, v);
  }
  pass(f, TB_DOM(4));
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 4), 0, true, 7, 1);
  pass(f, TB_DOM(4));
  expect_derive(f, "", "LINUX07", "derive", "hfcpurn", 7, US(SEC, 4));
  expect_derive(f, "", "LINUX07", "total_events", "transactions", 1,
                US(SEC, 4));
}

/* ReportByVirtualCPU: every VMDBK on its own as well, as it writes it. */
static void test_report_by_virtual_cpu(void **state) {
  struct fx *f = *state;
  f->mf.conf.report_by_virtual_cpu = true;
  mapper_fx_start(&f->mf);
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 1), 0, true, 1116, 3);
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 2), 1, false, 5000117, 5);
  pass(f, TB_DOM(4));
  expect_derive(f, "", "LINUX07", "derive", "hfcpurn", 5001233, US(SEC, 2));
  expect_derive(f, "", "LINUX07-vcpu0", "derive", "hfcpurn", 1116, US(SEC, 1));
  expect_derive(f, "", "LINUX07-vcpu1", "derive", "hfcpurn", 5000117,
                US(SEC, 2));
  expect_gauge(f, "", "LINUX07-vcpu1", "gauge", "vmdslcnt", 5, US(SEC, 2));
  /* a VMDBK's records */
  expect_derive(f, "", "LINUX07-vcpu1", "total_events", "transactions", 1,
                US(SEC, 2));
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 3), 0, true, 1200, 4);
  pass(f, TB_DOM(4));
  expect_derive(f, "", "LINUX07-vcpu0", "derive", "hfcpurn", 1200, US(SEC, 3));
  assert_int_equal(count_pi(f, "", "LINUX07-vcpu1"), 0); /* skipped */
  assert_true(count_pi(f, "", "LINUX07") > 0);

  /* A logoff (a D4R2 per VMDBK) starts each VMDBK's own view afresh. */
  for (uint16_t v = 0; v < 2; v++) {
    size_t r = tb_record(&f->mf.rs, 30, 4, 2, tb_tod(SEC, 4)); /* MRUSELOF */
    tb_put_ebcdic(&f->mf.rs, r + 20, "LINUX07", 8);
    tb_put_u16(&f->mf.rs, r + 28, v);
  }
  pass(f, TB_DOM(4));
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 5), 1, false, 9, 1);
  pass(f, TB_DOM(4));
  expect_derive(f, "", "LINUX07-vcpu1", "total_events", "transactions", 1,
                US(SEC, 5));
  expect_derive(f, "", "LINUX07-vcpu1", "derive", "hfcpurn", 9, US(SEC, 5));

  /* GuestsAsHosts: host = the guest, plugin instance "vcpu<N>". */
  zvm_mapper_destroy(f->mf.m);
  f->mf.conf.guests_as_hosts = true;
  mapper_fx_start(&f->mf);
  add_vmdbk(&f->mf.rs, "LINUX07", tb_tod(SEC, 10), 2, false, 77, 1);
  pass(f, TB_DOM(4));
  expect_derive(f, "linux07", "vcpu2", "derive", "hfcpurn", 77, US(SEC, 10));
  expect_derive(f, "linux07", "", "derive", "hfcpurn", 77, US(SEC, 10));
}

static void test_aggregation_latest_wins(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  /* Stream order is not time order: the later record in the stream wins,
   * whatever its TOD (the z/VM clock may have been set back). */
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 20), 2, 200);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 10), 1, 200);
  add_useite(&f->mf.rs, "LINUX08", tb_tod(SEC, 10), 5, 200);
  make_set(&f->mf.set, TB_DOM(4), &f->mf.rs);
  zvm_mapper_add_set(f->mf.m, f->mf.set.data, f->mf.set.len);
  /* A second set in the same pass. */
  tb_reset(&f->mf.rs);
  add_useite(&f->mf.rs, "LINUX08", tb_tod(SEC, 30), 6, 200);
  pass(f, TB_DOM(4));

  expect_user(f, "", "LINUX07", 1, 2, US(SEC, 10));
  expect_user(f, "", "LINUX08", 6, 2, US(SEC, 30));
}

/* One pass with the record set in f->mf.rs as a data set that arrived at
 * arrival_us. */
static void pass_at(struct fx *f, uint16_t domains, uint64_t arrival_us) {
  make_set(&f->mf.set, domains, &f->mf.rs);
  zvm_mapper_add_set_at(f->mf.m, f->mf.set.data, f->mf.set.len, arrival_us);
  tb_reset(&f->mf.rs);
  finish(f, NULL);
}

static uint64_t restamped(const struct fx *f) {
  return reader_value(f, "total_objects", "restamped");
}

static void test_time_rule_restamps(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 20), 1, 200);
  pass(f, TB_DOM(4));
  expect_user(f, "", "LINUX07", 1, 1, US(SEC, 20));
  assert_int_equal(restamped(f), 0);

  /* The same TOD again, no arrival time known: last time + 1 us; every
   * value still reaches collectd, counted once for the guest. */
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 20), 2, 200);
  pass(f, TB_DOM(4));
  expect_user(f, "", "LINUX07", 2, 2, US(SEC, 20) + 1);
  assert_int_equal(restamped(f), 1);
  const struct zvm_mapper_stats *ms = zvm_mapper_get_stats(f->mf.m);
  assert_int_equal(ms->pass_restamped, 1);
  assert_string_equal(ms->first_restamp.what, "LINUX07");
  assert_int_equal(ms->first_restamp.record_us, US(SEC, 20));
  assert_int_equal(ms->first_restamp.last_us, US(SEC, 20));
  assert_int_equal(ms->first_restamp.stamped_us, US(SEC, 20) + 1);
  assert_false(ms->first_restamp.arrival);

  /* Equal TODs, the set arrived later: its arrival time. */
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 20), 3, 200);
  pass_at(f, TB_DOM(4), US(SEC, 25));
  expect_user(f, "", "LINUX07", 3, 3, US(SEC, 25));
  assert_int_equal(restamped(f), 2);
  assert_true(zvm_mapper_get_stats(f->mf.m)->first_restamp.arrival);

  /* One hour back (the z/VM clock set back), read at 30 s. */
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC - 3600, 0), 4, 200);
  pass_at(f, TB_DOM(4), US(SEC, 30));
  expect_user(f, "", "LINUX07", 4, 4, US(SEC, 30));
  assert_int_equal(restamped(f), 3);

  /* Records ahead of the arrival time (neither later): + 1 us again. */
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 30), 5, 200);
  pass_at(f, TB_DOM(4), US(SEC, 29));
  expect_user(f, "", "LINUX07", 5, 5, US(SEC, 30) + 1);
  assert_int_equal(restamped(f), 4);

  /* A pass without records dispatches only the reader counters. */
  finish(f, NULL);
  assert_int_equal(f->nv, READER_VALUES);
  assert_int_equal(zvm_mapper_get_stats(f->mf.m)->pass_timed, 0);

  /* Time moves on: the record's own time again, nothing counted. */
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 40), 6, 200);
  pass_at(f, TB_DOM(4), US(SEC, 41));
  expect_user(f, "", "LINUX07", 6, 6, US(SEC, 40));
  assert_int_equal(restamped(f), 4);
  assert_int_equal(zvm_mapper_get_stats(f->mf.m)->pass_restamped, 0);
  assert_int_equal(zvm_mapper_get_stats(f->mf.m)->pass_timed, 1);
}

/* One record dated 2043-11-09 (a TOD glitch, a damaged record, an edited
 * capture) among a guest's ordinary ones: its values take its set's
 * arrival time, it is counted in total_objects-time_future (not in
 * restamped), and the guest's later records go out at their own times.
 * It does not move the leap-second estimate either. */
#define SEC_2043 2330640000u

static void test_future_record(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 0), 1, 200);
  pass_at(f, TB_DOM(4), US(SEC, 500000));
  expect_user(f, "", "LINUX07", 1, 1, US(SEC, 0));

  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC_2043, 0), 2, 200);
  pass_at(f, TB_DOM(4), US(SEC + 60, 500000));
  expect_user(f, "", "LINUX07", 2, 2, US(SEC + 60, 500000));
  assert_int_equal(reader_value(f, "total_objects", "time_future"), 1);
  assert_int_equal(restamped(f), 0);
  const struct zvm_mapper_stats *ms = zvm_mapper_get_stats(f->mf.m);
  assert_int_equal(ms->pass_future, 1);
  assert_string_equal(ms->first_future.what, "LINUX07");
  assert_int_equal(ms->first_future.record_us, US(SEC_2043, 0));
  assert_int_equal(ms->first_future.stamped_us, US(SEC + 60, 500000));
  assert_true(ms->first_future.arrival);

  /* Ordinary records again: their own times, nothing counted. */
  for (unsigned k = 2; k <= 4; k++) {
    add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC + 60 * k, 0), k + 1, 200);
    pass_at(f, TB_DOM(4), US(SEC + 60 * k, 500000));
    expect_user(f, "", "LINUX07", k + 1, k + 1, US(SEC + 60 * k, 0));
  }
  assert_int_equal(reader_value(f, "total_objects", "time_future"), 1);
  assert_int_equal(restamped(f), 0);
  assert_int_equal(ms->pass_future, 0);
  assert_int_equal(ms->leap_us, 0);
}

/* The TOD wrap (2042-09-17) and a configured leap-second offset, through
 * the mapper. tb_tod() computes modulo 2^64, as the clock counts. */
#define SEC_2042_OCT 2295734400u /* 2042-10-01 00:00:00 UTC */

static void test_tod_wrap_and_leap(void **state) {
  struct fx *f = *state;
  char err[256];
  assert_int_equal(zvm_conf_set_number(&f->mf.conf, "LeapSecondOffset", 27, err,
                                       sizeof(err)),
                   0);
  mapper_fx_start(&f->mf);
  assert_true(tb_tod(SEC_2042_OCT + 27, 0) < tb_tod(SEC, 0)); /* wrapped */
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC_2042_OCT + 27, 0), 1, 200);
  add_prcsmt(&f->mf.rs, tb_tod(SEC_2042_OCT + 27, 5), 1, 0x80, 2,
             (const struct cputinfo[]){{3, 2, 2, 1, 1}}, 1);
  pass_at(f, TB_DOM(4) | TB_DOM(5), US(SEC_2042_OCT, 100));
  expect_user(f, "", "LINUX07", 1, 1, US(SEC_2042_OCT, 0));
  expect_gauge(f, "", "ifl", "threads", "activated", 1, US(SEC_2042_OCT, 5));
  assert_int_equal(f->nn, 1);
  assert_int_equal(f->n[0].time_us, US(SEC_2042_OCT, 5));
  assert_int_equal(zvm_mapper_get_stats(f->mf.m)->leap_us, 27000000);
  assert_int_equal(zvm_mapper_get_stats(f->mf.m)->leap_method,
                   ZVM_LEAP_CONFIGURED);
  assert_int_equal(restamped(f), 0);
}

static void test_leap_estimated(void **state) {
  struct fx *f = *state;
  mapper_fx_start(
      &f->mf); /* LeapSecondOffset auto, no clock: from arrival times */
  /* Records built 27 s ahead of UTC, read 0.2 s after the newest. */
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC + 27, 0), 1, 200);
  add_useite(&f->mf.rs, "LINUX08", tb_tod(SEC + 27, 500000), 2, 200);
  pass_at(f, TB_DOM(4), US(SEC, 700000));
  expect_user(f, "", "LINUX07", 1, 1, US(SEC, 0));
  expect_user(f, "", "LINUX08", 2, 1, US(SEC, 500000));
  assert_int_equal(zvm_mapper_get_stats(f->mf.m)->leap_us, 27000000);
  assert_int_equal(zvm_mapper_get_stats(f->mf.m)->leap_method,
                   ZVM_LEAP_ARRIVAL);
  /* A clock reading takes precedence. */
  zvm_mapper_set_clock_leap(f->mf.m, true, 26000000);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC + 27, 900000), 3, 200);
  pass_at(f, TB_DOM(4), US(SEC, 950000));
  expect_user(f, "", "LINUX07", 3, 2, US(SEC + 1, 900000));
  assert_int_equal(zvm_mapper_get_stats(f->mf.m)->leap_method, ZVM_LEAP_CLOCKS);
}

static void test_unusable_tod(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  /* Before 1970, and exactly the epoch (0 would read as "now"). */
  add_useite(&f->mf.rs, "LINUX07", 0x1000, 0, 200);
  add_useite(&f->mf.rs, "LINUX08", tb_tod(0, 0), 0, 200);
  add_prcsmt(&f->mf.rs, tb_tod(0, 0), 1, 0x80, 2,
             (const struct cputinfo[]){{3, 2, 2, 2, 2}}, 1);
  pass(f, TB_DOM(4) | TB_DOM(5));
  assert_int_equal(f->nv, READER_VALUES);
  assert_int_equal(f->nn, 0);
  /* Still transactions: a later record carries the count. */
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 1), 0, 200);
  pass(f, TB_DOM(4));
  expect_user(f, "", "LINUX07", 0, 2, US(SEC, 1));
}

static void test_truncated_set_yields_nothing(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 1), 0, 200);
  make_set(&f->mf.set, TB_DOM(4), &f->mf.rs);
  /* The set ends before the record set its MCE announces. */
  zvm_mapper_add_set(f->mf.m, f->mf.set.data, f->mf.set.len - 1);
  finish(f, NULL);
  assert_int_equal(count_pi(f, "", "LINUX07"), 0);
  assert_int_equal(reader_value(f, "errors", "malformed"), 1);
  assert_int_equal(reader_value(f, "total_objects", "records"), 0);
}

static void test_expiry(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 1), 0, 200);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 2), 0, 200);
  make_set(&f->mf.set, TB_DOM(4), &f->mf.rs);
  zvm_mapper_add_set(f->mf.m, f->mf.set.data, f->mf.set.len);
  assert_int_equal(zvm_mapper_finish(f->mf.m, NOW, NULL), 0);
  assert_int_equal(zvm_mapper_get_stats(f->mf.m)->users_tracked, 1);

  /* Not yet: 23 hours later. */
  assert_int_equal(
      zvm_mapper_finish(f->mf.m, NOW + 23 * 3600 * UINT64_C(1000000), NULL), 0);
  assert_int_equal(zvm_mapper_get_stats(f->mf.m)->users_tracked, 1);
  /* 25 hours after it was last seen it is forgotten. */
  assert_int_equal(
      zvm_mapper_finish(f->mf.m, NOW + 25 * 3600 * UINT64_C(1000000), NULL), 0);
  assert_int_equal(zvm_mapper_get_stats(f->mf.m)->users_tracked, 0);
  assert_int_equal(zvm_mapper_get_stats(f->mf.m)->users_expired, 1);

  /* Coming back, its counter starts again. */
  tb_reset(&f->mf.rs);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC + 90000, 0), 0, 200);
  make_set(&f->mf.set, TB_DOM(4), &f->mf.rs);
  zvm_mapper_add_set(f->mf.m, f->mf.set.data, f->mf.set.len);
  assert_int_equal(
      zvm_mapper_finish(f->mf.m, NOW + 26 * 3600 * UINT64_C(1000000), NULL), 0);
  f->v = mapper_values(f->mf.m, &f->nv);
  expect_derive(f, "", "LINUX07", "total_events", "transactions", 1,
                US(SEC + 90000, 0));
}

/* ------------------------------------------------------------------------
 * D5R21.
 */
static void test_prcsmt_start_and_end(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  /* Start of change 2 (RCCSMTSQ 3): counts from before the change. */
  add_prcsmt(&f->mf.rs, tb_tod(SEC, 100), 3, 0x80, 2,
             (const struct cputinfo[]){
                 {0x00, 1, 1, 1, 1}, /* cp */
                 {0x03, 2, 2, 1, 1}, /* ifl */
                 {0x09, 2, 1, 1, 0}, /* unnamed type */
             },
             3);
  pass(f, TB_DOM(5));
  expect_gauge(f, "", "cp", "threads", "activated", 1, US(SEC, 100));
  expect_gauge(f, "", "cp", "threads", "requested", 1, US(SEC, 100));
  expect_gauge(f, "", "cp", "threads", "hardware_max", 1, US(SEC, 100));
  expect_gauge(f, "", "cp", "threads", "zvm_max", 1, US(SEC, 100));
  expect_gauge(f, "", "ifl", "threads", "hardware_max", 2, US(SEC, 100));
  expect_gauge(f, "", "type9", "threads", "requested", 0, US(SEC, 100));
  expect_gauge(f, "", "type9", "threads", "hardware_max", 2, US(SEC, 100));
  expect_gauge(f, "", "system", "gauge", "mt_config_seq", 3, US(SEC, 100));
  expect_gauge(f, "", "system", "gauge", "mt_max_threads", 2, US(SEC, 100));
  /* Every other field of IBM MRPRCSMT (z/VM V6R4.0): statement (RCCCOMNT 1),
   * SET command (RCCSMMNT 0), and system-wide ALL counts and the INITIAL flag.
   */
  expect_gauge(f, "", "cp", "threads", "statement", 1, US(SEC, 100));
  expect_gauge(f, "", "cp", "threads", "set_command", 0, US(SEC, 100));
  expect_gauge(f, "", "cp", "bool", "requested_is_max", 0, US(SEC, 100));
  expect_gauge(f, "", "cp", "bool", "statement_is_max", 0, US(SEC, 100));
  expect_gauge(f, "", "cp", "bool", "set_command_is_max", 0, US(SEC, 100));
  expect_gauge(f, "", "system", "threads", "statement_all", 0, US(SEC, 100));
  expect_gauge(f, "", "system", "threads", "set_all", 0, US(SEC, 100));
  expect_gauge(f, "", "system", "bool", "set_initial", 0, US(SEC, 100));
  assert_int_equal(count_pi(f, "", "system"), MT_SYSTEM_VALUES);
  assert_int_equal(f->nv,
                   READER_VALUES + 3 * MT_TYPE_VALUES + MT_SYSTEM_VALUES);

  assert_int_equal(f->nn, 1);
  assert_int_equal(f->n[0].severity, ZVM_NOTIF_WARNING);
  assert_int_equal(f->n[0].time_us, US(SEC, 100));
  assert_string_equal(f->n[0].plugin_instance, "system");
  assert_string_equal(f->n[0].type, "threads");
  assert_string_equal(f->n[0].type_instance, "");
  /* Its neutral view: D5R21's, of kind multithreading, about "system". */
  assert_int_equal(f->n[0].record->domain, 5);
  assert_int_equal(f->n[0].record->number, 21);
  assert_int_equal(f->n[0].kind, ZVM_NOTIFY_MULTITHREADING);
  assert_string_equal(f->n[0].instance, "system");
  assert_string_equal(f->n[0].message,
                      "multithreading configuration change 2 started "
                      "(RCCSMTSQ 3); activated threads per core before the "
                      "change: cp 1, ifl 1, type9 1; data until the change "
                      "ends spans two configurations");

  /* The start record delivered again: an exact repeat (same RCCSMTSQ and
   * status) is not notified again; its values are not dropped (the time
   * rule stamps them 1 us after the last). */
  add_prcsmt(&f->mf.rs, tb_tod(SEC, 100), 3, 0x80, 2,
             (const struct cputinfo[]){{0x03, 2, 2, 1, 1}}, 1);
  pass(f, TB_DOM(5));
  assert_int_equal(f->nn, 0);
  assert_int_equal(f->nv, READER_VALUES + MT_TYPE_VALUES + MT_SYSTEM_VALUES);
  expect_gauge(f, "", "ifl", "threads", "activated", 1, US(SEC, 100) + 1);

  /* End: new counts; ifl requested MAX (X'FF') is NaN plus a flag, never
   * 255. */
  add_prcsmt(&f->mf.rs, tb_tod(SEC, 250), 3, 0x40, 2,
             (const struct cputinfo[]){
                 {0x00, 1, 1, 1, 1},
                 {0x03, 2, 2, 2, 0xFF},
                 {0x09, 2, 1, 1, 0},
             },
             3);
  pass(f, TB_DOM(5));
  expect_gauge(f, "", "ifl", "threads", "activated", 2, US(SEC, 250));
  const struct zvm_value *req = find(f, "", "ifl", "threads", "requested");
  assert_non_null(req);
  assert_true(isnan(req->gauge));
  assert_int_equal(req->time_us, US(SEC, 250));
  expect_gauge(f, "", "ifl", "bool", "requested_is_max", 1, US(SEC, 250));
  expect_gauge(f, "", "cp", "bool", "requested_is_max", 0, US(SEC, 250));
  expect_gauge(f, "", "cp", "threads", "activated", 1, US(SEC, 250));
  assert_int_equal(f->nn, 1);
  assert_int_equal(f->n[0].severity, ZVM_NOTIF_OKAY);
  assert_int_equal(f->n[0].time_us, US(SEC, 250));
  assert_string_equal(f->n[0].message,
                      "multithreading configuration change 2 ended "
                      "(RCCSMTSQ 3); activated threads per core: cp 1 -> 1, "
                      "ifl 1 -> 2, type9 1 -> 1");

  /* The same end record again: no second notification. */
  add_prcsmt(&f->mf.rs, tb_tod(SEC, 250), 3, 0x40, 2,
             (const struct cputinfo[]){{0x03, 2, 2, 2, 0xFF}}, 1);
  pass(f, TB_DOM(5));
  assert_int_equal(f->nn, 0);
  assert_int_equal(f->nv, READER_VALUES + MT_TYPE_VALUES + MT_SYSTEM_VALUES);

  /* The next change's start with an earlier TOD (the clock was set back)
   * is notified: notifications are never dropped for their time. */
  add_prcsmt(&f->mf.rs, tb_tod(SEC - 3600, 0), 5, 0x80, 2,
             (const struct cputinfo[]){{0x03, 2, 2, 2, 2}}, 1);
  pass(f, TB_DOM(5));
  assert_int_equal(f->nn, 1);
  assert_int_equal(f->n[0].time_us, US(SEC - 3600, 0));
  assert_int_equal(f->n[0].severity, ZVM_NOTIF_WARNING);

  /* Change 2 again, written at another time (z/VM restarted its
   * numbering): a new start and a new end, each notified, although the
   * last end notified was also RCCSMTSQ 3. */
  add_prcsmt(&f->mf.rs, tb_tod(SEC, 400), 3, 0x80, 2,
             (const struct cputinfo[]){{0x03, 2, 2, 2, 1}}, 1);
  pass(f, TB_DOM(5));
  assert_int_equal(f->nn, 1);
  assert_int_equal(f->n[0].severity, ZVM_NOTIF_WARNING);
  add_prcsmt(&f->mf.rs, tb_tod(SEC, 401), 3, 0x40, 2,
             (const struct cputinfo[]){{0x03, 2, 2, 2, 2}}, 1);
  pass(f, TB_DOM(5));
  assert_int_equal(f->nn, 1);
  assert_int_equal(f->n[0].severity, ZVM_NOTIF_OKAY);
  assert_int_equal(f->n[0].time_us, US(SEC, 401));
}

/* X'FF' in every count where MAX can be specified, every field set to a
 * distinct value otherwise; then unusable CPUTINFO arrays. */
static void test_prcsmt_every_field(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  size_t rec = tb_record(&f->mf.rs, 36 + 8, 5, 21, tb_tod(SEC, 1));
  tb_put_u32(&f->mf.rs, rec + 20, 7);   /* RCCSMTSQ */
  tb_put_u8(&f->mf.rs, rec + 24, 0x40); /* CAL_STATUS: end */
  tb_put_u8(&f->mf.rs, rec + 25, 4);    /* CALMAXTC */
  tb_put_u8(&f->mf.rs, rec + 26, 0xFF); /* RCCCOALL: MAX */
  tb_put_u8(&f->mf.rs, rec + 27, 3);    /* RCCSMALL */
  tb_put_u8(&f->mf.rs, rec + 28, 0x80); /* RCCSMSET: INITIAL */
  tb_put_u8(&f->mf.rs, rec + 29, 1);    /* CAL_CPUTACNT */
  tb_put_u16(&f->mf.rs, rec + 30, 8);   /* CAL_CPUTAESZ */
  tb_put_u16(&f->mf.rs, rec + 32, 36);  /* CAL_CPUTAOFF */
  tb_put_u8(&f->mf.rs, rec + 36, 3);    /* CPUTYPE: IFL */
  tb_put_u8(&f->mf.rs, rec + 37, 0xFF); /* RCCCOMNT: MAX */
  tb_put_u8(&f->mf.rs, rec + 38, 5);    /* RCCHWMNT */
  tb_put_u8(&f->mf.rs, rec + 39, 6);    /* RCCSYMNT */
  tb_put_u8(&f->mf.rs, rec + 40, 2);    /* RCCACMNT */
  tb_put_u8(&f->mf.rs, rec + 41, 0xFF); /* RCCSMMNT: MAX */
  tb_put_u8(&f->mf.rs, rec + 42, 0xFF); /* RCCCRMNT: MAX */
  pass(f, TB_DOM(5));
  uint64_t t = US(SEC, 1);
  expect_gauge(f, "", "system", "gauge", "mt_config_seq", 7, t);
  expect_gauge(f, "", "system", "gauge", "mt_max_threads", 4, t);
  assert_true(isnan(find(f, "", "system", "threads", "statement_all")->gauge));
  expect_gauge(f, "", "system", "bool", "statement_all_is_max", 1, t);
  expect_gauge(f, "", "system", "threads", "set_all", 3, t);
  expect_gauge(f, "", "system", "bool", "set_all_is_max", 0, t);
  expect_gauge(f, "", "system", "bool", "set_initial", 1, t);
  expect_gauge(f, "", "ifl", "threads", "hardware_max", 5, t);
  expect_gauge(f, "", "ifl", "threads", "zvm_max", 6, t);
  expect_gauge(f, "", "ifl", "threads", "activated", 2, t);
  assert_true(isnan(find(f, "", "ifl", "threads", "statement")->gauge));
  assert_true(isnan(find(f, "", "ifl", "threads", "set_command")->gauge));
  assert_true(isnan(find(f, "", "ifl", "threads", "requested")->gauge));
  expect_gauge(f, "", "ifl", "bool", "statement_is_max", 1, t);
  expect_gauge(f, "", "ifl", "bool", "set_command_is_max", 1, t);
  expect_gauge(f, "", "ifl", "bool", "requested_is_max", 1, t);
  assert_int_equal(f->nv, READER_VALUES + MT_TYPE_VALUES + MT_SYSTEM_VALUES);
  assert_int_equal(f->nn, 1);

  /* Unusable arrays: entry size 0, then an offset inside the header. The
   * fixed part and the notification are kept; the record is malformed. */
  for (int k = 0; k < 2; k++) {
    rec = tb_record(&f->mf.rs, 36 + 8, 5, 21, tb_tod(SEC, 2 + k));
    tb_put_u32(&f->mf.rs, rec + 20, (uint32_t)(9 + 2 * k));
    tb_put_u8(&f->mf.rs, rec + 24, 0x80);
    tb_put_u8(&f->mf.rs, rec + 25, 2);
    tb_put_u8(&f->mf.rs, rec + 29, 1);
    tb_put_u16(&f->mf.rs, rec + 30, k == 0 ? 0 : 8);
    tb_put_u16(&f->mf.rs, rec + 32, k == 0 ? 36 : 8);
    tb_put_u8(&f->mf.rs, rec + 36, 3);
    pass(f, TB_DOM(5));
    expect_gauge(f, "", "system", "gauge", "mt_config_seq", 9 + 2 * k,
                 US(SEC, 2 + k));
    assert_int_equal(count_pi(f, "", "ifl"), 0);
    assert_int_equal(f->nn, 1);
    char want[200];
    snprintf(want, sizeof(want),
             "multithreading configuration change %d started (RCCSMTSQ %d); "
             "activated threads per core before the change: none listed; "
             "data until the change ends spans two configurations",
             5 + k, 9 + 2 * k);
    assert_string_equal(f->n[0].message, want);
    assert_int_equal(reader_value(f, "errors", "malformed"), 1 + k);
  }
}

static void test_prcsmt_one_pass(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  add_prcsmt(&f->mf.rs, tb_tod(SEC, 100), 5, 0x80, 2,
             (const struct cputinfo[]){{0x03, 2, 2, 2, 2}}, 1);
  add_prcsmt(&f->mf.rs, tb_tod(SEC, 101), 5, 0x40, 2,
             (const struct cputinfo[]){{0x03, 2, 2, 1, 1}}, 1);
  pass(f, TB_DOM(5));
  /* One value per identifier, from the end record... */
  expect_gauge(f, "", "ifl", "threads", "activated", 1, US(SEC, 101));
  expect_gauge(f, "", "system", "gauge", "mt_config_seq", 5, US(SEC, 101));
  /* ...and both notifications, in stream order. */
  assert_int_equal(f->nn, 2);
  assert_int_equal(f->n[0].severity, ZVM_NOTIF_WARNING);
  assert_int_equal(f->n[0].time_us, US(SEC, 100));
  assert_int_equal(f->n[1].severity, ZVM_NOTIF_OKAY);
  assert_int_equal(f->n[1].time_us, US(SEC, 101));
  assert_string_equal(f->n[1].message,
                      "multithreading configuration change 3 ended "
                      "(RCCSMTSQ 5); activated threads per core: ifl 2 -> 1");
}

static void test_prcsmt_end_without_start(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  add_prcsmt(&f->mf.rs, tb_tod(SEC, 7), 1, 0x40, 2,
             (const struct cputinfo[]){{0x03, 2, 2, 2, 2}}, 1);
  pass(f, TB_DOM(5));
  assert_int_equal(f->nn, 1);
  assert_string_equal(f->n[0].message,
                      "multithreading configuration change 1 ended "
                      "(RCCSMTSQ 1); activated threads per core: ifl ? -> 2; "
                      "the start of this change was not seen");
}

/* ------------------------------------------------------------------------
 * zvm_mapper_reset().
 */

/* The same value from two mappers: every name, kind, number and time. */
static void assert_same_value(const struct zvm_value *a,
                              const struct zvm_value *b) {
  assert_ptr_equal(a->record, b->record);
  assert_ptr_equal(a->layout, b->layout);
  assert_string_equal(a->host, b->host);
  assert_string_equal(a->plugin != NULL ? a->plugin : "zvm_monitor",
                      b->plugin != NULL ? b->plugin : "zvm_monitor");
  assert_string_equal(a->plugin_instance, b->plugin_instance);
  assert_string_equal(a->type, b->type);
  assert_string_equal(a->type_instance, b->type_instance);
  assert_int_equal(a->time_us, b->time_us);
  assert_int_equal(a->nitems, b->nitems);
  if (a->nitems == 0) {
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->derive, b->derive);
    assert_true(a->gauge == b->gauge);
  }
  for (size_t i = 0; i < a->nitems; i++) {
    assert_int_equal(a->items[i].kind, b->items[i].kind);
    assert_int_equal(a->items[i].derive, b->items[i].derive);
    assert_true(a->items[i].gauge == b->items[i].gauge);
  }
}

/* The records after the reset: LINUX07 at 20 s (salt 3), a D5R21 end of
 * change whose start was not seen. */
static void add_after_reset(struct fx *f) {
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC + 20, 0), 3, 200);
  add_prcsmt(&f->mf.rs, tb_tod(SEC + 20, 0), 3, 0x40, 2,
             (const struct cputinfo[]){{0x03, 2, 2, 2, 2}}, 1);
}

/* A reset mapper maps what follows as a new one does: nothing of its
 * past (a guest's transactions, its last time, a D5R21 change under way,
 * the counters, the leap-second estimate) shows. */
static void test_reset_is_new(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  /* A past: two passes of LINUX07 at 50 and 51 s (UTC), its records 27 s
   * ahead of UTC (a leap-second estimate from the sets' arrival), a
   * D5R21 start of change and a truncated set. */
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC + 27 + 50, 0), 1, 200);
  add_useite(&f->mf.rs, "LINUX09", tb_tod(SEC + 27 + 50, 0), 2, 200);
  add_prcsmt(&f->mf.rs, tb_tod(SEC + 27 + 50, 0), 3, 0x80, 2,
             (const struct cputinfo[]){{0x03, 2, 2, 1, 1}}, 1);
  pass_at(f, TB_DOM(4) | TB_DOM(5), US(SEC + 50, 200000));
  assert_int_equal(f->nn, 1); /* the start of change 2 */
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC + 27 + 51, 0), 2, 200);
  /* LINUX09 at its old time again: restamped; a blank user ID: skipped */
  add_useite(&f->mf.rs, "LINUX09", tb_tod(SEC + 27 + 50, 0), 3, 200);
  add_useite(&f->mf.rs, "", tb_tod(SEC + 27 + 51, 0), 4, 200);
  make_set(&f->mf.set, TB_DOM(4), &f->mf.rs);
  zvm_mapper_add_set_at(f->mf.m, f->mf.set.data, f->mf.set.len - 1,
                        US(SEC + 51, 200000));
  pass_at(f, TB_DOM(4), US(SEC + 51, 200000));
  expect_user(f, "", "LINUX07", 2, 2, US(SEC + 51, 0));
  assert_int_equal(restamped(f), 1);
  assert_int_equal(reader_value(f, "total_objects", "skipped"), 1);
  assert_int_equal(zvm_mapper_get_stats(f->mf.m)->leap_us, 27000000);
  assert_int_equal(zvm_mapper_get_stats(f->mf.m)->users_tracked, 2);
  zvm_mapper_set_clock_leap(f->mf.m, true, 5000000);
  /* A pass under way when the mapper is reset. */
  add_useite(&f->mf.rs, "LINUX08", tb_tod(SEC + 60, 0), 4, 200);
  add_prcsmt(&f->mf.rs, tb_tod(SEC + 60, 0), 5, 0x80, 2,
             (const struct cputinfo[]){{0x03, 2, 2, 2, 2}}, 1);
  make_set(&f->mf.set, TB_DOM(4) | TB_DOM(5), &f->mf.rs);
  zvm_mapper_add_set(f->mf.m, f->mf.set.data, f->mf.set.len);
  tb_reset(&f->mf.rs);

  zvm_mapper_reset(f->mf.m);
  f->nseen = 0; /* a new history of times */
  const struct zvm_mapper_stats *ms = zvm_mapper_get_stats(f->mf.m);
  assert_int_equal(ms->users_tracked, 0);
  assert_int_equal(ms->restamped, 0);
  assert_int_equal(zvm_mapper_decode_stats(f->mf.m)->walk.records, 0);
  size_t nn;
  (void)zvm_mapper_notifications(f->mf.m, &nn);
  assert_int_equal(nn, 0);

  /* The same sets into the reset mapper and into a new one. */
  struct zvm_mapper *fresh = zvm_mapper_create(&f->mf.conf);
  assert_non_null(fresh);
  add_after_reset(f);
  make_set(&f->mf.set, TB_DOM(4) | TB_DOM(5), &f->mf.rs);
  zvm_mapper_add_set_at(fresh, f->mf.set.data, f->mf.set.len, US(SEC + 21, 0));
  assert_int_equal(zvm_mapper_finish(fresh, NOW, NULL), 0);
  pass_at(f, TB_DOM(4) | TB_DOM(5), US(SEC + 21, 0));

  /* Decoded from the bytes: LINUX07's first transaction, stamped with its
   * record's time (not after its past 51 s), no leap-second offset; the
   * change's end without its start; nothing of LINUX08 or LINUX09. */
  expect_user(f, "", "LINUX07", 3, 1, US(SEC + 20, 0));
  expect_gauge(f, "", "ifl", "threads", "activated", 2, US(SEC + 20, 0));
  expect_gauge(f, "", "system", "gauge", "mt_config_seq", 3, US(SEC + 20, 0));
  assert_int_equal(count_pi(f, "", "LINUX08"), 0);
  assert_int_equal(count_pi(f, "", "LINUX09"), 0);
  assert_int_equal(reader_value(f, "total_objects", "records"), 2);
  assert_int_equal(reader_value(f, "errors", "malformed"), 0);
  assert_int_equal(reader_value(f, "total_objects", "skipped"), 0);
  assert_int_equal(restamped(f), 0);
  assert_int_equal(f->nn, 1);
  assert_string_equal(f->n[0].message,
                      "multithreading configuration change 2 ended "
                      "(RCCSMTSQ 3); activated threads per core: ifl ? -> 2; "
                      "the start of this change was not seen");
  assert_int_equal(ms->leap_method, ZVM_LEAP_ARRIVAL);
  assert_int_equal(ms->leap_us, 0);
  assert_int_equal(ms->users_tracked, 1);

  /* Value by value, the same as the new mapper's. */
  struct zvm_value_iter ia = ZVM_VALUE_ITER_INIT, ib = ZVM_VALUE_ITER_INIT;
  struct zvm_value a, b;
  size_t n = 0;
  for (;;) {
    bool more = zvm_mapper_next_value(f->mf.m, &ia, &a);
    assert_int_equal(more, zvm_mapper_next_value(fresh, &ib, &b));
    if (!more)
      break;
    assert_same_value(&a, &b);
    n++;
  }
  assert_int_equal(n, f->nv);
  const struct zvm_notification *nb = zvm_mapper_notifications(fresh, &nn);
  assert_int_equal(nn, f->nn);
  assert_int_equal(nb[0].time_us, f->n[0].time_us);
  assert_string_equal(nb[0].message, f->n[0].message);
  const struct zvm_mapper_stats *fs = zvm_mapper_get_stats(fresh);
  assert_int_equal(fs->users_tracked, ms->users_tracked);
  assert_int_equal(fs->users_dropped, ms->users_dropped);
  assert_int_equal(fs->users_expired, ms->users_expired);
  assert_int_equal(fs->no_userid, ms->no_userid);
  assert_int_equal(fs->restamped, ms->restamped);
  assert_int_equal(fs->pass_timed, ms->pass_timed);
  assert_int_equal(fs->pass_restamped, ms->pass_restamped);
  assert_int_equal(fs->leap_us, ms->leap_us);
  assert_int_equal(fs->leap_method, ms->leap_method);
  const struct zvm_decode_stats *da = zvm_mapper_decode_stats(f->mf.m),
                                *db = zvm_mapper_decode_stats(fresh);
  assert_int_equal(da->walk.records, db->walk.records);
  assert_int_equal(da->walk.malformed, db->walk.malformed);
  assert_int_equal(da->unknown, db->unknown);
  assert_int_equal(da->array_rejected, db->array_rejected);
  assert_int_equal(zvm_mapper_type_count(fresh),
                   zvm_mapper_type_count(f->mf.m));
  zvm_mapper_destroy(fresh);
}

/* ------------------------------------------------------------------------
 * Reader counters.
 */
/* A data set with trouble of every kind the walk and the mapper count,
 * for a mapper with "UserID LINUX07". */
static void add_troubled_set(struct fx *f) {
  /* Set 1: two record sets. The first: a D4R10 of a filtered user, an
   * unknown D0R1, a D5R21 whose array lies outside it, D1R13 plus
   * padding, then a record with MRHDRLEN 8 (malformed: rest skipped). */
  struct tb_frames fr;
  struct tb rec;
  tb_init(&rec);
  tb_frames_init(&fr, DCSS_ADDR, 0xEE, tb_tod(SEC, 1));
  add_useite(&rec, "DB2", tb_tod(SEC, 1), 0, 200);
  tb_frames_add(&fr, &rec);
  tb_reset(&rec);
  tb_record(&rec, 116, 0, 1, tb_tod(SEC, 1));
  tb_frames_add(&fr, &rec);
  tb_reset(&rec);
  add_prcsmt(&rec, tb_tod(SEC, 1), 2, 0, 2,
             (const struct cputinfo[]){{3, 2, 2, 2, 2}}, 1);
  tb_put_u16(&rec, 32, 40); /* CPUTAOFF: entry 0 would end at 48 > 44 */
  tb_frames_add(&fr, &rec);
  tb_reset(&rec);
  /* Fill the frame so the next record needs a D1R13 before it. */
  tb_record(&rec, 3700, 1, 99, tb_tod(SEC, 1)); /* unknown D1 record */
  tb_frames_add(&fr, &rec);
  tb_reset(&rec);
  add_useite(&rec, "LINUX07", tb_tod(SEC, 1), 7, 200);
  tb_frames_add(&fr, &rec); /* after D1R13 + padding */
  tb_reset(&rec);
  tb_record(&rec, 20, 4, 10, 0);
  tb_put_u16(&rec, 0, 8);
  tb_frames_add(&fr, &rec);
  tb_reset(&rec);
  add_useite(&rec, "LINUX07", tb_tod(SEC, 2), 8, 200); /* never reached */
  tb_frames_add(&fr, &rec);

  tb_reset(&f->mf.set);
  tb_record_set(&f->mf.set, 0xC5, TB_DOM(0) | TB_DOM(1) | TB_DOM(4) | TB_DOM(5),
                DCSS_ADDR, &fr.rs);
  /* Second record set: an MCE with no domain bits is rejected. */
  tb_reset(&rec);
  add_useite(&rec, "LINUX07", tb_tod(SEC, 3), 9, 200);
  tb_record_set(&f->mf.set, 0xC5, 0, DCSS_ADDR + 0x10000, &rec);
  zvm_mapper_add_set(f->mf.m, f->mf.set.data, f->mf.set.len);
  tb_free(&rec);
  tb_frames_free(&fr);
}

static void test_reader_counters(void **state) {
  struct fx *f = *state;
  mapper_fx_option(&f->mf, "UserID", "LINUX07");
  mapper_fx_start(&f->mf);
  add_troubled_set(f);

  struct zvm_source_health rs = {
      .bytes_read = 123456789,
      .sets = 7,
      .eio = 3,
      .efault = 4,
      .eoverflow = 5,
      .open_errors = 6,
      .oversize = 2,
      .stream_errors = 8,
      .sets_dropped = 9,
  };
  finish(f, &rs);

  expect_user(f, "", "LINUX07", 7, 1, US(SEC, 1));
  assert_int_equal(reader_value(f, "errors", "eoverflow"), 5);
  assert_int_equal(reader_value(f, "errors", "eio"), 3);
  assert_int_equal(reader_value(f, "errors", "efault"), 4);
  assert_int_equal(reader_value(f, "errors", "open"), 6);
  assert_int_equal(reader_value(f, "errors", "stream"), 8);
  /* bad MRHDRLEN + rejected MCE + array outside + 2 oversize sets */
  assert_int_equal(reader_value(f, "errors", "malformed"), 5);
  assert_int_equal(reader_value(f, "total_objects", "sets"), 7);
  assert_int_equal(reader_value(f, "total_objects", "sets_dropped"), 9);
  /* DB2, D0R1, D5R21, D1R99, D1R13, LINUX07 */
  assert_int_equal(reader_value(f, "total_objects", "records"), 6);
  /* DB2 (UserID), D0R1 and D1R99 (unknown) */
  assert_int_equal(reader_value(f, "total_objects", "skipped"), 3);
  assert_int_equal(reader_value(f, "total_bytes", "read"), 123456789);
  /* The D5R21 with the unusable array keeps its fixed part. */
  assert_int_equal(count_pi(f, "", "ifl"), 0);
  expect_gauge(f, "", "system", "gauge", "mt_config_seq", 2, US(SEC, 1));
  assert_int_equal(f->nv, READER_VALUES + MT_SYSTEM_VALUES + 1 + USEITE_NEXP);
}

/* zvm_mapper_reset() zeroes every counter and statistic, whichever it
 * is: the counters are one part of the mapper, reset as a whole. Every
 * counter the data can move is made nonzero first; after the reset,
 * every reader value and every statistic is 0. */
static void test_reset_zeroes_counters(void **state) {
  struct fx *f = *state;
  mapper_fx_option(&f->mf, "UserID", "LINUX07");
  mapper_fx_start(&f->mf);
  add_troubled_set(f);
  /* A record of 2043 (time_future) and a blank user ID. */
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC_2043, 0), 1, 200);
  add_useite(&f->mf.rs, "", tb_tod(SEC, 5), 2, 200);
  pass_at(f, TB_DOM(4), US(SEC + 60, 0));
  /* Then an older, shorter record: restamped, short. */
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 4), 3, 102);
  make_set(&f->mf.set, TB_DOM(4), &f->mf.rs);
  tb_reset(&f->mf.rs);
  zvm_mapper_add_set_at(f->mf.m, f->mf.set.data, f->mf.set.len,
                        US(SEC + 61, 0));
  const struct zvm_source_health health = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  finish(f, &health);
  static const char *const moved[][2] = {
      {"errors", "malformed"},        {"total_objects", "records"},
      {"total_objects", "skipped"},   {"total_objects", "short_records"},
      {"total_objects", "restamped"}, {"total_objects", "time_future"},
  };
  for (size_t i = 0; i < sizeof(moved) / sizeof(moved[0]); i++)
    if (reader_value(f, moved[i][0], moved[i][1]) == 0)
      fail_msg("reader/%s-%s is 0 before the reset", moved[i][0], moved[i][1]);
  const struct zvm_mapper_stats *ms = zvm_mapper_get_stats(f->mf.m);
  const struct zvm_decode_stats *ds = zvm_mapper_decode_stats(f->mf.m);
  assert_true(ms->users_tracked > 0 && ms->restamped > 0 &&
              ms->time_future > 0 && ms->pass_timed > 0);
  assert_true(ds->walk.records > 0 && ds->walk.malformed > 0 &&
              ds->walk.mce_rejected > 0 && ds->unknown > 0 &&
              ds->array_rejected > 0);

  zvm_mapper_reset(f->mf.m);
  f->nseen = 0;
  static const struct zvm_decode_stats no_decode;
  assert_memory_equal(ds, &no_decode, sizeof(no_decode));
  assert_int_equal(ms->users_tracked, 0);
  assert_int_equal(ms->users_dropped, 0);
  assert_int_equal(ms->users_expired, 0);
  assert_int_equal(ms->no_userid, 0);
  assert_int_equal(ms->guest_tracked, 0);
  assert_int_equal(ms->guest_dropped, 0);
  assert_int_equal(ms->pass_guest_dropped, 0);
  assert_int_equal(ms->restamped, 0);
  assert_int_equal(ms->time_future, 0);
  assert_int_equal(ms->pass_timed, 0);
  assert_int_equal(ms->pass_restamped, 0);
  assert_int_equal(ms->pass_future, 0);
  assert_int_equal(ms->leap_us, 0);
  finish(f, NULL);
  assert_int_equal(f->nv, READER_VALUES);
  for (size_t i = 0; i < f->nv; i++)
    if (f->v[i].derive != 0)
      fail_msg("reader/%s-%s is %lld after the reset", f->v[i].type,
               f->v[i].type_instance, (long long)f->v[i].derive);
}

static void test_reader_counters_off(void **state) {
  struct fx *f = *state;
  f->mf.conf.report_reader_stats = false;
  mapper_fx_start(&f->mf);
  add_useite(&f->mf.rs, "LINUX07", tb_tod(SEC, 1), 0, 200);
  pass(f, TB_DOM(4));
  assert_int_equal(count_pi(f, "", "reader"), 0);
  expect_user(f, "", "LINUX07", 0, 1, US(SEC, 1));
  assert_int_equal(f->nv, 1 + USEITE_NEXP);
}

/* A registered type's types.db line (zvm_types_db_compare()). */
static int mapper_type_line(size_t i, char *buf, size_t size, void *ctx) {
  return zvm_layout_types_db_line(zvm_mapper_type_at(ctx, i), buf, size);
}

/* The shipped contrib/zvm_monitor.types.db holds exactly the types the
 * plugin registers, in order (regenerate it with 'make types-db'). */
static void test_shipped_types_db(void **state) {
  struct fx *f = *state;
  f->mf.conf.one_value_per_list = false;
  mapper_fx_start(&f->mf);
  char err[1024] = "";
  size_t n = zvm_mapper_type_count(f->mf.m);
  if (zvm_types_db_compare(ZVM_TYPES_DB, n, mapper_type_line, f->mf.m, err,
                           sizeof(err)) != 0)
    fail_msg("%s (run 'make types-db')", err);
  assert_int_equal(n, builtin_types());
  assert_string_equal(zvm_mapper_type_at(f->mf.m, 0)->type_name, "zvm_useite");
  assert_string_equal(zvm_mapper_type_at(f->mf.m, 1)->type_name, "zvm_prcsmt");
  assert_string_equal(zvm_mapper_type_at(f->mf.m, 2)->type_name,
                      "zvm_prcsmt_cpu");
  assert_string_equal(zvm_mapper_type_at(f->mf.m, 3)->type_name, "zvm_sytprp");
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_useite_every_field),
      T(test_useite_short_record),
      T(test_userfield_selection),
      T(test_default_useite_one_list),
      T(test_neutral_value_model),
      T(test_shipped_types_db),
      T(test_guests_as_hosts),
      T(test_hostile_userid),
      T(test_blank_userid),
      T(test_userid_exact_and_regex),
      T(test_userid_ignore_selected),
      T(test_domain_selection),
      T(test_useite_per_vmdbk),
      T(test_report_by_virtual_cpu),
      T(test_useite_logoff_restarts),
      T(test_useite_becomes_mp),
      T(test_aggregation_latest_wins),
      T(test_time_rule_restamps),
      T(test_future_record),
      T(test_tod_wrap_and_leap),
      T(test_leap_estimated),
      T(test_unusable_tod),
      T(test_truncated_set_yields_nothing),
      T(test_expiry),
      T(test_prcsmt_start_and_end),
      T(test_prcsmt_one_pass),
      T(test_prcsmt_end_without_start),
      T(test_prcsmt_every_field),
      T(test_reset_is_new),
      T(test_reader_counters),
      T(test_reset_zeroes_counters),
      T(test_reader_counters_off),
#undef T
  };
  return cmocka_run_group_tests_name("mapper", tests, NULL, NULL);
}
