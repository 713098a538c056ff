/* SPDX-License-Identifier: MIT */
/*
 * zvm-stream-gen - generate a realistic, deterministic z/VM *MONITOR stream
 * as /dev/monreader would deliver it, as a scenario file for the emulated
 * device (libmonreader-emu.so) or as plain data sets for benchmarks and
 * fuzz corpora. See README.md in this directory.
 *
 * Model: the monitor DCSS is split into an event area (first half) and a
 * sample area (second half), each used as a ring. Records are placed in
 * 4 KB frames and never cross one: when a record does not fit (keeping 20
 * bytes for the end-of-frame record), a D1R13 is written and the rest of
 * the frame is padding (non-zero garbage, delivered by read() like any
 * byte of the record-set range). Per interval one event stream (D5R21
 * start, D2R1, D4R10 per guest, D5R21 end) and one sample stream (D0R1 per
 * CPU, D3R2, D8R1 per NIC, D1R11 last) are written; a stream is cut into
 * record sets of at most --set-frames frames and messages of at most
 * --mces record sets.
 */
#define _GNU_SOURCE
#include "zvm_config.h"

#include "base/cli.h"
#include "base/outfile.h"
#include "scenario.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Record lengths. D4R10 and D5R21 follow IBM's MRUSEITE and MRPRCSMT pages; the
 * others are records the plugin does not decode (skipped by MRHDRLEN). */
#define USEITE_LEN 200
#define USETST_LEN 452 /* D4R200, made up (--usetst) */
#define PRCSMT_FIXED_LEN 36
#define PRCSMT_ENTRY_LEN 8
#define PRCSMT_ENTRIES 2
#define PRCSMT_LEN (PRCSMT_FIXED_LEN + PRCSMT_ENTRIES * PRCSMT_ENTRY_LEN)
#define SYTSYP_LEN 116 /* D0R1 */
/* D0R2 MRSYTPRP is 352 bytes at z/VM 6.4 (IBM MRSYTPRP,
 * https://www.vm.ibm.com/pubs/mon640/MRSYTPRP.HTML). */
#define SYTPRP_LEN 352
#define STO_R2_LEN 72  /* D3R2 */
#define VNDSES_LEN 316 /* D8R1 */
#define SCL_R1_LEN 64  /* D2R1 */
/* D4R1 MRUSELON and D4R2 MRUSELOF, lengths as IBM prints them (mon730
 * MRUSELON: 180; mon620 MRUSELOF: 496); only offsets 20-30 are filled
 * with meaning, the rest with a pattern. */
#define USELON_LEN 180
#define USELOF_LEN 496
#define MAX_SESSION_EVENTS 64

#define CPU_CP 0x00
#define CPU_IFL 0x03

enum out_format { FMT_SCENARIO, FMT_RAW, FMT_SETS };

struct opts {
  uint64_t seed;
  unsigned guests;
  unsigned intervals;
  unsigned events; /* D4R10 per guest per interval */
  unsigned cpus;
  unsigned nics;
  unsigned sytprp;         /* D0R2 records per sample (0: none) */
  unsigned sytprp_len;     /* their length */
  unsigned unknown_events; /* D2R1 per interval */
  unsigned smt_every;      /* D5R21 pair every N intervals (0: never) */
  uint32_t dcss_base;
  uint32_t dcss_size;
  unsigned set_frames; /* max frames per record set (0: unlimited) */
  unsigned mces;       /* max record sets per message */
  bool align_sets;
  uint64_t start; /* Unix seconds of the first interval */
  unsigned interval_s;
  const char *prefix;
  uint64_t counter_offset;
  unsigned gap_ms;
  enum out_format format;
  /* Virtual MP guests and record times. */
  unsigned vcpus;       /* VMDBKs per guest */
  unsigned vmdbk_skip;  /* non-base VMDBK v skips transaction k when
                           (k + v) mod vmdbk_skip = 0 (0: never) */
  int64_t tod_offset_s; /* added to every TOD (an STP leap-second offset) */
  struct {
    unsigned at;     /* from this interval on */
    int64_t seconds; /* added to every TOD */
  } jumps[8];
  unsigned njumps;
  bool smt_fields; /* D5R21: distinct values, X'FF' (MAX), bad arrays */
  bool usetst;     /* a D4R200 (made up) with every D4R10 record */
  const char *out;
  const char *split_dir;
  unsigned out_flags; /* --force (base/outfile.h) */
  struct scn_fault *faults;
  size_t nfaults;
  bool stats;
  /* --logon/--logoff G@I, in the order given */
  struct session_event {
    bool logon;
    unsigned guest;    /* 0-based */
    unsigned interval; /* 0-based */
  } sessions[MAX_SESSION_EVENTS];
  size_t nsessions;
  /* domain 10 (APPLDATA) */
  unsigned linux_guests;
  unsigned linux_cpus;
  const char *linux_prefix;
  unsigned appldata; /* APL_* bits */
  bool appldata_faults;
};

#define APL_OS 1u
#define APL_MEM 2u
#define APL_NET 4u
#define APL_FS 8u
#define APL_PROCD 16u

/* ---- growable output buffer ------------------------------------------- */
struct obuf {
  uint8_t *p;
  size_t len, cap;
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("zvm-stream-gen: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}

static uint8_t *ob_grow(struct obuf *b, size_t n) {
  if (n > b->cap - b->len) {
    size_t cap = b->cap ? b->cap : 65536;
    while (cap - b->len < n)
      cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (p == NULL)
      die("out of memory");
    b->p = p;
    b->cap = cap;
  }
  uint8_t *r = b->p + b->len;
  b->len += n;
  return r;
}

/* ---- deterministic values --------------------------------------------- */
static uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + UINT64_C(0x9E3779B97F4A7C15);
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* Counter at record offset off of VMDBK v (virtual CPU v; 0 is the base,
 * the only one unless --vcpus) of guest g after its k-th transaction:
 *   h = splitmix64(seed << 32 ^ g << 8 ^ off ^ v << 48)
 *   value = (h % 1000000 + counter_offset + k * (1 + (h >> 40) % 1000))
 *           mod 2^(8 * width)
 * (documented in README.md; the tests recompute it independently). */
static uint64_t vmdbk_counter(const struct opts *o, unsigned g, unsigned v,
                              unsigned off, unsigned width, uint64_t k) {
  uint64_t h = splitmix64((o->seed << 32) ^ ((uint64_t)g << 8) ^ off ^
                          ((uint64_t)v << 48));
  uint64_t val = h % 1000000 + o->counter_offset + k * (1 + (h >> 40) % 1000);
  return width >= 8 ? val : val & ((UINT64_C(1) << (8 * width)) - 1);
}

/* Seconds added to the TODs of interval i: --tod-offset and every
 * --time-jump that starts at or before i. */
static int64_t tod_shift_s(const struct opts *o, unsigned i) {
  int64_t s = o->tod_offset_s;
  for (unsigned j = 0; j < o->njumps; j++)
    if (o->jumps[j].at <= i)
      s += o->jumps[j].seconds;
  return s;
}

static uint64_t tod_at(const struct opts *o, unsigned i, uint64_t unix_us) {
  /* The TOD clock counts modulo 2^64: a time after 2042-09-17 wraps. */
  return mw_tod(unix_us + (uint64_t)(tod_shift_s(o, i) * 1000000));
}

/* Whether VMDBK v of a guest writes a D4R10 for transaction k. */
static bool vmdbk_writes(const struct opts *o, unsigned v, uint64_t k) {
  return v == 0 || o->vmdbk_skip == 0 || (k + v) % o->vmdbk_skip != 0;
}

/* ---- DCSS areas, record sets, messages -------------------------------- */
struct area {
  uint32_t start, end; /* inclusive */
  uint32_t cur;        /* where the next record set starts */
};

struct gen {
  const struct opts *o;
  struct area ev, sa;
  struct area *a; /* area of the stream being written */
  uint8_t type;   /* MCE type of the stream */
  struct obuf msg;
  unsigned msg_mces;
  uint64_t msg_area_bytes;
  bool rs_open;
  size_t rs_mce_off;
  uint32_t rs_start, rs_addr;
  unsigned rs_frames;
  uint16_t rs_mask;
  uint64_t rng;
  size_t msg_index;
  FILE *fp;
  /* statistics */
  uint64_t n_sets, n_records, n_eof, n_bytes;
  /* multithreading state */
  unsigned smt_changes;
};

static void set_open(struct gen *g) {
  struct area *a = g->a;
  if (g->o->align_sets && (a->cur & (MW_FRAME - 1)) != 0)
    a->cur = (a->cur | (MW_FRAME - 1)) + 1;
  if ((uint64_t)(a->cur & ~(MW_FRAME - 1)) + MW_FRAME - 1 > a->end)
    a->cur = a->start;
  g->rs_mce_off = g->msg.len;
  ob_grow(&g->msg, MW_MCE_LEN);
  g->rs_start = g->rs_addr = a->cur;
  g->rs_frames = 1;
  g->rs_mask = 0;
  g->rs_open = true;
}

static void set_close(struct gen *g) {
  uint32_t end = g->rs_addr - 1;
  mw_mce(g->msg.p + g->rs_mce_off, g->type, g->rs_mask, g->rs_start, end);
  g->msg_area_bytes += (uint64_t)end - g->rs_start + 1;
  if (g->msg_area_bytes > (uint64_t)g->a->end - g->a->start + 1)
    die("one message needs more than its DCSS area (%u bytes): raise "
        "--dcss-size or lower --set-frames/--mces",
        (unsigned)(g->a->end - g->a->start + 1));
  g->a->cur = g->rs_addr;
  g->rs_open = false;
  g->msg_mces++;
  g->n_sets++;
}

static bool fault_at(const struct gen *g, enum scn_fault_kind kind,
                     const struct scn_fault **f) {
  for (size_t i = 0; i < g->o->nfaults; i++)
    if (g->o->faults[i].kind == kind && g->o->faults[i].msg == g->msg_index) {
      *f = &g->o->faults[i];
      return true;
    }
  return false;
}

static void write_or_die(struct gen *g, int rc) {
  if (rc != 0 || ferror(g->fp))
    die("write failed: %s", strerror(errno));
}

/* FILE for writing: a new file (never an existing one without --force,
 * never through a symbolic link), a device or FIFO as it is, or "-". */
static FILE *open_output(const char *path, unsigned flags) {
  struct zvm_outfile out;
  char err[512];
  if (zvm_outfile_open(&out, path, flags, err, sizeof(err)) != 0)
    die("%s", err);
  if (out.is_stdout)
    return stdout;
  FILE *fp = fdopen(out.fd, "wb");
  if (fp == NULL)
    die("%s: %s", path, strerror(errno));
  return fp;
}

static void emit_split(struct gen *g) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/set-%06zu.bin", g->o->split_dir,
           g->msg_index);
  FILE *fp = open_output(path, g->o->out_flags);
  if (fwrite(g->msg.p, 1, g->msg.len, fp) != g->msg.len || fclose(fp) != 0)
    die("%s: write failed", path);
}

