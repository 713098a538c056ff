/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - replay of capture files into the set queue (replay.h).
 */
#include "zvm_monitor/replay.h"

#include "base/option.h"
#include "base/util.h"
#include "zvm_monitor/capture.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SLICE_US UINT64_C(100000) /* pacing sleeps: a closed queue is seen */
/* The longest pacing wait (2^62 us, 146,000 years): keeps the arithmetic in
 * range whatever the recorded times. */
#define MAX_WAIT_US (UINT64_C(1) << 62)
/* "fast": how often to look whether the read callback took the last set */
#define TAKEN_POLL_US UINT64_C(2000)
#define DEFAULT_MAX_SET ((size_t)64 * 1024 * 1024)
#define MSG_MAX 512

struct zvm_replay {
  char **files;
  size_t nfiles, cap_files;
  double speed;
  bool loop;
  size_t max_set;
  zvm_reader_log_fn log;
  void *log_ctx;
  struct zvm_replay_clock clock;

  struct zvm_reader_stats rs;
  struct zvm_replay_stats st;
  bool *reported;    /* per file: damage or open failure logged once */
  bool nomem_logged; /* a set dropped for want of memory was logged */
  uint64_t shift_us; /* added to recorded times from the 2nd pass on */
};

static uint64_t real_now_us(void *ctx) {
  struct timespec ts;
  (void)ctx;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void real_sleep_us(uint64_t us, void *ctx) {
  (void)ctx;
  struct timespec ts = {.tv_sec = (time_t)(us / 1000000u),
                        .tv_nsec = (long)(us % 1000000u) * 1000L};
  (void)nanosleep(&ts, NULL);
}

__attribute__((format(printf, 3, 4))) static void
say(const struct zvm_replay *rp, enum zvm_log_level level, const char *fmt,
    ...) {
  char msg[MSG_MAX];
  va_list ap;
  if (rp->log == NULL)
    return;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  rp->log(level, msg, rp->log_ctx);
}

static bool add_file(struct zvm_replay *rp, const char *path) {
  if (!zvm_grow(&rp->files, &rp->cap_files, rp->nfiles, sizeof(*rp->files), 4))
    return false;
  rp->files[rp->nfiles] = strdup(path);
  if (rp->files[rp->nfiles] == NULL)
    return false;
  rp->nfiles++;
  return true;
}

struct zvm_replay *zvm_replay_create(const struct zvm_replay_config *cfg,
                                     char *err, size_t err_size) {
  if (cfg == NULL || cfg->npatterns == 0) {
    snprintf(err, err_size, "ReplayFile: no file given");
    return NULL;
  }
  if (!(cfg->speed == 0 || (cfg->speed >= ZVM_REPLAY_SPEED_MIN &&
                            cfg->speed <= ZVM_REPLAY_SPEED_MAX))) {
    snprintf(err, err_size,
             "ReplaySpeed %g: a factor from %g to %g is "
             "required (or 0: \"fast\")",
             cfg->speed, ZVM_REPLAY_SPEED_MIN, ZVM_REPLAY_SPEED_MAX);
    return NULL;
  }
  struct zvm_replay *rp = calloc(1, sizeof(*rp));
  if (rp == NULL) {
    snprintf(err, err_size, "out of memory");
    return NULL;
  }
  rp->speed = cfg->speed;
  rp->loop = cfg->loop;
  rp->max_set = cfg->max_set_size > 0 ? cfg->max_set_size : DEFAULT_MAX_SET;
  rp->log = cfg->log;
  rp->log_ctx = cfg->log_ctx;
  if (cfg->clock != NULL)
    rp->clock = *cfg->clock;
  else
    rp->clock = (struct zvm_replay_clock){real_now_us, real_sleep_us, NULL};

  for (size_t i = 0; i < cfg->npatterns; i++) {
    glob_t g;
    int rc = glob(cfg->patterns[i], 0, NULL, &g);
    if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
      if (rc == 0)
        globfree(&g);
      snprintf(err, err_size,
               "ReplayFile \"%s\": no such file (a capture written by "
               "zvm-monitor-capture is expected)",
               cfg->patterns[i]);
      zvm_replay_destroy(rp);
      return NULL;
    }
    if (rc != 0) {
      snprintf(err, err_size, "ReplayFile \"%s\": cannot list the files (%s)",
               cfg->patterns[i],
               rc == GLOB_NOSPACE ? "out of memory" : "read error");
      zvm_replay_destroy(rp);
      return NULL;
    }
    for (size_t k = 0; k < g.gl_pathc; k++) {
      /* Something that is no capture at all is a configuration error
       * (lstat: nothing is opened; each open checks again). */
      struct stat st;
      if (lstat(g.gl_pathv[k], &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, err_size,
                 S_ISLNK(st.st_mode)
                     ? "ReplayFile \"%s\" is a symbolic link: name the "
                       "capture file itself"
                     : "ReplayFile \"%s\" is %s, not a capture file (a "
                       "regular file written by zvm-monitor-capture)",
                 g.gl_pathv[k], zvm_file_kind(st.st_mode));
        globfree(&g);
        zvm_replay_destroy(rp);
        return NULL;
      }
      if (!add_file(rp, g.gl_pathv[k])) {
        globfree(&g);
        snprintf(err, err_size, "out of memory");
        zvm_replay_destroy(rp);
        return NULL;
      }
    }
    globfree(&g);
  }
  rp->reported = calloc(rp->nfiles, sizeof(*rp->reported));
  if (rp->reported == NULL) {
    snprintf(err, err_size, "out of memory");
    zvm_replay_destroy(rp);
    return NULL;
  }
  return rp;
}

