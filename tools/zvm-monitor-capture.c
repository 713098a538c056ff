/* SPDX-License-Identifier: MIT */
/*
 * zvm-monitor-capture - keep what /dev/monreader delivers: every complete
 * data set and every reader event, with its arrival time, in pcapng files
 * (zvm_monitor/capture.h; man page zvm-monitor-capture(1)).
 *
 * The device is read by the plugin's own reader (plugin/io/reader.c): the
 * same set assembly, the same errno handling, so a capture holds exactly
 * the sets the plugin would have decoded.
 */
#include "zvm_config.h"

#include "base/cli.h"
#include "base/outfile.h"
#include "base/util.h"
#include "zvm_monitor/capture.h"
#include "zvm_monitor/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROG "zvm-monitor-capture"
#define WAIT_MS 100

static volatile sig_atomic_t stop_signal;
/* The reader a signal stops between two reads (a drain is bounded, but a
 * device that never runs dry would keep it going until then). */
static struct zvm_reader *volatile signal_reader;

static void on_signal(int sig) {
  stop_signal = sig;
  if (signal_reader != NULL)
    zvm_reader_stop(signal_reader); /* one atomic store */
}

struct opts {
  const char *device;
  const char *file;
  uint64_t rotate_bytes; /* -C; 0: none */
  unsigned rotate_secs;  /* -G; 0: none */
  unsigned keep_files;   /* -W; 0: all */
  uint64_t max_sets;     /* -c; 0: no limit */
  unsigned idle_secs;    /* -i; 0: none */
  size_t max_set_size;   /* -m */
  bool retry;            /* -r */
  bool sync;             /* -S */
  bool quiet;            /* -q */
  unsigned out_flags;    /* --force, --group-readable (outfile.h) */
};

struct capture {
  struct opts o;
  struct zvm_reader *reader;
  struct zvm_cap_writer *w;
  int fd;
  struct zvm_outfile out; /* the current file: created by this run or not */
  char *path;             /* the current file */
  /* With -W: the files of this run not removed yet, oldest first (only
   * those this run created are ever removed). */
  struct zvm_outfile *kept;
  size_t kept_n, kept_cap;
  unsigned long seq;   /* number of the current file (rotation) */
  uint64_t file_start; /* wall clock (us) when the file was started */
  uint64_t file_sets;
  uint64_t sets, events, bytes;
  bool opened_once;    /* the device was open at least once */
  bool say_next_error; /* the reader's next error is the one to show */
  int fatal;           /* exit status once something cannot go on */
  uint64_t last_data;  /* monotonic ms of the last set or event */
};

static uint64_t wall_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static uint64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static bool rotating(const struct opts *o) {
  return o->rotate_bytes > 0 || o->rotate_secs > 0;
}

/* FILE, or with rotation FILE-NNNNNN (before a ".pcapng" extension). */
static char *file_name(const struct opts *o, unsigned long seq) {
  size_t len = strlen(o->file) + 32;
  char *p = malloc(len);
  if (p == NULL)
    return NULL;
  if (!rotating(o)) {
    snprintf(p, len, "%s", o->file);
    return p;
  }
  const char *ext = strrchr(o->file, '.');
  const char *slash = strrchr(o->file, '/');
  if (ext == NULL || (slash != NULL && ext < slash) || ext == o->file ||
      strcmp(ext, ".pcapng") != 0)
    ext = o->file + strlen(o->file);
  snprintf(p, len, "%.*s-%06lu%s", (int)(ext - o->file), o->file, seq, ext);
  return p;
}

static const char *write_error_hint(int e) {
  switch (e) {
  case ENOSPC:
    return "the disk is full";
  case EDQUOT:
    return "the disk quota is exhausted";
  case EFBIG:
    return "the file reached its size limit (file system or ulimit -f; use -C "
           "to rotate)";
  default:
    return strerror(e);
  }
}

