/* SPDX-License-Identifier: MIT */
/*
 * The record engine alone, with a descriptor built at run time as a
 * <Record> block builds it: the registry (lookup, clashes, ownership,
 * replacing) and the descriptor checks (every error, element names, the
 * hooks' notification kind). The built-in records' tables are checked by
 * tests/unit/records/test_catalog.c; the same descriptor through the
 * mapper, hooks included, by tests/unit/mapper/test_engine_map.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "engine/check.h"
#include "engine/hooks.h"
#include "proc_record.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/records.h"
#include "zvm_monitor/registry.h"

#define ERR_CONTAINS(err, text)                                                \
  do {                                                                         \
    if (strstr(err, text) == NULL)                                             \
      fail_msg("error \"%s\" lacks \"%s\"", err, text);                        \
  } while (0)

/* Fixture: an empty registry the tests add to. */
struct fx {
  struct zvm_registry *r;
  char err[256];
};

static int setup(void **state) {
  struct fx *f = calloc(1, sizeof(*f));
  assert_non_null(f);
  f->r = zvm_registry_create();
  assert_non_null(f->r);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fx *f = *state;
  zvm_registry_destroy(f->r);
  free(f);
  return 0;
}

/* ------------------------------------------------------------------------
 * Registry and checks.
 */
static int freed;
static void free_counted(const struct zvm_record_desc *d) {
  (void)d;
  freed++;
}

static void test_registry(void **state) {
  struct fx *f = *state;
  struct zvm_registry *r = f->r;
  assert_null(zvm_registry_find(r, 0, 99));
  assert_null(zvm_registry_find(r, 16, 1));
  size_t n = zvm_registry_count(r);
  assert_int_equal(n, 0);

  freed = 0;
  assert_int_equal(
      zvm_registry_add(r, &proc_desc, false, free_counted, f->err, 64), 0);
  assert_ptr_equal(zvm_registry_find(r, 0, 99), &proc_desc);
  assert_ptr_equal(zvm_registry_at(r, n), &proc_desc);
  /* A second definition: an error unless replacing; a failed add frees
   * what the registry was to own. */
  struct zvm_record_desc twin = proc_desc;
  twin.main.type_name = "zvm_tproc2";
  assert_int_equal(
      zvm_registry_add(r, &twin, false, free_counted, f->err, sizeof(f->err)),
      -1);
  ERR_CONTAINS(f->err, "record D0R99 is defined twice");
  assert_int_equal(freed, 1);
  assert_int_equal(
      zvm_registry_add(r, &twin, true, NULL, f->err, sizeof(f->err)), 0);
  assert_int_equal(freed, 2); /* the replaced one */
  assert_ptr_equal(zvm_registry_find(r, 0, 99), &twin);
  assert_int_equal(zvm_registry_count(r), n + 1);
  /* A type name is one record's. */
  struct zvm_record_desc other = proc_desc;
  other.number = 98;
  other.main.type_name = "zvm_tproc2";
  assert_int_equal(
      zvm_registry_add(r, &other, false, NULL, f->err, sizeof(f->err)), -1);
  ERR_CONTAINS(f->err, "type name \"zvm_tproc2\" is already used");
  /* Large record numbers are fine (the table grows). */
  other.number = 60000;
  other.main.type_name = "zvm_big";
  assert_int_equal(
      zvm_registry_add(r, &other, false, NULL, f->err, sizeof(f->err)), 0);
  assert_ptr_equal(zvm_registry_find(r, 0, 60000), &other);
  /* twin and other are on the stack: take them out before teardown. */
  zvm_registry_destroy(f->r);
  f->r = zvm_registry_create();
  assert_non_null(f->r);
}

static void expect_check_error(const struct zvm_field *fl, size_t n,
                               const char *want) {
  struct zvm_record_desc d = proc_desc;
  d.main.fields = fl;
  d.main.nfields = n;
  d.main.key.nparts = 0;
  char err[256] = "";
  assert_int_equal(zvm_record_check(&d, err, sizeof(err)), -1);
  ERR_CONTAINS(err, want);
}

static void test_record_check(void **state) {
  (void)state;
  char err[256];
  assert_int_equal(zvm_record_check(&proc_desc, err, sizeof(err)), 0);

  struct zvm_field f[2] = {
      {.metric = "a",
       .offset = 8,
       .width = 4,
       .count = 1,
       .kind = ZVM_FIELD_COUNTER},
  };
  expect_check_error(f, 1, "lies in the 20-byte record header");
  f[0].offset = 20;
  f[0].width = 3;
  expect_check_error(f, 1, "width 3 (use 1, 2, 4 or 8)");
  f[0].width = 4;
  f[0].type = ZVM_TYPE_TOD;
  expect_check_error(f, 1, "TOD and CPU-timer fields are 8 bytes");
  f[0].type = ZVM_TYPE_EBCDIC;
  expect_check_error(f, 1, "EBCDIC text cannot be a counter or gauge");
  f[0].type = (enum zvm_field_type)42;
  expect_check_error(f, 1, "unknown type");
  f[0].type = ZVM_TYPE_UNSIGNED;
  f[0].metric = "bad-name";
  expect_check_error(f, 1, "\"bad-name\" is not a valid data source name");
  f[0].metric = "a";
  f[1] = f[0];
  f[1].offset = 24;
  f[1].metric = "A";
  expect_check_error(f, 2, "data source \"a\" twice");
  /* Element names: metric, the row's elem_prefix ("_" if none, whatever
   * the count) and the index. */
  f[1].metric = "a_0";
  f[0].count = 4;
  f[0].width = 1;
  expect_check_error(f, 2, "data source \"a_0\" twice");
  f[0].elem_prefix = "_q";
  f[1].metric = "a_q0";
  expect_check_error(f, 2, "data source \"a_q0\" twice");
  char name[32];
  f[0].elem_prefix = NULL;
  assert_int_equal(zvm_field_element_name(&f[0], 3, name, sizeof(name)), 3);
  assert_string_equal(name, "a_3");
  /* A key must name an instance: an EBCDIC user ID, not a counter. */
  struct zvm_record_desc d = proc_desc;
  d.main.key.part[0].kind = ZVM_KEY_USERID;
  d.main.key.part[0].field = 1;
  assert_int_equal(zvm_record_check(&d, err, sizeof(err)), -1);
  ERR_CONTAINS(err, "key field T_DISP cannot name an instance");

  /* Hooks' notification kind: ZVM_NOTIFY_NONE (0) or a known kind. */
  struct zvm_record_hooks h = {.notify_kind = ZVM_NOTIFY_NONE};
  d = proc_desc;
  d.hooks = &h;
  assert_int_equal(zvm_record_check(&d, err, sizeof(err)), 0);
  h.notify_kind = ZVM_NOTIFY_DEVICE;
  assert_int_equal(zvm_record_check(&d, err, sizeof(err)), 0);
  h.notify_kind = ZVM_NOTIFY_KINDS;
  assert_int_equal(zvm_record_check(&d, err, sizeof(err)), -1);
  ERR_CONTAINS(err, "record D0R99: its hooks' notification kind 7 is unknown");
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_registry),
      T(test_record_check),
#undef T
  };
  return cmocka_run_group_tests_name("engine", tests, NULL, NULL);
}
