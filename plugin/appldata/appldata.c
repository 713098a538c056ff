/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - domain 10 (APPLDATA) decoder; see appldata.h.
 *
 * Offsets in this file are from the start of the application data (located
 * by CALDATOF), except the APHDR's, which are from the start of the record.
 * All data is big-endian: s390x guests write it in their native order.
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "appldata/appldata.h"
#include "zvm_monitor/be.h"
#include "zvm_monitor/decode.h"

/* APHDR (IBM MRAPLSDT z/VM 7.5, MRAPLEDT z/VM 4.3: URLs in appldata.h). */
#define APHDR_CALDATOF 20 /* signed 2: offset of the data from record start */
#define APHDR_CALDATLN 22 /* signed 2: length of the data */
#define APHDR_USERID 24   /* char 8, EBCDIC */
#define APHDR_MDGPROD 32  /* char 16: product ID from the DIAG X'DC' list */
#define APHDR_STATUS 48   /* bitstring 1 */

/* Kernel product ID (appldata_base.c, struct appldata_product_id: 0
 * prod_nr[7] "LINUXKR", 7 prod_fn "NL", 9 record_nr (a byte), 10 version
 * "26", 12 release "01", 14 mod_lvl; strings EBCDIC). */
static const uint8_t kernel_prod[9] = {0xD3, 0xC9, 0xD5, 0xE4, 0xE7,
                                       0xD2, 0xD9, 0xD5, 0xD3};
static const uint8_t kernel_version[4] = {0xF2, 0xF6, 0xF0, 0xF1};
#define EBCDIC_00 0xF0F0 /* mod_lvl "00": mem, net_sum, os before steal */
#define EBCDIC_01 0xF0F1 /* mod_lvl "01": os with steal and cpu_id */

/* monwriter product ID (drivers/s390/char/monwriter.c: prod_nr "LNXAPPL"
 * copied as ASCII; 7 applid u16, 9 record_num, 10 version, 12 release,
 * 14 mod_level = mon_fsstatd's / mon_procd's buffer slot). */
static const uint8_t monwriter_prod[7] = {'L', 'N', 'X', 'A', 'P', 'P', 'L'};
#define FSSTATD_APPLID 1    /* mon_fsstatd.h FSSTATD_APPLID */
#define PROCD_APPLID 2      /* mon_procd.h PROCD_APPLID */
#define PROCD_SUM_RECORD 0  /* mon_procd.h SUM_FLAG */
#define PROCD_TASK_RECORD 1 /* mon_procd.h TASK_FLAG */

/* Kernel records: common prefix (every struct appldata_*_data). */
#define K_TIMESTAMP 0 /* u64 TOD */
#define K_SYNC1 8     /* u32, incremented before the update */
#define K_SYNC2 12    /* u32, incremented after it */

/* struct appldata_mem_data (appldata_mem.c), 144 bytes. */
#define MEM_LEN 144
static const uint16_t mem_offsets[] = {
    16 /* pgpgin */,    24 /* pgpgout */,
    32 /* pswpin */,    40 /* pswpout */,
    48 /* sharedram */, 56 /* totalram */,
    64 /* freeram */,   72 /* totalhigh */,
    80 /* freehigh */,  88 /* bufferram */,
    96 /* cached */,    104 /* totalswap */,
    112 /* freeswap */, 120 /* pgalloc */,
    128 /* pgfault */,  136 /* pgmajfault */};

/* struct appldata_os_data (appldata_os.c), 52 bytes + per-CPU array. */
#define OS_NR_CPUS 16
#define OS_PER_CPU_SIZE 20
#define OS_CPU_OFFSET 24
#define OS_NR_RUNNING 28
#define OS_NR_THREADS 32
#define OS_AVENRUN 36 /* 3 x u32 */
#define OS_NR_IOWAIT 48
#define OS_FIXED_LEN 52
/* struct appldata_os_per_cpu: u32 user 0, nice 4, system 8, idle 12,
 * irq 16, softirq 20, iowait 24 (28 bytes, mod "00"); steal 28, cpu_id 32
 * (36 bytes, mod "01"). */
