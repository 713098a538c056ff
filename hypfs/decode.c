/* SPDX-License-Identifier: MIT */
/*
 * hypfs - decoder of the kernel's binary hypfs debugfs files.
 *
 * Tables name every field once: offset, width, destination. Offsets are
 * those of the packed/naturally aligned C structs of the Linux kernel
 * (paths below); every block is bounds-checked before a field is loaded.
 */
#include "hypfs/hypfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "zvm_monitor/be.h"

const char *hypfs_error_name(enum hypfs_error e) {
  switch (e) {
  case HYPFS_OK:
    return "ok";
  case HYPFS_E_SHORT:
    return "short";
  case HYPFS_E_LONG:
    return "long";
  case HYPFS_E_HEADER:
    return "header";
  case HYPFS_E_TRUNC:
    return "truncated";
  case HYPFS_E_NAME:
    return "name";
  case HYPFS_E_TOO_MANY:
    return "too_many";
  case HYPFS_E_NOMEM:
    return "nomem";
  case HYPFS_ERROR_KINDS:
    break;
  }
  return "unknown";
}

/* A field of a block: offset and width in the block, destination offset
 * and width in the model struct (unsigned integers only). */
struct hypfs_field {
  uint16_t off;
  uint8_t width;
  uint8_t dst_width;
  uint16_t dst;
};

#define F(o, w, type, member)                                                  \
  {                                                                            \
    (o), (w), (uint8_t)sizeof(((type *)0)->member),                            \
        (uint16_t)offsetof(type, member)                                       \
  }

/* Loads every field; the caller has checked that the block is in bounds.
 * Every table's destination has the field's width (F() takes it from the
 * member; hypfs_field_widths_match() tells the tests). */
static void load_fields(const uint8_t *block, const struct hypfs_field *f,
                        size_t n, void *dst) {
  for (size_t i = 0; i < n; i++) {
    const uint8_t *p = block + f[i].off;
    uint8_t *d = (uint8_t *)dst + f[i].dst;
    switch (f[i].width) {
    case 1:
      d[0] = p[0];
      break;
    case 2: {
      uint16_t x = zvm_load_be16(p);
      memcpy(d, &x, 2);
      break;
    }
    case 4: {
      uint32_t x = zvm_load_be32(p);
      memcpy(d, &x, 4);
      break;
    }
    case 8: {
      uint64_t x = zvm_load_be64(p);
      memcpy(d, &x, 8);
      break;
    }
    }
  }
}

/*
 * struct diag2fc_data, Linux kernel arch/s390/hypfs/hypfs_vm.c (later
 * hypfs_vm.h): 112 bytes, natural alignment, no padding.
 *   0 u32 version     4 u32 flags        8 u64 used_cpu    16 u64 el_time
 *  24 u64 mem_min_kb 32 u64 mem_max_kb  40 u64 mem_share_kb
 *  48 u64 mem_used_kb 56 u32 pcpus      60 u32 lcpus      64 u32 vcpus
 *  68 u32 ocpus (cpu_min in older kernels)  72 u32 cpu_max
 *  76 u32 cpu_shares 80 u32 cpu_use_samp 84 u32 cpu_delay_samp
 *  88 u32 page_wait_samp 92 u32 idle_samp 96 u32 other_samp
 * 100 u32 total_samp 104 char guest_name[8] (EBCDIC)
 */