static void close_file(struct capture *c) {
  if (c->w == NULL)
    return;
  zvm_cap_writer_free(c->w);
  c->w = NULL;
  if (c->o.sync && c->out.regular)
    (void)fsync(c->fd);
  (void)zvm_outfile_close(&c->out);
  c->fd = -1;
}

/* -W: remember the file just opened; remove the one that falls out of the
 * newest N, if this run created it (zvm_outfile_remove() checks that the
 * name still holds that file). */
static void keep_ring(struct capture *c) {
  if (c->o.keep_files == 0)
    return;
  if (!zvm_grow(&c->kept, &c->kept_cap, c->kept_n, sizeof(*c->kept), 8)) {
    fprintf(stderr, PROG ": out of memory: %s will not be removed by -W\n",
            c->path);
    return;
  }
  c->kept[c->kept_n] = c->out;
  c->kept[c->kept_n++].fd = -1; /* closed by close_file() */
  if (c->kept_n <= c->o.keep_files)
    return;
  struct zvm_outfile oldest = c->kept[0];
  memmove(c->kept, c->kept + 1, --c->kept_n * sizeof(*c->kept));
  char *old = file_name(&c->o, c->seq - c->o.keep_files);
  errno = 0;
  if (old != NULL && oldest.created && !zvm_outfile_remove(&oldest, old) &&
      errno != ENOENT)
    fprintf(stderr, PROG ": %s not removed: %s\n", old,
            errno != 0 ? strerror(errno) : "it is no longer the file written");
  free(old);
}

/* 0, or the exit status: 2 if the output is refused (it exists, a symbolic
 * link), 1 for other failures. */
static int open_file(struct capture *c) {
  int e = 0;
  char err[512];
  free(c->path);
  c->path = file_name(&c->o, c->seq);
  if (c->path == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return 1;
  }
  e = zvm_outfile_open(&c->out, c->path, c->o.out_flags, err, sizeof(err));
  if (e != 0) {
    fprintf(stderr, PROG ": %s\n", err);
    return e == EEXIST || e == ELOOP ? 2 : 1;
  }
  c->fd = c->out.fd;
  if (c->out.is_stdout) {
    free(c->path);
    c->path = strdup("standard output");
    if (c->path == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      return 1;
    }
  }
  c->w = zvm_cap_writer_start(c->fd, PROG " " PACKAGE_VERSION, c->o.device, &e);
  if (c->w == NULL) {
    fprintf(stderr, PROG ": cannot write to %s: %s\n", c->path,
            write_error_hint(e));
    (void)zvm_outfile_remove(&c->out, c->path); /* only a file it created */
    c->fd = -1;
    return 1;
  }
  c->file_start = wall_us();
  c->file_sets = 0;
  keep_ring(c);
  if (!c->o.quiet && rotating(&c->o))
    fprintf(stderr, PROG ": writing %s\n", c->path);
  return 0;
}

/* Rotate before a block of `add` bytes if a limit says so; never leave a
 * file without a set. */
static int maybe_rotate(struct capture *c, size_t add, uint64_t now) {
  if (!rotating(&c->o) || c->file_sets == 0)
    return 0;
  bool by_size = c->o.rotate_bytes > 0 &&
                 zvm_cap_writer_bytes(c->w) + add + 64 > c->o.rotate_bytes;
  bool by_time = c->o.rotate_secs > 0 &&
                 now >= c->file_start + (uint64_t)c->o.rotate_secs * 1000000u;
  if (!by_size && !by_time)
    return 0;
  close_file(c);
  c->seq++;
  int rc = open_file(c);
  if (rc != 0)
    c->fatal = rc;
  return rc;
}

static void write_failed(struct capture *c, int e) {
  fprintf(stderr,
          PROG ": writing %s failed: %s; stopped (%s holds every set up to "
               "the last one written, and is complete)\n",
          c->path, write_error_hint(e), c->path);
  c->fatal = 1;
}

