/* SPDX-License-Identifier: MIT */
/*
 * Output files (base/outfile.c): a new file is 0600 (0640 on
 * request), an existing regular file is refused unless forced, a symbolic
 * link is never followed, a device or FIFO is written to and left as it
 * is, and only a file this open created is ever removed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/outfile.h"

static char dir[64];
static char path[128];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof(dir), "/tmp/test_outfile.XXXXXX");
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof(path), "%s/out", dir);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char p[160];
  const char *names[] = {"out", "target", "other", "fifo", "sub"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
    if (unlink(p) != 0)
      (void)rmdir(p);
  }
  assert_int_equal(rmdir(dir), 0);
  return 0;
}

static void put(const char *p, const char *text) {
  int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  assert_int_equal(close(fd), 0);
}

static void assert_content(const char *p, const char *text) {
  char buf[64] = {0};
  int fd = open(p, O_RDONLY);
  assert_true(fd >= 0);
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  assert_true(n >= 0);
  assert_string_equal(buf, text);
}

static mode_t mode_of(const char *p) {
  struct stat st;
  assert_int_equal(lstat(p, &st), 0);
  return st.st_mode;
}

static void new_file_is_0600_and_removable(void **state) {
  (void)state;
  mode_t old = umask(022);
  struct zvm_outfile o;
  char err[256] = "";
  assert_int_equal(zvm_outfile_open(&o, path, 0, err, sizeof(err)), 0);
  umask(old);
  assert_true(o.fd >= 0);
  assert_true(o.created);
  assert_true(o.regular);
  assert_false(o.is_stdout);
  assert_int_equal(mode_of(path) & 07777, 0600);
  assert_int_equal(write(o.fd, "x", 1), 1);
  assert_true(zvm_outfile_remove(&o, path));
  assert_int_equal(o.fd, -1);
  assert_int_equal(access(path, F_OK), -1);
}

static void group_read_is_0640(void **state) {
  (void)state;
  mode_t old = umask(022);
  struct zvm_outfile o;
  assert_int_equal(zvm_outfile_open(&o, path, ZVM_OUT_GROUP_READ, NULL, 0), 0);
  umask(old);
  assert_int_equal(mode_of(path) & 07777, 0640);
  assert_int_equal(zvm_outfile_close(&o), 0);
}

static void existing_file_refused_unless_forced(void **state) {
  (void)state;
  put(path, "precious\n");
  struct zvm_outfile o;
  char err[256] = "";
  assert_int_equal(zvm_outfile_open(&o, path, 0, err, sizeof(err)), EEXIST);
  assert_int_equal(o.fd, -1);
  assert_false(o.created);
  assert_non_null(strstr(err, path));
  assert_non_null(strstr(err, "exists: not overwritten (--force"));
  assert_content(path, "precious\n");
  /* Failing again does not remove it either. */
  assert_false(zvm_outfile_remove(&o, path));
  assert_content(path, "precious\n");

  /* --force: truncated (the user's choice), its mode kept, never removed. */
  assert_int_equal(zvm_outfile_open(&o, path, ZVM_OUT_FORCE, err, sizeof(err)),
                   0);
  assert_false(o.created);
  assert_true(o.regular);
  assert_int_equal(write(o.fd, "new\n", 4), 4);
  assert_false(zvm_outfile_remove(&o, path));
  assert_content(path, "new\n");
  assert_int_equal(mode_of(path) & 07777, 0644);
}

static void symlink_never_followed(void **state) {
  (void)state;
  char target[160];
  snprintf(target, sizeof(target), "%s/target", dir);
  put(target, "target\n");
  assert_int_equal(symlink(target, path), 0);
  for (unsigned flags = 0; flags <= ZVM_OUT_FORCE; flags++) {
    struct zvm_outfile o;
    char err[256] = "";
    assert_int_equal(zvm_outfile_open(&o, path, flags, err, sizeof(err)),
                     ELOOP);
    assert_int_equal(o.fd, -1);
    assert_non_null(strstr(err, "symbolic link"));
    assert_true(S_ISLNK(mode_of(path)));
    assert_content(target, "target\n");
  }
  /* A dangling link is not created through either. */
  assert_int_equal(unlink(target), 0);
  struct zvm_outfile o;
  assert_int_equal(zvm_outfile_open(&o, path, ZVM_OUT_FORCE, NULL, 0), ELOOP);
  assert_int_equal(access(target, F_OK), -1);
}

