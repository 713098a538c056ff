/* SPDX-License-Identifier: MIT */
/*
 * Replay of capture files into the set queue (plugin/io/replay.c): the sets
 * arrive with their recorded times and bytes, the reader counters are
 * rebuilt from the events, damage keeps what came before it and is logged
 * with the file and offset, pacing follows the recorded times, options are
 * checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay_options.h"
#include "zvm_monitor/capture.h"
#include "zvm_monitor/replay.h"

#define T0 UINT64_C(1700000000000000)

/* malloc of exactly this many bytes fails (0: none): the queue's copy of
 * one set (its size is the set's plus the list header). */
static size_t malloc_fail_size;
void *__real_malloc(size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_malloc(size_t n) {
  if (n != 0 && n == malloc_fail_size)
    return NULL;
  return __real_malloc(n);
}

static char dir[64];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof(dir), "/tmp/test_replay.XXXXXX");
  assert_non_null(mkdtemp(dir));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
  return 0;
}

static void path_of(char *out, size_t size, const char *name) {
  snprintf(out, size, "%s/%s", dir, name);
}

/* A capture NAME with n sets of 100 + i bytes (byte value i) at T0 + i s,
 * and an EIO event (40 bytes discarded) after set 0. Returns the file's
 * size. */
static off_t write_capture(const char *name, unsigned n, unsigned first) {
  char p[128];
  path_of(p, sizeof(p), name);
  int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644), err = 0;
  assert_true(fd >= 0);
  struct zvm_cap_writer *w = zvm_cap_writer_start(fd, "t", "d", &err);
  assert_non_null(w);
  for (unsigned i = first; i < first + n; i++) {
    uint8_t set[200];
    memset(set, (int)i, sizeof(set));
    assert_int_equal(
        zvm_cap_write_set(w, set, 100 + i, T0 + (uint64_t)i * 1000000u), 0);
    if (i == first) {
      struct zvm_reader_event ev = {.type = ZVM_READER_EV_EIO,
                                    .err = EIO,
                                    .set_discarded = true,
                                    .discarded_bytes = 40};
      assert_int_equal(zvm_cap_write_event(w, &ev, T0 + 1), 0);
    }
  }
  zvm_cap_writer_free(w);
  off_t size = lseek(fd, 0, SEEK_END);
  close(fd);
  return size;
}

struct logs {
  int n;
  char msg[8][512];
  enum zvm_log_level level[8];
};

static void on_log(enum zvm_log_level level, const char *msg, void *ctx) {
  struct logs *l = ctx;
  if (l->n < 8) {
    l->level[l->n] = level;
    snprintf(l->msg[l->n], sizeof(l->msg[0]), "%s", msg);
  }
  l->n++;
}

/* The read callback's side: takes what is queued until the replay is done;
 * "fast" must hand over one set per take. */
struct consumer {
  struct zvm_setq *q;
  pthread_t tid;
  bool done; /* __atomic: set by the test, read by the consumer */
  struct zvm_qset *head, **tail;
  size_t max_per_take;
  size_t taken, close_after; /* close the queue after this many (0: never) */
};

static void *consume(void *arg) {
  struct consumer *c = arg;
  for (;;) {
    bool done = __atomic_load_n(&c->done, __ATOMIC_ACQUIRE);
    struct zvm_qset *got = zvm_setq_take(c->q, NULL, NULL);
    size_t n = 0;
    for (struct zvm_qset *s = got; s != NULL; s = s->next)
      n++;
    if (n > c->max_per_take)
      c->max_per_take = n;
    *c->tail = got;
    while (*c->tail != NULL)
      c->tail = &(*c->tail)->next;
    c->taken += n;
    if (c->close_after > 0 && c->taken >= c->close_after) {
      zvm_setq_close(c->q);
      return NULL;
    }
    if (done && got == NULL)
      return NULL;
    usleep(500);
  }
}