#define CPU_ENTRY_MIN 28
#define CPU_ENTRY_STEAL 36

/* struct appldata_net_sum_data (appldata_net_sum.c), 96 bytes. */
#define NET_LEN 96
#define NET_NR_INTERFACES 16 /* u32; 20 is padding */
static const uint16_t net_offsets[] = {
    24 /* rx_packets */, 32 /* tx_packets */, 40 /* rx_bytes */,
    48 /* tx_bytes */,   56 /* rx_errors */,  64 /* tx_errors */,
    72 /* rx_dropped */, 80 /* tx_dropped */, 88 /* collisions */};

/* struct fsstatd_hdr / procd_hdr (mon_fsstatd.h, mon_procd.h): u64
 * time_stamp 0, u16 data_len 8, u16 data_offset 10 (from the start of this
 * header, 12 as written). The 13-byte monwrite_hdr is not in the record. */
#define T_TIME 0
#define T_DATA_LEN 8
#define T_DATA_OFFSET 10
#define T_HDR_LEN 12
/* struct fsstatd_data: 9 x u64 after the three strings. */
#define FS_DATA_LEN 72
/* struct proc_sum_t (mon_procd.h, packed), 166 bytes. */
#define PSUM_LEN 166
/* struct task_t (mon_procd.h, packed), 111 bytes, then six u16-length
 * strings: ruser, euser, egroup, wchan, cmd, cmdline. */
#define TASK_LEN 111

const char *zvm_apl_kind_name(enum zvm_apl_kind kind) {
  switch (kind) {
  case ZVM_APL_MEM:
    return "mem";
  case ZVM_APL_OS:
    return "os";
  case ZVM_APL_NET_SUM:
    return "net_sum";
  case ZVM_APL_FSSTAT:
    return "fsstat";
  case ZVM_APL_PROCD_SUM:
    return "procd_sum";
  case ZVM_APL_PROCD_TASK:
    return "procd_task";
  default:
    return "unknown";
  }
}

enum zvm_apl_kind zvm_apl_kind_from_name(const char *name) {
  for (int k = ZVM_APL_MEM; k < ZVM_APL_KIND_COUNT; k++)
    if (name != NULL && strcasecmp(name, zvm_apl_kind_name(k)) == 0)
      return (enum zvm_apl_kind)k;
  return ZVM_APL_UNKNOWN;
}

const char *zvm_apl_status_name(enum zvm_apl_status s) {
  static const char *const names[ZVM_APL_STATUS_COUNT] = {
      "ok", "bad_header", "unknown_product", "torn", "empty", "bad_data"};
  return (unsigned)s < ZVM_APL_STATUS_COUNT ? names[s] : "?";
}

static enum zvm_apl_kind classify(const uint8_t *p, uint16_t *mod_level) {
  *mod_level = zvm_load_be16(p + 14);
  if (memcmp(p, kernel_prod, sizeof(kernel_prod)) == 0) {
    if (memcmp(p + 10, kernel_version, sizeof(kernel_version)) != 0)
      return ZVM_APL_UNKNOWN;
    switch (p[9]) {
    case 1:
      return *mod_level == EBCDIC_00 ? ZVM_APL_MEM : ZVM_APL_UNKNOWN;
    case 2:
      return *mod_level == EBCDIC_00 || *mod_level == EBCDIC_01
                 ? ZVM_APL_OS
                 : ZVM_APL_UNKNOWN;
    case 3:
      return *mod_level == EBCDIC_00 ? ZVM_APL_NET_SUM : ZVM_APL_UNKNOWN;
    default:
      return ZVM_APL_UNKNOWN;
    }
  }
  if (memcmp(p, monwriter_prod, sizeof(monwriter_prod)) == 0) {
    uint16_t applid = zvm_load_be16(p + 7);
    uint16_t version = zvm_load_be16(p + 10);
    /* Both tools write version 0 (IBM: "version x'0000'"); release and
     * mod_level are to be ignored. */
    if (version != 0)
      return ZVM_APL_UNKNOWN;
    if (applid == FSSTATD_APPLID && p[9] == 0)
      return ZVM_APL_FSSTAT;
    if (applid == PROCD_APPLID && p[9] == PROCD_SUM_RECORD)
      return ZVM_APL_PROCD_SUM;
    if (applid == PROCD_APPLID && p[9] == PROCD_TASK_RECORD)
      return ZVM_APL_PROCD_TASK;
  }
  return ZVM_APL_UNKNOWN;
}

