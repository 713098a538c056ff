/* SPDX-License-Identifier: MIT */
/*
 * Replays committed fuzz inputs through one fuzz target without libFuzzer,
 * as a cmocka test in 'make check': the seed corpus
 * (tests/fuzz/corpus/<target>/) and the crash regressions
 * (tests/fuzz/regress/<target>/, one file per finding). So every input that
 * ever found a bug runs with the normal compiler, under ASan/UBSan, under
 * valgrind and big-endian under qemu-s390x.
 *
 *   replay_<target>                 the committed inputs
 *   replay_<target> FILE|DIR...     just these (to debug a finding)
 *
 * Built with -DFUZZ_TARGET='"<target>"' -DFUZZ_DIR='"<srcdir>/tests/fuzz"'.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fuzz.h"

#define REPLAY_MAX (1u << 20)

/* The input being replayed, for the SIGABRT handler: an invariant
 * violation (FUZZ_CHECK) aborts; so does a sanitizer finding with
 * ASAN_OPTIONS/UBSAN_OPTIONS abort_on_error=1. */
static char current[4096];

static void on_abort(int sig) {
  static const char msg[] = "\nreplay: crashed on input ";
  ssize_t r = write(STDERR_FILENO, msg, sizeof(msg) - 1);
  r = write(STDERR_FILENO, current, strlen(current));
  r = write(STDERR_FILENO, "\n", 1);
  (void)r;
  signal(sig, SIG_DFL);
  raise(sig);
}

static void replay_file(const char *path) {
  snprintf(current, sizeof(current), "%s", path);
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    fail_msg("%s: %s", path, strerror(errno));
  uint8_t *buf = malloc(REPLAY_MAX);
  assert_non_null(buf);
  size_t n = fread(buf, 1, REPLAY_MAX, f);
  int err = ferror(f);
  fclose(f);
  if (err)
    fail_msg("%s: read error", path);
  if (n == REPLAY_MAX)
    fail_msg("%s: larger than %u bytes", path, REPLAY_MAX);
  /* Exactly n bytes on the heap, as libFuzzer hands them over. */
  uint8_t *input = malloc(n ? n : 1);
  assert_non_null(input);
  memcpy(input, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(input, n);
  free(input);
  current[0] = '\0';
}

static int skip_dotfiles(const struct dirent *e) { return e->d_name[0] != '.'; }

/* Replays a file, or every file in a directory (sorted); returns how many.
 * A missing directory replays nothing. */
static size_t replay_path(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0)
    return 0;
  if (!S_ISDIR(st.st_mode)) {
    replay_file(path);
    return 1;
  }
  struct dirent **list;
  int n = scandir(path, &list, skip_dotfiles, alphasort);
  if (n < 0)
    fail_msg("%s: %s", path, strerror(errno));
  size_t count = 0;
  for (int i = 0; i < n; i++) {
    char file[4096];
    snprintf(file, sizeof(file), "%s/%s", path, list[i]->d_name);
    count += replay_path(file);
    free(list[i]);
  }
  free(list);
  return count;
}

static void test_seed_corpus(void **state) {
  size_t n = replay_path(*state);
  print_message("fuzz_%s: replayed %zu seed inputs from %s\n", FUZZ_TARGET, n,
                (const char *)*state);
  /* The seeds are committed: none means a broken tree. */
  assert_true(n > 0);
}

static void test_regressions(void **state) {
  size_t n = replay_path(*state);
  print_message("fuzz_%s: replayed %zu regression inputs from %s\n",
                FUZZ_TARGET, n, (const char *)*state);
}

int main(int argc, char **argv) {
  signal(SIGABRT, on_abort);
  if (argc > 1) {
    size_t n = 0;
    for (int i = 1; i < argc; i++)
      n += replay_path(argv[i]);
    printf("fuzz_%s: replayed %zu inputs\n", FUZZ_TARGET, n);
    return n > 0 ? 0 : 1;
  }
  static char corpus[] = FUZZ_DIR "/corpus/" FUZZ_TARGET;
  static char regress[] = FUZZ_DIR "/regress/" FUZZ_TARGET;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_prestate(test_seed_corpus, corpus),
      cmocka_unit_test_prestate(test_regressions, regress),
  };
  return cmocka_run_group_tests_name("fuzz_" FUZZ_TARGET " corpus replay",
                                     tests, NULL, NULL);
}