static void on_set(const uint8_t *set, size_t len, void *ctx) {
  struct capture *c = ctx;
  uint64_t now = wall_us();
  if (c->fatal || c->w == NULL)
    return;
  if (maybe_rotate(c, len, now) != 0)
    return;
  int e = zvm_cap_write_set(c->w, set, len, now);
  if (e != 0) {
    write_failed(c, e);
    return;
  }
  if (c->o.sync)
    (void)fdatasync(c->fd);
  c->sets++;
  c->file_sets++;
  c->bytes += len;
  c->last_data = mono_ms();
}

static void on_event(const struct zvm_reader_event *ev, void *ctx) {
  struct capture *c = ctx;
  if (c->fatal || c->w == NULL)
    return;
  if (ev->type == ZVM_READER_EV_OPEN || ev->type == ZVM_READER_EV_REOPEN)
    c->opened_once = true;
  if (ev->type == ZVM_READER_EV_OPEN_ERROR && !c->opened_once && !c->o.retry) {
    /* Say what to do, once, and stop: nothing was captured yet. */
    switch (ev->err) {
    case EBUSY:
      fprintf(stderr,
              PROG ": %s: another process holds the device (only one reader "
                   "is allowed): stop it first (collectd with the "
                   "zvm_monitor plugin?), or use -r to wait for it\n",
              c->o.device);
      break;
    case ENOENT:
    case ENODEV:
    case ENXIO:
      fprintf(stderr,
              PROG ": %s: no such device: load the monreader module "
                   "(modprobe monreader mondcss=<DCSS>)\n",
              c->o.device);
      break;
    case EACCES:
    case EPERM:
      fprintf(stderr,
              PROG ": %s: permission denied: run as a user allowed to read "
                   "it\n",
              c->o.device);
      break;
    case ZVM_READER_NOT_MONREADER:
      c->say_next_error = true; /* the reader's message says what it is */
      break;
    case EIO:
      fprintf(stderr,
              PROG ": %s: the IUCV connection to *MONITOR failed: check "
                   "'IUCV *MONITOR' in the guest's directory entry and "
                   "syslog for the IPUSER SEVER code\n",
              c->o.device);
      break;
    default:
      fprintf(stderr, PROG ": cannot open %s: %s\n", c->o.device,
              strerror(ev->err));
      break;
    }
    c->fatal = 2;
    return;
  }
  /* Open failures while waiting for a re-open are not worth a block each
   * (back-off: at most one a minute), but they are what an admin wants
   * to see in a capture of a problem: keep them. */
  int e = zvm_cap_write_event(c->w, ev, wall_us());
  if (e != 0) {
    write_failed(c, e);
    return;
  }
  c->events++;
  c->last_data = mono_ms();
}

static void on_log(enum zvm_log_level level, const char *msg, void *ctx) {
  struct capture *c = ctx;
  /* The first open failure has its own message (on_event). */
  if (c->say_next_error)
    c->say_next_error = false;
  else if (!c->opened_once && !c->o.retry && level == ZVM_LOG_ERR)
    return;
  if (c->o.quiet && level >= ZVM_LOG_NOTICE)
    return;
  fprintf(stderr, PROG ": %s\n", msg);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " [-d DEVICE] -w FILE [--force] [--group-readable]\n"
          "       [-C SIZE] [-G SECONDS] [-W N] [-c COUNT] [-i SECONDS] "
          "[-m MAXSET]\n"
          "       [-r] [-S] [-q]\n"
          "  -d, --device=DEVICE        device to read (default "
          "/dev/monreader)\n"
          "  -w, --write=FILE           pcapng file to write ('-': standard "
          "output);\n"
          "                             a new file, never an existing one or "
          "a link\n"
          "  -C, --file-size=SIZE       start a new file before one exceeds "
          "SIZE\n"
          "                             bytes (k, M, G)\n"
          "  -G, --rotate-seconds=SECONDS  start a new file every SECONDS\n"
          "  -W, --keep-files=N         keep only the newest N files (with -C "
          "or -G;\n"
          "                             only files this run created are "
          "removed)\n"
          "      --force                overwrite an existing regular file\n"
          "      --group-readable       new files 0640 (default 0600)\n"
          "  -c, --count=COUNT          stop after COUNT data sets\n"
          "  -i, --idle=SECONDS         stop after SECONDS without data or "
          "events\n"
          "  -m, --max-set-size=MAXSET  largest data set in bytes (default "
          "64M, as\n"
          "                             the plugin)\n"
          "  -r, --retry                keep retrying while the device cannot "
          "be opened\n"
          "  -S, --sync                 fdatasync() after every set\n"
          "  -q, --quiet                quiet: only errors and warnings\n"
          "  -h, --help                 this text\n"
          "      --version              the program's version\n"
          "See zvm-monitor-capture(1).\n");
}