static void msg_flush(struct gen *g) {
  if (g->rs_open)
    set_close(g);
  if (g->msg_mces == 0)
    return;
  const struct scn_fault *f;
  const struct opts *o = g->o;

  /* badmca: make MCE k fail the driver's check (type byte 0). */
  if (fault_at(g, SCN_F_BADMCA, &f)) {
    uint64_t k = f->arg == SCN_NONE ? 0 : f->arg, off = 0;
    if (k >= g->msg_mces)
      die("badmca@%zu: message has %u MCEs", g->msg_index, g->msg_mces);
    for (uint64_t j = 0; j < k; j++)
      off += MW_MCE_LEN + mw_load_be32(g->msg.p + off + 8) -
             mw_load_be32(g->msg.p + off + 4) + 1;
    g->msg.p[off] = 0;
  }

  if (o->split_dir != NULL)
    emit_split(g);
  if (o->format == FMT_SCENARIO) {
    FILE *fp = g->fp;
    if (fault_at(g, SCN_F_OPEN, &f))
      write_or_die(g, scn_write_item_u32(fp, SCN_OPEN_ERROR, 2,
                                         (uint32_t)f->arg, (uint32_t)f->arg2));
    if (fault_at(g, SCN_F_DELAY, &f))
      write_or_die(g,
                   scn_write_item_u32(fp, SCN_DELAY, 1, (uint32_t)f->arg, 0));
    else if (o->gap_ms > 0 && g->msg_index > 0)
      write_or_die(g, scn_write_item_u32(fp, SCN_DELAY, 1, o->gap_ms, 0));
    if (fault_at(g, SCN_F_EIO, &f))
      write_or_die(g, scn_write_item_u32(fp, SCN_EIO, 1,
                                         f->arg == SCN_NONE ? SCN_AT_END
                                                            : (uint32_t)f->arg,
                                         0));
    if (fault_at(g, SCN_F_EFAULT, &f))
      write_or_die(
          g, scn_write_item_u32(fp, SCN_EFAULT, 1,
                                f->arg == SCN_NONE ? 0 : (uint32_t)f->arg, 0));
    write_or_die(
        g, scn_write_item(fp, SCN_MESSAGE, g->msg.p, (uint32_t)g->msg.len));
    if (fault_at(g, SCN_F_EOVERFLOW, &f))
      write_or_die(g, scn_write_item(fp, SCN_EOVERFLOW, NULL, 0));
    if (fault_at(g, SCN_F_SEVER, &f))
      write_or_die(g, scn_write_item(fp, SCN_SEVER, NULL, 0));
  } else if (o->format == FMT_SETS) {
    uint8_t h[4];
    mw_put(h, sizeof(h), 0, 4, g->msg.len);
    if (fwrite(h, 1, 4, g->fp) != 4)
      die("write failed");
    if (fwrite(g->msg.p, 1, g->msg.len, g->fp) != g->msg.len)
      die("write failed");
  } else if (o->format == FMT_RAW) {
    if (fwrite(g->msg.p, 1, g->msg.len, g->fp) != g->msg.len)
      die("write failed");
  }
  g->n_bytes += g->msg.len;
  g->msg.len = 0;
  g->msg_mces = 0;
  g->msg_area_bytes = 0;
  g->msg_index++;
}

static void stream_begin(struct gen *g, struct area *a, uint8_t type) {
  g->a = a;
  g->type = type;
  g->msg.len = 0;
  g->msg_mces = 0;
  g->msg_area_bytes = 0;
  g->rs_open = false;
}

static void stream_end(struct gen *g) { msg_flush(g); }

static void fill_padding(struct gen *g, uint8_t *p, size_t n) {
  /* xorshift64 garbage with no zero byte, so a parser that ignores D1R13
   * reads a header with a non-zero MRHDRZER and a nonsense length. */
  uint64_t x = g->rng;
  for (size_t i = 0; i < n; i++) {
    if ((i & 7) == 0) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
    }
    uint8_t b = (uint8_t)(x >> ((i & 7) * 8));
    p[i] = b != 0 ? b : 0xA5;
  }
  g->rng = x;
}

/* Place a record of len bytes in the current stream; returns its bytes
 * (header written, body zeroed), valid until the next call. */
static uint8_t *rec_alloc(struct gen *g, uint16_t len, uint8_t domain,
                          uint16_t number, uint64_t tod) {
  if (!g->rs_open)
    set_open(g);
  uint32_t left = mw_frame_left(g->rs_addr);
  if (!mw_frame_fits(g->rs_addr, len)) {
    /* End of frame: D1R13, then padding up to the frame boundary. (A set
     * that starts in a frame another set left may begin with one.) */
    bool empty = g->rs_addr == g->rs_start;
    uint8_t *eof = ob_grow(&g->msg, left);
    mw_end_of_frame(eof, MW_MRHDR_LEN, tod);
    fill_padding(g, eof + MW_MRHDR_LEN, left - MW_MRHDR_LEN);
    g->rs_addr += left;
    bool area_full = (uint64_t)g->rs_addr + MW_FRAME - 1 > g->a->end;
    if (empty && area_full) {
      /* Nothing but padding before the end of the area: drop this set and
       * start again at the beginning of the area. */
      g->msg.len = g->rs_mce_off;
      g->rs_open = false;
      g->a->cur = g->a->start;
      set_open(g);
    } else {
      g->n_eof++;
      g->n_records++;
      if (area_full ||
          (!empty && g->o->set_frames && g->rs_frames >= g->o->set_frames)) {
        set_close(g);
        if (area_full)
          g->a->cur = g->a->start;
        if (g->msg_mces >= g->o->mces)
          msg_flush(g);
        set_open(g);
      } else {
        g->rs_frames++;
      }
    }
  }
  uint8_t *r = ob_grow(&g->msg, len);
  memset(r + MW_MRHDR_LEN, 0, (size_t)len - MW_MRHDR_LEN);
  mw_mrhdr(r, len, len, domain, number, tod);
  g->rs_addr += len;
  if (domain < 16)
    g->rs_mask |= MW_DOM(domain);
  g->n_records++;
  return r;
}

/* ---- records ----------------------------------------------------------- */
static void user_name(const struct opts *o, unsigned g, char out[9]) {
  unsigned digits = 3, n = o->guests;
  while (n >= 1000) {
    digits++;
    n /= 10;
  }
  size_t plen = strlen(o->prefix);
  if (plen > 8 - digits)
    plen = 8 - digits;
  snprintf(out, 9, "%.*s%0*u", (int)plen, o->prefix, (int)digits, g + 1);
}

/* D4R10 MRUSEITE (IBM, z/VM V6R2.0): counters of VMDBK v of guest g after
 * transaction k. One VMDBK per guest (--vcpus 1): VMDCPUAD g mod cpus, as
 * before; a virtual MP guest: VMDCPUAD v, CALBASE (CALFLAG1 X'80') on
 * VMDBK 0 only, the levels VMDSLCNT and VMDDFRWK differ per VMDBK. */
static void put_useite(const struct opts *o, uint8_t *r, unsigned g, unsigned v,
                       uint64_t k) {
  const size_t L = USEITE_LEN;
  bool mp = o->vcpus > 1;
  char name[9];
  user_name(o, g, name);
  mw_put_ebcdic(r, L, 20, name, 8);                          /* VMDUSER */
  mw_put(r, L, 28, 2, mp ? v : g % (o->cpus ? o->cpus : 1)); /* VMDCPUAD */
  mw_put(r, L, 30, 2, (k + 3 * v) % 7);                      /* VMDSLCNT */
  mw_put(r, L, 32, 4, vmdbk_counter(o, g, v, 32, 4, k));     /* VMDSVMFX */
  mw_put_ebcdic(r, L, 36, g % 3 == 0 ? "TCPIP" : "", 8);     /* VMDSVMID */
  mw_put(r, L, 47, 1, v == 0 ? 0x80 : 0x00);    /* CALFLAG1: CALBASE */
  for (unsigned off = 48; off <= 136; off += 4) /* HFQUCT..HFOTHR */
    mw_put(r, L, off, 4, vmdbk_counter(o, g, v, off == 84 ? 48 : off, 4, k));
  mw_put(r, L, 140, 2, vmdbk_counter(o, g, v, 140, 2, k)); /* VMDCNTID */
  mw_put(r, L, 142, 2, vmdbk_counter(o, g, v, 142, 2, k)); /* VMDCTIDL */
  if (mp)
    mw_put(r, L, 144, 4, 10 * v + k % 3); /* VMDDFRWK */
  static const uint8_t states[4] = {0x2C, 0x4D, 0x42, 0x08};
  mw_put(r, L, 148, 1, states[k % 4]);             /* VMDSTATE */
  mw_put(r, L, 149, 1, 0x40 | (g % 2 ? 0x04 : 0)); /* CALOSTAT */
  for (unsigned off = 152; off < 184; off += 2)    /* 4 x (4) VMDC*D */
    mw_put(r, L, off, 2, vmdbk_counter(o, g, v, off, 2, k));
  for (unsigned off = 184; off <= 192; off += 4) /* HFIOACT..HFPGACT */
    mw_put(r, L, off, 4, vmdbk_counter(o, g, v, off, 4, k));
  mw_put(r, L, 196, 1, CPU_IFL); /* VMDPUTYP */
}

