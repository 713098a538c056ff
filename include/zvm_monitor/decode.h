/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - pure decoder for data sets read from /dev/monreader.
 *
 * A data set is what the device delivers between two 0-byte reads:
 *   MCE(12) records... [MCE(12) records...]*
 * Nothing here does I/O or knows about collectd: give it (buf, len) and it
 * yields records or counts what it rejected. It never reads past len.
 */
#ifndef ZVM_MONITOR_DECODE_H
#define ZVM_MONITOR_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZVM_MCE_LEN 12
#define ZVM_MRHDR_LEN 20
#define ZVM_FRAME_SIZE 4096u

/* MCE byte 0: kind of record set (EBCDIC 'S' / 'E'). */
#define ZVM_MCE_SAMPLE 0xE2
#define ZVM_MCE_EVENT 0xC5

/* TOD clock value of 1970-01-01 00:00:00 UTC (bit 51 = 1 microsecond). */
#define ZVM_TOD_UNIX_EPOCH UINT64_C(0x7D91048BCA000000)

enum zvm_domain {
  ZVM_DOMAIN_SYSTEM = 0,
  ZVM_DOMAIN_MONITOR = 1,
  ZVM_DOMAIN_SCHEDULER = 2,
  ZVM_DOMAIN_STORAGE = 3,
  ZVM_DOMAIN_USER = 4,
  ZVM_DOMAIN_PROCESSOR = 5,
  ZVM_DOMAIN_IO = 6,
  ZVM_DOMAIN_SEEK = 7,
  ZVM_DOMAIN_VIRTUAL_NETWORK = 8,
  ZVM_DOMAIN_ISFC = 9,
  ZVM_DOMAIN_APPLDATA = 10,
  ZVM_DOMAIN_SSI = 11,
  ZVM_DOMAIN_COUNT = 16 /* the MCE mask has room for 16 domains */
};

/* Monitor-domain records the walker itself understands. */
#define ZVM_MTR_INTERVAL_END 11 /* D1R11 MRMTREND */
#define ZVM_MTR_END_OF_FRAME 13 /* D1R13 MRMTREOF */

/*
 * Domain masks use the MCE's own bit order: byte 1 holds domains 0-7
 * (X'80' = domain 0), byte 2 domains 8-15, read together as one
 * big-endian 16-bit value. So domain d is bit (0x8000 >> d).
 */
typedef uint16_t zvm_domain_mask_t;
#define ZVM_DOMAIN_BIT(d) ((zvm_domain_mask_t)(0x8000u >> (d)))
#define ZVM_DOMAINS_ALL ((zvm_domain_mask_t)0xFFFFu)

/* Name of a domain ("user", "i/o", ...) or NULL if it has no name. */
const char *zvm_domain_name(unsigned domain);
/* Domain number for a name (case-insensitive) or a decimal number 0-15;
 * -1 if neither. */
int zvm_domain_from_name(const char *name);

struct zvm_mce {
  uint8_t type;              /* ZVM_MCE_SAMPLE, ZVM_MCE_EVENT or other */
  zvm_domain_mask_t domains; /* bytes 1-2 */
  uint32_t start;            /* DCSS address of the first record byte */
  uint32_t end;              /* DCSS address of the last byte (inclusive) */
};

enum zvm_mce_status {
  ZVM_MCE_OK = 0,
  ZVM_MCE_TRUNCATED,  /* fewer than 12 bytes left */
  ZVM_MCE_BAD_TYPE,   /* type byte is zero */
  ZVM_MCE_NO_DOMAINS, /* both domain mask bytes are zero */
  ZVM_MCE_BAD_RANGE,  /* end <= start */
  ZVM_MCE_SHORT_DATA, /* the set holds fewer record bytes than it claims */
};

/* Parse and validate the 12 bytes at buf (len bytes available), as the
 * kernel driver's mon_check_mca() does for what user space can see. */
enum zvm_mce_status zvm_mce_parse(const uint8_t *buf, size_t len,
                                  struct zvm_mce *out);

/* Size in bytes of the record set an MCE describes. */
static inline uint64_t zvm_mce_records_len(const struct zvm_mce *mce) {
  return (uint64_t)mce->end - mce->start + 1;
}

/* One record inside a data set; data points into the caller's buffer and
 * includes the 20-byte header, so layout offsets apply to data directly. */
struct zvm_record {
  const uint8_t *data;
  uint16_t len; /* MRHDRLEN, >= 20 */
  uint8_t domain;
  uint16_t number;
  uint64_t tod;       /* MRHDRTOD */
  uint32_t addr;      /* DCSS address of the record */
  struct zvm_mce mce; /* the MCE of its record set (a copy) */
};

/* What one walk over a set counted; add these to long-running totals. */
struct zvm_walk_stats {
  uint64_t record_sets;   /* MCEs accepted */
  uint64_t mce_rejected;  /* MCEs rejected (the rest of the set is skipped);
                             an empty set counts one: the driver rejected
                             its MCA */
  uint64_t records;       /* records with a valid header (incl. D1R11/13) */
  uint64_t malformed;     /* records with a bad header (rest of record set
                             skipped) */
  uint64_t filtered;      /* valid records not yielded: domain not selected */
  uint64_t end_of_frame;  /* D1R13 records */
  uint64_t interval_end;  /* D1R11 records */
  uint64_t padding_bytes; /* frame bytes skipped after D1R13 */
};

