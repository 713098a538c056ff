/* SPDX-License-Identifier: MIT */
/*
 * Time rules (plugin/mapper/timerule.c): TOD -> Unix time across the 2042 wrap,
 * the leap-second offset (configured, from two clocks, estimated from
 * arrival times) and the dispatch-time rule. Expected times are written
 * out as dates, not computed with the code under test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "builder.h"
#include "zvm_monitor/timerule.h"

#define S UINT64_C(1000000)
/* 2023-11-14 22:13:20 UTC */
#define T2023 (UINT64_C(1700000000) * S)
/* The TOD clock's wrap: 2042-09-17 23:53:47.370496 UTC. */
#define WRAP_US UINT64_C(2294610827370496)
/* 2042-10-01 00:00:00 UTC */
#define T2042_OCT (UINT64_C(2295734400) * S)
/* 2026-11-22 18:00:00 UTC, a local clock before the wrap */
#define T2026 (UINT64_C(1795370400) * S)

/* The TOD of a Unix time, written as the TOD clock counts: 4096 units per
 * microsecond from 1900, modulo 2^64 (the clock wraps). */
static uint64_t tod_of(uint64_t unix_us) {
  return (unix_us + UINT64_C(2208988800000000)) << 12;
}

static void test_tod_before_wrap(void **state) {
  (void)state;
  uint64_t us = 0;
  assert_true(zvm_tod_unix_us(tb_tod(1700000000, 123456), T2026, &us));
  assert_int_equal(us, T2023 + 123456);
  /* No local clock: the first epoch, as before. */
  assert_true(zvm_tod_unix_us(tb_tod(1700000000, 1), 0, &us));
  assert_int_equal(us, T2023 + 1);
  /* Sub-microsecond bits are dropped. */
  assert_true(zvm_tod_unix_us(tb_tod(1700000000, 7) | 0xFFF, T2026, &us));
  assert_int_equal(us, T2023 + 7);
}

static void test_tod_wrap_2042(void **state) {
  (void)state;
  uint64_t tod = tod_of(T2042_OCT); /* wrapped: a small raw value */
  assert_true(tod < UINT64_C(0x0100000000000000));
  uint64_t us = 0;
  /* Near a 2042 clock the record is in 2042 ... */
  assert_true(zvm_tod_unix_us(tod, T2042_OCT + 60 * S, &us));
  assert_int_equal(us, T2042_OCT);
  /* ... and also near a 2026 clock (1900 + 14 days is further away). */
  assert_true(zvm_tod_unix_us(tod, T2026, &us));
  assert_int_equal(us, T2042_OCT);
  /* Without a clock the first epoch puts it before 1970: no time. */
  assert_false(zvm_tod_unix_us(tod, 0, &us));
  /* The last TOD before the wrap and the first after it. */
  assert_true(zvm_tod_unix_us(UINT64_MAX, WRAP_US, &us));
  assert_int_equal(us, WRAP_US - 1);
  assert_true(zvm_tod_unix_us(0, WRAP_US, &us));
  assert_int_equal(us, WRAP_US);
  /* A 2023 record read in 2042 keeps 2023 (nearer than 2166). */
  assert_true(zvm_tod_unix_us(tb_tod(1700000000, 0), T2042_OCT, &us));
  assert_int_equal(us, T2023);
}

static void test_tod_before_1970(void **state) {
  (void)state;
  uint64_t us = 42;
  assert_false(zvm_tod_unix_us(tod_of(0), 0, &us));
  assert_false(zvm_tod_unix_us(UINT64_C(0x7000000000000000), 0, &us));
  assert_int_equal(us, 42);
}

static void test_leap_subtracted(void **state) {
  (void)state;
  uint64_t utc = 0;
  assert_true(zvm_unix_to_utc(T2023 + 27 * S, 27 * S, &utc));
  assert_int_equal(utc, T2023);
  assert_true(zvm_unix_to_utc(T2023, 0, &utc));
  assert_int_equal(utc, T2023);
  assert_false(zvm_unix_to_utc(27 * S, 27 * S, &utc));
}

static void test_stamp_rule(void **state) {
  (void)state;
  uint64_t t = 0;
  /* Later than the last time: the record's own time. */
  assert_int_equal(zvm_time_stamp(T2023, T2023 + 1, T2023 + 5 * S, &t),
                   ZVM_STAMP_RECORD);
  assert_int_equal(t, T2023 + 1);
  assert_int_equal(zvm_time_stamp(0, T2023, 0, &t), ZVM_STAMP_RECORD);
  assert_int_equal(t, T2023);
  /* Equal to the last time: the set's arrival time, later. */
  assert_int_equal(zvm_time_stamp(T2023, T2023, T2023 + 5 * S, &t),
                   ZVM_STAMP_ARRIVAL);
  assert_int_equal(t, T2023 + 5 * S);
  /* One hour back, arrival later than the last time. */
  assert_int_equal(zvm_time_stamp(T2023, T2023 - 3600 * S, T2023 + 2 * S, &t),
                   ZVM_STAMP_ARRIVAL);
  assert_int_equal(t, T2023 + 2 * S);
  /* Neither later (records ahead of the local clock): last + 1 us. */
  assert_int_equal(zvm_time_stamp(T2023, T2023, T2023 - 10 * S, &t),
                   ZVM_STAMP_STEP);
  assert_int_equal(t, T2023 + 1);
  assert_int_equal(zvm_time_stamp(T2023, T2023 - 3600 * S, T2023, &t),
                   ZVM_STAMP_STEP);
  assert_int_equal(t, T2023 + ZVM_TIME_STEP_US);
  /* Arrival unknown (0). */
  assert_int_equal(zvm_time_stamp(T2023, T2023, 0, &t), ZVM_STAMP_STEP);
  assert_int_equal(t, T2023 + 1);
}