/* --usetst: D4R200 MRUSETST, a record made up for the tests (the layout of
 * tests/data/recpages/usetst-l2-*: 452 bytes, over 100 fields), written
 * like D4R10 once per VMDBK with each D4R10 record: USERID 20, VMDCPUAD
 * 28, MODE 30 (X'40' ESA on even VMDBKs, X'20' XA on odd ones), LOGTOD
 * 32 (the first interval's start), TTIME 40
 * (CPU timer), PGRDS(4) 56, WSS 72 (a level), C000..C089 76.. (counter i
 * is the D4R10 counter at offset 48 + 4 (i mod 23) of the same VMDBK and
 * transaction, so its sum per guest is D4R10's), VTIME 440, QDEPTH 448. */
static unsigned usetst_src(unsigned i) {
  unsigned off = 48 + 4 * (i % 23);
  return off == 84 ? 48 : off; /* D4R10's HFSTCT repeats HFQUCT */
}

static void put_usetst(const struct opts *o, uint8_t *r, unsigned g, unsigned v,
                       uint64_t k) {
  const size_t L = USETST_LEN;
  char name[9];
  user_name(o, g, name);
  mw_put_ebcdic(r, L, 20, name, 8);
  mw_put(r, L, 28, 2, v);
  mw_put(r, L, 30, 1, v % 2 ? 0x20 : 0x40);
  mw_put(r, L, 32, 8, mw_tod((uint64_t)o->start * 1000000)); /* LOGTOD */
  mw_put(r, L, 40, 8, vmdbk_counter(o, g, v, 40, 4, k) << 12);
  mw_put(r, L, 52, 2, 8); /* USETST_ENTRY: no entries */
  for (unsigned q = 0; q < 4; q++)
    mw_put(r, L, 56 + 4 * q, 4, vmdbk_counter(o, g, v, 56 + 4 * q, 4, k));
  mw_put(r, L, 72, 4, 100 + 10 * v + k % 5);
  for (unsigned i = 0; i < 90; i++)
    mw_put(r, L, 76 + 4 * i, 4, vmdbk_counter(o, g, v, usetst_src(i), 4, k));
  mw_put(r, L, 440, 8, vmdbk_counter(o, g, v, 440, 4, k) << 12);
  mw_put(r, L, 448, 4, 7 + v);
}

/* ---- logon and logoff (--logon/--logoff G@I) -------------------------
 * A guest is logged on from the start unless its first event is a logon.
 * A logon at interval I writes D4R1 before the guest's D4R10 records of I;
 * a logoff at I writes D4R2 after them, one per VMDBK (base and every
 * virtual CPU, MRUSELOF); no D4R10 until the next logon, whose counters
 * start again from their base values. */
static const struct session_event *
session_event(const struct opts *o, unsigned g, unsigned i, bool logon) {
  for (size_t n = 0; n < o->nsessions; n++)
    if (o->sessions[n].guest == g && o->sessions[n].interval == i &&
        o->sessions[n].logon == logon)
      return &o->sessions[n];
  return NULL;
}

/* Logged on during interval i; *since: the interval of its last logon
 * (0 if it was logged on from the start). */
static bool guest_logged_on(const struct opts *o, unsigned g, unsigned i,
                            unsigned *since) {
  const struct session_event *first = NULL;
  for (size_t n = 0; n < o->nsessions; n++) {
    const struct session_event *e = &o->sessions[n];
    if (e->guest == g && (first == NULL || e->interval < first->interval ||
                          (e->interval == first->interval && e->logon)))
      first = e;
  }
  bool on = first == NULL || !first->logon;
  *since = 0;
  for (unsigned t = 0; t <= i; t++) {
    if (session_event(o, g, t, true) != NULL) {
      on = true;
      *since = t;
    }
    if (t < i && session_event(o, g, t, false) != NULL)
      on = false;
  }
  return on;
}

/* VMDBKs of guest g: the base one only (its processor address is the one
 * put_useite writes). */
static unsigned guest_vmdbks(const struct opts *o, unsigned g) {
  (void)g;
  return o->vcpus ? o->vcpus : 1; /* --vcpus: one VMDBK per virtual CPU */
}

static void put_session(const struct opts *o, uint8_t *r, size_t len,
                        unsigned g, unsigned cpu, uint64_t salt) {
  char name[9];
  user_name(o, g, name);
  mw_put_ebcdic(r, len, 20, name, 8);             /* USELON/USELOF_VMDUSER */
  mw_put(r, len, 28, 2, cpu);                     /* ..._VMDCPUAD */
  for (size_t off = 32; off + 4 <= len; off += 4) /* not decoded */
    mw_put(r, len, off, 4, (salt * 7919 + off) & 0xFFFFFFFF);
}

/* --smt-fields: every field of IBM MRPRCSMT (z/VM V6R4.0) set, in three kinds
 * of change. c mod 3 = 0: distinct values everywhere; 1: X'FF' (MAX) in every
 * count MAX can be given for; 2: an unusable CPUTINFO array (start record:
 * entry size 0; end record: array offset 8, inside the header). */
static void put_prcsmt_fields(uint8_t *r, bool start, unsigned c) {
  const size_t L = PRCSMT_LEN;
  unsigned kind = c % 3;
  mw_put(r, L, 25, 1, 8);                        /* CALMAXTC */
  mw_put(r, L, 26, 1, kind == 1 ? 0xFF : 7);     /* RCCCOALL */
  mw_put(r, L, 27, 1, kind == 1 ? 0xFF : 6);     /* RCCSMALL */
  mw_put(r, L, 28, 1, kind == 0 ? 0x80 : 0x00);  /* RCCSMSET: INITIAL */
  size_t e = PRCSMT_FIXED_LEN;                   /* CP entry */
  mw_put(r, L, e + 1, 1, 9);                     /* RCCCOMNT */
  mw_put(r, L, e + 2, 1, 10);                    /* RCCHWMNT */
  mw_put(r, L, e + 3, 1, 11);                    /* RCCSYMNT */
  mw_put(r, L, e + 5, 1, 12);                    /* RCCSMMNT */
  mw_put(r, L, e + 6, 1, 13);                    /* RCCCRMNT */
  e += PRCSMT_ENTRY_LEN;                         /* IFL entry */
  mw_put(r, L, e + 1, 1, kind == 1 ? 0xFF : 14); /* RCCCOMNT */
  mw_put(r, L, e + 2, 1, 15);                    /* RCCHWMNT */
  mw_put(r, L, e + 3, 1, 16);                    /* RCCSYMNT */
  mw_put(r, L, e + 5, 1, kind == 1 ? 0xFF : 17); /* RCCSMMNT */
  mw_put(r, L, e + 6, 1, kind == 1 ? 0xFF : 18); /* RCCCRMNT */
  if (kind == 2 && start)
    mw_put(r, L, 30, 2, 0); /* CAL_CPUTAESZ 0 */
  if (kind == 2 && !start)
    mw_put(r, L, 32, 2, 8); /* CAL_CPUTAOFF inside the header */
}

/* D5R21 MRPRCSMT (IBM, z/VM V6R4.0): start (X'80') or end (X'40') record of
 * multithreading change number c (0-based). */
static void put_prcsmt(uint8_t *r, bool start, unsigned c) {
  const size_t L = PRCSMT_LEN;
  unsigned old_ifl = c % 2 == 0 ? 1 : 2, new_ifl = c % 2 == 0 ? 2 : 1;
  unsigned ifl = start ? old_ifl : new_ifl;
  mw_put(r, L, 20, 4, 2 * (uint64_t)c + 1); /* RCCSMTSQ: odd, same pair */
  mw_put(r, L, 24, 1, start ? 0x80 : 0x40); /* CAL_STATUS */
  mw_put(r, L, 25, 1, 2);                   /* CALMAXTC */
  mw_put(r, L, 29, 1, PRCSMT_ENTRIES);      /* CAL_CPUTACNT */
  mw_put(r, L, 30, 2, PRCSMT_ENTRY_LEN);    /* CAL_CPUTAESZ */
  mw_put(r, L, 32, 2, PRCSMT_FIXED_LEN);    /* CAL_CPUTAOFF */
  size_t e = PRCSMT_FIXED_LEN;              /* CP entry */
  mw_put(r, L, e + 0, 1, CPU_CP);           /* CPUTYPE */
  mw_put(r, L, e + 1, 1, 1);                /* RCCCOMNT */
  mw_put(r, L, e + 2, 1, 2);                /* RCCHWMNT */
  mw_put(r, L, e + 3, 1, 1);                /* RCCSYMNT */
  mw_put(r, L, e + 4, 1, 1);                /* RCCACMNT */
  mw_put(r, L, e + 5, 1, 0);                /* RCCSMMNT */
  mw_put(r, L, e + 6, 1, 1);                /* RCCCRMNT */
  e += PRCSMT_ENTRY_LEN;                    /* IFL entry */
  mw_put(r, L, e + 0, 1, CPU_IFL);
  mw_put(r, L, e + 1, 1, 2);
  mw_put(r, L, e + 2, 1, 2);
  mw_put(r, L, e + 3, 1, 2);
  mw_put(r, L, e + 4, 1, ifl); /* old in start, new in end */
  mw_put(r, L, e + 5, 1, new_ifl);
  mw_put(r, L, e + 6, 1, ifl);
}

