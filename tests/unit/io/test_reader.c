/* SPDX-License-Identifier: MIT */
/*
 * Device reader tests: a scripted fake /dev/monreader behind struct
 * zvm_reader_io, a fake clock, and heap accounting through ld --wrap.
 *
 * The script is a list of steps. Read steps (DATA, ZERO, ERR, FOREVER) are
 * consumed by read(); a POLL step by poll(); an OPEN_FAIL step by open().
 * DATA serves the next n bytes of one byte stream, at most `chunk` bytes
 * (and at most what the reader asked) per read. A pending POLL or OPEN_FAIL
 * step is a barrier: read() says EAGAIN until it is consumed. Without a POLL
 * step, poll() says POLLIN while read steps remain, else 0. An exhausted
 * script reads as EAGAIN.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* needs the four headers above */

#include "zvm_monitor/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define DEV "/dev/test-monreader"
#define FAKE_FD 7

/* ---- heap accounting (the test itself never allocates) ------------------- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t m, size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t m, size_t n);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

static struct {
  long live;           /* blocks allocated and not freed */
  size_t max_realloc;  /* largest realloc() request (the set buffer) */
  int realloc_ok_left; /* < 0: unlimited; else reallocs before failing */
} heap = {0, 0, -1};

void *__wrap_malloc(size_t n) {
  void *p = __real_malloc(n);
  if (p != NULL)
    heap.live++;
  return p;
}

void *__wrap_calloc(size_t m, size_t n) {
  void *p = __real_calloc(m, n);
  if (p != NULL)
    heap.live++;
  return p;
}

void *__wrap_realloc(void *p, size_t n) {
  if (heap.realloc_ok_left == 0)
    return NULL;
  if (heap.realloc_ok_left > 0)
    heap.realloc_ok_left--;
  if (n > heap.max_realloc)
    heap.max_realloc = n;
  void *q = __real_realloc(p, n);
  if (q != NULL && p == NULL)
    heap.live++;
  return q;
}

void __wrap_free(void *p) {
  if (p != NULL)
    heap.live--;
  __real_free(p);
}

/* ---- fake device --------------------------------------------------------- */

enum step_kind {
  ST_DATA,
  ST_ZERO,
  ST_ERR,
  ST_FOREVER,
  ST_POLL,
  ST_OPEN_FAIL,
  ST_FLOOD, /* forever: every read filled with MCE-like bytes */
};

struct step {
  enum step_kind kind;
  size_t n;     /* DATA: bytes left */
  size_t chunk; /* DATA: max bytes per read, 0 = no limit */
  int e;        /* ERR, OPEN_FAIL: errno */
  int revents;  /* POLL */
};

#define MAX_STEPS 4096
#define STREAM_MAX (1u << 20)

struct fake {
  struct step steps[MAX_STEPS];
  size_t nsteps;
  size_t next;
  uint8_t stream[STREAM_MAX];
  size_t stream_len; /* bytes placed in the stream */
  size_t pos;        /* bytes served */
  uint64_t now;
  bool is_open;
  unsigned n_open, n_read, n_poll, n_close;
  int last_flags;
  char last_path[128];
  unsigned bad_calls; /* read/poll on a closed fd, close twice, ... */
  unsigned n_wait;
  int wait_fd, wait_ms;      /* arguments of the last wait() */
  int wait_errno;            /* != 0: the next wait() fails with it */
  uint64_t flood_bytes;      /* bytes served by ST_FLOOD */
  unsigned stop_after_reads; /* > 0: zvm_reader_stop() at that read */
  struct zvm_reader *stop_reader;
  /* identity (fstat, sysfs): used by mk_checked() readers */
  mode_t mode;
  dev_t rdev;
  const char *uevent; /* NULL: unreadable */
  const char *misc;   /* NULL: unreadable */
  unsigned n_fstat;
};

/* What the callback received. */
#define MAX_SETS 64
struct got {
  size_t n;
  size_t off[MAX_SETS];
  size_t len[MAX_SETS];
  uint8_t data[STREAM_MAX];
  size_t used;
};

#define MAX_LOGS 64
struct logs {
  int n;
  enum zvm_log_level level[MAX_LOGS];
  char msg[MAX_LOGS][512];
};

static struct fake F;
static struct got G;
static struct logs L;

static bool is_read_step(const struct step *s) {
  return s->kind == ST_DATA || s->kind == ST_ZERO || s->kind == ST_ERR ||
         s->kind == ST_FOREVER || s->kind == ST_FLOOD;
}

/* An MCE the driver's mon_check_mca() passes: sample data, domain 0,
 * record set 0x1000-0x1FFF. */
static const uint8_t good_mce[12] = {0xE2, 0x80, 0x00, 0x00, 0x00, 0x00,
                                     0x10, 0x00, 0x00, 0x00, 0x1F, 0xFF};

static int fake_open(const char *path, int flags, void *ctx) {
  struct fake *f = ctx;
  f->n_open++;
  f->last_flags = flags;
  snprintf(f->last_path, sizeof(f->last_path), "%s", path);
  if (f->is_open) {
    f->bad_calls++;
    errno = EBUSY;
    return -1;
  }
  if (f->next < f->nsteps && f->steps[f->next].kind == ST_OPEN_FAIL) {
    errno = f->steps[f->next++].e;
    return -1;
  }
  f->is_open = true;
  return FAKE_FD;
}

static ssize_t fake_read(int fd, void *buf, size_t count, void *ctx) {
  struct fake *f = ctx;
  f->n_read++;
  if (!f->is_open || fd != FAKE_FD || count == 0) {
    f->bad_calls++;
    errno = EBADF;
    return -1;
  }
  if (f->next == f->nsteps || !is_read_step(&f->steps[f->next])) {
    errno = EAGAIN;
    return -1;
  }
  struct step *s = &f->steps[f->next];
  size_t n;
  switch (s->kind) {
  case ST_DATA:
    n = s->n < count ? s->n : count;
    if (s->chunk > 0 && n > s->chunk)
      n = s->chunk;
    memcpy(buf, f->stream + f->pos, n);
    f->pos += n;
    s->n -= n;
    if (s->n == 0)
      f->next++;
    return (ssize_t)n;
  case ST_ZERO:
    f->next++;
    return 0;
  case ST_ERR:
    f->next++;
    errno = s->e;
    return -1;
  case ST_FLOOD:
    for (size_t i = 0; i < count; i++)
      ((uint8_t *)buf)[i] = good_mce[i % sizeof(good_mce)];
    f->flood_bytes += count;
    if (f->stop_after_reads > 0 && f->n_read == f->stop_after_reads)
      zvm_reader_stop(f->stop_reader);
    return (ssize_t)count;
  default: /* ST_FOREVER */
    ((uint8_t *)buf)[0] = 0xAB;
    if (f->stop_after_reads > 0 && f->n_read == f->stop_after_reads)
      zvm_reader_stop(f->stop_reader);
    return 1;
  }
}

static int fake_poll(int fd, void *ctx) {
  struct fake *f = ctx;
  f->n_poll++;
  if (!f->is_open || fd != FAKE_FD) {
    f->bad_calls++;
    return POLLNVAL;
  }
  if (f->next < f->nsteps && f->steps[f->next].kind == ST_POLL)
    return f->steps[f->next++].revents;
  return f->next < f->nsteps && is_read_step(&f->steps[f->next]) ? POLLIN : 0;
}

static int fake_close(int fd, void *ctx) {
  struct fake *f = ctx;
  f->n_close++;
  if (!f->is_open || fd != FAKE_FD)
    f->bad_calls++;
  f->is_open = false;
  return 0;
}

static uint64_t fake_now(void *ctx) { return ((struct fake *)ctx)->now; }

/* Waiting on the device: ready as poll() says (without consuming a POLL
 * step); nothing ready, or fd < 0: the clock moves on by the timeout. */
static int fake_wait(int fd, int timeout_ms, void *ctx) {
  struct fake *f = ctx;
  f->n_wait++;
  f->wait_fd = fd;
  f->wait_ms = timeout_ms;
  if (f->wait_errno != 0) {
    errno = f->wait_errno;
    f->wait_errno = 0;
    return -1;
  }
  int rev = 0;
  if (fd >= 0) {
    if (!f->is_open || fd != FAKE_FD) {
      f->bad_calls++;
      return POLLNVAL;
    }
    if (f->next < f->nsteps && f->steps[f->next].kind == ST_POLL)
      rev = f->steps[f->next].revents;
    else if (f->next < f->nsteps && is_read_step(&f->steps[f->next]))
      rev = POLLIN;
  }
  if (rev == 0)
    f->now += (uint64_t)timeout_ms;
  return rev;
}

