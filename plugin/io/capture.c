/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - capture files in pcapng (see zvm_monitor/capture.h).
 *
 * Block layouts from the PCAP Next Generation Dump File Format,
 * draft-ietf-opsawg-pcapng
 * (https://github.com/IETF-OPSAWG-WG/draft-ietf-opsawg-pcap,
 * draft-ietf-opsawg-pcapng-02): section 4.1 SHB, 4.2 IDB, 4.3 EPB, 3.5
 * options; link types 147/148 from the tcpdump.org LINKTYPE_ list
 * (LINKTYPE_USER0..15 = 147..162, reserved for private use).
 */
#include "zvm_monitor/capture.h"
#include "zvm_monitor/be.h"

#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define BT_SHB UINT32_C(0x0A0D0D0A)
#define BT_IDB UINT32_C(0x00000001)
#define BT_EPB UINT32_C(0x00000006)
#define BYTE_ORDER_MAGIC UINT32_C(0x1A2B3C4D)
#define OPT_END 0
#define OPT_COMMENT 1
#define OPT_SHB_USERAPPL 4
#define OPT_IF_NAME 2
#define OPT_IF_DESCRIPTION 3
#define OPT_IF_TSRESOL 9
#define OPT_IF_TSOFFSET 14
#define EPB_FIXED 20 /* interface, ts high, ts low, caplen, origlen */
#define MIN_BLOCK 12
#define MAX_INTERFACES 4096
#define MAX_OPT_TEXT 200

static size_t pad4(size_t n) { return (n + 3) & ~(size_t)3; }

/* ---- writing: big-endian stores into a block under construction -------- */

struct blockbuf {
  uint8_t b[512];
  size_t len;
  bool overflow;
};

static void put(struct blockbuf *bb, const void *p, size_t n) {
  if (bb->overflow || n > sizeof(bb->b) - bb->len) {
    bb->overflow = true;
    return;
  }
  memcpy(bb->b + bb->len, p, n);
  bb->len += n;
}

static void put8(struct blockbuf *bb, uint8_t v) { put(bb, &v, 1); }

static void put16(struct blockbuf *bb, uint16_t v) {
  uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
  put(bb, b, 2);
}

static void put32(struct blockbuf *bb, uint32_t v) {
  uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8),
                  (uint8_t)v};
  put(bb, b, 4);
}

static void put64(struct blockbuf *bb, uint64_t v) {
  put32(bb, (uint32_t)(v >> 32));
  put32(bb, (uint32_t)v);
}

static void put_pad(struct blockbuf *bb) {
  static const uint8_t zero[4];
  put(bb, zero, pad4(bb->len) - bb->len);
}

/* An option with a text value (no NUL, as pcapng wants), cut to
 * MAX_OPT_TEXT bytes. */
static void put_opt_text(struct blockbuf *bb, uint16_t code, const char *s) {
  size_t n = strlen(s);
  if (n > MAX_OPT_TEXT)
    n = MAX_OPT_TEXT;
  put16(bb, code);
  put16(bb, (uint16_t)n);
  put(bb, s, n);
  put_pad(bb);
}

static void put_opt_end(struct blockbuf *bb) {
  put16(bb, OPT_END);
  put16(bb, 0);
}

static void set_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

struct zvm_cap_writer {
  int fd;
  off_t base; /* file offset of the capture's first byte; -1: not a file */
  uint64_t bytes;
};

/* Write all iovecs or nothing: a partial write is cut off again, so the
 * file always ends with a complete block. Returns 0 or an errno. */
