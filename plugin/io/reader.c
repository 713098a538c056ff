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
 *   open() ok, not monreader   -> closed again, counted and logged as a
 *                                 failed open (ZVM_READER_NOT_MONREADER)
 *   open() ok                  -> OPEN/ASSEMBLING, delay = 1 s (unless a
 *                                 stream episode closed it: then after
 *                                 its first good set), log INFO;
 *                                 reopens++ if closed by a fault
 *   open() fails               -> open_errors++, next_open = now + delay,
 *                                 delay = min(2 * delay, 60 s); logged when
 *                                 the errno differs from the last one logged
 * OPEN, drain: poll(0) first
 *   POLLERR/POLLHUP/POLLNVAL   -> FAULT (the driver's sign of a sever)
 *   nothing ready              -> return
 *   else read until EAGAIN (at most MAX_READS_PER_DRAIN reads and about
 *   MAX_BYTES_PER_DRAIN bytes; returns between reads once stopped):
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
 * STREAM EPISODE: the driver never returns what follows, so a device that
 * does is not (working as) monreader: stream_errors++, FAULT, logged once
 * until a good set arrives. The driver answers each pending message (at
 * most 255) with its data and one 0-byte read, and an MCA it rejects with
 * a 0-byte read alone; every set it returns starts with an MCE that passed
 * its mon_check_mca() (type byte and domain mask not zero, end address
 * after the start address).
 *   - more than MAX_EMPTY_RUN 0-byte reads with no byte in between;
 *   - MAX_BAD_RUN sets in a row not starting with such an MCE, or one
 *     such set growing past BAD_SET_MAX bytes;
 *   - MAX_OVERSIZE_RUN sets in a row larger than max_set, or one set
 *     growing past twice max_set and ENDLESS_SET_MIN (the DCSS is larger
 *     than MaxSetSize: nothing can be used; or the data never ends).
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
#include "base/util.h"
#include "zvm_monitor/be.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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
 * per MCE; one 0-byte read): a few thousand reads in practice. The caps
 * keep a drain short (the thread sees a shutdown between drains and
 * between reads); what is unread stays for the next drain. */
#define MAX_READS_PER_DRAIN (UINT32_C(1) << 20)
#define MAX_BYTES_PER_DRAIN ((uint64_t)16 * 1024 * 1024)
/* Stream episodes (see above). */
#define MAX_EMPTY_RUN 255u
#define MAX_BAD_RUN 16u
#define BAD_SET_MAX ((uint64_t)1024 * 1024)
#define MAX_OVERSIZE_RUN 8u
#define ENDLESS_SET_MIN ((uint64_t)64 * 1024 * 1024)
#define MCE_LEN 12
#define MAX_POLL_EINTR 16
#define MSG_MAX 512

struct zvm_reader {
  struct zvm_reader_io io;
  char *device;
  const char *device_option; /* "Device", or the caller's static text */
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

  /* Stream watch (see STREAM EPISODE). */
  unsigned empty_run;    /* 0-byte reads since the last byte read */
  unsigned bad_run;      /* sets in a row without a valid first MCE */
  unsigned oversize_run; /* sets in a row larger than max_set */
  bool mce_checked;      /* the current set's first MCE was looked at */
  bool bad_set;          /* ... and it is not one the driver passes */
  uint64_t set_bytes;    /* bytes of the current set, skipped ones too */
  bool suspect;          /* closed by an episode: no good set since */
  bool episode_logged;