#define D2FC_GUEST_NAME 104
static const struct hypfs_field d2fc_fields[] = {
    F(0, 4, struct hypfs_guest, version),
    F(4, 4, struct hypfs_guest, flags),
    F(8, 8, struct hypfs_guest, used_cpu_us),
    F(16, 8, struct hypfs_guest, el_time_us),
    F(24, 8, struct hypfs_guest, mem_min_kib),
    F(32, 8, struct hypfs_guest, mem_max_kib),
    F(40, 8, struct hypfs_guest, mem_share_kib),
    F(48, 8, struct hypfs_guest, mem_used_kib),
    F(56, 4, struct hypfs_guest, pcpus),
    F(60, 4, struct hypfs_guest, lcpus),
    F(64, 4, struct hypfs_guest, vcpus),
    F(68, 4, struct hypfs_guest, ocpus),
    F(72, 4, struct hypfs_guest, cpu_max),
    F(76, 4, struct hypfs_guest, cpu_shares),
    F(80, 4, struct hypfs_guest, cpu_use_samp),
    F(84, 4, struct hypfs_guest, cpu_delay_samp),
    F(88, 4, struct hypfs_guest, page_wait_samp),
    F(92, 4, struct hypfs_guest, idle_samp),
    F(96, 4, struct hypfs_guest, other_samp),
    F(100, 4, struct hypfs_guest, total_samp),
};

enum hypfs_error hypfs_decode_d2fc_entries(const uint8_t *buf, size_t len,
                                           struct hypfs_d2fc *out) {
  out->guests_num = 0;
  out->records = 0;
  out->skipped_names = 0;
  out->lcpus = 0;
  if (len % HYPFS_D2FC_DATA_SIZE != 0)
    return HYPFS_E_HEADER;
  size_t n = len / HYPFS_D2FC_DATA_SIZE;
  if (n > HYPFS_MAX_ENTRIES)
    return HYPFS_E_TOO_MANY;
  out->records = n;
  if (n > 0 && !zvm_grow(&out->guests, &out->guests_cap, n - 1,
                         sizeof(*out->guests), 16))
    return HYPFS_E_NOMEM;
  for (size_t i = 0; i < n; i++) {
    const uint8_t *e = buf + i * HYPFS_D2FC_DATA_SIZE;
    struct hypfs_guest *g = &out->guests[out->guests_num];
    memset(g, 0, sizeof(*g));
    load_fields(e, d2fc_fields, sizeof(d2fc_fields) / sizeof(d2fc_fields[0]),
                g);
    if (i == 0)
      out->lcpus = g->lcpus;
    memcpy(g->name_ebcdic, e + D2FC_GUEST_NAME, 8);
    if (zvm_name_format(g->name_ebcdic, 8, g->name, sizeof(g->name)) < 0) {
      hypfs_skip_note(&out->skipped_first, out->skipped_names, g->name_ebcdic,
                      8, true, "a blank name");
      out->skipped_names++;
      continue;
    }
    out->guests_num++;
  }
  return HYPFS_OK;
}

/*
 * struct dbfs_d2fc_hdr (packed), Linux kernel arch/s390/hypfs/hypfs_vm.c:
 *   0 u64 len (bytes of diag2fc_data after the header)  8 u16 version (0)
 *  10 char tod_ext[16]  26 u64 count  34 char reserved[30]   = 64 bytes.
 * The kernel sets len = count * sizeof(struct diag2fc_data) and the file
 * size to len + 64.
 */
enum hypfs_error hypfs_decode_d2fc(const uint8_t *buf, size_t len,
                                   struct hypfs_d2fc *out) {
  uint64_t body = 0, count = 0, version = 0;
  out->guests_num = 0;
  out->records = 0;
  if (!zvm_be_uint(buf, len, HYPFS_D2FC_HDR_LEN, 8, &body) ||
      !zvm_be_uint(buf, len, HYPFS_D2FC_HDR_VERSION, 2, &version) ||
      !zvm_be_uint(buf, len, HYPFS_D2FC_HDR_COUNT, 8, &count) ||
      len < HYPFS_D2FC_HDR_SIZE)
    return HYPFS_E_SHORT;
  if (version != 0)
    return HYPFS_E_HEADER;
  if (count > HYPFS_MAX_ENTRIES)
    return HYPFS_E_TOO_MANY;
  if (body != count * HYPFS_D2FC_DATA_SIZE)
    return HYPFS_E_HEADER;
  if (len - HYPFS_D2FC_HDR_SIZE < body)
    return HYPFS_E_SHORT;
  if (len - HYPFS_D2FC_HDR_SIZE > body)
    return HYPFS_E_LONG;
  out->tod_ext_hi = zvm_load_be64(buf + HYPFS_D2FC_HDR_TOD_EXT);
  out->tod_ext_lo = zvm_load_be64(buf + HYPFS_D2FC_HDR_TOD_EXT + 8);
  return hypfs_decode_d2fc_entries(buf + HYPFS_D2FC_HDR_SIZE, (size_t)body,
                                   out);
}

