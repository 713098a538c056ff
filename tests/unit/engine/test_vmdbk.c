/* SPDX-License-Identifier: MIT */
/*
 * A guest's values summed over its VMDBKs (plugin/engine/vmdbk.c): the sum of
 * each VMDBK's latest value, VMDBKs that skip a transaction, shorter
 * records, the base VMDBK, and limits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>

#include "engine/vmdbk.h"

#define N 3

static const bool all[N] = {true, true, true};

static int64_t sum_of(const struct zvm_vmdbk_set *s, size_t k) {
  int64_t v = -12345;
  assert_true(zvm_vmdbk_sum(s, k, &v));
  return v;
}

static void test_sum_of_latest(void **state) {
  (void)state;
  struct zvm_vmdbk_set s;
  assert_int_equal(zvm_vmdbk_init(&s, N), 0);
  int64_t v;
  assert_false(zvm_vmdbk_sum(&s, 0, &v));
  assert_null(zvm_vmdbk_base(&s));

  /* The two VMDBKs of the issue: hfcpurn 1116 and 5000117. */
  assert_int_equal(zvm_vmdbk_update(&s, 0, true, (int64_t[]){1116, 1, 7}, all),
                   ZVM_VMDBK_OK);
  assert_int_equal(
      zvm_vmdbk_update(&s, 1, false, (int64_t[]){5000117, 2, 9}, all),
      ZVM_VMDBK_OK);
  assert_int_equal(sum_of(&s, 0), 5001233);
  assert_int_equal(sum_of(&s, 1), 3);
  assert_int_equal(sum_of(&s, 2), 16);
  /* VMDBK 1 skips the next transaction: it keeps contributing. */
  assert_int_equal(zvm_vmdbk_update(&s, 0, true, (int64_t[]){1200, 1, 5}, all),
                   ZVM_VMDBK_OK);
  assert_int_equal(sum_of(&s, 0), 5001317);
  assert_int_equal(sum_of(&s, 2), 14);
  /* The latest value replaces the VMDBK's previous one. */
  assert_int_equal(
      zvm_vmdbk_update(&s, 1, false, (int64_t[]){5000200, 2, 9}, all),
      ZVM_VMDBK_OK);
  assert_int_equal(sum_of(&s, 0), 5001400);

  const struct zvm_vmdbk *b = zvm_vmdbk_base(&s);
  assert_non_null(b);
  assert_int_equal(b->cpuad, 0);
  assert_int_equal(b->values[2], 5);
  assert_int_equal(zvm_vmdbk_find(&s, 1)->values[0], 5000200);
  assert_null(zvm_vmdbk_find(&s, 2));

  /* Cleared (logoff): nothing is summed any more. */
  zvm_vmdbk_clear(&s);
  assert_false(zvm_vmdbk_sum(&s, 0, &v));
  assert_null(zvm_vmdbk_base(&s));
  assert_int_equal(zvm_vmdbk_update(&s, 3, true, (int64_t[]){4, 5, 6}, all),
                   ZVM_VMDBK_OK);
  assert_int_equal(sum_of(&s, 0), 4);
  zvm_vmdbk_free(&s);
}

static void test_absent_values(void **state) {
  (void)state;
  struct zvm_vmdbk_set s;
  assert_int_equal(zvm_vmdbk_init(&s, N), 0);
  const bool first_two[N] = {true, true, false};
  assert_int_equal(
      zvm_vmdbk_update(&s, 0, true, (int64_t[]){10, 20, 999}, first_two),
      ZVM_VMDBK_OK);
  int64_t v;
  assert_false(zvm_vmdbk_sum(&s, 2, &v)); /* nobody had it */
  assert_int_equal(zvm_vmdbk_update(&s, 1, false, (int64_t[]){1, 2, 3}, all),
                   ZVM_VMDBK_OK);
  assert_int_equal(sum_of(&s, 2), 3);
  /* A shorter record later: the absent value keeps its last value. */
  assert_int_equal(
      zvm_vmdbk_update(&s, 1, false, (int64_t[]){5, 6, 777}, first_two),
      ZVM_VMDBK_OK);
  assert_int_equal(sum_of(&s, 0), 15);
  assert_int_equal(sum_of(&s, 2), 3);
  zvm_vmdbk_free(&s);
}

static void test_base_moves_and_saturation(void **state) {
  (void)state;
  struct zvm_vmdbk_set s;
  assert_int_equal(zvm_vmdbk_init(&s, N), 0);
  assert_int_equal(
      zvm_vmdbk_update(&s, 0, true, (int64_t[]){INT64_MAX, -5, 0}, all),
      ZVM_VMDBK_OK);
  assert_int_equal(
      zvm_vmdbk_update(&s, 1, true, (int64_t[]){INT64_MAX, INT64_MIN, 0}, all),
      ZVM_VMDBK_OK);
  assert_int_equal(zvm_vmdbk_base(&s)->cpuad, 1);
  assert_true(sum_of(&s, 0) == INT64_MAX);
  assert_true(sum_of(&s, 1) == INT64_MIN);
  /* Back below the limit: the sum is exact again. */
  assert_int_equal(zvm_vmdbk_update(&s, 1, false, (int64_t[]){0, 7, 0}, all),
                   ZVM_VMDBK_OK);
  assert_true(sum_of(&s, 0) == INT64_MAX);
  assert_int_equal(sum_of(&s, 1), 2);
  assert_null(zvm_vmdbk_base(&s)); /* VMDBK 1 is no base any more */
  zvm_vmdbk_free(&s);
}

static void test_limit(void **state) {
  (void)state;
  struct zvm_vmdbk_set s;
  assert_int_equal(zvm_vmdbk_init(&s, N), 0);
  for (unsigned i = 0; i < ZVM_VMDBK_MAX; i++)
    assert_int_equal(
        zvm_vmdbk_update(&s, (uint16_t)i, i == 0, (int64_t[]){1, 1, 1}, all),
        ZVM_VMDBK_OK);
  assert_int_equal(
      zvm_vmdbk_update(&s, 0xFFFF, false, (int64_t[]){1, 1, 1}, all),
      ZVM_VMDBK_FULL);
  assert_int_equal(sum_of(&s, 0), ZVM_VMDBK_MAX);
  /* A known VMDBK still updates. */
  assert_int_equal(zvm_vmdbk_update(&s, 5, false, (int64_t[]){3, 1, 1}, all),
                   ZVM_VMDBK_OK);
  assert_int_equal(sum_of(&s, 0), ZVM_VMDBK_MAX + 2);
  zvm_vmdbk_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sum_of_latest),
      cmocka_unit_test(test_absent_values),
      cmocka_unit_test(test_base_moves_and_saturation),
      cmocka_unit_test(test_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
