/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: data-set assembly in the device reader, through its fake
 * I/O (struct zvm_reader_io in include/zvm_monitor/reader.h).
 *
 * Written against reader.h before plugin/io/reader.c existed:
 * tests/fuzz/fuzz.mk builds it once plugin/io/reader.c is there. To replay it
 * in 'make check' too, add its stanza to tests/fuzz/local.am (as for
 * replay_decode, linking the reader) and seeds to tests/fuzz/corpus/reader/.
 *
 * Input: 2 bytes of max_set_size (big-endian, 0 = the default), then a
 * script for a fake /dev/monreader, one op byte at a time (low 4 bits: the
 * op, high 4 bits: its argument):
 *
 *   0 DATA      next byte + 1 bytes follow; read() hands them out in pieces
 *               as large as the reader asks for (short reads when it asks
 *               for more)
 *   1 END       read() returns 0: the end of a data set
 *   2 AGAIN     read() fails with EAGAIN, poll() says nothing is ready: the
 *               drain call ends, the harness makes the next one
 *   3 EIO       read() fails with EIO
 *   4 EFAULT    read() fails with EFAULT
 *   5 EOVERFLOW read() fails with EOVERFLOW
 *   6 EINTR     read() fails with EINTR
 *   7 SEVER     the path is severed: poll() reports POLLERR|POLLHUP and
 *               read() fails with EIO until the reader re-opens
 *   8 OPENFAIL  the next open() fails (arg odd: EBUSY, even: EIO)
 *   9 CLOCK     the clock jumps by arg * 10 s
 *   other       ignored
 *
 * Invariants, from reader.h and the man page: every call is made on the fd
 * open() returned and still open; opens are O_RDONLY|O_NONBLOCK and never
 * nested; read() is never asked for 0 bytes (its 0 would look like the end
 * of a set); drain never blocks, makes progress and returns 0; the counters
 * match what the device did (bytes, EIO, EFAULT, EOVERFLOW, failed opens);
 * destroy closes the device. The sets handed over, in order, are no larger
 * than max_set_size, each ends at one of the device's 0-byte reads (never
 * spanning one) and is handed over in the drain call that read that end; a
 * set without any error on the way (and not empty or too large) is handed
 * over, whole. Where the man page leaves a choice (what survives an EOVERFLOW,
 * EINTR or a sever), the set may be cut or dropped. Every set then goes
 * through zvm_decode_set(), as the glue will.
 */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>

#include "zvm_monitor/builtin.h"
#include "zvm_monitor/reader.h"
#include "zvm_monitor/records.h"

#define DEVICE "/dev/monreader-fuzz"
/* The device goes quiet after this many set ends (bounds the check). */
#define MAX_ENDS 256

enum op {
  OP_DATA,
  OP_END,
  OP_AGAIN,
  OP_EIO,
  OP_EFAULT,
  OP_EOVERFLOW,
  OP_EINTR,
  OP_SEVER,
  OP_OPENFAIL,
  OP_CLOCK,
};

struct end {
  size_t at;     /* stream offset of the 0-byte read */
  size_t size;   /* bytes since the previous one */
  bool dirty;    /* an error, EINTR or sever since the previous one */
  unsigned call; /* drain call that read it */
};

struct set {
  size_t off, len; /* in struct fake's sets buffer */
  unsigned call;   /* drain call that handed it over */
  size_t ends;     /* 0-byte reads done by then */
};

struct fake {
  const uint8_t *script;
  size_t len, pos;
  size_t chunk_left; /* bytes of the current DATA op not read yet */

  int fd; /* open fd, or -1 */
  int next_fd;
  bool severed;
  int open_fail; /* errno for the next open(), 0 = succeed */
  uint64_t now;
  unsigned call; /* current drain call */
  size_t max_set_size;

