/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the hand-over of complete data sets from the reader thread
 * (one producer) to the read callback (one consumer): a FIFO protected by a
 * mutex, bounded in bytes. No collectd, no device I/O.
 *
 * The producer copies each set in with zvm_setq_push(). When the queue is
 * full the push waits for room (back-pressure): the reader thread stops
 * reading, the device keeps what z/VM sends until the driver's message
 * limit (255) is reached, and what is lost after that is counted where it
 * always is, as EOVERFLOW by the reader. The queue never grows beyond its
 * bound: at most max_bytes (sets plus ZVM_SETQ_OVERHEAD each) are held,
 * except that a single set larger than max_bytes is let into an empty
 * queue (the reader's MaxSetSize bounds it). Waits are counted and the
 * caller is told, so it can log them.
 *
 * The consumer takes everything queued at once with zvm_setq_take(), in
 * arrival order, together with the latest reader counters the producer
 * published: the counters always include every set taken. A set the queue
 * has no memory to copy is dropped (ZVM_SETQ_NOMEM) and counted in those
 * counters' sets_dropped.
 *
 * zvm_setq_close() ends the hand-over: a waiting push returns at once, and
 * later pushes queue nothing. Sets already queued stay until taken or
 * destroyed.
 */
#ifndef ZVM_MONITOR_SETQUEUE_H
#define ZVM_MONITOR_SETQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/reader.h"

/* One queued set; a taken list is linked through next, oldest first. */
struct zvm_qset {
  struct zvm_qset *next;
  uint64_t arrival_us; /* when the set was complete: its 0-byte read (or, in
                          a replay, the recorded time); microseconds since
                          the Unix epoch */
  size_t len;
  uint8_t data[];
};

/* Bytes a queued set costs besides its data (counted against the bound). */
#define ZVM_SETQ_OVERHEAD (sizeof(struct zvm_qset) + 16)

struct zvm_setq_stats {
  uint64_t queued;     /* sets queued since creation */
  uint64_t full_waits; /* pushes that had to wait for room */
  uint64_t dropped;    /* sets not queued: closed, or out of memory */
  uint64_t nomem;      /* of those, out of memory (the rest: closed) */
  size_t bytes;        /* held now (data + overhead, incl. reservations) */
  size_t peak_bytes;   /* the most ever held */
  size_t sets;         /* sets held now */
};

struct zvm_setq;

/* max_bytes: the bound (see above). NULL if out of memory. */
struct zvm_setq *zvm_setq_create(size_t max_bytes);
/* Frees the queue and every set still in it. No thread may use it. */
void zvm_setq_destroy(struct zvm_setq *q);

enum zvm_setq_push_status {
  ZVM_SETQ_QUEUED = 0,  /* queued at once */
  ZVM_SETQ_WAITED = 1,  /* queued after waiting for room */
  ZVM_SETQ_CLOSED = -1, /* not queued: the queue is closed */
  ZVM_SETQ_NOMEM = -2,  /* not queued: no memory for the copy */
};

/* Copy a complete set into the queue, waiting while it is full. rs (may be
 * NULL) is published with it, atomically, as by zvm_setq_publish(). Its
 * arrival time is the wall clock (CLOCK_REALTIME) at the call. */
enum zvm_setq_push_status zvm_setq_push(struct zvm_setq *q, const uint8_t *set,
                                        size_t len,
                                        const struct zvm_reader_stats *rs);
/* The same with an arrival time given by the caller (a replayed set). */
enum zvm_setq_push_status zvm_setq_push_at(struct zvm_setq *q,
                                           const uint8_t *set, size_t len,
                                           uint64_t arrival_us,
                                           const struct zvm_reader_stats *rs);

/* Publish the reader's counters and the status of its last drain (0 or
 * the -1 of zvm_reader_drain()) for the next take. */
void zvm_setq_publish(struct zvm_setq *q, const struct zvm_reader_stats *rs,
                      int reader_status);

/* Wait until zvm_setq_publish() was called at least once (the producer's
 * first drain has ended), the queue is closed, or timeout_ms passed. True
 * if published. For the first read callback after start-up, so that it
 * sees the first attempt to open the device and what was ready then. */
bool zvm_setq_wait_published(struct zvm_setq *q, unsigned timeout_ms);

/* Take every queued set (oldest first; NULL if none) and, if not NULL, the
 * latest published counters and status; their sets_dropped is the queue's
 * own count of sets it could not take for want of memory (stats.nomem),
 * which the producer cannot know. Wakes a waiting push. The caller frees
 * the list with zvm_qset_free(). */
struct zvm_qset *zvm_setq_take(struct zvm_setq *q, struct zvm_reader_stats *rs,
                               int *reader_status);
void zvm_qset_free(struct zvm_qset *list);

void zvm_setq_close(struct zvm_setq *q);
bool zvm_setq_is_closed(struct zvm_setq *q);

void zvm_setq_get_stats(struct zvm_setq *q, struct zvm_setq_stats *out);

#endif /* ZVM_MONITOR_SETQUEUE_H */