static int fake_fstat(int fd, struct stat *st, void *ctx) {
  struct fake *f = ctx;
  f->n_fstat++;
  if (!f->is_open || fd != FAKE_FD)
    f->bad_calls++;
  memset(st, 0, sizeof(*st));
  st->st_mode = f->mode | 0600;
  st->st_rdev = f->rdev;
  return 0;
}

static ssize_t fake_read_text(const char *path, char *buf, size_t len,
                              void *ctx) {
  struct fake *f = ctx;
  char want[64];
  snprintf(want, sizeof(want), "/sys/dev/char/%u:%u/uevent",
           (unsigned)major(f->rdev), (unsigned)minor(f->rdev));
  const char *text = NULL;
  if (strcmp(path, want) == 0)
    text = f->uevent;
  else if (strcmp(path, "/sys/class/misc/monreader/dev") == 0)
    text = f->misc;
  if (text == NULL)
    return -1;
  return snprintf(buf, len, "%s", text);
}

static void on_set(const uint8_t *set, size_t len, void *ctx) {
  struct got *g = ctx;
  assert_non_null(set);
  assert_true(g->n < MAX_SETS);
  assert_true(g->used + len <= sizeof(g->data));
  memcpy(g->data + g->used, set, len);
  g->off[g->n] = g->used;
  g->len[g->n] = len;
  g->used += len;
  g->n++;
}

static void on_log(enum zvm_log_level level, const char *msg, void *ctx) {
  struct logs *l = ctx;
  assert_true(l->n < MAX_LOGS);
  l->level[l->n] = level;
  snprintf(l->msg[l->n], sizeof(l->msg[0]), "%s", msg);
  l->n++;
}

/* ---- script building ----------------------------------------------------- */

static struct step *push(enum step_kind kind) {
  assert_true(F.nsteps < MAX_STEPS);
  struct step *s = &F.steps[F.nsteps++];
  memset(s, 0, sizeof(*s));
  s->kind = kind;
  return s;
}

static uint32_t rng = 0x12345678u;

static uint8_t next_byte(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return (uint8_t)(rng >> 11);
}

/* n new stream bytes, served in reads of at most `chunk` bytes. Returns the
 * stream offset of the first one. */
static size_t push_data_chunked(size_t n, size_t chunk) {
  size_t off = F.stream_len;
  assert_true(F.stream_len + n <= STREAM_MAX);
  for (size_t i = 0; i < n; i++)
    F.stream[F.stream_len++] = next_byte();
  struct step *s = push(ST_DATA);
  s->n = n;
  s->chunk = chunk;
  return off;
}

static size_t push_data(size_t n) { return push_data_chunked(n, 0); }

/* n stream bytes starting with a valid MCE (n >= 12). */
static size_t push_set_data(size_t n) {
  size_t off = push_data(n);
  memcpy(F.stream + off, good_mce, sizeof(good_mce));
  return off;
}

/* n stream bytes whose first MCE the driver would have rejected. */
static size_t push_bad_set_data(size_t n) {
  size_t off = push_data(n);
  F.stream[off] = 0; /* type byte 0 */
  return off;
}
static void push_zero(void) { push(ST_ZERO); }
static void push_err(int e) { push(ST_ERR)->e = e; }
static void push_poll(int revents) { push(ST_POLL)->revents = revents; }
static void push_open_fail(int e) { push(ST_OPEN_FAIL)->e = e; }

/* ---- helpers ------------------------------------------------------------- */

static int setup(void **state) {
  (void)state;
  memset(&F, 0, sizeof(F));
  memset(&G, 0, sizeof(G));
  memset(&L, 0, sizeof(L));
  F.now = 1000000;
  heap.max_realloc = 0;
  heap.realloc_ok_left = -1;
  rng = 0x12345678u;
  return 0;
}

/* The io struct lives on this stack frame only: the reader must copy it. */
static struct zvm_reader *mk_dev(const char *device, size_t max_set) {
  struct zvm_reader_io io = {.open = fake_open,
                             .read = fake_read,
                             .poll = fake_poll,
                             .close = fake_close,
                             .now_ms = fake_now,
                             .ctx = &F,
                             .wait = fake_wait};
  struct zvm_reader_config cfg = {.device = device,
                                  .max_set_size = max_set,
                                  .io = &io,
                                  .log = on_log,
                                  .log_ctx = &L};
  struct zvm_reader *r = zvm_reader_create(&cfg);
  assert_non_null(r);
  return r;
}

static struct zvm_reader *mk(size_t max_set) { return mk_dev(DEV, max_set); }

/* A reader that checks what it opened (fake fstat and sysfs). */
static struct zvm_reader *mk_checked(size_t max_set) {
  struct zvm_reader_io io = {.open = fake_open,
                             .read = fake_read,
                             .poll = fake_poll,
                             .close = fake_close,
                             .now_ms = fake_now,
                             .ctx = &F,
                             .wait = fake_wait,
                             .fstat = fake_fstat,
                             .read_text = fake_read_text};
  struct zvm_reader_config cfg = {.device = DEV,
                                  .max_set_size = max_set,
                                  .io = &io,
                                  .log = on_log,
                                  .log_ctx = &L};
  struct zvm_reader *r = zvm_reader_create(&cfg);
  assert_non_null(r);
  return r;
}

static const struct zvm_reader_stats *st(const struct zvm_reader *r) {
  return zvm_reader_get_stats(r);
}

static void drain(struct zvm_reader *r) {
  assert_int_equal(zvm_reader_drain(r, on_set, &G), 0);
}

/* Delivered set i is exactly stream[off, off + len). */
static void assert_set(size_t i, size_t off, size_t len) {
  assert_true(i < G.n);
  assert_int_equal(G.len[i], len);
  assert_true(off + len <= F.stream_len);
  assert_memory_equal(G.data + G.off[i], F.stream + off, len);
}

static int count_logs(enum zvm_log_level level, const char *needle) {
  int n = 0;
  for (int i = 0; i < L.n; i++)
    if (L.level[i] == level && strstr(L.msg[i], needle) != NULL)
      n++;
  return n;
}

static void assert_no_prefix(void) {
  for (int i = 0; i < L.n; i++)
    assert_null(strstr(L.msg[i], "zvm_monitor plugin"));
}

/* ---- chunking ------------------------------------------------------------ */

static const size_t set_sizes[] = {12, 4108, 1, 70000, 9000, 13};
#define NSETS (sizeof(set_sizes) / sizeof(set_sizes[0]))

/* Same sets, served with the chunk sizes in pattern (cycled per step; a step
 * is one whole chunk when mixed, else a whole set). */
static void run_chunking(size_t fixed, const size_t *pattern, size_t npat) {
  struct zvm_reader *r = mk(0);
  size_t offs[NSETS], total = 0, expect_reads = 0, p = 0;

  for (size_t i = 0; i < NSETS; i++) {
    if (fixed > 0) {
      offs[i] = push_data_chunked(set_sizes[i], fixed);
      expect_reads += (set_sizes[i] + fixed - 1) / fixed;
    } else {
      offs[i] = F.stream_len;
      for (size_t left = set_sizes[i]; left > 0;) {
        size_t c = pattern[p++ % npat];
        if (c > left)
          c = left;
        push_data_chunked(c, c);
        left -= c;
      }
    }
    push_zero();
    total += set_sizes[i];
  }

  drain(r);
  assert_int_equal(G.n, NSETS);
  for (size_t i = 0; i < NSETS; i++)
    assert_set(i, offs[i], set_sizes[i]);
  assert_int_equal(st(r)->health.sets, NSETS);
  assert_int_equal(st(r)->health.bytes_read, total);
  assert_int_equal(F.next, F.nsteps);
  if (fixed > 0) /* data reads + 0-byte reads + the final EAGAIN */
    assert_int_equal(F.n_read, expect_reads + NSETS + 1);
  assert_int_equal(F.bad_calls, 0);
  zvm_reader_destroy(r);
}

static void chunk_1(void **s) {
  (void)s;
  run_chunking(1, NULL, 0);
}

static void chunk_7(void **s) {
  (void)s;
  run_chunking(7, NULL, 0);
}

static void chunk_12(void **s) {
  (void)s;
  run_chunking(12, NULL, 0);
}

