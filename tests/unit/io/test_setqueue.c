/* SPDX-License-Identifier: MIT */
/*
 * The hand-over queue between the reader thread and the read callback
 * (plugin/io/setqueue.c): order, contents, the byte bound and back-pressure,
 * close/shutdown, published reader counters, nothing lost or duplicated
 * under a concurrent producer, and every byte freed (heap counted through
 * ld --wrap).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zvm_monitor/setqueue.h"

/* ---- heap accounting ---------------------------------------------------- */
void *__real_malloc(size_t n);
void *__real_calloc(size_t m, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t m, size_t n);
void __wrap_free(void *p);

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;
static long heap_live;
static bool malloc_fails;
/* Called by the next malloc (then cleared): runs while a push is between
 * its two locked sections, as the read callback may. */
static void (*malloc_hook)(void);

void *__wrap_malloc(size_t n) {
  if (malloc_hook != NULL) {
    void (*hook)(void) = malloc_hook;
    malloc_hook = NULL;
    hook();
  }
  if (malloc_fails)
    return NULL;
  void *p = __real_malloc(n);
  if (p != NULL) {
    pthread_mutex_lock(&heap_lock);
    heap_live++;
    pthread_mutex_unlock(&heap_lock);
  }
  return p;
}

void *__wrap_calloc(size_t m, size_t n) {
  void *p = __real_calloc(m, n);
  if (p != NULL) {
    pthread_mutex_lock(&heap_lock);
    heap_live++;
    pthread_mutex_unlock(&heap_lock);
  }
  return p;
}

void __wrap_free(void *p) {
  if (p != NULL) {
    pthread_mutex_lock(&heap_lock);
    heap_live--;
    pthread_mutex_unlock(&heap_lock);
  }
  __real_free(p);
}

/* ---- helpers --------------------------------------------------------------
 */
static void fill(uint8_t *buf, size_t len, uint32_t seed) {
  for (size_t i = 0; i < len; i++)
    buf[i] = (uint8_t)(seed * 31u + i * 7u);
}

static bool check(const struct zvm_qset *s, size_t len, uint32_t seed) {
  if (s == NULL || s->len != len)
    return false;
  for (size_t i = 0; i < len; i++)
    if (s->data[i] != (uint8_t)(seed * 31u + i * 7u))
      return false;
  return true;
}

