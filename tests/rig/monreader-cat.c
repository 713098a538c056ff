/* SPDX-License-Identifier: MIT */
/*
 * monreader-cat - read /dev/monreader (real or emulated) and report what
 * the driver delivers: per data set its size, read sizes, MCEs, checksum,
 * and every errno event. Optionally writes the complete sets to a file.
 *
 * It follows the driver's rules: data is valid only once the set's 0-byte
 * read arrived; EIO discards the partial set (the message is gone, the
 * next read starts a new one); EFAULT discards it and the rest of that set
 * up to its 0-byte read (the driver keeps its position after a failed
 * copy); EOVERFLOW keeps the previous set; POLLERR (or, for blocking
 * reads, EIO before any byte of a set) means the path was severed.
 */
#define _GNU_SOURCE
#include "zvm_config.h"

#include "base/cli.h"
#include "base/outfile.h"
#include "mcewrite.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MCE_LEN 12

struct opts {
  const char *device;
  size_t read_size;
  bool nonblock;
  unsigned long max_sets;
  long timeout_ms; /* <0: none */
  unsigned reopens;
  long reopen_delay_ms;
  long wait_ms;
  const char *raw_out;
  const char *sets_out;
  unsigned out_flags; /* --force (base/outfile.h) */
  bool verbose;
  bool quiet;
};

struct set_state {
  uint8_t *buf;
  size_t len, cap;
  /* read sizes, run-length encoded, as text */
  char reads[512];
  size_t reads_len;
  size_t last_read, last_count;
  bool reads_truncated;
  /* MCE/record phase tracking: a read must stay inside one of them */
  size_t mce_left;    /* bytes of the current MCE still to come */
  uint64_t recs_left; /* record bytes of the current MCE still to come */
  unsigned violations;
  unsigned mces;
  bool skip_to_end; /* after EFAULT: drop bytes up to the 0-byte read */
};

static struct {
  unsigned long sets, eio, efault, eoverflow, eagain, eintr, pollerr, opens,
      open_errors, discarded;
  uint64_t bytes;
} st;

static volatile sig_atomic_t alarm_fired;
static void on_alarm(int sig) {
  (void)sig;
  alarm_fired = 1;
}

static const char *errname(int e) {
  switch (e) {
  case EIO:
    return "EIO";
  case EFAULT:
    return "EFAULT";
  case EAGAIN:
    return "EAGAIN";
  case EOVERFLOW:
    return "EOVERFLOW";
  case EBUSY:
    return "EBUSY";
  case EINTR:
    return "EINTR";
  case ENOMEM:
    return "ENOMEM";
  case ENOENT:
    return "ENOENT";
  case EACCES:
    return "EACCES";
  case EPERM:
    return "EPERM";
  case ENODEV:
    return "ENODEV";
  case EBADF:
    return "EBADF";
  default:
    return "E?";
  }
}

static uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

static void set_reset(struct set_state *s) {
  s->len = 0;
  s->reads_len = 0;
  s->reads[0] = '\0';
  s->last_read = 0;
  s->last_count = 0;
  s->reads_truncated = false;
  s->mce_left = MCE_LEN;
  s->recs_left = 0;
  s->violations = 0;
  s->mces = 0;
}

static void reads_flush(struct set_state *s) {
  if (s->last_count == 0)
    return;
  char tok[48];
  int n = s->last_count == 1
              ? snprintf(tok, sizeof(tok), "%s%zu", s->reads_len ? "," : "",
                         s->last_read)
              : snprintf(tok, sizeof(tok), "%s%zu*%zu", s->reads_len ? "," : "",
                         s->last_read, s->last_count);
  if (n > 0 && s->reads_len + (size_t)n + 4 < sizeof(s->reads)) {
    memcpy(s->reads + s->reads_len, tok, (size_t)n + 1);
    s->reads_len += (size_t)n;
  } else if (!s->reads_truncated) {
    memcpy(s->reads + s->reads_len, ",...", 5);
    s->reads_len += 4;
    s->reads_truncated = true;
  }
  s->last_count = 0;
}