static void chunk_4096(void **s) {
  (void)s;
  run_chunking(4096, NULL, 0);
}

static void chunk_mixed(void **s) {
  static const size_t pat[] = {12, 1, 4096, 7, 3, 65536, 5, 7, 20000, 2};
  (void)s;
  run_chunking(0, pat, sizeof(pat) / sizeof(pat[0]));
}

/* ---- assembly ------------------------------------------------------------ */

static void carry_over(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  size_t off = push_data(5000);

  drain(r);
  assert_int_equal(G.n, 0);
  assert_int_equal(st(r)->health.sets, 0);
  assert_int_equal(st(r)->health.bytes_read, 5000);

  push_data_chunked(4000, 333);
  push_zero();
  drain(r);
  assert_int_equal(G.n, 1);
  assert_set(0, off, 9000);
  assert_int_equal(st(r)->health.sets, 1);

  drain(r); /* nothing new: not delivered again */
  assert_int_equal(G.n, 1);
  assert_int_equal(st(r)->health.sets, 1);
  assert_int_equal(st(r)->health.bytes_read, 9000);
  zvm_reader_destroy(r);
}

static void sets_in_order(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  size_t a = push_data(300);
  push_zero();
  size_t b = push_data(12);
  push_zero();
  size_t c = push_data(5000);
  push_zero();

  drain(r);
  assert_int_equal(G.n, 3);
  assert_set(0, a, 300);
  assert_set(1, b, 12);
  assert_set(2, c, 5000);
  assert_int_equal(st(r)->health.sets, 3);
  zvm_reader_destroy(r);
}

/* The driver answers an MCA it rejects with a bare 0-byte read. */
static void empty_set_counted_and_delivered(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  push_zero();
  size_t a = push_data(5);
  push_zero();

  drain(r);
  assert_int_equal(G.n, 2);
  assert_int_equal(G.len[0], 0);
  assert_set(1, a, 5);
  assert_int_equal(st(r)->health.sets, 2);
  zvm_reader_destroy(r);
}

/* ---- read errors --------------------------------------------------------- */

static void eio_discards_set(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  push_data(50);
  push_err(EIO);
  push_poll(POLLIN); /* the path is healthy */
  size_t b = push_data(40);
  push_zero();

  drain(r);
  assert_int_equal(G.n, 1);
  assert_set(0, b, 40);
  assert_int_equal(st(r)->health.eio, 1);
  assert_int_equal(st(r)->discarded, 1);
  assert_int_equal(st(r)->health.sets, 1);
  assert_int_equal(st(r)->health.bytes_read, 90);
  assert_int_equal(F.n_close, 0);
  assert_int_equal(F.n_poll, 2); /* drain start, after EIO */
  assert_int_equal(F.next, F.nsteps);
  assert_int_equal(count_logs(ZVM_LOG_WARNING, "EIO"), 1);
  zvm_reader_destroy(r);
}

/* EIO where the 0-byte read was due (reply failed): nothing to discard. */
static void eio_at_set_boundary(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  size_t a = push_data(30);
  push_zero();
  push_err(EIO);
  size_t b = push_data(10);
  push_zero();

  drain(r);
  assert_int_equal(G.n, 2);
  assert_set(0, a, 30);
  assert_set(1, b, 10);
  assert_int_equal(st(r)->health.eio, 1);
  assert_int_equal(st(r)->discarded, 0);
  zvm_reader_destroy(r);
}

/* The driver does not advance after a failed copy_to_user: the rest of
 * the message still follows and must be dropped with it, up to its 0-byte
 * read, and is no set. */
static void efault_discards_set(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  size_t a = push_data(25);
  push_zero();
  push_data(12);
  push_data(70);
  push_err(EFAULT);
  push_data(12); /* the tail may start like a set (an MCE) ... */
  push_data(33); /* ... but it is the rest of the faulted message */
  push_zero();
  size_t c = push_data(40);
  push_zero();

  drain(r);
  assert_int_equal(G.n, 2);
  assert_set(0, a, 25);
  assert_set(1, c, 40);
  assert_int_equal(st(r)->health.efault, 1);
  assert_int_equal(st(r)->health.eio, 0);
  assert_int_equal(st(r)->discarded, 1);
  assert_int_equal(st(r)->health.sets, 2);
  assert_int_equal(st(r)->health.bytes_read, 25 + 12 + 70 + 12 + 33 + 40);
  assert_int_equal(F.n_close, 0);
  assert_int_equal(count_logs(ZVM_LOG_WARNING, "EFAULT"), 1);
  zvm_reader_destroy(r);
}

/* EFAULT before the first byte of a message: nothing was taken, the whole
 * message follows and is valid. */
static void efault_at_set_start_keeps_message(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  size_t a = push_data(25);
  push_zero();
  push_err(EFAULT);
  size_t b = push_data(30);
  push_zero();

  drain(r);
  assert_int_equal(G.n, 2);
  assert_set(0, a, 25);
  assert_set(1, b, 30);
  assert_int_equal(st(r)->health.efault, 1);
  assert_int_equal(st(r)->discarded, 0);
  assert_int_equal(st(r)->health.sets, 2);
  zvm_reader_destroy(r);
}

/* A tail cut again by EIO (reply failed: the message is gone) ends the
 * skipping; the next message is assembled normally. */
static void efault_tail_then_eio(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  push_data(20);
  push_err(EFAULT);
  push_data(15);
  push_err(EIO);
  push_poll(POLLIN);
  size_t b = push_data(30);
  push_zero();

  drain(r);
  assert_int_equal(G.n, 1);
  assert_set(0, b, 30);
  assert_int_equal(st(r)->discarded, 1);
  assert_int_equal(st(r)->health.sets, 1);
  zvm_reader_destroy(r);
}

static void eoverflow_keeps_set(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  size_t a = push_data(30);
  push_err(EOVERFLOW);
  push_data(20);
  push_zero();

  drain(r);
  assert_int_equal(G.n, 1);
  assert_set(0, a, 50);
  assert_int_equal(st(r)->health.eoverflow, 1);
  assert_int_equal(st(r)->discarded, 0);
  assert_int_equal(st(r)->health.sets, 1);
  assert_int_equal(count_logs(ZVM_LOG_WARNING, "EOVERFLOW"), 1);
  zvm_reader_destroy(r);
}

/* Logged once while overflows continue; again after a clean drain. */
static void eoverflow_logged_per_state_change(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  size_t a = push_data(8);
  push_zero();
  push_err(EOVERFLOW); /* where the driver puts it: at a set boundary */
  size_t b = push_data(9);
  push_zero();
  drain(r);
  assert_int_equal(G.n, 2);
  assert_set(0, a, 8);
  assert_set(1, b, 9);
  assert_int_equal(count_logs(ZVM_LOG_WARNING, "EOVERFLOW"), 1);

  push_err(EOVERFLOW);
  push_data(3);
  push_zero();
  drain(r);
  assert_int_equal(G.n, 3);
  assert_int_equal(count_logs(ZVM_LOG_WARNING, "EOVERFLOW"), 1);

  push_data(4);
  push_zero();
  drain(r); /* clean */
  push_err(EOVERFLOW);
  size_t e = push_data(5);
  push_zero();
  drain(r);
  assert_int_equal(G.n, 5);
  assert_set(4, e, 5);
  assert_int_equal(st(r)->health.eoverflow, 3);
  assert_int_equal(count_logs(ZVM_LOG_WARNING, "EOVERFLOW"), 2);
  zvm_reader_destroy(r);
}

static void eagain_keeps_partial(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  size_t a = push_data(30);
  push_err(EAGAIN);
  push_data(20);
  push_zero();

  drain(r);
  assert_int_equal(G.n, 0);
  assert_int_equal(F.n_read, 2); /* stopped at EAGAIN */
  assert_int_equal(F.next, 2);
  assert_int_equal(st(r)->health.bytes_read, 30);

  drain(r);
  assert_int_equal(G.n, 1);
  assert_set(0, a, 50);
  assert_int_equal(st(r)->health.sets, 1);
  assert_int_equal(
      st(r)->health.eio + st(r)->health.efault + st(r)->health.eoverflow, 0);
  assert_int_equal(L.n, 1); /* "opened" only: EAGAIN is not an error */
  zvm_reader_destroy(r);
}