static bool parse_size(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno != 0 || end == s || s[0] == '-')
    return false;
  uint64_t mul = 1;
  switch (*end) {
  case 'k':
  case 'K':
    mul = 1024;
    end++;
    break;
  case 'm':
  case 'M':
    mul = 1024 * 1024;
    end++;
    break;
  case 'g':
  case 'G':
    mul = 1024 * 1024 * 1024;
    end++;
    break;
  default:
    break;
  }
  if (*end != '\0' || v > UINT64_MAX / mul)
    return false;
  *out = v * mul;
  return true;
}

static bool parse_uint(const char *s, unsigned *out) {
  uint64_t v;
  if (!parse_size(s, &v) || v > UINT32_MAX || strpbrk(s, "kKmMgG") != NULL)
    return false;
  *out = (unsigned)v;
  return true;
}

int main(int argc, char **argv) {
  struct capture c = {.fd = -1};
  struct opts *o = &c.o;
  uint64_t v;
  int opt;

  static const struct option long_options[] = {
      {"device", required_argument, NULL, 'd'},
      {"write", required_argument, NULL, 'w'},
      {"file-size", required_argument, NULL, 'C'},
      {"rotate-seconds", required_argument, NULL, 'G'},
      {"keep-files", required_argument, NULL, 'W'},
      {"count", required_argument, NULL, 'c'},
      {"idle", required_argument, NULL, 'i'},
      {"max-set-size", required_argument, NULL, 'm'},
      {"retry", no_argument, NULL, 'r'},
      {"sync", no_argument, NULL, 'S'},
      {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {"force", no_argument, NULL, 'F'},
      {"group-readable", no_argument, NULL, 'g'},
      {NULL, 0, NULL, 0},
  };

  o->device = "/dev/monreader";
  opterr = 0;
  while ((opt = getopt_long(argc, argv, ":d:w:C:G:W:c:i:m:rSqh", long_options,
                            NULL)) != -1) {
    switch (opt) {
    case 'd':
      o->device = optarg;
      break;
    case 'w':
      o->file = optarg;
      break;
    case 'C':
      if (!parse_size(optarg, &o->rotate_bytes) || o->rotate_bytes < 4096) {
        return zvm_cli_usage_error(PROG, "-C: a size of at least 4096 bytes");
      }
      break;
    case 'G':
      if (!parse_uint(optarg, &o->rotate_secs) || o->rotate_secs == 0) {
        return zvm_cli_usage_error(PROG, "-G: a number of seconds > 0");
      }
      break;
    case 'W':
      if (!parse_uint(optarg, &o->keep_files) || o->keep_files == 0) {
        return zvm_cli_usage_error(PROG, "-W: a number of files > 0");
      }
      break;
    case 'c':
      if (!parse_size(optarg, &o->max_sets) || o->max_sets == 0) {
        return zvm_cli_usage_error(PROG, "-c: a number of sets > 0");
      }
      break;
    case 'i':
      if (!parse_uint(optarg, &o->idle_secs) || o->idle_secs == 0) {
        return zvm_cli_usage_error(PROG, "-i: a number of seconds > 0");
      }
      break;
    case 'm':
      if (!parse_size(optarg, &v) || v < 4096 || v > UINT32_MAX - 4096) {
        return zvm_cli_usage_error(PROG,
                                   "-m: a size from 4096 bytes to 4G - 4096");
      }
      o->max_set_size = (size_t)v;
      break;
    case 'r':
      o->retry = true;
      break;
    case 'S':
      o->sync = true;
      break;
    case 'q':
      o->quiet = true;
      break;
    case 'h':
      usage(stdout);
      return 0;
    case 'V':
      return zvm_cli_version(PROG, PACKAGE_VERSION);
    case 'F':
      o->out_flags |= ZVM_OUT_FORCE;
      break;
    case 'g':
      o->out_flags |= ZVM_OUT_GROUP_READ;
      break;
    default:
      return zvm_cli_bad_option(PROG, opt, argv);
    }
  }
  if (optind != argc)
    return zvm_cli_usage_error(PROG, "unexpected argument '%s'", argv[optind]);
  if (o->file == NULL)
    return zvm_cli_usage_error(PROG, "-w FILE is required");
  if (strcmp(o->file, "-") == 0 && rotating(o)) {
    return zvm_cli_usage_error(PROG,
                               "-C and -G need a file, not standard output");
  }
  if (o->keep_files > 0 && !rotating(o)) {
    return zvm_cli_usage_error(PROG, "-W needs -C or -G");
  }

  struct sigaction sa = {.sa_handler = on_signal};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  /* A file size limit (ulimit -f) is an error of the write, not a kill. */
  signal(SIGXFSZ, SIG_IGN);

  struct zvm_reader_config rc = {.device = o->device,
                                 .max_set_size = o->max_set_size,
                                 .log = on_log,
                                 .log_ctx = &c,
                                 .event = on_event,
                                 .event_ctx = &c,
                                 .device_option = "-d"};
  c.reader = zvm_reader_create(&rc);
  if (c.reader == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return 1;
  }
  signal_reader = c.reader;
  if (stop_signal)
    zvm_reader_stop(c.reader);
  int out_rc = open_file(&c);
  if (out_rc != 0) {
    zvm_reader_destroy(c.reader);
    free(c.path);
    return out_rc;
  }
  c.last_data = mono_ms();

  while (!stop_signal && !c.fatal) {
    (void)zvm_reader_wait(c.reader, WAIT_MS);
    if (stop_signal)
      break;
    if (zvm_reader_drain(c.reader, on_set, &c) != 0) {
      fprintf(stderr, PROG ": out of memory reading %s\n", o->device);
      c.fatal = 1;
      break;
    }
    if (o->max_sets > 0 && c.sets >= o->max_sets)
      break;
    if (o->idle_secs > 0 &&
        mono_ms() - c.last_data >= (uint64_t)o->idle_secs * 1000u)
      break;
  }

  close_file(&c);
  signal_reader = NULL;
  zvm_reader_destroy(c.reader);
  bool nothing = c.sets == 0 && c.events == 0;
  if ((!o->quiet || c.fatal) && !(c.fatal == 2 && nothing))
    fprintf(stderr,
            PROG ": %" PRIu64 " data sets (%" PRIu64 " bytes), %" PRIu64
                 " events written%s%s\n",
            c.sets, c.bytes, c.events, rotating(o) ? "; last file " : " to ",
            c.path != NULL ? c.path : "");
  /* The device never opened: leave no file that looks like a capture, if
   * this run created it (an existing file given with --force, /dev/null, a
   * FIFO or standard output stay as they are). */
  if (c.fatal == 2 && nothing && c.path != NULL)
    (void)zvm_outfile_remove(&c.out, c.path);
  free(c.path);
  free(c.kept);
  return c.fatal;
}