static void set_add(struct set_state *s, const uint8_t *p, size_t n) {
  if (s->last_count > 0 && s->last_read == n) {
    s->last_count++;
  } else {
    reads_flush(s);
    s->last_read = n;
    s->last_count = 1;
  }
  if (s->len + n > s->cap) {
    size_t cap = s->cap ? s->cap : 65536;
    while (cap < s->len + n)
      cap *= 2;
    uint8_t *b = realloc(s->buf, cap);
    if (b == NULL) {
      fprintf(stderr, "monreader-cat: out of memory\n");
      exit(1);
    }
    s->buf = b;
    s->cap = cap;
  }
  memcpy(s->buf + s->len, p, n);
  s->len += n;

  /* Phase check: a read lies inside the MCE or inside its record set. */
  if (s->mce_left > 0) {
    if (n > s->mce_left) {
      s->violations++;
      n = s->mce_left;
    }
    s->mce_left -= n;
    if (s->mce_left == 0) {
      const uint8_t *mce = s->buf + s->len - MCE_LEN;
      s->recs_left =
          (uint64_t)mw_load_be32(mce + 8) - mw_load_be32(mce + 4) + 1;
      s->mces++;
    }
  } else {
    if (n > s->recs_left) {
      s->violations++;
      n = (size_t)s->recs_left;
    }
    s->recs_left -= n;
    if (s->recs_left == 0)
      s->mce_left = MCE_LEN;
  }
}

static void set_complete(const struct opts *o, struct set_state *s, FILE *raw,
                         FILE *sets) {
  reads_flush(s);
  st.sets++;
  if (!o->quiet) {
    printf("set %lu: bytes=%zu mces=%u reads=%s violations=%u fnv=%016llx",
           st.sets, s->len, s->mces, s->reads_len ? s->reads : "-",
           s->violations, (unsigned long long)fnv1a(s->buf, s->len));
    for (size_t off = 0; off + MCE_LEN <= s->len;) {
      const uint8_t *m = s->buf + off;
      uint32_t a = mw_load_be32(m + 4), b = mw_load_be32(m + 8);
      printf(" %c:%02x%02x:%08x-%08x",
             m[0] == 0xE2   ? 'S'
             : m[0] == 0xC5 ? 'E'
                            : '?',
             m[1], m[2], a, b);
      if (b < a)
        break;
      off += MCE_LEN + (size_t)(b - a) + 1;
    }
    printf("\n");
  }
  if (raw != NULL && fwrite(s->buf, 1, s->len, raw) != s->len) {
    fprintf(stderr, "monreader-cat: write failed\n");
    exit(1);
  }
  if (sets != NULL) {
    uint8_t h[4] = {(uint8_t)(s->len >> 24), (uint8_t)(s->len >> 16),
                    (uint8_t)(s->len >> 8), (uint8_t)s->len};
    if (fwrite(h, 1, 4, sets) != 4 ||
        fwrite(s->buf, 1, s->len, sets) != s->len) {
      fprintf(stderr, "monreader-cat: write failed\n");
      exit(1);
    }
  }
  set_reset(s);
}

static void sleep_ms(long ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

/* Open the device, retrying failed attempts while re-opens are left. */
static int open_device(const struct opts *o, unsigned *reopens_left,
                       bool first) {
  for (;;) {
    if (!first)
      sleep_ms(o->reopen_delay_ms);
    first = false;
    int fd = open(o->device, O_RDONLY | (o->nonblock ? O_NONBLOCK : 0));
    if (fd >= 0) {
      st.opens++;
      printf("open ok\n");
      return fd;
    }
    st.open_errors++;
    printf("open failed: %s\n", errname(errno));
    if (*reopens_left == 0)
      return -1;
    (*reopens_left)--;
  }
}

static void arm_alarm(long ms) {
  struct itimerval it = {
      .it_value = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000}};
  setitimer(ITIMER_REAL, &it, NULL);
}

static void usage(FILE *fp) {
  fputs("Usage: monreader-cat [OPTION]... [DEVICE]\n"
        "Read z/VM monitor data sets from DEVICE (default /dev/monreader).\n"
        "  -s, --read-size N     bytes per read() (default 4096)\n"
        "  -n, --nonblock        O_NONBLOCK and poll() (default: blocking "
        "reads)\n"
        "  -c, --sets N          stop after N complete sets\n"
        "  -t, --timeout MS      stop after MS ms without data\n"
        "  -r, --reopen N        after a sever or failed open, re-open up "
        "to N times\n"
        "  -R, --reopen-delay MS wait between re-open attempts (default "
        "100)\n"
        "  -w, --wait MS         sleep MS ms after opening, before reading\n"
        "  -o, --output FILE     write complete sets (raw bytes) to FILE\n"
        "  -S, --sets-output FILE write complete sets as u32 BE length + "
        "bytes\n"
        "      --force           overwrite an existing -o/-S file (else "
        "refused)\n"
        "  -v, --verbose         print every read\n"
        "  -q, --quiet           no per-set lines, only events and the "
        "summary\n"
        "  -h, --help            this text\n"
        "      --version         the program's version\n"
        "Exit status: 0 stopped by -c/-t, 1 open failed, 2 usage, 3 path "
        "severed.\n",
        fp);
}

