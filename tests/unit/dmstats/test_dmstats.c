/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the dmstats core (dmstats/conf.c, core.c, parse.c) against
 * a fake libdevmapper behind struct dms_lib. The fake keeps, per device,
 * regions with running kernel counters; like the real library its
 * dm_stats_populate() hands out the counters since the previous populate
 * and clears them (libdm-stats.c prints with clear=1), and its plain print
 * renders the statistics.rst line format from the running counters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmstats/dmstats.h"

#define MAX_REGIONS 8
#define MAX_AREAS 4
#define MAX_FAKE_BINS 8
#define MAX_DEVICES 4
#define NS_PER_MS UINT64_C(1000000)

struct dm_histogram {
  int nr_bins;
  uint64_t upper[MAX_FAKE_BINS]; /* ns */
  uint64_t count[MAX_FAKE_BINS];
};

struct fake_region {
  bool present;
  char program[32];
  uint64_t nr_areas;
  bool precise;
  int nr_bins; /* 0: no histogram */
  uint64_t bounds[MAX_FAKE_BINS];
  uint64_t counters[MAX_AREAS][DM_STATS_NR_COUNTERS]; /* running, ns */
  uint64_t bins[MAX_AREAS][MAX_FAKE_BINS];
  uint64_t cleared[MAX_AREAS][DM_STATS_NR_COUNTERS]; /* at last populate */
  uint64_t cleared_bins[MAX_AREAS][MAX_FAKE_BINS];
  bool print_garbage; /* @stats_print answers something unexpected */
};

struct fake_device {
  char name[128]; /* DM_NAME_LEN */
  bool exists;
  struct fake_region regions[MAX_REGIONS];
  int create_errno; /* make stats_create_region fail with this */
  int deleted[MAX_REGIONS];
  int deleted_num;
};

struct dm_stats {
  struct fake_device *dev;
  bool populated;
  char filter[32];
  /* what populate handed out: deltas since the previous populate */
  uint64_t snap[MAX_REGIONS][MAX_AREAS][DM_STATS_NR_COUNTERS];
  struct dm_histogram hist[MAX_REGIONS][MAX_AREAS];
  struct dm_histogram list_bounds[MAX_REGIONS]; /* after a list */
};

static struct fake_device devices[MAX_DEVICES];
static int list_errno;
static int last_errno;
static int handles_open;

static struct fake_device *fake_device(const char *name) {
  for (int i = 0; i < MAX_DEVICES; i++)
    if (devices[i].exists && strcmp(devices[i].name, name) == 0)
      return &devices[i];
  return NULL;
}

static struct fake_device *add_fake_device(const char *name) {
  for (int i = 0; i < MAX_DEVICES; i++)
    if (!devices[i].exists) {
      memset(&devices[i], 0, sizeof(devices[i]));
      devices[i].exists = true;
      snprintf(devices[i].name, sizeof(devices[i].name), "%s", name);
      return &devices[i];
    }
  fail();
  return NULL;
}

static struct fake_region *add_fake_region(struct fake_device *dev,
                                           const char *program,
                                           uint64_t nr_areas, bool precise) {
  for (int i = 0; i < MAX_REGIONS; i++)
    if (!dev->regions[i].present) {
      struct fake_region *r = &dev->regions[i];
      memset(r, 0, sizeof(*r));
      r->present = true;
      snprintf(r->program, sizeof(r->program), "%s", program);
      r->nr_areas = nr_areas;
      r->precise = precise;
      return r;
    }
  fail();
  return NULL;
}

static int f_list_devices(void (*fn)(const char *, void *), void *arg) {
  if (list_errno)
    return list_errno;
  for (int i = 0; i < MAX_DEVICES; i++)
    if (devices[i].exists)
      fn(devices[i].name, arg);
  return 0;
}

static struct dm_stats *f_create(const char *program_id) {
  assert_string_equal(program_id, "collectd");
  handles_open++;
  return calloc(1, sizeof(struct dm_stats));
}

static void f_destroy(struct dm_stats *h) {
  handles_open--;
  free(h);
}

static int f_bind_name(struct dm_stats *h, const char *name) {
  h->dev = fake_device(name);
  return h->dev != NULL;
}

static bool visible(const struct dm_stats *h, uint64_t id) {
  if (id >= MAX_REGIONS || !h->dev->regions[id].present)
    return false;
  return !h->populated || h->filter[0] == '\0' ||
         strcmp(h->filter, h->dev->regions[id].program) == 0;
}

static int f_list(struct dm_stats *h, const char *program_id) {
  assert_string_equal(program_id, DM_STATS_ALL_PROGRAMS);
  h->populated = false;
  return 1;
}

static int f_populate(struct dm_stats *h, const char *program_id,
                      uint64_t region_id) {
  /* Populate clears: the plugin may use it on its own regions only. */
  assert_string_equal(program_id, "collectd");
  assert_true(region_id == DM_STATS_REGIONS_ALL);
  h->populated = true;
  snprintf(h->filter, sizeof(h->filter), "%s", program_id);
  for (uint64_t id = 0; id < MAX_REGIONS; id++) {
    struct fake_region *r = &h->dev->regions[id];
    if (!visible(h, id))
      continue;
    for (uint64_t a = 0; a < r->nr_areas; a++) {
      for (int c = 0; c < DM_STATS_NR_COUNTERS; c++) {
        uint64_t now = r->counters[a][c];
        h->snap[id][a][c] =
            c == DM_STATS_IO_IN_PROGRESS_COUNT ? now : now - r->cleared[a][c];
        r->cleared[a][c] = now;
      }
      struct dm_histogram *hist = &h->hist[id][a];
      hist->nr_bins = r->nr_bins;
      for (int b = 0; b < r->nr_bins; b++) {
        hist->upper[b] = r->bounds[b];
        hist->count[b] = r->bins[a][b] - r->cleared_bins[a][b];
        r->cleared_bins[a][b] = r->bins[a][b];
      }
    }
  }
  return 1;
}

