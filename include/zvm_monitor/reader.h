/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - /dev/monreader reader: device I/O and data-set assembly.
 *
 * Knows fds, poll, read and the driver's errno semantics; knows nothing of
 * record layouts or collectd. zvm_reader_drain() never blocks: it reads
 * every message that is ready, keeps an incomplete set for the next call,
 * and hands each complete set (bytes up to its 0-byte read) to a callback.
 * zvm_reader_wait() blocks until there is something to drain, or a
 * timeout, so a thread can drain the device continuously:
 *
 *   while (!stop) {
 *     zvm_reader_wait(r, 100);        at most 100 ms: stop is seen soon
 *     zvm_reader_drain(r, fn, ctx);
 *   }
 *
 * The glue runs that loop in its own thread (the driver queues only 255
 * messages; a read callback every 10 s is far too seldom for event data),
 * and hands the sets to the read callback through zvm_monitor/setqueue.h.
 * A reader is used by one thread at a time.
 */
#ifndef ZVM_MONITOR_READER_H
#define ZVM_MONITOR_READER_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "zvm_monitor/health.h"

/* System calls, replaceable by tests (a scripted fake device). */
struct zvm_reader_io {
  int (*open)(const char *path, int flags, void *ctx);
  ssize_t (*read)(int fd, void *buf, size_t count, void *ctx);
  /* poll one fd with timeout 0: returns revents (POLLIN/POLLERR/...), 0 if
   * nothing is ready, -1 with errno on failure. */
  int (*poll)(int fd, void *ctx);
  int (*close)(int fd, void *ctx);
  /* monotonic clock in milliseconds (re-open back-off) */
  uint64_t (*now_ms)(void *ctx);
  void *ctx;
  /* Optional (NULL: zvm_reader_wait() returns at once). Wait up to
   * timeout_ms for fd to become ready, as poll(): returns revents, 0 on
   * timeout, -1 with errno. fd < 0: just sleep timeout_ms, return 0. */
  int (*wait)(int fd, int timeout_ms, void *ctx);
  /* Optional, both or neither (NULL: what was opened is not checked).
   * fstat of the opened fd, as fstat(); and up to len - 1 bytes of a
   * (sysfs) file as NUL-terminated text: returns the length, -1 if it
   * cannot be read. The reader uses them to refuse what cannot be the
   * misc device "monreader" (see zvm_reader_identify()). */
  int (*fstat)(int fd, struct stat *st, void *ctx);
  ssize_t (*read_text)(const char *path, char *buf, size_t len, void *ctx);
};

/* Real system calls. */
extern const struct zvm_reader_io zvm_reader_sysio;

enum zvm_log_level {
  ZVM_LOG_ERR,
  ZVM_LOG_WARNING,
  ZVM_LOG_NOTICE,
  ZVM_LOG_INFO
};

/* The reader reports what an admin must know through this; the glue
 * prefixes "zvm_monitor plugin: " and passes it to collectd's log. The
 * reader itself rate-limits: one message per state change. */
typedef void (*zvm_reader_log_fn)(enum zvm_log_level level, const char *msg,
                                  void *ctx);

struct zvm_reader_stats {
  /* What the mapper dispatches (oversize: sets over max_set_size). */
  struct zvm_source_health health;
  uint64_t discarded; /* partial sets discarded (EIO/EFAULT/sever) */
  uint64_t reopens;   /* successful re-opens after a severed path */
  uint64_t faults;    /* open device closed for a re-open: a severed path
                         (POLLERR/POLLHUP) or an unexpected read error */
  /* The device's state when the counters were taken (not counters). */
  int open;       /* 1 while the device is open */
  int open_errno; /* errno of the most recent failed open() (0: none) */
};

/* The one-line advice for an open() that failed with err (what the log
 * says, and the device notification): "another process holds ..." etc.
 * Writes a NUL-terminated line into buf. */
void zvm_reader_open_advice(int err, const char *device, char *buf,
                            size_t size);
/* open() refused by the reader: what was opened is not the monreader
 * device (zvm_reader_identify()). Linux's "wrong medium type". */
#define ZVM_READER_NOT_MONREADER EMEDIUMTYPE