static void eintr_retried(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  size_t a = push_data(30);
  push_err(EINTR);
  push_data(20);
  push_err(EINTR);
  push_zero();

  drain(r);
  assert_int_equal(G.n, 1);
  assert_set(0, a, 50);
  assert_int_equal(st(r)->discarded, 0);
  assert_int_equal(F.next, F.nsteps);
  assert_int_equal(L.n, 1);
  zvm_reader_destroy(r);
}

static void poll_nothing_ready_no_read(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  push_poll(0);
  size_t a = push_data(10);
  push_zero();

  drain(r);
  assert_int_equal(F.n_read, 0);
  assert_int_equal(G.n, 0);
  drain(r);
  assert_int_equal(G.n, 1);
  assert_set(0, a, 10);
  zvm_reader_destroy(r);
}

/* ---- open errors --------------------------------------------------------- */

static void open_errors_logged_once(void **s) {
  static const struct {
    int e;
    const char *needle;
  } cases[] = {
      {EBUSY, "another process holds " DEV " (only one reader is allowed)"},
      {ENOENT, DEV " does not exist: load the monreader module (modprobe "
                   "monreader mondcss=<DCSS>)"},
      {EIO, "cannot open " DEV ": the IUCV connection to *MONITOR failed: "
            "check 'IUCV *MONITOR' in the guest's directory entry and syslog "
            "for the IPUSER SEVER code"},
      {EACCES, "permission denied opening " DEV},
  };
  (void)s;
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    setup(NULL);
    struct zvm_reader *r = mk(0);
    for (unsigned i = 1; i <= 3; i++) {
      push_open_fail(cases[c].e);
      drain(r);
      assert_int_equal(F.n_open, i);
      assert_int_equal(st(r)->health.open_errors, i);
      F.now += 60000; /* past any back-off */
    }
    assert_int_equal(L.n, 1);
    assert_int_equal(L.level[0], ZVM_LOG_ERR);
    assert_non_null(strstr(L.msg[0], cases[c].needle));

    drain(r); /* opens */
    assert_true(F.is_open);
    assert_int_equal(st(r)->health.open_errors, 3);
    assert_int_equal(st(r)->reopens, 0);
    assert_int_equal(L.n, 2);
    assert_int_equal(L.level[1], ZVM_LOG_INFO);
    assert_string_equal(L.msg[1], "opened " DEV);
    assert_int_equal(F.last_flags & O_ACCMODE, O_RDONLY);
    assert_true((F.last_flags & O_NONBLOCK) != 0);
    assert_string_equal(F.last_path, DEV);
    assert_no_prefix();
    assert_int_equal(F.bad_calls, 0);
    zvm_reader_destroy(r);
  }
}

static void open_error_transitions(void **s) {
  static const int seq[] = {EBUSY, EBUSY, ENOENT, ENOENT, ENOENT, EBUSY, EIO};
  (void)s;
  struct zvm_reader *r = mk(0);
  for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
    push_open_fail(seq[i]);
    drain(r);
    F.now += 60000;
  }
  assert_int_equal(st(r)->health.open_errors, 7);
  assert_int_equal(st(r)->open, 0);
  assert_int_equal(st(r)->open_errno, EIO); /* the most recent failure */
  assert_int_equal(L.n, 4);
  assert_non_null(strstr(L.msg[0], "another process holds"));
  assert_non_null(strstr(L.msg[1], "does not exist"));
  assert_non_null(strstr(L.msg[2], "another process holds"));
  assert_non_null(strstr(L.msg[3], "IUCV connection"));

  drain(r); /* success ends the state ... */
  assert_true(F.is_open);
  assert_int_equal(st(r)->open, 1);
  assert_int_equal(st(r)->open_errno, EIO); /* kept: which error it was */
  assert_int_equal(st(r)->faults, 0);
  assert_int_equal(L.n, 5);
  zvm_reader_destroy(r);

  /* ... so the same errno after a success is logged again. */
  setup(NULL);
  r = mk(0);
  push_open_fail(EBUSY);
  drain(r);
  F.now += 60000;
  drain(r);
  push_poll(POLLERR);
  drain(r);
  F.now += 60000;
  push_open_fail(EBUSY);
  drain(r);
  assert_int_equal(count_logs(ZVM_LOG_ERR, "another process holds"), 2);
  zvm_reader_destroy(r);
}

/* Open failures back off as severs do, and no open() happens early. */
static void open_backoff(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  push_open_fail(ENOENT);
  drain(r);
  F.now += 999;
  drain(r);
  assert_int_equal(F.n_open, 1);
  F.now += 1;
  push_open_fail(ENOENT);
  drain(r);
  assert_int_equal(F.n_open, 2);
  F.now += 1999;
  drain(r);
  assert_int_equal(F.n_open, 2);
  F.now += 1;
  drain(r);
  assert_int_equal(F.n_open, 3);
  assert_true(F.is_open);
  assert_int_equal(st(r)->health.open_errors, 2);
  assert_int_equal(st(r)->reopens, 0);
  zvm_reader_destroy(r);
}

static void default_device(void **s) {
  (void)s;
  struct zvm_reader *r = mk_dev(NULL, 0);
  push_open_fail(ENOENT);
  drain(r);
  assert_string_equal(F.last_path, "/dev/monreader");
  assert_string_equal(L.msg[0], "/dev/monreader does not exist: load the "
                                "monreader module (modprobe monreader "
                                "mondcss=<DCSS>)");
  zvm_reader_destroy(r);
}

/* ---- sever and re-open --------------------------------------------------- */

static void sever_backoff(void **s) {
  static const uint64_t delays[] = {2000,  4000,  8000, 16000,
                                    32000, 60000, 60000};
  (void)s;
  struct zvm_reader *r = mk(0);
  push_data(100); /* partial set */
  drain(r);
  assert_int_equal(F.n_open, 1);

  assert_int_equal(st(r)->open, 1);
  push_poll(POLLERR);
  drain(r);
  assert_false(F.is_open);
  assert_int_equal(F.n_close, 1);
  assert_int_equal(st(r)->discarded, 1);
  assert_int_equal(st(r)->faults, 1);
  assert_int_equal(st(r)->open, 0);
  assert_int_equal(count_logs(ZVM_LOG_WARNING, "severed"), 1);
  assert_int_equal(count_logs(ZVM_LOG_WARNING, "will re-open (back-off 1 s)"),
                   1);

  F.now += 999;
  drain(r);
  assert_int_equal(F.n_open, 1);
  F.now += 1;
  push_open_fail(EIO);
  drain(r);
  assert_int_equal(F.n_open, 2);

  for (size_t i = 0; i < sizeof(delays) / sizeof(delays[0]); i++) {
    unsigned opens = F.n_open;
    F.now += delays[i] - 1;
    drain(r);
    assert_int_equal(F.n_open, opens);
    F.now += 1;
    push_open_fail(EIO);
    drain(r);
    assert_int_equal(F.n_open, opens + 1);
  }
  assert_int_equal(st(r)->health.open_errors, 8);
  assert_int_equal(count_logs(ZVM_LOG_ERR, "IUCV connection"), 1);

  F.now += 60000;
  drain(r);
  assert_true(F.is_open);
  assert_int_equal(st(r)->reopens, 1);
  assert_string_equal(L.msg[L.n - 1], "re-opened " DEV);

  size_t a = push_data(64);
  push_zero();
  drain(r);
  assert_int_equal(G.n, 1);
  assert_set(0, a, 64); /* nothing of the severed set leaks in */

  /* Back-off starts again at 1 s after a success. */
  push_poll(POLLERR);
  drain(r);
  assert_false(F.is_open);
  F.now += 999;
  drain(r);
  assert_false(F.is_open);
  F.now += 1;
  drain(r);
  assert_true(F.is_open);
  assert_int_equal(st(r)->reopens, 2);
  assert_int_equal(st(r)->faults, 2);
  assert_int_equal(st(r)->open, 1);
  assert_int_equal(st(r)->discarded, 1); /* the 2nd sever had no partial set */
  assert_int_equal(F.bad_calls, 0);
  zvm_reader_destroy(r);
}

static void eio_then_pollerr_is_sever(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  push_data(50);
  push_err(EIO);
  push_poll(POLLERR);
  size_t b = push_data(30); /* after the re-open */
  push_zero();

  drain(r);
  assert_false(F.is_open);
  assert_int_equal(F.n_close, 1);
  assert_int_equal(F.n_read, 2);
  assert_int_equal(st(r)->health.eio, 1);
  assert_int_equal(st(r)->discarded, 1);
  assert_int_equal(count_logs(ZVM_LOG_WARNING, "severed"), 1);

  F.now += 1000;
  drain(r);
  assert_int_equal(st(r)->reopens, 1);
  assert_int_equal(G.n, 1);
  assert_set(0, b, 30);
  assert_int_equal(st(r)->health.eio, 1);
  assert_int_equal(st(r)->discarded, 1);
  zvm_reader_destroy(r);
}