static uint64_t f_nr_regions(const struct dm_stats *h) {
  uint64_t n = 0;
  for (uint64_t id = 0; id < MAX_REGIONS; id++)
    n += visible(h, id);
  return n;
}

static int f_region_present(const struct dm_stats *h, uint64_t id) {
  return visible(h, id);
}

static uint64_t f_nr_areas(const struct dm_stats *h, uint64_t id) {
  return h->dev->regions[id].nr_areas;
}

static const char *f_program_id(const struct dm_stats *h, uint64_t id) {
  return h->dev->regions[id].program;
}

static int f_precise(const struct dm_stats *h, uint64_t id) {
  return h->dev->regions[id].precise;
}

static uint64_t f_counter(const struct dm_stats *h, dm_stats_counter_t c,
                          uint64_t id, uint64_t area) {
  assert_true(h->populated);
  return h->snap[id][area][c];
}

/* Like libdm-stats.c: after a list (no counters yet) the region's bounds,
 * one "bin" per bound; after a populate the area's histogram. */
static struct dm_histogram *f_histogram(const struct dm_stats *h, uint64_t id,
                                        uint64_t area) {
  const struct fake_region *r = &h->dev->regions[id];
  if (r->nr_bins == 0)
    return NULL;
  if (!h->populated) { /* bounds plus the open-ended bin, UINT64_MAX */
    struct dm_histogram *b = (struct dm_histogram *)&h->list_bounds[id];
    b->nr_bins = r->nr_bins;
    memcpy(b->upper, r->bounds, sizeof(b->upper));
    b->upper[r->nr_bins - 1] = UINT64_MAX;
    return b;
  }
  return (struct dm_histogram *)&h->hist[id][area];
}

static int f_nr_bins(const struct dm_histogram *h) { return h->nr_bins; }
static uint64_t f_bin_upper(const struct dm_histogram *h, int b) {
  return h->upper[b];
}
static uint64_t f_bin_count(const struct dm_histogram *h, int b) {
  return h->count[b];
}

static int f_create_region(struct dm_stats *h, uint64_t *region_id,
                           uint64_t start, uint64_t len, int64_t step,
                           int precise, struct dm_histogram *bounds,
                           const char *program_id, const char *aux) {
  assert_int_equal(start, 0);
  assert_int_equal(len, 0);
  assert_string_equal(aux, DMS_AUX_DATA);
  if (h->dev->create_errno) {
    last_errno = h->dev->create_errno;
    return 0;
  }
  struct fake_region *r =
      add_fake_region(h->dev, program_id, (uint64_t)-step, precise);
  if (bounds != NULL) { /* n bounds: n + 1 bins, the last open-ended */
    r->nr_bins = bounds->nr_bins + 1;
    memcpy(r->bounds, bounds->upper, sizeof(r->bounds));
  }
  *region_id = (uint64_t)(r - h->dev->regions);
  return 1;
}

static int f_delete_region(struct dm_stats *h, uint64_t id) {
  h->dev->regions[id].present = false;
  h->dev->deleted[h->dev->deleted_num++] = (int)id;
  return 1;
}

static char *f_print_region(struct dm_stats *h, uint64_t id, unsigned start,
                            unsigned num, unsigned clear) {
  assert_int_equal(clear, 0); /* never @stats_print_clear */
  assert_int_equal(start, 0);
  assert_int_equal(num, 0);
  const struct fake_region *r = &h->dev->regions[id];
  char *text = calloc(1, 4096);
  if (r->print_garbage) {
    strcpy(text, "0+8 1 2 3 what\n");
    return text;
  }
  size_t used = 0;
  for (uint64_t a = 0; a < r->nr_areas; a++) {
    used +=
        (size_t)snprintf(text + used, 4096 - used, "%" PRIu64 "+100", a * 100);
    for (int c = 0; c < DM_STATS_NR_COUNTERS; c++) {
      uint64_t v = r->counters[a][c];
      bool time = c == DM_STATS_READ_NSECS || c == DM_STATS_WRITE_NSECS ||
                  c == DM_STATS_IO_NSECS || c == DM_STATS_WEIGHTED_IO_NSECS ||
                  c == DM_STATS_TOTAL_READ_NSECS ||
                  c == DM_STATS_TOTAL_WRITE_NSECS;
      if (time && !r->precise)
        v /= NS_PER_MS;
      used += (size_t)snprintf(text + used, 4096 - used, " %" PRIu64, v);
    }
    for (int b = 0; b < r->nr_bins; b++)
      used += (size_t)snprintf(text + used, 4096 - used, "%c%" PRIu64,
                               b ? ':' : ' ', r->bins[a][b]);
    used += (size_t)snprintf(text + used, 4096 - used, "\n");
  }
  return text;
}

static void f_buffer_destroy(struct dm_stats *h, char *buffer) {
  (void)h;
  free(buffer);
}

/* Only what the tests configure: "1ms,5ms" or "500ns,20us". */
static struct dm_histogram *f_bounds(const char *text) {
  struct dm_histogram *h = calloc(1, sizeof(*h));
  if (strcmp(text, "1ms,5ms") == 0) {
    h->upper[0] = 1 * NS_PER_MS;
    h->upper[1] = 5 * NS_PER_MS;
  } else if (strcmp(text, "500ns,20us") == 0) {
    h->upper[0] = 500;
    h->upper[1] = 20000;
  } else if (strcmp(text, "5ms,1ms") == 0) { /* libdevmapper takes it */
    h->upper[0] = 5 * NS_PER_MS;
    h->upper[1] = 1 * NS_PER_MS;
  } else {
    free(h);
    return NULL;
  }
  h->nr_bins = 2; /* a bounds object: one "bin" per bound */
  return h;
}

static void f_bounds_destroy(struct dm_histogram *h) { free(h); }

static int f_take_last_errno(void) {
  int e = last_errno;
  last_errno = 0;
  return e;
}

static long long f_allocated(void) { return 123456789; }

