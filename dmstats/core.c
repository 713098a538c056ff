/* SPDX-License-Identifier: MIT */
/*
 * dmstats - the read pass: devices, regions, counters and their mapping to
 * collectd-style values.
 *
 * Two kinds of regions (statistics.rst, "program_id"):
 *  - the plugin's own (program_id == RegionProgramID), read with
 *    dm_stats_populate(), which prints *and clears* them
 *    (libdm-stats.c: _stats_print_region(..., clear=1)); their counters are
 *    deltas since the previous read and are summed here;
 *  - other programs' regions, never cleared: read with a plain @stats_print
 *    and accumulated from the kernel's running counters, so a region that
 *    is deleted and re-created (counters restart) continues without a
 *    spike.
 * Every dispatched counter is thus our own running total (DERIVE).
 */
#include "base/util.h"
#include "dmstats/dmstats.h"
#include "zvm_monitor/decode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_MS 1000000u
#define AREA_ALL UINT64_MAX
/* Region ids are small integers handed out by the kernel; a list that
 * claims more regions than this many ids is not walked further. */
#define MAX_REGION_ID (1u << 20)

/* Running totals of one region or area, found by hash (a region may have
 * many areas, and PerArea makes each a series); the table doubles when it
 * holds twice as many series as buckets. */
#define SERIES_MIN_BUCKETS 256
struct series {
  struct series *next;
  char *device;
  uint64_t region;
  uint64_t area; /* AREA_ALL: the sum over the region's areas */
  uint64_t signature;
  uint64_t hash;
  unsigned long last_read;
  uint64_t last_raw[DM_STATS_NR_COUNTERS];
  uint64_t total[DM_STATS_NR_COUNTERS];
  int nr_bins;
  uint64_t *last_raw_bins; /* [nr_bins] */
  uint64_t *total_bins;    /* [nr_bins] */
  /* disk_time as collectd's disk plugin (5.12) computes it. */
  bool have_prev;
  uint64_t prev_ops[2], prev_time_ns[2];
  double avg_time_ms[2];
};

struct device {
  struct device *next;
  char *name;
  struct dm_stats *dms;
  bool own_region; /* own_region_id was created (or adopted) by us */
  uint64_t own_region_id;
  unsigned long last_seen;
  int list_err;   /* last logged failure of @stats_list (0: none) */
  int create_err; /* last logged failure of @stats_create (0: none) */
  int read_err;   /* last logged failure to read a region (0: none) */
};

struct dms_ctx {
  const struct dms_conf *conf;
  const struct dms_lib *lib;
  dms_log_fn log;
  void *log_arg;
  struct device *devices;
  struct series **series; /* [buckets] */
  size_t buckets;
  size_t series_num;
  unsigned long read_no;
  int global_err; /* last logged failure to list devices (0: none) */
  struct dm_histogram *bounds;
  /* per pass */
  double interval_s;
  dms_emit_fn emit;
  void *emit_arg;
  size_t emitted;
};

/* What one region holds after a read, before mapping. */
struct region_read {
  uint64_t id;
  bool precise;
  bool absolute; /* running kernel counters (true) or deltas (false) */
  uint64_t signature;
  uint64_t nr_areas;
  uint64_t *counters; /* [nr_areas][DM_STATS_NR_COUNTERS], times in ns */
  int nr_bins;
  uint64_t bounds[DMS_MAX_BINS]; /* upper bound of each bin, ns */
  uint64_t *bins;                /* [nr_areas][nr_bins] */
};