static void unexpected_errno_reopens(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  push_data(20);
  push_err(EINVAL);
  size_t b = push_data(7);
  push_zero();

  drain(r);
  assert_false(F.is_open);
  assert_int_equal(st(r)->discarded, 1);
  assert_int_equal(st(r)->faults, 1);
  assert_int_equal(count_logs(ZVM_LOG_ERR, "reading " DEV " failed"), 1);
  assert_int_equal(count_logs(ZVM_LOG_ERR, "(back-off 1 s)"), 1);
  F.now += 1000;
  drain(r);
  assert_int_equal(st(r)->reopens, 1);
  assert_int_equal(G.n, 1);
  assert_set(0, b, 7);
  zvm_reader_destroy(r);
}

/* ---- oversize ------------------------------------------------------------ */

static void oversize_discarded(void **s) {
  (void)s;
  struct zvm_reader *r = mk(100);
  push_data_chunked(250, 40);
  push_zero();
  size_t fits = push_data(100); /* exactly the cap */
  push_zero();
  push_data(101);
  push_zero();
  push_data_chunked(300, 64);
  push_zero();
  size_t small = push_data(10);
  push_zero();

  drain(r);
  assert_int_equal(G.n, 2);
  assert_set(0, fits, 100);
  assert_set(1, small, 10);
  assert_int_equal(st(r)->health.sets, 5);
  assert_int_equal(st(r)->health.oversize, 3);
  assert_int_equal(st(r)->discarded, 0);
  assert_int_equal(st(r)->health.bytes_read, 250 + 100 + 101 + 300 + 10);
  /* logged for the 1st, again for the 3rd (a set fit in between), not for
   * the 4th */
  assert_int_equal(count_logs(ZVM_LOG_WARNING, "larger than 100 bytes"), 2);
  assert_int_equal(heap.max_realloc, 100);
  assert_int_equal(F.next, F.nsteps);
  zvm_reader_destroy(r);
}

/* An oversize set still being skipped when a drain ends stays skipped. */
static void oversize_across_drains(void **s) {
  (void)s;
  struct zvm_reader *r = mk(100);
  push_data(150);
  drain(r);
  push_data(500);
  push_zero();
  size_t b = push_data(60);
  push_zero();
  drain(r);
  assert_int_equal(G.n, 1);
  assert_set(0, b, 60);
  assert_int_equal(st(r)->health.oversize, 1);
  assert_int_equal(st(r)->health.sets, 2);
  assert_true(heap.max_realloc <= 100);
  zvm_reader_destroy(r);
}

static void bytes_read_counts_discarded(void **s) {
  (void)s;
  struct zvm_reader *r = mk(100);
  push_data(90);
  push_err(EIO);
  push_data(10);
  push_err(EFAULT);
  push_data_chunked(250, 50);
  push_zero();
  size_t d = push_data(50);
  push_zero();

  drain(r);
  assert_int_equal(G.n, 1);
  assert_set(0, d, 50);
  assert_int_equal(st(r)->health.bytes_read, 90 + 10 + 250 + 50);
  assert_int_equal(st(r)->discarded, 2);
  assert_int_equal(st(r)->health.oversize,
                   0); /* the 250 were the faulted tail */
  assert_int_equal(st(r)->health.sets, 1);
  assert_int_equal(st(r)->health.eio, 1);
  assert_int_equal(st(r)->health.efault, 1);
  zvm_reader_destroy(r);
}

/* ---- bounds and resources ------------------------------------------------ */

static void read_cap_bounds_one_drain(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  push_set_data(12); /* a set as the driver starts one, that never ends */
  push(ST_FOREVER);

  drain(r);
  unsigned reads = F.n_read;
  assert_true(reads >= 100000);
  assert_true(reads <= (1u << 20));
  assert_int_equal(st(r)->health.bytes_read, reads - 1 + 12);
  assert_int_equal(count_logs(ZVM_LOG_WARNING, "still had data"), 1);

  drain(r);
  assert_int_equal(F.n_read, 2 * reads);
  assert_int_equal(count_logs(ZVM_LOG_WARNING, "still had data"), 1);
  assert_int_equal(G.n, 0);
  zvm_reader_destroy(r);
}

static void alloc_failure_keeps_partial(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  size_t a = push_data(70000);
  push_zero();

  heap.realloc_ok_left = 1; /* first buffer ok, growing it fails */
  assert_int_equal(zvm_reader_drain(r, on_set, &G), -1);
  assert_int_equal(G.n, 0);
  assert_true(st(r)->health.bytes_read > 0);
  assert_true(st(r)->health.bytes_read < 70000);
  assert_int_equal(count_logs(ZVM_LOG_ERR, "cannot allocate"), 1);

  heap.realloc_ok_left = -1;
  drain(r);
  assert_int_equal(G.n, 1);
  assert_set(0, a, 70000);
  assert_int_equal(st(r)->health.bytes_read, 70000);
  assert_int_equal(st(r)->discarded, 0);
  zvm_reader_destroy(r);
}

static void destroy_frees_and_closes(void **s) {
  (void)s;
  long before = heap.live;
  struct zvm_reader *r = mk(0);
  push_data(5000); /* partial set in the buffer */
  drain(r);
  assert_true(F.is_open);
  assert_true(heap.live >= before + 3); /* reader, device name, buffer */

  zvm_reader_destroy(r);
  assert_int_equal(heap.live, before);
  assert_false(F.is_open);
  assert_int_equal(F.n_close, 1);
  assert_int_equal(F.bad_calls, 0);
  zvm_reader_destroy(NULL);
}

static void create_rejects_bad_config(void **s) {
  (void)s;
  long before = heap.live;
  struct zvm_reader_io io = {.open = fake_open,
                             .read = fake_read,
                             .close = fake_close,
                             .now_ms = fake_now,
                             .ctx = &F};
  struct zvm_reader_config cfg = {.device = DEV, .io = &io};
  assert_null(zvm_reader_create(&cfg));
  io.poll = fake_poll;
  cfg.device = "";
  assert_null(zvm_reader_create(&cfg));
  assert_int_equal(heap.live, before);
}

/* ---- waiting for the device (the reader thread's loop) ------------------ */

static void wait_open_due(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  /* Closed, no back-off yet: an open is due at once, nothing waited. */
  assert_int_equal(zvm_reader_wait(r, 100), 1);
  assert_int_equal(F.n_wait, 0);
  assert_int_equal(zvm_reader_wait(NULL, 100), -1);
  zvm_reader_destroy(r);
}

static void wait_sleeps_through_backoff(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  push_open_fail(ENOENT);
  drain(r); /* next open in 1000 ms */
  assert_int_equal(zvm_reader_wait(r, 100), 0);
  assert_int_equal(F.n_wait, 1);
  assert_int_equal(F.wait_fd, -1);
  assert_int_equal(F.wait_ms, 100);
  /* A long timeout waits only until the back-off ends. */
  assert_int_equal(zvm_reader_wait(r, 60000), 1);
  assert_int_equal(F.wait_ms, 900);
  assert_int_equal(F.n_open, 1); /* waiting never opens */
  drain(r);
  assert_int_equal(F.n_open, 2);
  assert_true(F.is_open);
  zvm_reader_destroy(r);
}

static void wait_on_open_device(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  drain(r); /* opens; nothing to read */
  assert_true(F.is_open);
  uint64_t t = F.now;
  assert_int_equal(zvm_reader_wait(r, 100), 0);
  assert_int_equal(F.wait_fd, FAKE_FD);
  assert_int_equal(F.wait_ms, 100);
  assert_int_equal(F.now, t + 100);
  /* Data: ready, and the drain delivers it. */
  size_t off = push_data(30);
  push_zero();
  assert_int_equal(zvm_reader_wait(r, 100), 1);
  assert_int_equal(G.n, 0); /* waiting reads nothing */
  drain(r);
  assert_int_equal(G.n, 1);
  assert_set(0, off, 30);
  /* A severed path (POLLERR) is ready too: the drain closes. */
  push_poll(POLLERR);
  assert_int_equal(zvm_reader_wait(r, 100), 1);
  drain(r);
  assert_false(F.is_open);
  assert_int_equal(F.bad_calls, 0);
  zvm_reader_destroy(r);
}