static const struct dms_lib fake_lib = {
    .list_devices = f_list_devices,
    .stats_create = f_create,
    .stats_destroy = f_destroy,
    .stats_bind_name = f_bind_name,
    .stats_list = f_list,
    .stats_populate = f_populate,
    .stats_get_nr_regions = f_nr_regions,
    .stats_region_present = f_region_present,
    .stats_get_region_nr_areas = f_nr_areas,
    .stats_get_region_program_id = f_program_id,
    .stats_get_region_precise_timestamps = f_precise,
    .stats_get_counter = f_counter,
    .stats_get_histogram = f_histogram,
    .histogram_get_nr_bins = f_nr_bins,
    .histogram_get_bin_upper = f_bin_upper,
    .histogram_get_bin_count = f_bin_count,
    .stats_create_region = f_create_region,
    .stats_delete_region = f_delete_region,
    .stats_print_region = f_print_region,
    .stats_buffer_destroy = f_buffer_destroy,
    .histogram_bounds_from_string = f_bounds,
    .histogram_bounds_destroy = f_bounds_destroy,
    .take_last_errno = f_take_last_errno,
    .stats_allocated_bytes = f_allocated,
};

/* ---- what the core emits and logs ---------------------------------------- */
#define MAX_EMITTED 256
struct emitted {
  char pi[128], type[64], ti[96];
  struct dms_value v[2];
  size_t n;
};
static struct emitted out[MAX_EMITTED];
static size_t out_num;
static char logged[16][512];
static enum dms_log_level logged_level[16];
static size_t logged_num;

static void emit(void *arg, const char *pi, const char *type, const char *ti,
                 const struct dms_value *v, size_t n) {
  (void)arg;
  assert_true(out_num < MAX_EMITTED);
  struct emitted *e = &out[out_num++];
  snprintf(e->pi, sizeof(e->pi), "%s", pi);
  snprintf(e->type, sizeof(e->type), "%s", type);
  snprintf(e->ti, sizeof(e->ti), "%s", ti);
  memcpy(e->v, v, n * sizeof(*v));
  e->n = n;
}

static void log_line(void *arg, enum dms_log_level level, const char *msg) {
  (void)arg;
  if (logged_num < 16) {
    snprintf(logged[logged_num], sizeof(logged[0]), "%s", msg);
    logged_level[logged_num] = level;
  }
  logged_num++;
}

static const struct emitted *find(const char *pi, const char *type,
                                  const char *ti) {
  for (size_t i = 0; i < out_num; i++)
    if (strcmp(out[i].pi, pi) == 0 && strcmp(out[i].type, type) == 0 &&
        strcmp(out[i].ti, ti) == 0)
      return &out[i];
  return NULL;
}

static int64_t value(const char *pi, const char *type, const char *ti,
                     size_t i) {
  const struct emitted *e = find(pi, type, ti);
  if (e == NULL)
    fail_msg("no %s %s %s emitted", pi, type, ti);
  return e->v[i].derive;
}

static size_t count_logged(const char *needle) {
  size_t n = 0;
  for (size_t i = 0; i < logged_num && i < 16; i++)
    n += strstr(logged[i], needle) != NULL;
  return n;
}

static struct dms_conf conf;

static int setup(void **state) {
  (void)state;
  memset(devices, 0, sizeof(devices));
  list_errno = last_errno = 0;
  out_num = logged_num = 0;
  handles_open = 0;
  dms_conf_init(&conf);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  dms_conf_free(&conf);
  return 0;
}

static struct dms_ctx *start(void) {
  char err[256] = "";
  assert_int_equal(dms_conf_finish(&conf, err, sizeof(err)), 0);
  struct dms_ctx *ctx = dms_ctx_create(&conf, &fake_lib, log_line, NULL);
  assert_non_null(ctx);
  return ctx;
}

static size_t read_once(struct dms_ctx *ctx, double interval) {
  out_num = 0;
  return dms_read(ctx, interval, emit, NULL);
}

/* I/O on every region of a device: reads/writes of 8 sectors, ms each. */
static void do_io(struct fake_device *dev, uint64_t id, uint64_t area,
                  uint64_t reads, uint64_t writes, uint64_t ms_each) {
  uint64_t *c = dev->regions[id].counters[area];
  c[DM_STATS_READS_COUNT] += reads;
  c[DM_STATS_READ_SECTORS_COUNT] += 8 * reads;
  c[DM_STATS_READ_NSECS] += reads * ms_each * NS_PER_MS;
  c[DM_STATS_TOTAL_READ_NSECS] += reads * ms_each * NS_PER_MS;
  c[DM_STATS_WRITES_COUNT] += writes;
  c[DM_STATS_WRITES_MERGED_COUNT] += writes / 2;
  c[DM_STATS_WRITE_SECTORS_COUNT] += 8 * writes;
  c[DM_STATS_WRITE_NSECS] += writes * ms_each * NS_PER_MS;
  c[DM_STATS_TOTAL_WRITE_NSECS] += writes * ms_each * NS_PER_MS;
  c[DM_STATS_IO_NSECS] += (reads + writes) * ms_each * NS_PER_MS;
  c[DM_STATS_WEIGHTED_IO_NSECS] += 2 * (reads + writes) * ms_each * NS_PER_MS;
}

/* ---- configuration ---------------------------------------------------------
 */

/* One option by name, as collectd.conf gives it, through the plugin's
 * option rows. */
static int set_string(const char *key, const char *value, char *err,
                      size_t errlen) {
  const struct zvm_option_value v = {.type = ZVM_OPTION_STRING,
                                     .string = value};
  return dms_conf_set(&conf, key, &v, err, errlen);
}

static int set_boolean(const char *key, bool value, char *err, size_t errlen) {
  const struct zvm_option_value v = {.type = ZVM_OPTION_BOOLEAN,
                                     .boolean = value};
  return dms_conf_set(&conf, key, &v, err, errlen);
}

