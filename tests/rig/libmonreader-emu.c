/* SPDX-License-Identifier: MIT */
/*
 * libmonreader-emu.so - an emulated /dev/monreader for LD_PRELOAD.
 *
 * open() of the device path returns a real eventfd; the eventfd is made
 * readable exactly while the emulated driver has a message pending (or the
 * path is severed), so poll/ppoll/select/epoll in the application wake up
 * as they would for the real device. read() and close() on that fd are
 * served here with the semantics of drivers/s390/char/monreader.c:
 *   - one opener (EBUSY), EIO on open for a failed connect (injected);
 *   - per message: MCE (12 bytes) then its record set, for every MCE, then
 *     a 0-byte read; a read never mixes MCE and record bytes and is
 *     clipped to the rest of the MCE or of the record set;
 *   - EAGAIN (O_NONBLOCK, nothing pending), blocking reads wait (EINTR on
 *     a signal), EOVERFLOW after the message that reached the IUCV message
 *     limit, EIO/EFAULT/sever as injected, POLLERR after a sever.
 * poll()/ppoll() are intercepted only to report POLLERR (no real fd type
 * can report POLLERR alone) and to hide the eventfd's POLLOUT.
 * fstat() of the fd and stat() of the path say "character device" with the
 * emulated numbers (MONREADER_EMU_RDEV, default 10:63), and the sysfs files
 * a reader checks them against (/sys/dev/char/MAJ:MIN/uevent with
 * DEVNAME=monreader, /sys/class/misc/monreader/dev) are served from here.
 *
 * Configuration: environment variables, see README.md.
 */
#undef _FORTIFY_SOURCE
#define _GNU_SOURCE
#include "scenario.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define MSGLIM_MAX 255 /* MON_MSGLIM of the driver */

/* ---- the real functions ------------------------------------------------ */
static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real___open_2)(const char *, int);
static int (*real___open64_2)(const char *, int);
static int (*real___openat_2)(int, const char *, int);
static int (*real___openat64_2)(int, const char *, int);
static ssize_t (*real_read)(int, void *, size_t);
static int (*real_close)(int);
static int (*real_poll)(struct pollfd *, nfds_t, int);
static int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *,
                         const sigset_t *);
static int (*real_fstat)(int, struct stat *);
static int (*real_fstat64)(int, struct stat64 *);
static int (*real_stat)(const char *, struct stat *);
static int (*real_stat64)(const char *, struct stat64 *);

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static char *device_path; /* MONREADER_EMU_DEVICE, read once */
static unsigned emu_major = 10, emu_minor = 63; /* MONREADER_EMU_RDEV */
static char sysfs_uevent[64];                   /* its uevent path */

