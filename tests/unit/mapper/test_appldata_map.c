/* SPDX-License-Identifier: MIT */
/*
 * APPLDATA (domain 10) through the record engine and the mapper: data
 * sets built byte by byte (tests/rig/builder.h, layouts from the kernel's
 * arch/s390/appldata and s390-tools' mon_tools), the mapper's values,
 * names, times and counters checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "conf_options.h"
#include "mapper_fixture.h"
#include "mapper_values.h"
#include "zvm_monitor/conf.h"
#include "zvm_monitor/mapper.h"

#define SEC 1700000000u
#define NOW ((uint64_t)(SEC + 1000) * 1000000u)
#define DCSS_ADDR 0x00400000u

struct fx {
  struct mapper_fx mf; /* conf, mapper m, builders rs and set */
  const struct zvm_value *v;
  size_t nv;
};

static int setup(void **state) {
  struct fx *f = calloc(1, sizeof(*f));
  assert_non_null(f);
  mapper_fx_init(&f->mf);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fx *f = *state;
  mapper_fx_free(&f->mf);
  free(f);
  return 0;
}

/* kernel os record: n CPUs (36-byte entries, ids given), CPU c's field f
 * = base + 10 * c + f; nr_running 3, nr_threads 120, loads 0.5/1/2. */
static void os_data(struct tb *d, uint32_t sync2, uint32_t n,
                    const uint32_t *ids, uint32_t base) {
  tb_reset(d);
  tb_u64(d, tb_tod(SEC, 0));
  tb_u32(d, 9);
  tb_u32(d, sync2);
  tb_u32(d, n);
  tb_u32(d, 36);
  tb_u32(d, 52);
  tb_u32(d, 3);
  tb_u32(d, 120);
  tb_u32(d, 1024 + 10);
  tb_u32(d, 2048 + 10);
  tb_u32(d, 4096 + 10);
  tb_u32(d, 1);
  for (uint32_t c = 0; c < n; c++) {
    for (uint32_t k = 0; k < 8; k++)
      tb_u32(d, base + 10 * c + k);
    tb_u32(d, ids[c]);
  }
}

static void mem_data(struct tb *d, uint64_t freeram) {
  tb_reset(d);
  tb_u64(d, tb_tod(SEC, 0));
  tb_u32(d, 1);
  tb_u32(d, 1);
  const uint64_t v[16] = {1, 2,  3,  4,   0,   1000, freeram, 0,
                          0, 10, 20, 500, 400, 5,    6,       7};
  for (int i = 0; i < 16; i++)
    tb_u64(d, v[i]);
}

static void fs_data(struct tb *d, const char *dir) {
  tb_reset(d);
  tb_u64(d, SEC);
  tb_u16(d, (uint16_t)(6 + 3 + strlen(dir) + 4 + 72));
  tb_u16(d, 12);
  tb_u16(d, 3);
  tb_bytes(d, "dev", 3);
  tb_u16(d, (uint16_t)strlen(dir));
  tb_bytes(d, dir, strlen(dir));
  tb_u16(d, 4);
  tb_bytes(d, "ext4", 4);
  const uint64_t v[9] = {4096, 4096, 100, 40, 30, 10, 5, 4, 0};
  for (int i = 0; i < 9; i++)
    tb_u64(d, v[i]);
}

/* Append a record to the record set being built. */
static void add(struct fx *f, uint32_t sec, const char *user, uint8_t record,
                const char *mod, const struct tb *d) {
  uint8_t prod[16];
  tb_apl_kernel_product(prod, record, mod);
  tb_appldata(&f->mf.rs, 2, tb_tod(sec, 0), user, prod, d->data, d->len);
}

static void add_tool(struct fx *f, uint32_t sec, const char *user,
                     uint16_t applid, uint8_t record, const struct tb *d) {
  uint8_t prod[16];
  tb_apl_tool_product(prod, applid, record, 0);
  tb_appldata(&f->mf.rs, 2, tb_tod(sec, 0), user, prod, d->data, d->len);
}

