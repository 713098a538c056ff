/* SPDX-License-Identifier: MIT */
/*
 * hypfs - per-guest (z/VM, DIAG X'2FC') and per-partition (LPAR, DIAG
 * X'204') figures the Linux kernel's hypfs exports: the data model and the
 * pure decoder of the kernel's binary debugfs files.
 *
 * No collectd headers and no I/O here: buffers in, plain structs or counted
 * errors out, never a byte past len. All multi-byte fields are big-endian
 * (s390); names are EBCDIC, formatted with zvm_name_format() so a guest has
 * the same name as in zvm_monitor's values.
 *
 * Layouts (offsets in bytes, sizes in the HYPFS_*_SIZE constants):
 *   Linux kernel arch/s390/hypfs/hypfs_vm.c (struct dbfs_d2fc_hdr, struct
 *   diag2fc_data; newer kernels declare diag2fc_data in hypfs_vm.h, same
 *   layout), arch/s390/hypfs/hypfs_diag.c (struct dbfs_d204_hdr), and
 *   arch/s390/include/asm/diag.h (struct diag204_*; older kernels define
 *   them in hypfs_diag.c as info_blk_hdr, part_hdr, cpu_info, phys_hdr,
 *   phys_cpu and their x_ variants, same layouts). s390-tools hyptop
 *   (dg_debugfs_vm.c, dg_debugfs_lpar.c) reads the same files.
 */
#ifndef HYPFS_HYPFS_H
#define HYPFS_HYPFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/decode.h" /* ZVM_NAME_MAX, zvm_name_format() */

/* ---- DIAG X'2FC' through debugfs s390_hypfs/diag_2fc ------------------ */

/* struct dbfs_d2fc_hdr (packed, 64 bytes), hypfs_vm.c */
#define HYPFS_D2FC_HDR_SIZE 64
#define HYPFS_D2FC_HDR_LEN 0      /* u64 len: bytes after the header */
#define HYPFS_D2FC_HDR_VERSION 8  /* u16 version (DBFS_D2FC_HDR_VERSION 0) */
#define HYPFS_D2FC_HDR_TOD_EXT 10 /* char tod_ext[16]: STORE CLOCK EXTENDED */
#define HYPFS_D2FC_HDR_COUNT 26   /* u64 count: guests in the buffer */
/* struct diag2fc_data (natural alignment, 112 bytes), hypfs_vm.c */
#define HYPFS_D2FC_DATA_SIZE 112

/* One guest as DIAG X'2FC' describes it (struct diag2fc_data). */
struct hypfs_guest {
  char name[ZVM_NAME_MAX]; /* zvm_name_format() of guest_name */
  uint8_t name_ebcdic[8];  /* as delivered */
  uint32_t version;
  uint32_t flags; /* capped = (flags & 6) >> 1, dedicated = (flags & 8) >> 3 */
  uint64_t used_cpu_us; /* used_cpu: CPU time, microseconds */
  uint64_t el_time_us;  /* el_time: time logged on, microseconds */
  uint64_t mem_min_kib, mem_max_kib, mem_share_kib, mem_used_kib;
  uint32_t pcpus, lcpus, vcpus;
  uint32_t ocpus; /* operating (non-stopped) virtual CPUs; cpu_min in
                     older kernels, exported as cpus/weight_min ("got the
                     wrong name", hypfs_vm.c) */
  uint32_t cpu_max, cpu_shares;
  uint32_t cpu_use_samp, cpu_delay_samp, page_wait_samp, idle_samp, other_samp,
      total_samp;
};

static inline unsigned hypfs_guest_capped(const struct hypfs_guest *g) {
  return (g->flags & 0x6u) >> 1;
}
static inline unsigned hypfs_guest_dedicated(const struct hypfs_guest *g) {
  return (g->flags & 0x8u) >> 3;
}

/* Why a buffer was rejected: the reader health counters are per kind. */
enum hypfs_error {
  HYPFS_OK = 0,
  HYPFS_E_SHORT,    /* fewer bytes than the header announces (torn read) */
  HYPFS_E_LONG,     /* more bytes than the header announces */
  HYPFS_E_HEADER,   /* header inconsistent: version, len vs count */
  HYPFS_E_TRUNC,    /* DIAG 204 blocks run past the data */
  HYPFS_E_NAME,     /* a blank name (the entry is skipped, counted) */
  HYPFS_E_TOO_MANY, /* more entries than HYPFS_MAX_ENTRIES */
  HYPFS_E_NOMEM,
  HYPFS_ERROR_KINDS
};
const char *hypfs_error_name(enum hypfs_error e);

