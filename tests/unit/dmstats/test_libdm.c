/* SPDX-License-Identifier: MIT */
/*
 * dmstats - libdevmapper's process-wide logger around the plugin's calls
 * (dmstats/libdm.c), with the real libdevmapper. The only call used is
 * dm_histogram_bounds_from_string("x"), which logs an error ("Invalid
 * character in histogram") and touches no device.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dmstats/libdm.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* stderr into a file of its own for each test: what the default logger
 * (and ours, for another thread) prints. */
static FILE *err_file;
static int saved_stderr = -1;

static int setup(void **state) {
  (void)state;
  fflush(stderr);
  err_file = tmpfile();
  assert_non_null(err_file);
  saved_stderr = dup(STDERR_FILENO);
  assert_true(saved_stderr >= 0);
  assert_true(dup2(fileno(err_file), STDERR_FILENO) >= 0);
  dm_log_with_errno_init(NULL);
  return 0;
}

/* What was printed to stderr so far. */
static const char *printed(void) {
  static char buf[4096];
  fflush(stderr);
  ssize_t n = pread(fileno(err_file), buf, sizeof(buf) - 1, 0);
  buf[n > 0 ? (size_t)n : 0] = '\0';
  return buf;
}

static int teardown(void **state) {
  (void)state;
  dm_log_with_errno_init(NULL);
  const char *text = printed();
  dup2(saved_stderr, STDERR_FILENO);
  close(saved_stderr);
  /* A failed assertion's message went there too. */
  if (text[0] != '\0')
    fprintf(stderr, "the test's stderr: %s", text);
  fclose(err_file);
  return 0;
}

static void bad_bounds(const struct dms_lib *lib) {
  assert_null(lib->histogram_bounds_from_string("x"));
}

static unsigned other_calls;
static void other_logger(int level, const char *file, int line,
                         int dm_errno_or_class, const char *f, ...) {
  (void)file;
  (void)line;
  (void)dm_errno_or_class;
  (void)f;
  if ((level & 0xf) <= 3) /* errors (the library adds a debug line) */
    other_calls++;
}

/* The default logger is there before, and again after, every call of the
 * plugin; its own messages do not reach stderr. */
static void default_logger_restored(void **state) {
  (void)state;
  const struct dms_lib *lib = dms_libdm();
  assert_int_equal(dm_log_is_non_default(), 0);
  dms_libdm_quiet_begin();
  assert_int_equal(dm_log_is_non_default(), 1);
  bad_bounds(lib);
  dms_libdm_quiet_end();
  assert_int_equal(dm_log_is_non_default(), 0);
  assert_string_equal(printed(), "");
  /* Outside its calls the default prints, as for any user. */
  bad_bounds(lib);
  assert_non_null(strstr(printed(), "Invalid character in histogram"));
}

/* Another user's logger stays, and gets the messages. */
static void other_logger_kept(void **state) {
  (void)state;
  other_calls = 0;
  dm_log_with_errno_init(other_logger);
  const struct dms_lib *lib = dms_libdm();
  dms_libdm_quiet_begin();
  bad_bounds(lib);
  dms_libdm_quiet_end();
  assert_int_equal(other_calls, 1);
  assert_int_equal(dm_log_is_non_default(), 1);
  bad_bounds(lib);
  assert_int_equal(other_calls, 2);
  assert_string_equal(printed(), "");
}

static void *bad_bounds_thread(void *arg) {
  bad_bounds(arg);
  return NULL;
}

/* While the plugin's logger is installed, another thread's message is
 * printed as the default prints it, and is not taken as the plugin's
 * failure. */
static void other_thread_printed(void **state) {
  (void)state;
  const struct dms_lib *lib = dms_libdm();
  dms_libdm_quiet_begin();
  pthread_t t;
  assert_int_equal(
      pthread_create(&t, NULL, bad_bounds_thread, (void *)(uintptr_t)lib), 0);
  assert_int_equal(pthread_join(t, NULL), 0);
  assert_int_equal(lib->take_last_errno(), 0);
  dms_libdm_quiet_end();
  assert_string_equal(printed(), "Invalid character in histogram: x\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(default_logger_restored, setup, teardown),
      cmocka_unit_test_setup_teardown(other_logger_kept, setup, teardown),
      cmocka_unit_test_setup_teardown(other_thread_printed, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