/* Run a replay of the patterns fast; returns the taken sets. */
static struct zvm_qset *run(const char *const *patterns, size_t n,
                            struct logs *l, struct zvm_reader_stats *rs,
                            struct zvm_replay_stats *st) {
  struct zvm_replay_config cfg = {.patterns = patterns,
                                  .npatterns = n,
                                  .speed = 0,
                                  .log = on_log,
                                  .log_ctx = l};
  char err[256];
  struct zvm_replay *rp = zvm_replay_create(&cfg, err, sizeof(err));
  assert_non_null(rp);
  struct consumer c = {.q = zvm_setq_create(1 << 20)};
  assert_non_null(c.q);
  c.tail = &c.head;
  assert_int_equal(pthread_create(&c.tid, NULL, consume, &c), 0);
  zvm_replay_run(rp, c.q);
  __atomic_store_n(&c.done, true, __ATOMIC_RELEASE);
  assert_int_equal(pthread_join(c.tid, NULL), 0);
  assert_true(c.max_per_take <= 1);
  struct zvm_reader_stats published;
  int status = -1;
  assert_null(zvm_setq_take(c.q, &published, &status));
  assert_int_equal(status, 0);
  zvm_replay_get_stats(rp, st, rs);
  /* what the read callback sees is what the replay counted, and the
   * queue's count of the sets it had no memory for */
  assert_int_equal(published.health.sets_dropped, st->dropped);
  rs->health.sets_dropped = st->dropped;
  assert_memory_equal(&published, rs, sizeof(published));
  zvm_setq_destroy(c.q);
  zvm_replay_destroy(rp);
  return c.head;
}

static void check_set(const struct zvm_qset *s, unsigned i) {
  assert_non_null(s);
  assert_int_equal(s->len, 100 + i);
  assert_int_equal(s->arrival_us, T0 + (uint64_t)i * 1000000u);
  for (size_t k = 0; k < s->len; k++)
    assert_int_equal(s->data[k], i);
}

static void sets_counters_and_order(void **state) {
  (void)state;
  write_capture("a.pcapng", 3, 0);
  char p[128];
  path_of(p, sizeof(p), "a.pcapng");
  const char *pats[] = {p};
  struct logs l = {0};
  struct zvm_reader_stats rs;
  struct zvm_replay_stats st;
  struct zvm_qset *sets = run(pats, 1, &l, &rs, &st);
  const struct zvm_qset *s = sets;
  for (unsigned i = 0; i < 3; i++, s = s->next)
    check_set(s, i);
  assert_null(s);
  assert_int_equal(rs.health.sets, 3);
  assert_int_equal(rs.health.bytes_read, 100 + 101 + 102 + 40);
  assert_int_equal(rs.health.eio, 1);
  assert_int_equal(rs.discarded, 1);
  assert_int_equal(st.passes, 1);
  assert_int_equal(st.events, 1);
  assert_int_equal(l.n, 1); /* the INFO line at the end */
  assert_int_equal(l.level[0], ZVM_LOG_INFO);
  zvm_qset_free(sets);
}

/* Rotated files by a glob, in name order, after a plain file. */
static void glob_in_order(void **state) {
  (void)state;
  write_capture("r-000001.pcapng", 2, 2);
  write_capture("r-000000.pcapng", 2, 0);
  write_capture("x.pcapng", 1, 4);
  char p1[128], p2[128];
  path_of(p1, sizeof(p1), "r-*.pcapng");
  path_of(p2, sizeof(p2), "x.pcapng");
  const char *pats[] = {p1, p2};
  struct logs l = {0};
  struct zvm_reader_stats rs;
  struct zvm_replay_stats st;
  struct zvm_qset *sets = run(pats, 2, &l, &rs, &st);
  const struct zvm_qset *s = sets;
  for (unsigned i = 0; i < 5; i++, s = s->next)
    check_set(s, i);
  assert_null(s);
  assert_int_equal(rs.health.eio, 3);
  zvm_qset_free(sets);
}

/* A file cut in the middle of its third set: the first two are replayed,
 * the error names the file and the offset; the next file still plays. */