void zvm_replay_destroy(struct zvm_replay *rp) {
  if (rp == NULL)
    return;
  for (size_t i = 0; i < rp->nfiles; i++)
    free(rp->files[i]);
  free(rp->files);
  free(rp->reported);
  free(rp);
}

size_t zvm_replay_files(const struct zvm_replay *rp, const char *const **out) {
  *out = (const char *const *)rp->files;
  return rp->nfiles;
}

void zvm_replay_get_stats(const struct zvm_replay *rp,
                          struct zvm_replay_stats *out,
                          struct zvm_reader_stats *reader) {
  if (out != NULL)
    *out = rp->st;
  if (reader != NULL)
    *reader = rp->rs;
}

void zvm_replay_count_event(struct zvm_reader_stats *rs,
                            const struct zvm_reader_event *ev) {
  switch (ev->type) {
  case ZVM_READER_EV_OPEN:
    rs->open = 1;
    break;
  case ZVM_READER_EV_REOPEN:
    rs->reopens++;
    rs->open = 1;
    break;
  case ZVM_READER_EV_OPEN_ERROR:
    rs->health.open_errors++;
    rs->open_errno = ev->err;
    break;
  case ZVM_READER_EV_SEVER:
    rs->faults++;
    rs->open = 0;
    if (ev->err == EPROTO) /* a stream episode (reader.c) */
      rs->health.stream_errors++;
    break;
  case ZVM_READER_EV_EOVERFLOW:
    rs->health.eoverflow++;
    break;
  case ZVM_READER_EV_EIO:
    rs->health.eio++;
    break;
  case ZVM_READER_EV_EFAULT:
    rs->health.efault++;
    break;
  case ZVM_READER_EV_OVERSIZE:
    rs->health.sets++;
    rs->health.oversize++;
    break;
  default:
    break;
  }
  if (ev->set_discarded) {
    rs->discarded++;
    rs->health.bytes_read += ev->discarded_bytes;
  }
}

/* Wait until the recorded time t (shifted) is due at the configured pace.
 * false if the queue was closed meanwhile. */
struct pace {
  bool started;
  uint64_t first_rec_us; /* recorded time of the first item */
  uint64_t first_mono_us;
};

static bool pace_wait(struct zvm_replay *rp, struct pace *p, uint64_t rec_us,
                      struct zvm_setq *q) {
  if (rp->speed <= 0)
    return !zvm_setq_is_closed(q);
  uint64_t now = rp->clock.now_us(rp->clock.ctx);
  if (!p->started) {
    p->started = true;
    p->first_rec_us = rec_us;
    p->first_mono_us = now;
    return !zvm_setq_is_closed(q);
  }
  /* Out-of-order times (a merged capture) are not waited for. The wait is
   * computed in double and bounded before it becomes an integer (a
   * conversion out of range is undefined): a recorded time that far
   * ahead is waited for until the queue closes. */
  uint64_t rel = rec_us > p->first_rec_us ? rec_us - p->first_rec_us : 0;
  double wait = (double)rel / rp->speed;
  uint64_t wait_us = wait < (double)MAX_WAIT_US ? (uint64_t)wait : MAX_WAIT_US;
  uint64_t due = p->first_mono_us + wait_us;
  while (!zvm_setq_is_closed(q)) {
    now = rp->clock.now_us(rp->clock.ctx);
    if (now >= due)
      return true;
    uint64_t left = due - now;
    rp->clock.sleep_us(left < SLICE_US ? left : SLICE_US, rp->clock.ctx);
  }
  return false;
}