static int write_block(struct zvm_cap_writer *w, struct iovec *iov, int n) {
  size_t total = 0, done = 0;
  for (int i = 0; i < n; i++)
    total += iov[i].iov_len;
  while (done < total) {
    ssize_t got = writev(w->fd, iov, n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      int e = got < 0 ? errno : ENOSPC;
      if (done > 0 && w->base >= 0 &&
          ftruncate(w->fd, w->base + (off_t)w->bytes) == 0)
        (void)lseek(w->fd, w->base + (off_t)w->bytes, SEEK_SET);
      return e;
    }
    done += (size_t)got;
    /* Skip what was written. */
    size_t skip = (size_t)got;
    while (n > 0 && skip >= iov[0].iov_len) {
      skip -= iov[0].iov_len;
      iov++;
      n--;
    }
    if (n > 0) {
      iov[0].iov_base = (uint8_t *)iov[0].iov_base + skip;
      iov[0].iov_len -= skip;
    }
  }
  w->bytes += total;
  return 0;
}

/* A block whose whole body is in bb (type and length filled in here). */
static int write_small_block(struct zvm_cap_writer *w, struct blockbuf *bb) {
  put32(bb, 0); /* trailing length */
  if (bb->overflow)
    return EINVAL;
  set_be32(bb->b + 4, (uint32_t)bb->len);
  set_be32(bb->b + bb->len - 4, (uint32_t)bb->len);
  struct iovec iov = {.iov_base = bb->b, .iov_len = bb->len};
  return write_block(w, &iov, 1);
}

static void put_idb(struct blockbuf *bb, uint16_t linktype, const char *device,
                    const char *description) {
  bb->len = 0;
  put32(bb, BT_IDB);
  put32(bb, 0);
  put16(bb, linktype);
  put16(bb, 0);
  put32(bb, 0); /* snaplen 0: no limit */
  put_opt_text(bb, OPT_IF_NAME, device);
  put_opt_text(bb, OPT_IF_DESCRIPTION, description);
  put16(bb, OPT_IF_TSRESOL);
  put16(bb, 1);
  put8(bb, 6); /* microseconds */
  put_pad(bb);
  put_opt_end(bb);
}

struct zvm_cap_writer *zvm_cap_writer_start(int fd, const char *app,
                                            const char *device, int *err) {
  struct zvm_cap_writer *w = calloc(1, sizeof(*w));
  struct blockbuf bb = {.len = 0};
  int e;

  if (w == NULL) {
    *err = ENOMEM;
    return NULL;
  }
  w->fd = fd;
  w->base = lseek(fd, 0, SEEK_CUR);

  put32(&bb, BT_SHB);
  put32(&bb, 0);
  put32(&bb, BYTE_ORDER_MAGIC);
  put16(&bb, 1);          /* major */
  put16(&bb, 0);          /* minor */
  put64(&bb, UINT64_MAX); /* section length: not given */
  put_opt_text(&bb, OPT_SHB_USERAPPL, app != NULL ? app : "zvm_monitor");
  put_opt_end(&bb);
  e = write_small_block(w, &bb);
  if (e == 0) {
    put_idb(&bb, ZVM_CAP_LINKTYPE_SETS, device,
            "z/VM *MONITOR data sets (zvm_monitor)");
    e = write_small_block(w, &bb);
  }
  if (e == 0) {
    put_idb(&bb, ZVM_CAP_LINKTYPE_EVENTS, device, "zvm_monitor reader events");
    e = write_small_block(w, &bb);
  }
  if (e != 0) {
    if (w->base >= 0 && ftruncate(fd, w->base) == 0)
      (void)lseek(fd, w->base, SEEK_SET);
    free(w);
    *err = e;
    return NULL;
  }
  return w;
}

/* EPB header for a packet of len bytes on interface ifc; returns the
 * block's total length. */
static uint32_t put_epb_head(struct blockbuf *bb, uint32_t ifc, size_t len,
                             size_t opts_len, uint64_t time_us) {
  uint32_t total = (uint32_t)(12 + EPB_FIXED + pad4(len) + opts_len);
  put32(bb, BT_EPB);
  put32(bb, total);
  put32(bb, ifc);
  put32(bb, (uint32_t)(time_us >> 32));
  put32(bb, (uint32_t)time_us);
  put32(bb, (uint32_t)len);
  put32(bb, (uint32_t)len);
  return total;
}