/* Map the record set as one sample data set in one pass. */
static void pass(struct fx *f) {
  if (f->mf.m == NULL) {
    mapper_fx_start(&f->mf);
  }
  tb_reset(&f->mf.set);
  tb_record_set(&f->mf.set, 0xE2, TB_DOM(10), DCSS_ADDR, &f->mf.rs);
  zvm_mapper_add_set(f->mf.m, f->mf.set.data, f->mf.set.len);
  assert_int_equal(zvm_mapper_finish(f->mf.m, NOW, NULL), 0);
  f->v = mapper_values(f->mf.m, &f->nv);
  tb_reset(&f->mf.rs);
  /* never one identifier twice in a pass */
  for (size_t i = 0; i < f->nv; i++)
    for (size_t j = i + 1; j < f->nv; j++)
      if (strcmp(f->v[i].host, f->v[j].host) == 0 &&
          (f->v[i].plugin == f->v[j].plugin ||
           (f->v[i].plugin && f->v[j].plugin &&
            strcmp(f->v[i].plugin, f->v[j].plugin) == 0)) &&
          strcmp(f->v[i].plugin_instance, f->v[j].plugin_instance) == 0 &&
          strcmp(f->v[i].type, f->v[j].type) == 0 &&
          strcmp(f->v[i].type_instance, f->v[j].type_instance) == 0)
        fail_msg("%s/%s-%s/%s-%s twice", f->v[i].host, f->v[i].plugin,
                 f->v[i].plugin_instance, f->v[i].type, f->v[i].type_instance);
}

/* The value with this identifier ("host/plugin[-inst]/type[-inst]"), or
 * NULL. */
static const struct zvm_value *find(const struct fx *f, const char *id) {
  for (size_t i = 0; i < f->nv; i++) {
    const struct zvm_value *v = &f->v[i];
    char buf[512];
    const char *pl = v->plugin != NULL ? v->plugin : "zvm_monitor";
    snprintf(buf, sizeof(buf), "%s/%s%s%s/%s%s%s", v->host, pl,
             v->plugin_instance[0] ? "-" : "", v->plugin_instance, v->type,
             v->type_instance[0] ? "-" : "", v->type_instance);
    if (strcmp(buf, id) == 0)
      return v;
  }
  return NULL;
}

static int64_t derive_of(const struct fx *f, const char *id) {
  const struct zvm_value *v = find(f, id);
  if (v == NULL)
    fail_msg("no value %s", id);
  assert_int_equal(v->nitems, 0);
  assert_int_equal(v->kind, ZVM_VALUE_DERIVE);
  return v->derive;
}

static double gauge_of(const struct fx *f, const char *id) {
  const struct zvm_value *v = find(f, id);
  if (v == NULL)
    fail_msg("no value %s", id);
  assert_int_equal(v->nitems, 0);
  assert_int_equal(v->kind, ZVM_VALUE_GAUGE);
  return v->gauge;
}

static uint64_t reader(const struct fx *f, const char *tinst) {
  for (size_t i = 0; i < f->nv; i++)
    if (strcmp(f->v[i].plugin_instance, "reader") == 0 &&
        strcmp(f->v[i].type_instance, tinst) == 0)
      return (uint64_t)f->v[i].derive;
  fail_msg("no reader counter %s", tinst);
  return 0;
}

/* LNXWEB1's os record (CPUs 0 and 3, fields from 100) and LNXDB's mem
 * record (200 KB free) at SEC + 10, mapped in one pass. */
static void pass_web_and_db(struct fx *f, struct tb *d) {
  const uint32_t ids[] = {0, 3};
  os_data(d, 9, 2, ids, 100);
  add(f, SEC + 10, "LNXWEB1", 2, "01", d);
  mem_data(d, 200);
  add(f, SEC + 10, "LNXDB", 1, "00", d);
  pass(f);
}

static void test_kernel_records(void **state) {
  struct fx *f = *state;
  struct tb d;
  tb_init(&d);
  pass_web_and_db(f, &d);
  const struct zvm_value *v = find(f, "lnxweb1/cpu-3/cpu-steal");
  assert_non_null(v);
  assert_int_equal(v->derive, 117);
  assert_int_equal(v->time_us, (uint64_t)(SEC + 10) * 1000000u);
  assert_int_equal(derive_of(f, "lnxweb1/cpu-0/cpu-user"), 100);
  assert_int_equal(derive_of(f, "lnxweb1/cpu-3/cpu-wait"), 116);
  assert_true(gauge_of(f, "lnxweb1/processes/ps_state-running") == 3);
  v = find(f, "lnxweb1/load/load");
  assert_non_null(v);
  assert_int_equal(v->nitems, 3);
  assert_true(v->items[0].gauge == 0.5 && v->items[1].gauge == 1 &&
              v->items[2].gauge == 2);
  assert_true(gauge_of(f, "lnxdb/memory/memory-free") == 200 * 1024.0);
  assert_true(gauge_of(f, "lnxdb/memory/memory-used") ==
              (1000 - 200 - 10 - 20) * 1024.0);
  v = find(f, "lnxdb/vmem/vmpage_io-memory");
  assert_non_null(v);
  assert_int_equal(v->nitems, 2);
  assert_int_equal(v->items[0].derive, 1);
  assert_int_equal(v->items[1].derive, 2);
  assert_null(find(f, "lnxdb/cpu-0/cpu-user"));
  tb_free(&d);
}