static void damaged_file(void **state) {
  (void)state;
  off_t size = write_capture("d.pcapng", 3, 0);
  write_capture("e.pcapng", 1, 3);
  char p[128], p2[128];
  path_of(p, sizeof(p), "d.pcapng");
  path_of(p2, sizeof(p2), "e.pcapng");
  /* the last block: 12 + 20 + 104 (102 padded) bytes */
  off_t last = size - (12 + 20 + 104);
  assert_int_equal(truncate(p, size - 10), 0);
  const char *pats[] = {p, p2};
  struct logs l = {0};
  struct zvm_reader_stats rs;
  struct zvm_replay_stats st;
  struct zvm_qset *sets = run(pats, 2, &l, &rs, &st);
  const struct zvm_qset *s = sets;
  check_set(s, 0);
  check_set(s->next, 1);
  check_set(s->next->next, 3);
  assert_null(s->next->next->next);
  assert_int_equal(st.damaged, 1);
  assert_int_equal(l.level[0], ZVM_LOG_ERR);
  char want[64];
  snprintf(want, sizeof(want), "at offset %lld", (long long)last);
  assert_non_null(strstr(l.msg[0], p));
  assert_non_null(strstr(l.msg[0], want));
  assert_non_null(strstr(l.msg[0], "truncated"));
  zvm_qset_free(sets);
}

static void missing_file_is_a_config_error(void **state) {
  (void)state;
  char p[128], err[256] = "";
  path_of(p, sizeof(p), "nothing-*.pcapng");
  const char *pats[] = {p};
  struct zvm_replay_config cfg = {.patterns = pats, .npatterns = 1};
  assert_null(zvm_replay_create(&cfg, err, sizeof(err)));
  assert_non_null(strstr(err, "ReplayFile"));
  assert_non_null(strstr(err, "no such file"));
  cfg.npatterns = 0;
  assert_null(zvm_replay_create(&cfg, err, sizeof(err)));
}

/* What is no capture is refused when the replay is created, with one
 * line: a FIFO (whose open would block), a symbolic link, a directory. */
static void non_regular_is_a_config_error(void **state) {
  (void)state;
  char p[128], link[128], err[256];
  write_capture("real.pcapng", 1, 0);
  path_of(p, sizeof(p), "real.pcapng");
  path_of(link, sizeof(link), "link.pcapng");
  assert_int_equal(symlink(p, link), 0);
  path_of(p, sizeof(p), "fifo.pcapng");
  assert_int_equal(mkfifo(p, 0600), 0);
  path_of(p, sizeof(p), "dir.pcapng");
  assert_int_equal(mkdir(p, 0700), 0);
  static const struct {
    const char *name, *want;
  } bad[] = {
      {"fifo.pcapng", "fifo.pcapng\" is a FIFO, not a capture file (a "
                      "regular file written by zvm-monitor-capture)"},
      {"link.pcapng",
       "link.pcapng\" is a symbolic link: name the capture file itself"},
      {"dir.pcapng", "dir.pcapng\" is a directory, not a capture file"},
      {"*.pcapng", "dir.pcapng\" is a directory"}, /* the first in order */
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    path_of(p, sizeof(p), bad[i].name);
    const char *pats[] = {p};
    struct zvm_replay_config cfg = {.patterns = pats, .npatterns = 1};
    err[0] = '\0';
    assert_null(zvm_replay_create(&cfg, err, sizeof(err)));
    print_message("%s\n", err);
    assert_int_equal(strncmp(err, "ReplayFile \"", 12), 0);
    assert_non_null(strstr(err, bad[i].want));
    assert_null(strchr(err, '\n'));
  }
}

/* A file that became a FIFO after the configuration was checked: its open
 * does not block (nor the replay, nor the daemon's shutdown); it is
 * skipped with one line, and the next file plays. */