  /* What the device did. */
  uint8_t *stream; /* every byte read() returned, in order */
  size_t stream_len, stream_cap;
  uint64_t eio, efault, eoverflow, open_errors;
  struct end ends[MAX_ENDS];
  size_t nends;
  bool dirty_now;

  /* What the reader handed over. */
  uint8_t *sets_buf;
  size_t sets_len, sets_cap;
  struct set sets[MAX_ENDS];
  size_t nsets;
};

static void append(uint8_t **buf, size_t *len, size_t *cap, const void *p,
                   size_t n) {
  if (*len + n > *cap) {
    size_t c = *cap ? 2 * *cap : 4096;
    while (c < *len + n)
      c *= 2;
    *buf = realloc(*buf, c);
    FUZZ_CHECK(*buf != NULL);
    *cap = c;
  }
  if (n > 0)
    memcpy(*buf + *len, p, n);
  *len += n;
}

static uint8_t next_byte(struct fake *f) {
  return f->pos < f->len ? f->script[f->pos++] : 0;
}

/* The op at the head of the script; a DATA op being read keeps its place.
 * OPENFAIL and CLOCK take effect when reached. */
static int peek_op(struct fake *f) {
  for (;;) {
    if (f->chunk_left > 0)
      return OP_DATA;
    if (f->pos >= f->len || f->nends >= MAX_ENDS)
      return OP_AGAIN; /* the device stays quiet from here on */
    uint8_t b = f->script[f->pos];
    int op = b & 0x0F, arg = b >> 4;
    switch (op) {
    case OP_DATA:
      f->pos++;
      f->chunk_left = (size_t)next_byte(f) + 1;
      if (f->chunk_left > f->len - f->pos)
        f->chunk_left = f->len - f->pos;
      if (f->chunk_left == 0)
        continue;
      return OP_DATA;
    case OP_OPENFAIL:
      f->pos++;
      f->open_fail = (arg & 1) ? EBUSY : EIO;
      continue;
    case OP_CLOCK:
      f->pos++;
      f->now += (uint64_t)arg * 10000;
      continue;
    case OP_END:
    case OP_AGAIN:
    case OP_EIO:
    case OP_EFAULT:
    case OP_EOVERFLOW:
    case OP_EINTR:
    case OP_SEVER:
      return op;
    default:
      f->pos++;
      continue;
    }
  }
}

static bool script_done(const struct fake *f) {
  return (f->pos >= f->len && f->chunk_left == 0) || f->nends >= MAX_ENDS;
}

static int fake_open(const char *path, int flags, void *ctx) {
  struct fake *f = ctx;
  FUZZ_CHECK(path != NULL && strcmp(path, DEVICE) == 0);
  FUZZ_CHECK((flags & O_ACCMODE) == O_RDONLY);
  FUZZ_CHECK(flags & O_NONBLOCK); /* a blocking read would hang collectd */
  FUZZ_CHECK(f->fd < 0);          /* one opener only */
  peek_op(f);                     /* pending OPENFAIL/CLOCK ops */
  if (f->open_fail != 0) {
    errno = f->open_fail;
    f->open_fail = 0;
    f->open_errors++;
    return -1;
  }
  f->severed = false;
  f->fd = f->next_fd++;
  return f->fd;
}

static ssize_t fail(struct fake *f, int err) {
  f->dirty_now = true;
  if (err == EIO)
    f->eio++;
  else if (err == EFAULT)
    f->efault++;
  else if (err == EOVERFLOW)
    f->eoverflow++;
  errno = err;
  return -1;
}