/* Two intervals in one pass: each identifier once, with the latest. */
static void test_latest_per_pass(void **state) {
  struct fx *f = *state;
  struct tb d;
  tb_init(&d);
  const uint32_t ids[] = {0};
  os_data(&d, 9, 1, ids, 100);
  add(f, SEC + 10, "LNXWEB1", 2, "01", &d);
  os_data(&d, 9, 1, ids, 500);
  add(f, SEC + 20, "LNXWEB1", 2, "01", &d);
  pass(f);
  assert_int_equal(derive_of(f, "lnxweb1/cpu-0/cpu-user"), 500);
  /* A record with an earlier TOD in the next pass (the z/VM clock was set
   * back) still comes, just after the last time (man page, "AGGREGATION AND
   * TIME STAMPS"). */
  os_data(&d, 9, 1, ids, 300);
  add(f, SEC + 15, "LNXWEB1", 2, "01", &d);
  pass(f);
  const struct zvm_value *v = find(f, "lnxweb1/cpu-0/cpu-user");
  assert_non_null(v);
  assert_int_equal(v->derive, 300);
  assert_int_equal(v->time_us, (uint64_t)(SEC + 20) * 1000000u + 1);
  /* CPU hot-plug: the next record has CPU 1 too. */
  const uint32_t ids2[] = {0, 1};
  os_data(&d, 9, 2, ids2, 900);
  add(f, SEC + 30, "LNXWEB1", 2, "01", &d);
  pass(f);
  assert_int_equal(derive_of(f, "lnxweb1/cpu-1/cpu-user"), 910);
  assert_true(gauge_of(f, "lnxweb1/cpu/count") == 2);
  tb_free(&d);
}

/* A guest's value in no front end's terms (the record, the guest as
 * instance, the list's family, member, metric, label and item names), and
 * collectd's identifiers made from it at the edge: as collectd's own
 * plugins on the guest name it, or, with ApplDataNaming zvm_monitor, under
 * zvm_monitor on the daemon's host, the neutral view unchanged. */
static void check_neutral(const struct zvm_value *v, const char *instance,
                          const char *family, const char *member,
                          const char *metric, const char *label,
                          const char *const *item_names, size_t n) {
  assert_non_null(v);
  assert_non_null(v->record);
  assert_int_equal(v->record->domain, 10);
  assert_int_equal(v->record->number, 2);
  assert_string_equal(v->instance, instance);
  assert_null(v->field);
  assert_non_null(v->list);
  assert_string_equal(v->list->family, family);
  assert_string_equal(v->list->member, member);
  assert_string_equal(v->list->metric, metric);
  assert_string_equal(v->list->label, label);
  assert_int_equal(v->nitems > 0 ? v->nitems : 1, n);
  for (size_t i = 0; i < n; i++)
    assert_string_equal(v->list->item_names[i], item_names[i]);
}

