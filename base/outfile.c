/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - output files that never destroy what the program did not
 * create (outfile.h).
 *
 * Linux open(2): O_CREAT|O_EXCL never follows a symbolic link at the last
 * component and fails with EEXIST on anything that exists; O_NOFOLLOW makes
 * an open of a symbolic link fail with ELOOP.
 */
#include "base/outfile.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* open(2) of an existing file may race with its removal: try a few times
 * from the start (create, else open what is there). */
#define OPEN_TRIES 4

static int fail(struct zvm_outfile *out, int e, char *err, size_t err_size,
                const char *path, const char *why) {
  if (out->fd >= 0 && !out->is_stdout)
    close(out->fd);
  out->fd = -1;
  out->created = false;
  out->regular = false;
  zvm_format_error(err, err_size, "%s: %s", path, why);
  return e;
}

static void remember(struct zvm_outfile *out, const struct stat *st) {
  out->dev = st->st_dev;
  out->ino = st->st_ino;
}

int zvm_outfile_open(struct zvm_outfile *out, const char *path, unsigned flags,
                     char *err, size_t err_size) {
  *out = (struct zvm_outfile){.fd = -1};
  if (strcmp(path, "-") == 0) {
    out->fd = STDOUT_FILENO;
    out->is_stdout = true;
    return 0;
  }
  const int base = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
  mode_t mode = (flags & ZVM_OUT_GROUP_READ) != 0 ? 0640 : 0600;
  struct stat st;
  for (int tries = 0; tries < OPEN_TRIES; tries++) {
    out->fd = open(path, base | O_CREAT | O_EXCL, mode);
    if (out->fd >= 0) {
      if (fstat(out->fd, &st) != 0)
        return fail(out, errno, err, err_size, path, strerror(errno));
      out->created = true;
      out->regular = true;
      remember(out, &st);
      return 0;
    }
    if (errno != EEXIST)
      return fail(out, errno, err, err_size, path, strerror(errno));
    /* Something is there: open it as it is (no O_CREAT, no O_TRUNC). A
     * FIFO waits here for its reader, as a shell's '>' does. */
    out->fd = open(path, base);
    if (out->fd < 0) {
      int e = errno;
      if (e == ENOENT)
        continue; /* removed meanwhile: create it */
      if (e == ELOOP)
        return fail(out, e, err, err_size, path,
                    "a symbolic link: not followed (name the file itself)");
      if (e == EISDIR)
        return fail(out, e, err, err_size, path,
                    "a directory: name a file to write");
      return fail(out, e, err, err_size, path, strerror(e));
    }
    if (fstat(out->fd, &st) != 0)
      return fail(out, errno, err, err_size, path, strerror(errno));
    if (!S_ISREG(st.st_mode))
      return 0; /* a device, a FIFO, a socket: written to, nothing else */
    if ((flags & ZVM_OUT_FORCE) == 0)
      return fail(out, EEXIST, err, err_size, path,
                  "exists: not overwritten (--force overwrites it)");
    if (ftruncate(out->fd, 0) != 0)
      return fail(out, errno, err, err_size, path, strerror(errno));
    out->regular = true;
    remember(out, &st);
    return 0;
  }
  return fail(out, EAGAIN, err, err_size, path,
              "appears and disappears while being opened: try again");
}

int zvm_outfile_close(struct zvm_outfile *out) {
  int rc = 0;
  if (out->fd >= 0 && !out->is_stdout && close(out->fd) != 0)
    rc = errno;
  out->fd = -1;
  return rc;
}

bool zvm_outfile_remove(struct zvm_outfile *out, const char *path) {
  (void)zvm_outfile_close(out);
  if (!out->created)
    return false;
  out->created = false;
  struct stat st;
  if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != out->dev ||
      st.st_ino != out->ino)
    return false; /* not the file this open created any more */
  return unlink(path) == 0;
}
