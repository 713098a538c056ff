/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of the dmstats core's read pass: CPU per read for D devices
 * each with one region of another program of N areas (with an 8-bin
 * histogram), per region and per area. The library is a minimal fake that
 * answers @stats_print with prepared text, so what is measured is the
 * plugin's own work (parsing, totals, mapping), not the kernel's or
 * libdevmapper's.
 *
 *   bench_dmstats           smoke run (make check): small, checks counts
 *   bench_dmstats --full    the figures (make bench-dmstats)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dmstats/dmstats.h"

#define BINS 8

struct dm_stats {
  int unused;
};
struct dm_histogram {
  int nr_bins;
  uint64_t upper[BINS];
};

static int devices;
static uint64_t areas;
static char *print_text;
static struct dm_stats handle;
static struct dm_histogram bounds = {BINS,
                                     {1000000, 2000000, 5000000, 10000000,
                                      20000000, 50000000, 100000000,
                                      UINT64_MAX}};

static int list_devices(void (*fn)(const char *, void *), void *arg) {
  for (int i = 0; i < devices; i++) {
    char name[32];
    snprintf(name, sizeof(name), "vg0-lv%d", i);
    fn(name, arg);
  }
  return 0;
}
static struct dm_stats *create(const char *p) {
  (void)p;
  return &handle;
}
static void destroy(struct dm_stats *h) { (void)h; }
static int bind_name(struct dm_stats *h, const char *n) {
  (void)h;
  (void)n;
  return 1;
}
static int list(struct dm_stats *h, const char *p) {
  (void)h;
  (void)p;
  return 1;
}
static uint64_t nr_regions(const struct dm_stats *h) {
  (void)h;
  return 1;
}
static int present(const struct dm_stats *h, uint64_t id) {
  (void)h;
  return id == 0;
}
static uint64_t nr_areas(const struct dm_stats *h, uint64_t id) {
  (void)h;
  (void)id;
  return areas;
}
static const char *program_id(const struct dm_stats *h, uint64_t id) {
  (void)h;
  (void)id;
  return "dmstats";
}
static int precise(const struct dm_stats *h, uint64_t id) {
  (void)h;
  (void)id;
  return 0;
}
static struct dm_histogram *histogram(const struct dm_stats *h, uint64_t id,
                                      uint64_t area) {
  (void)h;
  (void)id;
  (void)area;
  return &bounds;
}
static int nr_bins(const struct dm_histogram *h) { return h->nr_bins; }
static uint64_t bin_upper(const struct dm_histogram *h, int b) {
  return h->upper[b];
}
static char *print_region(struct dm_stats *h, uint64_t id, unsigned s,
                          unsigned n, unsigned clear) {
  (void)h;
  (void)id;
  (void)s;
  (void)n;
  if (clear)
    abort(); /* never @stats_print_clear */
  return print_text;
}
static void buffer_destroy(struct dm_stats *h, char *b) {
  (void)h;
  (void)b;
}
static int no_errno(void) { return 0; }

static const struct dms_lib lib = {
    .list_devices = list_devices,
    .stats_create = create,
    .stats_destroy = destroy,
    .stats_bind_name = bind_name,
    .stats_list = list,
    .stats_get_nr_regions = nr_regions,
    .stats_region_present = present,
    .stats_get_region_nr_areas = nr_areas,
    .stats_get_region_program_id = program_id,
    .stats_get_region_precise_timestamps = precise,
    .stats_get_histogram = histogram,
    .histogram_get_nr_bins = nr_bins,
    .histogram_get_bin_upper = bin_upper,
    .stats_print_region = print_region,
    .stats_buffer_destroy = buffer_destroy,
    .take_last_errno = no_errno,
};

static size_t emitted;
static void emit(void *arg, const char *pi, const char *type, const char *ti,
                 const struct dms_value *v, size_t n) {
  (void)arg;
  (void)pi;
  (void)type;
  (void)ti;
  (void)v;
  (void)n;
  emitted++;
}

static void make_text(void) {
  size_t line = 200;
  print_text = malloc(areas * line + 1);
  char *p = print_text;
  for (uint64_t a = 0; a < areas; a++)
    p += sprintf(
        p,
        "%" PRIu64 "+2048 %" PRIu64 " 3 %" PRIu64 " 17 %" PRIu64 " 40 %" PRIu64
        " 90 0 120 230 17 90 7:1:0:0:0:0:0:%" PRIu64 "\n",
        a * 2048, 1000 + a, 8 * (1000 + a), 2000 + a, 8 * (2000 + a), a);
}

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Returns 0, or 1 if the value lists emitted are not what they must be. */
static int run(int devs, uint64_t n_areas, bool per_area, int reads) {
  devices = devs;
  areas = n_areas;
  make_text();
  struct dms_conf conf;
  dms_conf_init(&conf);
  conf.per_area = per_area;
  char err[128];
  if (dms_conf_finish(&conf, err, sizeof(err)) != 0)
    return 1;
  struct dms_ctx *ctx = dms_ctx_create(&conf, &lib, NULL, NULL);
  if (ctx == NULL)
    return 1;
  dms_read(ctx, 10.0, emit, NULL); /* warm: series created */
  emitted = 0;
  double t0 = cpu_seconds();
  for (int i = 0; i < reads; i++)
    dms_read(ctx, 10.0, emit, NULL);
  double per_read = (cpu_seconds() - t0) / reads;
  dms_ctx_destroy(ctx);
  dms_conf_free(&conf);
  free(print_text);
  /* 8 lists of counters + 8 histogram buckets per series */
  uint64_t series = (uint64_t)devs * (per_area ? n_areas : 1);
  uint64_t want = series * 16 * (uint64_t)reads;
  printf("%3d devices x %6" PRIu64 " areas, %-10s %9.1f us/read  "
         "%7.1f ns/area  (%" PRIu64 " value lists/read)\n",
         devs, n_areas, per_area ? "per area" : "per region", per_read * 1e6,
         per_read * 1e9 / (double)(devs * n_areas), series * 16);
  if (emitted != want) {
    printf("FAIL: %zu value lists, expected %" PRIu64 "\n", emitted, want);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  int fails = 0;
  if (argc > 1 && strcmp(argv[1], "--full") == 0) {
    static const uint64_t sizes[] = {1, 100, 10000};
    for (size_t i = 0; i < 3; i++) {
      int reads = sizes[i] >= 10000 ? 20 : 200;
      fails += run(10, sizes[i], false, reads);
      fails += run(10, sizes[i], true, reads);
    }
  } else {
    fails += run(2, 10, false, 3);
    fails += run(2, 10, true, 3);
    fails += run(2, 400, true, 2); /* 800 series: the table grows */
  }
  return fails != 0;
}