static long num(const char *s, long max) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno != 0 || *s == '\0' || *end != '\0' || v < 0 || v > max) {
    exit(zvm_cli_usage_error("monreader-cat", "bad number '%s'", s));
  }
  return v;
}

/* *fp for path (NULL: none): a new file, never an existing one without
 * --force, never through a symbolic link; a device or FIFO as it is. 0, or
 * the exit status: 2 refused (it exists, a link), 1 another failure. */
static int open_output(const char *path, unsigned flags, FILE **fp) {
  struct zvm_outfile out;
  char err[512];
  *fp = NULL;
  if (path == NULL)
    return 0;
  int e = zvm_outfile_open(&out, path, flags, err, sizeof(err));
  if (e != 0) {
    fprintf(stderr, "monreader-cat: %s\n", err);
    return e == EEXIST || e == ELOOP ? 2 : 1;
  }
  *fp = out.is_stdout ? stdout : fdopen(out.fd, "wb");
  if (*fp == NULL) {
    fprintf(stderr, "monreader-cat: %s: %s\n", path, strerror(errno));
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  struct opts o = {.device = "/dev/monreader",
                   .read_size = 4096,
                   .timeout_ms = -1,
                   .reopen_delay_ms = 100};
  static const struct option lo[] = {
      {"read-size", required_argument, NULL, 's'},
      {"nonblock", no_argument, NULL, 'n'},
      {"sets", required_argument, NULL, 'c'},
      {"timeout", required_argument, NULL, 't'},
      {"reopen", required_argument, NULL, 'r'},
      {"reopen-delay", required_argument, NULL, 'R'},
      {"wait", required_argument, NULL, 'w'},
      {"output", required_argument, NULL, 'o'},
      {"sets-output", required_argument, NULL, 'S'},
      {"verbose", no_argument, NULL, 'v'},
      {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {"force", no_argument, NULL, 'F'},
      {NULL, 0, NULL, 0},
  };
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":s:nc:t:r:R:w:o:S:vqh", lo, NULL)) !=
         -1) {
    switch (c) {
    case 's':
      o.read_size = (size_t)num(optarg, 1L << 30);
      break;
    case 'n':
      o.nonblock = true;
      break;
    case 'c':
      o.max_sets = (unsigned long)num(optarg, 1L << 30);
      break;
    case 't':
      o.timeout_ms = num(optarg, 86400000);
      break;
    case 'r':
      o.reopens = (unsigned)num(optarg, 1000000);
      break;
    case 'R':
      o.reopen_delay_ms = num(optarg, 86400000);
      break;
    case 'w':
      o.wait_ms = num(optarg, 86400000);
      break;
    case 'o':
      o.raw_out = optarg;
      break;
    case 'S':
      o.sets_out = optarg;
      break;
    case 'v':
      o.verbose = true;
      break;
    case 'q':
      o.quiet = true;
      break;
    case 'h':
      usage(stdout);
      return 0;
    case 'V':
      return zvm_cli_version("monreader-cat", PACKAGE_VERSION);
    case 'F':
      o.out_flags |= ZVM_OUT_FORCE;
      break;
    default:
      return zvm_cli_bad_option("monreader-cat", c, argv);
    }
  }
  if (optind + 1 < argc)
    return zvm_cli_usage_error("monreader-cat", "one DEVICE at most");
  if (optind < argc)
    o.device = argv[optind];
  setvbuf(stdout, NULL, _IOLBF, 0);

  FILE *raw = NULL, *sets = NULL;
  int orc = open_output(o.raw_out, o.out_flags, &raw);
  if (orc == 0)
    orc = open_output(o.sets_out, o.out_flags, &sets);
  if (orc != 0) {
    if (raw != NULL)
      fclose(raw);
    return orc;
  }
  struct sigaction sa = {.sa_handler = on_alarm}; /* no SA_RESTART */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, NULL);

  /* -s 0 is allowed on purpose: it shows that the driver answers a
   * 0-byte request with 0 inside a set, which looks like a set's end. */
  uint8_t *buf = malloc(o.read_size ? o.read_size : 1);
  if (buf == NULL)
    return 1;
  struct set_state s = {0};
  set_reset(&s);

  unsigned reopens_left = o.reopens;
  int rc = 0;
  int fd = open_device(&o, &reopens_left, true);
  if (fd < 0) {
    rc = 1;
    goto out;
  }
  if (o.wait_ms > 0)
    sleep_ms(o.wait_ms);

  bool eagain_shown = false;
  for (;;) {
    if (o.max_sets != 0 && st.sets >= o.max_sets)
      break;
    if (!o.nonblock && o.timeout_ms >= 0)
      arm_alarm(o.timeout_ms);
    ssize_t n = read(fd, buf, o.read_size);
    int e = errno;
    if (!o.nonblock && o.timeout_ms >= 0)
      arm_alarm(0);
    if (o.verbose)
      printf("read(%zu) = %zd%s%s\n", o.read_size, n, n < 0 ? " " : "",
             n < 0 ? errname(e) : "");
    if (n > 0) {
      eagain_shown = false;
      st.bytes += (uint64_t)n;
      if (!s.skip_to_end)
        set_add(&s, buf, (size_t)n);
      continue;
    }
    if (n == 0) {
      eagain_shown = false;
      if (s.skip_to_end) {
        s.skip_to_end = false;
        printf("skipped rest of the faulted set\n");
        set_reset(&s);
      } else {
        set_complete(&o, &s, raw, sets);
      }
      continue;
    }
    bool severed = false;
    switch (e) {
    case EAGAIN: {
      st.eagain++;
      if (!eagain_shown)
        printf("read: EAGAIN\n");
      eagain_shown = true;
      struct pollfd p = {.fd = fd, .events = POLLIN};
      int pr = poll(&p, 1, o.timeout_ms >= 0 ? (int)o.timeout_ms : -1);
      if (pr < 0 && errno == EINTR)
        continue;
      if (pr < 0) {
        perror("poll");
        rc = 1;
        goto out;
      }
      if (pr == 0) {
        printf("poll: timeout\n");
        goto out;
      }
      if (p.revents & POLLERR) {
        st.pollerr++;
        printf("poll: POLLERR%s\n", (p.revents & POLLIN) ? "|POLLIN" : "");
        severed = true;
      }
      break;
    }
    case EINTR:
      st.eintr++;
      printf("read: EINTR%s\n", alarm_fired ? " (timeout)" : "");
      if (alarm_fired)
        goto out;
      break;
    case EOVERFLOW:
      st.eoverflow++;
      printf("read: EOVERFLOW (previous set valid, data may be missing)\n");
      break;
    case EFAULT:
      st.efault++;
      st.discarded++;
      printf("read: EFAULT after %zu bytes (set discarded)\n", s.len);
      set_reset(&s);
      s.skip_to_end = true;
      break;
    case EIO:
      st.eio++;
      if (s.len == 0 && !s.skip_to_end && !o.nonblock) {
        printf("read: EIO (path severed)\n");
        severed = true;
      } else {
        st.discarded++;
        printf("read: EIO after %zu bytes (set discarded)\n", s.len);
        set_reset(&s);
        s.skip_to_end = false;
      }
      break;
    default:
      printf("read: %s\n", errname(e));
      rc = 1;
      goto out;
    }
    if (severed) {
      close(fd);
      set_reset(&s);
      s.skip_to_end = false;
      if (reopens_left == 0) {
        rc = 3;
        fd = -1;
        goto out;
      }
      reopens_left--;
      fd = open_device(&o, &reopens_left, false);
      if (fd < 0) {
        rc = 1;
        goto out;
      }
    }
  }
out:
  if (fd >= 0)
    close(fd);
  printf("summary: sets=%lu bytes=%llu eio=%lu efault=%lu eoverflow=%lu "
         "eagain=%lu eintr=%lu pollerr=%lu opens=%lu open_errors=%lu "
         "discarded=%lu\n",
         st.sets, (unsigned long long)st.bytes, st.eio, st.efault, st.eoverflow,
         st.eagain, st.eintr, st.pollerr, st.opens, st.open_errors,
         st.discarded);
  if ((raw != NULL && fclose(raw) != 0) || (sets != NULL && fclose(sets) != 0))
    rc = 1;
  free(buf);
  free(s.buf);
  return rc;
}