int zvm_cap_write_set(struct zvm_cap_writer *w, const uint8_t *set, size_t len,
                      uint64_t time_us) {
  struct blockbuf head = {.len = 0}, tail = {.len = 0};
  static const uint8_t zero[4];

  if (w == NULL || (set == NULL && len > 0))
    return EINVAL;
  if (len > UINT32_MAX - 4096)
    return EFBIG;
  uint32_t total = put_epb_head(&head, 0, len, 0, time_us);
  put(&tail, zero, pad4(len) - len);
  put32(&tail, total);
  struct iovec iov[3] = {
      {.iov_base = head.b, .iov_len = head.len},
      {.iov_base = (void *)set, .iov_len = len},
      {.iov_base = tail.b, .iov_len = tail.len},
  };
  return write_block(w, iov, 3);
}

static const char *const event_names[] = {
    [ZVM_READER_EV_OPEN] = "open",
    [ZVM_READER_EV_REOPEN] = "re-open",
    [ZVM_READER_EV_OPEN_ERROR] = "open-error",
    [ZVM_READER_EV_EOVERFLOW] = "EOVERFLOW",
    [ZVM_READER_EV_EIO] = "EIO",
    [ZVM_READER_EV_EFAULT] = "EFAULT",
    [ZVM_READER_EV_SEVER] = "sever",
    [ZVM_READER_EV_OVERSIZE] = "oversize",
};

const char *zvm_cap_event_name(unsigned type) {
  if (type < sizeof(event_names) / sizeof(event_names[0]) &&
      event_names[type] != NULL)
    return event_names[type];
  return "unknown";
}

void zvm_cap_event_text(const struct zvm_reader_event *ev, char *buf,
                        size_t size) {
  static const char *const what[] = {
      [ZVM_READER_EV_OPEN] = "device opened",
      [ZVM_READER_EV_REOPEN] = "device re-opened",
      [ZVM_READER_EV_OPEN_ERROR] = "open() failed",
      [ZVM_READER_EV_EOVERFLOW] = "IUCV message limit reached: z/VM data lost",
      [ZVM_READER_EV_EIO] = "read() failed with EIO",
      [ZVM_READER_EV_EFAULT] = "read() failed with EFAULT",
      [ZVM_READER_EV_SEVER] = "path severed: device closed",
      [ZVM_READER_EV_OVERSIZE] = "a set larger than the maximum set size",
  };
  unsigned t = (unsigned)ev->type;
  const char *w =
      t < sizeof(what) / sizeof(what[0]) && what[t] != NULL ? what[t] : "?";
  int n =
      snprintf(buf, size, "zvm_monitor event %s: %s", zvm_cap_event_name(t), w);
  if (n < 0 || (size_t)n >= size)
    return;
  if (ev->err != 0)
    n += snprintf(buf + n, size - (size_t)n, " (errno %d)", ev->err);
  if (n >= 0 && (size_t)n < size && ev->set_discarded)
    snprintf(buf + n, size - (size_t)n,
             "; a partial set of %llu bytes was discarded",
             (unsigned long long)ev->discarded_bytes);
}

int zvm_cap_write_event(struct zvm_cap_writer *w,
                        const struct zvm_reader_event *ev, uint64_t time_us) {
  struct blockbuf payload = {.len = 0}, opts = {.len = 0}, bb = {.len = 0};
  char text[MAX_OPT_TEXT + 1];

  if (w == NULL || ev == NULL)
    return EINVAL;
  put8(&payload, ZVM_CAP_EVENT_VERSION);
  put8(&payload, (uint8_t)ev->type);
  put8(&payload, ev->set_discarded ? ZVM_CAP_EVENT_DISCARDED : 0);
  put8(&payload, 0);
  put32(&payload, (uint32_t)ev->err);
  put64(&payload, ev->discarded_bytes);
  zvm_cap_event_text(ev, text, sizeof(text));
  put_opt_text(&opts, OPT_COMMENT, text);
  put_opt_end(&opts);

  put_epb_head(&bb, 1, payload.len, opts.len, time_us);
  put(&bb, payload.b, payload.len);
  put(&bb, opts.b, opts.len);
  return write_small_block(w, &bb);
}