static int set_number(const char *key, double value, char *err, size_t errlen) {
  const struct zvm_option_value v = {.type = ZVM_OPTION_NUMBER,
                                     .number = value};
  return dms_conf_set(&conf, key, &v, err, errlen);
}

static bool device_selected(const char *name) {
  return zvm_select_match(&conf.devices, name);
}

static void test_conf_selection(void **state) {
  (void)state;
  char err[256];
  assert_true(device_selected("anything"));
  assert_int_equal(set_string("Device", "vg-root", err, sizeof(err)), 0);
  assert_int_equal(set_string("device", "/^mpath[a-z]+$/", err, sizeof(err)),
                   0);
  assert_true(device_selected("vg-root"));
  assert_true(device_selected("mpatha"));
  assert_false(device_selected("vg-root2"));
  assert_false(device_selected("mpath1"));
  /* Device names are compared as device-mapper spells them. */
  assert_false(device_selected("VG-ROOT"));
  assert_int_equal(set_boolean("IgnoreSelected", true, err, sizeof(err)), 0);
  assert_false(device_selected("vg-root"));
  assert_true(device_selected("mpath1"));
  assert_int_equal(set_string("Device", "/([/", err, sizeof(err)), -1);
  assert_non_null(strstr(err, "bad regular expression"));
  assert_int_equal(set_string("Device", "", err, sizeof(err)), -1);
  assert_string_equal(err,
                      "Device \"\": empty name (use an exact name or /regex/)");
  /* An empty regular expression is undefined in POSIX: refused, as
   * zvm_monitor's and hypfs's selections refuse it. */
  assert_int_equal(set_string("Device", "//", err, sizeof(err)), -1);
  assert_string_equal(err, "Device \"//\": empty regular expression");
  /* The reason quotes the configuration's text on one line. */
  assert_int_equal(set_string("Device", "/(\n/", err, sizeof(err)), -1);
  assert_null(strchr(err, '\n'));
  assert_int_equal(set_string("Devices", "x", err, sizeof(err)), -1);
  assert_string_equal(err,
                      "unknown option \"Devices\" (see collectd-dmstats(5) "
                      "for the options)");
  assert_int_equal(set_number("Device", 1, err, sizeof(err)), -1);
  assert_string_equal(err, "Device: exactly one string value is required");
}

static void test_conf_programs(void **state) {
  (void)state;
  char err[256];
  assert_int_equal(dms_conf_finish(&conf, err, sizeof(err)), 0);
  assert_string_equal(conf.own_program_id, "collectd");
  assert_true(dms_program_selected(&conf, "anyone"));
  assert_int_equal(set_string("ProgramID", "dmstats", err, sizeof(err)), 0);
  assert_true(dms_program_selected(&conf, "dmstats"));
  assert_true(dms_program_selected(&conf, "collectd")); /* our own */
  assert_false(dms_program_selected(&conf, "other"));
  /* a number would be taken for the count of optional arguments */
  assert_int_equal(set_string("ProgramID", "42", err, sizeof(err)), -1);
  assert_int_equal(set_string("ProgramID", "a b", err, sizeof(err)), -1);
  assert_int_equal(set_string("RegionProgramID", "7", err, sizeof(err)), -1);
  assert_int_equal(set_string("RegionProgramID", "", err, sizeof(err)), -1);
  assert_string_equal(err, "RegionProgramID: empty value");
  assert_int_equal(set_string("RegionProgramID", "mine", err, sizeof(err)), 0);
  assert_string_equal(conf.own_program_id, "mine");
}

static void test_conf_needs_create_regions(void **state) {
  (void)state;
  char err[256] = "";
  assert_int_equal(set_string("Histogram", "1ms,5ms", err, sizeof(err)), 0);
  assert_int_equal(dms_conf_finish(&conf, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "CreateRegions"));
  assert_int_equal(set_boolean("CreateRegions", true, err, sizeof(err)), 0);
  assert_int_equal(dms_conf_finish(&conf, err, sizeof(err)), 0);
  assert_int_equal(set_number("Areas", 0, err, sizeof(err)), -1);
  assert_string_equal(err, "Areas 0: must be between 1 and 1000000");
  assert_int_equal(set_number("Areas", 0.5, err, sizeof(err)), -1);
  assert_int_equal(set_number("Areas", 1000001, err, sizeof(err)), -1);
  assert_int_equal(set_number("Areas", 4.5, err, sizeof(err)), 0);
  assert_int_equal(conf.areas, 4);
}

static void test_bad_histogram_refused(void **state) {
  (void)state;
  conf.create_regions = true;
  conf.histogram = strdup("5ms,1ms");
  char err[256];
  assert_int_equal(dms_conf_finish(&conf, err, sizeof(err)), 0);
  assert_null(dms_ctx_create(&conf, &fake_lib, log_line, NULL));
  assert_int_equal(count_logged("Histogram \"5ms,1ms\""), 1);
}

/* ---- @stats_print parsing
 * ---------------------------------------------------- */