static void wait_errors(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  drain(r);
  F.wait_errno = EINTR; /* a signal: just a shorter wait */
  assert_int_equal(zvm_reader_wait(r, 100), 0);
  F.wait_errno = ENOMEM; /* let the drain find out */
  assert_int_equal(zvm_reader_wait(r, 100), 1);
  assert_int_equal(zvm_reader_wait(r, -5), 0); /* negative: no wait */
  assert_int_equal(F.wait_ms, 0);
  zvm_reader_destroy(r);

  /* Without a wait function there is nothing to block on. */
  struct zvm_reader_io io = {.open = fake_open,
                             .read = fake_read,
                             .poll = fake_poll,
                             .close = fake_close,
                             .now_ms = fake_now,
                             .ctx = &F};
  struct zvm_reader_config cfg = {.device = DEV, .io = &io};
  F.is_open = false;
  r = zvm_reader_create(&cfg);
  assert_non_null(r);
  drain(r);
  unsigned n = F.n_wait;
  assert_int_equal(zvm_reader_wait(r, 100), 1);
  assert_int_equal(F.n_wait, n);
  zvm_reader_destroy(r);
}

/* The real system calls on a FIFO: open, poll, read, EAGAIN, and POLLHUP
 * once the writer is gone (treated like the driver's POLLERR). */
static void sysio_smoke(void **s) {
  (void)s;
  char dir[] = "/tmp/zvm_reader_XXXXXX";
  char path[64];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof(path), "%s/missing", dir);
  struct zvm_reader_config cfg = {.device = path, .log = on_log, .log_ctx = &L};
  struct zvm_reader *r = zvm_reader_create(&cfg);
  assert_non_null(r);
  assert_int_equal(zvm_reader_drain(r, on_set, &G), 0);
  assert_int_equal(st(r)->health.open_errors, 1);
  assert_int_equal(count_logs(ZVM_LOG_ERR, "missing does not exist"), 1);
  zvm_reader_destroy(r);

  snprintf(path, sizeof(path), "%s/fifo", dir);
  assert_int_equal(mkfifo(path, 0600), 0);
  /* The real fstat: a FIFO is not the monitor device. */
  r = zvm_reader_create(&cfg);
  assert_non_null(r);
  assert_int_equal(zvm_reader_drain(r, on_set, &G), 0);
  assert_int_equal(st(r)->health.open_errors, 1);
  assert_int_equal(st(r)->open, 0);
  assert_int_equal(st(r)->open_errno, ZVM_READER_NOT_MONREADER);
  assert_int_equal(count_logs(ZVM_LOG_ERR, "fifo is a FIFO, not the z/VM "
                                           "monitor device: set Device"),
                   1);
  zvm_reader_destroy(r);
  /* /dev/null: a character device, but not monreader (sysfs says so). */
  cfg.device = "/dev/null";
  r = zvm_reader_create(&cfg);
  assert_non_null(r);
  assert_int_equal(zvm_reader_drain(r, on_set, &G), 0);
  assert_int_equal(st(r)->health.open_errors, 1);
  if (access("/sys/dev/char/1:3/uevent", R_OK) == 0)
    assert_int_equal(count_logs(ZVM_LOG_ERR, "/dev/null is the character "
                                             "device 1:3 (null), not"),
                     1);
  zvm_reader_destroy(r);

  /* The rest through the real calls, without the identity check. */
  struct zvm_reader_io io = zvm_reader_sysio;
  io.fstat = NULL;
  io.read_text = NULL;
  cfg.io = &io;
  cfg.device = path;
  r = zvm_reader_create(&cfg);
  assert_non_null(r);
  assert_int_equal(zvm_reader_drain(r, on_set, &G), 0); /* opens */
  assert_int_equal(st(r)->health.open_errors, 0);
  int w = open(path, O_WRONLY | O_NONBLOCK);
  assert_true(w >= 0);
  assert_int_equal(zvm_reader_wait(r, 0), 0); /* nothing written yet */
  assert_int_equal(write(w, "MCE+records", 11), 11);
  assert_int_equal(zvm_reader_wait(r, 1000), 1); /* real poll() */
  assert_int_equal(zvm_reader_drain(r, on_set, &G), 0);
  assert_int_equal(st(r)->health.bytes_read, 11);
  assert_int_equal(G.n, 0);
  close(w);
  assert_int_equal(zvm_reader_drain(r, on_set, &G), 0);
  assert_int_equal(st(r)->discarded, 1);
  assert_int_equal(count_logs(ZVM_LOG_WARNING, "severed"), 1);
  zvm_reader_destroy(r);
  unlink(path);
  rmdir(dir);
}

/* ---- what cannot be the monitor device ----------------------------------- */

static void identify_rules(void **s) {
  (void)s;
  struct stat st;
  char why[160];
  memset(&st, 0, sizeof(st));

  st.st_mode = S_IFREG | 0644;
  assert_false(zvm_reader_identify(&st, NULL, NULL, why, sizeof(why)));
  assert_string_equal(why, "a regular file");
  st.st_mode = S_IFDIR | 0755;
  assert_false(zvm_reader_identify(&st, NULL, NULL, why, sizeof(why)));
  assert_string_equal(why, "a directory");

  st.st_mode = S_IFCHR | 0666;
  st.st_rdev = makedev(1, 5);
  assert_false(zvm_reader_identify(&st, "MAJOR=1\nMINOR=5\nDEVNAME=zero\n",
                                   "10:63\n", why, sizeof(why)));
  assert_string_equal(why, "the character device 1:5 (zero)");
  assert_false(
      zvm_reader_identify(&st, "MAJOR=1\nMINOR=5\n", NULL, why, sizeof(why)));
  assert_string_equal(why, "the character device 1:5");
  /* DEVNAME must be the whole name, not a prefix or a longer key. */
  assert_false(zvm_reader_identify(&st, "XDEVNAME=monreader\nDEVNAME=mon\n",
                                   NULL, why, sizeof(why)));
  assert_string_equal(why, "the character device 1:5 (mon)");

  st.st_rdev = makedev(10, 63);
  assert_true(zvm_reader_identify(&st, "MAJOR=10\nMINOR=63\nDEVNAME=monreader",
                                  NULL, why, sizeof(why)));
  /* No uevent: the misc class's numbers decide. */
  assert_true(zvm_reader_identify(&st, NULL, "10:63\n", why, sizeof(why)));
  st.st_rdev = makedev(10, 62);
  assert_false(zvm_reader_identify(&st, NULL, "10:63\n", why, sizeof(why)));
  assert_string_equal(why, "the character device 10:62 (monreader is 10:63)");
  /* sysfs cannot tell: accepted (the stream checks still apply). */
  assert_true(zvm_reader_identify(&st, NULL, NULL, why, sizeof(why)));
  /* A misc text not as the kernel prints a dev_t ("%u:%u\n") tells
   * nothing: a sign, a blank, a number past an unsigned int. */
  assert_true(
      zvm_reader_identify(&st, NULL, "-4294967286:63\n", why, sizeof(why)));
  assert_true(zvm_reader_identify(&st, NULL, " 10:63\n", why, sizeof(why)));
  assert_true(
      zvm_reader_identify(&st, NULL, "4294967306:63", why, sizeof(why)));
  assert_true(zvm_reader_identify(&st, NULL, "10:63x", why, sizeof(why)));
  /* A name from sysfs goes into a log line: printable ASCII only. */
  assert_false(zvm_reader_identify(
      &st, "MAJOR=10\nMINOR=62\nDEVNAME=mon\x1b[2J\rreader\xff\n", NULL, why,
      sizeof(why)));
  assert_string_equal(why, "the character device 10:62 (mon?[2J?reader?)");

  char advice[300];
  zvm_reader_open_advice(ZVM_READER_NOT_MONREADER, "/dev/zero", advice,
                         sizeof(advice));
  assert_non_null(strstr(advice, "/dev/zero is not the z/VM monitor device: "
                                 "set Device to"));
}

