/* SPDX-License-Identifier: MIT */
/*
 * libheapstat.so - the heap of a process as glibc's allocator sees it,
 * for LD_PRELOAD in the soak test.
 *
 * A process's RSS is not its memory in use: glibc keeps freed memory in
 * each thread's arena (up to eight per core) for reuse, so RSS records the
 * largest working set each arena has ever held, and grows when the work
 * moves between threads (collectd's read threads take turns) without any
 * memory being lost. A leak shows as memory allocated and never freed:
 * mallinfo2()'s uordblks (in use in the arenas) plus hblkhd (in use in
 * mmap()ed blocks), summed over every arena.
 *
 * With HEAPSTAT_FILE set, a thread appends every HEAPSTAT_SECONDS seconds
 * (default 10) a line "SECONDS IN_USE ARENA_BYTES MMAP_BYTES FREE_BYTES"
 * (seconds since the process started; bytes): memory in use, the bytes
 * the arenas hold from the system, those of mmap()ed blocks, and the free
 * bytes inside the arenas (held, not used: fragmentation and reserve).
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static FILE *heapstat_out;
static unsigned heapstat_seconds = 10;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *heapstat_thread(void *arg) {
  double start = *(double *)arg;
  free(arg);
  for (;;) {
    struct mallinfo2 mi = mallinfo2();
    fprintf(heapstat_out, "%.0f %zu %zu %zu %zu\n", now_s() - start,
            mi.uordblks + mi.hblkhd, mi.arena, mi.hblkhd, mi.fordblks);
    fflush(heapstat_out);
    sleep(heapstat_seconds);
  }
  return NULL;
}

__attribute__((constructor)) static void heapstat_start(void) {
  const char *path = getenv("HEAPSTAT_FILE");
  const char *every = getenv("HEAPSTAT_SECONDS");
  if (path == NULL || *path == '\0')
    return;
  if (every != NULL && atoi(every) > 0)
    heapstat_seconds = (unsigned)atoi(every);
  heapstat_out = fopen(path, "ae");
  double *start = malloc(sizeof(*start));
  if (heapstat_out == NULL || start == NULL) {
    free(start);
    return;
  }
  *start = now_s();
  pthread_t t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&t, &attr, heapstat_thread, start) != 0)
    free(start);
  pthread_attr_destroy(&attr);
}