static void test_neutral_view(void **state) {
  struct fx *f = *state;
  static const char *const value[] = {"value"};
  static const char *const in_out[] = {"in", "out"};
  struct tb d;
  tb_init(&d);
  pass_web_and_db(f, &d);
  const struct zvm_value *v = find(f, "lnxweb1/cpu-3/cpu-steal");
  check_neutral(v, "LNXWEB1", "cpu", "3", "cpu", "steal", value, 1);
  assert_int_equal(v->kind, ZVM_VALUE_DERIVE);
  assert_int_equal(v->derive, 117);
  assert_string_equal(v->host, "lnxweb1");
  assert_string_equal(v->plugin, "cpu");
  assert_string_equal(v->plugin_instance, "3");
  assert_string_equal(v->type, "cpu");
  assert_string_equal(v->type_instance, "steal");
  v = find(f, "lnxdb/vmem/vmpage_io-memory");
  check_neutral(v, "LNXDB", "vmem", "", "vmpage_io", "memory", in_out, 2);
  assert_int_equal(v->items[0].derive, 1);
  /* The source's health: no list; its counter's name is the field. */
  v = find(f, "/zvm_monitor-reader/errors-eoverflow");
  assert_non_null(v);
  assert_null(v->list);
  assert_string_equal(v->instance, "reader");
  assert_string_equal(v->field, "eoverflow");
  tb_free(&d);

  /* ApplDataNaming zvm_monitor: the same neutral view, other names. */
  mapper_fx_free(&f->mf);
  mapper_fx_init(&f->mf);
  mapper_fx_option(&f->mf, "ApplDataNaming", "zvm_monitor");
  tb_init(&d);
  const uint32_t ids[] = {0, 3};
  os_data(&d, 9, 2, ids, 100);
  add(f, SEC + 10, "LNXWEB1", 2, "01", &d);
  pass(f);
  v = find(f, "/zvm_monitor-LNXWEB1-cpu-3/cpu-steal");
  check_neutral(v, "LNXWEB1", "cpu", "3", "cpu", "steal", value, 1);
  assert_int_equal(v->derive, 117);
  assert_string_equal(v->host, "");
  assert_null(v->plugin);
  assert_string_equal(v->plugin_instance, "LNXWEB1-cpu-3");
  v = find(f, "/zvm_monitor-LNXWEB1-load/load");
  static const char *const terms[] = {"shortterm", "midterm", "longterm"};
  check_neutral(v, "LNXWEB1", "load", "", "load", "", terms, 3);
  tb_free(&d);
}

/* Torn, unknown, bad: no values, each counted. */
static void test_counted(void **state) {
  struct fx *f = *state;
  struct tb d;
  tb_init(&d);
  const uint32_t ids[] = {0};
  os_data(&d, 8, 1, ids, 100); /* sync_count_2 8 != sync_count_1 9 */
  add(f, SEC + 10, "LNXWEB1", 2, "01", &d);
  mem_data(&d, 100);
  add(f, SEC + 10, "LNXWEB1", 4, "00", &d); /* record 4: unknown */
  d.len = 100;                              /* mem record cut short */
  add(f, SEC + 10, "LNXWEB1", 1, "00", &d);
  pass(f);
  assert_int_equal(reader(f, "appldata_torn"), 1);
  assert_int_equal(reader(f, "appldata_unknown"), 1);
  assert_int_equal(reader(f, "malformed"), 1);
  assert_int_equal(reader(f, "skipped"), 3);
  assert_int_equal(reader(f, "records"), 3);
  for (size_t i = 0; i < f->nv; i++)
    assert_string_equal(f->v[i].plugin_instance, "reader");
  tb_free(&d);
}

/* ApplDataKinds, UserID, ApplDataNaming. */
static void test_options(void **state) {
  struct fx *f = *state;
  mapper_fx_option(&f->mf, "ApplDataKinds", "mem");
  mapper_fx_option(&f->mf, "ApplDataKinds", "fsstat");
  mapper_fx_option(&f->mf, "ApplDataNaming", "zvm_monitor");
  mapper_fx_option(&f->mf, "UserID", "/^LNXW/");
  struct tb d;
  tb_init(&d);
  const uint32_t ids[] = {0};
  os_data(&d, 9, 1, ids, 100);
  add(f, SEC + 10, "LNXWEB1", 2, "01", &d);
  mem_data(&d, 100);
  add(f, SEC + 10, "LNXWEB1", 1, "00", &d);
  add(f, SEC + 10, "LNXDB", 1, "00", &d);
  fs_data(&d, "/var/log");
  add_tool(f, SEC + 10, "LNXWEB1", 1, 0, &d);
  pass(f);
  assert_true(gauge_of(f, "/zvm_monitor-LNXWEB1-memory/memory-free") ==
              100 * 1024.0);
  assert_true(gauge_of(f, "/zvm_monitor-LNXWEB1-df-var-log/df_complex-used") ==
              60 * 4096.0);
  assert_null(find(f, "/zvm_monitor-LNXWEB1-cpu-0/cpu-user"));
  assert_null(find(f, "/zvm_monitor-LNXDB-memory/memory-free"));
  char err[256];
  assert_int_equal(zvm_conf_set_string(&f->mf.conf, "ApplDataKinds", "disk",
                                       err, sizeof(err)),
                   -1);
  assert_non_null(strstr(err, "ApplDataKinds \"disk\""));
  assert_int_equal(zvm_conf_set_string(&f->mf.conf, "ApplDataNaming",
                                       "graphite", err, sizeof(err)),
                   -1);
  /* Options for domain 10 while Domain leaves it out: an error, not
   * silence. */
  assert_int_equal(zvm_conf_check(&f->mf.conf, err, sizeof(err)), 0);
  mapper_fx_option(&f->mf, "Domain", "user");
  assert_int_equal(zvm_conf_check(&f->mf.conf, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "add Domain \"appldata\""));
  mapper_fx_option(&f->mf, "Domain", "appldata");
  assert_int_equal(zvm_conf_check(&f->mf.conf, err, sizeof(err)), 0);
  tb_free(&d);
}