static void put_pattern(uint8_t *r, size_t len, size_t from, uint64_t salt) {
  for (size_t off = from; off + 4 <= len; off += 4)
    mw_put(r, len, off, 4, (salt * 1000 + off) & 0xFFFFFFFF);
}

/* ---- domain 10 (APPLDATA): Linux guests' own data ----------------------
 * Layouts: D10R1/D10R2 APHDR (52 bytes: 20 CALDATOF, 22 CALDATLN, 24
 * USERID, 32 product ID, 48 status); the data is what the guest's buffer
 * holds: kernel arch/s390/appldata/appldata_{mem,os,net_sum}.c, s390-tools
 * mon_tools/mon_fsstatd.h and mon_procd.h (minus the 13-byte monwrite_hdr,
 * which /dev/monwriter consumes). See README.md for what is generated. */
#define APL_MEM_LEN 144
#define APL_NET_LEN 96
#define APL_OS_FIXED 52
#define APL_CPU_ENTRY 36
#define APL_FS_SMALL 589    /* 602-byte buffer minus monwrite_hdr */
#define APL_FS_LARGE 3997   /* 4010 */
#define APL_TASK_SMALL 499  /* 512 */
#define APL_TASK_LARGE 1487 /* 1500 */
#define APL_PSUM_LEN (12 + 166)

static void apl_user(const struct opts *o, unsigned g, char out[9]) {
  snprintf(out, 9, "%.5s%03u", o->linux_prefix, (g + 1) % 1000);
}

/* Deterministic value of (guest, record kind, field) after interval k:
 * base + k * step, both from the seed. */
static uint64_t apl_value(const struct opts *o, unsigned g, unsigned kind,
                          unsigned field, uint64_t k, uint64_t base_mod,
                          uint64_t step_mod) {
  uint64_t h = splitmix64((o->seed << 40) ^ ((uint64_t)kind << 32) ^
                          ((uint64_t)g << 12) ^ field ^ UINT64_C(0xA9));
  return h % base_mod + k * (1 + (h >> 32) % step_mod);
}

static bool apl_wants(const struct opts *o, unsigned kind_bit) {
  return (o->appldata & kind_bit) != 0;
}

/* CPUs of guest g in interval i: the hot-plug guest (the second one) gets
 * one more from the middle interval on (with --appldata-faults). */
static unsigned apl_cpus(const struct opts *o, unsigned g, unsigned i) {
  unsigned n = o->linux_cpus;
  if (o->appldata_faults && g == 1 % o->linux_guests && i >= o->intervals / 2 &&
      o->intervals > 1)
    n++;
  return n;
}

/* An APPLDATA record whose data (dlen bytes) follows the APHDR; returns
 * the data. */
static uint8_t *apl_record(struct gen *g, uint16_t number, uint64_t tod,
                           const char *user, const uint8_t product[16],
                           size_t dlen) {
  uint16_t len = (uint16_t)(MW_APHDR_LEN + dlen);
  uint8_t *r = rec_alloc(g, len, 10, number, tod);
  mw_aphdr(r, len, dlen, user, product); /* CALDATOF 52, CALDATLN, USERID */
  return r + MW_APHDR_LEN;
}

/* Kernel prefix: timestamp, sync_count_1, sync_count_2. */
static void apl_sync(uint8_t *d, size_t dlen, uint64_t tod, uint32_t s1,
                     uint32_t s2) {
  mw_put(d, dlen, 0, 8, tod);
  mw_put(d, dlen, 8, 4, s1);
  mw_put(d, dlen, 12, 4, s2);
}

static void apl_os(struct gen *g, unsigned u, unsigned i, uint16_t number,
                   unsigned ncpu, uint64_t tod, uint64_t k, bool torn) {
  const struct opts *o = g->o;
  char user[9];
  uint8_t prod[16];
  apl_user(o, u, user);
  mw_apl_kernel_product(prod, 2, "01");
  size_t dlen = APL_OS_FIXED + (size_t)ncpu * APL_CPU_ENTRY;
  uint8_t *d = apl_record(g, number, tod, user, prod, dlen);
  apl_sync(d, dlen, tod - 4096, (uint32_t)k, (uint32_t)k - (torn ? 1 : 0));
  mw_put(d, dlen, 16, 4, ncpu);
  mw_put(d, dlen, 20, 4, APL_CPU_ENTRY);
  mw_put(d, dlen, 24, 4, APL_OS_FIXED);
  mw_put(d, dlen, 28, 4, apl_value(o, u, 2, 28, 0, 8, 1) + (i % 3));
  mw_put(d, dlen, 32, 4, apl_value(o, u, 2, 32, 0, 400, 1) + 100 + i);
  for (unsigned a = 0; a < 3; a++) /* avenrun: FIXED_1 * load + 10 */
    mw_put(d, dlen, 36 + 4 * a, 4,
           apl_value(o, u, 2, 36 + a, k, 6000, 50) + 10);
  mw_put(d, dlen, 48, 4, apl_value(o, u, 2, 48, 0, 4, 1));
  for (unsigned c = 0; c < ncpu; c++) {
    size_t e = APL_OS_FIXED + (size_t)c * APL_CPU_ENTRY;
    for (unsigned f = 0; f < 8; f++) /* user .. steal, jiffies */
      mw_put(
          d, dlen, e + 4 * f, 4,
          apl_value(o, u, 2, 64 + 16 * c + f, k, 100000, f == 3 ? 5000 : 800) &
              0xFFFFFFFF);
    mw_put(d, dlen, e + 32, 4, c); /* cpu_id */
  }
}

static void apl_mem(struct gen *g, unsigned u, uint64_t tod, uint64_t k) {
  const struct opts *o = g->o;
  char user[9];
  uint8_t prod[16];
  apl_user(o, u, user);
  mw_apl_kernel_product(prod, 1, "00");
  uint8_t *d = apl_record(g, 2, tod, user, prod, APL_MEM_LEN);
  const size_t L = APL_MEM_LEN;
  apl_sync(d, L, tod - 4096, (uint32_t)k, (uint32_t)k);
  for (unsigned f = 0; f < 4; f++) /* pgpgin pgpgout pswpin pswpout */
    mw_put(d, L, 16 + 8 * f, 8, apl_value(o, u, 1, f, k, 1000000, 5000));
  uint64_t total = 2097152 + 262144 * (u % 4); /* KB */
  mw_put(d, L, 48, 8, 0);                      /* sharedram */
  mw_put(d, L, 56, 8, total);
  mw_put(d, L, 64, 8, 100000 + apl_value(o, u, 1, 64, 0, 500000, 1) + k * 64);
  mw_put(d, L, 72, 8, 0); /* totalhigh */
  mw_put(d, L, 80, 8, 0); /* freehigh */
  mw_put(d, L, 88, 8, 20000 + apl_value(o, u, 1, 88, 0, 100000, 1));
  mw_put(d, L, 96, 8, 300000 + apl_value(o, u, 1, 96, 0, 400000, 1) + k * 8);
  mw_put(d, L, 104, 8, 1048576);
  mw_put(d, L, 112, 8, 1048576 - apl_value(o, u, 1, 112, k, 5000, 100));
  for (unsigned f = 0; f < 3; f++) /* pgalloc pgfault pgmajfault */
    mw_put(d, L, 120 + 8 * f, 8,
           apl_value(o, u, 1, 120 + f, k, UINT64_C(1) << 40, 100000));
}

static void apl_net(struct gen *g, unsigned u, uint64_t tod, uint64_t k) {
  const struct opts *o = g->o;
  char user[9];
  uint8_t prod[16];
  apl_user(o, u, user);
  mw_apl_kernel_product(prod, 3, "00");
  uint8_t *d = apl_record(g, 2, tod, user, prod, APL_NET_LEN);
  apl_sync(d, APL_NET_LEN, tod - 4096, (uint32_t)k, (uint32_t)k);
  mw_put(d, APL_NET_LEN, 16, 4, 2 + u % 3);
  for (unsigned f = 0; f < 9; f++) /* rx_packets .. collisions */
    mw_put(d, APL_NET_LEN, 24 + 8 * f, 8,
           (f == 2 ? UINT64_C(5) << 32 : 0) +
               apl_value(o, u, 3, f, k, 1000000, f < 4 ? 1000000 : 10));
}

/* One mon_fsstatd buffer: the file system mounted on dir. */
static void apl_fs(struct gen *g, unsigned u, uint64_t tod, uint64_t t_s,
                   uint64_t k, unsigned slot, const char *dev, const char *dir,
                   size_t dir_len, const char *type) {
  char user[9];
  uint8_t prod[16];
  apl_user(g->o, u, user);
  mw_apl_tool_product(prod, 1, 0, (uint16_t)slot);
  size_t strs = 6 + strlen(dev) + dir_len + strlen(type);
  size_t dlen = 12 + strs + 72 <= APL_FS_SMALL ? APL_FS_SMALL : APL_FS_LARGE;
  uint8_t *d = apl_record(g, 2, tod, user, prod, dlen);
  mw_put(d, dlen, 0, 8, t_s);
  mw_put(d, dlen, 8, 2, strs + 72); /* fsstat_data_len */
  mw_put(d, dlen, 10, 2, 12);       /* fsstat_data_offset */
  size_t p = 12;
  const char *s[3] = {dev, dir, type};
  size_t n[3] = {strlen(dev), dir_len, strlen(type)};
  for (int i = 0; i < 3; i++) {
    mw_put(d, dlen, p, 2, n[i]);
    memcpy(d + p + 2, s[i], n[i]);
    p += 2 + n[i];
  }
  uint64_t blocks = 1000000 + 100000 * slot;
  uint64_t bfree = blocks / 2 - k * 100 - slot;
  uint64_t v[9] = {4096,          4096,   blocks,     bfree,
                   bfree - 20000, 262144, 200000 - k, 200000 - k - 1000,
                   0x1000};
  for (int i = 0; i < 9; i++)
    mw_put(d, dlen, p + 8 * (size_t)i, 8, v[i]);
}

