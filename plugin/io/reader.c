/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - /dev/monreader reader: device I/O and data-set assembly.
 *
 * State machine. The device is CLOSED (fd < 0) or OPEN; while OPEN the set
 * assembler is ASSEMBLING (bytes since the last 0-byte read are in buf,
 * len <= max_set) or SKIPPING (the set outgrew max_set: its bytes are
 * dropped until its 0-byte read).
 *
 * CLOSED, drain:
 *   now < next_open            -> stay CLOSED, no open() call
 *   open() ok                  -> OPEN/ASSEMBLING, delay = 1 s, log INFO;
 *                                 reopens++ if closed by a fault
 *   open() fails               -> open_errors++, next_open = now + delay,
 *                                 delay = min(2 * delay, 60 s); logged when
 *                                 the errno differs from the last one logged
 * OPEN, drain: poll(0) first
 *   POLLERR/POLLHUP/POLLNVAL   -> FAULT (the driver's sign of a sever)
 *   nothing ready              -> return
 *   else read until EAGAIN (at most MAX_READS_PER_DRAIN reads):
 *   n > 0       bytes_read += n; append (ASSEMBLING) or drop (SKIPPING);
 *               an append beyond max_set -> SKIPPING, log once
 *   n == 0      sets++; ASSEMBLING: deliver buf[0..len) (even len 0: the
 *               driver's answer to an MCA it rejected); SKIPPING: oversize++;
 *               -> ASSEMBLING, len = 0
 *   EINTR       retry
 *   EAGAIN      return; the partial set stays for the next drain
 *   EOVERFLOW   eoverflow++; the partial set is valid: keep it, go on
 *   EFAULT      efault++. The driver does not advance after a failed
 *               copy: the rest of the message still follows. Mid-set:
 *               discard the partial set and drop that tail up to its 0-byte
 *               read (FAULTED; the tail is no set). Before the first byte of
 *               a set: nothing was lost, the whole message follows.
 *   EIO         eio++; discard the partial set; poll again: POLLERR -> FAULT
 *               (severed), otherwise the path is healthy: go on
 *   other       FAULT (an fd we cannot trust is re-opened, not retried)
 * FAULT: discard the partial set, close, CLOSED with next_open = now + delay,
 *   delay doubled (max 60 s), reopen pending, log WARNING/ERR.
 *
 * "discarded" counts partial sets thrown away with at least one byte read
 * (or being skipped); an oversize set cut off by EIO is discarded, not
 * oversize. So sets == delivered + oversize.
 *
 * Read errors are logged when the errno differs from the last one logged;
 * that memory is cleared by a drain that ends at EAGAIN without read errors
 * and by a successful open.
 */
#include "zvm_monitor/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_DEVICE "/dev/monreader"
#define DEFAULT_MAX_SET ((size_t)64 * 1024 * 1024)
#define INITIAL_BUF ((size_t)64 * 1024)
/* Grow before the free space gets this small, so reads stay large. */
#define MIN_READ ((size_t)4096)
#define BACKOFF_MIN_MS UINT64_C(1000)
#define BACKOFF_MAX_MS UINT64_C(60000)
/* At most 255 messages are pending, each needing a few reads (MCE, records,
 * per MCE; one 0-byte read): a few thousand reads in practice. The cap only
 * stops a device that never says EAGAIN; what is unread stays for later. */
#define MAX_READS_PER_DRAIN (UINT32_C(1) << 20)
#define MAX_POLL_EINTR 16
#define MSG_MAX 512

struct zvm_reader {
  struct zvm_reader_io io;
  char *device;
  size_t max_set;
  zvm_reader_log_fn log;
  void *log_ctx;
  zvm_reader_event_fn event;
  void *event_ctx;

  int fd;                /* < 0: CLOSED */
  uint64_t next_open_ms; /* no open() before this */
  uint64_t delay_ms;     /* back-off applied at the next failure */
  bool reopen_pending;   /* closed by a fault: next open is a re-open */
  bool open_failing;     /* an open failure has been logged ... */
  int open_errno;        /* ... with this errno */

  uint8_t *buf;
  size_t cap;
  size_t len;
  bool skipping; /* current set exceeded max_set, or is FAULTED: */
  bool faulted;  /* the tail of a message cut by EFAULT (no set) */

  int read_errno_logged; /* 0: none */
  bool oversize_logged;
  bool read_cap_logged;
  bool alloc_logged;

  struct zvm_reader_stats stats;
  /* Target of a read when buf holds max_set bytes: any byte read here
   * proves the set oversize without growing buf. */
  uint8_t probe[256];
};

/* ---- real system calls ------------------------------------------------ */

static int sys_open(const char *path, int flags, void *ctx) {
  (void)ctx;
  return open(path, flags);
}

static ssize_t sys_read(int fd, void *buf, size_t count, void *ctx) {
  (void)ctx;
  return read(fd, buf, count);
}

static int sys_poll(int fd, void *ctx) {
  struct pollfd p = {.fd = fd, .events = POLLIN};
  (void)ctx;
  int rc = poll(&p, 1, 0);
  if (rc <= 0)
    return rc;
  return p.revents;
}

static int sys_wait(int fd, int timeout_ms, void *ctx) {
  struct pollfd p = {.fd = fd, .events = POLLIN};
  (void)ctx;
  int rc = poll(fd >= 0 ? &p : NULL, fd >= 0 ? 1 : 0, timeout_ms);
  if (rc <= 0)
    return rc;
  return p.revents;
}

static int sys_close(int fd, void *ctx) {
  (void)ctx;
  return close(fd);
}

static uint64_t sys_now_ms(void *ctx) {
  struct timespec ts;
  (void)ctx;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

const struct zvm_reader_io zvm_reader_sysio = {
    .open = sys_open,
    .read = sys_read,
    .poll = sys_poll,
    .close = sys_close,
    .now_ms = sys_now_ms,
    .ctx = NULL,
    .wait = sys_wait,
};

/* ---- helpers ------------------------------------------------------------ */

__attribute__((format(printf, 3, 4))) static void
say(const struct zvm_reader *r, enum zvm_log_level level, const char *fmt,
    ...) {
  char msg[MSG_MAX];
  va_list ap;

  if (r->log == NULL)
    return;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  r->log(level, msg, r->log_ctx);
}

static unsigned secs(uint64_t ms) { return (unsigned)(ms / 1000u); }

/* Returns the delay chosen, in ms. */
static uint64_t schedule_open(struct zvm_reader *r, uint64_t now) {
  uint64_t delay = r->delay_ms;

  r->next_open_ms = now + delay;
  r->delay_ms = delay * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : delay * 2;
  return delay;
}

/* Tell the event callback; a partial set about to be discarded by
 * discard_set() is described by r's state now. */
static void emit(const struct zvm_reader *r, enum zvm_reader_event_type type,
                 int err) {
  if (r->event == NULL)
    return;
  struct zvm_reader_event ev = {
      .type = type,
      .err = err,
      .set_discarded = (r->len > 0 || r->skipping) && !r->faulted,
      .discarded_bytes = r->skipping ? 0 : r->len,
  };
  if (type == ZVM_READER_EV_OPEN || type == ZVM_READER_EV_REOPEN ||
      type == ZVM_READER_EV_OPEN_ERROR || type == ZVM_READER_EV_EOVERFLOW ||
      type == ZVM_READER_EV_OVERSIZE) {
    ev.set_discarded = false;
    ev.discarded_bytes = 0;
  }
  r->event(&ev, r->event_ctx);
}

static void discard_set(struct zvm_reader *r) {
  if ((r->len > 0 || r->skipping) && !r->faulted)
    r->stats.discarded++;
  r->len = 0;
  r->skipping = false;
  r->faulted = false;
}

/* FAULT: the fd is unusable (severed path or unexpected error). */
static uint64_t close_faulted(struct zvm_reader *r) {
  discard_set(r);
  r->io.close(r->fd, r->io.ctx);
  r->fd = -1;
  r->stats.faults++;
  r->stats.open = 0;
  r->reopen_pending = true;
  return schedule_open(r, r->io.now_ms(r->io.ctx));
}

static void sever(struct zvm_reader *r) {
  emit(r, ZVM_READER_EV_SEVER, 0);
  uint64_t delay = close_faulted(r);

  say(r, ZVM_LOG_WARNING,
      "the *MONITOR path of %s was severed (see syslog for the IPUSER SEVER "
      "code): closed it, will re-open (back-off %u s)",
      r->device, secs(delay));
}

static void log_open_error(const struct zvm_reader *r, int e) {
  char msg[MSG_MAX];

  zvm_reader_open_advice(e, r->device, msg, sizeof(msg));
  say(r, ZVM_LOG_ERR, "%s", msg);
}

static bool try_open(struct zvm_reader *r) {
  uint64_t now = r->io.now_ms(r->io.ctx);

  if (now < r->next_open_ms)
    return false;
  errno = 0;
  int fd = r->io.open(r->device, O_RDONLY | O_NONBLOCK | O_CLOEXEC, r->io.ctx);
  if (fd < 0) {
    int e = errno;
    r->stats.open_errors++;
    emit(r, ZVM_READER_EV_OPEN_ERROR, e);
    schedule_open(r, now);
    if (!r->open_failing || e != r->open_errno)
      log_open_error(r, e);
    r->open_failing = true;
    r->open_errno = e;
    r->stats.open_errno = e;
    return false;
  }
  r->fd = fd;
  r->stats.open = 1;
  r->delay_ms = BACKOFF_MIN_MS;
  r->next_open_ms = 0;
  r->open_failing = false;
  r->read_errno_logged = 0;
  r->read_cap_logged = false;
  if (r->reopen_pending) {
    r->reopen_pending = false;
    r->stats.reopens++;
    emit(r, ZVM_READER_EV_REOPEN, 0);
    say(r, ZVM_LOG_INFO, "re-opened %s", r->device);
  } else {
    emit(r, ZVM_READER_EV_OPEN, 0);
    say(r, ZVM_LOG_INFO, "opened %s", r->device);
  }
  return true;
}

/* poll() result: revents, 0 nothing ready, -1 poll itself failed. */
static int poll_dev(struct zvm_reader *r) {
  for (int i = 0; i < MAX_POLL_EINTR; i++) {
    errno = 0;
    int rev = r->io.poll(r->fd, r->io.ctx);
    if (rev >= 0)
      return rev;
    if (errno != EINTR)
      break;
  }
  return -1;
}

static bool is_severed(int rev) {
  return rev > 0 && (rev & (POLLERR | POLLHUP | POLLNVAL)) != 0;
}

static bool grow(struct zvm_reader *r) {
  size_t ncap = r->cap > 0 ? r->cap : INITIAL_BUF;

  while (ncap - r->len < MIN_READ && ncap < r->max_set)
    ncap = ncap > SIZE_MAX / 2 ? SIZE_MAX : ncap * 2;
  if (ncap > r->max_set)
    ncap = r->max_set;
  uint8_t *nb = realloc(r->buf, ncap);
  if (nb == NULL) {
    if (!r->alloc_logged)
      say(r, ZVM_LOG_ERR,
          "cannot allocate %zu bytes for a data set from %s: will retry", ncap,
          r->device);
    r->alloc_logged = true;
    return false;
  }
  r->alloc_logged = false;
  r->buf = nb;
  r->cap = ncap;
  return true;
}

/* Where the next read goes. false: out of memory. */
static bool next_target(struct zvm_reader *r, uint8_t **dst, size_t *want) {
  if (r->skipping && r->cap >= sizeof(r->probe)) {
    *dst = r->buf; /* contents are garbage while skipping */
    *want = r->cap;
    return true;
  }
  if (r->skipping || r->len == r->max_set) {
    *dst = r->probe;
    *want = sizeof(r->probe);
    return true;
  }
  if (r->cap - r->len < MIN_READ && r->cap < r->max_set && !grow(r))
    return false;
  *dst = r->buf + r->len;
  *want = r->cap - r->len;
  return true;
}

static void took(struct zvm_reader *r, const uint8_t *dst, size_t n) {
  if (r->skipping)
    return;
  if (dst != r->probe) {
    r->len += n;
    return;
  }
  /* Bytes beyond max_set: drop the set, keep memory where it is. */
  r->skipping = true;
  r->len = 0;
  if (!r->oversize_logged)
    say(r, ZVM_LOG_WARNING,
        "a data set from %s is larger than %zu bytes: discarded (the monitor "
        "DCSS is larger than the maximum set size)",
        r->device, r->max_set);
  r->oversize_logged = true;
}

static const uint8_t empty_set[1];

static void complete_set(struct zvm_reader *r, zvm_set_fn fn, void *ctx) {
  size_t len = r->len;

  r->len = 0;
  if (r->faulted) {
    /* The end of a message cut by EFAULT: already discarded, not a set. */
    r->faulted = false;
    r->skipping = false;
    return;
  }
  r->stats.sets++;
  if (r->skipping) {
    r->skipping = false;
    r->stats.oversize++;
    emit(r, ZVM_READER_EV_OVERSIZE, 0);
    return;
  }
  r->oversize_logged = false;
  if (fn != NULL)
    fn(len > 0 ? r->buf : empty_set, len, ctx);
}

static void log_read_error(struct zvm_reader *r, int e) {
  if (r->read_errno_logged == e)
    return;
  r->read_errno_logged = e;
  switch (e) {
  case EOVERFLOW:
    say(r, ZVM_LOG_WARNING,
        "%s: IUCV message limit reached (EOVERFLOW): monitor records were "
        "lost (the device was not read fast enough)",
        r->device);
    break;
  case EIO:
    say(r, ZVM_LOG_WARNING,
        "reading %s failed with EIO (IUCV reply failed): the incomplete data "
        "set was discarded",
        r->device);
    break;
  default:
    say(r, ZVM_LOG_WARNING,
        "reading %s failed with EFAULT: the incomplete data set was discarded",
        r->device);
    break;
  }
}

static void unexpected_read_error(struct zvm_reader *r, int e,
                                  const char *what) {
  emit(r, ZVM_READER_EV_SEVER, e);
  uint64_t delay = close_faulted(r);

  say(r, ZVM_LOG_ERR,
      "reading %s failed: %s: closed it, will re-open (back-off %u s)",
      r->device, what, secs(delay));
}

/* ---- API ---------------------------------------------------------------- */

struct zvm_reader *zvm_reader_create(const struct zvm_reader_config *cfg) {
  const struct zvm_reader_io *io = &zvm_reader_sysio;
  const char *device = DEFAULT_DEVICE;
  size_t max_set = DEFAULT_MAX_SET;

  if (cfg != NULL) {
    if (cfg->io != NULL)
      io = cfg->io;
    if (cfg->device != NULL)
      device = cfg->device;
    if (cfg->max_set_size > 0)
      max_set = cfg->max_set_size;
  }
  if (io->open == NULL || io->read == NULL || io->poll == NULL ||
      io->close == NULL || io->now_ms == NULL || device[0] == '\0')
    return NULL;
  if (max_set > SSIZE_MAX)
    max_set = SSIZE_MAX;

  struct zvm_reader *r = calloc(1, sizeof(*r));
  if (r == NULL)
    return NULL;
  size_t dlen = strlen(device) + 1;
  r->device = malloc(dlen);
  if (r->device == NULL) {
    free(r);
    return NULL;
  }
  memcpy(r->device, device, dlen);
  r->io = *io;
  r->max_set = max_set;
  if (cfg != NULL) {
    r->log = cfg->log;
    r->log_ctx = cfg->log_ctx;
    r->event = cfg->event;
    r->event_ctx = cfg->event_ctx;
  }
  r->fd = -1;
  r->delay_ms = BACKOFF_MIN_MS;
  return r;
}

void zvm_reader_destroy(struct zvm_reader *r) {
  if (r == NULL)
    return;
  if (r->fd >= 0)
    r->io.close(r->fd, r->io.ctx);
  free(r->buf);
  free(r->device);
  free(r);
}

const struct zvm_reader_stats *
zvm_reader_get_stats(const struct zvm_reader *r) {
  return r != NULL ? &r->stats : NULL;
}

int zvm_reader_wait(struct zvm_reader *r, int timeout_ms) {
  if (r == NULL)
    return -1;
  if (timeout_ms < 0)
    timeout_ms = 0;
  if (r->fd < 0) {
    uint64_t now = r->io.now_ms(r->io.ctx);
    if (now >= r->next_open_ms)
      return 1; /* an open is due */
    uint64_t left = r->next_open_ms - now;
    int ms = left < (uint64_t)timeout_ms ? (int)left : timeout_ms;
    if (r->io.wait != NULL && ms > 0)
      (void)r->io.wait(-1, ms, r->io.ctx);
    return r->io.now_ms(r->io.ctx) >= r->next_open_ms ? 1 : 0;
  }
  if (r->io.wait == NULL)
    return 1;
  errno = 0;
  int rev = r->io.wait(r->fd, timeout_ms, r->io.ctx);
  if (rev > 0)
    return 1;
  if (rev == 0 || errno == EINTR)
    return 0;
  return 1;
}

int zvm_reader_drain(struct zvm_reader *r, zvm_set_fn fn, void *ctx) {
  bool read_error = false;

  if (r == NULL)
    return -1;
  if (r->fd < 0 && !try_open(r))
    return 0;

  int rev = poll_dev(r);
  if (is_severed(rev)) {
    sever(r);
    return 0;
  }
  if (rev == 0) {
    r->read_errno_logged = 0;
    return 0;
  }
  /* rev < 0: poll failed; the non-blocking read below still tells. */

  for (uint32_t n = 0; n < MAX_READS_PER_DRAIN; n++) {
    uint8_t *dst;
    size_t want;

    if (!next_target(r, &dst, &want))
      return -1;
    errno = 0;
    ssize_t got = r->io.read(r->fd, dst, want, r->io.ctx);
    if (got > 0) {
      r->stats.bytes_read += (uint64_t)got;
      if ((size_t)got > want) {
        unexpected_read_error(r, 0, "read() returned more bytes than asked");
        return 0;
      }
      took(r, dst, (size_t)got);
      continue;
    }
    if (got == 0) {
      complete_set(r, fn, ctx);
      continue;
    }

    int e = errno;
    if (e == EINTR)
      continue;
    if (e == EAGAIN || e == EWOULDBLOCK) {
      if (!read_error)
        r->read_errno_logged = 0;
      r->read_cap_logged = false;
      return 0;
    }
    read_error = true;
    switch (e) {
    case EOVERFLOW:
      r->stats.eoverflow++;
      emit(r, ZVM_READER_EV_EOVERFLOW, e);
      log_read_error(r, e);
      break;
    case EFAULT: {
      bool mid_set = r->len > 0 || r->skipping;
      r->stats.efault++;
      emit(r, ZVM_READER_EV_EFAULT, e);
      discard_set(r);
      if (mid_set) {
        r->skipping = true;
        r->faulted = true;
      }
      log_read_error(r, e);
      break;
    }
    case EIO:
      r->stats.eio++;
      emit(r, ZVM_READER_EV_EIO, e);
      discard_set(r);
      if (is_severed(poll_dev(r))) {
        sever(r);
        return 0;
      }
      log_read_error(r, e);
      break;
    default: {
      char eb[128];
      unexpected_read_error(r, e, zvm_reader_strerror(e, eb, sizeof(eb)));
      return 0;
    }
    }
  }

  if (!r->read_cap_logged)
    say(r, ZVM_LOG_WARNING,
        "%s still had data after %lu reads in one drain: the rest is "
        "read at the next one",
        r->device, (unsigned long)MAX_READS_PER_DRAIN);
  r->read_cap_logged = true;
  return 0;
}