uint64_t zvm_cap_writer_bytes(const struct zvm_cap_writer *w) {
  return w != NULL ? w->bytes : 0;
}

void zvm_cap_writer_free(struct zvm_cap_writer *w) { free(w); }

/* ---- reading ------------------------------------------------------------ */

struct cap_interface {
  uint16_t linktype;
  bool tsres_pow2; /* if_tsresol: 2^-exp, else 10^-exp */
  uint8_t tsres_exp;
  int64_t tsoffset_s; /* if_tsoffset */
};

struct zvm_cap_reader {
  int fd;
  const uint8_t *mem;
  size_t mem_len, mem_pos;
  size_t max_block;

  uint64_t pos; /* file offset of the next block */
  bool in_section;
  bool swap; /* the section's byte order differs from big-endian */
  struct cap_interface *ifs;
  size_t nifs, cap_ifs;

  uint8_t *buf; /* the current block */
  size_t buf_cap;

  enum zvm_cap_kind final; /* ZVM_CAP_END/ERROR once reached; else SET */
  char error[160];
  uint64_t error_offset;
  struct zvm_cap_reader_stats stats;
};

static long read_fd(struct zvm_cap_reader *r, uint8_t *buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = read(r->fd, buf + done, len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    if (n == 0)
      break;
    done += (size_t)n;
  }
  return (long)done;
}

static long read_mem(struct zvm_cap_reader *r, uint8_t *buf, size_t len) {
  size_t left = r->mem_len - r->mem_pos;
  if (len > left)
    len = left;
  if (len > 0)
    memcpy(buf, r->mem + r->mem_pos, len);
  r->mem_pos += len;
  return (long)len;
}

static long read_bytes(struct zvm_cap_reader *r, uint8_t *buf, size_t len) {
  return r->mem != NULL || r->fd < 0 ? read_mem(r, buf, len)
                                     : read_fd(r, buf, len);
}

static struct zvm_cap_reader *reader_new(size_t max_block) {
  struct zvm_cap_reader *r = calloc(1, sizeof(*r));
  if (r == NULL)
    return NULL;
  r->fd = -1;
  r->max_block = max_block > 0 ? max_block : ZVM_CAP_DEFAULT_MAX_BLOCK;
  if (r->max_block < 64)
    r->max_block = 64;
  r->final = ZVM_CAP_SET;
  return r;
}

int zvm_cap_open(const char *path, char *why, size_t why_len) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ELOOP)
      snprintf(why, why_len,
               "is a symbolic link: name the capture file itself");
    else
      snprintf(why, why_len, "%s", strerror(e));
    errno = e;
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    snprintf(why, why_len, "%s", strerror(e));
    close(fd);
    errno = e;
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(why, why_len,
             "is %s, not a capture file (a regular file written by "
             "zvm-monitor-capture)",
             zvm_file_kind(st.st_mode));
    close(fd);
    errno = EINVAL;
    return -1;
  }
  return fd;
}

struct zvm_cap_reader *zvm_cap_reader_fd(int fd, size_t max_block) {
  struct zvm_cap_reader *r = reader_new(max_block);
  if (r != NULL)
    r->fd = fd;
  return r;
}

struct zvm_cap_reader *zvm_cap_reader_mem(const uint8_t *buf, size_t len,
                                          size_t max_block) {
  static const uint8_t empty[1];
  struct zvm_cap_reader *r = reader_new(max_block);
  if (r != NULL) {
    r->mem = buf != NULL ? buf : empty;
    r->mem_len = buf != NULL ? len : 0;
  }
  return r;
}

