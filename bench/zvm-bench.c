/* SPDX-License-Identifier: MIT */
/*
 * zvm-bench - throughput of the decoder and the metric mapper (issue P1).
 *
 * Generates a *MONITOR interval with tests/rig/zvm-stream-gen
 * (default: 10,000 guests, one D4R10 each, a D5R21 start/end pair, D2R1
 * events, the sample records, D1R13 end-of-frame records with padding) and
 * times, on one core, in the same run:
 *
 *   memcpy   copying the same bytes (the baseline every ratio refers to)
 *   decode   zvm_decode_set() with a no-op callback (walk + record tables)
 *   mapper   zvm_mapper_add_set() for every set + zvm_mapper_finish():
 *            decode, Domain/UserID selection, aggregation per user
 *   values   producing every value of the pass for dispatch
 *   cold     the first pass of a new mapper (every user is inserted)
 *   cap-write  every set written as a capture (zvm-monitor-capture's
 *            writer, pcapng blocks to /dev/null: framing and writev)
 *   cap-read   the capture of the interval read back from memory (what a
 *            ReplayFile or zvm-monitor-dump pays before decoding)
 *
 * --memory (issue P3) instead streams N intervals from the generator
 * through the plugin's own data path, single-threaded: the device reader
 * (fed by a fake device that serves the generator's output straight from
 * the pipe, MCE and record set in separate reads, a 0-byte read after each
 * set), the hand-over queue and the mapper, one pass per interval with
 * every value produced; it reports the peak RSS growth (VmHWM after the
 * run minus VmRSS before the plugin's objects exist).
 *
 * Each repetition is one pass over the whole interval; the figure is the
 * median (and the minimum) over the repetitions. Before every mapper pass
 * the record TODs are moved on by one interval (not timed), so every pass
 * finds new records and emits every value, as a real interval does.
 *
 * Nothing here asserts a time: --smoke only proves the program works.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "zvm_monitor/be.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/capture.h"
#include "zvm_monitor/conf.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/mapper.h"
#include "zvm_monitor/reader.h"
#include "zvm_monitor/recconf.h"
#include "zvm_monitor/recconf_text.h"
#include "zvm_monitor/records.h"
#include "zvm_monitor/setqueue.h"

#include <fcntl.h>
#include <poll.h>

#ifndef ZVM_BENCH_GEN
#define ZVM_BENCH_GEN "tests/rig/zvm-stream-gen"
#endif

/* TOD units per second (bit 51 = 1 microsecond). */
#define TOD_PER_SEC (UINT64_C(1000000) << 12)

struct set {
  uint8_t *data;
  size_t len;
};

struct data {
  struct set *sets;
  size_t nsets;
  size_t bytes;
  size_t largest;
};