static void fifo_at_replay_time_skipped(void **state) {
  (void)state;
  write_capture("a.pcapng", 1, 0);
  write_capture("b.pcapng", 1, 1);
  char p[128], p2[128];
  path_of(p, sizeof(p), "a.pcapng");
  path_of(p2, sizeof(p2), "b.pcapng");
  const char *pats[] = {p, p2};
  struct logs l = {0};
  struct zvm_replay_config cfg = {.patterns = pats,
                                  .npatterns = 2,
                                  .speed = 0,
                                  .log = on_log,
                                  .log_ctx = &l};
  char err[256];
  struct zvm_replay *rp = zvm_replay_create(&cfg, err, sizeof(err));
  assert_non_null(rp);
  assert_int_equal(unlink(p), 0);
  assert_int_equal(mkfifo(p, 0600), 0);
  struct zvm_setq *q = zvm_setq_create(1 << 20);
  alarm(10); /* a blocking open would hang here: fail instead */
  zvm_replay_run(rp, q);
  alarm(0);
  struct zvm_replay_stats st;
  zvm_replay_get_stats(rp, &st, NULL);
  assert_int_equal(st.unreadable, 1);
  assert_int_equal(st.sets, 1);
  struct zvm_qset *sets = zvm_setq_take(q, NULL, NULL);
  check_set(sets, 1);
  assert_null(sets->next);
  zvm_qset_free(sets);
  assert_int_equal(l.level[0], ZVM_LOG_ERR);
  print_message("%s\n", l.msg[0]);
  assert_non_null(strstr(l.msg[0], "cannot replay the capture "));
  assert_non_null(strstr(l.msg[0], "a.pcapng: it is a FIFO, not a capture "
                                   "file"));
  zvm_setq_destroy(q);
  zvm_replay_destroy(rp);
}

/* A set the queue has no memory for is not delivered: the replay counts
 * it as dropped, not replayed, and the read callback's counters have it
 * in sets_dropped (and in sets: it was read). Logged once. */
static void dropped_set_counted(void **state) {
  (void)state;
  write_capture("a.pcapng", 3, 0);
  char p[128];
  path_of(p, sizeof(p), "a.pcapng");
  const char *pats[] = {p};
  struct logs l = {0};
  struct zvm_reader_stats rs;
  struct zvm_replay_stats st;
  malloc_fail_size = sizeof(struct zvm_qset) + 101; /* set 1 */
  struct zvm_qset *sets = run(pats, 1, &l, &rs, &st);
  malloc_fail_size = 0;
  check_set(sets, 0);
  check_set(sets->next, 2);
  assert_null(sets->next->next);
  assert_int_equal(st.sets, 2);
  assert_int_equal(st.dropped, 1);
  assert_int_equal(rs.health.sets, 3);
  assert_int_equal(rs.health.sets_dropped, 1);
  assert_int_equal(l.level[0], ZVM_LOG_ERR);
  assert_non_null(strstr(l.msg[0], "out of memory: a data set of 101 bytes "
                                   "from the capture "));
  assert_non_null(
      strstr(l.msg[0], "dropped (counted in total_objects-sets_dropped)"));
  zvm_qset_free(sets);
}

/* A fake clock: sleeping advances it. */
struct fake_clock {
  uint64_t now;
  uint64_t slept;
};

static uint64_t fc_now(void *ctx) { return ((struct fake_clock *)ctx)->now; }

static void fc_sleep(uint64_t us, void *ctx) {
  struct fake_clock *c = ctx;
  c->now += us;
  c->slept += us;
}

