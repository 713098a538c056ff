/* SPDX-License-Identifier: MIT */
/*
 * The record engine with descriptors built at run time, as <Record> blocks
 * and later records will build them, through the configuration's
 * registry and the mapper: field types (TOD, CPU timer, counting down,
 * scale), instance keys and naming, and every hook step. Values are
 * decoded from bytes written here at the offsets the test descriptors
 * name. (The registry and the descriptor checks alone:
 * tests/unit/engine/test_engine.c.)
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
#include "engine/hooks.h"
#include "mapper_fixture.h"
#include "mapper_values.h"
#include "proc_record.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/conf.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/mapper.h"
#include "zvm_monitor/registry.h"
#include "zvm_monitor/typesdb.h"

/* Value-list types of the built-in records (builtin_types.h). */
#define BUILTIN_TYPES builtin_types()
/* Reader counters in every pass (the man page lists them). */
#define READER_VALUES 17 /* fourteen of the reader, three of APPLDATA */
#define APPLDATA_COUNTERS 3
#define SEC 1700000000u
#define US(sec, micro) ((uint64_t)(sec)*1000000u + (micro))
#define NOW US(SEC + 100, 0)

static void add_proc(struct tb *rs, uint64_t tod, uint16_t cpuad, uint16_t disp,
                     uint64_t emul_us, uint64_t utime_us, uint64_t stamp_tod,
                     int16_t level) {
  size_t r = tb_record(rs, 58, 0, 99, tod);
  tb_put_u16(rs, r + 20, cpuad);
  tb_put_u16(rs, r + 22, disp);
  tb_put_u64(rs, r + 24, UINT64_C(0x7FFFFFFFFFFFFFFF) - (emul_us << 12));
  tb_put_u64(rs, r + 32, utime_us << 12);
  tb_put_u64(rs, r + 40, stamp_tod);
  tb_put_u16(rs, r + 48, (uint16_t)level);
  for (unsigned q = 0; q < 4; q++)
    tb_put_u16(rs, r + 50 + 2 * q, (uint16_t)(100 * (q + 1) + cpuad));
}

/* ------------------------------------------------------------------------
 * Fixture: a configuration whose registry gets test descriptors.
 */
