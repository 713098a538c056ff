/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - replay of capture files (zvm_monitor/capture.h) into the
 * set queue, instead of the device: the sets enter where the reader's do
 * (zvm_setq_push_at() with the recorded arrival time), so they take the
 * same decode path and counters.
 *
 * The reader counters are rebuilt from the capture: sets and bytes from the
 * sets; eoverflow, eio, efault, open_errors, reopens, oversize, discarded
 * (and the bytes of discarded partial sets) from the recorded events.
 * Bytes the reader read but never kept (the tail of a message cut by
 * EFAULT, an oversize set) are not in a capture and not counted.
 *
 * A set the queue has no memory for is dropped and counted (the queue
 * gives it to the read callback as sets_dropped; replay stats' dropped).
 *
 * A damaged file (truncated, corrupted) is logged once with its name and
 * the offset where the damage starts; every set before it was replayed,
 * and the replay goes on with the next file. No collectd here.
 */
#ifndef ZVM_MONITOR_REPLAY_H
#define ZVM_MONITOR_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/reader.h"
#include "zvm_monitor/setqueue.h"

/* The slowest pace (a factor): a recorded second then takes about 17
 * minutes; slower is refused (ReplaySpeed). */
#define ZVM_REPLAY_SPEED_MIN 0.001
/* The fastest factor accepted (faster is "fast" in all but name). */
#define ZVM_REPLAY_SPEED_MAX 1e9

struct zvm_replay_clock {
  uint64_t (*now_us)(void *ctx);            /* monotonic microseconds */
  void (*sleep_us)(uint64_t us, void *ctx); /* may return early */
  void *ctx;
};

struct zvm_replay_config {
  const char *const *patterns; /* files or glob(3) patterns, in order */
  size_t npatterns;
  double speed;        /* 0: as fast as the read callback takes them, one
                          set per take (each set a read callback of its
                          own); 1: the recorded pace; N: N times faster
                          (ZVM_REPLAY_SPEED_MIN <= N) */
  bool loop;           /* start again after the last file, for ever */
  size_t max_set_size; /* larger sets are refused like the reader's (0:
                          64 MiB) */
  zvm_reader_log_fn log;
  void *log_ctx;
  const struct zvm_replay_clock *clock; /* NULL: the real clocks */
};

struct zvm_replay;

/* Expands the patterns (each must match at least one file, and no match
 * may be other than a regular file, nor a symbolic link; matches of one
 * pattern in sorted order). NULL with a one-line reason in err. */
struct zvm_replay *zvm_replay_create(const struct zvm_replay_config *cfg,
                                     char *err, size_t err_size);
void zvm_replay_destroy(struct zvm_replay *rp);

/* Replay every file (again and again with loop) into q, publishing the
 * rebuilt counters with each set and after each event. Returns when done,
 * or soon (at most 100 ms of pacing) after q is closed. */
void zvm_replay_run(struct zvm_replay *rp, struct zvm_setq *q);

/* The files the patterns matched, in replay order. */
size_t zvm_replay_files(const struct zvm_replay *rp, const char *const **out);

struct zvm_replay_stats {
  uint64_t passes;     /* complete passes over all files */
  uint64_t sets;       /* sets queued */
  uint64_t dropped;    /* sets the queue had no memory for */
  uint64_t events;     /* events applied */
  uint64_t damaged;    /* files that ended in damage */
  uint64_t unreadable; /* files that could not be opened */
};
void zvm_replay_get_stats(const struct zvm_replay *rp,
                          struct zvm_replay_stats *out,
                          struct zvm_reader_stats *reader);

/* Apply one recorded event to rebuilt reader counters. */
void zvm_replay_count_event(struct zvm_reader_stats *rs,
                            const struct zvm_reader_event *ev);

/* ---- the plugin's options (ReplayFile, ReplaySpeed, ReplayLoop) --------
 * Kept here, not in conf.h: they only matter to the replay. Names are
 * matched case-insensitively; errors name the option. */
struct zvm_replay_options {
  char **patterns; /* ReplayFile, one per line, in order */
  size_t npatterns, cap_patterns;
  double speed; /* ReplaySpeed: "recorded" 1 (default), "fast" 0, or N */
  bool loop;    /* ReplayLoop */
};

void zvm_replay_options_init(struct zvm_replay_options *o);
void zvm_replay_options_free(struct zvm_replay_options *o);
/* The replay options' table (option.h). */
struct zvm_option;
const struct zvm_option *zvm_replay_options_table(size_t *n);
/* Whether key is one of the replay options. */
bool zvm_replay_option_is(const char *key);
#endif /* ZVM_MONITOR_REPLAY_H */