static ssize_t fake_read(int fd, void *buf, size_t count, void *ctx) {
  struct fake *f = ctx;
  FUZZ_CHECK(fd >= 0 && fd == f->fd);
  FUZZ_CHECK(buf != NULL);
  FUZZ_CHECK(count > 0); /* read(fd, buf, 0) returns 0: a fake set end */
  if (f->severed)
    return fail(f, EIO);
  switch (peek_op(f)) {
  case OP_DATA: {
    size_t n = count < f->chunk_left ? count : f->chunk_left;
    const uint8_t *src = f->script + f->pos;
    memcpy(buf, src, n); /* ASan: the reader's buffer holds count bytes */
    append(&f->stream, &f->stream_len, &f->stream_cap, src, n);
    f->pos += n;
    f->chunk_left -= n;
    return (ssize_t)n;
  }
  case OP_END: {
    f->pos++;
    size_t prev = f->nends > 0 ? f->ends[f->nends - 1].at : 0;
    f->ends[f->nends++] = (struct end){
        .at = f->stream_len,
        .size = f->stream_len - prev,
        .dirty = f->dirty_now,
        .call = f->call,
    };
    f->dirty_now = false;
    return 0;
  }
  case OP_EIO:
    f->pos++;
    return fail(f, EIO);
  case OP_EFAULT:
    f->pos++;
    return fail(f, EFAULT);
  case OP_EOVERFLOW:
    f->pos++;
    return fail(f, EOVERFLOW);
  case OP_EINTR:
    f->pos++;
    f->dirty_now = true;
    errno = EINTR;
    return -1;
  case OP_SEVER:
    f->pos++;
    f->severed = true;
    return fail(f, EIO);
  default: /* AGAIN: consumed by the harness after the drain call */
    errno = EAGAIN;
    return -1;
  }
}

static int fake_poll(int fd, void *ctx) {
  struct fake *f = ctx;
  FUZZ_CHECK(fd >= 0 && fd == f->fd);
  if (f->severed)
    return POLLERR | POLLHUP;
  int op = peek_op(f);
  if (op == OP_AGAIN)
    return 0;
  if (op == OP_SEVER) {
    f->pos++;
    f->severed = true;
    f->dirty_now = true;
    return POLLERR | POLLHUP;
  }
  return POLLIN;
}

static int fake_close(int fd, void *ctx) {
  struct fake *f = ctx;
  FUZZ_CHECK(fd >= 0 && fd == f->fd);
  f->fd = -1;
  f->dirty_now = true; /* a set in progress is gone with the path */
  return 0;
}

static uint64_t fake_now(void *ctx) {
  struct fake *f = ctx;
  return f->now;
}

static void on_log(enum zvm_log_level level, const char *msg, void *ctx) {
  (void)ctx;
  FUZZ_CHECK(level >= ZVM_LOG_ERR && level <= ZVM_LOG_INFO);
  FUZZ_CHECK(msg != NULL && strlen(msg) < 4096);
}

static void on_set(const uint8_t *set, size_t len, void *ctx) {
  struct fake *f = ctx;
  FUZZ_CHECK(len <= f->max_set_size);
  FUZZ_CHECK(len <= f->stream_len);
  FUZZ_CHECK(len == 0 || set != NULL);
  FUZZ_CHECK(f->nsets < f->nends); /* no more sets than set ends */
  f->sets[f->nsets++] = (struct set){
      .off = f->sets_len, .len = len, .call = f->call, .ends = f->nends};
  append(&f->sets_buf, &f->sets_len, &f->sets_cap, set, len);

  /* What the glue does with it. */
  struct zvm_decode_stats st;
  memset(&st, 0, sizeof(st));
  zvm_decode_set(set, len, ZVM_DOMAINS_ALL, NULL, NULL, &st);
}

/* An end the reader may leave without a set. */
static bool droppable(const struct fake *f, const struct end *e) {
  return e->dirty || e->size == 0 || e->size > f->max_set_size;
}

/* Set s can be the one that ends at end e. */
static bool set_ends_at(const struct fake *f, const struct set *s, size_t ei) {
  const struct end *e = &f->ends[ei];
  if (ei >= s->ends || s->call != e->call || s->len > e->size)
    return false;
  if (!e->dirty && s->len != e->size)
    return false; /* nothing went wrong: the whole set */
  return s->len == 0 ||
         memcmp(f->sets_buf + s->off, f->stream + e->at - s->len, s->len) == 0;
}