static void apl_procd_sum(struct gen *g, unsigned u, uint64_t tod, uint64_t t_s,
                          uint64_t k) {
  const struct opts *o = g->o;
  char user[9];
  uint8_t prod[16];
  apl_user(o, u, user);
  mw_apl_tool_product(prod, 2, 0, 0);
  const size_t L = APL_PSUM_LEN;
  uint8_t *d = apl_record(g, 2, tod, user, prod, L);
  mw_put(d, L, 0, 8, t_s);
  mw_put(d, L, 8, 2, 166);
  mw_put(d, L, 10, 2, 12);
  uint8_t *s = d + 12;
  mw_put(s, 166, 0, 8, 3600 + k * o->interval_s); /* uptime */
  mw_put(s, 166, 8, 4, u % 4);                    /* users */
  for (unsigned a = 0; a < 3; a++)
    snprintf((char *)s + 12 + 6 * a, 6, "%u.%02u", (unsigned)(k + a) % 10,
             (unsigned)(u * 7 + a) % 100);
  uint32_t run = 1 + k % 3, sl = 80 + u, st = u % 2, zo = k % 2;
  uint32_t tasks[5] = {run + sl + st + zo, run, sl, st, zo};
  for (unsigned i = 0; i < 5; i++)
    mw_put(s, 166, 30 + 4 * i, 4, tasks[i]);
  mw_put(s, 166, 50, 4, o->linux_cpus);
  uint16_t pct[8] = {1200, 50, 800, 7500, 200, 100, 50, 100};
  for (unsigned i = 0; i < 8; i++)
    mw_put(s, 166, 54 + 2 * i, 2, pct[i]);
  for (unsigned i = 0; i < 12; i++)
    mw_put(s, 166, 70 + 8 * i, 8, apl_value(o, u, 5, i, k, 1000000, 1000));
}

/* One mon_procd task record. */
static void apl_task(struct gen *g, unsigned u, uint64_t tod, uint64_t t_s,
                     uint64_t k, unsigned slot, uint32_t pid, const char *cmd,
                     size_t cmd_len) {
  const struct opts *o = g->o;
  char user[9];
  uint8_t prod[16];
  apl_user(o, u, user);
  mw_apl_tool_product(prod, 2, 1, (uint16_t)slot);
  const char *strs[6] = {"root", "root", "root", "-", cmd, cmd};
  size_t lens[6] = {4, 4, 4, 1, cmd_len, cmd_len};
  size_t size = 111;
  for (int i = 0; i < 6; i++)
    size += 2 + lens[i];
  size_t dlen = 12 + size <= APL_TASK_SMALL ? APL_TASK_SMALL : APL_TASK_LARGE;
  uint8_t *d = apl_record(g, 2, tod, user, prod, dlen);
  mw_put(d, dlen, 0, 8, t_s);
  mw_put(d, dlen, 8, 2, size);
  mw_put(d, dlen, 10, 2, 12);
  uint8_t *t = d + 12;
  size_t T = dlen - 12;
  mw_put(t, T, 0, 4, pid);
  mw_put(t, T, 4, 4, 1);
  mw_put(t, T, 8, 4, 0);
  mw_put(t, T, 12, 2, 0);
  mw_put(t, T, 14, 2, 20);
  mw_put(t, T, 16, 2, 0);
  mw_put(t, T, 18, 4, pid % o->linux_cpus);
  mw_put(t, T, 22, 2, 100 + pid % 900);
  mw_put(t, T, 24, 2, 10 + pid % 90);
  for (unsigned i = 0; i < 10; i++)
    mw_put(t, T, 26 + 8 * i, 8,
           apl_value(o, u, 6, pid * 16 + i, k, 100000, 500));
  mw_put(t, T, 106, 1, 'S');
  mw_put(t, T, 107, 4, 0x400100);
  size_t p = 111;
  for (int i = 0; i < 6; i++) {
    mw_put(t, T, p, 2, lens[i]);
    memcpy(t + p + 2, strs[i], lens[i]);
    p += 2 + lens[i];
  }
}

/* Hostile strings (--appldata-faults): a mount point with blanks, '%',
 * a newline and "..", one longer than any collectd name, and a command
 * with '/' and blanks. */
static const char apl_hostile_dir[] = "/mnt/a b/%x\n/../\xff";
static const char apl_hostile_cmd[] = "x/../y z;\"rm\"";

static void gen_appldata_sample(struct gen *g, unsigned i, uint64_t t,
                                uint64_t *j) {
  const struct opts *o = g->o;
  uint64_t k = (uint64_t)i + 1;
  uint64_t t_s = t / 1000000;
  for (unsigned u = 0; u < o->linux_guests; u++) {
    if (apl_wants(o, APL_OS))
      apl_os(g, u, i, 2, apl_cpus(o, u, i), tod_at(o, i, t + (*j)++), k,
             o->appldata_faults && u == 0 && i == 1);
    if (apl_wants(o, APL_MEM))
      apl_mem(g, u, tod_at(o, i, t + (*j)++), k);
    if (apl_wants(o, APL_NET))
      apl_net(g, u, tod_at(o, i, t + (*j)++), k);
    if (apl_wants(o, APL_FS)) {
      apl_fs(g, u, tod_at(o, i, t + (*j)++), t_s, k, 0, "/dev/dasda1", "/", 1,
             "ext4");
      apl_fs(g, u, tod_at(o, i, t + (*j)++), t_s, k, 2, "/dev/dasdb1",
             "/var/log", 8, "xfs");
      if (o->appldata_faults && u == 0) {
        char longdir[301];
        memset(longdir, 'd', 300);
        longdir[0] = '/';
        longdir[300] = '\0';
        apl_fs(g, u, tod_at(o, i, t + (*j)++), t_s, k, 4, "/dev/dasdc1",
               apl_hostile_dir, sizeof(apl_hostile_dir) - 1, "ext4");
        apl_fs(g, u, tod_at(o, i, t + (*j)++), t_s, k, 1, "/dev/dasdd1",
               longdir, 300, "ext4");
      }
    }
    if (apl_wants(o, APL_PROCD)) {
      apl_procd_sum(g, u, tod_at(o, i, t + (*j)++), t_s, k);
      apl_task(g, u, tod_at(o, i, t + (*j)++), t_s, k, 0, 1, "systemd", 7);
      apl_task(g, u, tod_at(o, i, t + (*j)++), t_s, k, 2, 300 + u, "httpd", 5);
      if (o->appldata_faults && u == 0)
        apl_task(g, u, tod_at(o, i, t + (*j)++), t_s, k, 4, 666,
                 apl_hostile_cmd, sizeof(apl_hostile_cmd) - 1);
    }
    if (o->appldata_faults && u == 0) {
      /* A product no layout is known for: the kernel's unused record 4. */
      uint8_t prod[16];
      char user[9];
      apl_user(o, u, user);
      mw_apl_kernel_product(prod, 4, "00");
      uint8_t *d = apl_record(g, 2, tod_at(o, i, t + (*j)++), user, prod, 64);
      apl_sync(d, 64, mw_tod(t), 1, 1);
    }
  }
}

/* D10R1: the kernel restarts the os buffer when a CPU is added (START with
 * the new size, STOP of the old one): one event record in interval i? */
static bool apl_event_due(const struct opts *o, unsigned i) {
  if (!o->appldata_faults || !apl_wants(o, APL_OS) || i == 0 ||
      o->linux_guests == 0)
    return false;
  unsigned u = 1 % o->linux_guests;
  return apl_cpus(o, u, i) != apl_cpus(o, u, i - 1);
}

static void gen_appldata_events(struct gen *g, unsigned i, uint64_t tod) {
  unsigned u = 1 % g->o->linux_guests;
  apl_os(g, u, i, 1, apl_cpus(g->o, u, i - 1), tod, i, false);
}

/* Hash of a D0R2 field of processor c (README.md, "D0R2"). */
static uint64_t sytprp_hash(const struct opts *o, unsigned c, unsigned off) {
  return splitmix64((o->seed << 32) ^ (UINT64_C(0xD02) << 20) ^
                    ((uint64_t)c << 8) ^ off);
}

/* D0R2 MRSYTPRP (IBM mon640, only the fields IBM confirms) of processor c
 * at the end of sample interval i; fields that do not fit into a short
 * record (--sytprp-len) are left out, the rest of a long one is a pattern.
 * CPU-timer format: bit 51 = 1 microsecond, so a microsecond is 4096. */
static void put_sytprp(const struct opts *o, uint8_t *r, size_t len, unsigned c,
                       unsigned i) {
  uint64_t k = (uint64_t)i + 1;
  uint64_t interval_us = (uint64_t)o->interval_s * 1000000;
  uint64_t pct = 10 + 7 * (c % 12); /* share of the CPU charged to users */
  uint64_t h22 = sytprp_hash(o, c, 22), h24 = sytprp_hash(o, c, 24),
           h32 = sytprp_hash(o, c, 32);
  uint64_t haf = (h22 % 1000 + k * (1 + (h22 >> 40) % 100)) & 0xFFFF;
  uint64_t user_us = h32 % 1000000 + k * interval_us * pct / 100;
  uint64_t emul_us = h24 % 1000000 + k * interval_us * pct * 3 / 400;
  if (len >= 22)
    mw_put(r, len, 20, 2, c); /* PFXCPUAD */
  if (len >= 24)
    mw_put(r, len, 22, 2, haf); /* PLSCUHAF */
  if (len >= 32) /* PFXPRBTM counts down from X'7FFFFFFF00000000' */
    mw_put(r, len, 24, 8,
           UINT64_C(0x7FFFFFFF00000000) - (emul_us << 12) - (h24 & 0xFFF));
  if (len >= 40) /* PFXUTIME counts up */
    mw_put(r, len, 32, 8, (user_us << 12) | (h32 & 0xFFF));
  if (len > 40)
    put_pattern(r, len, 40, (uint64_t)i * 64 + c);
}