static size_t list_len(const struct zvm_qset *s) {
  size_t n = 0;
  for (; s != NULL; s = s->next)
    n++;
  return n;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* A push on another thread. */
struct pusher {
  pthread_t t;
  struct zvm_setq *q;
  const uint8_t *data;
  size_t len;
  int result;
  bool done;
  pthread_mutex_t lock;
};

static void *push_main(void *arg) {
  struct pusher *p = arg;
  int r = zvm_setq_push(p->q, p->data, p->len, NULL);
  pthread_mutex_lock(&p->lock);
  p->result = r;
  p->done = true;
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

static void pusher_start(struct pusher *p, struct zvm_setq *q,
                         const uint8_t *data, size_t len) {
  *p = (struct pusher){.q = q, .data = data, .len = len};
  pthread_mutex_init(&p->lock, NULL);
  assert_int_equal(pthread_create(&p->t, NULL, push_main, p), 0);
}

static bool pusher_done(struct pusher *p) {
  pthread_mutex_lock(&p->lock);
  bool d = p->done;
  pthread_mutex_unlock(&p->lock);
  return d;
}

static int pusher_join(struct pusher *p) {
  pthread_join(p->t, NULL);
  pthread_mutex_destroy(&p->lock);
  return p->result;
}

/* ---- tests ----------------------------------------------------------------
 */
static void test_order_and_contents(void **state) {
  (void)state;
  long heap0 = heap_live;
  struct zvm_setq *q = zvm_setq_create(1 << 20);
  assert_non_null(q);
  uint8_t a[100], b[1], c[5000];
  fill(a, sizeof(a), 1);
  fill(b, sizeof(b), 2);
  fill(c, sizeof(c), 3);
  assert_null(zvm_setq_take(q, NULL, NULL)); /* empty */
  assert_int_equal(zvm_setq_push(q, a, sizeof(a), NULL), ZVM_SETQ_QUEUED);
  assert_int_equal(zvm_setq_push(q, b, 0, NULL),
                   ZVM_SETQ_QUEUED); /* empty set */
  assert_int_equal(zvm_setq_push(q, b, sizeof(b), NULL), ZVM_SETQ_QUEUED);
  assert_int_equal(zvm_setq_push(q, c, sizeof(c), NULL), ZVM_SETQ_QUEUED);

  struct zvm_setq_stats st;
  zvm_setq_get_stats(q, &st);
  assert_int_equal(st.sets, 4);
  assert_int_equal(st.queued, 4);
  assert_int_equal(st.bytes, 100 + 0 + 1 + 5000 + 4 * ZVM_SETQ_OVERHEAD);

  struct zvm_qset *list = zvm_setq_take(q, NULL, NULL);
  assert_int_equal(list_len(list), 4);
  assert_true(check(list, 100, 1));
  assert_int_equal(list->next->len, 0);
  assert_true(check(list->next->next, 1, 2));
  assert_true(check(list->next->next->next, 5000, 3));
  zvm_qset_free(list);
  zvm_setq_get_stats(q, &st);
  assert_int_equal(st.sets, 0);
  assert_int_equal(st.bytes, 0);
  assert_int_equal(st.peak_bytes, 5101 + 4 * ZVM_SETQ_OVERHEAD);

  /* Queued sets not taken are freed with the queue. */
  assert_int_equal(zvm_setq_push(q, c, sizeof(c), NULL), ZVM_SETQ_QUEUED);
  zvm_setq_destroy(q);
  assert_int_equal(heap_live, heap0);
}

static void test_bound_and_back_pressure(void **state) {
  (void)state;
  size_t max = 1000;
  struct zvm_setq *q = zvm_setq_create(max);
  uint8_t a[600], b[600];
  fill(a, sizeof(a), 4);
  fill(b, sizeof(b), 5);
  assert_int_equal(zvm_setq_push(q, a, sizeof(a), NULL), ZVM_SETQ_QUEUED);

  struct pusher p;
  pusher_start(&p, q, b, sizeof(b));
  sleep_ms(100);
  assert_false(pusher_done(&p)); /* waits: 600 + 600 > 1000 */
  struct zvm_setq_stats st;
  zvm_setq_get_stats(q, &st);
  assert_int_equal(st.full_waits, 1);
  assert_int_equal(st.sets, 1);
  assert_true(st.bytes <= max);

  struct zvm_qset *list = zvm_setq_take(q, NULL, NULL); /* makes room */
  assert_int_equal(pusher_join(&p), ZVM_SETQ_WAITED);
  assert_int_equal(list_len(list), 1);
  assert_true(check(list, 600, 4));
  zvm_qset_free(list);
  list = zvm_setq_take(q, NULL, NULL);
  assert_int_equal(list_len(list), 1);
  assert_true(check(list, 600, 5));
  zvm_qset_free(list);
  zvm_setq_get_stats(q, &st);
  assert_true(st.peak_bytes <= max);
  assert_int_equal(st.dropped, 0);
  zvm_setq_destroy(q);
}

/* A set larger than the bound still goes into an empty queue (the reader's
 * MaxSetSize bounds it), never next to another one. */
static void test_oversize_set_into_empty_queue(void **state) {
  (void)state;
  struct zvm_setq *q = zvm_setq_create(100);
  uint8_t big[5000];
  fill(big, sizeof(big), 6);
  assert_int_equal(zvm_setq_push(q, big, sizeof(big), NULL), ZVM_SETQ_QUEUED);
  struct pusher p;
  pusher_start(&p, q, big, 10);
  sleep_ms(50);
  assert_false(pusher_done(&p));
  zvm_qset_free(zvm_setq_take(q, NULL, NULL));
  assert_int_equal(pusher_join(&p), ZVM_SETQ_WAITED);
  zvm_setq_destroy(q);
}

static void test_close_wakes_and_refuses(void **state) {
  (void)state;
  long heap0 = heap_live;
  struct zvm_setq *q = zvm_setq_create(1000);
  uint8_t a[900];
  fill(a, sizeof(a), 7);
  assert_int_equal(zvm_setq_push(q, a, sizeof(a), NULL), ZVM_SETQ_QUEUED);
  struct pusher p;
  pusher_start(&p, q, a, sizeof(a));
  sleep_ms(50);
  assert_false(pusher_done(&p));
  assert_false(zvm_setq_is_closed(q));
  zvm_setq_close(q);
  assert_false(zvm_setq_wait_published(q, 60000)); /* closed: at once */
  assert_true(zvm_setq_is_closed(q));
  assert_int_equal(pusher_join(&p), ZVM_SETQ_CLOSED);
  assert_int_equal(zvm_setq_push(q, a, 1, NULL), ZVM_SETQ_CLOSED);
  struct zvm_setq_stats st;
  zvm_setq_get_stats(q, &st);
  assert_int_equal(st.dropped, 2);
  assert_int_equal(st.queued, 1);
  /* What was queued before the close can still be taken. */
  struct zvm_qset *list = zvm_setq_take(q, NULL, NULL);
  assert_int_equal(list_len(list), 1);
  assert_true(check(list, 900, 7));
  zvm_qset_free(list);
  zvm_setq_destroy(q);
  assert_int_equal(heap_live, heap0);
}

static void test_out_of_memory(void **state) {
  (void)state;
  struct zvm_setq *q = zvm_setq_create(1000);
  uint8_t a[10] = {0};
  malloc_fails = true;
  enum zvm_setq_push_status r = zvm_setq_push(q, a, sizeof(a), NULL);
  malloc_fails = false;
  assert_int_equal(r, ZVM_SETQ_NOMEM);
  struct zvm_setq_stats st;
  zvm_setq_get_stats(q, &st);
  assert_int_equal(st.dropped, 1);
  assert_int_equal(st.nomem, 1);
  assert_int_equal(st.bytes, 0); /* the reservation was given back */
  assert_null(zvm_setq_take(q, NULL, NULL));
  /* The drop reaches the consumer with the producer's counters, which
   * count the set as read: a set read is one delivered or dropped. */
  struct zvm_reader_stats rs = {.health.sets = 2}, got;
  assert_int_equal(zvm_setq_push(q, a, sizeof(a), &rs), ZVM_SETQ_QUEUED);
  malloc_fails = true;
  rs.health.sets = 3;
  assert_int_equal(zvm_setq_push(q, a, sizeof(a), &rs), ZVM_SETQ_NOMEM);
  malloc_fails = false;
  struct zvm_qset *list = zvm_setq_take(q, &got, NULL);
  assert_int_equal(list_len(list), 1);
  assert_int_equal(got.health.sets, 3);
  assert_int_equal(got.health.sets_dropped, 2);
  zvm_qset_free(list);
  /* Closed: not counted as dropped for want of memory. */
  zvm_setq_close(q);
  assert_int_equal(zvm_setq_push(q, a, sizeof(a), &rs), ZVM_SETQ_CLOSED);
  assert_null(zvm_setq_take(q, &got, NULL));
  assert_int_equal(got.health.sets_dropped, 2);
  zvm_setq_get_stats(q, &st);
  assert_int_equal(st.dropped, 3);
  assert_int_equal(st.nomem, 2);
  zvm_setq_destroy(q);
}

/* The counters a take returns were published with or after its sets. */
static void test_reader_counters_published(void **state) {
  (void)state;
  struct zvm_setq *q = zvm_setq_create(1000);
  struct zvm_reader_stats rs = {.health.sets = 5, .health.bytes_read = 55}, got;
  int status = 7;
  uint8_t a[3] = {1, 2, 3};
  assert_null(zvm_setq_take(q, &got, &status));
  assert_int_equal(got.health.sets, 0);
  assert_int_equal(status, 0);
  assert_false(zvm_setq_wait_published(q, 10)); /* a push is no publish */
  assert_int_equal(zvm_setq_push(q, a, sizeof(a), &rs), ZVM_SETQ_QUEUED);
  assert_false(zvm_setq_wait_published(q, 0));
  struct zvm_qset *list = zvm_setq_take(q, &got, &status);
  assert_int_equal(list_len(list), 1);
  assert_int_equal(got.health.sets, 5);
  assert_int_equal(got.health.bytes_read, 55);
  zvm_qset_free(list);
  rs.health.sets = 6;
  rs.health.eoverflow = 1;
  zvm_setq_publish(q, &rs, -1);
  assert_true(zvm_setq_wait_published(q, 0));
  assert_null(zvm_setq_take(q, &got, &status));
  assert_int_equal(got.health.sets, 6);
  assert_int_equal(got.health.eoverflow, 1);
  assert_int_equal(status, -1);
  zvm_setq_destroy(q);
}

static void *publish_later(void *arg) {
  sleep_ms(50);
  zvm_setq_publish(arg, NULL, 0);
  return NULL;
}

static void test_wait_published_wakes(void **state) {
  (void)state;
  struct zvm_setq *q = zvm_setq_create(1000);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, publish_later, q), 0);
  assert_true(zvm_setq_wait_published(q, 10000));
  pthread_join(t, NULL);
  zvm_setq_destroy(q);
}