void hypfs_d2fc_free(struct hypfs_d2fc *d) {
  free(d->guests);
  memset(d, 0, sizeof(*d));
}

/*
 * DIAG X'204' blocks, Linux kernel arch/s390/include/asm/diag.h (packed):
 *
 * diag204_info_blk_hdr (16)         diag204_x_info_blk_hdr (64)
 *   0 u8 npar  1 u8 flags  2 u16 tslice  4 u16 phys_cpus  6 u16 this_part
 *   8 u64 curtod                       8 u64 curtod1 16 u64 curtod2
 *                                     24 char reserved[40]
 * diag204_part_hdr (16)             diag204_x_part_hdr (96)
 *   0 u8 pn  1 u8 cpus                 0 u8 pn 1 u8 cpus 2 u8 rcpus
 *   2 char reserved[6]                 3 u8 pflag 4 u32 mlu
 *   8 char part_name[8]                8 char part_name[8] 16 lpc_name[8]
 *                                     24 os_name[8] 32 u64 online_cs
 *                                     40 u64 online_es 48 u8 upid
 *                                     52 u32 group_mlu 56 group_name[8]
 *                                     64 char reserved2[32]
 * diag204_cpu_info (24)             diag204_x_cpu_info (96)
 *   0 u16 cpu_addr 4 u8 ctidx 5 u8 cflag 6 u16 weight
 *   8 u64 acc_time 16 u64 lp_time     24 u16 min_weight 26 cur_weight
 *                                     28 max_weight 32 u64 online_time
 *                                     40 u64 wait_time 48 u32 pma_weight
 *                                     52 u32 polar_weight 56 reserved[40]
 * diag204_phys_hdr (16)             diag204_x_phys_hdr (96)
 *   1 u8 cpus  8 char mgm_name[8]      same, 16 char reserved3[80]
 * diag204_phys_cpu (24)             diag204_x_phys_cpu (96)
 *   0 u16 cpu_addr 4 u8 ctidx 8 u64 mgm_time, then reserved (8 / 80)
 *
 * The kernel walks: info header, npar times (partition header, then
 * x: rcpus / simple: cpus CPU blocks), then, if flags & 0x80, the physical
 * header and its cpus physical CPU blocks (hypfs_diag_fs.c,
 * hypfs_diag_create_files()).
 */
static const size_t info_size[2] = {16, 64};
static const size_t part_size[2] = {16, 96};
static const size_t cpu_size[2] = {24, 96};
static const size_t phys_hdr_size[2] = {16, 96};
static const size_t phys_cpu_size[2] = {24, 96};

int hypfs_d204_sc_format(uint8_t sc) {
  switch (sc) {
  case 4: /* DIAG204_SUBC_STIB4 with DIAG204_INFO_SIMPLE */
    return HYPFS_D204_SIMPLE;
  case 6: /* DIAG204_SUBC_STIB6 and STIB7 with DIAG204_INFO_EXT */
  case 7:
    return HYPFS_D204_EXT;
  default:
    return -1;
  }
}

size_t hypfs_d204_info_size(enum hypfs_d204_format f) { return info_size[f]; }
size_t hypfs_d204_part_size(enum hypfs_d204_format f) { return part_size[f]; }
size_t hypfs_d204_cpu_size(enum hypfs_d204_format f) { return cpu_size[f]; }
size_t hypfs_d204_phys_hdr_size(enum hypfs_d204_format f) {
  return phys_hdr_size[f];
}
size_t hypfs_d204_phys_cpu_size(enum hypfs_d204_format f) {
  return phys_cpu_size[f];
}

