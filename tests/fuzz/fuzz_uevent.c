/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target "uevent": how the reader tells the misc device monreader
 * from any other file opened as the device (plugin/io/reader.c,
 * zvm_reader_identify()), from its fstat and two sysfs texts, taken as
 * hostile: /sys/dev/char/MAJOR:MINOR/uevent (the kernel's "KEY=value"
 * lines, drivers/base/core.c dev_uevent(): MAJOR, MINOR, DEVNAME, ...) and
 * /sys/class/misc/monreader/dev ("MAJOR:MINOR\n", print_dev_t()).
 *
 * Input: byte 0 flags (bits 0-2 the file type: character device, regular
 * file, directory, FIFO, socket, block device, symbolic link, none; bit 3
 * the uevent file unreadable; bit 4 the misc dev file unreadable), bytes
 * 1-4 the major and 5-8 the minor number (big-endian), byte 9 the size - 1
 * of the caller's reason buffer, bytes 10-11 the uevent text's length N
 * (big-endian, cut to what follows), N bytes of uevent text, the rest the
 * misc dev text.
 *
 * Three ways in:
 *  - zvm_reader_identify() directly, the reason into an exact-size buffer:
 *    the verdict must be the one an independent reading of the two formats
 *    gives (the first DEVNAME line of the uevent decides: the device is
 *    monreader exactly when its value is "monreader"; without a uevent,
 *    the misc text's numbers must be the file's; neither readable or
 *    understood: cannot tell, accepted); a refusal's reason is one
 *    non-empty line of printable characters inside its buffer.
 *  - the reader itself (zvm_reader_drain() with fake I/O whose fstat and
 *    read_text serve the input): it asks for the uevent of the fstat's
 *    numbers, the misc text only without it, decides the same, and a
 *    refusal is one logged line of printable characters and one failed
 *    open.
 *  - the real read_text (zvm_reader_sysio) on the uevent bytes in a memfd:
 *    at most len - 1 bytes, exactly those of the file, NUL-terminated.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "zvm_monitor/reader.h"

#define HEAD 12
#define DEVICE "/dev/monreader-fuzz"
#define FAKE_FD 5

static const mode_t kinds[8] = {S_IFCHR,  S_IFREG, S_IFDIR, S_IFIFO,
                                S_IFSOCK, S_IFBLK, S_IFLNK, 0};

/* The first "DEVNAME=" line's value (up to its newline or the end):
 * returns its start and sets *len, or NULL without such a line. */
static const char *devname(const char *text, size_t *len) {
  const char *p = text;
  while (*p != '\0') {
    size_t n = 0;
    while (p[n] != '\0' && p[n] != '\n')
      n++;
    if (n >= 8 && memcmp(p, "DEVNAME=", 8) == 0) {
      *len = n - 8;
      return p + 8;
    }
    p += n;
    if (*p == '\n')
      p++;
  }
  return NULL;
}

/* "MAJOR:MINOR" as the kernel prints it (decimal, a newline or the end
 * after it), each number fitting an unsigned int. */
static bool misc_numbers(const char *s, unsigned *maj, unsigned *min) {
  unsigned *out[2] = {maj, min};
  for (int k = 0; k < 2; k++) {
    if (!(*s >= '0' && *s <= '9'))
      return false;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
      v = v * 10 + (uint64_t)(*s - '0');
      if (v > 0xFFFFFFFFu)
        return false;
    }
    *out[k] = (unsigned)v;
    if (k == 0 && *s++ != ':')
      return false;
  }
  return *s == '\0' || *s == '\n';
}

/* What the reader must decide, read independently of reader.c. */
static bool expected(const struct stat *st, const char *uevent,
                     const char *misc) {
  if (!S_ISCHR(st->st_mode))
    return false;
  if (uevent != NULL) {
    size_t n;
    const char *v = devname(uevent, &n);
    return v != NULL && n == 9 && memcmp(v, "monreader", 9) == 0;
  }
  unsigned maj, min;
  if (misc != NULL && misc_numbers(misc, &maj, &min))
    return maj == major(st->st_rdev) && min == minor(st->st_rdev);
  return true; /* sysfs cannot tell */
}