/* Bounds on what one buffer may describe: DIAG X'2FC' returns one entry
 * per logged-on guest; far above any z/VM system, far below a hostile
 * count's overflow. */
#define HYPFS_MAX_ENTRIES 1000000u

/* The first entry a snapshot skipped, for the log: its name escaped
 * (hypfs_escape_name()) and why. */
#define HYPFS_SKIP_NAME_MAX 40
struct hypfs_skip {
  char name[HYPFS_SKIP_NAME_MAX];
  const char *why; /* static text, e.g. "a blank name" */
};

struct hypfs_d2fc {
  uint64_t tod_ext_hi, tod_ext_lo; /* the header's 16-byte clock */
  uint32_t lcpus; /* of the first entry (cpus/count); 0 without one */
  size_t records; /* entries in the snapshot, named or not */
  size_t guests_num;
  struct hypfs_guest *guests; /* owned */
  size_t guests_cap;
  unsigned long skipped_names; /* entries with a blank name */
  struct hypfs_skip skipped_first;
};

/* Decode a whole diag_2fc file (header + entries). On success returns
 * HYPFS_OK and fills out (guests replaced; the array is reused). Any error
 * rejects the whole buffer: nothing from it is used. */
enum hypfs_error hypfs_decode_d2fc(const uint8_t *buf, size_t len,
                                   struct hypfs_d2fc *out);
/* Decode only diag2fc_data entries (no debugfs header): len must be a
 * multiple of HYPFS_D2FC_DATA_SIZE. */
enum hypfs_error hypfs_decode_d2fc_entries(const uint8_t *buf, size_t len,
                                           struct hypfs_d2fc *out);
void hypfs_d2fc_free(struct hypfs_d2fc *d);

/* ---- DIAG X'204' through debugfs s390_hypfs/diag_204 ------------------ */

/* struct dbfs_d204_hdr (packed, 64 bytes), hypfs_diag.c */
#define HYPFS_D204_HDR_SIZE 64
#define HYPFS_D204_HDR_LEN 0     /* u64 len: bytes after the header */
#define HYPFS_D204_HDR_VERSION 8 /* u16 version (DBFS_D204_HDR_VERSION 0) */
#define HYPFS_D204_HDR_SC 10     /* u8 subcode used: 4, 6 or 7 */

enum hypfs_d204_format {
  HYPFS_D204_SIMPLE = 0, /* DIAG204_INFO_SIMPLE, subcode 4 */
  HYPFS_D204_EXT = 1,    /* DIAG204_INFO_EXT, subcodes 6 and 7 */
};
/* The format the subcode of the debugfs header (struct dbfs_d204_hdr's
 * sc) stored: DIAG204_SUBC_STIB4 the simple format, DIAG204_SUBC_STIB6
 * and DIAG204_SUBC_STIB7 the extended one (asm/diag.h; hypfs_diag.c's
 * diag204_probe() pairs them so). -1 for any other subcode. */
int hypfs_d204_sc_format(uint8_t sc);

/* asm/diag.h DIAG204_LPAR_PHYS_FLG: physical CPU blocks follow */
#define HYPFS_D204_PHYS_FLG 0x80

struct hypfs_lpar_cpu {
  uint16_t cpu_addr;
  uint8_t ctidx; /* CPU type index (DIAG X'224' name table) */
  uint8_t cflag;
  uint16_t weight;
  uint64_t acc_time;    /* microseconds */
  uint64_t lp_time;     /* microseconds: the partition's CPU time */
  uint64_t online_time; /* extended format only */
  char type[16]; /* hypfs_cpu_type_name(ctidx), or the tree's type file */
};

/* Management time as the hypfs tree's mgmtime (acc_time - lp_time), but
 * 0 where the hypervisor wrote acc_time < lp_time: the kernel subtracts
 * without a sign check; hyptop clamps the same way (G0). */