static void gen_events(struct gen *g, unsigned i) {
  const struct opts *o = g->o;
  bool smt = o->smt_every != 0 && (i + 1) % o->smt_every == 0;
  bool apl_event = apl_event_due(o, i);
  unsigned vcpus = o->vcpus ? o->vcpus : 1;
  uint64_t nev = o->unknown_events + (smt ? 2 : 0) + (apl_event ? 1 : 0);
  for (unsigned u = 0; u < o->guests; u++) {
    unsigned since;
    if (guest_logged_on(o, u, i, &since))
      for (unsigned e = 0; e < o->events; e++)
        for (unsigned v = 0; v < vcpus; v++)
          nev += (o->usetst ? 2 : 1) *
                 vmdbk_writes(o, v, (uint64_t)(i - since) * o->events + e + 1);
    nev += session_event(o, u, i, true) != NULL;
    nev += session_event(o, u, i, false) != NULL;
  }
  if (nev == 0)
    return;
  uint64_t t0 = (o->start + (uint64_t)i * o->interval_s) * 1000000;
  uint64_t span = (uint64_t)o->interval_s * 1000000;
  uint64_t j = 0;
#define NEXT_TOD() tod_at(o, i, t0 + (++j) * span / (nev + 1))

  stream_begin(g, &g->ev, MW_MCE_EVENT);
  if (smt) {
    uint8_t *r = rec_alloc(g, PRCSMT_LEN, 5, 21, NEXT_TOD());
    put_prcsmt(r, true, g->smt_changes);
    if (o->smt_fields)
      put_prcsmt_fields(r, true, g->smt_changes);
  }
  for (unsigned u = 0; u < o->unknown_events; u++) {
    uint8_t *r = rec_alloc(g, SCL_R1_LEN, 2, 1, NEXT_TOD());
    char name[9];
    user_name(o, u % (o->guests ? o->guests : 1), name);
    mw_put_ebcdic(r, SCL_R1_LEN, 20, name, 8);
    put_pattern(r, SCL_R1_LEN, 28, i + u);
  }
  for (unsigned u = 0; u < o->guests; u++)
    if (session_event(o, u, i, true) != NULL)
      put_session(o, rec_alloc(g, USELON_LEN, 4, 1, NEXT_TOD()), USELON_LEN, u,
                  u % (o->cpus ? o->cpus : 1), i);
  for (unsigned e = 0; e < o->events; e++)
    for (unsigned u = 0; u < o->guests; u++) {
      unsigned since;
      if (!guest_logged_on(o, u, i, &since))
        continue;
      uint64_t k = (uint64_t)(i - since) * o->events + e + 1;
      for (unsigned v = 0; v < vcpus; v++)
        if (vmdbk_writes(o, v, k)) {
          put_useite(o, rec_alloc(g, USEITE_LEN, 4, 10, NEXT_TOD()), u, v, k);
          if (o->usetst)
            put_usetst(o, rec_alloc(g, USETST_LEN, 4, 200, NEXT_TOD()), u, v,
                       k);
        }
    }
  for (unsigned u = 0; u < o->guests; u++) {
    if (session_event(o, u, i, false) == NULL)
      continue;
    /* The VMDBKs' records of one logoff: built together, 1 us apart. */
    uint64_t tod = NEXT_TOD();
    for (unsigned v = 0; v < guest_vmdbks(o, u); v++)
      put_session(o, rec_alloc(g, USELOF_LEN, 4, 2, tod + ((uint64_t)v << 12)),
                  USELOF_LEN, u,
                  vcpus > 1 ? v : u % (o->cpus ? o->cpus : 1) + v, i);
  }
  if (apl_event)
    gen_appldata_events(g, i, NEXT_TOD());
  if (smt) {
    uint8_t *r = rec_alloc(g, PRCSMT_LEN, 5, 21, NEXT_TOD());
    put_prcsmt(r, false, g->smt_changes);
    if (o->smt_fields)
      put_prcsmt_fields(r, false, g->smt_changes);
    g->smt_changes++;
  }
#undef NEXT_TOD
  stream_end(g);
}

static void gen_sample(struct gen *g, unsigned i) {
  const struct opts *o = g->o;
  uint64_t t = (o->start + (uint64_t)(i + 1) * o->interval_s) * 1000000;
  uint64_t j = 0;
  stream_begin(g, &g->sa, MW_MCE_SAMPLE);
  for (unsigned c = 0; c < o->cpus; c++) {
    uint8_t *r = rec_alloc(g, SYTSYP_LEN, 0, 1, tod_at(o, i, t + j++));
    mw_put(r, SYTSYP_LEN, 20, 2, c); /* processor address */
    put_pattern(r, SYTSYP_LEN, 24, (uint64_t)i * 64 + c);
  }
  for (unsigned c = 0; c < o->sytprp; c++)
    put_sytprp(
        o, rec_alloc(g, (uint16_t)o->sytprp_len, 0, 2, tod_at(o, i, t + j++)),
        o->sytprp_len, c, i);
  put_pattern(rec_alloc(g, STO_R2_LEN, 3, 2, tod_at(o, i, t + j++)), STO_R2_LEN,
              20, i);
  for (unsigned n = 0; n < o->nics; n++) {
    uint8_t *r = rec_alloc(g, VNDSES_LEN, 8, 1, tod_at(o, i, t + j++));
    mw_put_ebcdic(r, VNDSES_LEN, 24, "TCPIP", 8);
    mw_put(r, VNDSES_LEN, 32, 2, 0x0600 + 3 * n);
    put_pattern(r, VNDSES_LEN, 96, (uint64_t)i * 16 + n);
  }
  gen_appldata_sample(g, i, t, &j);
  rec_alloc(g, MW_MRHDR_LEN, 1, 11, tod_at(o, i, t + j++)); /* interval end */
  stream_end(g);
}

/* ---- --describe -------------------------------------------------------- */
static int describe(const char *path) {
  struct scenario s;
  char err[256];
  if (scn_load(path, &s, err, sizeof(err)) != 0) {
    fprintf(stderr, "zvm-stream-gen: %s\n", err);
    return 1;
  }
  printf("scenario %s: dcss=%08x-%08x span_us=%llu messages=%zu\n", path,
         s.dcss_start, s.dcss_end, (unsigned long long)s.span_us, s.nmsgs);
  for (size_t m = 0; m <= s.nmsgs; m++) {
    const struct scn_msg *msg = &s.msgs[m];
    if (msg->open_count)
      printf("open-error %s x%u\n", scn_errno_name(msg->open_errno),
             msg->open_count);
    if (m == s.nmsgs)
      break;
    if (msg->delay_ms != SCN_NONE)
      printf("delay %llu ms\n", (unsigned long long)msg->delay_ms);
    printf("message %zu: bytes=%zu deliver=%zu mces=%u%s", m, msg->len,
           msg->deliver_len, msg->nmce, msg->bad_mce ? " bad-mce" : "");
    for (size_t off = 0; off < msg->deliver_len;) {
      const uint8_t *mce = msg->data + off;
      uint32_t st = mw_load_be32(mce + 4), en = mw_load_be32(mce + 8);
      printf(" %c:%04x:%08x-%08x",
             mce[0] == 0xE2   ? 'S'
             : mce[0] == 0xC5 ? 'E'
                              : '?',
             mw_load_be16(mce + 1), st, en);
      off += MW_MCE_LEN + (size_t)(en - st) + 1;
    }
    if (msg->eio_at != SCN_NONE)
      printf(" eio@%llu", (unsigned long long)msg->eio_at);
    if (msg->efault_at != SCN_NONE)
      printf(" efault@%llu", (unsigned long long)msg->efault_at);
    printf("\n");
    if (msg->eoverflow)
      printf("eoverflow\n");
    if (msg->sever)
      printf("sever\n");
  }
  scn_free(&s);
  return 0;
}