/* A producer thread pushes numbered sets of varying size through a small
 * queue while the consumer takes: every set arrives once, in order, intact,
 * and the queue never holds more than its bound. */
#define NSETS 20000
struct producer {
  struct zvm_setq *q;
  unsigned waited;
};

static size_t size_of(uint32_t seq) { return 4 + (seq * 2654435761u) % 300; }

static void *produce(void *arg) {
  struct producer *p = arg;
  uint8_t buf[512];
  for (uint32_t seq = 0; seq < NSETS; seq++) {
    size_t len = size_of(seq);
    fill(buf, len, seq);
    buf[0] = (uint8_t)(seq >> 24);
    buf[1] = (uint8_t)(seq >> 16);
    buf[2] = (uint8_t)(seq >> 8);
    buf[3] = (uint8_t)seq;
    struct zvm_reader_stats rs = {.health.sets = seq + 1};
    int r = zvm_setq_push(p->q, buf, len, &rs);
    if (r == ZVM_SETQ_WAITED)
      p->waited++;
    else if (r != ZVM_SETQ_QUEUED)
      return NULL;
  }
  return NULL;
}

static void test_concurrent_nothing_lost_or_duplicated(void **state) {
  (void)state;
  long heap0 = heap_live;
  size_t max = 4096;
  struct zvm_setq *q = zvm_setq_create(max);
  struct producer p = {.q = q};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, produce, &p), 0);
  uint32_t next = 0;
  unsigned takes = 0;
  while (next < NSETS) {
    struct zvm_reader_stats rs;
    struct zvm_qset *list = zvm_setq_take(q, &rs, NULL);
    takes++;
    for (struct zvm_qset *s = list; s != NULL; s = s->next) {
      assert_true(s->len >= 4);
      uint32_t seq = (uint32_t)s->data[0] << 24 | (uint32_t)s->data[1] << 16 |
                     (uint32_t)s->data[2] << 8 | s->data[3];
      if (seq != next)
        fail_msg("set %u arrived, expected %u", seq, next);
      assert_int_equal(s->len, size_of(seq));
      for (size_t i = 4; i < s->len; i++)
        if (s->data[i] != (uint8_t)(seq * 31u + i * 7u))
          fail_msg("set %u corrupted at byte %zu", seq, i);
      next++;
    }
    /* The counters cover every set taken. */
    assert_true(rs.health.sets >= next);
    zvm_qset_free(list);
    if (takes % 64 == 0)
      sleep_ms(1); /* let the queue fill now and then */
  }
  pthread_join(t, NULL);
  assert_null(zvm_setq_take(q, NULL, NULL));
  struct zvm_setq_stats st;
  zvm_setq_get_stats(q, &st);
  assert_int_equal(st.queued, NSETS);
  assert_int_equal(st.dropped, 0);
  assert_int_equal(st.full_waits, p.waited);
  assert_true(st.peak_bytes <= max);
  zvm_setq_destroy(q);
  assert_int_equal(heap_live, heap0);
}