static void test_parse_print(void **state) {
  (void)state;
  uint64_t c[3][DM_STATS_NR_COUNTERS];
  const char *text = "0+1024 1 2 3 4 5 6 7 8 0 10 11 12 13\n"
                     "1024+1024 9 0 72 1 0 0 0 0 2 1 1 1 0\n";
  assert_int_equal(dms_parse_print(text, false, &c[0][0], 0, NULL, 3), 2);
  assert_int_equal(c[0][DM_STATS_READS_COUNT], 1);
  assert_int_equal(c[0][DM_STATS_READ_SECTORS_COUNT], 3);
  assert_int_equal(c[0][DM_STATS_READ_NSECS], 4 * NS_PER_MS);
  assert_int_equal(c[0][DM_STATS_WRITE_SECTORS_COUNT], 7);
  assert_int_equal(c[0][DM_STATS_TOTAL_WRITE_NSECS], 13 * NS_PER_MS);
  assert_int_equal(c[1][DM_STATS_IO_IN_PROGRESS_COUNT], 2);
  assert_int_equal(dms_parse_print(text, true, &c[0][0], 0, NULL, 3), 2);
  assert_int_equal(c[0][DM_STATS_READ_NSECS], 4); /* precise: ns already */
  /* a histogram field is skipped */
  assert_int_equal(dms_parse_print("0+8 1 0 8 0 0 0 0 0 0 0 0 0 0 1:0:0\n",
                                   false, &c[0][0], 0, NULL, 3),
                   1);
  /* a region with a histogram of 3 bins: exactly 3 counts per line */
  uint64_t bins[2][3];
  const char *hist = "0+8 1 0 8 0 0 0 0 0 0 0 0 0 0 4:5:6\n"
                     "8+8 1 0 8 0 0 0 0 0 0 0 0 0 0 0:0:1\n";
  assert_int_equal(dms_parse_print(hist, false, &c[0][0], 3, &bins[0][0], 2),
                   2);
  assert_int_equal(bins[0][1], 5);
  assert_int_equal(bins[1][2], 1);
  assert_int_equal(dms_parse_print(hist, false, &c[0][0], 2, &bins[0][0], 2),
                   -1);
  assert_int_equal(dms_parse_print("0+8 1 0 8 0 0 0 0 0 0 0 0 0 0\n", false,
                                   &c[0][0], 3, &bins[0][0], 2),
                   -1);
  /* more areas than the region has, short lines, junk, overflow */
  assert_int_equal(dms_parse_print(text, false, &c[0][0], 0, NULL, 1), -1);
  assert_int_equal(dms_parse_print("0+8 1 2 3\n", false, &c[0][0], 0, NULL, 3),
                   -1);
  assert_int_equal(dms_parse_print("0+8 1 0 8 0 0 0 0 0 0 0 0 0 x\n", false,
                                   &c[0][0], 0, NULL, 3),
                   -1);
  assert_int_equal(dms_parse_print("0+8 99999999999999999999 0 8 0 0 0 0 0 0 "
                                   "0 0 0 0\n",
                                   false, &c[0][0], 0, NULL, 3),
                   -1);
  assert_int_equal(dms_parse_print("0+8 1 0 8 99999999999999999 0 0 0 0 0 0 "
                                   "0 0 0\n",
                                   false, &c[0][0], 0, NULL, 3),
                   -1); /* ms x 10^6 overflows */
  assert_int_equal(dms_parse_print("", false, &c[0][0], 0, NULL, 3), 0);
}

/* The kernel prints in-flight signed ("%d", Linux
 * drivers/md/dm-stats.c): a transient negative count is 0, and the
 * fields after it are read as usual. A sign anywhere else is junk. */
static void test_parse_print_negative_in_flight(void **state) {
  (void)state;
  uint64_t c[2][DM_STATS_NR_COUNTERS];
  memset(c, 0xff, sizeof(c));
  assert_int_equal(dms_parse_print("0+8 1 2 3 4 5 6 7 8 -3 10 11 12 13\n"
                                   "8+8 1 2 3 4 5 6 7 8 4 10 11 12 13\n",
                                   true, &c[0][0], 0, NULL, 2),
                   2);
  assert_int_equal(c[0][DM_STATS_IO_IN_PROGRESS_COUNT], 0);
  assert_int_equal(c[0][DM_STATS_WRITE_NSECS], 8);
  assert_int_equal(c[0][DM_STATS_IO_NSECS], 10);
  assert_int_equal(c[0][DM_STATS_TOTAL_WRITE_NSECS], 13);
  assert_int_equal(c[1][DM_STATS_IO_IN_PROGRESS_COUNT], 4);
  assert_int_equal(dms_parse_print("0+8 1 2 3 4 5 6 7 8 - 10 11 12 13\n", true,
                                   &c[0][0], 0, NULL, 2),
                   -1);
  assert_int_equal(dms_parse_print("0+8 1 2 3 4 5 6 7 -8 3 10 11 12 13\n", true,
                                   &c[0][0], 0, NULL, 2),
                   -1);
}

/* ---- the plugin's own regions
 * ------------------------------------------------ */

static void test_own_region_created_and_accumulated(void **state) {
  (void)state;
  struct fake_device *dev = add_fake_device("vg-data");
  conf.create_regions = true;
  conf.histogram = strdup("1ms,5ms");
  struct dms_ctx *ctx = start();

  read_once(ctx, 10.0);
  assert_true(dev->regions[0].present);
  assert_string_equal(dev->regions[0].program, "collectd");
  assert_int_equal(value("vg-data_r0", "disk_ops", "", 0), 0);

  do_io(dev, 0, 0, 10, 20, 2);
  dev->regions[0].bins[0][0] += 5;
  dev->regions[0].bins[0][1] += 25;
  read_once(ctx, 10.0);
  assert_int_equal(value("vg-data_r0", "disk_ops", "", 0), 10);
  assert_int_equal(value("vg-data_r0", "disk_ops", "", 1), 20);
  /* populate cleared the kernel's counters: totals are ours */
  do_io(dev, 0, 0, 1, 2, 2);
  dev->regions[0].bins[0][2] += 3;
  read_once(ctx, 10.0);
  assert_int_equal(value("vg-data_r0", "disk_ops", "", 0), 11);
  assert_int_equal(value("vg-data_r0", "disk_ops", "", 1), 22);
  assert_int_equal(value("vg-data_r0", "disk_merged", "", 1), 11);
  assert_int_equal(value("vg-data_r0", "disk_octets", "", 0), 11 * 8 * 512);
  assert_int_equal(value("vg-data_r0", "disk_octets", "", 1), 22 * 8 * 512);
  assert_int_equal(value("vg-data_r0", "disk_io_time", "", 0), 33 * 2);
  assert_int_equal(value("vg-data_r0", "disk_io_time", "", 1), 33 * 4);
  assert_int_equal(value("vg-data_r0", "total_time_in_ms", "read", 0), 22);
  assert_int_equal(value("vg-data_r0", "total_time_in_ms", "write", 0), 44);
  /* histogram buckets: names carry the bounds in ms (not precise) */
  assert_int_equal(value("vg-data_r0", "derive", "latency-0ms-1ms", 0), 5);
  assert_int_equal(value("vg-data_r0", "derive", "latency-1ms-5ms", 0), 25);
  assert_int_equal(value("vg-data_r0", "derive", "latency-5ms-inf", 0), 3);
  const struct emitted *p = find("vg-data_r0", "pending_operations", "");
  assert_non_null(p);
  assert_true(p->v[0].is_gauge);

  dms_ctx_destroy(ctx);
  /* shutdown deletes the region it created */
  assert_int_equal(dev->deleted_num, 1);
  assert_int_equal(dev->deleted[0], 0);
  assert_int_equal(handles_open, 0);
}