/* "fast": hand over a set only when the read callback has taken the one
 * before, so that every set is a read callback of its own (an identifier
 * is dispatched at most once per read callback: values of one identifier
 * dispatched together would reach collectd's write threads together, which
 * may write them out of order). false if the queue was closed. */
static bool wait_taken(struct zvm_replay *rp, struct zvm_setq *q) {
  struct zvm_setq_stats qs;
  for (;;) {
    if (zvm_setq_is_closed(q))
      return false;
    zvm_setq_get_stats(q, &qs);
    if (qs.sets == 0)
      return true;
    rp->clock.sleep_us(TAKEN_POLL_US, rp->clock.ctx);
  }
}

/* The recorded times a pass covers (a loop shifts the next pass by it). */
struct span {
  bool seen;
  uint64_t first_us, last_us;
};

/* One file; false if the queue was closed. */
static bool replay_file(struct zvm_replay *rp, size_t idx, struct zvm_setq *q,
                        struct pace *p, struct span *span) {
  const char *path = rp->files[idx];
  char why[160];
  int fd = zvm_cap_open(path, why, sizeof(why));
  if (fd < 0) {
    rp->st.unreadable++;
    if (!rp->reported[idx])
      say(rp, ZVM_LOG_ERR, "cannot replay the capture %s: it %s: skipped", path,
          why);
    rp->reported[idx] = true;
    return !zvm_setq_is_closed(q);
  }
  /* A set and its EPB framing; a larger block is damage. */
  struct zvm_cap_reader *cr = zvm_cap_reader_fd(fd, rp->max_set + 4096);
  if (cr == NULL) {
    close(fd);
    say(rp, ZVM_LOG_ERR, "out of memory reading the capture %s", path);
    return !zvm_setq_is_closed(q);
  }
  bool open_q = true;
  struct zvm_cap_item it;
  enum zvm_cap_kind k;
  while ((k = zvm_cap_next(cr, &it)) == ZVM_CAP_SET || k == ZVM_CAP_EVENT) {
    uint64_t t = it.time_us + rp->shift_us;
    if (!pace_wait(rp, p, it.time_us, q)) {
      open_q = false;
      break;
    }
    if (!span->seen || it.time_us < span->first_us)
      span->first_us = it.time_us;
    if (!span->seen || it.time_us > span->last_us)
      span->last_us = it.time_us;
    span->seen = true;
    if (k == ZVM_CAP_EVENT) {
      zvm_replay_count_event(&rp->rs, &it.event);
      rp->st.events++;
      zvm_setq_publish(q, &rp->rs, 0);
      continue;
    }
    if (it.len > rp->max_set) {
      /* As the reader: a set, discarded as oversize. */
      rp->rs.health.sets++;
      rp->rs.health.oversize++;
      rp->rs.health.bytes_read += it.len;
      zvm_setq_publish(q, &rp->rs, 0);
      continue;
    }
    if (rp->speed <= 0 && !wait_taken(rp, q)) {
      open_q = false;
      break;
    }
    rp->rs.health.sets++;
    rp->rs.health.bytes_read += it.len;
    enum zvm_setq_push_status s =
        zvm_setq_push_at(q, it.data, it.len, t, &rp->rs);
    if (s == ZVM_SETQ_CLOSED) {
      open_q = false;
      break;
    }
    if (s == ZVM_SETQ_NOMEM) {
      /* Not delivered: counted by the queue (sets_dropped), logged once
       * per episode (until a set is queued again). */
      if (!rp->nomem_logged)
        say(rp, ZVM_LOG_ERR,
            "out of memory: a data set of %zu bytes from the capture %s was "
            "dropped (counted in total_objects-sets_dropped)",
            it.len, path);
      rp->nomem_logged = true;
      rp->st.dropped++;
      continue;
    }
    rp->nomem_logged = false;
    rp->st.sets++;
  }
  if (k == ZVM_CAP_ERROR) {
    rp->st.damaged++;
    if (!rp->reported[idx])
      say(rp, ZVM_LOG_ERR,
          "the capture %s is damaged at offset %" PRIu64 ": %s; the %" PRIu64
          " data sets before it were replayed, the rest of the file is "
          "skipped",
          path, zvm_cap_reader_error_offset(cr), zvm_cap_reader_error(cr),
          zvm_cap_reader_get_stats(cr)->sets);
    rp->reported[idx] = true;
  }
  zvm_cap_reader_free(cr);
  close(fd);
  return open_q;
}

