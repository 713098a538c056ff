/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the helpers every layer and the companion plugins share:
 * growing an array, writing a one-line error, naming a kind of file.
 */
#ifndef ZVM_BASE_UTIL_H
#define ZVM_BASE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Room for element n (elements of size bytes) in the array *arrayp of
 * capacity *cap elements: the capacity doubles, starting at first, until
 * n fits. False if out of memory or too large (the array and *cap are as
 * they were). arrayp is the address of the array pointer (T **). */
bool zvm_grow_to(void *arrayp, size_t *cap, size_t n, size_t size,
                 size_t first);

/* The same; the check inline (it runs for every element added). */
static inline bool zvm_grow(void *arrayp, size_t *cap, size_t n, size_t size,
                            size_t first) {
  return n < *cap || zvm_grow_to(arrayp, cap, n, size, first);
}

/* Write a one-line reason into err (err_size bytes; err may be NULL) and
 * return -1: the error convention of the configuration, the checks and the
 * readers. */
__attribute__((format(printf, 3, 4))) int
zvm_format_error(char *err, size_t err_size, const char *fmt, ...);
__attribute__((format(printf, 3, 0))) int
zvm_vformat_error(char *err, size_t err_size, const char *fmt, va_list ap);

/* Text from the configuration as a log line may show it: printable
 * ASCII, anything else (and '\\') as \\xNN, at most ZVM_SHOWN_MAX - 4
 * bytes of it, then "...". buf (ZVM_SHOWN_MAX bytes) is returned. */
#define ZVM_SHOWN_MAX 64
const char *zvm_shown(const char *s, char buf[ZVM_SHOWN_MAX]);

/* What a file of this st_mode is, for a message: "a regular file", "a
 * directory", "a FIFO", "a socket", "a block device", "a character
 * device", "a symbolic link", or "an unknown kind of file". */
const char *zvm_file_kind(mode_t mode);

#endif /* ZVM_BASE_UTIL_H */