enum zvm_apl_status zvm_apl_parse_header(const uint8_t *rec, size_t len,
                                         struct zvm_apl_header *out) {
  memset(out, 0, sizeof(*out));
  int16_t off, dlen;
  if (len < ZVM_APL_HEADER_LEN || !zvm_be_s16(rec, len, APHDR_CALDATOF, &off) ||
      !zvm_be_s16(rec, len, APHDR_CALDATLN, &dlen))
    return ZVM_APL_BAD_HEADER;
  out->record = zvm_load_be16(rec + 6); /* MRHDRRC (decode.c: MRHDR) */
  memcpy(out->userid, rec + APHDR_USERID, sizeof(out->userid));
  memcpy(out->product, rec + APHDR_MDGPROD, sizeof(out->product));
  out->status = rec[APHDR_STATUS];
  /* The data may not overlap the APHDR and must end inside the record. */
  if (off < ZVM_APL_HEADER_LEN || dlen < 0 ||
      !zvm_in_bounds(len, (size_t)off, (size_t)dlen))
    return ZVM_APL_BAD_HEADER;
  out->data = rec + off;
  out->data_len = (size_t)dlen;
  out->kind = classify(out->product, &out->mod_level);
  return out->kind == ZVM_APL_UNKNOWN ? ZVM_APL_UNKNOWN_PRODUCT : ZVM_APL_OK;
}

/* Timestamp and sync counters of a kernel record of at least min bytes. */
static enum zvm_apl_status kernel_prefix(const struct zvm_apl_header *h,
                                         size_t min, uint64_t *tod) {
  if (h->data_len < min)
    return ZVM_APL_BAD_DATA;
  const uint8_t *d = h->data;
  if (zvm_load_be32(d + K_SYNC1) != zvm_load_be32(d + K_SYNC2))
    return ZVM_APL_TORN;
  *tod = zvm_load_be64(d + K_TIMESTAMP);
  return *tod == 0 ? ZVM_APL_EMPTY : ZVM_APL_OK;
}

static enum zvm_apl_status decode_mem(struct zvm_apl_header *h,
                                      struct zvm_apl_mem *m) {
  enum zvm_apl_status s = kernel_prefix(h, MEM_LEN, &m->tod);
  if (s != ZVM_APL_OK)
    return s;
  uint64_t *dst[] = {&m->pgpgin,    &m->pgpgout,   &m->pswpin,  &m->pswpout,
                     &m->sharedram, &m->totalram,  &m->freeram, &m->totalhigh,
                     &m->freehigh,  &m->bufferram, &m->cached,  &m->totalswap,
                     &m->freeswap,  &m->pgalloc,   &m->pgfault, &m->pgmajfault};
  for (size_t i = 0; i < sizeof(mem_offsets) / sizeof(mem_offsets[0]); i++)
    *dst[i] = zvm_load_be64(h->data + mem_offsets[i]);
  h->used_len = MEM_LEN;
  return ZVM_APL_OK;
}