static void check_line(const char *s) {
  FUZZ_CHECK(s[0] != '\0');
  for (const char *c = s; *c != '\0'; c++)
    FUZZ_CHECK(*c >= 0x20 && *c < 0x7F);
}

/* ---- the reader with fake I/O ------------------------------------------- */

struct fake {
  struct stat st;
  const char *uevent, *misc; /* NULL: unreadable */
  bool is_open, opened;
  unsigned uevent_reads, misc_reads, logs;
  bool refused_logged;
};

static int fake_open(const char *path, int flags, void *ctx) {
  struct fake *f = ctx;
  (void)flags;
  FUZZ_CHECK(strcmp(path, DEVICE) == 0 && !f->is_open);
  f->is_open = f->opened = true;
  return FAKE_FD;
}

static ssize_t fake_read(int fd, void *buf, size_t len, void *ctx) {
  struct fake *f = ctx;
  (void)buf;
  (void)len;
  FUZZ_CHECK(fd == FAKE_FD && f->is_open);
  errno = EAGAIN;
  return -1;
}

static int fake_poll(int fd, void *ctx) {
  (void)fd;
  (void)ctx;
  return 0;
}

static int fake_close(int fd, void *ctx) {
  struct fake *f = ctx;
  FUZZ_CHECK(fd == FAKE_FD && f->is_open);
  f->is_open = false;
  return 0;
}

static uint64_t fake_now(void *ctx) {
  (void)ctx;
  return 1000000;
}

static int fake_fstat(int fd, struct stat *st, void *ctx) {
  struct fake *f = ctx;
  FUZZ_CHECK(fd == FAKE_FD && f->is_open);
  *st = f->st;
  return 0;
}

/* As the real one: up to len - 1 bytes, NUL-terminated. */
static ssize_t fake_read_text(const char *path, char *buf, size_t len,
                              void *ctx) {
  struct fake *f = ctx;
  char want[64];
  snprintf(want, sizeof(want), "/sys/dev/char/%u:%u/uevent",
           (unsigned)major(f->st.st_rdev), (unsigned)minor(f->st.st_rdev));
  const char *text;
  FUZZ_CHECK(len > 0);
  if (strcmp(path, want) == 0) {
    FUZZ_CHECK(S_ISCHR(f->st.st_mode));
    f->uevent_reads++;
    text = f->uevent;
  } else {
    /* only when the uevent cannot be read */
    FUZZ_CHECK(strcmp(path, "/sys/class/misc/monreader/dev") == 0);
    FUZZ_CHECK(f->uevent_reads == 1 && f->uevent == NULL);
    f->misc_reads++;
    text = f->misc;
  }
  if (text == NULL)
    return -1;
  size_t n = strlen(text);
  if (n > len - 1)
    n = len - 1;
  memcpy(buf, text, n);
  buf[n] = '\0';
  return (ssize_t)n;
}

static void on_log(enum zvm_log_level level, const char *msg, void *ctx) {
  struct fake *f = ctx;
  f->logs++;
  check_line(msg);
  if (level == ZVM_LOG_ERR && strstr(msg, "not the z/VM monitor device"))
    f->refused_logged = true;
}

static void no_set(const uint8_t *set, size_t len, void *ctx) {
  (void)set;
  (void)len;
  (void)ctx;
  FUZZ_CHECK(!"a set from a device that only says EAGAIN");
}