void zvm_replay_run(struct zvm_replay *rp, struct zvm_setq *q) {
  struct span span = {.seen = false};
  zvm_setq_publish(q, &rp->rs, 0);
  do {
    struct pace p = {.started = false};
    for (size_t i = 0; i < rp->nfiles; i++) {
      if (!replay_file(rp, i, q, &p, &span))
        return;
    }
    rp->st.passes++;
    /* The next pass comes later: its arrival times move by the span of
     * the capture plus a second, so passes do not meet. */
    rp->shift_us += (span.seen ? span.last_us - span.first_us : 0) + 1000000u;
    if (rp->st.passes == 1)
      say(rp, ZVM_LOG_INFO,
          "replayed %zu capture file(s): %" PRIu64 " data sets, %" PRIu64
          " events%s",
          rp->nfiles, rp->st.sets, rp->st.events,
          rp->loop ? "; starting again (ReplayLoop)" : "");
    zvm_setq_publish(q, &rp->rs, 0);
    if (rp->loop && rp->st.sets == 0) {
      /* Nothing to replay: do not spin. */
      while (!zvm_setq_is_closed(q))
        rp->clock.sleep_us(SLICE_US, rp->clock.ctx);
    }
  } while (rp->loop && !zvm_setq_is_closed(q));
}

/* ---- options ------------------------------------------------------------ */

void zvm_replay_options_init(struct zvm_replay_options *o) {
  *o = (struct zvm_replay_options){.speed = 1.0};
}

void zvm_replay_options_free(struct zvm_replay_options *o) {
  if (o == NULL)
    return;
  for (size_t i = 0; i < o->npatterns; i++)
    free(o->patterns[i]);
  free(o->patterns);
  zvm_replay_options_init(o);
}

/* The replay options' table (option.h): one row per option. */
static int opt_replay_file(void *t, const struct zvm_option *opt,
                           const struct zvm_option_value *v, char *err,
                           size_t err_size) {
  (void)opt;
  struct zvm_replay_options *o = t;
  if (v->string[0] == '\0')
    return zvm_format_error(err, err_size,
                            "ReplayFile: a file name is required");
  if (!zvm_grow(&o->patterns, &o->cap_patterns, o->npatterns,
                sizeof(*o->patterns), 4))
    return zvm_format_error(err, err_size, "ReplayFile: out of memory");
  o->patterns[o->npatterns] = strdup(v->string);
  if (o->patterns[o->npatterns] == NULL)
    return zvm_format_error(err, err_size, "ReplayFile: out of memory");
  o->npatterns++;
  return 0;
}

static int opt_replay_speed(void *t, const struct zvm_option *opt,
                            const struct zvm_option_value *v, char *err,
                            size_t err_size) {
  (void)opt;
  struct zvm_replay_options *o = t;
  if (v->type == ZVM_OPTION_NUMBER) {
    if (!(v->number >= ZVM_REPLAY_SPEED_MIN) ||
        v->number > ZVM_REPLAY_SPEED_MAX)
      return zvm_format_error(err, err_size,
                              "ReplaySpeed %g: a factor from %g (a thousand "
                              "times slower) to %g is required (or \"fast\")",
                              v->number, ZVM_REPLAY_SPEED_MIN,
                              ZVM_REPLAY_SPEED_MAX);
    o->speed = v->number;
    return 0;
  }
  if (strcasecmp(v->string, "recorded") == 0) {
    o->speed = 1.0;
    return 0;
  }
  if (strcasecmp(v->string, "fast") == 0) {
    o->speed = 0;
    return 0;
  }
  return zvm_format_error(err, err_size,
                          "ReplaySpeed \"%s\": use \"recorded\", \"fast\" or a "
                          "factor from %g to %g (2: twice the recorded pace)",
                          v->string, ZVM_REPLAY_SPEED_MIN,
                          ZVM_REPLAY_SPEED_MAX);
}

static int opt_replay_loop(void *t, const struct zvm_option *opt,
                           const struct zvm_option_value *v, char *err,
                           size_t err_size) {
  (void)opt;
  (void)err;
  (void)err_size;
  ((struct zvm_replay_options *)t)->loop = v->boolean;
  return 0;
}

static const struct zvm_option replay_options[] = {
    {"ReplayFile", ZVM_OPTION_STRING, opt_replay_file, 0, NULL},
    {"ReplaySpeed", ZVM_OPTION_STRING_OR_NUMBER, opt_replay_speed, 0, NULL},
    {"ReplayLoop", ZVM_OPTION_BOOLEAN, opt_replay_loop, 0, NULL},
};
#define NREPLAY_OPTIONS (sizeof(replay_options) / sizeof(replay_options[0]))

const struct zvm_option *zvm_replay_options_table(size_t *n) {
  *n = NREPLAY_OPTIONS;
  return replay_options;
}

bool zvm_replay_option_is(const char *key) {
  return zvm_option_find(replay_options, NREPLAY_OPTIONS, key) != NULL;
}
