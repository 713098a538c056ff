/* SPDX-License-Identifier: MIT */
/*
 * zvm-monitor-dump - print a capture file (zvm-monitor-capture) or the live
 * /dev/monreader as text, like tcpdump: per data set its MCEs and records,
 * optionally hex (-x), decoded fields (-v) and a histogram (-s). Man page
 * zvm-monitor-dump(1).
 *
 * Sets are walked by the plugin's decoder (zvm_walk_*), records decoded by
 * the record tables (records.h): what is printed is what the plugin sees.
 */
#include "zvm_config.h"

#include "base/cli.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/capture.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/reader.h"
#include "zvm_monitor/recconf.h"
#include "zvm_monitor/records.h"
#include "zvm_monitor/registry.h"

#include "zvm_monitor/recconf_text.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define PROG "zvm-monitor-dump"

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig) { stop_signal = sig; }

struct hist_entry {
  uint8_t domain;
  uint16_t number;
  uint64_t count;
  uint64_t bytes;
};

struct dump {
  bool hex, verbose, stats, no_time, quiet;
  uint64_t max_sets;
  uint64_t sets, events, records;
  struct zvm_walk_stats walk_total;
  struct hist_entry *hist;
  size_t nhist, cap_hist;
  bool oom;
};

/* ---- descriptors: the plugin's registry of record layouts, with the
 * built-in tables; <Record> definitions from a configuration file are
 * added to it (see the man page). */
static struct zvm_registry *registry;

static const struct zvm_record_desc *find_desc(uint8_t domain,
                                               uint16_t number) {
  return zvm_registry_find(registry, domain, number);
}

/* -C FILE: the <Record> blocks of a collectd.conf-style file (wherever
 * they are, e.g. inside <Plugin zvm_monitor>) through the plugin's own
 * builder, into the registry. Lines outside them are blanked, so errors
 * keep the file's line numbers. 0, or -1 after printing why. */
static int load_records(struct zvm_recconf *rc, const char *file) {
  FILE *fp = fopen(file, "r");
  if (fp == NULL) {
    fprintf(stderr, PROG ": cannot open %s: %s\n", file, strerror(errno));
    return -1;
  }
  char *text = NULL;
  size_t len = 0, cap = 0;
  char line[4096];
  int depth = 0; /* inside <Record> ... </Record> */
  while (fgets(line, sizeof(line), fp) != NULL) {
    const char *t = line + strspn(line, " \t");
    bool open_rec = strncasecmp(t, "<Record", 7) == 0 &&
                    (t[7] == ' ' || t[7] == '\t' || t[7] == '>');
    bool close_rec = strncasecmp(t, "</Record>", 9) == 0;
    bool keep = depth > 0 || open_rec;
    if (open_rec)
      depth++;
    if (close_rec && depth > 0)
      depth--;
    size_t n = keep ? strlen(line) : 0;
    if (len + n + 2 > cap) {
      cap = (len + n + 2) * 2;
      char *nt = realloc(text, cap);
      if (nt == NULL) {
        free(text);
        fclose(fp);
        fprintf(stderr, PROG ": out of memory\n");
        return -1;
      }
      text = nt;
    }
    memcpy(text + len, line, n);
    len += n;
    if (n == 0 || line[n - 1] != '\n')
      text[len++] = '\n';
  }
  fclose(fp);
  char err[512] = "";
  int rv = zvm_recconf_parse_text(rc, text != NULL ? text : "", len, err,
                                  sizeof(err));
  free(text);
  if (rv != 0) {
    fprintf(stderr, PROG ": %s: %s\n", file, err);
    return -1;
  }
  return 0;
}