static inline uint64_t hypfs_lpar_cpu_mgm(const struct hypfs_lpar_cpu *c) {
  return c->acc_time >= c->lp_time ? c->acc_time - c->lp_time : 0;
}

struct hypfs_lpar {
  char name[ZVM_NAME_MAX];
  uint8_t pn;
  uint8_t cpus, rcpus;       /* extended: rcpus blocks follow; simple: cpus */
  size_t cpu_first, cpu_num; /* into hypfs_d204.cpus */
};

struct hypfs_phys_cpu {
  uint16_t cpu_addr;
  uint8_t ctidx;
  uint64_t mgm_time; /* microseconds */
  char type[16];
};

struct hypfs_d204 {
  enum hypfs_d204_format format;
  uint8_t sc; /* debugfs header: subcode (0 when decoded without it) */
  uint8_t flags;
  uint16_t phys_cpus; /* info block header */
  uint16_t this_part;
  uint64_t tod; /* curtod (simple) / curtod1 (extended) */
  size_t lpars_num, lpars_cap;
  struct hypfs_lpar *lpars;
  size_t cpus_num, cpus_cap;
  struct hypfs_lpar_cpu *cpus;
  bool has_phys;
  size_t phys_num, phys_cap;
  struct hypfs_phys_cpu *phys;
  size_t records; /* partitions in the snapshot (npar), named or not */
  unsigned long skipped_names;
  struct hypfs_skip skipped_first;
};

/* Decode a whole diag_204 file: the debugfs header, then the data in the
 * format its subcode names (hypfs_d204_sc_format(); current kernels write
 * only the extended format there). An unknown subcode is HYPFS_E_HEADER. */
enum hypfs_error hypfs_decode_d204(const uint8_t *buf, size_t len,
                                   struct hypfs_d204 *out);
/* Decode a DIAG X'204' buffer in either format, without debugfs header.
 * Bytes after the last block (the rest of the last page) are ignored. */
enum hypfs_error hypfs_decode_d204_data(const uint8_t *buf, size_t len,
                                        enum hypfs_d204_format fmt,
                                        struct hypfs_d204 *out);
void hypfs_d204_free(struct hypfs_d204 *d);

/* Block sizes of asm/diag.h, per format. */
size_t hypfs_d204_info_size(enum hypfs_d204_format f);
size_t hypfs_d204_part_size(enum hypfs_d204_format f);
size_t hypfs_d204_cpu_size(enum hypfs_d204_format f);
size_t hypfs_d204_phys_hdr_size(enum hypfs_d204_format f);
size_t hypfs_d204_phys_cpu_size(enum hypfs_d204_format f);

/* CPU type name for a DIAG X'204' type index, as the plugin names it in
 * identifiers: "cp" (0), "ifl" (3), as s390-tools hyptop
 * (dg_debugfs_lpar.c) maps them without the DIAG X'224' table; any other
 * index "type<N>". */
void hypfs_cpu_type_name(uint8_t ctidx, char *out, size_t out_size);

/* ASCII name as the hypfs tree shows it (the kernel's EBCDIC-to-ASCII of
 * the name, blanks trimmed) -> the name zvm_name_format() gives the EBCDIC
 * bytes. -1 if empty or too long. */
int hypfs_name_from_ascii(const char *ascii, char *out, size_t out_size);

/* Records the first skipped entry of a snapshot (skipped_names still 0):
 * its name, escaped by hypfs_escape_name(), and why. */
void hypfs_skip_note(struct hypfs_skip *s, unsigned long skipped_before,
                     const uint8_t *name, size_t len, bool ebcdic,
                     const char *why);

/* A name for a log line, whatever its bytes: EBCDIC as X'hex' (every
 * byte, blanks too), ASCII with bytes other than A-Z a-z 0-9 @ # $ _ - + .
 * as %XX; always NUL-terminated, "..." where it is cut. */
void hypfs_escape_name(const uint8_t *name, size_t len, bool ebcdic, char *out,
                       size_t out_size);

/* Whether every decoder table field has its destination's width (for the
 * unit tests: the decoder copies values at the field's width). */
bool hypfs_field_widths_match(void);

#endif /* HYPFS_HYPFS_H */