/* Every set carries its arrival time: the caller's for push_at (a replayed
 * set), the wall clock at the push for push (a set just read). */
static uint64_t wall_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void test_arrival_time(void **state) {
  (void)state;
  struct zvm_setq *q = zvm_setq_create(1 << 20);
  assert_non_null(q);
  const uint8_t a[] = {1, 2, 3}, b[] = {4, 5};
  assert_int_equal(zvm_setq_push_at(q, a, sizeof(a), UINT64_C(1234567), NULL),
                   ZVM_SETQ_QUEUED);
  uint64_t before = wall_us();
  assert_int_equal(zvm_setq_push(q, b, sizeof(b), NULL), ZVM_SETQ_QUEUED);
  uint64_t after = wall_us();

  struct zvm_qset *list = zvm_setq_take(q, NULL, NULL);
  assert_non_null(list);
  assert_int_equal(list->arrival_us, 1234567);
  assert_int_equal(list->len, sizeof(a));
  assert_non_null(list->next);
  assert_true(list->next->arrival_us >= before);
  assert_true(list->next->arrival_us <= after);
  assert_memory_equal(list->next->data, b, sizeof(b));
  zvm_qset_free(list);
  zvm_setq_destroy(q);
}

/* A take while a push copies its set (the lock released) must not get
 * counters that already count that set: the counters and the set go in
 * together, else the read callback would report a set it has not decoded. */