  atomic_bool stop;

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

static int sys_fstat(int fd, struct stat *st, void *ctx) {
  (void)ctx;
  return fstat(fd, st);
}

static ssize_t sys_read_text(const char *path, char *buf, size_t len,
                             void *ctx) {
  (void)ctx;
  if (len == 0)
    return -1;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  size_t got = 0;
  while (got < len - 1) {
    ssize_t n = read(fd, buf + got, len - 1 - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  close(fd);
  buf[got] = '\0';
  return (ssize_t)got;
}

const struct zvm_reader_io zvm_reader_sysio = {
    .open = sys_open,
    .read = sys_read,
    .poll = sys_poll,
    .close = sys_close,
    .now_ms = sys_now_ms,
    .ctx = NULL,
    .wait = sys_wait,
    .fstat = sys_fstat,
    .read_text = sys_read_text,
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

static void new_set(struct zvm_reader *r) {
  r->set_bytes = 0;
  r->mce_checked = false;
  r->bad_set = false;
}

static void discard_set(struct zvm_reader *r) {
  if ((r->len > 0 || r->skipping) && !r->faulted)
    r->stats.discarded++;
  r->len = 0;
  r->skipping = false;
  r->faulted = false;
  new_set(r);
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

/* The value of KEY= in a uevent text, into out. */
static bool uevent_value(const char *text, const char *key, char *out,
                         size_t size) {
  size_t klen = strlen(key);
  for (const char *p = text; p != NULL && *p != '\0';) {
    const char *eol = strchr(p, '\n');
    size_t len = eol != NULL ? (size_t)(eol - p) : strlen(p);
    if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
      snprintf(out, size, "%.*s", (int)(len - klen - 1), p + klen + 1);
      return true;
    }
    p = eol != NULL ? eol + 1 : NULL;
  }
  return false;
}

/* sysfs text is only as trustworthy as the kernel: a name from it goes
 * into a log line with anything but printable ASCII as '?'. */
static void printable(char *s) {
  for (; *s != '\0'; s++)
    if (*s < 0x20 || *s > 0x7E)
      *s = '?';
}

/* "MAJOR:MINOR" as the kernel prints a dev_t (print_dev_t(): "%u:%u\n"):
 * decimal numbers that fit, then the end of the text or its newline. */
static bool parse_dev(const char *s, unsigned *maj, unsigned *min) {
  unsigned *out[2] = {maj, min};
  for (int k = 0; k < 2; k++) {
    if (!(*s >= '0' && *s <= '9'))
      return false;
    unsigned long long v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
      v = v * 10 + (unsigned)(*s - '0');
      if (v > UINT_MAX)
        return false;
    }
    *out[k] = (unsigned)v;
    if (k == 0 && *s++ != ':')
      return false;
  }
  return *s == '\0' || *s == '\n';
}

bool zvm_reader_identify(const struct stat *st, const char *uevent,
                         const char *misc_dev, char *why, size_t why_len) {
  if (!S_ISCHR(st->st_mode)) {
    snprintf(why, why_len, "%s", zvm_file_kind(st->st_mode));
    return false;
  }
  unsigned maj = major(st->st_rdev), min = minor(st->st_rdev);
  if (uevent != NULL) {
    /* The kernel names a misc device's node after the device. */
    char name[64];
    if (uevent_value(uevent, "DEVNAME", name, sizeof(name)) &&
        strcmp(name, "monreader") == 0)
      return true;
    if (uevent_value(uevent, "DEVNAME", name, sizeof(name))) {
      printable(name);
      snprintf(why, why_len, "the character device %u:%u (%s)", maj, min, name);
    } else {
      snprintf(why, why_len, "the character device %u:%u", maj, min);
    }
    return false;
  }
  unsigned mmaj, mmin;
  if (misc_dev != NULL && parse_dev(misc_dev, &mmaj, &mmin)) {
    if (mmaj == maj && mmin == min)
      return true;
    snprintf(why, why_len, "the character device %u:%u (monreader is %u:%u)",
             maj, min, mmaj, mmin);
    return false;
  }
  return true; /* sysfs cannot tell: the stream checks still apply */
}

/* Is fd the misc device monreader? false: why says what it is. */
static bool check_identity(struct zvm_reader *r, int fd, char *why,
                           size_t why_len) {
  struct stat st;
  if (r->io.fstat == NULL || r->io.read_text == NULL ||
      r->io.fstat(fd, &st, r->io.ctx) != 0)
    return true;
  char path[64], uevent[512], misc[32];
  bool have_uevent = false, have_misc = false;
  if (S_ISCHR(st.st_mode)) {
    snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/uevent",
             (unsigned)major(st.st_rdev), (unsigned)minor(st.st_rdev));
    have_uevent = r->io.read_text(path, uevent, sizeof(uevent), r->io.ctx) >= 0;
    if (!have_uevent)
      have_misc = r->io.read_text("/sys/class/misc/monreader/dev", misc,
                                  sizeof(misc), r->io.ctx) >= 0;
  }
  return zvm_reader_identify(&st, have_uevent ? uevent : NULL,
                             have_misc ? misc : NULL, why, why_len);
}

/* Opened, but not monreader: a failed open, retried with back-off (a
 * udev rule or module may still put the right device there). */
static void open_refused(struct zvm_reader *r, int fd, uint64_t now,
                         const char *why) {
  int e = ZVM_READER_NOT_MONREADER;
  r->io.close(fd, r->io.ctx);
  r->stats.health.open_errors++;
  emit(r, ZVM_READER_EV_OPEN_ERROR, e);
  uint64_t delay = schedule_open(r, now);
  if (!r->open_failing || e != r->open_errno)
    say(r, ZVM_LOG_ERR,
        "%s is %s, not the z/VM monitor device: set %s to the node of "
        "the misc device monreader (/dev/monreader; its numbers are in "
        "/sys/class/misc/monreader/dev); retrying in %u s, then less often",
        r->device, why, r->device_option, secs(delay));
  r->open_failing = true;
  r->open_errno = e;
  r->stats.open_errno = e;
}

static bool try_open(struct zvm_reader *r) {
  uint64_t now = r->io.now_ms(r->io.ctx);

  if (now < r->next_open_ms)
    return false;
  errno = 0;
  int fd = r->io.open(r->device, O_RDONLY | O_NONBLOCK | O_CLOEXEC, r->io.ctx);
  if (fd < 0) {
    int e = errno;
    r->stats.health.open_errors++;
    emit(r, ZVM_READER_EV_OPEN_ERROR, e);
    schedule_open(r, now);
    if (!r->open_failing || e != r->open_errno)
      log_open_error(r, e);
    r->open_failing = true;
    r->open_errno = e;
    r->stats.open_errno = e;
    return false;
  }
  char why[160];
  if (!check_identity(r, fd, why, sizeof(why))) {
    open_refused(r, fd, now, why);
    return false;
  }
  r->fd = fd;
  r->stats.open = 1;
  if (!r->suspect)
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

/* The driver's mon_check_mca() for the MCE a set starts with (type,
 * domain mask bytes, start and end address; drivers/s390/char/monreader.c):
 * mce holds MCE_LEN bytes. */
static bool mce_valid(const uint8_t *mce) {
  return mce[0] != 0 && (mce[1] | mce[2]) != 0 &&
         zvm_load_be32(mce + 8) > zvm_load_be32(mce + 4);
}

static void took(struct zvm_reader *r, const uint8_t *dst, size_t n) {
  r->set_bytes += n;
  r->empty_run = 0;
  if (r->skipping)
    return;
  if (dst != r->probe) {
    r->len += n;
    if (!r->mce_checked && r->len >= MCE_LEN) {
      r->mce_checked = true;
      r->bad_set = !mce_valid(r->buf);
    }
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

static void watch_set(struct zvm_reader *r, size_t len) {
  if (r->set_bytes == 0) {
    r->empty_run++;
    return;
  }
  if (r->skipping)
    r->oversize_run++;
  else
    r->oversize_run = 0;
  if (r->bad_set || (!r->skipping && len < MCE_LEN)) {
    r->bad_run++;
  } else if (!r->skipping) {
    /* A set as the driver returns them: the device works. */
    r->bad_run = 0;
    r->episode_logged = false;
    if (r->suspect) {
      r->suspect = false;
      r->delay_ms = BACKOFF_MIN_MS;
    }
  }
}

static void complete_set(struct zvm_reader *r, zvm_set_fn fn, void *ctx) {
  size_t len = r->len;

  r->len = 0;
  if (r->faulted) {
    /* The end of a message cut by EFAULT: already discarded, not a set. */
    r->faulted = false;
    r->skipping = false;
    new_set(r);
    return;
  }
  watch_set(r, len);
  new_set(r);
  r->stats.health.sets++;
  if (r->skipping) {
    r->skipping = false;
    r->stats.health.oversize++;
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

/* A stream the driver cannot produce: close, back off (the delay keeps
 * doubling until a good set arrives), log once per run of episodes. */
static void stream_episode(struct zvm_reader *r, const char *what,
                           const char *todo) {
  r->stats.health.stream_errors++;
  emit(r, ZVM_READER_EV_SEVER, EPROTO);
  uint64_t delay = close_faulted(r);
  r->suspect = true;
  r->empty_run = r->bad_run = r->oversize_run = 0;
  if (!r->episode_logged)
    say(r, ZVM_LOG_ERR,
        "%s returned %s, which /dev/monreader never does: closed it, will "
        "re-open in %u s, then less often; %s",
        r->device, what, secs(delay), todo);
  r->episode_logged = true;
}

/* After a read: true if the stream is one the driver cannot produce (the
 * reader then is CLOSED). */
static bool stream_impossible(struct zvm_reader *r) {
  bool endless = r->skipping && !r->faulted && r->set_bytes / 2 > r->max_set &&
                 r->set_bytes > ENDLESS_SET_MIN;
  if (r->empty_run <= MAX_EMPTY_RUN && r->bad_run < MAX_BAD_RUN &&
      !(r->bad_set && r->set_bytes > BAD_SET_MAX) &&
      r->oversize_run < MAX_OVERSIZE_RUN && !endless)
    return false; /* the common case: nothing to format */
  char what[128], not_monitor_todo[160];
  snprintf(not_monitor_todo, sizeof(not_monitor_todo),
           "check that %s names the z/VM monitor device (the misc device "
           "monreader: /sys/class/misc/monreader/dev)",
           r->device_option);
  if (r->empty_run > MAX_EMPTY_RUN) {
    snprintf(what, sizeof(what), "%u 0-byte reads without data between them",
             r->empty_run);
    stream_episode(r, what, not_monitor_todo);
    return true;
  }
  if (r->bad_run >= MAX_BAD_RUN || (r->bad_set && r->set_bytes > BAD_SET_MAX)) {
    stream_episode(r,
                   "data that does not start with a monitor control "
                   "element (MCE)",
                   not_monitor_todo);
    return true;
  }
  if (r->oversize_run >= MAX_OVERSIZE_RUN || endless) {
    if (endless)
      snprintf(what, sizeof(what),
               "a data set larger than twice MaxSetSize (%zu bytes)",
               r->max_set);
    else
      snprintf(what, sizeof(what),
               "%u data sets in a row larger than MaxSetSize (%zu bytes)",
               r->oversize_run, r->max_set);
    stream_episode(r, what,
                   "raise MaxSetSize to the size of the monitor DCSS (CP "
                   "Q NSS MAP; the driver logs it when loaded)");
    return true;
  }
  return false;
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
    r->device_option = cfg->device_option;
  }
  if (r->device_option == NULL)
    r->device_option = "Device";
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

void zvm_reader_stop(struct zvm_reader *r) {
  if (r != NULL)
    atomic_store(&r->stop, true);
}

static bool stopped(struct zvm_reader *r) {
  return atomic_load_explicit(&r->stop, memory_order_relaxed);
}

int zvm_reader_wait(struct zvm_reader *r, int timeout_ms) {
  if (r == NULL)
    return -1;
  if (stopped(r))
    return 0;
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
  if (stopped(r) || (r->fd < 0 && !try_open(r)))
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

  uint64_t drained = 0;
  for (uint32_t n = 0; n < MAX_READS_PER_DRAIN; n++) {
    uint8_t *dst;
    size_t want;

    if (stopped(r))
      return 0;
    if (!next_target(r, &dst, &want))
      return -1;
    errno = 0;
    ssize_t got = r->io.read(r->fd, dst, want, r->io.ctx);
    if (got > 0) {
      r->stats.health.bytes_read += (uint64_t)got;
      if ((size_t)got > want) {
        unexpected_read_error(r, 0, "read() returned more bytes than asked");
        return 0;
      }
      took(r, dst, (size_t)got);
      if (stream_impossible(r))
        return 0;
      drained += (uint64_t)got;
      if (drained >= MAX_BYTES_PER_DRAIN)
        return 0; /* the rest at the next drain */
      continue;
    }
    if (got == 0) {
      complete_set(r, fn, ctx);
      if (stream_impossible(r))
        return 0;
      continue;
    }

    int e = errno;
    if (e == EINTR)
      continue;
    if (e == EAGAIN || e == EWOULDBLOCK) {
      r->empty_run = 0; /* time passes: rejected MCAs may keep coming */
      if (!read_error)
        r->read_errno_logged = 0;
      r->read_cap_logged = false;
      return 0;
    }
    read_error = true;
    switch (e) {
    case EOVERFLOW:
      r->stats.health.eoverflow++;
      emit(r, ZVM_READER_EV_EOVERFLOW, e);
      log_read_error(r, e);
      break;
    case EFAULT: {
      bool mid_set = r->len > 0 || r->skipping;
      r->stats.health.efault++;
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
      r->stats.health.eio++;
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