static const char *argv0 = "zvm-bench";

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt,
                                                                ...) {
  va_list ap;
  fprintf(stderr, "%s: ", argv0);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- input: the generator's "sets" format (u32 BE length + bytes) ------ */

static void read_sets(FILE *fp, struct data *d) {
  uint8_t hdr[4];
  size_t cap = 0;
  while (fread(hdr, 1, 4, fp) == 4) {
    size_t len = zvm_load_be32(hdr);
    if (d->nsets == cap) {
      cap = cap ? 2 * cap : 64;
      d->sets = realloc(d->sets, cap * sizeof(*d->sets));
      if (d->sets == NULL)
        die("out of memory");
    }
    uint8_t *p = malloc(len ? len : 1);
    if (p == NULL)
      die("out of memory");
    if (fread(p, 1, len, fp) != len)
      die("truncated input");
    d->sets[d->nsets++] = (struct set){p, len};
    d->bytes += len;
    if (len > d->largest)
      d->largest = len;
  }
}

static void load(const char *gen, const char *file, const char *gen_args,
                 struct data *d) {
  FILE *fp;
  if (file != NULL) {
    fp = fopen(file, "rb");
    if (fp == NULL)
      die("%s: %s", file, strerror(errno));
    read_sets(fp, d);
    fclose(fp);
    return;
  }
  char cmd[1024];
  snprintf(cmd, sizeof(cmd), "'%s' -f sets %s", gen, gen_args);
  printf("# data: %s\n", cmd);
  fp = popen(cmd, "r");
  if (fp == NULL)
    die("cannot run %s", gen);
  read_sets(fp, d);
  if (pclose(fp) != 0)
    die("the generator failed: %s", cmd);
  if (d->nsets == 0)
    die("the generator wrote no data sets");
}

/* Move every record's TOD on by delta (the next interval). */
static void shift_tods(struct data *d, uint64_t delta) {
  for (size_t i = 0; i < d->nsets; i++) {
    struct zvm_walk w;
    struct zvm_record rec;
    zvm_walk_init(&w, d->sets[i].data, d->sets[i].len, ZVM_DOMAINS_ALL);
    while (zvm_walk_next(&w, &rec)) {
      uint8_t *p = d->sets[i].data + (rec.data - d->sets[i].data) + 8;
      uint64_t tod = zvm_load_be64(p) + delta;
      for (int b = 7; b >= 0; b--, tod >>= 8)
        p[b] = (uint8_t)tod;
    }
  }
}

/* ---- the passes (noinline: callgrind attributes costs to them) --------- */

static uint8_t *copy_dst;
static volatile uint64_t sink;

__attribute__((noinline)) static void pass_memcpy(const struct data *d) {
  for (size_t i = 0; i < d->nsets; i++)
    memcpy(copy_dst, d->sets[i].data, d->sets[i].len);
  sink += copy_dst[0];
}

static void noop_cb(const struct zvm_record *rec,
                    const struct zvm_record_desc *desc, void *ctx) {
  (void)rec;
  (void)desc;
  (void)ctx;
}

__attribute__((noinline)) static void pass_decode(const struct data *d,
                                                  struct zvm_decode_stats *st) {
  for (size_t i = 0; i < d->nsets; i++)
    zvm_decode_set(d->sets[i].data, d->sets[i].len, ZVM_DOMAINS_ALL, noop_cb,
                   NULL, st);
}

__attribute__((noinline)) static void
pass_mapper(struct zvm_mapper *m, const struct data *d, uint64_t now_us) {
  for (size_t i = 0; i < d->nsets; i++)
    zvm_mapper_add_set(m, d->sets[i].data, d->sets[i].len);
  if (zvm_mapper_finish(m, now_us, NULL) != 0)
    die("zvm_mapper_finish: out of memory");
}

__attribute__((noinline)) static void pass_cap_write(struct zvm_cap_writer *w,
                                                     const struct data *d) {
  for (size_t i = 0; i < d->nsets; i++)
    if (zvm_cap_write_set(w, d->sets[i].data, d->sets[i].len, 1) != 0)
      die("capture: write failed");
}

__attribute__((noinline)) static void pass_cap_read(const uint8_t *cap,
                                                    size_t len, size_t nsets) {
  struct zvm_cap_reader *r = zvm_cap_reader_mem(cap, len, 0);
  struct zvm_cap_item it;
  size_t n = 0;
  if (r == NULL)
    die("out of memory");
  while (zvm_cap_next(r, &it) == ZVM_CAP_SET) {
    sink += it.data[it.len > 0 ? it.len - 1 : 0];
    n++;
  }
  if (n != nsets)
    die("capture: %zu sets read back, want %zu", n, nsets);
  zvm_cap_reader_free(r);
}

/* The interval as a capture file, in memory. */
static uint8_t *capture_of(const struct data *d, size_t *len) {
  FILE *fp = tmpfile();
  int err = 0;
  if (fp == NULL)
    die("tmpfile: %s", strerror(errno));
  struct zvm_cap_writer *w =
      zvm_cap_writer_start(fileno(fp), "bench", "-", &err);
  if (w == NULL)
    die("capture: %s", strerror(err));
  pass_cap_write(w, d);
  *len = (size_t)zvm_cap_writer_bytes(w);
  zvm_cap_writer_free(w);
  uint8_t *b = malloc(*len);
  if (b == NULL || pread(fileno(fp), b, *len, 0) != (ssize_t)*len)
    die("capture: read back failed");
  fclose(fp);
  return b;
}

/* What the glue does with each value, minus collectd: read every field. */
__attribute__((noinline)) static size_t pass_values(struct zvm_mapper *m) {
  struct zvm_value_iter it = ZVM_VALUE_ITER_INIT;
  struct zvm_value v;
  uint64_t acc = 0;
  size_t n = 0;
  while (zvm_mapper_next_value(m, &it, &v)) {
    acc += (uint64_t)v.derive + (uint64_t)v.gauge + (uint64_t)v.time_us +
           (uint8_t)v.host[0] + (uint8_t)v.plugin_instance[0] +
           (uint8_t)v.type[0] + (uint8_t)v.type_instance[0];
    n++;
  }
  sink += acc;
  return n;
}

/* ---- --memory: a fake device serving a "sets" stream from a pipe ------- */

struct pipe_dev {
  FILE *fp;
  bool eof;
  size_t set_left; /* bytes of the current set not yet served */
  size_t rs_left;  /* bytes of the current record set not yet served */
  bool in_set;
  bool interval_end; /* the set just finished ended an interval */
  bool sample_set;   /* the current set's first MCE is a sample MCE */
  bool first_mce;
  size_t largest;
};

static int pd_open(const char *path, int flags, void *ctx) {
  (void)path;
  (void)flags;
  (void)ctx;
  return 3; /* any fd: only this io uses it */
}

static int pd_close(int fd, void *ctx) {
  (void)fd;
  (void)ctx;
  return 0;
}

static int pd_poll(int fd, void *ctx) {
  struct pipe_dev *d = ctx;
  (void)fd;
  return d->eof || d->interval_end ? 0 : POLLIN;
}

static uint64_t pd_now(void *ctx) {
  (void)ctx;
  return 0;
}

/* Like the driver: the MCE in one read, then its record set (in as many
 * reads as the buffer needs), then the next MCE...; a 0-byte read ends the
 * set. EAGAIN after the sample set that ends an interval, until the bench
 * starts the next one. */
static ssize_t pd_read(int fd, void *buf, size_t count, void *ctx) {
  struct pipe_dev *d = ctx;
  (void)fd;
  if (d->eof || d->interval_end) {
    errno = EAGAIN;
    return -1;
  }
  if (!d->in_set) {
    uint8_t hdr[4];
    if (fread(hdr, 1, 4, d->fp) != 4) {
      d->eof = true;
      errno = EAGAIN;
      return -1;
    }
    d->set_left = zvm_load_be32(hdr);
    if (d->set_left > d->largest)
      d->largest = d->set_left;
    d->in_set = true;
    d->first_mce = true;
    d->sample_set = false;
    d->rs_left = 0;
  }
  if (d->set_left == 0) {
    d->in_set = false;
    d->interval_end = d->sample_set;
    return 0;
  }
  size_t n;
  if (d->rs_left == 0) { /* an MCE */
    if (count < ZVM_MCE_LEN || d->set_left < ZVM_MCE_LEN)
      die("fake device: bad read of an MCE");
    if (fread(buf, 1, ZVM_MCE_LEN, d->fp) != ZVM_MCE_LEN)
      die("truncated input");
    struct zvm_mce mce;
    const uint8_t *b = buf;
    mce.start = zvm_load_be32(b + 4);
    mce.end = zvm_load_be32(b + 8);
    if (d->first_mce)
      d->sample_set = b[0] == ZVM_MCE_SAMPLE;
    d->first_mce = false;
    d->rs_left = (size_t)zvm_mce_records_len(&mce);
    n = ZVM_MCE_LEN;
  } else {
    n = count < d->rs_left ? count : d->rs_left;
    if (fread(buf, 1, n, d->fp) != n)
      die("truncated input");
    d->rs_left -= n;
  }
  d->set_left -= n;
  return (ssize_t)n;
}

static long proc_kib(const char *field) {
  FILE *fp = fopen("/proc/self/status", "r");
  char line[256];
  long v = -1;
  size_t flen = strlen(field);
  while (fp != NULL && fgets(line, sizeof(line), fp) != NULL)
    if (strncmp(line, field, flen) == 0 && line[flen] == ':')
      v = strtol(line + flen + 1, NULL, 10);
  if (fp != NULL)
    fclose(fp);
  return v;
}

static void qset_cb(const uint8_t *set, size_t len, void *ctx) {
  if (zvm_setq_push(ctx, set, len, NULL) != ZVM_SETQ_QUEUED)
    die("queue push failed");
}

static int memory_run(const char *gen, unsigned guests, unsigned intervals) {
  char cmd[1024];
  snprintf(cmd, sizeof(cmd), "'%s' -f sets -g %u -i %u --smt-every 2", gen,
           guests, intervals);
  printf("# data: %s\n", cmd);
  struct pipe_dev dev = {0};
  dev.fp = popen(cmd, "r");
  if (dev.fp == NULL)
    die("cannot run %s", gen);

  /* Reset the peak to now (Linux >= 4.0), before the plugin's objects. */
  int fd = open("/proc/self/clear_refs", O_WRONLY);
  if (fd < 0 || write(fd, "5", 1) != 1)
    die("cannot reset VmHWM through /proc/self/clear_refs");
  close(fd);
  long rss0 = proc_kib("VmRSS");

  struct zvm_conf conf;
  if (zvm_conf_init(&conf, zvm_registry_builtin()) != 0)
    die("out of memory");
  struct zvm_reader_io io = {
      .open = pd_open,
      .read = pd_read,
      .poll = pd_poll,
      .close = pd_close,
      .now_ms = pd_now,
      .ctx = &dev,
  };
  struct zvm_reader_config rc = {
      .device = conf.device, .max_set_size = conf.max_set_size, .io = &io};
  struct zvm_reader *r = zvm_reader_create(&rc);
  struct zvm_setq *q = zvm_setq_create(conf.max_queue_size);
  struct zvm_mapper *m = zvm_mapper_create(&conf);
  if (r == NULL || q == NULL || m == NULL)
    die("out of memory");

  uint64_t now_us = 1700000000 * UINT64_C(1000000), nvalues = 0;
  size_t peak_queue = 0;
  unsigned passes = 0;
  while (!dev.eof) {
    dev.interval_end = false;
    if (zvm_reader_drain(r, qset_cb, q) != 0)
      die("reader failed");
    struct zvm_setq_stats qs;
    zvm_setq_get_stats(q, &qs);
    if (qs.bytes > peak_queue)
      peak_queue = qs.bytes;
    struct zvm_qset *sets = zvm_setq_take(q, NULL, NULL);
    for (struct zvm_qset *s = sets; s != NULL; s = s->next)
      zvm_mapper_add_set(m, s->data, s->len);
    zvm_qset_free(sets);
    now_us += 60 * UINT64_C(1000000);
    const struct zvm_reader_stats *rs = zvm_reader_get_stats(r);
    if (zvm_mapper_finish(m, now_us, &rs->health) != 0)
      die("out of memory");
    nvalues += pass_values(m);
    passes++;
  }
  long hwm = proc_kib("VmHWM");
  const struct zvm_reader_stats *rs = zvm_reader_get_stats(r);
  const struct zvm_decode_stats *ds = zvm_mapper_decode_stats(m);
  long growth = hwm - rss0;
  double target_kib = (double)dev.largest / 1024 + 2.0 * guests + 2048;
  printf("memory: guests %u, %u passes, %" PRIu64 " sets, %" PRIu64
         " records, %" PRIu64 " values; largest set %zu bytes, peak queue "
         "%zu bytes\n",
         guests, passes, rs->health.sets, ds->walk.records, nvalues,
         dev.largest, peak_queue);
  printf("memory: VmRSS before %ld KiB, VmHWM after %ld KiB: growth %ld KiB "
         "= %.0f bytes per guest; target largest set + 2 KiB/guest + 2 MiB "
         "= %.0f KiB: %s\n",
         rss0, hwm, growth, (double)growth * 1024 / guests, target_kib,
         growth <= target_kib ? "met" : "NOT met");
  zvm_mapper_destroy(m);
  zvm_setq_destroy(q);
  zvm_reader_destroy(r);
  zvm_conf_free(&conf);
  if (pclose(dev.fp) != 0)
    die("the generator failed: %s", cmd);
  return 0;
}

/* ---- statistics -------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

struct timing {
  uint64_t median_ns, min_ns;
};

static struct timing summarize(uint64_t *t, size_t n) {
  if (n == 0)
    return (struct timing){0, 0};
  qsort(t, n, sizeof(*t), cmp_u64);
  return (struct timing){.median_ns = t[n / 2], .min_ns = t[0]};
}

static void machine(void) {
  char model[256] = "unknown";
  FILE *fp = fopen("/proc/cpuinfo", "r");
  if (fp != NULL) {
    char line[512];
    while (fgets(line, sizeof(line), fp) != NULL) {
      char *colon = strchr(line, ':');
      if (colon != NULL && (strncmp(line, "model name", 10) == 0 ||
                            strncmp(line, "machine", 7) == 0)) {
        snprintf(model, sizeof(model), "%s", colon + 2);
        model[strcspn(model, "\n")] = '\0';
        break;
      }
    }
    fclose(fp);
  }
  time_t t = time(NULL);
  char date[64];
  strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S %Z", localtime(&t));
  printf("# machine: %ld online cores, CPU \"%s\", %s\n",
         sysconf(_SC_NPROCESSORS_ONLN), model, date);
}

static void usage(FILE *fp) {
  fprintf(
      fp,
      "usage: %s [-g GUESTS] [-r REPS] [--gen PATH] [--input SETS-FILE]\n"
      "          [--smoke]\n"
      "  -g, --guests N   guests (D4R10 records) in the interval "
      "(default 10000)\n"
      "  -r, --reps N     timed repetitions per figure (default 31)\n"
      "      --gen PATH   zvm-stream-gen to run (default %s)\n"
      "      --input FILE data sets in zvm-stream-gen's \"sets\" format\n"
      "      --smoke      tiny run that only proves the program works\n"
      "      --only FIG   time only memcpy, decode, cold, mapper (with "
      "values),\n"
      "                   cap-write or cap-read: for callgrind, see\n"
      "                   bench/README.md\n"
      "      --memory     peak RSS growth of the plugin's data path (P3)\n"
      "      --intervals N  intervals for --memory (default 3)\n"
      "      --appldata   cost per interval of N Linux guests (2 CPUs;\n"
      "                   os, mem, net_sum) against N D4R10 guests\n"
      "      --imported FILE  cost per interval of N D4R10 guests decoded\n"
      "                   with the <Record \"4/10\"> block in FILE (Replace\n"
      "                   true) against the built-in table\n",
      argv0, ZVM_BENCH_GEN);
}

/* One steady-state pass, one interval after the previous one: the data's
 * TODs moved on (not timed), then the mapper pass and producing its values,
 * timed separately. Every pass must give the first pass's nvalues. */
static void steady_pass(struct zvm_mapper *m, struct data *d, uint64_t *now_us,
                        size_t nvalues, unsigned r, uint64_t *pass_ns,
                        uint64_t *values_ns) {
  shift_tods(d, 60 * TOD_PER_SEC);
  *now_us += 60 * UINT64_C(1000000);
  uint64_t t0 = now_ns();
  pass_mapper(m, d, *now_us);
  uint64_t t1 = now_ns();
  size_t n = pass_values(m);
  uint64_t t2 = now_ns();
  if (n != nvalues)
    die("pass %u: %zu values, the first pass had %zu", r, n, nvalues);
  *pass_ns = t1 - t0;
  *values_ns = t2 - t1;
}

/* ---- --appldata: cost per interval of Linux guests' domain 10 records,
 * against the same number of D4R10 guests ------------------- */

struct interval_cost {
  struct timing pass, values, total;
  size_t nvalues;
  uint64_t records;
};

/* Steady-state passes over one interval's sets, each one interval later. */
static struct interval_cost interval_cost(const struct zvm_conf *conf,
                                          struct data *d, unsigned reps) {
  struct zvm_mapper *m = zvm_mapper_create(conf);
  uint64_t *tp = calloc(reps, sizeof(*tp)), *tv = calloc(reps, sizeof(*tv)),
           *tt = calloc(reps, sizeof(*tt));
  if (m == NULL || tp == NULL || tv == NULL || tt == NULL)
    die("out of memory");
  uint64_t now_us = 1700000000 * UINT64_C(1000000);
  pass_mapper(m, d, now_us);
  size_t nvalues = pass_values(m);
  for (unsigned r = 0; r < reps; r++) {
    steady_pass(m, d, &now_us, nvalues, r, &tp[r], &tv[r]);
    tt[r] = tp[r] + tv[r];
  }
  struct interval_cost c = {
      .pass = summarize(tp, reps),
      .values = summarize(tv, reps),
      .total = summarize(tt, reps),
      .nvalues = nvalues,
      .records = zvm_mapper_decode_stats(m)->walk.records / (reps + 1)};
  zvm_mapper_destroy(m);
  free(tp);
  free(tv);
  free(tt);
  return c;
}

/* One row of a cost table: the name in width columns. */
static void cost_row(int width, const char *name,
                     const struct interval_cost *c) {
  printf("%-*s %8" PRIu64 " %8zu %10.1f %10.1f %10.1f %10.1f\n", width, name,
         c->records, c->nvalues, c->pass.median_ns / 1e3,
         c->values.median_ns / 1e3, c->total.median_ns / 1e3,
         c->total.min_ns / 1e3);
}

static void cost_head(int width) {
  printf("%-*s %8s %8s %10s %10s %10s %10s\n", width, "interval of", "records",
         "values", "pass_us", "values_us", "total_us", "total_min");
}

static int appldata_run(const char *gen, unsigned guests, unsigned reps) {
  struct zvm_conf conf;
  if (zvm_conf_init(&conf, zvm_registry_builtin()) != 0)
    die("out of memory");
  /* The same sample records in both; only the guests' records differ. */
  char args[256];
  struct data d4 = {0}, d10 = {0};
  snprintf(args, sizeof(args),
           "-g %u -i 1 --smt-every 0 --unknown-events 0 --cpus 2 --nics 1",
           guests);
  load(gen, NULL, args, &d4);
  snprintf(args, sizeof(args),
           "-g 0 -i 1 --smt-every 0 --unknown-events 0 --cpus 2 --nics 1 "
           "--linux-guests %u --linux-cpus 2 --appldata os,mem,net_sum",
           guests);
  load(gen, NULL, args, &d10);
  struct interval_cost a = interval_cost(&conf, &d4, reps);
  struct interval_cost b = interval_cost(&conf, &d10, reps);
  cost_head(26);
  char name[64];
  snprintf(name, sizeof(name), "%u D4R10 guests", guests);
  cost_row(26, name, &a);
  snprintf(name, sizeof(name), "%u Linux guests (APPLDATA)", guests);
  cost_row(26, name, &b);
  printf("ratio APPLDATA / D4R10: total %.2f (minimums %.2f), per value "
         "%.2f\n",
         (double)b.total.median_ns / (double)a.total.median_ns,
         (double)b.total.min_ns / (double)a.total.min_ns,
         ((double)b.total.median_ns / (double)b.nvalues) /
             ((double)a.total.median_ns / (double)a.nvalues));
  for (size_t i = 0; i < d4.nsets; i++)
    free(d4.sets[i].data);
  for (size_t i = 0; i < d10.nsets; i++)
    free(d10.sets[i].data);
  free(d4.sets);
  free(d10.sets);
  zvm_conf_free(&conf);
  return 0;
}

/* ---- --imported: D4R10 decoded with a <Record> block against the
 * built-in table ------------------------------------------------------ */

/* Every value of one pass, as a checksum: list items included. */
static uint64_t values_checksum(struct zvm_mapper *m, size_t *lists) {
  struct zvm_value_iter it = ZVM_VALUE_ITER_INIT;
  struct zvm_value v;
  uint64_t acc = 0;
  *lists = 0;
  while (zvm_mapper_next_value(m, &it, &v)) {
    if (strcmp(v.plugin_instance, "reader") == 0)
      continue; /* the reader's own counters: the passes' history */
    (*lists)++;
    acc = acc * 31 + (uint64_t)v.time_us + (uint8_t)v.plugin_instance[0];
    for (size_t i = 0; i < v.nitems; i++)
      acc = acc * 31 + (uint64_t)v.items[i].derive +
            (uint64_t)(int64_t)v.items[i].gauge;
    acc = acc * 31 + (uint64_t)v.derive + (uint64_t)(int64_t)v.gauge;
  }
  return acc;
}

static uint64_t first_pass_checksum(const struct zvm_conf *conf, struct data *d,
                                    size_t *lists) {
  struct zvm_mapper *m = zvm_mapper_create(conf);
  if (m == NULL)
    die("out of memory");
  pass_mapper(m, d, 1700000000 * UINT64_C(1000000));
  uint64_t sum = values_checksum(m, lists);
  zvm_mapper_destroy(m);
  return sum;
}

static int imported_run(const char *gen, unsigned guests, unsigned reps,
                        const char *file) {
  struct zvm_conf builtin, imported;
  struct zvm_recconf rc;
  if (zvm_conf_init(&builtin, zvm_registry_builtin()) != 0 ||
      zvm_conf_init(&imported, zvm_registry_builtin()) != 0)
    die("out of memory");
  zvm_recconf_init(&rc, imported.records);
  FILE *fp = fopen(file, "r");
  if (fp == NULL)
    die("%s: %s", file, strerror(errno));
  static char text[1 << 20];
  size_t len = fread(text, 1, sizeof(text), fp);
  fclose(fp);
  char err[512];
  if (zvm_recconf_parse_text(&rc, text, len, err, sizeof(err)) != 0)
    die("%s: %s", file, err);
  const struct zvm_urecord *r = zvm_recconf_find(&rc, 4, 10);
  if (r == NULL || !r->replace)
    die("%s: no <Record \"4/10\"> block with Replace true", file);
  printf("# imported: %s, %zu fields, %zu data sources\n", file, r->nfields,
         r->nds);
  cost_head(34);
  static const unsigned vcpus[] = {1, 3};
  for (size_t k = 0; k < 2; k++) {
    char args[256];
    struct data d = {0};
    snprintf(args, sizeof(args),
             "-g %u -i 1 --smt-every 0 --unknown-events 0 --cpus 2 --nics 1 "
             "--vcpus %u",
             guests, vcpus[k]);
    load(gen, NULL, args, &d);
    size_t la, lb;
    uint64_t ca = first_pass_checksum(&builtin, &d, &la);
    uint64_t cb = first_pass_checksum(&imported, &d, &lb);
    if (la != lb || ca != cb)
      die("--vcpus %u: the imported block gives %zu lists (checksum %016" PRIx64
          "), the built-in table %zu (%016" PRIx64 ")",
          vcpus[k], lb, cb, la, ca);
    /* Alternately, so that the machine's other load meets both alike. */
    struct interval_cost a = interval_cost(&builtin, &d, reps);
    struct interval_cost b = interval_cost(&imported, &d, reps);
    struct interval_cost a2 = interval_cost(&builtin, &d, reps);
    struct interval_cost b2 = interval_cost(&imported, &d, reps);
    if (a2.total.min_ns < a.total.min_ns)
      a = a2;
    if (b2.total.min_ns < b.total.min_ns)
      b = b2;
    char name[64];
    snprintf(name, sizeof(name), "%u guests x %u VMDBKs, built in", guests,
             vcpus[k]);
    cost_row(34, name, &a);
    snprintf(name, sizeof(name), "%u guests x %u VMDBKs, imported", guests,
             vcpus[k]);
    cost_row(34, name, &b);
    printf("ratio imported / built in (%u VMDBKs): value lists %zu / %zu, "
           "values identical; time %.3f (minimums %.3f)\n",
           vcpus[k], lb, la,
           (double)b.total.median_ns / (double)a.total.median_ns,
           (double)b.total.min_ns / (double)a.total.min_ns);
    for (size_t i = 0; i < d.nsets; i++)
      free(d.sets[i].data);
    free(d.sets);
  }
  zvm_conf_free(&imported); /* the mappers are gone: the registry first */
  zvm_recconf_free(&rc);
  zvm_conf_free(&builtin);
  return 0;
}

int main(int argc, char **argv) {
  const char *gen = ZVM_BENCH_GEN, *input = NULL;
  unsigned guests = 10000, reps = 31;
  bool smoke = false, memory = false, appldata = false;
  unsigned intervals = 3;
  const char *only = NULL, *imported = NULL;
  static const struct option lopts[] = {
      {"guests", required_argument, NULL, 'g'},
      {"reps", required_argument, NULL, 'r'},
      {"gen", required_argument, NULL, 'G'},
      {"input", required_argument, NULL, 'i'},
      {"smoke", no_argument, NULL, 's'},
      {"only", required_argument, NULL, 'o'},
      {"memory", no_argument, NULL, 'm'},
      {"intervals", required_argument, NULL, 'I'},
      {"appldata", no_argument, NULL, 'A'},
      {"imported", required_argument, NULL, 'X'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  argv0 = argv[0];
  int c;
  while ((c = getopt_long(argc, argv, "g:r:h", lopts, NULL)) != -1) {
    switch (c) {
    case 'g':
      guests = (unsigned)strtoul(optarg, NULL, 10);
      break;
    case 'r':
      reps = (unsigned)strtoul(optarg, NULL, 10);
      break;
    case 'G':
      gen = optarg;
      break;
    case 'i':
      input = optarg;
      break;
    case 's':
      smoke = true;
      break;
    case 'o':
      only = optarg;
      break;
    case 'm':
      memory = true;
      break;
    case 'I':
      intervals = (unsigned)strtoul(optarg, NULL, 10);
      break;
    case 'A':
      appldata = true;
      break;
    case 'X':
      imported = optarg;
      break;
    case 'h':
      usage(stdout);
      return 0;
    default:
      usage(stderr);
      return 2;
    }
  }
  if (smoke) {
    guests = 50;
    reps = 3;
  }
  if (guests == 0 || reps == 0) {
    usage(stderr);
    return 2;
  }

  printf("# command:");
  for (int i = 0; i < argc; i++)
    printf(" %s", argv[i]);
  printf("\n");
  machine();
  if (memory)
    return memory_run(gen, guests, intervals);
  if (appldata)
    return appldata_run(gen, guests, reps);
  if (imported != NULL)
    return imported_run(gen, guests, reps, imported);

  struct data d = {0};
  char gen_args[256];
  /* One interval: a D5R21 pair in it (--smt-every 1), default layout
   * (16-frame record sets, 4 per message: D1R13 + padding at cuts). */
  snprintf(gen_args, sizeof(gen_args), "-g %u -i 1 --smt-every 1", guests);
  load(gen, input, gen_args, &d);
  copy_dst = malloc(d.largest);
  if (copy_dst == NULL)
    die("out of memory");

  struct zvm_decode_stats ds = {0};
  pass_decode(&d, &ds);
  uint64_t records = ds.walk.records;
  printf("# input: %zu data sets, %zu bytes (largest %zu), %" PRIu64
         " records (%" PRIu64 " D1R13, %" PRIu64 " padding bytes, %" PRIu64
         " unknown)\n",
         d.nsets, d.bytes, d.largest, records, ds.walk.end_of_frame,
         ds.walk.padding_bytes, ds.unknown);

  struct zvm_conf conf;
  if (zvm_conf_init(&conf, zvm_registry_builtin()) != 0)
    die("out of memory");
  uint64_t now_us = 1700000000 * UINT64_C(1000000);
  uint64_t *t = calloc(reps, sizeof(*t));
  if (t == NULL)
    die("out of memory");

    /* --only FIG: the other figures are not run (0 repetitions). */
#define REPS(fig) (only == NULL || strcmp(only, fig) == 0 ? reps : 0)

  /* Warm up caches and the allocator. */
  pass_memcpy(&d);

  for (unsigned r = 0; r < REPS("memcpy"); r++) {
    uint64_t t0 = now_ns();
    pass_memcpy(&d);
    t[r] = now_ns() - t0;
  }
  struct timing tm = summarize(t, REPS("memcpy"));

  for (unsigned r = 0; r < REPS("decode"); r++) {
    struct zvm_decode_stats s = {0};
    uint64_t t0 = now_ns();
    pass_decode(&d, &s);
    t[r] = now_ns() - t0;
  }
  struct timing td = summarize(t, REPS("decode"));

  int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
  int cerr = 0;
  struct zvm_cap_writer *cw =
      devnull >= 0 ? zvm_cap_writer_start(devnull, "bench", "-", &cerr) : NULL;
  if (cw == NULL)
    die("capture: cannot write to /dev/null");
  for (unsigned r = 0; r < REPS("cap-write"); r++) {
    uint64_t t0 = now_ns();
    pass_cap_write(cw, &d);
    t[r] = now_ns() - t0;
  }
  struct timing tcw = summarize(t, REPS("cap-write"));
  zvm_cap_writer_free(cw);
  close(devnull);
  size_t cap_len;
  uint8_t *cap = capture_of(&d, &cap_len);
  for (unsigned r = 0; r < REPS("cap-read"); r++) {
    uint64_t t0 = now_ns();
    pass_cap_read(cap, cap_len, d.nsets);
    t[r] = now_ns() - t0;
  }
  struct timing tcr = summarize(t, REPS("cap-read"));
  free(cap);

  /* Cold: a new mapper per repetition. */
  uint64_t *tv = calloc(reps, sizeof(*tv));
  if (tv == NULL)
    die("out of memory");
  for (unsigned r = 0; r < REPS("cold"); r++) {
    struct zvm_mapper *m = zvm_mapper_create(&conf);
    if (m == NULL)
      die("out of memory");
    uint64_t t0 = now_ns();
    pass_mapper(m, &d, now_us);
    t[r] = now_ns() - t0;
    zvm_mapper_destroy(m);
  }
  struct timing tc = summarize(t, REPS("cold"));

  /* Steady state: one mapper, every pass one interval later. */
  struct zvm_mapper *m = zvm_mapper_create(&conf);
  if (m == NULL)
    die("out of memory");
  pass_mapper(m, &d, now_us);
  size_t nvalues = pass_values(m);
  for (unsigned r = 0; r < REPS("mapper"); r++) {
    steady_pass(m, &d, &now_us, nvalues, r, &t[r], &tv[r]);
  }
  struct timing tp = summarize(t, REPS("mapper"));
  struct timing tval = summarize(tv, REPS("mapper"));
  const struct zvm_mapper_stats *ms = zvm_mapper_get_stats(m);
  printf("# per pass: %zu values for %" PRIu64 " users\n", nvalues,
         ms->users_tracked);

  if (only != NULL) {
    /* Profiling run: the figures of one part are meaningless ratios. */
    printf("# --only %s: %u repetitions done\n", only, reps);
    goto out;
  }
  double base = (double)tm.median_ns;
  double base_min = (double)tm.min_ns;
  /* Rates from the median; ratios to memcpy's median and (less sensitive
   * to other load on the machine) of the minimums. */
  printf("%-13s %10s %10s %12s %12s %9s %9s\n", "figure", "median_us", "min_us",
         "records/s", "bytes/s", "x_memcpy", "x_min");
#define ROW(name, tt)                                                          \
  printf("%-13s %10.1f %10.1f %12.4g %12.4g %9.2f %9.2f\n", name,              \
         (tt).median_ns / 1e3, (tt).min_ns / 1e3,                              \
         (double)records / ((tt).median_ns / 1e9),                             \
         (double)d.bytes / ((tt).median_ns / 1e9), (tt).median_ns / base,      \
         (tt).min_ns / base_min)
  ROW("memcpy", tm);
  ROW("decode", td);
  ROW("mapper", tp);
  ROW("cold", tc);
  ROW("cap-write", tcw);
  ROW("cap-read", tcr);
  printf("%-13s %10.1f %10.1f %12s %12s %9.2f %9.2f   (%.1f ns per value)\n",
         "values", tval.median_ns / 1e3, tval.min_ns / 1e3, "-", "-",
         tval.median_ns / base, tval.min_ns / base_min,
         (double)tval.median_ns / (double)nvalues);
  struct timing tsum = {tp.median_ns + tval.median_ns, tp.min_ns + tval.min_ns};
  ROW("mapper+values", tsum);
#undef ROW

  if (smoke) {
    /* Consistency only: every guest produced values, records add up. */
    if (ms->users_tracked != guests)
      die("smoke: %" PRIu64 " users tracked, want %u", ms->users_tracked,
          guests);
    const struct zvm_decode_stats *mds = zvm_mapper_decode_stats(m);
    if (mds->walk.records != records * (reps + 1))
      die("smoke: mapper decoded %" PRIu64 " records, want %" PRIu64,
          mds->walk.records, records * (reps + 1));
    printf("# smoke: ok\n");
  }

out:
  zvm_mapper_destroy(m);
  zvm_conf_free(&conf);
  for (size_t i = 0; i < d.nsets; i++)
    free(d.sets[i].data);
  free(d.sets);
  free(copy_dst);
  free(t);
  free(tv);
  return 0;
}