static enum zvm_apl_status decode_os(struct zvm_apl_header *h,
                                     struct zvm_apl_os *os) {
  enum zvm_apl_status s = kernel_prefix(h, OS_FIXED_LEN, &os->tod);
  if (s != ZVM_APL_OK)
    return s;
  const uint8_t *d = h->data;
  os->nr_cpus = zvm_load_be32(d + OS_NR_CPUS);
  os->per_cpu_size = zvm_load_be32(d + OS_PER_CPU_SIZE);
  os->cpu_offset = zvm_load_be32(d + OS_CPU_OFFSET);
  os->nr_running = zvm_load_be32(d + OS_NR_RUNNING);
  os->nr_threads = zvm_load_be32(d + OS_NR_THREADS);
  for (int i = 0; i < 3; i++)
    os->avenrun[i] = zvm_load_be32(d + OS_AVENRUN + 4 * i);
  os->nr_iowait = zvm_load_be32(d + OS_NR_IOWAIT);
  /* The array: entries of at least the 28 bytes we read, starting after
   * the fixed part, all inside CALDATLN (64-bit arithmetic: no wrap). */
  if (os->per_cpu_size < CPU_ENTRY_MIN || os->cpu_offset < OS_FIXED_LEN ||
      (uint64_t)os->cpu_offset + (uint64_t)os->nr_cpus * os->per_cpu_size >
          h->data_len)
    return ZVM_APL_BAD_DATA;
  os->cpus = d + os->cpu_offset;
  /* Each CPU once: a repeated cpu_id would name one series twice. */
  if (os->per_cpu_size >= CPU_ENTRY_STEAL) {
    uint8_t seen[(ZVM_APL_MAX_CPU_ID + 1) / 8] = {0};
    for (uint32_t i = 0; i < os->nr_cpus; i++) {
      uint32_t id = zvm_load_be32(os->cpus + (size_t)i * os->per_cpu_size + 32);
      if (id > ZVM_APL_MAX_CPU_ID || (seen[id / 8] & (1u << (id % 8))))
        return ZVM_APL_BAD_DATA;
      seen[id / 8] |= (uint8_t)(1u << (id % 8));
    }
  } else if (os->nr_cpus > ZVM_APL_MAX_CPU_ID + 1) {
    return ZVM_APL_BAD_DATA;
  }
  h->used_len = os->cpu_offset + (size_t)os->nr_cpus * os->per_cpu_size;
  return ZVM_APL_OK;
}

void zvm_apl_os_cpu(const struct zvm_apl_os *os, size_t i,
                    struct zvm_apl_cpu *out) {
  const uint8_t *e = os->cpus + i * os->per_cpu_size;
  uint32_t *dst[] = {&out->user, &out->nice,    &out->system, &out->idle,
                     &out->irq,  &out->softirq, &out->iowait};
  for (size_t k = 0; k < sizeof(dst) / sizeof(dst[0]); k++)
    *dst[k] = zvm_load_be32(e + 4 * k);
  out->has_steal = os->per_cpu_size >= CPU_ENTRY_STEAL;
  out->steal = out->has_steal ? zvm_load_be32(e + 28) : 0;
  out->cpu_id = out->has_steal ? zvm_load_be32(e + 32) : (uint32_t)i;
}

double zvm_apl_load(uint32_t avenrun) {
  /* /proc/loadavg: LOAD_INT(a).LOAD_FRAC(a) with FSHIFT 11 (the kernel
   * already added FIXED_1/200 for rounding, as appldata_os does). */
  uint32_t whole = avenrun >> 11;
  uint32_t frac = ((avenrun & 2047u) * 100u) >> 11;
  return (double)whole + (double)frac / 100.0;
}