static void test_precise_histogram_names_in_ns(void **state) {
  (void)state;
  struct fake_device *dev = add_fake_device("d");
  conf.create_regions = true;
  conf.precise_timestamps = true;
  conf.histogram = strdup("500ns,20us");
  struct dms_ctx *ctx = start();
  read_once(ctx, 10.0);
  assert_true(dev->regions[0].precise);
  dev->regions[0].bins[0][1] = 7;
  read_once(ctx, 10.0);
  assert_int_equal(value("d_r0", "derive", "latency-0ns-500ns", 0), 0);
  assert_int_equal(value("d_r0", "derive", "latency-500ns-20000ns", 0), 7);
  assert_int_equal(value("d_r0", "derive", "latency-20000ns-inf", 0), 0);
  dms_ctx_destroy(ctx);
}

/* collectd 5.12's disk plugin: disk_time grows by interval x average ms
 * per operation, so its rate is the average latency. */
static void test_disk_time_like_disk_plugin(void **state) {
  (void)state;
  struct fake_device *dev = add_fake_device("d");
  conf.create_regions = true;
  struct dms_ctx *ctx = start();
  read_once(ctx, 10.0);
  do_io(dev, 0, 0, 4, 2, 3); /* 3 ms each */
  read_once(ctx, 10.0);
  assert_int_equal(value("d_r0", "disk_time", "", 0), 30);
  assert_int_equal(value("d_r0", "disk_time", "", 1), 30);
  read_once(ctx, 10.0); /* no I/O: unchanged */
  assert_int_equal(value("d_r0", "disk_time", "", 0), 30);
  do_io(dev, 0, 0, 1, 0, 7);
  read_once(ctx, 10.0);
  assert_int_equal(value("d_r0", "disk_time", "", 0), 100);
  dms_ctx_destroy(ctx);
}

static void test_per_area(void **state) {
  (void)state;
  struct fake_device *dev = add_fake_device("d");
  conf.create_regions = true;
  conf.per_area = true;
  conf.areas = 2;
  struct dms_ctx *ctx = start();
  read_once(ctx, 10.0);
  assert_int_equal(dev->regions[0].nr_areas, 2);
  do_io(dev, 0, 1, 3, 0, 1);
  read_once(ctx, 10.0);
  assert_int_equal(value("d_r0_a0", "disk_ops", "", 0), 0);
  assert_int_equal(value("d_r0_a1", "disk_ops", "", 0), 3);
  assert_null(find("d_r0", "disk_ops", ""));
  dms_ctx_destroy(ctx);
}

static void test_leftover_own_region_adopted(void **state) {
  (void)state;
  struct fake_device *dev = add_fake_device("d");
  add_fake_region(dev, "collectd", 1, false);
  conf.create_regions = true;
  struct dms_ctx *ctx = start();
  read_once(ctx, 10.0);
  assert_false(dev->regions[1].present); /* no second region */
  assert_int_equal(count_logged("using the existing region 0"), 1);
  dms_ctx_destroy(ctx);
  assert_int_equal(dev->deleted_num, 1);
}

static void test_own_region_deleted_by_someone_is_recreated(void **state) {
  (void)state;
  struct fake_device *dev = add_fake_device("d");
  conf.create_regions = true;
  struct dms_ctx *ctx = start();
  read_once(ctx, 10.0);
  dev->regions[0].present = false;
  read_once(ctx, 10.0);
  assert_true(dev->regions[0].present);
  assert_int_equal(count_logged("deleted by someone else"), 1);
  dms_ctx_destroy(ctx);
}

/* ---- other programs' regions
 * --------------------------------------------------- */

static void test_foreign_region_read_without_clearing(void **state) {
  (void)state;
  struct fake_device *dev = add_fake_device("mpatha");
  add_fake_region(dev, "dmstats", 2, false);
  do_io(dev, 0, 0, 5, 5, 1);
  do_io(dev, 0, 1, 1, 3, 1);
  struct dms_ctx *ctx = start();
  read_once(ctx, 10.0);
  /* since region creation, summed over both areas */
  assert_int_equal(value("mpatha_r0", "disk_ops", "", 0), 6);
  assert_int_equal(value("mpatha_r0", "disk_ops", "", 1), 8);
  assert_int_equal(value("mpatha_r0", "total_time_in_ms", "write", 0), 8);
  /* the kernel counters are untouched (the fake asserts clear == 0) */
  assert_int_equal(dev->regions[0].counters[0][DM_STATS_READS_COUNT], 5);
  do_io(dev, 0, 0, 2, 0, 1);
  read_once(ctx, 10.0);
  assert_int_equal(value("mpatha_r0", "disk_ops", "", 0), 8);
  dms_ctx_destroy(ctx);
  assert_int_equal(dev->deleted_num, 0); /* never deleted */
  assert_true(dev->regions[0].present);
}

