/*
 * zvm_monitor - record descriptor tables.
 *
 * One table per monitor record, copied field by field from IBM's layout
 * (the seed documents). Tables are data: offsets are from the start of the
 * record (the 20-byte MRHDR included), as IBM prints them. A record shorter
 * than its table yields only the fields it fully contains; a longer one
 * (newer z/VM) yields the known part.
 */
#ifndef ZVM_MONITOR_RECORDS_H
#define ZVM_MONITOR_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/decode.h"

enum zvm_field_kind {
  ZVM_FIELD_COUNTER, /* a count that only grows (dispatched as derive) */
  ZVM_FIELD_GAUGE,   /* a current quantity or level */
  ZVM_FIELD_ID,      /* binary identifier (processor address, CPU type) */
  ZVM_FIELD_TEXT,    /* EBCDIC character field (user ID, name) */
  ZVM_FIELD_FLAGS,   /* bit string */
  ZVM_FIELD_CODE,    /* enumerated state code */
  ZVM_FIELD_LAYOUT,  /* locates other data in the record (array count...) */
};

struct zvm_field {
  const char *ibm_name; /* e.g. "USEITE_HFCPURN" */
  const char *metric;   /* lower-case name without the record prefix */
  uint16_t offset;      /* from the record (or array entry) start */
  uint8_t width;        /* bytes per element: 1, 2, 4 or 8 (TEXT: length) */
  uint8_t count;        /* elements (1, or the IBM dimension) */
  bool is_signed;       /* IBM type "Signed" */
  enum zvm_field_kind kind;
};

/* A variable array inside a record located by count/size/offset fields of
 * the record itself (e.g. PRCSMT_CPUTINFO). */
struct zvm_array {
  const char *ibm_name;
  const struct zvm_field *count_field;  /* number of entries */
  const struct zvm_field *size_field;   /* bytes per entry */
  const struct zvm_field *offset_field; /* offset of entry 0 in the record */
  const struct zvm_field *fields;       /* layout of one entry */
  size_t nfields;
  uint16_t entry_len; /* entry size in the source layout */
};

struct zvm_record_desc {
  uint8_t domain;
  uint16_t number;
  const char *ibm_name;  /* e.g. "MRUSEITE" */
  const char *title;     /* IBM descriptive name */
  const char *zvm_level; /* z/VM level the layout is copied from */
  const char *source;    /* seed document the layout comes from */
  uint16_t length;       /* record length at that level (fixed part) */
  const struct zvm_field *fields;
  size_t nfields;
  const struct zvm_array *array; /* NULL if none */
};

/* The tables. */
extern const struct zvm_record_desc zvm_rec_mtrend; /* D1R11 */
extern const struct zvm_record_desc zvm_rec_mtreof; /* D1R13 */
extern const struct zvm_record_desc zvm_rec_useite; /* D4R10 */
extern const struct zvm_record_desc zvm_rec_prcsmt; /* D5R21 */

/* Named fields the mapper needs directly. */
extern const struct zvm_field *const zvm_useite_vmduser;
extern const struct zvm_field *const zvm_useite_vmdputyp;
extern const struct zvm_field *const zvm_prcsmt_rccsmtsq;
extern const struct zvm_field *const zvm_prcsmt_cal_status;
extern const struct zvm_field *const zvm_prcsmt_calmaxtc;
extern const struct zvm_field *const zvm_prcsmt_rcccoall;
extern const struct zvm_field *const zvm_prcsmt_rccsmall;
extern const struct zvm_field *const zvm_prcsmt_rccsmset;
extern const struct zvm_field *const zvm_cputinfo_rcccomnt;
extern const struct zvm_field *const zvm_cputinfo_rccsmmnt;
extern const struct zvm_field *const zvm_cputinfo_cputype;
extern const struct zvm_field *const zvm_cputinfo_rccacmnt;
extern const struct zvm_field *const zvm_cputinfo_rcccrmnt;
extern const struct zvm_field *const zvm_cputinfo_rcchwmnt;
extern const struct zvm_field *const zvm_cputinfo_rccsymnt;

/* PRCSMT_CAL_STATUS flags. */
#define ZVM_PRCSMT_CAL_START 0x80
#define ZVM_PRCSMT_CAL_END 0x40
/* PRCSMT_RCCSMSET: SET MULTITHREAD INITIAL was specified. */
#define ZVM_PRCSMT_RCCSMINI 0x80
/* A thread count of X'FF': MAX was specified (seed 004). */
#define ZVM_PRCSMT_THREADS_MAX 0xFF

/* CPU type codes (USEITE_VMDPUTYP, PRCSMT_CAL_CPUTYPE). */
#define ZVM_CPU_CP 0x00
#define ZVM_CPU_ZAAP 0x02
#define ZVM_CPU_IFL 0x03
#define ZVM_CPU_ICF 0x04
#define ZVM_CPU_ZIIP 0x05

/* "cp", "zaap", "ifl", "icf", "ziip", or NULL for other codes. */
const char *zvm_cpu_type_name(uint8_t type);

/* Table for a record, or NULL if the record is not decoded. O(1). */
const struct zvm_record_desc *zvm_record_find(uint8_t domain, uint16_t number);

/* All tables, for iteration (tests, documentation). */
extern const struct zvm_record_desc *const zvm_record_tables[];
extern const size_t zvm_record_table_count;

/* True if element idx of field f lies fully inside len bytes. */
bool zvm_field_present(const struct zvm_field *f, size_t len, unsigned idx);

/* Element idx of a numeric field (false if absent or not numeric). */
bool zvm_field_u64(const struct zvm_field *f, const uint8_t *data, size_t len,
                   unsigned idx, uint64_t *out);
bool zvm_field_i64(const struct zvm_field *f, const uint8_t *data, size_t len,
                   unsigned idx, int64_t *out);

enum zvm_array_status {
  ZVM_ARRAY_OK = 0,
  ZVM_ARRAY_ABSENT, /* record too short to hold the locating fields */
  ZVM_ARRAY_BAD,    /* zero entry size, or entries outside the record */
};

struct zvm_array_view {
  const uint8_t *base; /* entry 0 */
  size_t count;
  size_t entry_size;
};

/* Locate a record's array, checking every entry lies inside rec_len. A
 * count of 0 is OK (no entries). */
enum zvm_array_status zvm_array_locate(const struct zvm_array *a,
                                       const uint8_t *rec, size_t rec_len,
                                       struct zvm_array_view *view);

static inline const uint8_t *zvm_array_entry(const struct zvm_array_view *v,
                                             size_t i) {
  return v->base + i * v->entry_size;
}

/*
 * Walk a complete data set and hand every selected record that has a table
 * to cb. Unknown records are skipped by their length and counted; a record
 * whose array does not fit inside it is counted (array_rejected) and still
 * handed to cb, whose zvm_array_locate() then says ZVM_ARRAY_BAD.
 */
struct zvm_decode_stats {
  struct zvm_walk_stats walk;
  uint64_t unknown;        /* valid records without a table */
  uint64_t array_rejected; /* records whose array lies outside them
                              (their fixed part is still used) */
};

typedef void (*zvm_record_cb)(const struct zvm_record *rec,
                              const struct zvm_record_desc *desc, void *ctx);

void zvm_decode_set(const uint8_t *buf, size_t len, zvm_domain_mask_t select,
                    zvm_record_cb cb, void *ctx,
                    struct zvm_decode_stats *stats);

#endif /* ZVM_MONITOR_RECORDS_H */