/* Mount points df names alike ("/a-b", "/a/b") are one instance: one set
 * of values per pass, the latest record's. */
static void test_df_name_collision(void **state) {
  struct fx *f = *state;
  struct tb d;
  tb_init(&d);
  fs_data(&d, "/a-b");
  add_tool(f, SEC + 10, "LNXWEB1", 1, 0, &d);
  fs_data(&d, "/a/b");
  tb_put_u64(&d, 12 + 2 + 3 + 2 + 4 + 2 + 4 + 16, 1000); /* blocks */
  add_tool(f, SEC + 11, "LNXWEB1", 1, 0, &d);
  pass(f);
  assert_true(gauge_of(f, "lnxweb1/df-a-b/df_complex-used") ==
              (1000 - 40) * 4096.0);
  tb_free(&d);
}

/* One guest writing 70,000 distinct mount points (mon_fsstatd through
 * /dev/monwriter: the guest chooses every name), then a guest that logs
 * on later: its D4R10 values and its own APPLDATA still go out. The
 * flooding guest holds ApplDataInstancesPerGuest (4096) instances; the
 * records of the others are counted in appldata_dropped, and the monitor's
 * own records (D4R10) never compete with them. */
#define FLOOD_MOUNTS 70000
#define FLOOD_PER_SET 1000

static void flood(struct fx *f, const char *guest, unsigned from, unsigned n) {
  struct tb d;
  tb_init(&d);
  if (f->mf.m == NULL)
    mapper_fx_start(&f->mf);
  for (unsigned k = from; k < from + n; k += FLOOD_PER_SET) {
    for (unsigned i = k; i < k + FLOOD_PER_SET && i < from + n; i++) {
      char dir[32];
      snprintf(dir, sizeof(dir), "/overlay/%08x", i);
      fs_data(&d, dir);
      add_tool(f, SEC + 10, guest, 1, 0, &d);
    }
    tb_reset(&f->mf.set);
    tb_record_set(&f->mf.set, 0xE2, TB_DOM(10), DCSS_ADDR, &f->mf.rs);
    zvm_mapper_add_set(f->mf.m, f->mf.set.data, f->mf.set.len);
    tb_reset(&f->mf.rs);
  }
  assert_int_equal(zvm_mapper_finish(f->mf.m, NOW, NULL), 0);
  tb_free(&d);
}

static void per_guest(struct fx *f, double n) {
  char err[256];
  if (zvm_conf_set_number(&f->mf.conf, "ApplDataInstancesPerGuest", n, err,
                          sizeof(err)) != 0)
    fail_msg("%s", err);
}

static void test_flood_then_new_guest(void **state) {
  struct fx *f = *state;
  flood(f, "LNXFLOOD", 0, FLOOD_MOUNTS);
  f->v = mapper_values(f->mf.m, &f->nv);
  assert_int_equal(reader(f, "appldata_dropped"), FLOOD_MOUNTS - 4096);
  assert_int_equal(reader(f, "skipped"), 0);

  /* LINUX99 logs on: a D4R10 record and its kernel's mem record. */
  struct tb d;
  tb_init(&d);
  size_t r = tb_record(&f->mf.rs, 200, 4, 10, tb_tod(SEC + 20, 0));
  tb_put_ebcdic(&f->mf.rs, r + 20, "LINUX99", 8);
  tb_put_u8(&f->mf.rs, r + 47, 0x80); /* CALBASE */
  mem_data(&d, 123);
  add(f, SEC + 20, "LINUX99", 1, "00", &d);
  fs_data(&d, "/");
  add_tool(f, SEC + 20, "LINUX99", 1, 0, &d);
  tb_reset(&f->mf.set);
  tb_record_set(&f->mf.set, 0xE2, TB_DOM(4) | TB_DOM(10), DCSS_ADDR, &f->mf.rs);
  zvm_mapper_add_set(f->mf.m, f->mf.set.data, f->mf.set.len);
  tb_reset(&f->mf.rs);
  assert_int_equal(zvm_mapper_finish(f->mf.m, NOW, NULL), 0);
  f->v = mapper_values(f->mf.m, &f->nv);
  size_t d4r10 = 0;
  for (size_t i = 0; i < f->nv; i++)
    d4r10 += strcmp(f->v[i].plugin_instance, "LINUX99") == 0;
  assert_true(d4r10 > 0);
  assert_true(gauge_of(f, "linux99/memory/memory-free") == 123 * 1024.0);
  assert_true(gauge_of(f, "linux99/df-root/df_complex-used") == 60 * 4096.0);
  assert_int_equal(reader(f, "appldata_dropped"), FLOOD_MOUNTS - 4096);
  tb_free(&d);
}