/* A record time far after its set's arrival (a TOD glitch, a damaged
 * record: 2043 read in 2023) is not used: the arrival time is, and the
 * next plausible record time is the record's own again. The bound is 1 h
 * plus the largest leap-second offset (60 s). */
static void test_stamp_future(void **state) {
  (void)state;
  uint64_t t = 0;
  const uint64_t t2043 = UINT64_C(2330640000) * S; /* 2043-11-09 */
  assert_int_equal(zvm_time_stamp(T2023, t2043, T2023 + 60 * S, &t),
                   ZVM_STAMP_FUTURE);
  assert_int_equal(t, T2023 + 60 * S);
  /* The next record, 60 s later, arrives 1 s after it was built. */
  assert_int_equal(zvm_time_stamp(t, T2023 + 120 * S, T2023 + 121 * S, &t),
                   ZVM_STAMP_RECORD);
  assert_int_equal(t, T2023 + 120 * S);
  /* Up to 1 h and 60 s ahead of the arrival: still the record's time. */
  assert_int_equal(zvm_time_stamp(T2023, T2023 + 3660 * S, T2023, &t),
                   ZVM_STAMP_RECORD);
  assert_int_equal(t, T2023 + 3660 * S);
  assert_int_equal(zvm_time_stamp(T2023, T2023 + 3660 * S + 1, T2023, &t),
                   ZVM_STAMP_FUTURE);
  assert_int_equal(t, T2023 + ZVM_TIME_STEP_US); /* arrival not later */
  /* Arrival unknown: nothing to bound against. */
  assert_int_equal(zvm_time_stamp(T2023, t2043, 0, &t), ZVM_STAMP_RECORD);
  assert_int_equal(t, t2043);
}

static void test_leap_from_clocks(void **state) {
  (void)state;
  uint64_t leap = 99;
  assert_true(zvm_leap_from_clocks(T2023 + 27 * S + 300, T2023, &leap));
  assert_int_equal(leap, 27 * S);
  assert_true(zvm_leap_from_clocks(T2023 + 27 * S - 300, T2023, &leap));
  assert_int_equal(leap, 27 * S);
  assert_true(zvm_leap_from_clocks(T2023 - 2000, T2023, &leap));
  assert_int_equal(leap, 0);
  /* A TOD an hour off is no leap-second offset. */
  leap = 99;
  assert_false(zvm_leap_from_clocks(T2023 + 3600 * S, T2023, &leap));
  assert_false(zvm_leap_from_clocks(T2023 - 3600 * S, T2023, &leap));
  assert_int_equal(leap, 99);
}

static void test_leap_estimate(void **state) {
  (void)state;
  struct zvm_leap_est e = {0};
  assert_int_equal(zvm_leap_estimate_us(&e), 0);
  /* Records 27 s ahead, sets read 0.3 s and 0.05 s after their newest
   * record: the offset is 27 s. */
  zvm_leap_observe(&e, T2023 + 27 * S, T2023 + 300000);
  assert_int_equal(zvm_leap_estimate_us(&e), 27 * S);
  zvm_leap_observe(&e, T2023 + 60 * S + 27 * S, T2023 + 60 * S + 50000);
  assert_int_equal(zvm_leap_estimate_us(&e), 27 * S);
  /* Local clock 0.1 s ahead of a TOD without offset: 0. */
  struct zvm_leap_est z = {0};
  zvm_leap_observe(&z, T2023, T2023 + 100000);
  zvm_leap_observe(&z, T2023 + 10 * S + 100000, T2023 + 10 * S);
  assert_int_equal(zvm_leap_estimate_us(&z), 0);
  /* Old data (a replay, a generated stream): far behind, 0. */
  struct zvm_leap_est old = {0};
  zvm_leap_observe(&old, T2023, T2026);
  assert_int_equal(zvm_leap_estimate_us(&old), 0);
  /* A TOD an hour ahead is not a leap-second offset: 0. */
  struct zvm_leap_est ahead = {0};
  zvm_leap_observe(&ahead, T2023 + 3600 * S, T2023);
  assert_int_equal(zvm_leap_estimate_us(&ahead), 0);
  /* The estimate follows the data: after two windows without a 27 s
   * lead it is gone. */
  zvm_leap_observe(&e, T2023 + 700 * S, T2023 + 700 * S);
  assert_int_equal(zvm_leap_estimate_us(&e), 27 * S);
  zvm_leap_observe(&e, T2023 + 1400 * S, T2023 + 1400 * S);
  assert_int_equal(zvm_leap_estimate_us(&e), 0);
  /* Unknown arrival times are ignored. */
  zvm_leap_observe(&e, T2023 + 1500 * S, 0);
  assert_int_equal(zvm_leap_estimate_us(&e), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tod_before_wrap),
      cmocka_unit_test(test_tod_wrap_2042),
      cmocka_unit_test(test_tod_before_1970),
      cmocka_unit_test(test_leap_subtracted),
      cmocka_unit_test(test_stamp_rule),
      cmocka_unit_test(test_stamp_future),
      cmocka_unit_test(test_leap_from_clocks),
      cmocka_unit_test(test_leap_estimate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