#define D204_INFO_NPAR 0
#define D204_INFO_FLAGS 1
#define D204_PART_NAME 8
#define D204_PART_PN 0
#define D204_PART_CPUS 1
#define D204_X_PART_RCPUS 2
#define D204_PHYS_HDR_CPUS 1

static const struct hypfs_field d204_info_fields[] = {
    F(1, 1, struct hypfs_d204, flags),
    F(4, 2, struct hypfs_d204, phys_cpus),
    F(6, 2, struct hypfs_d204, this_part),
    F(8, 8, struct hypfs_d204, tod),
};

static const struct hypfs_field d204_cpu_fields[] = {
    F(0, 2, struct hypfs_lpar_cpu, cpu_addr),
    F(4, 1, struct hypfs_lpar_cpu, ctidx),
    F(5, 1, struct hypfs_lpar_cpu, cflag),
    F(6, 2, struct hypfs_lpar_cpu, weight),
    F(8, 8, struct hypfs_lpar_cpu, acc_time),
    F(16, 8, struct hypfs_lpar_cpu, lp_time),
};
static const struct hypfs_field d204_x_cpu_fields[] = {
    F(32, 8, struct hypfs_lpar_cpu, online_time),
};

static const struct hypfs_field d204_phys_cpu_fields[] = {
    F(0, 2, struct hypfs_phys_cpu, cpu_addr),
    F(4, 1, struct hypfs_phys_cpu, ctidx),
    F(8, 8, struct hypfs_phys_cpu, mgm_time),
};

#define NFIELDS(t) (sizeof(t) / sizeof((t)[0]))