#define RESOLVE(name)                                                          \
  do {                                                                         \
    void *sym = dlsym(RTLD_NEXT, #name);                                       \
    memcpy(&real_##name, &sym, sizeof(sym));                                   \
  } while (0)

static void atfork_prepare(void);
static void atfork_parent(void);
static void atfork_child(void);

static void init(void) {
  RESOLVE(open);
  RESOLVE(open64);
  RESOLVE(openat);
  RESOLVE(openat64);
  RESOLVE(__open_2);
  RESOLVE(__open64_2);
  RESOLVE(__openat_2);
  RESOLVE(__openat64_2);
  RESOLVE(read);
  RESOLVE(close);
  RESOLVE(poll);
  RESOLVE(ppoll);
  RESOLVE(fstat);
  RESOLVE(fstat64);
  RESOLVE(stat);
  RESOLVE(stat64);
  /* Fall back to the plain variants where a libc lacks the others. */
  if (real_open64 == NULL)
    real_open64 = real_open;
  if (real_openat64 == NULL)
    real_openat64 = real_openat;
  const char *dev = getenv("MONREADER_EMU_DEVICE");
  device_path = strdup(dev != NULL && dev[0] != '\0' ? dev : "/dev/monreader");
  const char *rdev = getenv("MONREADER_EMU_RDEV");
  unsigned ma, mi;
  if (rdev != NULL && sscanf(rdev, "%u:%u", &ma, &mi) == 2) {
    emu_major = ma;
    emu_minor = mi;
  }
  snprintf(sysfs_uevent, sizeof(sysfs_uevent), "/sys/dev/char/%u:%u/uevent",
           emu_major, emu_minor);
  pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

static void ensure_init(void) { pthread_once(&init_once, init); }

/* ---- emulated driver state --------------------------------------------- */
struct qent {
  size_t msg;    /* index in the scenario */
  uint64_t pass; /* loop pass it belongs to (TOD shift) */
  bool msglim;   /* this message reached the message limit */
};

static struct {
  pthread_mutex_t lock;
  pthread_cond_t cond; /* wakes the arrival thread */
  bool cond_ready;

  /* Scenario and its timeline (kept across opens). */
  bool loaded;
  struct scenario scn;
  char *scn_path;
  char *faults_spec;
  uint64_t first_tod_us; /* first record of message 0, for RETIME */
  size_t next;           /* next message to arrive */
  uint64_t pass;         /* loop pass of `next` */
  bool ended;            /* no further arrivals */
  unsigned *open_left;   /* open() failures left per position */
  int64_t retime_us;
  bool retime_set;

  /* Settings (read at each open). */
  uint64_t pace_ms;
  uint64_t loops; /* 0: forever */
  bool retime;
  unsigned msglim;
  bool verbose;
  bool ignore_nonblock; /* MONREADER_EMU_BLOCKING: a broken driver */

  /* Session: while the device is open. */
  int fd; /* the eventfd handed out, -1 when closed */
  int lock_fd;
  bool armed;   /* eventfd counter non-zero */
  bool barrier; /* a sever message has arrived */
  bool first_after_open;
  uint64_t last_ms; /* time of the last arrival (or open) */
  struct qent q[MSGLIM_MAX];
  unsigned qhead, qcount;
  size_t pos;     /* stream offset in the head message */
  size_t mce_off; /* offset of the head message's current MCE */
  bool replied_msglim;
  bool efault_done;
  bool severed;
  uint8_t *patched; /* head message with shifted TODs */
  size_t patched_cap;
  bool head_ready;
  const uint8_t *head_data;
  uint64_t lost;
  /* Tallies for MONREADER_EMU_STATS (soak tests): messages ended by their
   * 0-byte read, failed by injected EIO, faults, messages dropped by close. */
  uint64_t n_completed, n_eio, n_efault, n_eoverflow, n_close_discarded;
  pthread_t thr;
  bool thr_running;
  bool thr_stop;
} S = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .fd = -1,
    .lock_fd = -1,
};

/* The emulated fd, for the fast path of every intercepted call. */
static atomic_int emu_fd = -1;

static void emu_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emu_log(const char *fmt, ...) {
  if (!S.verbose)
    return;
  va_list ap;
  va_start(ap, fmt);
  fputs("monreader-emu: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static void atfork_prepare(void) { pthread_mutex_lock(&S.lock); }
static void atfork_parent(void) { pthread_mutex_unlock(&S.lock); }
static void atfork_child(void) {
  /* The child has no arrival thread: its copy of the fd is a plain
   * eventfd, not the device. */
  pthread_mutex_init(&S.lock, NULL);
  atomic_store(&emu_fd, -1);
  S.fd = -1;
  S.lock_fd = -1;
  S.thr_running = false;
  S.cond_ready = false;
}

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t env_u64(const char *name, uint64_t def, uint64_t max) {
  const char *v = getenv(name);
  if (v == NULL || v[0] == '\0')
    return def;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(v, &end, 10);
  if (errno != 0 || *end != '\0' || x > max) {
    fprintf(stderr, "monreader-emu: ignoring bad %s='%s'\n", name, v);
    return def;
  }
  return x;
}

static bool str_differs(const char *a, const char *b) {
  if (a == NULL || b == NULL)
    return a != b;
  return strcmp(a, b) != 0;
}

/* ---- TOD shifting (loop passes, MONREADER_EMU_RETIME) ------------------- */
/* Walk the records of a message (MCEs up to deliver_len, D1R13 frame
 * skips) and call fn for each record header. */
static void walk_records(uint8_t *data, size_t len, int64_t shift_tod,
                         uint64_t *first_tod) {
  for (size_t off = 0; off + MW_MCE_LEN <= len;) {
    uint32_t start = mw_load_be32(data + off + 4);
    uint32_t end = mw_load_be32(data + off + 8);
    size_t rlen = (size_t)(end - start) + 1;
    size_t rs = off + MW_MCE_LEN;
    if (rlen > len - rs)
      return;
    for (size_t r = 0; r + 20 <= rlen;) {
      uint8_t *p = data + rs + r;
      uint16_t hl = mw_load_be16(p);
      if (hl < 20 || hl > rlen - r || mw_load_be16(p + 2) != 0)
        break;
      uint64_t tod;
      mw_get_be(p, hl, 8, 8, &tod);
      if (first_tod != NULL) {
        *first_tod = tod;
        return;
      }
      mw_put_be(p, hl, 8, 8, tod + (uint64_t)shift_tod);
      size_t adv = hl;
      if (p[4] == 1 && mw_load_be16(p + 6) == 13) {
        uint32_t addr = start + (uint32_t)r;
        size_t left = MW_FRAME - (addr & (MW_FRAME - 1));
        if (left > adv)
          adv = left;
      }
      r += adv;
    }
    off = rs + rlen;
  }
}

/* ---- scenario loading --------------------------------------------------- */
static void timeline_reset(void) {
  S.next = 0;
  S.pass = 0;
  S.ended = S.scn.nmsgs == 0;
  for (size_t i = 0; i <= S.scn.nmsgs; i++)
    S.open_left[i] = S.scn.msgs[i].open_count;
}

/* (Re)load the scenario when its path or the faults changed. */
static int load_scenario(void) {
  const char *path = getenv("MONREADER_EMU_SCENARIO");
  const char *faults = getenv("MONREADER_EMU_FAULTS");
  if (path == NULL || path[0] == '\0') {
    fprintf(stderr, "monreader-emu: MONREADER_EMU_SCENARIO is not set\n");
    return -1;
  }
  if (S.loaded && !str_differs(path, S.scn_path) &&
      !str_differs(faults, S.faults_spec))
    return 0;

  struct scenario scn;
  char err[256];
  if (scn_load(path, &scn, err, sizeof(err)) != 0) {
    fprintf(stderr, "monreader-emu: %s\n", err);
    return -1;
  }
  if (faults != NULL && faults[0] != '\0') {
    struct scn_fault *f;
    size_t n;
    if (scn_faults_parse(faults, &f, &n, err, sizeof(err)) != 0 ||
        scn_faults_apply(&scn, f, n, err, sizeof(err)) != 0) {
      fprintf(stderr, "monreader-emu: MONREADER_EMU_FAULTS: %s\n", err);
      free(f);
      scn_free(&scn);
      return -1;
    }
    free(f);
  }
  unsigned *open_left = calloc(scn.nmsgs + 1, sizeof(*open_left));
  char *p = strdup(path), *fs = faults != NULL ? strdup(faults) : NULL;
  if (open_left == NULL || p == NULL || (faults != NULL && fs == NULL)) {
    free(open_left);
    free(p);
    free(fs);
    scn_free(&scn);
    return -1;
  }
  if (S.loaded)
    scn_free(&S.scn);
  free(S.open_left);
  free(S.scn_path);
  free(S.faults_spec);
  S.scn = scn;
  S.open_left = open_left;
  S.scn_path = p;
  S.faults_spec = fs;
  S.loaded = true;
  S.first_tod_us = 0;
  S.retime_set = false;
  if (scn.nmsgs > 0) {
    uint64_t tod = 0;
    walk_records((uint8_t *)scn.msgs[0].data, scn.msgs[0].deliver_len, 0, &tod);
    if (tod >= UINT64_C(0x7D91048BCA000000))
      S.first_tod_us = (tod - UINT64_C(0x7D91048BCA000000)) >> 12;
  }
  timeline_reset();
  emu_log("loaded %s: %zu messages", path, scn.nmsgs);
  return 0;
}

__attribute__((constructor)) static void emu_constructor(void) {
  pthread_once(&init_once, init);
  /* Memory benchmarks: the scenario in the process from the start, also
   * in a run that never opens the device (the baseline), so that a
   * difference of peak RSS is the reader's, not the emulator's. */
  const char *preload = getenv("MONREADER_EMU_PRELOAD");
  if (preload != NULL && strcmp(preload, "1") == 0) {
    pthread_mutex_lock(&S.lock);
    (void)load_scenario(); /* a failure is logged; open() tries again */
    pthread_mutex_unlock(&S.lock);
  }
}

/* ---- arrivals ---------------------------------------------------------- */
static uint64_t gap_of(size_t m) {
  const struct scn_msg *msg = &S.scn.msgs[m];
  if (msg->delay_ms != SCN_NONE)
    return msg->delay_ms;
  return S.first_after_open ? 0 : S.pace_ms;
}

static void advance_timeline(void) {
  if (++S.next < S.scn.nmsgs)
    return;
  if (S.loops == 0 || S.pass + 1 < S.loops) {
    S.next = 0;
    S.pass++;
    for (size_t i = 0; i <= S.scn.nmsgs; i++)
      S.open_left[i] = S.scn.msgs[i].open_count;
  } else {
    S.ended = true;
  }
}

/* Let every message whose time has come arrive. A message with gap 0
 * arrives as soon as the queue has room below the message limit (so it
 * never overflows); a timed message arriving at a full queue is lost, and
 * the one that fills the queue is flagged (EOVERFLOW after it). */
static void update(uint64_t now) {
  while (!S.ended && !S.barrier && S.fd >= 0) {
    size_t m = S.next;
    uint64_t gap = gap_of(m);
    uint64_t at;
    if (gap == 0) {
      if (S.qcount + 1 >= S.msglim)
        return;
      at = now > S.last_ms ? now : S.last_ms;
    } else {
      at = S.last_ms + gap;
      if (now < at)
        return;
    }
    S.last_ms = at;
    S.first_after_open = false;
    if (S.qcount >= S.msglim) {
      S.lost++;
      emu_log("message %zu lost: message limit (%u) reached", m, S.msglim);
    } else {
      struct qent *e = &S.q[(S.qhead + S.qcount) % MSGLIM_MAX];
      *e = (struct qent){
          .msg = m, .pass = S.pass, .msglim = S.qcount + 1 == S.msglim};
      S.qcount++;
      if (e->msglim)
        emu_log("message %zu reached the message limit", m);
      if (S.scn.msgs[m].sever)
        S.barrier = true;
    }
    advance_timeline();
  }
}

static bool next_due(uint64_t *due) {
  if (S.ended || S.barrier || S.fd < 0)
    return false;
  uint64_t gap = gap_of(S.next);
  if (gap == 0)
    return false; /* arrives when a read makes room */
  *due = S.last_ms + gap;
  return true;
}

/* Make the eventfd readable exactly when poll should report something. */
static void sync_ready(void) {
  bool want = S.qcount > 0 || S.severed;
  if (S.fd < 0 || want == S.armed)
    return;
  uint64_t v = 1;
  if (want) {
    if (write(S.fd, &v, sizeof(v)) == sizeof(v))
      S.armed = true;
  } else if (real_read(S.fd, &v, sizeof(v)) == sizeof(v)) {
    S.armed = false;
  }
}

static short emu_revents(void) {
  if (S.severed)
    return POLLERR;
  if (S.qcount > 0)
    return POLLIN | POLLRDNORM;
  return 0;
}

static void *arrival_thread(void *arg) {
  (void)arg;
  pthread_mutex_lock(&S.lock);
  while (!S.thr_stop) {
    update(now_ms());
    sync_ready();
    uint64_t due;
    if (next_due(&due)) {
      struct timespec ts = {.tv_sec = (time_t)(due / 1000),
                            .tv_nsec = (long)(due % 1000) * 1000000};
      pthread_cond_timedwait(&S.cond, &S.lock, &ts);
    } else {
      pthread_cond_wait(&S.cond, &S.lock);
    }
  }
  pthread_mutex_unlock(&S.lock);
  return NULL;
}

/* ---- the head message ---------------------------------------------------- */
static const struct scn_msg *head_msg(void) {
  return &S.scn.msgs[S.q[S.qhead].msg];
}

static const uint8_t *head_data(void) {
  if (S.head_ready)
    return S.head_data;
  const struct scn_msg *m = head_msg();
  int64_t shift_us = (int64_t)(S.q[S.qhead].pass * S.scn.span_us);
  if (S.retime)
    shift_us += S.retime_us;
  S.head_data = m->data;
  if (shift_us != 0 && m->deliver_len > 0) {
    if (S.patched_cap < m->deliver_len) {
      uint8_t *p = realloc(S.patched, m->deliver_len);
      if (p != NULL) {
        S.patched = p;
        S.patched_cap = m->deliver_len;
      }
    }
    if (S.patched_cap >= m->deliver_len) {
      memcpy(S.patched, m->data, m->deliver_len);
      walk_records(S.patched, m->deliver_len, shift_us * 4096, NULL);
      S.head_data = S.patched;
    }
  }
  S.head_ready = true;
  return S.head_data;
}

static void consume_head(void) {
  const struct scn_msg *m = head_msg();
  S.qhead = (S.qhead + 1) % MSGLIM_MAX;
  S.qcount--;
  S.pos = 0;
  S.mce_off = 0;
  S.replied_msglim = false;
  S.efault_done = false;
  S.head_ready = false;
  if (m->sever) {
    S.severed = true;
    emu_log("path severed");
  }
}

/* IUCV REPLY: the message is done, unless it reached the message limit
 * (then the next read reports EOVERFLOW and only then moves on). */
static void reply(void) {
  if (S.q[S.qhead].msglim || head_msg()->eoverflow)
    S.replied_msglim = true;
  else
    consume_head();
}

static ssize_t fail_errno(int e) {
  errno = e;
  return -1;
}

/* One read() on the device; called with S.lock held and a message pending. */
static ssize_t deliver(void *buf, size_t count) {
  if (S.replied_msglim) {
    consume_head();
    S.n_eoverflow++;
    emu_log("read: EOVERFLOW");
    return fail_errno(EOVERFLOW);
  }
  const struct scn_msg *m = head_msg();
  if (m->efault_at != SCN_NONE && !S.efault_done && S.pos == m->efault_at) {
    S.efault_done = true; /* the driver keeps its position */
    S.n_efault++;
    emu_log("read: injected EFAULT at offset %zu", S.pos);
    return fail_errno(EFAULT);
  }
  if (m->eio_at != SCN_NONE && S.pos == m->eio_at) {
    emu_log("read: injected EIO at offset %zu", S.pos);
    S.n_eio++;
    reply();
    return fail_errno(EIO);
  }
  if (S.pos >= m->deliver_len) {
    S.n_completed++;
    reply(); /* end of the message: the 0-byte read */
    return 0;
  }
  const uint8_t *data = head_data();
  const uint8_t *mce = data + S.mce_off;
  size_t mce_end = S.mce_off + MW_MCE_LEN;
  size_t rs_end =
      mce_end + (size_t)(mw_load_be32(mce + 8) - mw_load_be32(mce + 4)) + 1;
  /* Never mix MCE and record bytes: the rest of the MCE, or of the set. */
  size_t limit = S.pos < mce_end ? mce_end : rs_end;
  /* Injected faults happen exactly at their offset. */
  if (m->efault_at != SCN_NONE && !S.efault_done && m->efault_at > S.pos &&
      m->efault_at < limit)
    limit = m->efault_at;
  if (m->eio_at != SCN_NONE && m->eio_at > S.pos && m->eio_at < limit)
    limit = m->eio_at;
  size_t n = limit - S.pos;
  if (count < n)
    n = count;
  if (n > 0 && buf == NULL)
    return fail_errno(EFAULT); /* copy_to_user failed: position kept */
  if (n > 0)
    memcpy(buf, data + S.pos, n);
  S.pos += n;
  if (S.pos == rs_end)
    S.mce_off = S.pos; /* the next MCE, or the end of the message */
  return (ssize_t)n;
}

static ssize_t emu_read(int fd, void *buf, size_t count) {
  pthread_mutex_lock(&S.lock);
  for (;;) {
    if (fd != S.fd) {
      pthread_mutex_unlock(&S.lock);
      return fail_errno(EBADF);
    }
    update(now_ms());
    if (S.qcount > 0)
      break;
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0 && (fl & O_NONBLOCK) && !S.ignore_nonblock) {
      sync_ready();
      pthread_mutex_unlock(&S.lock);
      return fail_errno(EAGAIN);
    }
    if (S.severed) {
      pthread_mutex_unlock(&S.lock);
      return fail_errno(EIO);
    }
    /* Blocking read: wait for the eventfd (armed by the arrival thread). */
    sync_ready();
    pthread_mutex_unlock(&S.lock);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (real_poll(&p, 1, -1) < 0 && errno == EINTR)
      return -1; /* a signal interrupted the wait: EINTR */
    pthread_mutex_lock(&S.lock);
  }
  ssize_t rc = deliver(buf, count);
  int saved = errno;
  update(now_ms());
  sync_ready();
  pthread_mutex_unlock(&S.lock);
  errno = saved;
  return rc;
}

/* ---- open / close -------------------------------------------------------- */

/* MONREADER_EMU_STATS=FILE: at every close, append the running tallies as
 * one line, so a soak test can check the reader's counters against what
 * the device really delivered. Called with S.lock held. */
static void write_stats(void) {
  const char *path = getenv("MONREADER_EMU_STATS");
  if (path == NULL || path[0] == '\0')
    return;
  int fd = real_open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  char line[256];
  int n = snprintf(
      line, sizeof(line),
      "completed=%llu eio=%llu efault=%llu eoverflow=%llu "
      "lost=%llu close_discarded=%llu\n",
      (unsigned long long)S.n_completed, (unsigned long long)S.n_eio,
      (unsigned long long)S.n_efault, (unsigned long long)S.n_eoverflow,
      (unsigned long long)S.lost, (unsigned long long)S.n_close_discarded);
  if (n > 0 && write(fd, line, (size_t)n) < 0)
    emu_log("cannot write %s", path);
  real_close(fd);
}
static int emu_open(int flags) {
  pthread_mutex_lock(&S.lock);
  if (S.fd >= 0) {
    pthread_mutex_unlock(&S.lock);
    return (int)fail_errno(EBUSY);
  }
  S.verbose = env_u64("MONREADER_EMU_VERBOSE", 0, 1) != 0;
  if (load_scenario() != 0) {
    pthread_mutex_unlock(&S.lock);
    return (int)fail_errno(EIO); /* as if the IUCV connect failed */
  }
  S.pace_ms = env_u64("MONREADER_EMU_PACE_MS", 0, UINT32_MAX);
  S.loops = env_u64("MONREADER_EMU_LOOP", 1, UINT32_MAX);
  S.retime = env_u64("MONREADER_EMU_RETIME", 0, 1) != 0;
  S.msglim = (unsigned)env_u64("MONREADER_EMU_MSGLIM", MSGLIM_MAX, MSGLIM_MAX);
  S.ignore_nonblock = env_u64("MONREADER_EMU_BLOCKING", 0, 1) != 0;
  if (S.msglim < 2)
    S.msglim = 2;

  const char *lock_path = getenv("MONREADER_EMU_LOCK");
  int lock_fd = -1;
  if (lock_path != NULL && lock_path[0] != '\0') {
    lock_fd = real_open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (lock_fd < 0 || flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
      if (lock_fd >= 0)
        real_close(lock_fd);
      emu_log("open: EBUSY (held by another process)");
      pthread_mutex_unlock(&S.lock);
      return (int)fail_errno(EBUSY);
    }
  }

  size_t at = S.ended ? S.scn.nmsgs : S.next;
  if (S.open_left[at] > 0) {
    S.open_left[at]--;
    int e = S.scn.msgs[at].open_errno;
    emu_log("open: injected %s", scn_errno_name(e));
    if (lock_fd >= 0)
      real_close(lock_fd);
    pthread_mutex_unlock(&S.lock);
    return (int)fail_errno(e);
  }

  int efd = eventfd(0, ((flags & O_NONBLOCK) ? EFD_NONBLOCK : 0) |
                           ((flags & O_CLOEXEC) ? EFD_CLOEXEC : 0));
  if (efd < 0) {
    int e = errno;
    if (lock_fd >= 0)
      real_close(lock_fd);
    pthread_mutex_unlock(&S.lock);
    return (int)fail_errno(e);
  }
  if (!S.cond_ready) {
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&S.cond, &ca);
    pthread_condattr_destroy(&ca);
    S.cond_ready = true;
  }
  if (S.retime && !S.retime_set && S.first_tod_us != 0) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t wall = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
    S.retime_us = (int64_t)(wall - S.first_tod_us);
    S.retime_set = true;
  }
  S.fd = efd;
  S.lock_fd = lock_fd;
  S.armed = false;
  S.barrier = false;
  S.severed = false;
  S.first_after_open = true;
  S.last_ms = now_ms();
  S.qhead = S.qcount = 0;
  S.pos = S.mce_off = 0;
  S.replied_msglim = S.efault_done = S.head_ready = false;
  S.thr_stop = false;

  /* The arrival thread must not take the application's signals. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  S.thr_running = pthread_create(&S.thr, NULL, arrival_thread, NULL) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (!S.thr_running)
    emu_log("cannot start the arrival thread: paced arrivals need reads");

  update(now_ms());
  sync_ready();
  atomic_store(&emu_fd, efd);
  emu_log("open: fd %d%s", efd, (flags & O_NONBLOCK) ? " O_NONBLOCK" : "");
  pthread_mutex_unlock(&S.lock);
  return efd;
}

static int emu_close(int fd) {
  pthread_mutex_lock(&S.lock);
  if (fd != S.fd) {
    pthread_mutex_unlock(&S.lock);
    return real_close(fd);
  }
  atomic_store(&emu_fd, -1);
  /* Wake any thread blocked on the eventfd; it then sees EBADF. */
  uint64_t v = 1;
  if (!S.armed && write(fd, &v, sizeof(v)) < 0)
    emu_log("close: cannot wake readers");
  S.fd = -1;
  S.thr_stop = true;
  bool joined = S.thr_running;
  pthread_cond_broadcast(&S.cond);
  pthread_mutex_unlock(&S.lock);
  if (joined)
    pthread_join(S.thr, NULL);
  pthread_mutex_lock(&S.lock);
  S.thr_running = false;
  if (S.qcount > 0)
    emu_log("close: %u pending messages discarded", S.qcount);
  S.n_close_discarded += S.qcount;
  write_stats();
  S.qhead = S.qcount = 0;
  if (S.lock_fd >= 0) {
    real_close(S.lock_fd);
    S.lock_fd = -1;
  }
  emu_log("close (lost messages so far: %llu)", (unsigned long long)S.lost);
  pthread_mutex_unlock(&S.lock);
  return real_close(fd);
}

/* ---- poll ------------------------------------------------------------------
 */
static bool polls_emu(const struct pollfd *fds, nfds_t n, int efd) {
  for (nfds_t i = 0; i < n; i++)
    if (fds[i].fd == efd)
      return true;
  return false;
}

static int64_t ts_ns(const struct timespec *ts) {
  return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts_ns(&ts);
}

static int emu_poll(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
                    const sigset_t *sigmask, int efd) {
  int64_t deadline = tmo != NULL ? mono_ns() + ts_ns(tmo) : 0;
  for (;;) {
    pthread_mutex_lock(&S.lock);
    short rev = 0;
    if (efd == S.fd) {
      update(now_ms());
      sync_ready();
      rev = emu_revents();
    }
    pthread_mutex_unlock(&S.lock);

    struct timespec rem = {0, 0};
    if (rev == 0 && tmo != NULL) {
      int64_t left = deadline - mono_ns();
      if (left > 0)
        rem = (struct timespec){.tv_sec = (time_t)(left / 1000000000),
                                .tv_nsec = (long)(left % 1000000000)};
    }
    int r =
        real_ppoll(fds, n, (rev != 0 || tmo != NULL) ? &rem : NULL, sigmask);
    if (r < 0)
      return r;

    pthread_mutex_lock(&S.lock);
    bool ours = efd == S.fd;
    if (ours) {
      update(now_ms());
      sync_ready();
      rev = emu_revents();
    }
    pthread_mutex_unlock(&S.lock);
    if (!ours)
      return r; /* closed meanwhile: the kernel's answer as it is */
    int count = 0;
    for (nfds_t i = 0; i < n; i++) {
      if (fds[i].fd == efd)
        fds[i].revents =
            (short)(rev & (fds[i].events | POLLERR | POLLHUP | POLLNVAL));
      if (fds[i].revents != 0)
        count++;
    }
    if (count > 0 || (tmo != NULL && mono_ns() >= deadline))
      return count;
    /* The eventfd woke us but the state changed meanwhile: wait again. */
  }
}

/* ---- interposed entry points ------------------------------------------ */
static bool is_device(const char *path) {
  ensure_init();
  return path != NULL && device_path != NULL && strcmp(path, device_path) == 0;
}

/* The sysfs files of the emulated misc device: a pipe holding the text the
 * kernel would show (read, then end of file). -2: not such a path. */
static int sysfs_open(const char *path, int flags) {
  char text[128];
  ensure_init();
  if (path == NULL)
    return -2;
  if (strcmp(path, sysfs_uevent) == 0)
    snprintf(text, sizeof(text), "MAJOR=%u\nMINOR=%u\nDEVNAME=monreader\n",
             emu_major, emu_minor);
  else if (strcmp(path, "/sys/class/misc/monreader/dev") == 0)
    snprintf(text, sizeof(text), "%u:%u\n", emu_major, emu_minor);
  else
    return -2;
  int p[2];
  if (pipe2(p, (flags & O_CLOEXEC) ? O_CLOEXEC : 0) != 0)
    return -1;
  size_t len = strlen(text);
  if (write(p[1], text, len) != (ssize_t)len) {
    real_close(p[0]);
    real_close(p[1]);
    errno = EIO;
    return -1;
  }
  real_close(p[1]);
  return p[0];
}

#define SYSFS_OR(path, flags)                                                  \
  do {                                                                         \
    int sfd_ = sysfs_open(path, flags);                                        \
    if (sfd_ != -2)                                                            \
      return sfd_;                                                             \
  } while (0)

/* A character device with the emulated numbers. */
#define AS_CHARDEV(st)                                                         \
  do {                                                                         \
    (st)->st_mode = S_IFCHR | ((st)->st_mode & 07777);                         \
    (st)->st_rdev = makedev(emu_major, emu_minor);                             \
    (st)->st_size = 0;                                                         \
  } while (0)

EXPORT int fstat(int fd, struct stat *st) {
  ensure_init();
  int rc = real_fstat(fd, st);
  if (rc == 0 && fd >= 0 && fd == atomic_load(&emu_fd))
    AS_CHARDEV(st);
  return rc;
}

EXPORT int fstat64(int fd, struct stat64 *st) {
  ensure_init();
  int rc = real_fstat64 != NULL ? real_fstat64(fd, st) : -1;
  if (rc == 0 && fd >= 0 && fd == atomic_load(&emu_fd))
    AS_CHARDEV(st);
  return rc;
}

EXPORT int stat(const char *path, struct stat *st) {
  if (!is_device(path))
    return real_stat(path, st);
  memset(st, 0, sizeof(*st));
  st->st_mode = 0600;
  st->st_nlink = 1;
  AS_CHARDEV(st);
  return 0;
}

EXPORT int stat64(const char *path, struct stat64 *st) {
  if (!is_device(path))
    return real_stat64 != NULL ? real_stat64(path, st) : -1;
  memset(st, 0, sizeof(*st));
  st->st_mode = 0600;
  st->st_nlink = 1;
  AS_CHARDEV(st);
  return 0;
}

static bool needs_mode(int flags) {
  return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

#define MODE_ARG(flags, mode)                                                  \
  do {                                                                         \
    if (needs_mode(flags)) {                                                   \
      va_list ap;                                                              \
      va_start(ap, flags);                                                     \
      mode = va_arg(ap, mode_t);                                               \
      va_end(ap);                                                              \
    }                                                                          \
  } while (0)

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
ssize_t __read_chk(int fd, void *buf, size_t nbytes, size_t buflen);
int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, nfds_t nfds, const struct timespec *tmo,
                const sigset_t *sigmask, size_t fdslen);
extern void __chk_fail(void) __attribute__((noreturn));

EXPORT int open(const char *path, int flags, ...) {
  mode_t mode = 0;
  MODE_ARG(flags, mode);
  if (is_device(path))
    return emu_open(flags);
  SYSFS_OR(path, flags);
  return real_open(path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...) {
  mode_t mode = 0;
  MODE_ARG(flags, mode);
  if (is_device(path))
    return emu_open(flags);
  SYSFS_OR(path, flags);
  return real_open64(path, flags, mode);
}

static bool at_device(int dirfd, const char *path) {
  return is_device(path) && (path[0] == '/' || dirfd == AT_FDCWD);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...) {
  mode_t mode = 0;
  MODE_ARG(flags, mode);
  if (at_device(dirfd, path))
    return emu_open(flags);
  if (path[0] == '/')
    SYSFS_OR(path, flags);
  return real_openat(dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...) {
  mode_t mode = 0;
  MODE_ARG(flags, mode);
  if (at_device(dirfd, path))
    return emu_open(flags);
  if (path[0] == '/')
    SYSFS_OR(path, flags);
  return real_openat64(dirfd, path, flags, mode);
}

EXPORT int __open_2(const char *path, int flags) {
  if (is_device(path))
    return emu_open(flags);
  SYSFS_OR(path, flags);
  return real___open_2 != NULL ? real___open_2(path, flags)
                               : real_open(path, flags);
}

EXPORT int __open64_2(const char *path, int flags) {
  if (is_device(path))
    return emu_open(flags);
  SYSFS_OR(path, flags);
  return real___open64_2 != NULL ? real___open64_2(path, flags)
                                 : real_open64(path, flags);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags) {
  if (at_device(dirfd, path))
    return emu_open(flags);
  return real___openat_2 != NULL ? real___openat_2(dirfd, path, flags)
                                 : real_openat(dirfd, path, flags);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags) {
  if (at_device(dirfd, path))
    return emu_open(flags);
  return real___openat64_2 != NULL ? real___openat64_2(dirfd, path, flags)
                                   : real_openat64(dirfd, path, flags);
}

static ssize_t do_read(int fd, void *buf, size_t count) {
  if (fd >= 0 && fd == atomic_load(&emu_fd))
    return emu_read(fd, buf, count);
  ensure_init();
  return real_read(fd, buf, count);
}

EXPORT ssize_t read(int fd, void *buf, size_t count) {
  return do_read(fd, buf, count);
}

EXPORT ssize_t __read_chk(int fd, void *buf, size_t nbytes, size_t buflen) {
  if (nbytes > buflen)
    __chk_fail();
  return do_read(fd, buf, nbytes);
}

EXPORT int close(int fd) {
  if (fd >= 0 && fd == atomic_load(&emu_fd))
    return emu_close(fd);
  ensure_init();
  return real_close(fd);
}

EXPORT int poll(struct pollfd *fds, nfds_t nfds, int timeout) {
  int efd = atomic_load(&emu_fd);
  ensure_init();
  if (efd < 0 || !polls_emu(fds, nfds, efd))
    return real_poll(fds, nfds, timeout);
  struct timespec ts = {.tv_sec = timeout / 1000,
                        .tv_nsec = (long)(timeout % 1000) * 1000000};
  return emu_poll(fds, nfds, timeout >= 0 ? &ts : NULL, NULL, efd);
}

EXPORT int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *tmo,
                 const sigset_t *sigmask) {
  int efd = atomic_load(&emu_fd);
  ensure_init();
  if (efd < 0 || !polls_emu(fds, nfds, efd))
    return real_ppoll(fds, nfds, tmo, sigmask);
  return emu_poll(fds, nfds, tmo, sigmask, efd);
}

EXPORT int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout,
                      size_t fdslen) {
  if (fdslen / sizeof(*fds) < nfds)
    __chk_fail();
  return poll(fds, nfds, timeout);
}

EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t nfds,
                       const struct timespec *tmo, const sigset_t *sigmask,
                       size_t fdslen) {
  if (fdslen / sizeof(*fds) < nfds)
    __chk_fail();
  return ppoll(fds, nfds, tmo, sigmask);
}