/* ---- options ----------------------------------------------------------- */
static void usage(FILE *fp) {
  fputs(
      "Usage: zvm-stream-gen [OPTION]... [-o FILE]\n"
      "       zvm-stream-gen --describe SCENARIO\n"
      "Generate a deterministic z/VM *MONITOR stream as /dev/monreader "
      "delivers it.\n\n"
      "Output:\n"
      "  -o, --output FILE      write to FILE (default: stdout); a new file\n"
      "      --force            overwrite an existing -o or --split file\n"
      "  -f, --format FMT       scenario (default; for libmonreader-emu.so),\n"
      "                         raw  (data sets concatenated, no framing),\n"
      "                         sets (each data set as u32 BE length + "
      "bytes)\n"
      "      --split DIR        also write each data set to "
      "DIR/set-NNNNNN.bin\n"
      "      --describe FILE    print a scenario file's contents and exit\n"
      "      --stats            print counts and generation time to stderr\n"
      "Data:\n"
      "  -s, --seed N           seed for counters and padding (default 1)\n"
      "  -g, --guests N         guests with D4R10 records (default 10)\n"
      "  -i, --intervals N      sample intervals (default 3)\n"
      "  -e, --events N         D4R10 records per guest per interval "
      "(default 1)\n"
      "      --cpus N           D0R1 records per sample (default 4)\n"
      "      --nics N           D8R1 records per sample (default 2)\n"
      "      --sytprp N         D0R2 records per sample, processor addresses\n"
      "                         0..N-1 (default 0)\n"
      "      --sytprp-len BYTES D0R2 record length (default 352; shorter ones\n"
      "                         leave out the fields that do not fit)\n"
      "      --unknown-events N D2R1 records per interval (default 2)\n"
      "      --smt-every N      D5R21 start/end pair every N intervals "
      "(default 2, 0 = none)\n"
      "      --prefix STR       user ID prefix (default LINUX)\n"
      "      --counter-offset N add N to every counter base (default 0)\n"
      "      --start SECONDS    Unix time of the first interval "
      "(default 1700000000)\n"
      "      --interval SECONDS sample interval (default 60)\n"
      "      --vcpus N          VMDBKs (virtual CPUs) per guest: one D4R10\n"
      "                         each, CALBASE on VMDCPUAD 0 (default 1)\n"
      "      --vmdbk-skip N     VMDBK v > 0 skips transaction k when\n"
      "                         (k + v) mod N = 0 (default 0 = never)\n"
      "      --tod-offset SECS  add SECS to every TOD (a leap-second offset)\n"
      "      --time-jump I:SECS add SECS (may be negative) to every TOD from\n"
      "                         interval I on (repeatable, 8 at most)\n"
      "      --smt-fields       D5R21 with every field set: distinct values,\n"
      "                         X'FF' (MAX), unusable CPUTINFO arrays\n"
      "      --usetst           a made-up D4R200 of over 100 fields with "
      "every\n"
      "                         D4R10 record (its counters are D4R10's)\n"
      "Layout:\n"
      "      --dcss-base ADDR   DCSS start address (default 0x09000000)\n"
      "      --dcss-size BYTES  DCSS size (default 0x04000000); events use\n"
      "                         the first half, samples the second\n"
      "      --set-frames N     max 4 KB frames per record set (default 16, "
      "0 = no limit)\n"
      "      --mces N           max record sets (MCEs) per message "
      "(default 4)\n"
      "      --align-sets       start every record set on a frame boundary\n"
      "Scenario directives (scenario format only):\n"
      "      --gap-ms N         delay item of N ms before every message but "
      "the first\n"
      "      --logon G@I        guest G (from 1) logs on in interval I (from\n"
      "                         0): D4R1 first, counters restart (repeatable)\n"
      "      --logoff G@I       guest G logs off after its D4R10 of interval\n"
      "                         I: D4R2 per VMDBK (repeatable)\n"
      "      --fault SPEC       eio@M[:OFF] efault@M[:OFF] eoverflow@M "
      "sever@M\n"
      "                         open@M:ERRNO[:N] delay@M:MS badmca@M[:K] "
      "(repeatable,\n"
      "                         comma separated; badmca also applies to raw/"
      "sets)\n"
      "Domain 10 (APPLDATA, Linux guests' own data; sample records before "
      "D1R11):\n"
      "      --linux-guests N   Linux guests writing APPLDATA (default 0)\n"
      "      --linux-cpus N     their CPUs (default 2)\n"
      "      --linux-prefix STR their user ID prefix (default LNX)\n"
      "      --appldata LIST    os,mem,net_sum,fsstat,procd or all (default "
      "os,mem,net_sum)\n"
      "      --appldata-faults  a torn os record, a CPU hot-plug (D10R1 + new "
      "size),\n"
      "                         an unknown product, hostile strings\n"
      "Other:\n"
      "  -h, --help             this text\n"
      "      --version          the program's version\n",
      fp);
}

static uint64_t num_arg(const char *s, const char *what, uint64_t max) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno != 0 || *s == '\0' || *end != '\0' || *s == '-' || v > max)
    die("bad %s '%s'", what, s);
  return v;
}

enum {
  OPT_CPUS = 256,
  OPT_NICS,
  OPT_SYTPRP,
  OPT_SYTPRP_LEN,
  OPT_UNKNOWN,
  OPT_SMT,
  OPT_PREFIX,
  OPT_COFF,
  OPT_START,
  OPT_INTERVAL,
  OPT_DBASE,
  OPT_DSIZE,
  OPT_SETFRAMES,
  OPT_MCES,
  OPT_ALIGN,
  OPT_GAP,
  OPT_FAULT,
  OPT_SPLIT,
  OPT_DESCRIBE,
  OPT_STATS,
  OPT_FORCE,
  OPT_LOGON,
  OPT_LOGOFF,
  OPT_VCPUS,
  OPT_USETST,
  OPT_VMDBK_SKIP,
  OPT_TOD_OFFSET,
  OPT_TIME_JUMP,
  OPT_SMT_FIELDS,
  OPT_LGUESTS,
  OPT_LCPUS,
  OPT_LPREFIX,
  OPT_APPLDATA,
  OPT_APLFAULTS,
};

/* A signed number of seconds, |s| <= 10 years. */
static int64_t seconds_arg(const char *s, const char *what) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno != 0 || *s == '\0' || *end != '\0' || v > 315360000 ||
      v < -315360000)
    die("bad %s '%s'", what, s);
  return v;
}