struct fx {
  struct mapper_fx mf; /* conf, mapper m, builders rs and set */
  const struct zvm_value *v;
  size_t nv;
  const struct zvm_notification *n;
  size_t nn;
  char err[256];
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

static void add(struct fx *f, const struct zvm_record_desc *d) {
  if (zvm_registry_add(f->mf.conf.records, d, false, NULL, f->err,
                       sizeof(f->err)) != 0)
    fail_msg("%s", f->err);
}

static void pass(struct fx *f, uint16_t domains) {
  tb_reset(&f->mf.set);
  tb_record_set(&f->mf.set, 0xC5, domains, 0x00400000, &f->mf.rs);
  zvm_mapper_add_set(f->mf.m, f->mf.set.data, f->mf.set.len);
  tb_reset(&f->mf.rs);
  assert_int_equal(zvm_mapper_finish(f->mf.m, NOW, NULL), 0);
  f->v = mapper_values(f->mf.m, &f->nv);
  f->n = zvm_mapper_notifications(f->mf.m, &f->nn);
}

static const struct zvm_value *find(const struct fx *f, const char *host,
                                    const char *pi, const char *type,
                                    const char *ti) {
  const struct zvm_value *hit = NULL;
  for (size_t i = 0; i < f->nv; i++) {
    const struct zvm_value *v = &f->v[i];
    if (strcmp(v->host, host) == 0 && strcmp(v->plugin_instance, pi) == 0 &&
        strcmp(v->type, type) == 0 && strcmp(v->type_instance, ti) == 0) {
      assert_null(hit);
      hit = v;
    }
  }
  if (hit == NULL)
    fail_msg("missing %s/%s/%s-%s", host, pi, type, ti);
  return hit;
}

/* ------------------------------------------------------------------------
 * A run-time record through the mapper.
 */
static void test_runtime_record(void **state) {
  struct fx *f = *state;
  add(f, &proc_desc);
  mapper_fx_start(&f->mf);
  /* Its type is registered with the built-in ones. */
  assert_int_equal(zvm_mapper_type_count(f->mf.m), BUILTIN_TYPES + 1);
  const struct zvm_layout *l = zvm_mapper_type_at(f->mf.m, BUILTIN_TYPES);
  assert_string_equal(l->type_name, "zvm_tproc");
  char line[512];
  assert_true(zvm_layout_types_db_line(l, line, sizeof(line)) > 0);
  assert_string_equal(line,
                      "zvm_tproc\tdispatches:DERIVE:0:U, emulation:DERIVE:0:U, "
                      "utime:DERIVE:0:U, stamp:GAUGE:U:U, level:GAUGE:U:U, "
                      "queue_pos0:DERIVE:0:U, queue_pos1:DERIVE:0:U, "
                      "queue_pos2:DERIVE:0:U, queue_pos3:DERIVE:0:U");

  add_proc(&f->mf.rs, tb_tod(SEC, 10), 2, 700, 1500000, 2500000,
           tb_tod(SEC - 60, 250000), -7);
  add_proc(&f->mf.rs, tb_tod(SEC, 11), 3, 9, 1, 2, tb_tod(SEC, 0), 4);
  pass(f, TB_DOM(0));
  const struct zvm_value *v = find(f, "", "cpu2", "zvm_tproc", "");
  assert_int_equal(v->time_us, US(SEC, 10));
  assert_int_equal(v->nitems, 9);
  assert_int_equal(v->items[0].derive, 700);
  /* counts down from X'7FFF...': dispatched as X'7FFFFFFFFFFFFFFF' minus
   * it, the time used, its rate positive */
  assert_int_equal(v->items[1].derive, 1500000);
  assert_int_equal(v->items[2].derive, 2500000); /* microseconds */
  assert_true(v->items[3].gauge == (double)(SEC - 60) + 0.25);
  assert_true(v->items[4].gauge == -3.5); /* signed, scale 0.5 */
  assert_int_equal(v->items[5].derive, 102);
  assert_int_equal(v->items[8].derive, 402);
  v = find(f, "", "cpu3", "zvm_tproc", "");
  assert_int_equal(v->items[2].derive, 2);

  /* One value per list: type derive/gauge, type instance = data source. */
  zvm_mapper_destroy(f->mf.m);
  f->mf.conf.one_value_per_list = true;
  mapper_fx_start(&f->mf);
  assert_int_equal(zvm_mapper_type_count(f->mf.m), 0);
  add_proc(&f->mf.rs, tb_tod(SEC, 20), 2, 701, 1, 2, tb_tod(SEC, 0), 1);
  pass(f, TB_DOM(0));
  assert_int_equal(find(f, "", "cpu2", "derive", "dispatches")->derive, 701);
  assert_true(find(f, "", "cpu2", "gauge", "level")->gauge == 0.5);
  assert_int_equal(find(f, "", "cpu2", "derive", "queue_pos3")->derive, 402);
}

/* ------------------------------------------------------------------------
 * Hooks: select switches the layout and gives the key, record notifies
 * and may stop a record, instance keeps state (PENDING), values fills
 * the list from it; forget ends an instance.
 */
static const struct zvm_field inner_fields[] = {
    {.ibm_name = "I_SUM",
     .metric = "sum",
     .offset = 0,
     .width = 4,
     .count = 1,
     .kind = ZVM_FIELD_COUNTER},
    {.ibm_name = "I_LAST",
     .metric = "last",
     .offset = 4,
     .width = 4,
     .count = 1,
     .kind = ZVM_FIELD_GAUGE},
};

struct inner_state {
  uint64_t sum;
  uint32_t last;
};

static int released;
static void inner_release(void *state) {
  (void)state;
  released++;
}

static enum zvm_hook_verdict inner_instance(struct zvm_hook_ctx *ctx,
                                            struct zvm_instance *inst,
                                            const uint8_t *data, size_t len,
                                            uint64_t time_us) {
  (void)ctx;
  (void)time_us;
  struct inner_state *st = inst->state;
  uint64_t x;
  if (!zvm_field_u64(&inner_fields[1], data, len, 0, &x))
    return ZVM_HOOK_DROP;
  st->sum += x;
  st->last = (uint32_t)x;
  return ZVM_HOOK_PENDING;
}

static bool inner_values(struct zvm_hook_ctx *ctx,
                         const struct zvm_instance *inst,
                         struct zvm_value_item *items, size_t n) {
  (void)ctx;
  const struct inner_state *st = inst->state;
  assert_int_equal(n, 2);
  items[0].derive = (int64_t)st->sum;
  items[1].gauge = st->last;
  return st->last != 13; /* 13: no list this pass */
}

static const struct zvm_record_hooks inner_hooks = {
    .instance = inner_instance,
    .values = inner_values,
    .state_size = sizeof(struct inner_state),
    .state_release = inner_release,
};

/* The layout select hands out: its data is a window of the outer record,
 * its instance key the user ID in the outer record's header part. */
static const struct zvm_record_desc inner_desc = {
    .domain = 10,
    .number = 2,
    .ibm_name = "TINNER",
    .title = "test inner layout",
    .zvm_level = "test",
    .source = "tests/unit/mapper/test_engine.c",
    .main =
        {.type_name = "zvm_tinner",
         .plugin = "tplugin",
         .host = ZVM_HOST_GUEST,
         .key = {.nparts = 2,
                 .part = {{.kind = ZVM_KEY_USERID, .field = 2},
                          {.kind = ZVM_KEY_NUMBER, .field = 3, .text = "n"}}},
         .fields = inner_fields,
         .nfields = 2},
    .hooks = &inner_hooks,
    .window = true,
};

/* Key fields for the inner layout's key check (not read: key_given). */
static const struct zvm_field inner_key_fields[] = {
    inner_fields[0],
    inner_fields[1],
    {.ibm_name = "I_USER",
     .metric = "user",
     .offset = 8,
     .width = 8,
     .count = 1,
     .type = ZVM_TYPE_EBCDIC,
     .kind = ZVM_FIELD_TEXT},
    {.ibm_name = "I_N",
     .metric = "n",
     .offset = 16,
     .width = 1,
     .count = 1,
     .kind = ZVM_FIELD_ID},
};

static struct zvm_record_desc inner_desc_keyed;

/* Outer record (domain 10 record 2, test layout): 20 user ID, 28 number,
 * 29 a command byte, 32 offset of the window, 34 its length. */
static bool outer_select(struct zvm_hook_ctx *ctx,
                         struct zvm_record_view *view) {
  (void)ctx;
  const uint8_t *d = view->rec->data;
  size_t len = view->rec->len;
  if (len < 36)
    return false;
  size_t off = (size_t)d[32] << 8 | d[33];
  size_t wlen = (size_t)d[34] << 8 | d[35];
  if (off > len || wlen > len - off)
    return false; /* hostile: counted as skipped */
  view->desc = &inner_desc_keyed;
  view->data = d + off;
  view->len = wlen;
  view->key_given = true;
  uint8_t id[8];
  memcpy(id, d + 20, 8);
  view->key.v[0] = 0;
  for (unsigned i = 0; i < 8; i++)
    view->key.v[0] = view->key.v[0] << 8 | id[i];
  view->key.v[1] = d[28];
  return true;
}

static bool outer_record(struct zvm_hook_ctx *ctx,
                         const struct zvm_record_view *view, uint64_t time_us) {
  uint8_t cmd = view->rec->data[29];
  if (cmd == 1) {
    zvm_hook_notify(ctx, ZVM_NOTIF_WARNING, time_us, "tinst", "told to forget");
    struct zvm_key_value key = view->key;
    assert_true(zvm_hook_forget(ctx, &inner_desc_keyed.main, &key));
    assert_null(zvm_hook_find(ctx, &inner_desc_keyed.main, &key));
    return false;
  }
  if (cmd == 2) {
    zvm_hook_count_malformed(ctx);
    return false;
  }
  return true;
}

static const struct zvm_record_desc *const outer_layouts[] = {
    &inner_desc_keyed};
static struct zvm_record_hooks outer_hooks = {
    .select = outer_select,
    .record = outer_record,
    .layouts = outer_layouts,
    .nlayouts = 1,
    .notify_kind = ZVM_NOTIFY_LOGOFF,
};

static const struct zvm_record_desc outer_desc = {
    .domain = 10,
    .number = 2,
    .ibm_name = "TOUTER",
    .title = "test outer record",
    .zvm_level = "test",
    .source = "tests/unit/mapper/test_engine.c",
    .main = {.key = {.nparts = 0}},
    .hooks = &outer_hooks,
};

static void add_outer(struct tb *rs, uint64_t tod, const char *user, uint8_t n,
                      uint8_t cmd, uint32_t last) {
  size_t r = tb_record(rs, 48, 10, 2, tod);
  tb_put_ebcdic(rs, r + 20, user, 8);
  tb_put_u8(rs, r + 28, n);
  tb_put_u8(rs, r + 29, cmd);
  tb_put_u16(rs, r + 32, 40);
  tb_put_u16(rs, r + 34, 8);
  tb_put_u32(rs, r + 40, 0);
  tb_put_u32(rs, r + 44, last);
}

static void test_hooks(void **state) {
  struct fx *f = *state;
  inner_desc_keyed = inner_desc;
  inner_desc_keyed.main.fields = inner_key_fields;
  inner_desc_keyed.main.nfields = 4;
  /* In place of the built-in D10R2 (APPLDATA), whose number it uses. */
  if (zvm_registry_add(f->mf.conf.records, &outer_desc, true, NULL, f->err,
                       sizeof(f->err)) != 0)
    fail_msg("%s", f->err);
  mapper_fx_start(&f->mf);
  /* The select hook's layout is prepared (and its type registered, once,
   * where D10R2 stands in the registry). */
  assert_int_equal(zvm_mapper_type_count(f->mf.m), BUILTIN_TYPES + 1);
  size_t tinner = 0;
  for (size_t i = 0; i < zvm_mapper_type_count(f->mf.m); i++)
    tinner +=
        strcmp(zvm_mapper_type_at(f->mf.m, i)->type_name, "zvm_tinner") == 0;
  assert_int_equal(tinner, 1);

  released = 0;
  add_outer(&f->mf.rs, tb_tod(SEC, 1), "LNX1", 0, 0, 5);
  add_outer(&f->mf.rs, tb_tod(SEC, 2), "LNX1", 0, 0, 7);
  add_outer(&f->mf.rs, tb_tod(SEC, 3), "LNX1", 1, 0, 9);
  pass(f, TB_DOM(10));
  /* host = guest in lower case (ZVM_HOST_GUEST), the rest of the key is
   * the plugin instance, with its prefix; the plugin is the layout's. */
  const struct zvm_value *v = find(f, "lnx1", "n0", "zvm_tinner", "");
  assert_string_equal(v->plugin, "tplugin");
  assert_int_equal(v->time_us, US(SEC, 2));
  assert_int_equal(v->items[0].derive, 12); /* kept by the hook: 5 + 7 */
  assert_true(v->items[1].gauge == 7.0);
  v = find(f, "lnx1", "n1", "zvm_tinner", "");
  assert_int_equal(v->items[0].derive, 9);

  /* values hook says no list; a record hook ends an instance (its state
   * released) and notifies; another counts bad data. */
  add_outer(&f->mf.rs, tb_tod(SEC, 4), "LNX1", 0, 0, 13);
  add_outer(&f->mf.rs, tb_tod(SEC, 5), "LNX1", 1, 1, 0);
  add_outer(&f->mf.rs, tb_tod(SEC, 6), "LNX1", 1, 2, 0);
  pass(f, TB_DOM(10));
  for (size_t i = 0; i < f->nv; i++)
    if (strcmp(f->v[i].plugin_instance, "reader") != 0)
      fail_msg("unexpected %s/%s/%s-%s", f->v[i].host, f->v[i].plugin_instance,
               f->v[i].type, f->v[i].type_instance);
  /* the reader counters only (D10R2 replaced: no APPLDATA counters) */
  assert_int_equal(f->nv, READER_VALUES - APPLDATA_COUNTERS);
  assert_int_equal(released, 1);
  assert_int_equal(f->nn, 1);
  assert_string_equal(f->n[0].message, "told to forget");
  assert_string_equal(f->n[0].plugin_instance, "tinst");
  /* Named by the hooks' kind (logoff), sent by the outer record. */
  assert_ptr_equal(f->n[0].record, &outer_desc);
  assert_int_equal(f->n[0].kind, ZVM_NOTIFY_LOGOFF);
  assert_string_equal(f->n[0].instance, "tinst");
  assert_string_equal(f->n[0].type, "session");
  assert_string_equal(f->n[0].type_instance, "logoff");
  assert_int_equal(f->n[0].time_us, US(SEC, 5));
  v = find(f, "", "reader", "errors", "malformed");
  assert_int_equal(v->derive, 1);

  /* Forgotten: starts from nothing. A window outside the record is
   * skipped by select and counted. */
  add_outer(&f->mf.rs, tb_tod(SEC, 7), "LNX1", 1, 0, 3);
  size_t r = tb_record(&f->mf.rs, 48, 10, 2, tb_tod(SEC, 8));
  tb_put_u16(&f->mf.rs, r + 32, 46);
  tb_put_u16(&f->mf.rs, r + 34, 8);
  pass(f, TB_DOM(10));
  v = find(f, "lnx1", "n1", "zvm_tinner", "");
  assert_int_equal(v->items[0].derive, 3);
  v = find(f, "", "reader", "total_objects", "skipped");
  assert_int_equal(v->derive, 1);

  /* Not seen for more than ZVM_MAPPER_EXPIRE_US: forgotten, state
   * released (n1 seen in the last pass, n0 before: both expire). */
  uint64_t later = NOW + ZVM_MAPPER_EXPIRE_US + ZVM_MAPPER_SWEEP_US;
  assert_int_equal(zvm_mapper_finish(f->mf.m, later, NULL), 0);
  assert_int_equal(released, 3);
  add_outer(&f->mf.rs, tb_tod(SEC, 9), "LNX1", 1, 0, 4);
  pass(f, TB_DOM(10));
  v = find(f, "lnx1", "n1", "zvm_tinner", "");
  assert_int_equal(v->items[0].derive, 4); /* from nothing again */

  /* Hooks that leave their notification kind 0 (ZVM_NOTIFY_NONE) send
   * nothing: the record hook's notification is dropped, its forget
   * stands. */
  outer_hooks.notify_kind = ZVM_NOTIFY_NONE;
  add_outer(&f->mf.rs, tb_tod(SEC, 10), "LNX1", 1, 1, 0);
  pass(f, TB_DOM(10));
  outer_hooks.notify_kind = ZVM_NOTIFY_LOGOFF;
  assert_int_equal(f->nn, 0);
  assert_int_equal(released, 4);
  zvm_mapper_destroy(f->mf.m);
  f->mf.m = NULL;
  assert_int_equal(released, 4); /* every instance's state */
}

/* A select hook may hand out a layout it did not declare: the mapper
 * creates its view during the pass. One wider than every layout so far
 * (250 values in one list) must get room for its values. */
#define WIDE_N 250
static const struct zvm_field wide_fields[] = {
    {.ibm_name = "W_V",
     .metric = "w",
     .offset = 0,
     .width = 1,
     .count = WIDE_N,
     .kind = ZVM_FIELD_GAUGE},
    {.ibm_name = "W_USER",
     .metric = "user",
     .offset = WIDE_N,
     .width = 8,
     .count = 1,
     .type = ZVM_TYPE_EBCDIC,
     .kind = ZVM_FIELD_TEXT},
};

static const struct zvm_record_desc wide_desc = {
    .domain = 10,
    .number = 2,
    .ibm_name = "TWIDE",
    .title = "test wide layout",
    .zvm_level = "test",
    .source = "tests/unit/mapper/test_engine.c",
    .main = {.type_name = "zvm_twide",
             .plugin = "tplugin",
             .host = ZVM_HOST_GUEST,
             .key = {.nparts = 1,
                     .part = {{.kind = ZVM_KEY_USERID, .field = 1}}},
             .fields = wide_fields,
             .nfields = 2},
    .window = true,
};

/* The outer record's bytes 40.. are the wide layout's values. */
static bool wide_select(struct zvm_hook_ctx *ctx,
                        struct zvm_record_view *view) {
  (void)ctx;
  const uint8_t *d = view->rec->data;
  if (view->rec->len < 40 + WIDE_N)
    return false;
  view->desc = &wide_desc;
  view->data = d + 40;
  view->len = WIDE_N;
  view->key_given = true;
  view->key.v[0] = 0;
  for (unsigned i = 0; i < 8; i++)
    view->key.v[0] = view->key.v[0] << 8 | d[20 + i];
  view->key.v[1] = 0;
  return true;
}

static const struct zvm_record_hooks wide_outer_hooks = {.select = wide_select};

static const struct zvm_record_desc wide_outer_desc = {
    .domain = 10,
    .number = 2,
    .ibm_name = "TOUTERW",
    .title = "test outer record, undeclared layout",
    .zvm_level = "test",
    .source = "tests/unit/mapper/test_engine.c",
    .main = {.key = {.nparts = 0}},
    .hooks = &wide_outer_hooks,
};

static void test_hook_undeclared_wide_layout(void **state) {
  struct fx *f = *state;
  if (zvm_registry_add(f->mf.conf.records, &wide_outer_desc, true, NULL, f->err,
                       sizeof(f->err)) != 0)
    fail_msg("%s", f->err);
  mapper_fx_start(&f->mf);
  for (unsigned k = 0; k < 2; k++) {
    size_t r = tb_record(&f->mf.rs, 40 + WIDE_N, 10, 2, tb_tod(SEC, 1 + k));
    tb_put_ebcdic(&f->mf.rs, r + 20, k == 0 ? "LNX1" : "LNX2", 8);
    for (unsigned i = 0; i < WIDE_N; i++)
      tb_put_u8(&f->mf.rs, r + 40 + i, (uint8_t)(i + k));
  }
  pass(f, TB_DOM(10));
  for (unsigned k = 0; k < 2; k++) {
    const struct zvm_value *v =
        find(f, k == 0 ? "lnx1" : "lnx2", "", "zvm_twide", "");
    assert_int_equal(v->nitems, WIDE_N);
    for (unsigned i = 0; i < WIDE_N; i++)
      assert_true(v->items[i].gauge == (double)(uint8_t)(i + k));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_runtime_record),
      T(test_hooks),
      T(test_hook_undeclared_wide_layout),
#undef T
  };
  return cmocka_run_group_tests_name("engine", tests, NULL, NULL);
}