static void pacing(void **state) {
  (void)state;
  write_capture("p.pcapng", 4, 0); /* sets at 0, 1, 2, 3 s */
  char p[128];
  path_of(p, sizeof(p), "p.pcapng");
  const char *pats[] = {p};
  double speeds[] = {1.0, 2.0};
  uint64_t want[] = {3000000, 1500000};
  for (int k = 0; k < 2; k++) {
    struct fake_clock fc = {.now = 5000000};
    struct zvm_replay_clock clock = {fc_now, fc_sleep, &fc};
    struct zvm_replay_config cfg = {
        .patterns = pats, .npatterns = 1, .speed = speeds[k], .clock = &clock};
    char err[256];
    struct zvm_replay *rp = zvm_replay_create(&cfg, err, sizeof(err));
    assert_non_null(rp);
    struct zvm_setq *q = zvm_setq_create(1 << 20);
    zvm_replay_run(rp, q);
    /* the event at T0 + 1 us is paced too: within a microsecond */
    assert_true(fc.slept >= want[k] && fc.slept <= want[k] + 1);
    zvm_qset_free(zvm_setq_take(q, NULL, NULL));
    zvm_setq_destroy(q);
    zvm_replay_destroy(rp);
  }
}

/* The slowest pace and a recorded time 2^62 us after the first: the wait
 * is bounded (no out-of-range conversion), so the set waits until the
 * queue closes, and the replay then returns. */
/* A fake clock that closes close_q at the close_at-th sleep. */
static struct zvm_setq *close_q;
static unsigned close_sleeps, close_at;

static void close_after(uint64_t us, void *ctx) {
  fc_sleep(us, ctx);
  if (++close_sleeps == close_at)
    zvm_setq_close(close_q);
}

static void pacing_far_future(void **state) {
  (void)state;
  char p[128];
  path_of(p, sizeof(p), "far.pcapng");
  int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644), err = 0;
  assert_true(fd >= 0);
  struct zvm_cap_writer *w = zvm_cap_writer_start(fd, "t", "d", &err);
  assert_non_null(w);
  uint8_t set[100] = {0};
  assert_int_equal(zvm_cap_write_set(w, set, 100, T0), 0);
  assert_int_equal(zvm_cap_write_set(w, set, 100, T0 + (UINT64_C(1) << 62)), 0);
  zvm_cap_writer_free(w);
  close(fd);
  const char *pats[] = {p};
  struct fake_clock fc = {.now = 1};
  struct zvm_replay_clock clock = {fc_now, close_after, &fc};
  struct zvm_replay_config cfg = {.patterns = pats,
                                  .npatterns = 1,
                                  .speed = ZVM_REPLAY_SPEED_MIN,
                                  .clock = &clock};
  char e[256];
  struct zvm_replay *rp = zvm_replay_create(&cfg, e, sizeof(e));
  assert_non_null(rp);
  close_q = zvm_setq_create(1 << 20);
  close_sleeps = 0;
  close_at = 100;
  zvm_replay_run(rp, close_q);
  assert_int_equal(close_sleeps, 100);
  struct zvm_qset *sets = zvm_setq_take(close_q, NULL, NULL);
  assert_non_null(sets);
  assert_null(sets->next); /* the second set is still waiting */
  zvm_qset_free(sets);
  zvm_setq_destroy(close_q);
  zvm_replay_destroy(rp);
}

/* A loop ends when the queue is closed; later passes arrive later. */
static void loop_until_closed(void **state) {
  (void)state;
  write_capture("l.pcapng", 2, 0);
  char p[128];
  path_of(p, sizeof(p), "l.pcapng");
  const char *pats[] = {p};
  struct fake_clock fc = {.now = 1};
  struct zvm_replay_clock clock = {fc_now, close_after, &fc};
  struct zvm_replay_config cfg = {.patterns = pats,
                                  .npatterns = 1,
                                  .speed = 1.0,
                                  .loop = true,
                                  .clock = &clock};
  char err[256];
  struct zvm_replay *rp = zvm_replay_create(&cfg, err, sizeof(err));
  close_q = zvm_setq_create(1 << 20);
  close_sleeps = 0;
  close_at = 25; /* during pass 3 (11 sleeps a pass) */
  zvm_replay_run(rp, close_q);
  struct zvm_replay_stats st;
  zvm_replay_get_stats(rp, &st, NULL);
  assert_true(st.passes >= 2);
  struct zvm_qset *sets = zvm_setq_take(close_q, NULL, NULL);
  /* pass 2 is shifted by the span (1 s) plus 1 s: a second after pass 1 */
  assert_int_equal(sets->arrival_us, T0);
  assert_int_equal(sets->next->arrival_us, T0 + 1000000);
  assert_int_equal(sets->next->next->arrival_us, T0 + 2000000);
  zvm_qset_free(sets);
  zvm_setq_destroy(close_q);
  zvm_replay_destroy(rp);
}