enum hypfs_error hypfs_decode_d204_data(const uint8_t *buf, size_t len,
                                        enum hypfs_d204_format fmt,
                                        struct hypfs_d204 *out) {
  out->format = fmt;
  out->lpars_num = out->cpus_num = out->phys_num = 0;
  out->has_phys = false;
  out->records = 0;
  out->skipped_names = 0;
  if (fmt != HYPFS_D204_SIMPLE && fmt != HYPFS_D204_EXT)
    return HYPFS_E_HEADER;
  size_t off = 0;
  if (!zvm_in_bounds(len, off, info_size[fmt]))
    return HYPFS_E_SHORT;
  uint8_t npar = buf[D204_INFO_NPAR];
  out->records = npar;
  load_fields(buf, d204_info_fields, NFIELDS(d204_info_fields), out);
  off += info_size[fmt];
  /* npar and the CPU counts are single bytes: at most 255 partitions of
   * 255 CPUs, so no count can overflow the arrays' sizes. */
  if (!zvm_grow(&out->lpars, &out->lpars_cap, npar ? npar - 1u : 0,
                sizeof(*out->lpars), 16))
    return HYPFS_E_NOMEM;
  for (unsigned i = 0; i < npar; i++) {
    if (!zvm_in_bounds(len, off, part_size[fmt]))
      return HYPFS_E_TRUNC;
    const uint8_t *p = buf + off;
    struct hypfs_lpar l;
    memset(&l, 0, sizeof(l));
    l.pn = p[D204_PART_PN];
    l.cpus = p[D204_PART_CPUS];
    l.rcpus = fmt == HYPFS_D204_EXT ? p[D204_X_PART_RCPUS] : l.cpus;
    bool named =
        zvm_name_format(p + D204_PART_NAME, 8, l.name, sizeof(l.name)) >= 0;
    off += part_size[fmt];
    size_t n = l.rcpus;
    if (n > (len - off) / cpu_size[fmt])
      return HYPFS_E_TRUNC;
    if (n > 0 && !zvm_grow(&out->cpus, &out->cpus_cap, out->cpus_num + n - 1,
                           sizeof(*out->cpus), 16))
      return HYPFS_E_NOMEM;
    l.cpu_first = out->cpus_num;
    for (size_t c = 0; c < n; c++) {
      struct hypfs_lpar_cpu *cpu = &out->cpus[out->cpus_num];
      memset(cpu, 0, sizeof(*cpu));
      load_fields(buf + off, d204_cpu_fields, NFIELDS(d204_cpu_fields), cpu);
      if (fmt == HYPFS_D204_EXT)
        load_fields(buf + off, d204_x_cpu_fields, NFIELDS(d204_x_cpu_fields),
                    cpu);
      hypfs_cpu_type_name(cpu->ctidx, cpu->type, sizeof(cpu->type));
      off += cpu_size[fmt];
      if (named)
        out->cpus_num++;
    }
    l.cpu_num = out->cpus_num - l.cpu_first;
    if (!named) {
      hypfs_skip_note(&out->skipped_first, out->skipped_names,
                      p + D204_PART_NAME, 8, true, "a blank name");
      out->skipped_names++;
      continue;
    }
    out->lpars[out->lpars_num++] = l;
  }
  if (out->flags & HYPFS_D204_PHYS_FLG) {
    if (!zvm_in_bounds(len, off, phys_hdr_size[fmt]))
      return HYPFS_E_TRUNC;
    size_t n = buf[off + D204_PHYS_HDR_CPUS];
    off += phys_hdr_size[fmt];
    if (n > (len - off) / phys_cpu_size[fmt])
      return HYPFS_E_TRUNC;
    if (!zvm_grow(&out->phys, &out->phys_cap, n ? n - 1 : 0, sizeof(*out->phys),
                  16))
      return HYPFS_E_NOMEM;
    for (size_t c = 0; c < n; c++) {
      struct hypfs_phys_cpu *pc = &out->phys[c];
      memset(pc, 0, sizeof(*pc));
      load_fields(buf + off, d204_phys_cpu_fields,
                  NFIELDS(d204_phys_cpu_fields), pc);
      hypfs_cpu_type_name(pc->ctidx, pc->type, sizeof(pc->type));
      off += phys_cpu_size[fmt];
    }
    out->phys_num = n;
    out->has_phys = true;
  }
  return HYPFS_OK;
}

/*
 * struct dbfs_d204_hdr (packed), Linux kernel arch/s390/hypfs/hypfs_diag.c:
 *   0 u64 len (PAGE_SIZE * pages of DIAG 204 data)  8 u16 version (0)
 *  10 u8 sc (subcode used)  11 char reserved[53]        = 64 bytes,
 * then the data in the format of that subcode (hypfs_d204_sc_format():
 * the kernel stores with diag204_store_sc | diag204_info_type, which
 * diag204_probe() chose together). Kernels create diag_204 only for the
 * extended format; the simple one is decoded all the same. The file size
 * is len + 64.
 */
enum hypfs_error hypfs_decode_d204(const uint8_t *buf, size_t len,
                                   struct hypfs_d204 *out) {
  uint64_t body = 0, version = 0;
  out->lpars_num = out->cpus_num = out->phys_num = 0;
  out->records = 0;
  out->skipped_names = 0;
  if (len < HYPFS_D204_HDR_SIZE ||
      !zvm_be_uint(buf, len, HYPFS_D204_HDR_LEN, 8, &body) ||
      !zvm_be_uint(buf, len, HYPFS_D204_HDR_VERSION, 2, &version))
    return HYPFS_E_SHORT;
  out->sc = buf[HYPFS_D204_HDR_SC];
  if (version != 0)
    return HYPFS_E_HEADER;
  int fmt = hypfs_d204_sc_format(out->sc);
  if (fmt < 0)
    return HYPFS_E_HEADER;
  if (len - HYPFS_D204_HDR_SIZE < body)
    return HYPFS_E_SHORT;
  if (len - HYPFS_D204_HDR_SIZE > body)
    return HYPFS_E_LONG;
  return hypfs_decode_d204_data(buf + HYPFS_D204_HDR_SIZE, (size_t)body,
                                (enum hypfs_d204_format)fmt, out);
}