static void print_time(uint64_t us) {
  time_t s = (time_t)(us / 1000000u);
  struct tm tm;
  char buf[32];
  if (gmtime_r(&s, &tm) == NULL ||
      strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
    snprintf(buf, sizeof(buf), "@%" PRIu64, us / 1000000u);
  printf("%s.%06uZ", buf, (unsigned)(us % 1000000u));
}

static void print_tod(uint64_t tod) {
  uint64_t us;
  if (zvm_tod_to_unix_us(tod, &us))
    print_time(us);
  else
    printf("TOD X'%016" PRIX64 "'", tod);
}

static void domains_text(zvm_domain_mask_t mask, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  for (unsigned d = 0; d < ZVM_DOMAIN_COUNT && len < size; d++) {
    if (!(mask & ZVM_DOMAIN_BIT(d)))
      continue;
    const char *name = zvm_domain_name(d);
    int n = name != NULL
                ? snprintf(buf + len, size - len, "%s%s", len ? "," : "", name)
                : snprintf(buf + len, size - len, "%s%u", len ? "," : "", d);
    if (n < 0)
      break;
    len += (size_t)n;
  }
}

static void hex_dump(const uint8_t *p, size_t len, const char *indent) {
  for (size_t off = 0; off < len; off += 16) {
    printf("%s%04zx ", indent, off);
    for (size_t i = 0; i < 16; i++) {
      if (off + i < len)
        printf("%s%02x", i % 4 == 0 ? " " : "", p[off + i]);
      else
        printf("%s  ", i % 4 == 0 ? " " : "");
    }
    printf("  |");
    for (size_t i = 0; i < 16 && off + i < len; i++) {
      uint8_t c = zvm_ebcdic_to_latin1(p[off + i]);
      putchar(c >= 0x20 && c < 0x7F ? c : '.');
    }
    printf("|\n");
  }
}

static const char *kind_name(enum zvm_field_kind k) {
  switch (k) {
  case ZVM_FIELD_COUNTER:
    return "counter";
  case ZVM_FIELD_GAUGE:
    return "gauge";
  case ZVM_FIELD_ID:
    return "id";
  case ZVM_FIELD_TEXT:
    return "text";
  case ZVM_FIELD_FLAGS:
    return "flags";
  case ZVM_FIELD_CODE:
    return "code";
  default:
    return "layout";
  }
}

/* One field of a record (or of an array entry) with every element that
 * lies inside len: raw value, and "-> value" the plugin dispatches if it
 * differs (TOD, CPU timer, scale, counting down). */
static void print_field(const struct zvm_field *f, const uint8_t *data,
                        size_t len, const char *indent) {
  if (f->type == ZVM_TYPE_RECORD_COUNT)
    return; /* not in the bytes */
  for (unsigned idx = 0; idx < f->count; idx++) {
    if (!zvm_field_present(f, len, idx)) {
      printf("%s%-18s (not in this record: %zu bytes)\n", indent, f->ibm_name,
             len);
      return;
    }
    char name[64];
    if (f->count > 1)
      snprintf(name, sizeof(name), "%s(%u)", f->ibm_name, idx);
    else
      snprintf(name, sizeof(name), "%s", f->ibm_name);
    printf("%s%-18s +%-4u ", indent, name,
           (unsigned)(f->offset + idx * f->width));
    if (f->type == ZVM_TYPE_EBCDIC || f->kind == ZVM_FIELD_TEXT) {
      const uint8_t *p = data + f->offset + (size_t)idx * f->width;
      putchar('"');
      for (unsigned i = 0; i < f->width; i++) {
        uint8_t c = zvm_ebcdic_to_latin1(p[i]);
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\')
          putchar(c);
        else
          printf("\\x%02x", p[i]);
      }
      printf("\"\n");
      continue;
    }
    uint64_t u = 0;
    int64_t s = 0, derive;
    double gauge, raw;
    bool hex = f->kind == ZVM_FIELD_FLAGS || f->kind == ZVM_FIELD_ID ||
               f->type == ZVM_TYPE_TOD || f->type == ZVM_TYPE_CPU_TIMER;
    if (f->type == ZVM_TYPE_SIGNED && zvm_field_i64(f, data, len, idx, &s)) {
      printf("%" PRId64, s);
      raw = (double)s;
    } else if (zvm_field_u64(f, data, len, idx, &u)) {
      if (hex)
        printf("X'%0*" PRIX64 "'", (int)f->width * 2, u);
      else
        printf("%" PRIu64, u);
      raw = (double)u;
    } else {
      printf("?");
      raw = 0;
    }
    printf("  %s", kind_name(f->kind));
    /* What the plugin makes of it, where that is not the raw number. */
    if (zvm_field_dispatched(f) &&
        zvm_field_value(f, data, len, idx, &derive, &gauge)) {
      if (f->kind == ZVM_FIELD_COUNTER && (hex || (double)derive != raw))
        printf(" -> %" PRId64, derive);
      else if (f->kind != ZVM_FIELD_COUNTER && (hex || gauge != raw))
        printf(" -> %.17g", gauge);
    }
    putchar('\n');
  }
}

static void print_layout_fields(const struct zvm_layout *l, const uint8_t *data,
                                size_t len, const char *indent) {
  for (size_t i = 0; i < l->nfields; i++)
    print_field(&l->fields[i], data, len, indent);
}

static void print_fields(const struct zvm_record *rec,
                         const struct zvm_record_desc *desc) {
  printf("      %s %s (%s; %s)%s\n", desc->ibm_name, desc->title,
         desc->zvm_level, desc->source,
         desc->user_defined ? " [<Record> block]" : "");
  print_layout_fields(&desc->main, rec->data, rec->len, "        ");
  for (size_t a = 0; a < desc->narrays; a++) {
    const struct zvm_array *arr = &desc->arrays[a];
    struct zvm_array_view v;
    switch (zvm_array_locate(arr, rec->data, rec->len, &v)) {
    case ZVM_ARRAY_OK:
      for (size_t e = 0; e < v.count; e++) {
        printf("        %s[%zu]\n", arr->ibm_name, e);
        print_layout_fields(&arr->entry, zvm_array_entry(&v, e), v.entry_size,
                            "          ");
      }
      break;
    case ZVM_ARRAY_ABSENT:
      printf("        %s: not in this record\n", arr->ibm_name);
      break;
    default:
      printf("        %s: entries outside the record (rejected by the "
             "plugin)\n",
             arr->ibm_name);
      break;
    }
  }
}

static void hist_add(struct dump *d, uint8_t domain, uint16_t number,
                     size_t len) {
  for (size_t i = 0; i < d->nhist; i++) {
    if (d->hist[i].domain == domain && d->hist[i].number == number) {
      d->hist[i].count++;
      d->hist[i].bytes += len;
      return;
    }
  }
  if (d->nhist == d->cap_hist) {
    size_t n = d->cap_hist ? d->cap_hist * 2 : 64;
    struct hist_entry *h = realloc(d->hist, n * sizeof(*h));
    if (h == NULL) {
      d->oom = true;
      return;
    }
    d->hist = h;
    d->cap_hist = n;
  }
  d->hist[d->nhist++] = (struct hist_entry){domain, number, 1, len};
}

static int hist_cmp(const void *a, const void *b) {
  const struct hist_entry *x = a, *y = b;
  if (x->domain != y->domain)
    return x->domain < y->domain ? -1 : 1;
  return x->number < y->number ? -1 : x->number > y->number;
}

static void dump_set(struct dump *d, const uint8_t *set, size_t len,
                     uint64_t time_us, bool have_time) {
  struct zvm_walk w;
  struct zvm_record rec;
  uint64_t record_sets = 0;

  d->sets++;
  if (!d->quiet) {
    if (have_time && !d->no_time) {
      print_time(time_us);
      putchar(' ');
    }
    printf("set %" PRIu64 ": %zu bytes\n", d->sets, len);
  }
  zvm_walk_init(&w, set, len, ZVM_DOMAINS_ALL);
  while (zvm_walk_next(&w, &rec)) {
    if (w.stats.record_sets != record_sets) {
      record_sets = w.stats.record_sets;
      if (!d->quiet) {
        char dom[160];
        domains_text(rec.mce.domains, dom, sizeof(dom));
        printf("  MCE %" PRIu64 ": %s (X'%02X') domains %s, records "
               "X'%08" PRIX32 "'-X'%08" PRIX32 "' (%" PRIu64 " bytes)\n",
               record_sets - 1,
               rec.mce.type == ZVM_MCE_SAMPLE  ? "sample"
               : rec.mce.type == ZVM_MCE_EVENT ? "event"
                                               : "other",
               rec.mce.type, dom, rec.mce.start, rec.mce.end,
               zvm_mce_records_len(&rec.mce));
      }
    }
    d->records++;
    if (d->stats)
      hist_add(d, rec.domain, rec.number, rec.len);
    if (d->quiet)
      continue;
    const struct zvm_record_desc *desc = find_desc(rec.domain, rec.number);
    printf("    D%uR%u %-8s len %u TOD ", rec.domain, rec.number,
           desc != NULL ? desc->ibm_name : "?", rec.len);
    print_tod(rec.tod);
    printf(" addr X'%08" PRIX32 "'\n", rec.addr);
    if (d->verbose && desc != NULL &&
        (desc->main.nfields > 0 || desc->narrays > 0))
      print_fields(&rec, desc);
    if (d->hex)
      hex_dump(rec.data, rec.len, "      ");
  }
  zvm_walk_stats_add(&d->walk_total, &w.stats);
  if (!d->quiet && (w.stats.mce_rejected || w.stats.malformed))
    printf("  rejected MCEs %" PRIu64 ", malformed records %" PRIu64
           " (the plugin counts them in errors-malformed)\n",
           w.stats.mce_rejected, w.stats.malformed);
}

static void dump_event(struct dump *d, const struct zvm_reader_event *ev,
                       uint64_t time_us, bool have_time) {
  char text[256];
  d->events++;
  if (d->quiet)
    return;
  if (have_time && !d->no_time) {
    print_time(time_us);
    putchar(' ');
  }
  zvm_cap_event_text(ev, text, sizeof(text));
  printf("event: %s\n", text);
}

static void print_stats(struct dump *d) {
  printf("%" PRIu64 " data sets, %" PRIu64 " events, %" PRIu64
         " records (%" PRIu64 " record sets, %" PRIu64 " rejected MCEs, "
         "%" PRIu64 " malformed records)\n",
         d->sets, d->events, d->records, d->walk_total.record_sets,
         d->walk_total.mce_rejected, d->walk_total.malformed);
  if (d->nhist == 0)
    return;
  qsort(d->hist, d->nhist, sizeof(*d->hist), hist_cmp);
  printf("domain              record  name      count      bytes  decoded\n");
  for (size_t i = 0; i < d->nhist; i++) {
    const struct hist_entry *h = &d->hist[i];
    const struct zvm_record_desc *desc = find_desc(h->domain, h->number);
    const char *dn = zvm_domain_name(h->domain);
    char dom[24];
    snprintf(dom, sizeof(dom), "%u %s", h->domain, dn != NULL ? dn : "");
    printf("%-19s %6u  %-8s %6" PRIu64 " %10" PRIu64 "  %s\n", dom, h->number,
           desc != NULL ? desc->ibm_name : "-", h->count, h->bytes,
           desc != NULL ? "yes" : "no");
  }
  if (d->oom)
    printf("(out of memory: the histogram is incomplete)\n");
}

/* ---- sources -------------------------------------------------------------
 */

static int dump_capture(struct dump *d, const char *file) {
  int fd = strcmp(file, "-") == 0 ? STDIN_FILENO : open(file, O_RDONLY);
  if (fd < 0) {
    fprintf(stderr, PROG ": cannot open %s: %s\n", file, strerror(errno));
    return 2;
  }
  struct zvm_cap_reader *r = zvm_cap_reader_fd(fd, (size_t)1 << 31);
  if (r == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return 1;
  }
  struct zvm_cap_item it;
  enum zvm_cap_kind k;
  int rc = 0;
  while (!stop_signal && (k = zvm_cap_next(r, &it)) != ZVM_CAP_END) {
    if (k == ZVM_CAP_ERROR) {
      fflush(stdout);
      fprintf(stderr,
              PROG ": %s is damaged at offset %" PRIu64 ": %s (everything "
                   "before it was printed)\n",
              file, zvm_cap_reader_error_offset(r), zvm_cap_reader_error(r));
      rc = 1;
      break;
    }
    if (k == ZVM_CAP_SET)
      dump_set(d, it.data, it.len, it.time_us, true);
    else
      dump_event(d, &it.event, it.time_us, true);
    if (d->max_sets > 0 && d->sets >= d->max_sets)
      break;
  }
  zvm_cap_reader_free(r);
  if (fd != STDIN_FILENO)
    close(fd);
  return rc;
}

static uint64_t wall_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void live_set(const uint8_t *set, size_t len, void *ctx) {
  dump_set(ctx, set, len, wall_us(), true);
  fflush(stdout);
}

static void live_event(const struct zvm_reader_event *ev, void *ctx) {
  dump_event(ctx, ev, wall_us(), true);
}

static void live_log(enum zvm_log_level level, const char *msg, void *ctx) {
  (void)ctx;
  if (level <= ZVM_LOG_WARNING)
    fprintf(stderr, PROG ": %s\n", msg);
}

static int dump_device(struct dump *d, const char *device) {
  struct zvm_reader_config rc = {
      .device = device, .log = live_log, .event = live_event, .event_ctx = d};
  struct zvm_reader *r = zvm_reader_create(&rc);
  if (r == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return 1;
  }
  while (!stop_signal) {
    (void)zvm_reader_wait(r, 100);
    if (zvm_reader_drain(r, live_set, d) != 0) {
      fprintf(stderr, PROG ": out of memory reading %s\n", device);
      break;
    }
    if (d->max_sets > 0 && d->sets >= d->max_sets)
      break;
  }
  zvm_reader_destroy(r);
  return 0;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " [-r FILE | -d DEVICE] [-c COUNT] [-s] [-x] [-v] "
          "[-C FILE] [-t] [-q]\n"
          "  -r, --read=FILE     read a capture (zvm-monitor-capture; '-': "
          "stdin)\n"
          "  -d, --device=DEVICE read the device (default /dev/monreader)\n"
          "  -c, --count=COUNT   stop after COUNT data sets\n"
          "  -s, --stats         a histogram of domain/record counts at the "
          "end\n"
          "  -x, --hex           every record in hex (with its EBCDIC text)\n"
          "  -v, --verbose       the decoded fields of every record with a "
          "table\n"
          "  -C, --records=FILE  also the <Record> definitions in FILE "
          "(collectd.conf)\n"
          "  -t, --no-time       no arrival times (compare two captures' "
          "contents)\n"
          "  -q, --quiet         no per-set output (with -s: the histogram "
          "only)\n"
          "  -h, --help          this text\n"
          "      --version       the program's version\n"
          "See zvm-monitor-dump(1).\n");
}