static void open_refuses_other_devices(void **s) {
  (void)s;
  struct zvm_reader *r = mk_checked(0);
  F.mode = S_IFCHR;
  F.rdev = makedev(1, 5);
  F.uevent = "MAJOR=1\nMINOR=5\nDEVNAME=zero\n";
  F.misc = "10:63\n";
  push_set_data(20);
  push_zero();

  drain(r);
  assert_int_equal(F.n_open, 1);
  assert_int_equal(F.n_close, 1);
  assert_false(F.is_open);
  assert_int_equal(F.n_read, 0); /* not one byte read from it */
  assert_int_equal(st(r)->health.open_errors, 1);
  assert_int_equal(st(r)->open, 0);
  assert_int_equal(st(r)->open_errno, ZVM_READER_NOT_MONREADER);
  assert_int_equal(count_logs(ZVM_LOG_ERR,
                              DEV " is the character device 1:5 (zero), not "
                                  "the z/VM monitor device: set Device to"),
                   1);
  /* Back-off as for a failed open; logged once. */
  F.now += 999;
  drain(r);
  assert_int_equal(F.n_open, 1);
  F.now += 1;
  drain(r);
  assert_int_equal(F.n_open, 2);
  assert_int_equal(st(r)->health.open_errors, 2);
  assert_int_equal(count_logs(ZVM_LOG_ERR, "not the z/VM monitor device"), 1);

  /* The module is loaded and the node is right now. */
  F.rdev = makedev(10, 63);
  F.uevent = "MAJOR=10\nMINOR=63\nDEVNAME=monreader\n";
  F.now += 2000;
  drain(r);
  assert_int_equal(st(r)->open, 1);
  assert_int_equal(G.n, 1);
  assert_int_equal(count_logs(ZVM_LOG_INFO, "opened"), 1);
  assert_int_equal(F.bad_calls, 0);
  zvm_reader_destroy(r);

  /* A regular file. */
  setup(NULL);
  r = mk_checked(0);
  F.mode = S_IFREG;
  drain(r);
  assert_int_equal(st(r)->health.open_errors, 1);
  assert_int_equal(count_logs(ZVM_LOG_ERR, "is a regular file, not the z/VM "
                                           "monitor device"),
                   1);
  zvm_reader_destroy(r);
}

/* /dev/null as a device that passed the check: 0-byte reads, nothing in
 * between. The driver answers at most 255 pending messages. */
static void drain_uncollected(struct zvm_reader *r) {
  assert_int_equal(zvm_reader_drain(r, NULL, NULL), 0);
}

static void empty_reads_are_an_episode(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  for (int i = 0; i < 300; i++)
    push_zero();

  drain_uncollected(r);
  assert_int_equal(st(r)->health.sets, 256);
  assert_int_equal(st(r)->health.stream_errors, 1);
  assert_int_equal(st(r)->faults, 1);
  assert_false(F.is_open);
  assert_int_equal(count_logs(ZVM_LOG_ERR,
                              DEV " returned 256 0-byte reads without data "
                                  "between them, which /dev/monreader never "
                                  "does: closed it, will re-open in 1 s"),
                   1);
  assert_int_equal(count_logs(ZVM_LOG_ERR, "check that Device names"), 1);

  F.now += 999;
  drain_uncollected(r);
  assert_int_equal(F.n_open, 1);
  F.now += 1;
  drain_uncollected(r); /* the 44 left, then EAGAIN: time passes, no episode */
  assert_int_equal(F.n_open, 2);
  assert_int_equal(st(r)->health.sets, 300);
  assert_int_equal(st(r)->health.stream_errors, 1);

  /* Again: the back-off goes on doubling (no good set since), not logged. */
  for (int i = 0; i < 256; i++)
    push_zero();
  drain_uncollected(r);
  assert_int_equal(st(r)->health.stream_errors, 2);
  assert_int_equal(count_logs(ZVM_LOG_ERR, "0-byte reads"), 1);
  F.now += 1999;
  drain_uncollected(r);
  assert_int_equal(F.n_open, 2);
  F.now += 1;
  size_t a = push_set_data(40);
  push_zero();
  drain(r);
  assert_int_equal(F.n_open, 3);
  assert_set(0, a, 40);

  /* A good set: the device works; the next episode is logged, 1 s. */
  for (int i = 0; i < 256; i++)
    push_zero();
  drain_uncollected(r);
  assert_int_equal(st(r)->health.stream_errors, 3);
  assert_int_equal(count_logs(ZVM_LOG_ERR, "re-open in 1 s"), 2);
  zvm_reader_destroy(r);
}

static void sets_without_mce_are_an_episode(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  /* 15 bad ones, a good one, 15 bad ones: a device that works. */
  for (int i = 0; i < 31; i++) {
    if (i == 15)
      push_set_data(30);
    else
      push_bad_set_data(30);
    push_zero();
  }
  drain(r);
  assert_int_equal(G.n, 31);
  assert_int_equal(st(r)->health.stream_errors, 0);
  /* The 16th in a row. */
  push_bad_set_data(30);
  push_zero();
  drain(r);
  assert_int_equal(G.n, 32);
  assert_int_equal(st(r)->health.stream_errors, 1);
  assert_false(F.is_open);
  assert_int_equal(count_logs(ZVM_LOG_ERR, "returned data that does not start "
                                           "with a monitor control element"),
                   1);
  zvm_reader_destroy(r);

  /* /dev/zero as a device that passed the check: one set, never ending,
   * whose first MCE the driver would have rejected. */
  setup(NULL);
  r = mk(0);
  push_bad_set_data(12);
  push(ST_FOREVER);
  drain(r);
  assert_int_equal(st(r)->health.stream_errors, 1);
  assert_int_equal(st(r)->health.bytes_read, 1024 * 1024 + 1);
  assert_int_equal(st(r)->discarded, 1);
  assert_int_equal(G.n, 0);
  assert_false(F.is_open);
  zvm_reader_destroy(r);
}

/* Each part of the driver's MCE check (mon_check_mca() in
 * drivers/s390/char/monreader.c) on its own: a set starting with an MCE
 * that fails only that part is one the driver never returns, so 16 of
 * them in a row are an episode, like a zero type byte. */
static void each_bad_mce_kind_is_an_episode(void **s) {
  (void)s;
  static const struct {
    const char *what;
    uint8_t mce[12];
  } bad[] = {
      {"type byte 0",
       {0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x1F,
        0xFF}},
      {"empty domain mask",
       {0xE2, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x1F,
        0xFF}},
      {"end equal to start",
       {0xE2, 0x80, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x10,
        0x00}},
      {"end before start",
       {0xE2, 0x80, 0x00, 0x00, 0x00, 0x00, 0x1F, 0xFF, 0x00, 0x00, 0x10,
        0x00}},
  };
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
    print_message("first MCE: %s\n", bad[k].what);
    setup(NULL);
    struct zvm_reader *r = mk(0);
    /* The second domain-mask byte alone is a domain: not bad. */
    size_t off = push_set_data(30);
    F.stream[off + 1] = 0x00;
    F.stream[off + 2] = 0x01;
    push_zero();
    for (int i = 0; i < 16; i++) {
      off = push_data(30);
      memcpy(F.stream + off, bad[k].mce, sizeof(bad[k].mce));
      push_zero();
    }
    drain(r);
    assert_int_equal(G.n, 17);
    assert_int_equal(st(r)->health.stream_errors, 1);
    assert_false(F.is_open);
    assert_int_equal(count_logs(ZVM_LOG_ERR, "does not start with a monitor "
                                             "control element"),
                     1);
    zvm_reader_destroy(r);
  }
}

static void oversize_sets_in_a_row_are_an_episode(void **s) {
  (void)s;
  struct zvm_reader *r = mk(4096);
  for (int i = 0; i < 8; i++) {
    push_set_data(i == 3 ? 100 : 5000); /* one fits: the run starts again */
    push_zero();
  }
  drain(r);
  assert_int_equal(st(r)->health.oversize, 7);
  assert_int_equal(st(r)->health.stream_errors, 0);
  for (int i = 0; i < 4; i++) {
    push_set_data(5000);
    push_zero();
  }
  drain(r);
  assert_int_equal(st(r)->health.oversize, 11);
  assert_int_equal(st(r)->health.stream_errors, 1);
  assert_false(F.is_open);
  assert_int_equal(count_logs(ZVM_LOG_ERR,
                              "returned 8 data sets in a row larger than "
                              "MaxSetSize (4096 bytes), which /dev/monreader "
                              "never does"),
                   1);
  assert_int_equal(count_logs(ZVM_LOG_ERR, "raise MaxSetSize"), 1);
  zvm_reader_destroy(r);

  /* Data that starts like a set and never ends: past 64 MiB (and twice
   * max_set), a few drains of 16 MiB. */
  setup(NULL);
  r = mk(4096);
  push(ST_FLOOD);
  for (int i = 0; i < 8 && F.is_open + (i == 0) > 0; i++)
    drain(r);
  assert_int_equal(st(r)->health.stream_errors, 1);
  assert_true(st(r)->health.bytes_read > 64u * 1024 * 1024);
  assert_true(st(r)->health.bytes_read <= 64u * 1024 * 1024 + 4096);
  assert_int_equal(st(r)->discarded, 1);
  assert_int_equal(G.n, 0);
  assert_false(F.is_open);
  assert_int_equal(count_logs(ZVM_LOG_ERR,
                              "returned a data set larger than twice "
                              "MaxSetSize (4096 bytes)"),
                   1);
  zvm_reader_destroy(r);
}

