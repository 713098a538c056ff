/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - array growth, one-line errors, names shortened for
 * collectd (util.h).
 */
#include "base/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool zvm_grow_to(void *arrayp, size_t *cap, size_t n, size_t size,
                 size_t first) {
  size_t new_cap = *cap ? *cap : (first ? first : 1);
  while (new_cap <= n) {
    if (new_cap > SIZE_MAX / 2)
      return false;
    new_cap *= 2;
  }
  if (size != 0 && new_cap > SIZE_MAX / size)
    return false;
  void *array;
  memcpy(&array, arrayp, sizeof(array));
  void *tmp = realloc(array, new_cap * size);
  if (tmp == NULL)
    return false;
  memcpy(arrayp, &tmp, sizeof(tmp));
  *cap = new_cap;
  return true;
}

int zvm_vformat_error(char *err, size_t err_size, const char *fmt, va_list ap) {
  if (err != NULL && err_size > 0) {
    vsnprintf(err, err_size, fmt, ap);
    /* A reason quotes the configuration's text, which may hold control
     * characters: the log line stays one line. */
    for (char *p = err; *p != '\0'; p++)
      if ((unsigned char)*p < 0x20 || *p == 0x7f)
        *p = '?';
  }
  return -1;
}

int zvm_format_error(char *err, size_t err_size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  zvm_vformat_error(err, err_size, fmt, ap);
  va_end(ap);
  return -1;
}

const char *zvm_shown(const char *s, char buf[ZVM_SHOWN_MAX]) {
  size_t n = 0;
  for (; *s != '\0'; s++) {
    unsigned char c = (unsigned char)*s;
    if (n + 8 >= ZVM_SHOWN_MAX) {
      memcpy(buf + n, "...", 3);
      n += 3;
      break;
    }
    if (c >= 0x20 && c < 0x7F && c != '\\')
      buf[n++] = (char)c;
    else
      n += (size_t)snprintf(buf + n, ZVM_SHOWN_MAX - n, "\\x%02X", c);
  }
  buf[n] = '\0';
  return buf;
}

const char *zvm_file_kind(mode_t mode) {
  if (S_ISREG(mode))
    return "a regular file";
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISLNK(mode))
    return "a symbolic link";
  return "an unknown kind of file";
}
