/* SPDX-License-Identifier: MIT */
/*
 * hypfs benchmark: the plugin's work per collectd interval on a diag_2fc
 * file of N guests (Linux kernel arch/s390/hypfs/hypfs_vm.c layout),
 * against a memcpy of the same file: decode alone, and decode plus mapping
 * (selection, counter continuation, one list per guest). 'make check' runs
 * it without arguments (tiny, no figures); 'make bench-hypfs' (--full)
 * prints the figures for 2,000 and 10,000 guests. Nothing is asserted
 * about time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hypfs/core.h"
#include "hypfs/hypfs.h"

static void be32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (24 - 8 * i));
}
static void be64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (56 - 8 * i));
}

/* A diag_2fc file of n guests "G0000001"...; step moves the counters. */
static size_t make_file(uint8_t *buf, size_t n, unsigned step) {
  memset(buf, 0, 64 + 112 * n);
  be64(buf, 112 * n);
  be64(buf + 10, step + 1);
  be64(buf + 26, n);
  for (size_t i = 0; i < n; i++) {
    uint8_t *e = buf + 64 + 112 * i;
    be64(e + 8, (i + 1) * 1000ull * step);
    be64(e + 16, 1000000ull * step);
    be64(e + 48, 65536);
    be32(e + 64, 2);
    be32(e + 100, 36 * step);
    char name[9];
    snprintf(name, sizeof(name), "G%07zu", i + 1);
    for (int k = 0; k < 8; k++)
      e[104 + k] = (uint8_t)(0xF0 + (name[k] - '0')); /* digits */
    e[104] = 0xC7;                                    /* 'G' */
  }
  return 64 + 112 * n;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t lists;
static void count(void *arg, const struct hypfs_list *l) {
  (void)arg;
  (void)l;
  lists++;
}

static volatile uint8_t sink;

static int run(size_t guests, unsigned reps, int smoke) {
  size_t size = 64 + 112 * guests;
  uint8_t *file = malloc(size), *copy = malloc(size);
  if (file == NULL || copy == NULL)
    return 1;
  struct hypfs_conf conf;
  if (hypfs_conf_init(&conf) != 0)
    return 1;
  struct hypfs_ctx *ctx = hypfs_ctx_create(&conf);
  struct hypfs_d2fc d = {0};
  size_t len = make_file(file, guests, 1);

  /* Minimum over the repetitions: on a shared machine the mean measures
   * the neighbours. */
  double t_copy = 1e9, t_dec = 1e9, t_all = 1e9;
  for (unsigned r = 0; r < reps; r++) {
    double t0 = now();
    memcpy(copy, file, len);
    sink ^= copy[r % len];
    double t = now() - t0;
    t_copy = t < t_copy ? t : t_copy;
  }
  for (unsigned r = 0; r < reps; r++) {
    double t0 = now();
    if (hypfs_decode_d2fc(file, len, &d) != HYPFS_OK)
      return 1;
    double t = now() - t0;
    t_dec = t < t_dec ? t : t_dec;
  }
  lists = 0;
  for (unsigned r = 0; r < reps; r++) {
    make_file(file, guests, r + 1); /* new counters: not timed */
    double t0 = now();
    if (hypfs_decode_d2fc(file, len, &d) != HYPFS_OK)
      return 1;
    hypfs_map_vm(ctx, &d, count, NULL);
    double t = now() - t0;
    t_all = t < t_all ? t : t_all;
  }
  if (lists != (size_t)reps * (guests + 1) || d.guests_num != guests)
    return 1;
  if (!smoke)
    printf("%6zu guests, file %8zu bytes: memcpy %8.1f us, decode %8.1f us "
           "(%5.1fx memcpy), decode + map %8.1f us (%5.1fx memcpy, %.3f ms "
           "per interval, %zu lists)\n",
           guests, len, t_copy * 1e6, t_dec * 1e6, t_dec / t_copy, t_all * 1e6,
           t_all / t_copy, t_all * 1e3, guests + 1);
  hypfs_d2fc_free(&d);
  hypfs_ctx_destroy(ctx);
  hypfs_conf_free(&conf);
  free(file);
  free(copy);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 1)
    return run(20, 3, 1);
  if (strcmp(argv[1], "--full") != 0) {
    fprintf(stderr, "usage: bench_hypfs [--full]\n");
    return 2;
  }
  printf("# bench_hypfs: per collectd interval, minimum of the repetitions\n");
  return run(2000, 200, 0) || run(10000, 50, 0);
}