struct zvm_walk {
  const uint8_t *buf;
  size_t len;
  size_t pos;      /* next MCE, or next record while in a record set */
  size_t rs_begin; /* offset of the current record set's first byte */
  size_t rs_end;   /* offset one past its last byte */
  bool in_record_set;
  bool done;
  zvm_domain_mask_t select; /* domains whose records are yielded */
  bool set_selected;        /* current MCE mask intersects select */
  struct zvm_mce mce;
  struct zvm_walk_stats stats;
};

/* Start walking a complete data set. select: domains to yield
 * (ZVM_DOMAINS_ALL for all); other records are only counted. */
void zvm_walk_init(struct zvm_walk *w, const uint8_t *buf, size_t len,
                   zvm_domain_mask_t select);

/* Next selected record: true and *rec filled, or false at the end of the
 * set. Bad data is counted in w->stats and never read past. */
bool zvm_walk_next(struct zvm_walk *w, struct zvm_record *rec);

/* Add a walk's counts to running totals. */
void zvm_walk_stats_add(struct zvm_walk_stats *total,
                        const struct zvm_walk_stats *add);

/* TOD clock or CPU timer units (bit 51 = 1 microsecond) -> microseconds. */
static inline uint64_t zvm_timer_to_us(uint64_t timer) { return timer >> 12; }

/* TOD clock value -> microseconds since the Unix epoch. Returns false (and
 * leaves *us alone) for a TOD before 1970, which no monitor record has. Inline:
 * it runs for every record. */
static inline bool zvm_tod_to_unix_us(uint64_t tod, uint64_t *us) {
  if (tod < ZVM_TOD_UNIX_EPOCH)
    return false;
  *us = zvm_timer_to_us(tod - ZVM_TOD_UNIX_EPOCH);
  return true;
}

/* EBCDIC code page 037 -> ISO-8859-1. */
uint8_t zvm_ebcdic_to_latin1(uint8_t c);

/*
 * Format an 8-byte EBCDIC user ID (or any blank-padded EBCDIC name) as a
 * string that is safe in a collectd identifier and every writer's naming:
 * trailing EBCDIC blanks (and NULs) are trimmed; A-Z 0-9 @ # $ _ - + are
 * kept; any other byte becomes "%XX" (its EBCDIC hex value), so distinct
 * IDs stay distinct and no byte from the data can inject a separator.
 * Returns the string length, or -1 (and out = "" if out_size > 0) if the
 * name is empty after trimming or does not fit into out_size (which
 * includes the terminating NUL; 3 * len + 1 always fits).
 */
#define ZVM_EBCDIC_BLANK 0x40

/* 8 name bytes (big-endian in v) as a key: trailing NULs become blanks,
 * so equal keys <=> equal zvm_name_format() names; false if the name is
 * blank. */
static inline bool zvm_text_key8(uint64_t v, uint64_t *key) {
  for (unsigned i = 0; i < 8; i++) {
    uint64_t byte = (v >> (8 * i)) & 0xFF;
    if (byte != ZVM_EBCDIC_BLANK && byte != 0x00) {
      *key = v;
      return true;
    }
    v |= (uint64_t)ZVM_EBCDIC_BLANK << (8 * i);
  }
  return false;
}

/* The same for an EBCDIC name of at most 8 bytes (a user ID), blank
 * padded. */
bool zvm_name_key(const uint8_t *ebcdic, size_t width, uint64_t *key);

int zvm_name_format(const uint8_t *ebcdic, size_t len, char *out,
                    size_t out_size);

/*
 * Identifiers too long for collectd's names, shortened the same way by
 * every part of the plugins: a readable prefix, "~" and eight lower-case
 * hex digits of the 32-bit FNV-1a hash of the whole name, so that two
 * names that differ only past the cut still differ.
 *
 * out holds n characters (n < out_size: the first characters of the
 * name, escaped; a caller may stop writing where the next piece would not
 * fit). The result keeps at most out_size - 1 - ZVM_ID_HASH_LEN of them,
 * never ending inside a "%XX" escape, then the suffix; whole/whole_len is
 * what the hash covers (the raw name: bytes as written by their source,
 * or the complete formatted name; it may overlap out). Returns the new
 * length; out_size below ZVM_ID_HASH_LEN + 1 gives "" (0).
 */
#define ZVM_ID_HASH_LEN 9 /* "~" + 8 hex digits */
size_t zvm_id_shorten(char *out, size_t n, size_t out_size, const void *whole,
                      size_t whole_len);
/* A NUL-terminated name in a buffer of size bytes that is to fit limit
 * bytes (NUL included): shortened by zvm_id_shorten() with the hash of
 * the whole name if it is longer. Returns its length. */
size_t zvm_id_fit(char *name, size_t limit);

#define ZVM_USERID_LEN 8
#define ZVM_NAME_MAX (3 * ZVM_USERID_LEN + 1)

/* The largest leap-second offset accepted, configured or estimated: STP
 * leap-second offsets are whole seconds, today 27 (TAI - UTC - 10). */
#define ZVM_LEAP_MAX_S 60

#endif /* ZVM_MONITOR_DECODE_H */