/* "fast" in a loop: pass 2 arrives the capture's span plus a second
 * after pass 1 began, not at some far-off time. */
static void loop_fast_shift(void **state) {
  (void)state;
  write_capture("f.pcapng", 2, 0); /* sets at T0, T0 + 1 s */
  char p[128];
  path_of(p, sizeof(p), "f.pcapng");
  const char *pats[] = {p};
  struct zvm_replay_config cfg = {
      .patterns = pats, .npatterns = 1, .speed = 0, .loop = true};
  char err[256];
  struct zvm_replay *rp = zvm_replay_create(&cfg, err, sizeof(err));
  assert_non_null(rp);
  struct consumer c = {.q = zvm_setq_create(1 << 20), .close_after = 5};
  c.tail = &c.head;
  assert_int_equal(pthread_create(&c.tid, NULL, consume, &c), 0);
  zvm_replay_run(rp, c.q);
  assert_int_equal(pthread_join(c.tid, NULL), 0);
  const struct zvm_qset *s = c.head;
  uint64_t want[] = {T0, T0 + 1000000, T0 + 2000000, T0 + 3000000,
                     T0 + 4000000};
  for (int i = 0; i < 5; i++, s = s->next) {
    assert_non_null(s);
    assert_int_equal(s->arrival_us, want[i]);
  }
  zvm_qset_free(c.head);
  zvm_setq_destroy(c.q);
  zvm_replay_destroy(rp);
}

static void options(void **state) {
  (void)state;
  struct zvm_replay_options o;
  char err[256];
  zvm_replay_options_init(&o);
  assert_true(o.speed == 1.0);
  assert_true(zvm_replay_option_is("replayfile"));
  assert_true(zvm_replay_option_is("ReplaySpeed"));
  assert_true(zvm_replay_option_is("REPLAYLOOP"));
  assert_false(zvm_replay_option_is("Replay"));
  assert_int_equal(zvm_replay_option_string(&o, "ReplayFile", "/a", err, 256),
                   0);
  assert_int_equal(zvm_replay_option_string(&o, "ReplayFile", "/b*", err, 256),
                   0);
  assert_int_equal(o.npatterns, 2);
  assert_string_equal(o.patterns[1], "/b*");
  assert_int_equal(zvm_replay_option_string(&o, "ReplayFile", "", err, 256),
                   -1);
  assert_int_equal(
      zvm_replay_option_string(&o, "ReplaySpeed", "fast", err, 256), 0);
  assert_true(o.speed == 0);
  assert_int_equal(
      zvm_replay_option_string(&o, "ReplaySpeed", "Recorded", err, 256), 0);
  assert_true(o.speed == 1.0);
  assert_int_equal(
      zvm_replay_option_string(&o, "ReplaySpeed", "slow", err, 256), -1);
  assert_non_null(strstr(err, "ReplaySpeed \"slow\""));
  assert_int_equal(zvm_replay_option_number(&o, "ReplaySpeed", 10, err, 256),
                   0);
  assert_true(o.speed == 10);
  assert_int_equal(zvm_replay_option_number(&o, "ReplaySpeed", 0, err, 256),
                   -1);
  /* A lower bound keeps the pacing arithmetic defined. */
  assert_int_equal(
      zvm_replay_option_number(&o, "ReplaySpeed", 1e-300, err, 256), -1);
  assert_string_equal(err, "ReplaySpeed 1e-300: a factor from 0.001 (a "
                           "thousand times slower) to 1e+09 is required (or "
                           "\"fast\")");
  assert_int_equal(
      zvm_replay_option_number(&o, "ReplaySpeed", 0.0009, err, 256), -1);
  assert_int_equal(zvm_replay_option_number(&o, "ReplaySpeed", 0.001, err, 256),
                   0);
  assert_true(o.speed == 0.001);
  assert_int_equal(zvm_replay_option_number(&o, "ReplaySpeed", 1e9, err, 256),
                   0);
  assert_int_equal(zvm_replay_option_number(&o, "ReplaySpeed", 1.1e9, err, 256),
                   -1);
  /* The library refuses the same when called without the options. */
  const char *pats[] = {"/nonexistent"};
  struct zvm_replay_config cfg = {
      .patterns = pats, .npatterns = 1, .speed = 1e-300};
  assert_null(zvm_replay_create(&cfg, err, 256));
  assert_non_null(strstr(err, "ReplaySpeed 1e-300: a factor from 0.001"));
  assert_int_equal(zvm_replay_option_number(&o, "ReplaySpeed", -1, err, 256),
                   -1);
  assert_int_equal(zvm_replay_option_number(&o, "ReplayFile", 1, err, 256), -1);
  assert_int_equal(zvm_replay_option_boolean(&o, "ReplayLoop", true, err, 256),
                   0);
  assert_true(o.loop);
  assert_int_equal(zvm_replay_option_boolean(&o, "ReplaySpeed", true, err, 256),
                   -1);
  assert_int_equal(zvm_replay_option_string(&o, "ReplayLoop", "x", err, 256),
                   -1);
  zvm_replay_options_free(&o);
  assert_int_equal(o.npatterns, 0);
}