static void through_reader(const struct stat *st, const char *uevent,
                           const char *misc) {
  struct fake f = {.st = *st, .uevent = uevent, .misc = misc};
  const struct zvm_reader_io io = {
      .open = fake_open,
      .read = fake_read,
      .poll = fake_poll,
      .close = fake_close,
      .now_ms = fake_now,
      .ctx = &f,
      .fstat = fake_fstat,
      .read_text = fake_read_text,
  };
  const struct zvm_reader_config cfg = {
      .device = DEVICE, .io = &io, .log = on_log, .log_ctx = &f};
  struct zvm_reader *r = zvm_reader_create(&cfg);
  FUZZ_CHECK(r != NULL);
  FUZZ_CHECK(zvm_reader_drain(r, no_set, NULL) == 0);
  FUZZ_CHECK(f.opened);
  FUZZ_CHECK(f.uevent_reads == (S_ISCHR(st->st_mode) ? 1u : 0u));
  /* What the reader saw: the texts as its buffers (512 and 32 bytes) hold
   * them. */
  char ubuf[512], mbuf[32];
  const char *u = NULL, *m = NULL;
  if (uevent != NULL) {
    snprintf(ubuf, sizeof(ubuf), "%s", uevent);
    u = ubuf;
  }
  if (misc != NULL && f.misc_reads > 0) {
    snprintf(mbuf, sizeof(mbuf), "%s", misc);
    m = mbuf;
  }
  const struct zvm_reader_stats *s = zvm_reader_get_stats(r);
  if (expected(st, u, m)) {
    FUZZ_CHECK(s->open == 1 && s->health.open_errors == 0 && f.is_open);
    FUZZ_CHECK(!f.refused_logged);
  } else {
    FUZZ_CHECK(s->open == 0 && s->health.open_errors == 1 && !f.is_open);
    FUZZ_CHECK(s->open_errno == ZVM_READER_NOT_MONREADER);
    FUZZ_CHECK(f.refused_logged && f.logs == 1);
  }
  zvm_reader_destroy(r);
  FUZZ_CHECK(!f.is_open);
}

/* ---- the real read_text ------------------------------------------------- */

static void real_read_text(const uint8_t *text, size_t n, size_t len) {
  int fd = memfd_create("uevent", MFD_CLOEXEC);
  if (fd < 0)
    return; /* no memfd here (an old kernel) */
  FUZZ_CHECK(n == 0 || write(fd, text, n) == (ssize_t)n);
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
  char *buf = malloc(len);
  FUZZ_CHECK(buf != NULL);
  memset(buf, 0xA5, len);
  ssize_t got = zvm_reader_sysio.read_text(path, buf, len, NULL);
  if (got >= 0 || access(path, R_OK) == 0) { /* /proc may not be there */
    size_t want = n < len - 1 ? n : len - 1;
    FUZZ_CHECK(got == (ssize_t)want);
    FUZZ_CHECK(memcmp(buf, text, want) == 0 && buf[want] == '\0');
  }
  free(buf);
  close(fd);
}

/* p[0..n) and a NUL, in a block of exactly n + 1 bytes. */
static char *text_dup(const uint8_t *p, size_t n) {
  char *s = malloc(n + 1);
  FUZZ_CHECK(s != NULL);
  if (n > 0)
    memcpy(s, p, n);
  s[n] = '\0';
  return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < HEAD)
    return 0;
  struct stat st;
  memset(&st, 0, sizeof(st));
  st.st_mode = kinds[data[0] & 7] | 0600;
  st.st_rdev =
      makedev((unsigned)fuzz_be(data + 1, 4), (unsigned)fuzz_be(data + 5, 4));
  size_t why_len = (size_t)data[9] + 1;
  size_t ulen = (size_t)fuzz_be(data + 10, 2);
  if (ulen > size - HEAD)
    ulen = size - HEAD;
  /* NUL-terminated copies in blocks of their exact size: the texts as
   * read_text hands them over (a NUL inside ends them). */
  size_t mlen = size - HEAD - ulen;
  char *uevent = text_dup(data + HEAD, ulen);
  char *misc = text_dup(data + HEAD + ulen, mlen);
  const char *u = (data[0] & 8) ? NULL : uevent;
  const char *m = (data[0] & 16) ? NULL : misc;

  char *why = malloc(why_len);
  FUZZ_CHECK(why != NULL);
  memset(why, 0xA5, why_len);
  bool is = zvm_reader_identify(&st, u, m, why, why_len);
  FUZZ_CHECK(is == expected(&st, u, m));
  if (!is) {
    FUZZ_CHECK(memchr(why, '\0', why_len) != NULL);
    if (why_len > 1)
      check_line(why);
  }
  free(why);

  through_reader(&st, u, m);
  real_read_text(data + HEAD, ulen, why_len);
  free(uevent);
  free(misc);
  return 0;
}