static enum zvm_apl_status decode_net(struct zvm_apl_header *h,
                                      struct zvm_apl_net_sum *n) {
  enum zvm_apl_status s = kernel_prefix(h, NET_LEN, &n->tod);
  if (s != ZVM_APL_OK)
    return s;
  n->nr_interfaces = zvm_load_be32(h->data + NET_NR_INTERFACES);
  uint64_t *dst[] = {&n->rx_packets, &n->tx_packets, &n->rx_bytes,
                     &n->tx_bytes,   &n->rx_errors,  &n->tx_errors,
                     &n->rx_dropped, &n->tx_dropped, &n->collisions};
  for (size_t i = 0; i < sizeof(net_offsets) / sizeof(net_offsets[0]); i++)
    *dst[i] = zvm_load_be64(h->data + net_offsets[i]);
  h->used_len = NET_LEN;
  return ZVM_APL_OK;
}

/* The tool header of an s390-tools record: its payload [*pos, *end) lies
 * inside the data and holds at least min bytes. */
static enum zvm_apl_status tool_prefix(struct zvm_apl_header *h, size_t min,
                                       uint64_t *time_s, size_t *pos,
                                       size_t *end) {
  uint16_t dlen, doff;
  if (!zvm_be_u64(h->data, h->data_len, T_TIME, time_s) ||
      !zvm_be_u16(h->data, h->data_len, T_DATA_LEN, &dlen) ||
      !zvm_be_u16(h->data, h->data_len, T_DATA_OFFSET, &doff))
    return ZVM_APL_BAD_DATA;
  if (doff < T_HDR_LEN || !zvm_in_bounds(h->data_len, doff, dlen) || dlen < min)
    return ZVM_APL_BAD_DATA;
  if (*time_s == 0)
    return ZVM_APL_EMPTY;
  *pos = doff;
  *end = (size_t)doff + dlen;
  h->used_len = *end;
  return ZVM_APL_OK;
}

/* A u16-length-prefixed string at *pos, inside [0, end). */
static bool take_str(const uint8_t *d, size_t end, size_t *pos,
                     struct zvm_apl_str *s) {
  uint16_t n;
  if (!zvm_be_u16(d, end, *pos, &n) || !zvm_in_bounds(end, *pos + 2, n))
    return false;
  s->p = d + *pos + 2;
  s->len = n;
  *pos += 2 + (size_t)n;
  return true;
}

static void load_u64s(const uint8_t *p, uint64_t *const *dst, size_t n) {
  for (size_t i = 0; i < n; i++)
    *dst[i] = zvm_load_be64(p + 8 * i);
}

static enum zvm_apl_status decode_fsstat(struct zvm_apl_header *h,
                                         struct zvm_apl_fsstat *f) {
  size_t pos, end;
  enum zvm_apl_status s =
      tool_prefix(h, 6 + FS_DATA_LEN, &f->time_s, &pos, &end);
  if (s != ZVM_APL_OK)
    return s;
  if (!take_str(h->data, end, &pos, &f->fsname) ||
      !take_str(h->data, end, &pos, &f->dir) ||
      !take_str(h->data, end, &pos, &f->type) ||
      !zvm_in_bounds(end, pos, FS_DATA_LEN) || f->dir.len == 0)
    return ZVM_APL_BAD_DATA;
  uint64_t *const dst[] = {&f->bsize, &f->frsize, &f->blocks,
                           &f->bfree, &f->bavail, &f->files,
                           &f->ffree, &f->favail, &f->flag};
  load_u64s(h->data + pos, dst, 9);
  return ZVM_APL_OK;
}

/* mon_procd's loadavg_N: sscanf("%s") of /proc/loadavg into char[6]: a
 * plain decimal, NUL-padded (or not, at six characters). */
static double parse_load(const uint8_t *p) {
  double v = 0, scale = 0;
  size_t i = 0;
  for (; i < 6 && p[i] != 0; i++) {
    if (p[i] >= '0' && p[i] <= '9') {
      if (scale == 0) {
        v = v * 10 + (p[i] - '0');
      } else {
        v += (p[i] - '0') * scale;
        scale /= 10;
      }
    } else if (p[i] == '.' && scale == 0 && i > 0) {
      scale = 0.1;
    } else {
      return NAN;
    }
  }
  return i == 0 ? NAN : v;
}