/* Counters from every event type, as the reader counts them. */
static void event_counting(void **state) {
  (void)state;
  struct zvm_reader_stats rs = {0};
  for (unsigned t = ZVM_READER_EV_OPEN; t <= ZVM_READER_EV_MAX; t++) {
    struct zvm_reader_event ev = {.type = (enum zvm_reader_event_type)t,
                                  .err = t == ZVM_READER_EV_OPEN_ERROR ? EBUSY
                                                                       : 0};
    zvm_replay_count_event(&rs, &ev);
    if (t == ZVM_READER_EV_REOPEN)
      assert_int_equal(rs.open, 1); /* the device state, as the reader's */
  }
  struct zvm_reader_event ev = {
      .type = ZVM_READER_EV_SEVER, .set_discarded = true, .discarded_bytes = 7};
  zvm_replay_count_event(&rs, &ev);
  assert_int_equal(rs.reopens, 1);
  assert_int_equal(rs.health.open_errors, 1);
  assert_int_equal(rs.health.eoverflow, 1);
  assert_int_equal(rs.health.eio, 1);
  assert_int_equal(rs.health.efault, 1);
  assert_int_equal(rs.health.oversize, 1);
  assert_int_equal(rs.health.sets, 1);
  assert_int_equal(rs.discarded, 1);
  assert_int_equal(rs.health.bytes_read, 7);
  assert_int_equal(rs.faults, 2);
  assert_int_equal(rs.open, 0);
  assert_int_equal(rs.open_errno, EBUSY);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(sets_counters_and_order, setup, teardown),
      cmocka_unit_test_setup_teardown(glob_in_order, setup, teardown),
      cmocka_unit_test_setup_teardown(damaged_file, setup, teardown),
      cmocka_unit_test_setup_teardown(missing_file_is_a_config_error, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(non_regular_is_a_config_error, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(fifo_at_replay_time_skipped, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(dropped_set_counted, setup, teardown),
      cmocka_unit_test_setup_teardown(pacing, setup, teardown),
      cmocka_unit_test_setup_teardown(pacing_far_future, setup, teardown),
      cmocka_unit_test_setup_teardown(loop_until_closed, setup, teardown),
      cmocka_unit_test_setup_teardown(loop_fast_shift, setup, teardown),
      cmocka_unit_test(options),
      cmocka_unit_test(event_counting),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