static void parse_opts(int argc, char **argv, struct opts *o) {
  static const struct option lo[] = {
      {"output", required_argument, NULL, 'o'},
      {"format", required_argument, NULL, 'f'},
      {"seed", required_argument, NULL, 's'},
      {"guests", required_argument, NULL, 'g'},
      {"intervals", required_argument, NULL, 'i'},
      {"events", required_argument, NULL, 'e'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {"cpus", required_argument, NULL, OPT_CPUS},
      {"nics", required_argument, NULL, OPT_NICS},
      {"sytprp", required_argument, NULL, OPT_SYTPRP},
      {"sytprp-len", required_argument, NULL, OPT_SYTPRP_LEN},
      {"unknown-events", required_argument, NULL, OPT_UNKNOWN},
      {"smt-every", required_argument, NULL, OPT_SMT},
      {"prefix", required_argument, NULL, OPT_PREFIX},
      {"counter-offset", required_argument, NULL, OPT_COFF},
      {"start", required_argument, NULL, OPT_START},
      {"interval", required_argument, NULL, OPT_INTERVAL},
      {"dcss-base", required_argument, NULL, OPT_DBASE},
      {"dcss-size", required_argument, NULL, OPT_DSIZE},
      {"set-frames", required_argument, NULL, OPT_SETFRAMES},
      {"mces", required_argument, NULL, OPT_MCES},
      {"align-sets", no_argument, NULL, OPT_ALIGN},
      {"gap-ms", required_argument, NULL, OPT_GAP},
      {"fault", required_argument, NULL, OPT_FAULT},
      {"split", required_argument, NULL, OPT_SPLIT},
      {"describe", required_argument, NULL, OPT_DESCRIBE},
      {"stats", no_argument, NULL, OPT_STATS},
      {"force", no_argument, NULL, OPT_FORCE},
      {"logon", required_argument, NULL, OPT_LOGON},
      {"logoff", required_argument, NULL, OPT_LOGOFF},
      {"vcpus", required_argument, NULL, OPT_VCPUS},
      {"vmdbk-skip", required_argument, NULL, OPT_VMDBK_SKIP},
      {"tod-offset", required_argument, NULL, OPT_TOD_OFFSET},
      {"time-jump", required_argument, NULL, OPT_TIME_JUMP},
      {"smt-fields", no_argument, NULL, OPT_SMT_FIELDS},
      {"usetst", no_argument, NULL, OPT_USETST},
      {"linux-guests", required_argument, NULL, OPT_LGUESTS},
      {"linux-cpus", required_argument, NULL, OPT_LCPUS},
      {"linux-prefix", required_argument, NULL, OPT_LPREFIX},
      {"appldata", required_argument, NULL, OPT_APPLDATA},
      {"appldata-faults", no_argument, NULL, OPT_APLFAULTS},
      {NULL, 0, NULL, 0},
  };
  char err[256];
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":o:f:s:g:i:e:h", lo, NULL)) != -1) {
    switch (c) {
    case 'o':
      o->out = optarg;
      break;
    case 'f':
      if (strcmp(optarg, "scenario") == 0)
        o->format = FMT_SCENARIO;
      else if (strcmp(optarg, "raw") == 0)
        o->format = FMT_RAW;
      else if (strcmp(optarg, "sets") == 0)
        o->format = FMT_SETS;
      else
        die("unknown format '%s' (scenario, raw, sets)", optarg);
      break;
    case 's':
      o->seed = num_arg(optarg, "seed", UINT32_MAX);
      break;
    case 'g':
      o->guests = (unsigned)num_arg(optarg, "guest count", 9999999);
      break;
    case 'i':
      o->intervals = (unsigned)num_arg(optarg, "interval count", 10000000);
      break;
    case 'e':
      o->events = (unsigned)num_arg(optarg, "event count", 100000);
      break;
    case 'h':
      usage(stdout);
      exit(0);
    case 'V':
      exit(zvm_cli_version("zvm-stream-gen", PACKAGE_VERSION));
    case OPT_CPUS:
      o->cpus = (unsigned)num_arg(optarg, "CPU count", 65535);
      break;
    case OPT_NICS:
      o->nics = (unsigned)num_arg(optarg, "NIC count", 100000);
      break;
    case OPT_SYTPRP:
      o->sytprp = (unsigned)num_arg(optarg, "D0R2 count", 65535);
      break;
    case OPT_SYTPRP_LEN:
      o->sytprp_len = (unsigned)num_arg(optarg, "D0R2 length", 4000);
      if (o->sytprp_len < MW_MRHDR_LEN)
        die("--sytprp-len must be at least %d", MW_MRHDR_LEN);
      break;
    case OPT_UNKNOWN:
      o->unknown_events = (unsigned)num_arg(optarg, "count", 100000);
      break;
    case OPT_SMT:
      o->smt_every = (unsigned)num_arg(optarg, "interval count", 10000000);
      break;
    case OPT_PREFIX:
      o->prefix = optarg;
      for (const char *p = optarg; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '$' || *p == '#' || *p == '@'))
          die("prefix must be A-Z 0-9 $ # @");
      break;
    case OPT_COFF:
      o->counter_offset = num_arg(optarg, "counter offset", UINT32_MAX);
      break;
    case OPT_START:
      o->start = num_arg(optarg, "start time", UINT64_C(4000000000));
      break;
    case OPT_INTERVAL:
      o->interval_s = (unsigned)num_arg(optarg, "interval", 86400);
      if (o->interval_s == 0)
        die("interval must be > 0");
      break;
    case OPT_DBASE:
      o->dcss_base = (uint32_t)num_arg(optarg, "DCSS base", UINT32_MAX);
      break;
    case OPT_DSIZE:
      o->dcss_size = (uint32_t)num_arg(optarg, "DCSS size", UINT32_MAX);
      break;
    case OPT_SETFRAMES:
      o->set_frames = (unsigned)num_arg(optarg, "frame count", 1048576);
      break;
    case OPT_MCES:
      o->mces = (unsigned)num_arg(optarg, "MCE count", 338);
      if (o->mces == 0)
        die("--mces must be > 0");
      break;
    case OPT_ALIGN:
      o->align_sets = true;
      break;
    case OPT_GAP:
      o->gap_ms = (unsigned)num_arg(optarg, "gap", UINT32_MAX);
      break;
    case OPT_FAULT: {
      struct scn_fault *f;
      size_t n;
      if (scn_faults_parse(optarg, &f, &n, err, sizeof(err)) != 0)
        die("%s", err);
      struct scn_fault *all =
          realloc(o->faults, (o->nfaults + n) * sizeof(*all));
      if (all == NULL && o->nfaults + n > 0)
        die("out of memory");
      if (n > 0)
        memcpy(all + o->nfaults, f, n * sizeof(*f));
      o->faults = all;
      o->nfaults += n;
      free(f);
      break;
    }
    case OPT_SPLIT:
      o->split_dir = optarg;
      break;
    case OPT_DESCRIBE:
      exit(describe(optarg));
    case OPT_STATS:
      o->stats = true;
      break;
    case OPT_FORCE:
      o->out_flags |= ZVM_OUT_FORCE;
      break;
    case OPT_VCPUS:
      o->vcpus = (unsigned)num_arg(optarg, "VMDBK count", 64);
      if (o->vcpus == 0)
        die("--vcpus must be 1-64");
      break;
    case OPT_VMDBK_SKIP:
      o->vmdbk_skip = (unsigned)num_arg(optarg, "skip period", 1000);
      break;
    case OPT_TOD_OFFSET:
      o->tod_offset_s = seconds_arg(optarg, "TOD offset");
      break;
    case OPT_TIME_JUMP: {
      char *colon = strchr(optarg, ':');
      if (colon == NULL || o->njumps >= 8)
        die("--time-jump I:SECONDS (8 at most)");
      *colon = '\0';
      o->jumps[o->njumps].at = (unsigned)num_arg(optarg, "interval", 10000000);
      o->jumps[o->njumps].seconds = seconds_arg(colon + 1, "time jump");
      o->njumps++;
      break;
    }
    case OPT_SMT_FIELDS:
      o->smt_fields = true;
      break;
    case OPT_USETST:
      o->usetst = true;
      break;
    case OPT_LOGON:
    case OPT_LOGOFF: {
      unsigned gno, ino;
      char tail;
      if (sscanf(optarg, "%u@%u%c", &gno, &ino, &tail) != 2 || gno == 0)
        die("--%s wants GUEST@INTERVAL (guest from 1, interval from 0)",
            c == OPT_LOGON ? "logon" : "logoff");
      if (o->nsessions >= MAX_SESSION_EVENTS)
        die("at most %d --logon/--logoff options", MAX_SESSION_EVENTS);
      o->sessions[o->nsessions++] = (struct session_event){
          .logon = c == OPT_LOGON, .guest = gno - 1, .interval = ino};
      break;
    }
    case OPT_LGUESTS:
      o->linux_guests = (unsigned)num_arg(optarg, "Linux guest count", 999);
      break;
    case OPT_LCPUS:
      o->linux_cpus = (unsigned)num_arg(optarg, "Linux CPU count", 64);
      if (o->linux_cpus == 0)
        die("--linux-cpus must be > 0");
      break;
    case OPT_LPREFIX:
      o->linux_prefix = optarg;
      for (const char *p = optarg; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
          die("Linux prefix must be A-Z 0-9");
      break;
    case OPT_APPLDATA: {
      o->appldata = 0;
      char *list = strdup(optarg), *save = NULL;
      if (list == NULL)
        die("out of memory");
      for (char *w = strtok_r(list, ",", &save); w != NULL;
           w = strtok_r(NULL, ",", &save)) {
        if (strcmp(w, "os") == 0)
          o->appldata |= APL_OS;
        else if (strcmp(w, "mem") == 0)
          o->appldata |= APL_MEM;
        else if (strcmp(w, "net_sum") == 0)
          o->appldata |= APL_NET;
        else if (strcmp(w, "fsstat") == 0)
          o->appldata |= APL_FS;
        else if (strcmp(w, "procd") == 0)
          o->appldata |= APL_PROCD;
        else if (strcmp(w, "all") == 0)
          o->appldata |= APL_OS | APL_MEM | APL_NET | APL_FS | APL_PROCD;
        else
          die("unknown APPLDATA kind '%s' (os, mem, net_sum, fsstat, procd, "
              "all)",
              w);
      }
      free(list);
      break;
    }
    case OPT_APLFAULTS:
      o->appldata_faults = true;
      break;
    default:
      exit(zvm_cli_bad_option("zvm-stream-gen", c, argv));
    }
  }
  if (optind != argc)
    die("unexpected argument '%s'", argv[optind]);
  if ((o->dcss_base & (MW_FRAME - 1)) != 0 ||
      (o->dcss_size & (2 * MW_FRAME - 1)) != 0 || o->dcss_size < 4 * MW_FRAME ||
      (uint64_t)o->dcss_base + o->dcss_size - 1 > UINT32_MAX)
    die("DCSS base must be 4 KB aligned, size a multiple of 8 KB (>= 16 "
        "KB), and the DCSS must end below 4 GB");
}

int main(int argc, char **argv) {
  struct opts o = {
      .seed = 1,
      .guests = 10,
      .intervals = 3,
      .events = 1,
      .cpus = 4,
      .nics = 2,
      .sytprp_len = SYTPRP_LEN,
      .unknown_events = 2,
      .smt_every = 2,
      .dcss_base = 0x09000000,
      .dcss_size = 0x04000000,
      .set_frames = 16,
      .mces = 4,
      .start = 1700000000,
      .interval_s = 60,
      .prefix = "LINUX",
      .format = FMT_SCENARIO,
      .vcpus = 1,
      .linux_cpus = 2,
      .linux_prefix = "LNX",
      .appldata = APL_OS | APL_MEM | APL_NET,
  };
  parse_opts(argc, argv, &o);

  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);

  struct gen g = {.o = &o, .rng = splitmix64(o.seed ^ UINT64_C(0xD1C13))};
  if (g.rng == 0)
    g.rng = 1;
  uint32_t half = o.dcss_size / 2;
  g.ev = (struct area){o.dcss_base, o.dcss_base + half - 1, o.dcss_base};
  g.sa = (struct area){o.dcss_base + half, o.dcss_base + o.dcss_size - 1,
                       o.dcss_base + half};

  if (o.split_dir != NULL && mkdir(o.split_dir, 0777) != 0 && errno != EEXIST)
    die("%s: %s", o.split_dir, strerror(errno));
  g.fp = o.out != NULL ? open_output(o.out, o.out_flags) : stdout;
  static char iobuf[1 << 20];
  setvbuf(g.fp, iobuf, _IOFBF, sizeof(iobuf));

  if (o.format == FMT_SCENARIO)
    write_or_die(
        &g, scn_write_header(g.fp, o.dcss_base, o.dcss_base + o.dcss_size - 1,
                             (uint64_t)o.intervals * o.interval_s * 1000000));
  for (unsigned i = 0; i < o.intervals; i++) {
    gen_events(&g, i);
    gen_sample(&g, i);
  }
  for (size_t i = 0; i < o.nfaults; i++)
    if (o.faults[i].msg >= g.msg_index &&
        !(o.faults[i].kind == SCN_F_OPEN && o.faults[i].msg == g.msg_index))
      die("fault %zu names message %llu; only %zu messages generated", i,
          (unsigned long long)o.faults[i].msg, g.msg_index);
  for (size_t i = 0; i < o.nfaults; i++)
    if (o.format == FMT_SCENARIO && o.faults[i].kind == SCN_F_OPEN &&
        o.faults[i].msg == g.msg_index)
      write_or_die(&g, scn_write_item_u32(g.fp, SCN_OPEN_ERROR, 2,
                                          (uint32_t)o.faults[i].arg,
                                          (uint32_t)o.faults[i].arg2));
  if (fflush(g.fp) != 0 || (g.fp != stdout && fclose(g.fp) != 0))
    die("write failed: %s", strerror(errno));

  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (o.stats)
    fprintf(stderr,
            "zvm-stream-gen: messages=%zu record_sets=%llu records=%llu "
            "end_of_frame=%llu bytes=%llu time_ms=%.3f\n",
            g.msg_index, (unsigned long long)g.n_sets,
            (unsigned long long)g.n_records, (unsigned long long)g.n_eof,
            (unsigned long long)g.n_bytes,
            (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
                (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
  free(g.msg.p);
  free(o.faults);
  return 0;
}