static enum zvm_apl_status decode_psum(struct zvm_apl_header *h,
                                       struct zvm_apl_procd_sum *s) {
  size_t pos, end;
  enum zvm_apl_status st = tool_prefix(h, PSUM_LEN, &s->time_s, &pos, &end);
  if (st != ZVM_APL_OK)
    return st;
  const uint8_t *p = h->data + pos;
  /* struct proc_sum_t: 0 uptime u64, 8 users u32, 12/18/24 loadavg_1/5/15
   * char[6], 30 task_sum_t (5 x u32), 50 cpu_t (num_cpus u32, 8 x u16),
   * 70 mem_t (6 x u64), 118 swap_t (6 x u64). */
  s->uptime = zvm_load_be64(p + 0);
  s->users = zvm_load_be32(p + 8);
  for (int i = 0; i < 3; i++)
    s->load[i] = parse_load(p + 12 + 6 * i);
  uint32_t *const tasks[] = {&s->tasks_total, &s->tasks_running,
                             &s->tasks_sleeping, &s->tasks_stopped,
                             &s->tasks_zombie};
  for (size_t i = 0; i < 5; i++)
    *tasks[i] = zvm_load_be32(p + 30 + 4 * i);
  s->num_cpus = zvm_load_be32(p + 50);
  uint16_t *const pct[] = {&s->puser,   &s->pnice, &s->psystem,  &s->pidle,
                           &s->piowait, &s->pirq,  &s->psoftirq, &s->psteal};
  for (size_t i = 0; i < 8; i++)
    *pct[i] = zvm_load_be16(p + 54 + 2 * i);
  uint64_t *const mem[] = {&s->mem_total,   &s->mem_used,  &s->mem_free,
                           &s->mem_buffers, &s->pgpgin,    &s->pgpgout,
                           &s->swap_total,  &s->swap_used, &s->swap_free,
                           &s->swap_cached, &s->pswpin,    &s->pswpout};
  load_u64s(p + 70, mem, 12);
  return ZVM_APL_OK;
}

static enum zvm_apl_status decode_task(struct zvm_apl_header *h,
                                       struct zvm_apl_procd_task *t) {
  size_t pos, end;
  enum zvm_apl_status st = tool_prefix(h, TASK_LEN, &t->time_s, &pos, &end);
  if (st != ZVM_APL_OK)
    return st;
  const uint8_t *p = h->data + pos;
  /* struct task_t: 0 pid, 4 ppid, 8 euid (u32), 12 tty u16, 14 priority
   * s16, 16 nice s16, 18 processor u32, 22 pcpu u16, 24 pmem u16, 26
   * total_time .. 98 maj_flt (10 x u64), 106 state char, 107 flags u32. */
  t->pid = zvm_load_be32(p + 0);
  t->ppid = zvm_load_be32(p + 4);
  t->euid = zvm_load_be32(p + 8);
  t->tty = zvm_load_be16(p + 12);
  t->priority = (int16_t)zvm_sign_extend(zvm_load_be16(p + 14), 2);
  t->nice = (int16_t)zvm_sign_extend(zvm_load_be16(p + 16), 2);
  t->processor = zvm_load_be32(p + 18);
  t->pcpu = zvm_load_be16(p + 22);
  t->pmem = zvm_load_be16(p + 24);
  uint64_t *const u64s[] = {
      &t->total_time, &t->ctotal_time, &t->size,  &t->swap, &t->resident,
      &t->trs,        &t->drs,         &t->share, &t->dt,   &t->maj_flt};
  load_u64s(p + 26, u64s, 10);
  t->state = p[106];
  t->flags = zvm_load_be32(p + 107);
  pos += TASK_LEN;
  struct zvm_apl_str *const strs[] = {&t->ruser, &t->euser, &t->egroup,
                                      &t->wchan, &t->cmd,   &t->cmdline};
  for (size_t i = 0; i < 6; i++)
    if (!take_str(h->data, end, &pos, strs[i]))
      return ZVM_APL_BAD_DATA;
  return ZVM_APL_OK;
}