static void logf_(struct dms_ctx *ctx, enum dms_log_level level,
                  const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void logf_(struct dms_ctx *ctx, enum dms_log_level level,
                  const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (ctx->log != NULL)
    ctx->log(ctx->log_arg, level, msg);
}

static const char *errno_advice(int err) {
  switch (err) {
  case ENOENT:
  case ENODEV:
  case ENXIO:
    return "device-mapper is not available (no /dev/mapper/control): load "
           "the dm_mod module (modprobe dm_mod)";
  case EOPNOTSUPP:
    return "the device is request-based (e.g. multipath with queue_mode mq): "
           "device-mapper keeps statistics of bio-based devices only";
  case EACCES:
  case EPERM:
    return "permission denied on /dev/mapper/control: collectd needs root or "
           "CAP_SYS_ADMIN for device-mapper ioctls";
  default:
    return strerror(err);
  }
}

/* libdevmapper parses "5ms,1ms" as well; the kernel would refuse it at
 * every region creation. A bounds object has one bin per bound. */
static bool bounds_ascending(const struct dms_lib *lib,
                             const struct dm_histogram *bounds) {
  int n = lib->histogram_get_nr_bins(bounds);
  if (n < 1 || n >= DMS_MAX_BINS)
    return false;
  for (int b = 1; b < n; b++)
    if (lib->histogram_get_bin_upper(bounds, b) <=
        lib->histogram_get_bin_upper(bounds, b - 1))
      return false;
  return true;
}

struct dms_ctx *dms_ctx_create(const struct dms_conf *conf,
                               const struct dms_lib *lib, dms_log_fn log,
                               void *log_arg) {
  struct dms_ctx *ctx = calloc(1, sizeof(*ctx));
  if (ctx == NULL)
    return NULL;
  ctx->conf = conf;
  ctx->lib = lib;
  ctx->log = log;
  ctx->log_arg = log_arg;
  if (conf->histogram != NULL) {
    ctx->bounds = lib->histogram_bounds_from_string(conf->histogram);
    if (ctx->bounds != NULL && !bounds_ascending(lib, ctx->bounds)) {
      lib->histogram_bounds_destroy(ctx->bounds);
      ctx->bounds = NULL;
    }
    if (ctx->bounds == NULL) {
      logf_(ctx, DMS_LOG_ERR,
            "Histogram \"%s\": not a list of at most %d ascending times "
            "like \"1ms,5ms,20ms\" (units ns, us, ms, s)",
            conf->histogram, DMS_MAX_BINS - 1);
      free(ctx);
      return NULL;
    }
  }
  return ctx;
}

/* ---- devices ------------------------------------------------------------ */

struct name_list {
  char **names;
  size_t num, cap;
  bool oom;
};

static void collect_name(const char *name, void *arg) {
  struct name_list *l = arg;
  if (l->oom)
    return;
  if (l->num == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 16;
    char **grown = realloc(l->names, cap * sizeof(*grown));
    if (grown == NULL) {
      l->oom = true;
      return;
    }
    l->names = grown;
    l->cap = cap;
  }
  if ((l->names[l->num] = strdup(name)) == NULL) {
    l->oom = true;
    return;
  }
  l->num++;
}

static struct device *find_device(struct dms_ctx *ctx, const char *name) {
  for (struct device *d = ctx->devices; d != NULL; d = d->next)
    if (strcmp(d->name, name) == 0)
      return d;
  return NULL;
}

static struct device *add_device(struct dms_ctx *ctx, const char *name) {
  struct device *d = calloc(1, sizeof(*d));
  if (d == NULL || (d->name = strdup(name)) == NULL) {
    free(d);
    return NULL;
  }
  d->dms = ctx->lib->stats_create(ctx->conf->own_program_id);
  if (d->dms == NULL || !ctx->lib->stats_bind_name(d->dms, name)) {
    int err = ctx->lib->take_last_errno();
    logf_(ctx, DMS_LOG_ERR, "device %s: cannot open its statistics: %s", name,
          err ? errno_advice(err) : "libdevmapper failed");
    if (d->dms != NULL)
      ctx->lib->stats_destroy(d->dms);
    free(d->name);
    free(d);
    return NULL;
  }
  d->next = ctx->devices;
  ctx->devices = d;
  return d;
}

static void free_device(struct dms_ctx *ctx, struct device *d,
                        bool delete_own) {
  if (delete_own && d->own_region) {
    if (!ctx->lib->stats_delete_region(d->dms, d->own_region_id))
      logf_(ctx, DMS_LOG_WARNING,
            "device %s: could not delete region %" PRIu64
            " (delete it with: dmsetup message %s 0 @stats_delete %" PRIu64 ")",
            d->name, d->own_region_id, d->name, d->own_region_id);
  }
  ctx->lib->stats_destroy(d->dms);
  free(d->name);
  free(d);
}

/* ---- series state ------------------------------------------------------- */

static uint64_t series_hash(const char *device, uint64_t region,
                            uint64_t area) {
  uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a */
  for (const unsigned char *p = (const unsigned char *)device; *p; p++)
    h = (h ^ *p) * UINT64_C(1099511628211);
  h = (h ^ region) * UINT64_C(1099511628211);
  return (h ^ area) * UINT64_C(1099511628211);
}

static void grow_series_table(struct dms_ctx *ctx) {
  size_t buckets = ctx->buckets ? 2 * ctx->buckets : SERIES_MIN_BUCKETS;
  struct series **table = calloc(buckets, sizeof(*table));
  if (table == NULL)
    return; /* longer chains, still correct */
  for (size_t b = 0; b < ctx->buckets; b++) {
    while (ctx->series[b] != NULL) {
      struct series *s = ctx->series[b];
      ctx->series[b] = s->next;
      s->next = table[s->hash % buckets];
      table[s->hash % buckets] = s;
    }
  }
  free(ctx->series);
  ctx->series = table;
  ctx->buckets = buckets;
}

static struct series *get_series(struct dms_ctx *ctx, const char *device,
                                 uint64_t region, uint64_t area) {
  uint64_t hash = series_hash(device, region, area);
  if (ctx->series_num >= 2 * ctx->buckets)
    grow_series_table(ctx);
  if (ctx->buckets == 0)
    return NULL;
  struct series **head = &ctx->series[hash % ctx->buckets];
  for (struct series *s = *head; s != NULL; s = s->next)
    if (s->hash == hash && s->region == region && s->area == area &&
        strcmp(s->device, device) == 0)
      return s;
  struct series *s = calloc(1, sizeof(*s));
  if (s == NULL || (s->device = strdup(device)) == NULL) {
    free(s);
    return NULL;
  }
  s->hash = hash;
  s->region = region;
  s->area = area;
  s->next = *head;
  *head = s;
  ctx->series_num++;
  return s;
}

static void free_series(struct series *s) {
  free(s->device);
  free(s->last_raw_bins);
  free(s->total_bins);
  free(s);
}

static void forget_old_series(struct dms_ctx *ctx) {
  for (size_t b = 0; b < ctx->buckets; b++) {
    struct series **link = &ctx->series[b];
    while (*link != NULL) {
      struct series *s = *link;
      if (ctx->read_no - s->last_read > DMS_FORGET_AFTER_READS) {
        *link = s->next;
        free_series(s);
        ctx->series_num--;
      } else {
        link = &s->next;
      }
    }
  }
}

/* Folds one observation into the running totals. Kernel counters that
 * went down (or a region whose shape changed) mean the region was
 * re-created or cleared: its counters start again from zero, so the whole
 * new value is the increase. */
static bool update_series(struct series *s, const struct region_read *r,
                          const uint64_t *raw, const uint64_t *raw_bins) {
  if (s->nr_bins != r->nr_bins) { /* new, or a histogram of another shape */
    uint64_t *last = calloc((size_t)r->nr_bins + 1, sizeof(*last));
    uint64_t *total = calloc((size_t)r->nr_bins + 1, sizeof(*total));
    if (last == NULL || total == NULL) {
      free(last);
      free(total);
      return false;
    }
    free(s->last_raw_bins);
    free(s->total_bins);
    s->last_raw_bins = last;
    s->total_bins = total;
    s->nr_bins = r->nr_bins;
    s->signature = ~r->signature; /* counts as a restart below */
  }
  bool restart = false;
  if (r->absolute) {
    restart = s->signature != r->signature;
    for (int c = 0; c < DM_STATS_NR_COUNTERS && !restart; c++)
      if (c != DM_STATS_IO_IN_PROGRESS_COUNT && raw[c] < s->last_raw[c])
        restart = true;
    for (int b = 0; b < r->nr_bins && !restart; b++)
      if (raw_bins[b] < s->last_raw_bins[b])
        restart = true;
  }
  s->signature = r->signature;
  for (int c = 0; c < DM_STATS_NR_COUNTERS; c++) {
    if (c == DM_STATS_IO_IN_PROGRESS_COUNT) {
      s->total[c] = raw[c]; /* a gauge */
      continue;
    }
    uint64_t base = (r->absolute && !restart) ? s->last_raw[c] : 0;
    s->total[c] += raw[c] - base;
    s->last_raw[c] = r->absolute ? raw[c] : 0;
  }
  for (int b = 0; b < r->nr_bins; b++) {
    uint64_t base = (r->absolute && !restart) ? s->last_raw_bins[b] : 0;
    s->total_bins[b] += raw_bins[b] - base;
    s->last_raw_bins[b] = r->absolute ? raw_bins[b] : 0;
  }
  return true;
}

/* collectd 5.12's disk plugin dispatches as disk_time a running sum of
 * interval x (average ms per operation in that interval), so that its
 * rate is the average time per operation; the same here. */
static void update_disk_time(struct series *s, double interval_s) {
  static const int ops[2] = {DM_STATS_READS_COUNT, DM_STATS_WRITES_COUNT};
  static const int ns[2] = {DM_STATS_READ_NSECS, DM_STATS_WRITE_NSECS};
  for (int d = 0; d < 2; d++) {
    uint64_t o = s->total[ops[d]], t = s->total[ns[d]];
    if (s->have_prev && o > s->prev_ops[d]) {
      double avg_ms = (double)(t - s->prev_time_ns[d]) / NS_PER_MS /
                      (double)(o - s->prev_ops[d]);
      s->avg_time_ms[d] += interval_s * avg_ms;
    }
    s->prev_ops[d] = o;
    s->prev_time_ns[d] = t;
  }
  s->have_prev = true;
}

/* ---- emitting ------------------------------------------------------------ */

/* Device names are the admin's (dmsetup create NAME): bytes outside
 * [A-Za-z0-9_+-] are escaped %XX, like zvm_monitor's user IDs (the naming
 * contract, man page "METRICS"). A name that does not fit then (with the
 * region's suffix, in collectd's 127 bytes) is shortened as zvm_monitor
 * shortens its names (zvm_id_shorten: a prefix and a hash of the whole
 * name), so two names never share an instance. */
static void plugin_instance(char *out, size_t outlen, const char *device,
                            uint64_t region, uint64_t area) {
  char suffix[64];
  if (area == AREA_ALL)
    snprintf(suffix, sizeof(suffix), "_r%" PRIu64, region);
  else
    snprintf(suffix, sizeof(suffix), "_r%" PRIu64 "_a%" PRIu64, region, area);
  size_t room = outlen - strlen(suffix) - 1;
  size_t o = 0;
  for (const unsigned char *p = (const unsigned char *)device; *p; p++) {
    unsigned char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '+' || c == '-';
    if (o + (ok ? 1 : 3) > room) {
      o = zvm_id_shorten(out, o, room + 1, device, strlen(device));
      break;
    }
    if (ok)
      out[o++] = (char)c;
    else
      o += (size_t)snprintf(out + o, 4, "%%%02X", c);
  }
  snprintf(out + o, outlen - o, "%s", suffix);
}

static void emit2(struct dms_ctx *ctx, const char *pi, const char *type,
                  const char *ti, uint64_t a, uint64_t b) {
  struct dms_value v[2] = {{.derive = (int64_t)a}, {.derive = (int64_t)b}};
  ctx->emit(ctx->emit_arg, pi, type, ti, v, 2);
  ctx->emitted++;
}

static void emit1(struct dms_ctx *ctx, const char *pi, const char *type,
                  const char *ti, uint64_t a) {
  struct dms_value v = {.derive = (int64_t)a};
  ctx->emit(ctx->emit_arg, pi, type, ti, &v, 1);
  ctx->emitted++;
}

static void bound_text(char *out, size_t outlen, uint64_t ns, bool precise) {
  if (precise)
    snprintf(out, outlen, "%" PRIu64 "ns", ns);
  else
    snprintf(out, outlen, "%" PRIu64 "ms", ns / NS_PER_MS);
}

static void emit_series(struct dms_ctx *ctx, const struct series *s,
                        const struct region_read *r) {
  char pi[128];
  plugin_instance(pi, sizeof(pi), s->device, s->region, s->area);
  const uint64_t *t = s->total;
  emit2(ctx, pi, "disk_ops", "", t[DM_STATS_READS_COUNT],
        t[DM_STATS_WRITES_COUNT]);
  emit2(ctx, pi, "disk_merged", "", t[DM_STATS_READS_MERGED_COUNT],
        t[DM_STATS_WRITES_MERGED_COUNT]);
  emit2(ctx, pi, "disk_octets", "", 512 * t[DM_STATS_READ_SECTORS_COUNT],
        512 * t[DM_STATS_WRITE_SECTORS_COUNT]);
  emit2(ctx, pi, "disk_time", "", (uint64_t)(s->avg_time_ms[0] + 0.5),
        (uint64_t)(s->avg_time_ms[1] + 0.5));
  emit2(ctx, pi, "disk_io_time", "", t[DM_STATS_IO_NSECS] / NS_PER_MS,
        t[DM_STATS_WEIGHTED_IO_NSECS] / NS_PER_MS);
  struct dms_value pending = {
      .is_gauge = true, .gauge = (double)t[DM_STATS_IO_IN_PROGRESS_COUNT]};
  ctx->emit(ctx->emit_arg, pi, "pending_operations", "", &pending, 1);
  ctx->emitted++;
  /* The two extra dm-stats counters: time with reads resp. writes in
   * flight (linux drivers/md/dm-stats.c, dm_stat_round: io_ticks[READ],
   * io_ticks[WRITE]). */
  emit1(ctx, pi, "total_time_in_ms", "read",
        t[DM_STATS_TOTAL_READ_NSECS] / NS_PER_MS);
  emit1(ctx, pi, "total_time_in_ms", "write",
        t[DM_STATS_TOTAL_WRITE_NSECS] / NS_PER_MS);
  for (int b = 0; b < s->nr_bins; b++) {
    char lo[32], hi[32], ti[96];
    bound_text(lo, sizeof(lo), b == 0 ? 0 : r->bounds[b - 1], r->precise);
    if (b == s->nr_bins - 1)
      snprintf(hi, sizeof(hi), "inf");
    else
      bound_text(hi, sizeof(hi), r->bounds[b], r->precise);
    snprintf(ti, sizeof(ti), "latency-%s-%s", lo, hi);
    emit1(ctx, pi, "derive", ti, s->total_bins[b]);
  }
}

static void map_region(struct dms_ctx *ctx, struct device *d,
                       const struct region_read *r) {
  if (ctx->conf->per_area) {
    for (uint64_t a = 0; a < r->nr_areas; a++) {
      struct series *s = get_series(ctx, d->name, r->id, a);
      if (s == NULL ||
          !update_series(s, r, r->counters + a * DM_STATS_NR_COUNTERS,
                         r->bins + a * (size_t)r->nr_bins))
        continue;
      update_disk_time(s, ctx->interval_s);
      s->last_read = ctx->read_no;
      emit_series(ctx, s, r);
    }
    return;
  }
  uint64_t sum[DM_STATS_NR_COUNTERS] = {0};
  uint64_t sum_bins[DMS_MAX_BINS] = {0};
  for (uint64_t a = 0; a < r->nr_areas; a++) {
    for (int c = 0; c < DM_STATS_NR_COUNTERS; c++)
      sum[c] += r->counters[a * DM_STATS_NR_COUNTERS + c];
    for (int b = 0; b < r->nr_bins; b++)
      sum_bins[b] += r->bins[a * (size_t)r->nr_bins + b];
  }
  struct series *s = get_series(ctx, d->name, r->id, AREA_ALL);
  if (s == NULL || !update_series(s, r, sum, sum_bins))
    return;
  update_disk_time(s, ctx->interval_s);
  s->last_read = ctx->read_no;
  emit_series(ctx, s, r);
}

/* ---- reading regions ------------------------------------------------------
 */

static uint64_t signature(uint64_t nr_areas, bool precise, int nr_bins) {
  return (nr_areas << 16) ^ ((uint64_t)precise << 8) ^ (uint64_t)nr_bins;
}

static bool alloc_read(struct region_read *r) {
  r->counters = calloc(r->nr_areas, DM_STATS_NR_COUNTERS * sizeof(uint64_t));
  r->bins =
      calloc(r->nr_areas, (r->nr_bins ? r->nr_bins : 1) * sizeof(uint64_t));
  return r->counters != NULL && r->bins != NULL;
}

static void free_read(struct region_read *r) {
  free(r->counters);
  free(r->bins);
  r->counters = r->bins = NULL;
}

static void device_problem(struct dms_ctx *ctx, struct device *d, int *slot,
                           int err, const char *what) {
  if (err == 0)
    err = EIO;
  if (*slot == err)
    return; /* said already */
  *slot = err;
  const char *why = errno_advice(err);
  if (err == EIO)
    why = "libdevmapper failed (try: dmsetup message DEVICE 0 @stats_list)";
  else if (err == EPROTO)
    why = "unexpected @stats_print response (not in the format of "
          "the kernel's statistics.rst)";
  logf_(ctx, DMS_LOG_ERR, "device %s: %s: %s", d->name, what, why);
}

static void device_ok(struct dms_ctx *ctx, struct device *d, int *slot,
                      const char *what) {
  if (*slot == 0)
    return;
  *slot = 0;
  logf_(ctx, DMS_LOG_INFO, "device %s: %s works again", d->name, what);
}

/* Before a populate the library answers dm_stats_get_histogram() with the
 * region's bounds from @stats_list: one bin per bound plus the open-ended
 * last one (upper bound UINT64_MAX), as many as @stats_print has counts
 * (libdm-stats.c, _stats_parse_histogram_spec). */
static void list_bounds(const struct dms_lib *lib, const struct dm_stats *dms,
                        struct region_read *r) {
  const struct dm_histogram *h = lib->stats_get_histogram(dms, r->id, 0);
  int n = h != NULL ? lib->histogram_get_nr_bins(h) : 0;
  if (n < 2 || n > DMS_MAX_BINS)
    return;
  for (int b = 0; b < n; b++)
    r->bounds[b] = lib->histogram_get_bin_upper(h, b);
  r->nr_bins = n;
}

/* Another program's region: plain @stats_print, never cleared. Returns 0
 * or why it could not be read. */
static int read_foreign(struct dms_ctx *ctx, struct device *d,
                        struct region_read *r) {
  char *text = ctx->lib->stats_print_region(d->dms, r->id, 0, 0, 0);
  if (text == NULL) {
    int err = ctx->lib->take_last_errno();
    return err ? err : EIO;
  }
  int err = ENOMEM;
  r->absolute = true;
  r->signature = signature(r->nr_areas, r->precise, r->nr_bins);
  if (alloc_read(r)) {
    int n = dms_parse_print(text, r->precise, r->counters, r->nr_bins, r->bins,
                            r->nr_areas);
    err = n >= 0 && (uint64_t)n == r->nr_areas ? 0 : EPROTO;
    if (err == 0)
      map_region(ctx, d, r);
  }
  ctx->lib->stats_buffer_destroy(d->dms, text);
  free_read(r);
  return err;
}

/* A region of ours after dm_stats_populate(): counters are deltas. */
static void read_own(struct dms_ctx *ctx, struct device *d, uint64_t id) {
  const struct dms_lib *lib = ctx->lib;
  struct region_read r = {.id = id, .absolute = false};
  r.nr_areas = lib->stats_get_region_nr_areas(d->dms, id);
  r.precise = lib->stats_get_region_precise_timestamps(d->dms, id) == 1;
  if (r.nr_areas == 0)
    return;
  struct dm_histogram *h0 = lib->stats_get_histogram(d->dms, id, 0);
  if (h0 != NULL) {
    r.nr_bins = lib->histogram_get_nr_bins(h0);
    if (r.nr_bins < 0 || r.nr_bins > DMS_MAX_BINS)
      r.nr_bins = 0;
    for (int b = 0; b < r.nr_bins; b++)
      r.bounds[b] = lib->histogram_get_bin_upper(h0, b);
  }
  r.signature = signature(r.nr_areas, r.precise, r.nr_bins);
  if (!alloc_read(&r)) {
    free_read(&r);
    return;
  }
  for (uint64_t a = 0; a < r.nr_areas; a++) {
    for (int c = 0; c < DM_STATS_NR_COUNTERS; c++)
      r.counters[a * DM_STATS_NR_COUNTERS + c] =
          lib->stats_get_counter(d->dms, (dm_stats_counter_t)c, id, a);
    struct dm_histogram *h =
        r.nr_bins ? lib->stats_get_histogram(d->dms, id, a) : NULL;
    for (int b = 0; h != NULL && b < r.nr_bins; b++)
      r.bins[a * (size_t)r.nr_bins + b] = lib->histogram_get_bin_count(h, b);
  }
  map_region(ctx, d, &r);
  free_read(&r);
}

static void create_own_region(struct dms_ctx *ctx, struct device *d) {
  const struct dms_conf *conf = ctx->conf;
  uint64_t id = 0;
  (void)ctx->lib->take_last_errno();
  if (!ctx->lib->stats_create_region(d->dms, &id, 0, 0, -(int64_t)conf->areas,
                                     conf->precise_timestamps, ctx->bounds,
                                     conf->own_program_id, DMS_AUX_DATA)) {
    int err = ctx->lib->take_last_errno();
    if (err == 0)
      err = EIO;
    if (d->create_err == err)
      return;
    d->create_err = err;
    if (err == ENOMEM) {
      long long used = ctx->lib->stats_allocated_bytes();
      logf_(ctx, DMS_LOG_ERR,
            "device %s: the kernel refused a statistics region (out of "
            "dm-stats memory: at most 1/4 of RAM, %lld bytes in use per "
            "/sys/module/dm_mod/parameters/stats_current_allocated_bytes); "
            "use fewer Areas or delete unused regions (dmstats list)",
            d->name, used);
    } else {
      logf_(ctx, DMS_LOG_ERR,
            "device %s: cannot create a statistics region: %s", d->name,
            err == EIO ? "libdevmapper failed (is the device bio-based? "
                         "request-based multipath has no statistics)"
                       : errno_advice(err));
    }
    return;
  }
  if (d->create_err != 0)
    logf_(ctx, DMS_LOG_INFO, "device %s: statistics region created", d->name);
  d->create_err = 0;
  d->own_region = true;
  d->own_region_id = id;
}

static void read_device(struct dms_ctx *ctx, struct device *d) {
  const struct dms_lib *lib = ctx->lib;
  const struct dms_conf *conf = ctx->conf;
  (void)lib->take_last_errno();
  if (!lib->stats_list(d->dms, DM_STATS_ALL_PROGRAMS)) {
    device_problem(ctx, d, &d->list_err, lib->take_last_errno(), "@stats_list");
    return;
  }
  device_ok(ctx, d, &d->list_err, "@stats_list");

  uint64_t nr = lib->stats_get_nr_regions(d->dms);
  struct region_read *foreign = NULL;
  size_t foreign_num = 0;
  bool have_own = false, own_present = false;
  uint64_t first_own = 0;
  uint64_t found = 0;
  for (uint64_t id = 0; found < nr && id < MAX_REGION_ID; id++) {
    if (!lib->stats_region_present(d->dms, id))
      continue;
    found++;
    const char *prog = lib->stats_get_region_program_id(d->dms, id);
    if (prog != NULL && strcmp(prog, conf->own_program_id) == 0) {
      if (!have_own)
        first_own = id;
      have_own = true;
      if (d->own_region && id == d->own_region_id)
        own_present = true;
      continue;
    }
    if (!dms_program_selected(conf, prog))
      continue;
    struct region_read *grown =
        realloc(foreign, (foreign_num + 1) * sizeof(*grown));
    if (grown == NULL)
      break;
    foreign = grown;
    foreign[foreign_num++] = (struct region_read){
        .id = id,
        .nr_areas = lib->stats_get_region_nr_areas(d->dms, id),
        .precise = lib->stats_get_region_precise_timestamps(d->dms, id) == 1,
    };
    list_bounds(lib, d->dms, &foreign[foreign_num - 1]);
  }

  if (conf->create_regions && !own_present) {
    if (d->own_region)
      logf_(ctx, DMS_LOG_WARNING,
            "device %s: region %" PRIu64 " of the plugin was deleted by "
            "someone else; creating a new one",
            d->name, d->own_region_id);
    d->own_region = false;
    if (have_own) {
      /* Left behind by an earlier run that did not shut down cleanly:
       * adopt it rather than pile up regions in kernel memory. */
      d->own_region = true;
      d->own_region_id = first_own;
      logf_(ctx, DMS_LOG_INFO,
            "device %s: using the existing region %" PRIu64 " of program id %s",
            d->name, first_own, conf->own_program_id);
    } else {
      create_own_region(ctx, d);
      have_own = d->own_region;
    }
  }

  /* One verdict per device and pass, so that a region that cannot be read
   * next to one that can does not log at every read. */
  int problem = 0;
  for (size_t i = 0; i < foreign_num; i++) {
    (void)lib->take_last_errno();
    int err = read_foreign(ctx, d, &foreign[i]);
    if (problem == 0)
      problem = err;
  }
  free(foreign);

  if (have_own) {
    (void)lib->take_last_errno();
    if (lib->stats_populate(d->dms, conf->own_program_id,
                            DM_STATS_REGIONS_ALL)) {
      nr = lib->stats_get_nr_regions(d->dms);
      found = 0;
      for (uint64_t id = 0; found < nr && id < MAX_REGION_ID; id++) {
        if (!lib->stats_region_present(d->dms, id))
          continue;
        found++;
        read_own(ctx, d, id);
      }
    } else if (problem == 0) {
      int err = lib->take_last_errno();
      problem = err ? err : EIO;
    }
  }
  if (problem != 0)
    device_problem(ctx, d, &d->read_err, problem, "reading statistics");
  else
    device_ok(ctx, d, &d->read_err, "reading statistics");
}

size_t dms_read(struct dms_ctx *ctx, double interval_s, dms_emit_fn emit,
                void *emit_arg) {
  ctx->read_no++;
  ctx->interval_s = interval_s;
  ctx->emit = emit;
  ctx->emit_arg = emit_arg;
  ctx->emitted = 0;

  struct name_list names = {0};
  (void)ctx->lib->take_last_errno();
  int err = ctx->lib->list_devices(collect_name, &names);
  if (err == 0 && names.oom)
    err = ENOMEM;
  if (err != 0) {
    if (ctx->global_err != err)
      logf_(ctx, DMS_LOG_ERR, "cannot list device-mapper devices: %s",
            errno_advice(err));
    ctx->global_err = err;
  } else {
    if (ctx->global_err != 0)
      logf_(ctx, DMS_LOG_INFO, "device-mapper is available again");
    ctx->global_err = 0;
    for (size_t i = 0; i < names.num; i++) {
      if (!zvm_select_match(&ctx->conf->devices, names.names[i]))
        continue;
      struct device *d = find_device(ctx, names.names[i]);
      if (d == NULL)
        d = add_device(ctx, names.names[i]);
      if (d == NULL)
        continue;
      d->last_seen = ctx->read_no;
      read_device(ctx, d);
    }
    /* Devices that went away take their regions with them. */
    struct device **link = &ctx->devices;
    while (*link != NULL) {
      struct device *d = *link;
      if (d->last_seen != ctx->read_no) {
        *link = d->next;
        free_device(ctx, d, false);
      } else {
        link = &d->next;
      }
    }
  }
  for (size_t i = 0; i < names.num; i++)
    free(names.names[i]);
  free(names.names);
  forget_old_series(ctx);
  return ctx->emitted;
}

void dms_ctx_destroy(struct dms_ctx *ctx) {
  if (ctx == NULL)
    return;
  while (ctx->devices != NULL) {
    struct device *d = ctx->devices;
    ctx->devices = d->next;
    free_device(ctx, d, true);
  }
  for (size_t b = 0; b < ctx->buckets; b++) {
    while (ctx->series[b] != NULL) {
      struct series *s = ctx->series[b];
      ctx->series[b] = s->next;
      free_series(s);
    }
  }
  free(ctx->series);
  if (ctx->bounds != NULL)
    ctx->lib->histogram_bounds_destroy(ctx->bounds);
  free(ctx);
}
