/* SPDX-License-Identifier: MIT */
/*
 * Device and data-loss episodes (plugin/io/events.c): one WARNING when an
 * episode starts, one OKAY when it ends, nothing in between however often
 * the trouble repeats, and the advice the log gives for a failed open.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "zvm_monitor/events.h"

#define S(x) ((uint64_t)(x)*1000000u)
#define SETTLE S(3)
#define DEV "/dev/monreader"

static struct zvm_events ev;
static struct zvm_event_notif out[ZVM_EVENT_KINDS];
static struct zvm_reader_stats rs;

static int setup(void **state) {
  (void)state;
  zvm_events_init(&ev, DEV, SETTLE);
  memset(&rs, 0, sizeof(rs));
  rs.open = 1;
  return 0;
}

static size_t pass(uint64_t t) {
  return zvm_events_update(&ev, &rs, S(t), out);
}

static void test_quiet_stream_sends_nothing(void **state) {
  (void)state;
  for (unsigned t = 1; t <= 20; t++) {
    rs.health.sets += 3;
    rs.health.bytes_read += 3000;
    assert_int_equal(pass(t), 0);
  }
}

static void test_overflow_episode_once(void **state) {
  (void)state;
  rs.health.sets = 5;
  assert_int_equal(pass(1), 0);
  rs.health.eoverflow = 1;
  rs.health.sets = 6;
  assert_int_equal(pass(2), 1);
  assert_int_equal(out[0].kind, ZVM_EVENT_OVERFLOW);
  assert_int_equal(out[0].severity, ZVM_EVENT_WARNING);
  assert_non_null(strstr(out[0].message, "EOVERFLOW"));
  assert_non_null(strstr(out[0].message, DEV));
  /* More overflows in the next passes: the same episode, no flood. */
  for (unsigned t = 3; t <= 8; t++) {
    rs.health.eoverflow++;
    rs.health.sets++;
    assert_int_equal(pass(t), 0);
  }
  /* Sets arrive without overflow: the episode ends once it stayed away
   * for the settle time (3 s after the last overflow at t=8). */
  rs.health.sets++;
  assert_int_equal(pass(9), 0);
  rs.health.sets++;
  assert_int_equal(pass(10), 0);
  rs.health.sets++;
  assert_int_equal(pass(11), 1);
  assert_int_equal(out[0].kind, ZVM_EVENT_OVERFLOW);
  assert_int_equal(out[0].severity, ZVM_EVENT_OKAY);
  assert_non_null(strstr(out[0].message, "7 in this episode"));
  rs.health.sets++;
  assert_int_equal(pass(12), 0);
  /* A later overflow is a new episode. */
  rs.health.eoverflow++;
  assert_int_equal(pass(13), 1);
  assert_int_equal(out[0].severity, ZVM_EVENT_WARNING);
}

/* Without complete sets reading has not resumed: no OKAY however long. */
static void test_no_okay_before_data_resumes(void **state) {
  (void)state;
  rs.health.efault = 1;
  rs.discarded = 1;
  assert_int_equal(pass(1), 1);
  assert_int_equal(out[0].kind, ZVM_EVENT_DISCARD);
  assert_non_null(strstr(out[0].message, "EFAULT 1"));
  assert_non_null(strstr(out[0].message, "incomplete sets 1"));
  for (unsigned t = 2; t < 100; t += 10)
    assert_int_equal(pass(t), 0);
  rs.health.sets = 1;
  assert_int_equal(pass(100), 1);
  assert_int_equal(out[0].severity, ZVM_EVENT_OKAY);
  assert_int_equal(out[0].kind, ZVM_EVENT_DISCARD);
}

static void test_device_open_errors_and_advice(void **state) {
  (void)state;
  rs.open = 0;
  rs.health.open_errors = 1;
  rs.open_errno = EBUSY;
  assert_int_equal(pass(1), 1);
  assert_int_equal(out[0].kind, ZVM_EVENT_DEVICE);
  assert_int_equal(out[0].severity, ZVM_EVENT_WARNING);
  char advice[256];
  zvm_reader_open_advice(EBUSY, DEV, advice, sizeof(advice));
  assert_string_equal(out[0].message, advice);
  assert_non_null(strstr(out[0].message,
                         "another process holds /dev/monreader (only "
                         "one reader is allowed)"));
  /* Retries with other errors: still the same episode. */
  rs.health.open_errors = 4;
  rs.open_errno = EACCES;
  assert_int_equal(pass(2), 0);
  /* Open again: OKAY once the trouble stayed away for the settle time. */
  rs.open = 1;
  assert_int_equal(pass(3), 0);
  assert_int_equal(pass(4), 0);
  assert_int_equal(pass(5), 1);
  assert_int_equal(out[0].severity, ZVM_EVENT_OKAY);
  assert_non_null(strstr(out[0].message, "4 failed opens or severed paths"));
}