/* The guest responsible is named for the log (escaped as in identifiers),
 * once per pass; a lower ApplDataInstancesPerGuest is the guest's cap; a
 * pool full of capped guests keeps its reserve for a guest with few
 * instances. */
static void test_flood_noted(void **state) {
  struct fx *f = *state;
  per_guest(f, 100);
  flood(f, "LNX.1", 0, 150);
  const struct zvm_mapper_stats *ms = zvm_mapper_get_stats(f->mf.m);
  assert_int_equal(ms->pass_guest_dropped, 50);
  assert_int_equal(ms->guest_tracked, 100);
  assert_string_equal(ms->first_guest_drop.guest, "LNX%4B1");
  assert_int_equal(ms->first_guest_drop.held, 100);
  assert_int_equal(ms->first_guest_drop.limit, 100);
  assert_false(ms->first_guest_drop.pool_full);
  assert_string_equal(ms->first_guest_drop.counter, "appldata_dropped");
  /* The next pass without new instances: nothing refused. */
  flood(f, "LNX.1", 0, 100);
  assert_int_equal(ms->pass_guest_dropped, 0);
  assert_int_equal(ms->guest_dropped, 50);
}

/* Many guests at their cap fill the pool up to its reserve; a guest with
 * few instances still gets in, one with many does not, and the note names
 * the guest holding the most. */
static void test_pool_reserve(void **state) {
  struct fx *f = *state;
  per_guest(f, 8192);
  const unsigned full =
      ZVM_MAPPER_MAX_GUEST_INSTANCES - ZVM_MAPPER_GUEST_RESERVE; /* 57344 */
  char guest[9];
  for (unsigned g = 0; g < 7; g++) {
    snprintf(guest, sizeof(guest), "LNXBIG%u", g);
    flood(f, guest, 0, 8192);
  }
  const struct zvm_mapper_stats *ms = zvm_mapper_get_stats(f->mf.m);
  assert_int_equal(ms->guest_tracked, full);
  assert_int_equal(ms->guest_dropped, 0);
  /* Within the reserve: a guest with few instances gets in. */
  flood(f, "LNXSMALL", 0, ZVM_MAPPER_GUEST_RESERVE_BELOW);
  assert_int_equal(ms->pass_guest_dropped, 0);
  /* ...but not beyond ZVM_MAPPER_GUEST_RESERVE_BELOW, nor a big one. */
  flood(f, "LNXSMALL", ZVM_MAPPER_GUEST_RESERVE_BELOW, 1);
  assert_int_equal(ms->pass_guest_dropped, 1);
  assert_true(ms->first_guest_drop.pool_full);
  assert_string_equal(ms->first_guest_drop.guest, "LNXSMALL");
  assert_int_equal(ms->first_guest_drop.top_held, 8192);
  assert_memory_equal(ms->first_guest_drop.top, "LNXBIG", 6);
  flood(f, "LNXBIG0", 8192, 1);
  assert_int_equal(ms->pass_guest_dropped, 1);
  assert_int_equal(ms->guest_tracked, full + ZVM_MAPPER_GUEST_RESERVE_BELOW);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_kernel_records, setup, teardown),
      cmocka_unit_test_setup_teardown(test_latest_per_pass, setup, teardown),
      cmocka_unit_test_setup_teardown(test_counted, setup, teardown),
      cmocka_unit_test_setup_teardown(test_neutral_view, setup, teardown),
      cmocka_unit_test_setup_teardown(test_options, setup, teardown),
      cmocka_unit_test_setup_teardown(test_df_name_collision, setup, teardown),
      cmocka_unit_test_setup_teardown(test_flood_then_new_guest, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_flood_noted, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pool_reserve, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
