/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - bounded hand-over of data sets from the reader thread to
 * the read callback (see setqueue.h). pthreads only; no collectd.
 */
#include "zvm_monitor/setqueue.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct zvm_setq {
  pthread_mutex_t lock;
  pthread_cond_t room; /* signalled when sets are taken or on close */
  pthread_cond_t published_cond;
  bool published;
  size_t max_bytes;
  struct zvm_qset *head, *tail;
  size_t held;     /* bytes of the queued sets (data + overhead) */
  size_t reserved; /* bytes of a push copying outside the lock */
  bool closed;
  struct zvm_reader_stats rs;
  int reader_status;
  struct zvm_setq_stats stats;
};

struct zvm_setq *zvm_setq_create(size_t max_bytes) {
  struct zvm_setq *q = calloc(1, sizeof(*q));
  if (q == NULL)
    return NULL;
  if (pthread_mutex_init(&q->lock, NULL) != 0) {
    free(q);
    return NULL;
  }
  if (pthread_cond_init(&q->room, NULL) != 0) {
    pthread_mutex_destroy(&q->lock);
    free(q);
    return NULL;
  }
  if (pthread_cond_init(&q->published_cond, NULL) != 0) {
    pthread_cond_destroy(&q->room);
    pthread_mutex_destroy(&q->lock);
    free(q);
    return NULL;
  }
  q->max_bytes = max_bytes;
  return q;
}

void zvm_qset_free(struct zvm_qset *list) {
  while (list != NULL) {
    struct zvm_qset *next = list->next;
    free(list);
    list = next;
  }
}

void zvm_setq_destroy(struct zvm_setq *q) {
  if (q == NULL)
    return;
  zvm_qset_free(q->head);
  pthread_cond_destroy(&q->published_cond);
  pthread_cond_destroy(&q->room);
  pthread_mutex_destroy(&q->lock);
  free(q);
}

static size_t cost(size_t len) {
  return len > SIZE_MAX - ZVM_SETQ_OVERHEAD ? SIZE_MAX
                                            : len + ZVM_SETQ_OVERHEAD;
}

/* An empty queue takes any set; otherwise the set must fit the bound. */
static bool fits(const struct zvm_setq *q, size_t need) {
  size_t used = q->held + q->reserved;
  return used == 0 || (need <= q->max_bytes && used <= q->max_bytes - need);
}

static void account(struct zvm_setq *q) {
  size_t now = q->held + q->reserved;
  q->stats.bytes = now;
  if (now > q->stats.peak_bytes)
    q->stats.peak_bytes = now;
}

enum zvm_setq_push_status zvm_setq_push(struct zvm_setq *q, const uint8_t *set,
                                        size_t len,
                                        const struct zvm_reader_stats *rs) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t now_us =
      (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
  return zvm_setq_push_at(q, set, len, now_us, rs);
}

enum zvm_setq_push_status zvm_setq_push_at(struct zvm_setq *q,
                                           const uint8_t *set, size_t len,
                                           uint64_t arrival_us,
                                           const struct zvm_reader_stats *rs) {
  size_t need = cost(len);
  bool waited = false;

  /* The counters (which count this set) are published together with the
   * set, under one lock: a take between here and the append must not see
   * counters that include a set it does not get. */
  pthread_mutex_lock(&q->lock);
  while (!q->closed && !fits(q, need)) {
    if (!waited)
      q->stats.full_waits++;
    waited = true;
    pthread_cond_wait(&q->room, &q->lock);
  }
  if (q->closed) {
    q->stats.dropped++;
    if (rs != NULL)
      q->rs = *rs;
    pthread_mutex_unlock(&q->lock);
    return ZVM_SETQ_CLOSED;
  }
  /* Reserve, then allocate and copy without holding the lock, so the read
   * callback is never kept waiting by a large copy. */
  q->reserved += need;
  account(q);
  pthread_mutex_unlock(&q->lock);

  struct zvm_qset *s = malloc(sizeof(*s) + len);
  if (s != NULL) {
    s->next = NULL;
    s->arrival_us = arrival_us;
    s->len = len;
    if (len > 0)
      memcpy(s->data, set, len);
  }

  pthread_mutex_lock(&q->lock);
  q->reserved -= need;
  if (rs != NULL)
    q->rs = *rs;
  if (s == NULL) {
    q->stats.dropped++;
    q->stats.nomem++;
    account(q);
    pthread_mutex_unlock(&q->lock);
    return ZVM_SETQ_NOMEM;
  }
  if (q->tail != NULL)
    q->tail->next = s;
  else
    q->head = s;
  q->tail = s;
  q->held += need;
  q->stats.sets++;
  q->stats.queued++;
  account(q);
  pthread_mutex_unlock(&q->lock);
  return waited ? ZVM_SETQ_WAITED : ZVM_SETQ_QUEUED;
}

void zvm_setq_publish(struct zvm_setq *q, const struct zvm_reader_stats *rs,
                      int reader_status) {
  pthread_mutex_lock(&q->lock);
  if (rs != NULL)
    q->rs = *rs;
  q->reader_status = reader_status;
  q->published = true;
  pthread_cond_broadcast(&q->published_cond);
  pthread_mutex_unlock(&q->lock);
}

bool zvm_setq_wait_published(struct zvm_setq *q, unsigned timeout_ms) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += timeout_ms / 1000;
  until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&q->lock);
  while (!q->published && !q->closed)
    if (pthread_cond_timedwait(&q->published_cond, &q->lock, &until) != 0)
      break;
  bool published = q->published;
  pthread_mutex_unlock(&q->lock);
  return published;
}

struct zvm_qset *zvm_setq_take(struct zvm_setq *q, struct zvm_reader_stats *rs,
                               int *reader_status) {
  pthread_mutex_lock(&q->lock);
  struct zvm_qset *list = q->head;
  q->head = q->tail = NULL;
  q->held = 0;
  q->stats.sets = 0;
  account(q);
  if (rs != NULL) {
    *rs = q->rs;
    rs->health.sets_dropped = q->stats.nomem;
  }
  if (reader_status != NULL)
    *reader_status = q->reader_status;
  pthread_cond_broadcast(&q->room);
  pthread_mutex_unlock(&q->lock);
  return list;
}

void zvm_setq_close(struct zvm_setq *q) {
  pthread_mutex_lock(&q->lock);
  q->closed = true;
  pthread_cond_broadcast(&q->room);
  pthread_cond_broadcast(&q->published_cond);
  pthread_mutex_unlock(&q->lock);
}

bool zvm_setq_is_closed(struct zvm_setq *q) {
  pthread_mutex_lock(&q->lock);
  bool closed = q->closed;
  pthread_mutex_unlock(&q->lock);
  return closed;
}

void zvm_setq_get_stats(struct zvm_setq *q, struct zvm_setq_stats *out) {
  pthread_mutex_lock(&q->lock);
  *out = q->stats;
  pthread_mutex_unlock(&q->lock);
}