/* The sets, in order, are the non-dropped ends: an alignment of sets to
 * ends in which every unmatched end is droppable. */
static void check_sets(const struct fake *f) {
  size_t S = f->nsets, E = f->nends;
  /* reach[i] after j ends: the first i sets match within the first j ends
   * (one column of the (S + 1) x (E + 1) table at a time; S <= MAX_ENDS). */
  bool reach[MAX_ENDS + 1] = {true}, next[MAX_ENDS + 1];
  FUZZ_CHECK(S <= MAX_ENDS);
  for (size_t j = 0; j < E; j++) {
    memset(next, 0, (S + 1) * sizeof(*next));
    for (size_t i = 0; i <= S; i++) {
      if (!reach[i])
        continue;
      if (droppable(f, &f->ends[j]))
        next[i] = true;
      if (i < S && set_ends_at(f, &f->sets[i], j))
        next[i + 1] = true;
    }
    memcpy(reach, next, (S + 1) * sizeof(*reach));
  }
  FUZZ_CHECK(reach[S]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t head = size < 2 ? size : 2;
  struct fake *f = calloc(1, sizeof(*f));
  FUZZ_CHECK(f != NULL);
  f->script = data + head;
  f->len = size - head;
  f->fd = -1;
  f->next_fd = 7;
  f->now = 1000000;
  size_t max = (size_t)fuzz_be(data, head);
  f->max_set_size = max ? max : (size_t)64 << 20;

  const struct zvm_reader_io io = {
      .open = fake_open,
      .read = fake_read,
      .poll = fake_poll,
      .close = fake_close,
      .now_ms = fake_now,
      .ctx = f,
  };
  const struct zvm_reader_config cfg = {
      .device = DEVICE,
      .max_set_size = max,
      .io = &io,
      .log = on_log,
      .log_ctx = f,
  };
  struct zvm_reader *r = zvm_reader_create(&cfg);
  FUZZ_CHECK(r != NULL);

  /* One drain per read callback (collectd calls one every interval); it
   * ends at an AGAIN, which the harness then consumes. A reader backing off
   * after a failed open reads nothing: then the clock moves an hour. */
  unsigned stuck = 0;
  while (!script_done(f)) {
    size_t pos = f->pos, chunk_left = f->chunk_left;
    FUZZ_CHECK(f->call < 64 * f->len + 64);
    f->call++;
    FUZZ_CHECK(zvm_reader_drain(r, on_set, f) == 0);
    if (peek_op(f) == OP_AGAIN && f->pos < f->len && f->nends < MAX_ENDS)
      f->pos++;
    bool progress = f->pos != pos || f->chunk_left != chunk_left;
    stuck = progress ? 0 : stuck + 1;
    FUZZ_CHECK(stuck < 48); /* two days without reading the device */
    f->now += progress ? 60000 : 3600000;
  }
  f->call++;
  FUZZ_CHECK(zvm_reader_drain(r, on_set, f) == 0);

  const struct zvm_reader_stats *st = zvm_reader_get_stats(r);
  FUZZ_CHECK(st != NULL);
  FUZZ_CHECK(st->health.bytes_read == f->stream_len);
  FUZZ_CHECK(st->health.eio == f->eio);
  FUZZ_CHECK(st->health.efault == f->efault);
  FUZZ_CHECK(st->health.eoverflow == f->eoverflow);
  FUZZ_CHECK(st->health.open_errors == f->open_errors);
  FUZZ_CHECK(st->health.sets <= f->nends);
  check_sets(f);

  zvm_reader_destroy(r);
  FUZZ_CHECK(f->fd < 0); /* destroy closes the device */
  free(f->stream);
  free(f->sets_buf);
  free(f);
  return 0;
}