int main(int argc, char **argv) {
  struct dump d = {0};
  const char *file = NULL, *device = NULL;
  int opt;

  static const struct option long_options[] = {
      {"read", required_argument, NULL, 'r'},
      {"device", required_argument, NULL, 'd'},
      {"count", required_argument, NULL, 'c'},
      {"records", required_argument, NULL, 'C'},
      {"stats", no_argument, NULL, 's'},
      {"hex", no_argument, NULL, 'x'},
      {"verbose", no_argument, NULL, 'v'},
      {"no-time", no_argument, NULL, 't'},
      {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0},
  };
  const char *conf_file = NULL;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, ":r:d:c:C:sxvtqh", long_options,
                            NULL)) != -1) {
    switch (opt) {
    case 'C':
      conf_file = optarg;
      break;
    case 'r':
      file = optarg;
      break;
    case 'd':
      device = optarg;
      break;
    case 'c': {
      char *end;
      errno = 0;
      d.max_sets = strtoull(optarg, &end, 10);
      if (errno != 0 || *end != '\0' || d.max_sets == 0 || optarg[0] == '-') {
        return zvm_cli_usage_error(PROG, "-c: a number of sets > 0");
      }
      break;
    }
    case 's':
      d.stats = true;
      break;
    case 'x':
      d.hex = true;
      break;
    case 'v':
      d.verbose = true;
      break;
    case 't':
      d.no_time = true;
      break;
    case 'q':
      d.quiet = true;
      break;
    case 'h':
      usage(stdout);
      return 0;
    case 'V':
      return zvm_cli_version(PROG, PACKAGE_VERSION);
    default:
      return zvm_cli_bad_option(PROG, opt, argv);
    }
  }
  if (optind != argc)
    return zvm_cli_usage_error(PROG, "unexpected argument '%s'", argv[optind]);
  if (file != NULL && device != NULL)
    return zvm_cli_usage_error(PROG, "-r and -d exclude each other");
  registry = zvm_registry_create();
  if (registry == NULL || zvm_registry_add_builtins(registry) != 0) {
    fprintf(stderr, PROG ": out of memory\n");
    return 1;
  }
  struct zvm_recconf rcf;
  zvm_recconf_init(&rcf, registry);
  if (conf_file != NULL && load_records(&rcf, conf_file) != 0) {
    zvm_recconf_free(&rcf);
    zvm_registry_destroy(registry);
    return 2;
  }
  struct sigaction sa = {.sa_handler = on_signal};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_DFL);

  int rc = file != NULL
               ? dump_capture(&d, file)
               : dump_device(&d, device != NULL ? device : "/dev/monreader");
  if (d.stats)
    print_stats(&d);
  free(d.hist);
  zvm_recconf_free(&rcf);
  zvm_registry_destroy(registry);
  if (fflush(stdout) != 0 && rc == 0)
    rc = 1;
  return rc;
}