static void test_sever_flapping_is_one_episode(void **state) {
  (void)state;
  /* Severed every other second, re-opened in between: never settles. */
  for (unsigned t = 1; t <= 30; t++) {
    if (t % 2) {
      rs.faults++;
      rs.open = 0;
    } else {
      rs.open = 1;
      rs.health.sets++;
    }
    size_t n = pass(t);
    if (t == 1) {
      assert_int_equal(n, 1);
      assert_non_null(strstr(out[0].message, "severed"));
    } else {
      assert_int_equal(n, 0);
    }
  }
}

/* A sever and failed re-opens in one pass: the episode is named by the
 * sever that started it, whatever else the pass saw. */
static void test_device_episode_named_by_its_start(void **state) {
  (void)state;
  rs.faults = 1;
  rs.open = 0;
  rs.health.open_errors = 2;
  rs.open_errno = EIO;
  assert_int_equal(pass(1), 1);
  assert_non_null(strstr(out[0].message, "severed"));
}

/* A stream episode (the reader closed a device that returned what the
 * driver never returns): the notification says to check Device, not to
 * look for an IPUSER SEVER code. */
static void test_stream_episode_names_the_device(void **state) {
  (void)state;
  rs.faults = 1;
  rs.health.stream_errors = 1;
  rs.open = 0;
  assert_int_equal(pass(1), 1);
  assert_int_equal(out[0].kind, ZVM_EVENT_DEVICE);
  assert_string_equal(out[0].message,
                      DEV " returned data /dev/monreader never returns (see "
                          "the log): check that Device names the z/VM "
                          "monitor device; no monitor data until it is "
                          "re-opened");
}

static void test_kinds_are_independent_and_can_be_off(void **state) {
  (void)state;
  ev.enabled[ZVM_EVENT_OVERFLOW] = false;
  rs.health.eoverflow = 1;
  rs.health.eio = 1;
  assert_int_equal(pass(1), 1);
  assert_int_equal(out[0].kind, ZVM_EVENT_DISCARD);
  assert_non_null(strstr(out[0].message, "EIO 1"));
  /* The disabled kind still tracks its episode: no WARNING when it is
   * switched on in the middle of one. */
  ev.enabled[ZVM_EVENT_OVERFLOW] = true;
  rs.health.eoverflow = 2;
  assert_int_equal(pass(2), 0);
}

/* The open advice is the same text the log shows, for every errno the
 * driver documents. */
static void test_open_advice_texts(void **state) {
  (void)state;
  static const struct {
    int err;
    const char *want;
  } cases[] = {
      {EBUSY, "another process holds /dev/x (only one reader is allowed)"},
      {EIO, "the IUCV connection to *MONITOR failed"},
      {ENOENT, "/dev/x does not exist: load the monreader module"},
      {EACCES, "permission denied opening /dev/x"},
      {ENXIO, "has no driver behind it"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char buf[256];
    zvm_reader_open_advice(cases[i].err, "/dev/x", buf, sizeof(buf));
    assert_non_null(strstr(buf, cases[i].want));
  }
  char tiny[8];
  zvm_reader_open_advice(EBUSY, "/dev/x", tiny, sizeof(tiny));
  assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_quiet_stream_sends_nothing, setup),
      cmocka_unit_test_setup(test_overflow_episode_once, setup),
      cmocka_unit_test_setup(test_no_okay_before_data_resumes, setup),
      cmocka_unit_test_setup(test_device_open_errors_and_advice, setup),
      cmocka_unit_test_setup(test_sever_flapping_is_one_episode, setup),
      cmocka_unit_test_setup(test_device_episode_named_by_its_start, setup),
      cmocka_unit_test_setup(test_stream_episode_names_the_device, setup),
      cmocka_unit_test_setup(test_kinds_are_independent_and_can_be_off, setup),
      cmocka_unit_test(test_open_advice_texts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