static void test_foreign_region_recreated_without_spike(void **state) {
  (void)state;
  struct fake_device *dev = add_fake_device("d");
  add_fake_region(dev, "dmstats", 1, false);
  do_io(dev, 0, 0, 100, 50, 1);
  struct dms_ctx *ctx = start();
  read_once(ctx, 10.0);
  assert_int_equal(value("d_r0", "disk_ops", "", 0), 100);
  /* deleted and re-created: counters restart from zero */
  dev->regions[0].present = false;
  read_once(ctx, 10.0);
  assert_null(find("d_r0", "disk_ops", ""));
  add_fake_region(dev, "dmstats", 1, false);
  do_io(dev, 0, 0, 7, 1, 1);
  read_once(ctx, 10.0);
  assert_int_equal(value("d_r0", "disk_ops", "", 0), 107);
  assert_int_equal(value("d_r0", "disk_ops", "", 1), 51);
  /* cleared by its owner (@stats_clear): same */
  memset(dev->regions[0].counters, 0, sizeof(dev->regions[0].counters));
  do_io(dev, 0, 0, 2, 0, 1);
  read_once(ctx, 10.0);
  assert_int_equal(value("d_r0", "disk_ops", "", 0), 109);
  dms_ctx_destroy(ctx);
}

static void test_foreign_region_histogram(void **state) {
  (void)state;
  struct fake_device *dev = add_fake_device("d");
  struct fake_region *r = add_fake_region(dev, "dmstats", 2, false);
  r->nr_bins = 3;
  r->bounds[0] = 1 * NS_PER_MS;
  r->bounds[1] = 10 * NS_PER_MS;
  r->bins[0][0] = 4;
  r->bins[1][0] = 1;
  r->bins[1][2] = 2;
  struct dms_ctx *ctx = start();
  read_once(ctx, 10.0);
  assert_int_equal(value("d_r0", "derive", "latency-0ms-1ms", 0), 5);
  assert_int_equal(value("d_r0", "derive", "latency-1ms-10ms", 0), 0);
  assert_int_equal(value("d_r0", "derive", "latency-10ms-inf", 0), 2);
  r->bins[0][1] = 3;
  read_once(ctx, 10.0);
  assert_int_equal(value("d_r0", "derive", "latency-1ms-10ms", 0), 3);
  assert_int_equal(value("d_r0", "derive", "latency-0ms-1ms", 0), 5);
  assert_int_equal(r->bins[0][0], 4); /* never cleared */
  dms_ctx_destroy(ctx);
}

/* One bad region next to a good one: said once, not at every read. */
static void test_unreadable_region_said_once(void **state) {
  (void)state;
  struct fake_device *dev = add_fake_device("d");
  add_fake_region(dev, "dmstats", 1, false)->print_garbage = true;
  add_fake_region(dev, "dmstats", 1, false);
  struct dms_ctx *ctx = start();
  for (int i = 0; i < 4; i++)
    read_once(ctx, 10.0);
  assert_null(find("d_r0", "disk_ops", ""));
  assert_non_null(find("d_r1", "disk_ops", ""));
  assert_int_equal(logged_num, 1);
  assert_non_null(strstr(logged[0], "unexpected @stats_print response"));
  dev->regions[0].print_garbage = false;
  read_once(ctx, 10.0);
  assert_non_null(find("d_r0", "disk_ops", ""));
  assert_int_equal(logged_num, 2);
  assert_int_equal(logged_level[1], DMS_LOG_INFO);
  dms_ctx_destroy(ctx);
}

static void test_program_filter(void **state) {
  (void)state;
  struct fake_device *dev = add_fake_device("d");
  add_fake_region(dev, "dmstats", 1, false);
  add_fake_region(dev, "pcp", 1, false);
  char err[128];
  assert_int_equal(set_string("ProgramID", "pcp", err, sizeof(err)), 0);
  struct dms_ctx *ctx = start();
  read_once(ctx, 10.0);
  assert_null(find("d_r0", "disk_ops", ""));
  assert_non_null(find("d_r1", "disk_ops", ""));
  dms_ctx_destroy(ctx);
}

static void test_device_selection_and_names(void **state) {
  (void)state;
  add_fake_device("vg-root");
  add_fake_device("crypt.home/x");
  struct fake_device *skip = add_fake_device("other");
  add_fake_region(fake_device("vg-root"), "p", 1, false);
  add_fake_region(fake_device("crypt.home/x"), "p", 1, false);
  add_fake_region(skip, "p", 1, false);
  char err[128];
  assert_int_equal(set_string("Device", "/^(vg|crypt)/", err, sizeof(err)), 0);
  struct dms_ctx *ctx = start();
  read_once(ctx, 10.0);
  assert_non_null(find("vg-root_r0", "disk_ops", ""));
  /* bytes outside [A-Za-z0-9_+-] are escaped %XX */
  assert_non_null(find("crypt%2Ehome%2Fx_r0", "disk_ops", ""));
  assert_null(find("other_r0", "disk_ops", ""));
  assert_int_equal(handles_open, 2);
  /* a device that goes away is forgotten, its regions with it */
  fake_device("vg-root")->exists = false;
  read_once(ctx, 10.0);
  assert_int_equal(handles_open, 1);
  dms_ctx_destroy(ctx);
  assert_int_equal(handles_open, 0);
}

/* Names too long for collectd's 127 bytes once escaped (device-mapper
 * allows 127): a readable prefix, "~" and the hash of the whole name,
 * then the region; two long names differing only at their end stay two
 * instances, each with its own counters. */
