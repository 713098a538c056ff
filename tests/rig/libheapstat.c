/* SPDX-License-Identifier: MIT */
/*
 * libheapstat.so - the memory a process has allocated and not freed, for
 * LD_PRELOAD in the soak test.
 *
 * A process's RSS is not its memory in use: glibc keeps freed memory in
 * each thread's arena and cache for reuse, so RSS records the largest
 * working set each arena has held, and grows when the work moves between
 * threads (collectd's read threads take turns) without any memory being
 * lost. glibc's own mallinfo2() counts the chunks its per-thread caches
 * hold as in use, so it creeps up the same way. A leak is memory
 * allocated and never freed: this shim wraps the allocation functions and
 * counts exactly that, as malloc_usable_size() of every live block.
 *
 * With HEAPSTAT_FILE set, a thread appends every HEAPSTAT_SECONDS seconds
 * (default 10) a line "SECONDS LIVE_BYTES MALLINFO_IN_USE ARENA_BYTES
 * MMAP_BYTES" (seconds since the process started): the bytes allocated
 * and not freed, then mallinfo2()'s bytes in use, bytes the arenas hold
 * from the system and bytes of mmap()ed blocks, summed over all arenas.
 * Without HEAPSTAT_FILE it still counts (a few atomic additions per call).
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* glibc's allocator under its exported internal names: no dlsym(), which
 * itself allocates. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

static atomic_llong live_bytes;

static void *counted(void *p) {
  if (p != NULL)
    atomic_fetch_add_explicit(&live_bytes, (long long)malloc_usable_size(p),
                              memory_order_relaxed);
  return p;
}

static void uncount(void *p) {
  if (p != NULL)
    atomic_fetch_sub_explicit(&live_bytes, (long long)malloc_usable_size(p),
                              memory_order_relaxed);
}

__attribute__((visibility("default"))) void *malloc(size_t size) {
  return counted(__libc_malloc(size));
}

__attribute__((visibility("default"))) void *calloc(size_t n, size_t size) {
  return counted(__libc_calloc(n, size));
}

__attribute__((visibility("default"))) void *realloc(void *p, size_t size) {
  size_t old = p != NULL ? malloc_usable_size(p) : 0;
  void *q = __libc_realloc(p, size);
  if (q == NULL && size != 0)
    return NULL; /* p unchanged */
  atomic_fetch_sub_explicit(&live_bytes, (long long)old, memory_order_relaxed);
  return counted(q);
}

__attribute__((visibility("default"))) void free(void *p) {
  uncount(p);
  __libc_free(p);
}

__attribute__((visibility("default"))) void *memalign(size_t align,
                                                      size_t size) {
  return counted(__libc_memalign(align, size));
}

__attribute__((visibility("default"))) void *aligned_alloc(size_t align,
                                                           size_t size) {
  return counted(__libc_memalign(align, size));
}

__attribute__((visibility("default"))) int
posix_memalign(void **out, size_t align, size_t size) {
  if (align < sizeof(void *) || (align & (align - 1)) != 0)
    return 22; /* EINVAL */
  void *p = __libc_memalign(align, size);
  if (p == NULL)
    return 12; /* ENOMEM */
  *out = counted(p);
  return 0;
}

__attribute__((visibility("default"))) void *valloc(size_t size) {
  return counted(__libc_valloc(size));
}

__attribute__((visibility("default"))) void *pvalloc(size_t size) {
  return counted(__libc_pvalloc(size));
}

static FILE *heapstat_out;
static unsigned heapstat_seconds = 10;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double heapstat_start_s;

static void *heapstat_thread(void *arg) {
  (void)arg;
  for (;;) {
    struct mallinfo2 mi = mallinfo2();
    fprintf(heapstat_out, "%.0f %lld %zu %zu %zu\n", now_s() - heapstat_start_s,
            atomic_load_explicit(&live_bytes, memory_order_relaxed),
            mi.uordblks + mi.hblkhd, mi.arena, mi.hblkhd);
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
  if (heapstat_out == NULL)
    return;
  heapstat_start_s = now_s();
  pthread_t t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_create(&t, &attr, heapstat_thread, NULL);
  pthread_attr_destroy(&attr);
}