size_t zvm_apl_compact(const struct zvm_apl_record *r, const uint8_t *rec,
                       uint8_t *out, size_t out_size) {
  size_t n = ZVM_APL_HEADER_LEN + r->hdr.used_len;
  if (r->hdr.data == NULL || n > out_size || n > UINT16_MAX)
    return 0;
  memcpy(out, rec, ZVM_APL_HEADER_LEN);
  memcpy(out + ZVM_APL_HEADER_LEN, r->hdr.data, r->hdr.used_len);
  out[0] = (uint8_t)(n >> 8); /* MRHDRLEN */
  out[1] = (uint8_t)n;
  out[APHDR_CALDATOF] = 0;
  out[APHDR_CALDATOF + 1] = ZVM_APL_HEADER_LEN;
  out[APHDR_CALDATLN] = (uint8_t)(r->hdr.used_len >> 8);
  out[APHDR_CALDATLN + 1] = (uint8_t)r->hdr.used_len;
  return n;
}

enum zvm_apl_status zvm_apl_decode(const uint8_t *rec, size_t len,
                                   struct zvm_apl_record *out) {
  memset(&out->u, 0, sizeof(out->u));
  enum zvm_apl_status s = zvm_apl_parse_header(rec, len, &out->hdr);
  if (s != ZVM_APL_OK)
    return s;
  switch (out->hdr.kind) {
  case ZVM_APL_MEM:
    return decode_mem(&out->hdr, &out->u.mem);
  case ZVM_APL_OS:
    return decode_os(&out->hdr, &out->u.os);
  case ZVM_APL_NET_SUM:
    return decode_net(&out->hdr, &out->u.net);
  case ZVM_APL_FSSTAT:
    return decode_fsstat(&out->hdr, &out->u.fs);
  case ZVM_APL_PROCD_SUM:
    return decode_psum(&out->hdr, &out->u.psum);
  case ZVM_APL_PROCD_TASK:
    return decode_task(&out->hdr, &out->u.task);
  default:
    return ZVM_APL_UNKNOWN_PRODUCT;
  }
}

static bool name_char_is_safe(uint8_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' || c == '-';
}

size_t zvm_apl_name(const uint8_t *s, size_t len, bool slash_to_dash, char *out,
                    size_t out_size) {
  static const char hex[] = "0123456789abcdef";
  if (out == NULL || out_size == 0)
    return 0;
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    uint8_t c = s[i];
    char buf[3];
    size_t w;
    if (slash_to_dash && c == '/') {
      buf[0] = '-';
      w = 1;
    } else if (name_char_is_safe(c)) {
      buf[0] = (char)c;
      w = 1;
    } else {
      buf[0] = '%';
      buf[1] = hex[c >> 4];
      buf[2] = hex[c & 0x0F];
      w = 3;
    }
    if (n + w > out_size - 1) {
      /* Too long: keep a prefix and name the whole by its hash. */
      return zvm_id_shorten(out, n, out_size, s, len);
    }
    memcpy(out + n, buf, w);
    n += w;
  }
  out[n] = '\0';
  return n;
}

size_t zvm_apl_mount_name(const uint8_t *dir, size_t len, char *out,
                          size_t out_size) {
  /* collectd df.c (5.12, ReportByDevice false): "/" -> "root", else the
   * mount point without its first character, '/' -> '-'. */
  if (len == 1 && dir[0] == '/') {
    if (out_size < 5) {
      if (out_size > 0)
        out[0] = '\0';
      return 0;
    }
    memcpy(out, "root", 5);
    return 4;
  }
  if (len > 0 && dir[0] == '/') {
    dir++;
    len--;
  }
  return zvm_apl_name(dir, len, true, out, out_size);
}