/* Is the opened file the misc device "monreader"? st: its fstat; uevent:
 * the text of /sys/dev/char/MAJOR:MINOR/uevent (NULL: unreadable);
 * misc_dev: the text of /sys/class/misc/monreader/dev, "MAJOR:MINOR"
 * (NULL: unreadable). Returns true if it is, or if sysfs cannot tell
 * (neither file readable, or the misc text not "MAJOR:MINOR"); else false
 * with the reason ("a regular file", "the character device 1:5 (zero)";
 * a name from sysfs with anything but printable ASCII as '?') in why. */
bool zvm_reader_identify(const struct stat *st, const char *uevent,
                         const char *misc_dev, char *why, size_t why_len);

/* strerror(), thread-safe: the text of errno e, in buf or static. */
const char *zvm_reader_strerror(int e, char *buf, size_t len);

/* What happened to the device besides complete sets, in the order it
 * happened relative to them (zvm-monitor-capture records these). */
enum zvm_reader_event_type {
  ZVM_READER_EV_OPEN = 1,       /* the device was opened (err 0) */
  ZVM_READER_EV_REOPEN = 2,     /* re-opened after a sever or fault */
  ZVM_READER_EV_OPEN_ERROR = 3, /* open() failed with err */
  ZVM_READER_EV_EOVERFLOW = 4,  /* read() EOVERFLOW: z/VM data was lost */
  ZVM_READER_EV_EIO = 5,        /* read() EIO: the partial set discarded */
  ZVM_READER_EV_EFAULT = 6,     /* read() EFAULT: the partial set discarded */
  ZVM_READER_EV_SEVER = 7,      /* path severed (or fd failed with err):
                                   closed, will re-open */
  ZVM_READER_EV_OVERSIZE = 8,   /* a set larger than max_set_size ended and
                                   was discarded (it counts as a set) */
};
#define ZVM_READER_EV_MAX ZVM_READER_EV_OVERSIZE

struct zvm_reader_event {
  enum zvm_reader_event_type type;
  int err;                  /* errno behind it; 0 if none */
  bool set_discarded;       /* a partial set was thrown away (discarded++) */
  uint64_t discarded_bytes; /* bytes of that partial set kept so far */
};

typedef void (*zvm_reader_event_fn)(const struct zvm_reader_event *ev,
                                    void *ctx);

struct zvm_reader_config {
  const char *device;             /* default "/dev/monreader" */
  size_t max_set_size;            /* default 64 MiB */
  const struct zvm_reader_io *io; /* NULL: zvm_reader_sysio */
  zvm_reader_log_fn log;
  void *log_ctx;
  zvm_reader_event_fn event; /* optional; called from zvm_reader_drain() */
  void *event_ctx;
  /* How the user names the device in messages that say what to change:
   * default "Device" (collectd.conf); a tool gives its option ("-d"). */
  const char *device_option;
};

struct zvm_reader;

struct zvm_reader *zvm_reader_create(const struct zvm_reader_config *cfg);
void zvm_reader_destroy(struct zvm_reader *r);

typedef void (*zvm_set_fn)(const uint8_t *set, size_t len, void *ctx);

/* Open if needed (honouring back-off), then read until EAGAIN; call fn for
 * each complete set in arrival order. Never blocks. A drain reads at most
 * a bounded number of bytes and reads (the rest waits for the next drain)
 * and returns between two reads once zvm_reader_stop() was called.
 * Returns 0 normally, -1 only if the reader cannot be used at all
 * (allocation failure). */
int zvm_reader_drain(struct zvm_reader *r, zvm_set_fn fn, void *ctx);

/* Ask a drain or wait running in another thread to return soon (between
 * two reads); later drains return at once. The only call that may come
 * from another thread. */
void zvm_reader_stop(struct zvm_reader *r);

/* Block until a drain has something to do, or timeout_ms (>= 0) passed:
 * the open device is readable or reports an error (a severed path), or,
 * while the device is closed, its re-open back-off has expired (the wait
 * then lasts at most until then). Returns 1 if a drain is due, 0 after a
 * timeout or an interrupted wait, -1 if r is NULL. A wait that fails for
 * another reason returns 1: the drain will find out and count it. */
int zvm_reader_wait(struct zvm_reader *r, int timeout_ms);

const struct zvm_reader_stats *zvm_reader_get_stats(const struct zvm_reader *r);

#endif /* ZVM_MONITOR_READER_H */