static struct zvm_setq *race_q;
static struct zvm_reader_stats race_got;
static size_t race_taken;

static void take_during_copy(void) {
  struct zvm_qset *list = zvm_setq_take(race_q, &race_got, NULL);
  race_taken = list_len(list);
  zvm_qset_free(list);
}

static void test_counters_published_with_their_set(void **state) {
  (void)state;
  race_q = zvm_setq_create(1 << 16);
  assert_non_null(race_q);
  uint8_t a[8] = {0};
  struct zvm_reader_stats rs = {.health.sets = 1, .health.bytes_read = 8};
  assert_int_equal(zvm_setq_push(race_q, a, sizeof(a), &rs), ZVM_SETQ_QUEUED);
  rs = (struct zvm_reader_stats){.health.sets = 2, .health.bytes_read = 16};
  malloc_hook = take_during_copy;
  assert_int_equal(zvm_setq_push(race_q, a, sizeof(a), &rs), ZVM_SETQ_QUEUED);
  assert_null(malloc_hook);        /* the hook ran inside the push */
  assert_int_equal(race_taken, 1); /* the first set only ... */
  assert_int_equal(race_got.health.sets,
                   1); /* ... and the counters that go with it */
  struct zvm_reader_stats got;
  struct zvm_qset *list = zvm_setq_take(race_q, &got, NULL);
  assert_int_equal(list_len(list), 1);
  assert_int_equal(got.health.sets, 2);
  zvm_qset_free(list);
  zvm_setq_destroy(race_q);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_order_and_contents),
      cmocka_unit_test(test_bound_and_back_pressure),
      cmocka_unit_test(test_oversize_set_into_empty_queue),
      cmocka_unit_test(test_close_wakes_and_refuses),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test(test_reader_counters_published),
      cmocka_unit_test(test_wait_published_wakes),
      cmocka_unit_test(test_concurrent_nothing_lost_or_duplicated),
      cmocka_unit_test(test_arrival_time),
      cmocka_unit_test(test_counters_published_with_their_set),
  };
  return cmocka_run_group_tests_name("setqueue", tests, NULL, NULL);
}