void hypfs_d204_free(struct hypfs_d204 *d) {
  free(d->lpars);
  free(d->cpus);
  free(d->phys);
  memset(d, 0, sizeof(*d));
}

void hypfs_cpu_type_name(uint8_t ctidx, char *out, size_t out_size) {
  if (ctidx == 0)
    snprintf(out, out_size, "cp");
  else if (ctidx == 3)
    snprintf(out, out_size, "ifl");
  else
    snprintf(out, out_size, "type%u", (unsigned)ctidx);
}

int hypfs_name_from_ascii(const char *ascii, char *out, size_t out_size) {
  /* Back to EBCDIC through the inverse of zvm_monitor's code page, so the
   * tree gives a guest the name its EBCDIC bytes give. */
  static uint8_t latin1_to_cp037[256];
  static bool ready;
  if (!ready) {
    for (unsigned c = 0; c < 256; c++)
      latin1_to_cp037[zvm_ebcdic_to_latin1((uint8_t)c)] = (uint8_t)c;
    ready = true;
  }
  size_t n = strlen(ascii);
  while (n > 0 && (ascii[n - 1] == ' ' || ascii[n - 1] == '\n'))
    n--;
  if (n == 0 || n > 8) {
    if (out_size > 0)
      out[0] = '\0';
    return -1;
  }
  uint8_t e[8];
  for (size_t i = 0; i < n; i++)
    e[i] = latin1_to_cp037[(uint8_t)ascii[i]];
  return zvm_name_format(e, n, out, out_size);
}

void hypfs_escape_name(const uint8_t *name, size_t len, bool ebcdic, char *out,
                       size_t out_size) {
  static const char hex[] = "0123456789ABCDEF";
  size_t n = 0;
  if (out_size < 8) {
    if (out_size > 0)
      out[0] = '\0';
    return;
  }
  const size_t room = out_size - 4; /* "..." and the NUL */
  if (ebcdic) {
    out[n++] = 'X';
    out[n++] = '\'';
  }
  size_t i = 0;
  for (; i < len; i++) {
    uint8_t c = name[i];
    bool plain = !ebcdic && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                             (c >= '0' && c <= '9') ||
                             (c != '\0' && strchr("@#$_-+.", c) != NULL));
    size_t w = plain ? 1 : ebcdic ? 2 : 3;
    if (n + w + (ebcdic ? 1 : 0) > room)
      break;
    if (plain) {
      out[n++] = (char)c;
      continue;
    }
    if (!ebcdic)
      out[n++] = '%';
    out[n++] = hex[c >> 4];
    out[n++] = hex[c & 15];
  }
  if (ebcdic)
    out[n++] = '\'';
  if (i < len) {
    memcpy(out + n, "...", 3);
    n += 3;
  }
  out[n] = '\0';
}

void hypfs_skip_note(struct hypfs_skip *s, unsigned long skipped_before,
                     const uint8_t *name, size_t len, bool ebcdic,
                     const char *why) {
  if (skipped_before != 0)
    return;
  hypfs_escape_name(name, len, ebcdic, s->name, sizeof(s->name));
  s->why = why;
}

static bool widths_match(const struct hypfs_field *f, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (f[i].width != f[i].dst_width)
      return false;
  return true;
}

bool hypfs_field_widths_match(void) {
  return widths_match(d2fc_fields, NFIELDS(d2fc_fields)) &&
         widths_match(d204_info_fields, NFIELDS(d204_info_fields)) &&
         widths_match(d204_cpu_fields, NFIELDS(d204_cpu_fields)) &&
         widths_match(d204_x_cpu_fields, NFIELDS(d204_x_cpu_fields)) &&
         widths_match(d204_phys_cpu_fields, NFIELDS(d204_phys_cpu_fields));
}