void zvm_cap_reader_free(struct zvm_cap_reader *r) {
  if (r == NULL)
    return;
  free(r->ifs);
  free(r->buf);
  free(r);
}

const char *zvm_cap_reader_error(const struct zvm_cap_reader *r) {
  return r != NULL && r->error[0] != '\0' ? r->error : "no error";
}

uint64_t zvm_cap_reader_error_offset(const struct zvm_cap_reader *r) {
  return r != NULL ? r->error_offset : 0;
}

const struct zvm_cap_reader_stats *
zvm_cap_reader_get_stats(const struct zvm_cap_reader *r) {
  return r != NULL ? &r->stats : NULL;
}

/* What handling one block gave. */
enum step { STEP_NEXT, STEP_ITEM, STEP_ERROR };

__attribute__((format(printf, 3, 4))) static enum zvm_cap_kind
fail(struct zvm_cap_reader *r, uint64_t offset, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->error, sizeof(r->error), fmt, ap);
  va_end(ap);
  r->error_offset = offset;
  r->final = ZVM_CAP_ERROR;
  return ZVM_CAP_ERROR;
}

#define fail_step(...) (fail(__VA_ARGS__), STEP_ERROR)

/* The section's byte order: big-endian unless its magic was swapped. */
static uint16_t get16(const struct zvm_cap_reader *r, const uint8_t *p) {
  return r->swap ? (uint16_t)(p[0] | p[1] << 8) : zvm_load_be16(p);
}

static uint32_t get32(const struct zvm_cap_reader *r, const uint8_t *p) {
  if (r->swap)
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
  return zvm_load_be32(p);
}

static uint64_t get64(const struct zvm_cap_reader *r, const uint8_t *p) {
  uint64_t a = get32(r, p), b = get32(r, p + 4);
  return r->swap ? b << 32 | a : a << 32 | b;
}

static bool ensure_buf(struct zvm_cap_reader *r, size_t len) {
  if (len <= r->buf_cap)
    return true;
  uint8_t *nb = realloc(r->buf, len);
  if (nb == NULL)
    return false;
  r->buf = nb;
  r->buf_cap = len;
  return true;
}

/* Options of an IDB body from opt (len bytes) on: tsresol, tsoffset. */
static void parse_idb_options(const struct zvm_cap_reader *r,
                              const uint8_t *opt, size_t len,
                              struct cap_interface *ifc) {
  size_t p = 0;
  while (len - p >= 4) {
    uint16_t code = get16(r, opt + p);
    uint16_t olen = get16(r, opt + p + 2);
    p += 4;
    if (code == OPT_END || olen > len - p)
      return;
    if (code == OPT_IF_TSRESOL && olen >= 1) {
      ifc->tsres_pow2 = (opt[p] & 0x80) != 0;
      ifc->tsres_exp = opt[p] & 0x7F;
    } else if (code == OPT_IF_TSOFFSET && olen >= 8) {
      ifc->tsoffset_s = (int64_t)get64(r, opt + p);
    }
    p += pad4(olen);
    if (p > len)
      return;
  }
}

/* Timestamp units of ifc -> microseconds since the epoch (saturating). */
static uint64_t ts_to_us(const struct cap_interface *ifc, uint64_t ts) {
  unsigned __int128 us;
  if (ifc->tsres_pow2) {
    unsigned e = ifc->tsres_exp > 64 ? 64 : ifc->tsres_exp;
    us = ((unsigned __int128)ts * 1000000u) >> e;
  } else if (ifc->tsres_exp >= 6) {
    us = ts;
    for (unsigned i = 6; i < ifc->tsres_exp && us > 0; i++)
      us /= 10;
  } else {
    us = ts;
    for (unsigned i = ifc->tsres_exp; i < 6; i++)
      us *= 10;
  }
  __int128 t = (__int128)us + (__int128)ifc->tsoffset_s * 1000000;
  if (t < 0)
    return 0;
  if (t > (__int128)UINT64_MAX)
    return UINT64_MAX;
  return (uint64_t)t;
}