static void dev_null_written_never_removed(void **state) {
  (void)state;
  struct stat before, after;
  assert_int_equal(stat("/dev/null", &before), 0);
  assert_true(S_ISCHR(before.st_mode));
  struct zvm_outfile o;
  for (unsigned flags = 0; flags <= ZVM_OUT_FORCE; flags++) {
    assert_int_equal(zvm_outfile_open(&o, "/dev/null", flags, NULL, 0), 0);
    assert_false(o.created);
    assert_false(o.regular);
    assert_int_equal(write(o.fd, "x", 1), 1);
    assert_false(zvm_outfile_remove(&o, "/dev/null"));
  }
  assert_int_equal(stat("/dev/null", &after), 0);
  assert_true(S_ISCHR(after.st_mode));
  assert_int_equal(major(after.st_rdev), 1);
  assert_int_equal(minor(after.st_rdev), 3);
  assert_int_equal(after.st_ino, before.st_ino);
}

static void fifo_written_never_removed(void **state) {
  (void)state;
  char fifo[160];
  snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  int rd = open(fifo, O_RDONLY | O_NONBLOCK); /* the reader: no blocking */
  assert_true(rd >= 0);
  struct zvm_outfile o;
  assert_int_equal(zvm_outfile_open(&o, fifo, 0, NULL, 0), 0);
  assert_false(o.created);
  assert_false(o.regular);
  assert_int_equal(write(o.fd, "abc", 3), 3);
  char buf[4] = {0};
  assert_int_equal(read(rd, buf, 3), 3);
  assert_string_equal(buf, "abc");
  assert_false(zvm_outfile_remove(&o, fifo));
  assert_true(S_ISFIFO(mode_of(fifo)));
  close(rd);
}

static void dash_is_standard_output(void **state) {
  (void)state;
  struct zvm_outfile o;
  assert_int_equal(zvm_outfile_open(&o, "-", 0, NULL, 0), 0);
  assert_int_equal(o.fd, STDOUT_FILENO);
  assert_true(o.is_stdout);
  assert_false(zvm_outfile_remove(&o, "-"));
  assert_int_equal(zvm_outfile_close(&o), 0);
  assert_true(fcntl(STDOUT_FILENO, F_GETFD) >= 0); /* still open */
}

/* A file someone put in the place of the one created is not removed. */
static void replaced_file_not_removed(void **state) {
  (void)state;
  char other[160];
  snprintf(other, sizeof(other), "%s/other", dir);
  struct zvm_outfile o;
  assert_int_equal(zvm_outfile_open(&o, path, 0, NULL, 0), 0);
  assert_true(o.created);
  put(other, "theirs\n");
  assert_int_equal(rename(other, path), 0);
  assert_false(zvm_outfile_remove(&o, path));
  assert_content(path, "theirs\n");
}

static void directory_and_missing_parent(void **state) {
  (void)state;
  struct zvm_outfile o;
  char err[256] = "", p[192];
  snprintf(p, sizeof(p), "%s/sub", dir);
  assert_int_equal(mkdir(p, 0700), 0);
  assert_int_equal(zvm_outfile_open(&o, p, ZVM_OUT_FORCE, err, sizeof(err)),
                   EISDIR);
  assert_non_null(strstr(err, "a directory"));
  snprintf(p, sizeof(p), "%s/none/out", dir);
  assert_int_equal(zvm_outfile_open(&o, p, 0, err, sizeof(err)), ENOENT);
  assert_non_null(strstr(err, p));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(new_file_is_0600_and_removable, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(group_read_is_0640, setup, teardown),
      cmocka_unit_test_setup_teardown(existing_file_refused_unless_forced,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(symlink_never_followed, setup, teardown),
      cmocka_unit_test_setup_teardown(dev_null_written_never_removed, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(fifo_written_never_removed, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(dash_is_standard_output, setup, teardown),
      cmocka_unit_test_setup_teardown(replaced_file_not_removed, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(directory_and_missing_parent, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