/* A device that always has data: a drain ends after about 16 MiB. */
static void drain_bounded_in_bytes(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  push(ST_FLOOD);
  drain(r);
  uint64_t first = st(r)->health.bytes_read;
  assert_true(first >= 16u * 1024 * 1024);
  assert_true(first < 17u * 1024 * 1024);
  assert_true(F.n_read < 1000);
  drain(r);
  assert_true(st(r)->health.bytes_read >= 2 * first);
  assert_true(st(r)->health.bytes_read < 2 * first + 1024 * 1024);
  assert_int_equal(G.n, 0);
  assert_int_equal(st(r)->health.stream_errors, 0);
  zvm_reader_destroy(r);
}

/* zvm_reader_stop() from another thread: the drain returns after the read
 * under way, and later drains and waits return at once. */
static void stop_ends_drain_between_reads(void **s) {
  (void)s;
  struct zvm_reader *r = mk(0);
  push_set_data(12);
  push(ST_FOREVER);
  F.stop_after_reads = 1000;
  F.stop_reader = r;
  drain(r);
  assert_int_equal(F.n_read, 1000);
  drain(r);
  assert_int_equal(F.n_read, 1000);
  unsigned waits = F.n_wait;
  assert_int_equal(zvm_reader_wait(r, 100), 0);
  assert_int_equal(F.n_wait, waits);
  zvm_reader_stop(NULL);
  zvm_reader_destroy(r);
}

/* ---- events (zvm-monitor-capture records them) --------------------------- */

struct evlog {
  char seq[64]; /* 'S' per set, else the event type as a digit */
  size_t n;
  struct zvm_reader_event ev[32];
  size_t nev;
};

static void ev_on_set(const uint8_t *set, size_t len, void *ctx) {
  struct evlog *l = ctx;
  (void)set;
  (void)len;
  assert_true(l->n + 1 < sizeof(l->seq));
  l->seq[l->n++] = 'S';
}

static void ev_on_event(const struct zvm_reader_event *ev, void *ctx) {
  struct evlog *l = ctx;
  assert_true(l->n + 1 < sizeof(l->seq) && l->nev < 32);
  l->seq[l->n++] = (char)('0' + ev->type);
  l->ev[l->nev++] = *ev;
}

/* Every event comes in stream order between the sets, with what it
 * discarded; the counters agree with the events. */
static void events_in_order(void **s) {
  (void)s;
  static struct evlog l;
  memset(&l, 0, sizeof(l));
  struct zvm_reader_io io = {.open = fake_open,
                             .read = fake_read,
                             .poll = fake_poll,
                             .close = fake_close,
                             .now_ms = fake_now,
                             .ctx = &F,
                             .wait = fake_wait};
  struct zvm_reader_config cfg = {
      .device = DEV, .io = &io, .event = ev_on_event, .event_ctx = &l};
  struct zvm_reader *r = zvm_reader_create(&cfg);
  assert_non_null(r);
  push_open_fail(EBUSY);
  push_data(25);
  push_zero();
  push_data(12);
  push_err(EIO); /* 12 bytes discarded */
  push_data(30);
  push_zero();
  push_err(EOVERFLOW);
  push_data(7);
  push_err(EFAULT); /* 7 discarded; the tail follows */
  push_data(5);
  push_zero();
  push_data(9);
  push_poll(POLLERR); /* sever with 9 bytes pending */

  for (int i = 0; i < 8; i++) {
    (void)zvm_reader_drain(r, ev_on_set, &l);
    F.now += 70000;
  }
  l.seq[l.n] = '\0';
  /* open error, open, set, EIO, set, EOVERFLOW, EFAULT, sever, re-open */
  assert_string_equal(l.seq, "31S5S4672");
  assert_int_equal(l.ev[0].err, EBUSY);
  assert_int_equal(l.ev[2].type, ZVM_READER_EV_EIO);
  assert_true(l.ev[2].set_discarded);
  assert_int_equal(l.ev[2].discarded_bytes, 12);
  assert_int_equal(l.ev[3].type, ZVM_READER_EV_EOVERFLOW);
  assert_false(l.ev[3].set_discarded);
  assert_int_equal(l.ev[4].discarded_bytes, 7);
  assert_true(l.ev[5].set_discarded);
  assert_int_equal(l.ev[5].discarded_bytes, 9);
  assert_int_equal(st(r)->discarded, 3);
  zvm_reader_destroy(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(chunk_1, setup),
      cmocka_unit_test_setup(chunk_7, setup),
      cmocka_unit_test_setup(chunk_12, setup),
      cmocka_unit_test_setup(chunk_4096, setup),
      cmocka_unit_test_setup(chunk_mixed, setup),
      cmocka_unit_test_setup(carry_over, setup),
      cmocka_unit_test_setup(sets_in_order, setup),
      cmocka_unit_test_setup(empty_set_counted_and_delivered, setup),
      cmocka_unit_test_setup(eio_discards_set, setup),
      cmocka_unit_test_setup(eio_at_set_boundary, setup),
      cmocka_unit_test_setup(efault_discards_set, setup),
      cmocka_unit_test_setup(efault_at_set_start_keeps_message, setup),
      cmocka_unit_test_setup(efault_tail_then_eio, setup),
      cmocka_unit_test_setup(eoverflow_keeps_set, setup),
      cmocka_unit_test_setup(eoverflow_logged_per_state_change, setup),
      cmocka_unit_test_setup(eagain_keeps_partial, setup),
      cmocka_unit_test_setup(eintr_retried, setup),
      cmocka_unit_test_setup(poll_nothing_ready_no_read, setup),
      cmocka_unit_test_setup(open_errors_logged_once, setup),
      cmocka_unit_test_setup(open_error_transitions, setup),
      cmocka_unit_test_setup(open_backoff, setup),
      cmocka_unit_test_setup(default_device, setup),
      cmocka_unit_test_setup(sever_backoff, setup),
      cmocka_unit_test_setup(eio_then_pollerr_is_sever, setup),
      cmocka_unit_test_setup(events_in_order, setup),
      cmocka_unit_test_setup(unexpected_errno_reopens, setup),
      cmocka_unit_test_setup(oversize_discarded, setup),
      cmocka_unit_test_setup(oversize_across_drains, setup),
      cmocka_unit_test_setup(bytes_read_counts_discarded, setup),
      cmocka_unit_test_setup(read_cap_bounds_one_drain, setup),
      cmocka_unit_test_setup(alloc_failure_keeps_partial, setup),
      cmocka_unit_test_setup(destroy_frees_and_closes, setup),
      cmocka_unit_test_setup(create_rejects_bad_config, setup),
      cmocka_unit_test_setup(wait_open_due, setup),
      cmocka_unit_test_setup(wait_sleeps_through_backoff, setup),
      cmocka_unit_test_setup(wait_on_open_device, setup),
      cmocka_unit_test_setup(wait_errors, setup),
      cmocka_unit_test_setup(sysio_smoke, setup),
      cmocka_unit_test_setup(identify_rules, setup),
      cmocka_unit_test_setup(open_refuses_other_devices, setup),
      cmocka_unit_test_setup(empty_reads_are_an_episode, setup),
      cmocka_unit_test_setup(sets_without_mce_are_an_episode, setup),
      cmocka_unit_test_setup(each_bad_mce_kind_is_an_episode, setup),
      cmocka_unit_test_setup(oversize_sets_in_a_row_are_an_episode, setup),
      cmocka_unit_test_setup(drain_bounded_in_bytes, setup),
      cmocka_unit_test_setup(stop_ends_drain_between_reads, setup),
  };
  return cmocka_run_group_tests_name("reader", tests, NULL, NULL);
}