static enum step handle_shb(struct zvm_cap_reader *r, uint64_t at,
                            size_t total) {
  /* Byte order and length were checked by the caller. */
  uint16_t major = get16(r, r->buf + 12);
  if (major != 1)
    return fail_step(
        r, at, "section header of pcapng version %u (only 1 is known)", major);
  if (total < 28)
    return fail_step(r, at, "section header block too short (%zu bytes)",
                     total);
  r->in_section = true;
  r->nifs = 0;
  return STEP_NEXT;
}

static enum step handle_idb(struct zvm_cap_reader *r, uint64_t at,
                            size_t total) {
  if (total < 20)
    return fail_step(r, at, "interface description block too short (%zu bytes)",
                     total);
  if (r->nifs == r->cap_ifs) {
    if (r->nifs >= MAX_INTERFACES)
      return fail_step(r, at, "more than %d interfaces in one section",
                       MAX_INTERFACES);
    if (!zvm_grow(&r->ifs, &r->cap_ifs, r->nifs, sizeof(*r->ifs), 4))
      return fail_step(r, at, "out of memory");
  }
  struct cap_interface *ifc = &r->ifs[r->nifs++];
  memset(ifc, 0, sizeof(*ifc));
  ifc->linktype = get16(r, r->buf + 8);
  ifc->tsres_exp = 6;
  parse_idb_options(r, r->buf + 16, total - 20, ifc);
  return STEP_NEXT;
}

static enum step handle_epb(struct zvm_cap_reader *r, uint64_t at, size_t total,
                            struct zvm_cap_item *item) {
  if (total < 12 + EPB_FIXED)
    return fail_step(r, at, "packet block too short (%zu bytes)", total);
  const uint8_t *b = r->buf + 8;
  uint32_t ifn = get32(r, b);
  uint64_t ts = (uint64_t)get32(r, b + 4) << 32 | get32(r, b + 8);
  uint32_t caplen = get32(r, b + 12);
  uint32_t origlen = get32(r, b + 16);
  if (caplen > total - 12 - EPB_FIXED)
    return fail_step(r, at,
                     "packet block claims %" PRIu32
                     " bytes of data in a block of "
                     "%zu bytes",
                     caplen, total);
  if (ifn >= r->nifs)
    return fail_step(r, at,
                     "packet block on interface %" PRIu32
                     ", which the section has not described",
                     ifn);
  const struct cap_interface *ifc = &r->ifs[ifn];
  const uint8_t *data = b + EPB_FIXED;

  item->time_us = ts_to_us(ifc, ts);
  item->offset = at;
  if (ifc->linktype == ZVM_CAP_LINKTYPE_SETS) {
    if (caplen != origlen) {
      r->stats.cut_sets++; /* cut by a snaplen: not a complete set */
      return STEP_NEXT;
    }
    item->kind = ZVM_CAP_SET;
    item->data = data;
    item->len = caplen;
    r->stats.sets++;
    return STEP_ITEM;
  }
  if (ifc->linktype == ZVM_CAP_LINKTYPE_EVENTS) {
    uint8_t type = caplen >= ZVM_CAP_EVENT_LEN ? data[1] : 0;
    if (caplen < ZVM_CAP_EVENT_LEN || data[0] != ZVM_CAP_EVENT_VERSION ||
        type < 1 || type > ZVM_READER_EV_MAX) {
      r->stats.bad_events++;
      return STEP_NEXT;
    }
    /* The payload's byte order is ours (big-endian), whatever the file's. */
    item->kind = ZVM_CAP_EVENT;
    item->data = data;
    item->len = caplen;
    item->event.type = (enum zvm_reader_event_type)type;
    item->event.set_discarded = (data[2] & ZVM_CAP_EVENT_DISCARDED) != 0;
    /* caplen >= ZVM_CAP_EVENT_LEN: both loads are inside the block. */
    int32_t err = 0;
    uint64_t n = 0;
    (void)zvm_be_s32(data, caplen, 4, &err);
    (void)zvm_be_u64(data, caplen, 8, &n);
    item->event.err = err;
    item->event.discarded_bytes = n;
    r->stats.events++;
    return STEP_ITEM;
  }
  r->stats.skipped_blocks++;
  return STEP_NEXT;
}