static void test_long_names_stay_distinct(void **state) {
  (void)state;
  char a[96] = "", b[96];
  for (int i = 0; i < 31; i++)
    strcat(a, "db.");
  strcat(a, "xa");
  assert_int_equal(strlen(a), 95);
  snprintf(b, sizeof(b), "%s", a);
  b[94] = 'b';
  struct fake_device *da = add_fake_device(a), *db = add_fake_device(b);
  add_fake_region(da, "dmstats", 1, false);
  add_fake_region(db, "dmstats", 1, false);
  do_io(da, 0, 0, 6, 0, 1);
  do_io(db, 0, 0, 3, 0, 1);
  struct dms_ctx *ctx = start();
  read_once(ctx, 10.0);
  const struct emitted *ops[2];
  size_t n = 0;
  for (size_t i = 0; i < out_num; i++)
    if (strcmp(out[i].type, "disk_ops") == 0) {
      assert_true(n < 2);
      ops[n++] = &out[i];
    }
  assert_int_equal(n, 2);
  assert_string_not_equal(ops[0]->pi, ops[1]->pi);
  for (size_t i = 0; i < 2; i++) {
    const char *pi = ops[i]->pi, *tilde = strchr(pi, '~');
    print_message("%s\n", pi);
    assert_true(strlen(pi) <= 127);
    assert_int_equal(strncmp(pi, "db%2Edb%2Edb%2E", 15), 0);
    assert_non_null(tilde);
    /* the prefix ends at an escape's edge, the hash is 8 hex digits */
    assert_null(memchr(tilde - 2, '%', 2));
    assert_int_equal(strspn(tilde + 1, "0123456789abcdef"), 8);
    assert_string_equal(tilde + 9, "_r0");
  }
  assert_int_equal(ops[0]->v[0].derive + ops[1]->v[0].derive, 9);
  assert_int_equal(ops[0]->v[0].derive * ops[1]->v[0].derive, 18);
  /* the same names on the next read: the same instances */
  char first[128];
  snprintf(first, sizeof(first), "%s", ops[0]->pi);
  int64_t reads = ops[0]->v[0].derive;
  read_once(ctx, 10.0);
  assert_int_equal(value(first, "disk_ops", "", 0), reads);
  dms_ctx_destroy(ctx);
}

/* ---- errors: clear, and said once
 * ------------------------------------------------ */

static void test_no_device_mapper_said_once(void **state) {
  (void)state;
  list_errno = ENOENT;
  struct dms_ctx *ctx = start();
  for (int i = 0; i < 5; i++)
    assert_int_equal(read_once(ctx, 10.0), 0);
  assert_int_equal(logged_num, 1);
  assert_int_equal(logged_level[0], DMS_LOG_ERR);
  assert_non_null(strstr(logged[0], "modprobe dm_mod"));
  list_errno = 0;
  read_once(ctx, 10.0);
  assert_int_equal(logged_num, 2);
  assert_non_null(strstr(logged[1], "available again"));
  dms_ctx_destroy(ctx);
}

static void test_no_privilege_said_once(void **state) {
  (void)state;
  list_errno = EACCES;
  struct dms_ctx *ctx = start();
  read_once(ctx, 10.0);
  read_once(ctx, 10.0);
  assert_int_equal(logged_num, 1);
  assert_non_null(strstr(logged[0], "CAP_SYS_ADMIN"));
  dms_ctx_destroy(ctx);
}

static void test_memory_limit_said_once(void **state) {
  (void)state;
  struct fake_device *dev = add_fake_device("big");
  dev->create_errno = ENOMEM;
  conf.create_regions = true;
  struct dms_ctx *ctx = start();
  for (int i = 0; i < 4; i++)
    read_once(ctx, 10.0);
  assert_int_equal(logged_num, 1);
  assert_non_null(strstr(logged[0], "stats_current_allocated_bytes"));
  assert_non_null(strstr(logged[0], "123456789 bytes in use"));
  /* the limit no longer bites: created, and said so */
  dev->create_errno = 0;
  read_once(ctx, 10.0);
  assert_true(dev->regions[0].present);
  assert_int_equal(count_logged("statistics region created"), 1);
  dms_ctx_destroy(ctx);
}

static void test_request_based_device_explained(void **state) {
  (void)state;
  add_fake_device("mpathb")->create_errno = EOPNOTSUPP;
  conf.create_regions = true;
  struct dms_ctx *ctx = start();
  read_once(ctx, 10.0);
  read_once(ctx, 10.0);
  assert_int_equal(logged_num, 1);
  assert_non_null(strstr(logged[0], "device mpathb"));
  assert_non_null(strstr(logged[0], "bio-based devices only"));
  dms_ctx_destroy(ctx);
}

/* A region gone for good is forgotten after DMS_FORGET_AFTER_READS reads;
 * one that comes back sooner continues its totals. */
static void test_absent_series_forgotten(void **state) {
  (void)state;
  struct fake_device *dev = add_fake_device("d");
  add_fake_region(dev, "p", 1, false);
  do_io(dev, 0, 0, 10, 0, 1);
  struct dms_ctx *ctx = start();
  read_once(ctx, 10.0);
  dev->regions[0].present = false;
  for (int i = 0; i < DMS_FORGET_AFTER_READS; i++)
    read_once(ctx, 10.0);
  dev->regions[0].present = true;
  dev->regions[0].counters[0][DM_STATS_READS_COUNT] = 1;
  read_once(ctx, 10.0);
  assert_int_equal(value("d_r0", "disk_ops", "", 0), 11);
  dev->regions[0].present = false;
  for (int i = 0; i < DMS_FORGET_AFTER_READS + 1; i++)
    read_once(ctx, 10.0);
  dev->regions[0].present = true;
  read_once(ctx, 10.0);
  assert_int_equal(value("d_r0", "disk_ops", "", 0), 1);
  dms_ctx_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_conf_selection, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conf_programs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conf_needs_create_regions, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_bad_histogram_refused, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_parse_print, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parse_print_negative_in_flight,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_own_region_created_and_accumulated,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_precise_histogram_names_in_ns, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_disk_time_like_disk_plugin, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_per_area, setup, teardown),
      cmocka_unit_test_setup_teardown(test_leftover_own_region_adopted, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(
          test_own_region_deleted_by_someone_is_recreated, setup, teardown),
      cmocka_unit_test_setup_teardown(test_foreign_region_read_without_clearing,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_foreign_region_recreated_without_spike, setup, teardown),
      cmocka_unit_test_setup_teardown(test_foreign_region_histogram, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_unreadable_region_said_once, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_program_filter, setup, teardown),
      cmocka_unit_test_setup_teardown(test_device_selection_and_names, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_long_names_stay_distinct, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_no_device_mapper_said_once, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_no_privilege_said_once, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_memory_limit_said_once, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_request_based_device_explained,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_absent_series_forgotten, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