enum zvm_cap_kind zvm_cap_next(struct zvm_cap_reader *r,
                               struct zvm_cap_item *item) {
  if (r == NULL || item == NULL)
    return ZVM_CAP_ERROR;
  memset(item, 0, sizeof(*item));
  while (r->final == ZVM_CAP_SET) {
    uint8_t head[12];
    uint64_t at = r->pos;
    long got = read_bytes(r, head, 8);
    if (got < 0)
      return fail(r, at, "read error: %s", strerror(errno));
    if (got == 0) {
      if (!r->in_section)
        return fail(r, at, "empty file: not a pcapng capture");
      r->final = ZVM_CAP_END;
      break;
    }
    if (got < 8)
      return fail(r, at,
                  "truncated block header (%ld of 8 bytes; the "
                  "capture was cut off while it was written?)",
                  got);
    uint32_t type = 0;
    (void)zvm_be_u32(head, (size_t)got, 0, &type);
    size_t have = 8;
    if (type == BT_SHB) {
      /* The byte-order magic decides how to read this section. */
      got = read_bytes(r, head + 8, 4);
      if (got < 0)
        return fail(r, at, "read error: %s", strerror(errno));
      if (got < 4)
        return fail(r, at, "truncated section header block");
      have = 12;
      uint32_t magic = 0;
      (void)zvm_be_u32(head, sizeof(head), 8, &magic);
      if (magic == BYTE_ORDER_MAGIC)
        r->swap = false;
      else if (magic == UINT32_C(0x4D3C2B1A))
        r->swap = true;
      else
        return fail(r, at, "bad byte-order magic in the section header");
    } else if (!r->in_section) {
      return fail(r, at,
                  "not a pcapng capture (no section header block "
                  "first)");
    } else {
      type = get32(r, head);
    }
    uint32_t total = get32(r, head + 4);
    if (total < MIN_BLOCK || total % 4 != 0)
      return fail(r, at, "bad block length %" PRIu32, total);
    if (total > r->max_block)
      return fail(r, at,
                  "block of %" PRIu32 " bytes is larger than the limit of "
                  "%zu bytes",
                  total, r->max_block);
    if (!ensure_buf(r, total))
      return fail(r, at, "out of memory for a block of %" PRIu32 " bytes",
                  total);
    memcpy(r->buf, head, have);
    got = read_bytes(r, r->buf + have, total - have);
    if (got < 0)
      return fail(r, at, "read error: %s", strerror(errno));
    if ((size_t)got < total - have)
      return fail(r, at,
                  "truncated block (%zu of %" PRIu32 " bytes; the capture "
                  "was cut off while it was written?)",
                  (size_t)got + have, total);
    if (get32(r, r->buf + total - 4) != total)
      return fail(r, at, "block lengths at start and end differ (corrupted)");
    r->pos += total;
    r->stats.blocks++;

    enum step k;
    switch (type) {
    case BT_SHB:
      k = handle_shb(r, at, total);
      break;
    case BT_IDB:
      k = handle_idb(r, at, total);
      break;
    case BT_EPB:
      k = handle_epb(r, at, total, item);
      break;
    default:
      r->stats.skipped_blocks++;
      k = STEP_NEXT;
      break;
    }
    if (k == STEP_ERROR)
      return ZVM_CAP_ERROR;
    if (k == STEP_ITEM)
      return item->kind;
  }
  item->kind = r->final;
  item->offset = r->final == ZVM_CAP_ERROR ? r->error_offset : r->pos;
  return r->final;
}
