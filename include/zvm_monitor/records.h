/*
 * zvm_monitor - the record engine's descriptors.
 *
 * A monitor record is described by data, not code: one struct
 * zvm_record_desc per (domain, record), built into the plugin (one table
 * per record, copied field by field from IBM's layout, records.c) or
 * built at run time (<Record> blocks in collectd.conf). Nothing here needs
 * static storage or compile-time constants: a descriptor is plain structs
 * and strings, and a registry (struct zvm_registry) holds the built-in and
 * the user-defined ones with O(1) lookup by domain and record.
 *
 * Shape of a descriptor:
 *
 *   zvm_record_desc   domain/record, IBM name, title, source, z/VM level
 *     .main           zvm_layout: the record's own instance
 *       .key            how the instance is found and named (user ID, ...)
 *       .fields[]       offset, width, type, kind, scale, element count
 *       .type_name      collectd type of its value list ("zvm_useite")
 *     .arrays[]       zvm_array: variable arrays located by count/size/
 *                     offset fields of .main; each entry is an instance
 *                     of the array's own layout (D5R21 CPUTINFO per CPU
 *                     type; APPLDATA per-CPU entries)
 *     .hooks          behaviour that is not a field (hooks.h)
 *
 * Offsets are from the start of the record (the 20-byte MRHDR included),
 * as IBM prints them; array entry offsets are from the entry's start. A
 * record shorter than its table yields only the fields it fully contains;
 * a longer one (newer z/VM) yields the known part.
 */
#ifndef ZVM_MONITOR_RECORDS_H
#define ZVM_MONITOR_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/decode.h"
#include "zvm_monitor/util.h"

/* ------------------------------------------------------------------------
 * Fields.
 */

/* What a field is, and whether it is dispatched. COUNTER and GAUGE are
 * dispatched (data source DERIVE resp. GAUGE); every other kind is not,
 * and only says for readers what the bytes are. */
enum zvm_field_kind {
  ZVM_FIELD_COUNTER, /* a count that only grows (dispatched as derive) */
  ZVM_FIELD_GAUGE,   /* a current quantity or level */
  ZVM_FIELD_ID,      /* binary identifier (processor address, CPU type) */
  ZVM_FIELD_TEXT,    /* EBCDIC character field (user ID, name) */
  ZVM_FIELD_FLAGS,   /* bit string */
  ZVM_FIELD_CODE,    /* enumerated state code */
  ZVM_FIELD_LAYOUT,  /* locates other data in the record (array count...) */
  ZVM_FIELD_NONE,    /* not dispatched, no further meaning (<Record>) */
};

/* How the bytes are read. Integer types are big-endian, width 1, 2, 4 or
 * 8. TOD and CPU-timer fields are 8 bytes with bit 51 = 1 microsecond:
 * a TOD is turned into seconds since the Unix epoch (gauge), a CPU timer
 * into microseconds (counter or gauge); then .scale applies. */
enum zvm_field_type {
  ZVM_TYPE_UNSIGNED = 0,
  ZVM_TYPE_SIGNED,
  ZVM_TYPE_TOD,
  ZVM_TYPE_CPU_TIMER,
  ZVM_TYPE_EBCDIC, /* text of .width bytes; never a value, only a key */
  /* Not in the bytes: the number of records seen for the instance since
   * start (D4R10 "transactions"). offset/width unused. */
  ZVM_TYPE_RECORD_COUNT,
};

/* zvm_field.flags */
/* The field counts down (SYTPRP_PFXPRBTM starts near X'7FFF...' and
 * decreases): an 8-byte unsigned or CPU-timer field is dispatched as
 * X'7FFFFFFFFFFFFFFF' minus its value (what was used since), any other
 * negated; either way its rate is positive. */
#define ZVM_FIELD_DECREMENTS 0x01
/* A thread count where X'FF' means MAX was specified (IBM MRPRCSMT, z/VM
 * V6R4.0): X'FF' is dispatched as NaN, never as the number 255. */
#define ZVM_FIELD_FF_IS_MAX 0x02
/* The value is 1 if the field's byte is X'FF' (MAX), else 0: the flag
 * next to a ZVM_FIELD_FF_IS_MAX count (bool-<name>_is_max). */
#define ZVM_FIELD_MAX_FLAG 0x04
/* The value is the top bit (X'80') of the field's first byte: 1 or 0. */
#define ZVM_FIELD_TOP_BIT 0x08

struct zvm_field {
  const char *ibm_name; /* e.g. "USEITE_HFCPURN" */
  /* Data source name (and type instance with OneValuePerList), lower
   * case, without the record prefix: "hfcpurn". Array elements append
   * elem_prefix and the index: "vmdcprmd_q0". */
  const char *metric;
  uint16_t offset; /* from the record (or array entry) start */
  uint8_t width;   /* bytes per element: 1, 2, 4 or 8 (EBCDIC: length) */
  uint8_t count;   /* elements (1, or the IBM dimension) */
  enum zvm_field_type type; /* UNSIGNED, SIGNED (IBM "Signed"), ... */
  enum zvm_field_kind kind;
  uint8_t flags; /* ZVM_FIELD_* */
  double scale;  /* value multiplier; 0 means 1 */
  /* Element names: metric + elem_prefix + index. NULL: "_q" for 4
   * elements (dispatch queues Q0..Q3, IBM MRUSEITE (z/VM V6R2.0)), else "_". */
  const char *elem_prefix;
  /* collectd type of the value with OneValuePerList (one value per list,
   * type instance = metric): NULL means "derive" for counters and "gauge"
   * for gauges; D5R21 uses "threads". */
  const char *single_type;
  /* Type instance with OneValuePerList when it differs from metric
   * (NULL: metric). */
  const char *single_type_instance;
};

/* One field of a built-in table, at its index in the record file's enum
 * (so a hook names it by that index and the compiler keeps them apart):
 *
 *   ZVM_FIELD(USEITE_HFCPURN, "USEITE_HFCPURN", "hfcpurn", 116, 4, 1,
 *             UNSIGNED, COUNTER),
 *
 * index, IBM name, data source name, offset, width, element count, type
 * (ZVM_TYPE_*), kind (ZVM_FIELD_*), then any further member as a
 * designated initializer (.flags, .single_type, ...). */
#define ZVM_FIELD(idx, ibm, name, off, len, n, type_, kind_, ...)              \
  [idx] = {.ibm_name = (ibm),                                                  \
           .metric = (name),                                                   \
           .offset = (off),                                                    \
           .width = (len),                                                     \
           .count = (n),                                                       \
           .type = ZVM_TYPE_##type_,                                           \
           .kind = ZVM_FIELD_##kind_,                                          \
           __VA_ARGS__}

/* Elements in a table. */
#define ZVM_COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* True if the field is dispatched (COUNTER or GAUGE). */
bool zvm_field_dispatched(const struct zvm_field *f);

/* The name of element idx of a dispatched field ("hfcpurn",
 * "vmdcprmd_q2") into buf; its length, or -1 if it does not fit. */
int zvm_field_element_name(const struct zvm_field *f, unsigned idx, char *buf,
                           size_t size);

/* ------------------------------------------------------------------------
 * Instances: how a record (or array entry) names what it is about.
 */
enum zvm_key_kind {
  ZVM_KEY_FIXED,    /* one instance, named .text ("system") */
  ZVM_KEY_USERID,   /* 8-byte EBCDIC user ID (zvm_name_format): UserID
                       selection and GuestsAsHosts apply */
  ZVM_KEY_EBCDIC,   /* other EBCDIC name, <= 8 bytes (zvm_name_format) */
  ZVM_KEY_NUMBER,   /* unsigned number in decimal (processor address) */
  ZVM_KEY_CPU_TYPE, /* CPU type code: "cp", "ifl", ..., else "type<N>" */
};

#define ZVM_KEY_PARTS_MAX 2

struct zvm_key_part {
  enum zvm_key_kind kind;
  int16_t field; /* index into the layout's fields; -1 for FIXED */
  /* FIXED: the name. Other kinds: a prefix written before the part's
   * name (NULL: none), e.g. "_cpu" for a second part. */
  const char *text;
};

/* The instance name is the parts' names concatenated, each after its
 * prefix. nparts 0 means one fixed instance named "" (no instance). */
struct zvm_key {
  uint8_t nparts;
  struct zvm_key_part part[ZVM_KEY_PARTS_MAX];
};

/* A key's value: a part's raw bytes (EBCDIC, big-endian) or number,
 * right-aligned in 64 bits. Equal values <=> equal names. */
struct zvm_key_value {
  uint64_t v[ZVM_KEY_PARTS_MAX];
};

/* Where an instance's value list goes. */
enum zvm_host_rule {
  ZVM_HOST_DAEMON = 0, /* collectd's Hostname; GuestsAsHosts applies to a
                          USERID key */
  ZVM_HOST_GUEST,      /* always host = the USERID part in lower case,
                          plugin_instance = the remaining parts (APPLDATA) */
};

/* One kind of instance: the record itself, or one array entry. */
struct zvm_layout {
  /* collectd type of the instance's value list; its data sources are the
   * dispatched fields' element names in field order ("zvm_useite"). */
  const char *type_name;
  const char *plugin; /* NULL: "zvm_monitor" */
  struct zvm_key key;
  enum zvm_host_rule host;
  /* Always one value per list with the single_type naming (layouts that
   * copy collectd's own plugins, e.g. APPLDATA's "cpu"). */
  bool one_value_per_list;
  const struct zvm_field *fields;
  size_t nfields;
  uint16_t length; /* bytes at the source level (fixed part / entry) */
};

/* A variable array inside a record located by count/size/offset fields of
 * the record itself (e.g. PRCSMT_CPUTINFO). Each entry is an instance of
 * .entry (if .entry.type_name is NULL, entries are not dispatched). The
 * locating fields are fields of the record's main layout. */
struct zvm_array {
  const char *ibm_name;
  const struct zvm_field *count_field;  /* number of entries */
  const struct zvm_field *size_field;   /* bytes per entry */
  const struct zvm_field *offset_field; /* offset of entry 0 in the record */
  /* One entry: its fields (offsets from the entry start), its instance
   * key and type; .length is the entry size in the source layout. */
  struct zvm_layout entry;
};

struct zvm_record_hooks; /* hooks.h */

struct zvm_record_desc {
  uint8_t domain;
  uint16_t number;
  const char *ibm_name;   /* e.g. "MRUSEITE" */
  const char *title;      /* IBM descriptive name */
  const char *zvm_level;  /* z/VM level the layout is copied from */
  const char *source;     /* seed document / URL the layout comes from */
  uint16_t length;        /* record length at that level (fixed part) */
  struct zvm_layout main; /* the record's fields, key and type */
  const struct zvm_array *arrays; /* variable arrays; NULL if none */
  size_t narrays;
  const struct zvm_record_hooks *hooks; /* NULL: fields only (hooks.h) */
  void *hook_data;                      /* for the hooks' own use */
  bool user_defined;                    /* from a <Record> block */
  /* With ReportByVirtualCPU true the record is also mapped with this
   * descriptor (its main layout only, its own hooks): D4R10 per VMDBK,
   * keyed by user ID and VMDCPUAD. NULL: none. */
  const struct zvm_record_desc *per_cpu_view;
  /* Offsets are from a window a select hook hands out (hooks.h, e.g.
   * APPLDATA's data area), not from the record: the 20-byte header rule
   * of zvm_record_check() does not apply. */
  bool window;
};

/* ------------------------------------------------------------------------
 * CPU types (instance names of ZVM_KEY_CPU_TYPE).
 */
/* CPU type codes (USEITE_VMDPUTYP, PRCSMT_CAL_CPUTYPE). */
#define ZVM_CPU_CP 0x00
#define ZVM_CPU_ZAAP 0x02
#define ZVM_CPU_IFL 0x03
#define ZVM_CPU_ICF 0x04
#define ZVM_CPU_ZIIP 0x05

/* "cp", "zaap", "ifl", "icf", "ziip", or NULL for other codes. */
const char *zvm_cpu_type_name(uint8_t type);

/* (zvm_format_error(), the error convention of the checks: util.h) */

/* ------------------------------------------------------------------------
 * Checking a descriptor (built-in tables in a unit test, <Record> blocks
 * at start-up): offsets/widths plausible, no field in the 20-byte header
 * unless it is a key or layout field, types and widths compatible, names
 * non-empty and valid collectd names ([A-Za-z0-9_], < 64 bytes), no
 * duplicate data source names, keys pointing at suitable fields, arrays'
 * locating fields inside the fixed part. 0, or -1 with a one-line reason.
 */
int zvm_record_check(const struct zvm_record_desc *d, char *err,
                     size_t err_size);

/* ------------------------------------------------------------------------
 * Registry: built-in and user-defined descriptors, O(1) by (domain,
 * record). Not thread-safe; built at configuration time, then read-only.
 */
struct zvm_registry;

/* An empty registry; NULL if out of memory. */
struct zvm_registry *zvm_registry_create(void);
/* (Every built-in descriptor: zvm_registry_add_builtins(), builtin.h.) */
/* Frees the registry and the descriptors it owns. */
void zvm_registry_destroy(struct zvm_registry *r);

/* Add d (checked with zvm_record_check first). If a descriptor for the
 * same (domain, record) exists: replace it if replace is true, else fail.
 * A type name already used by another record fails. If free_desc is not
 * NULL the registry owns d and calls free_desc(d) when it is replaced or
 * the registry destroyed (also when adding fails). 0, or -1 with a
 * one-line reason in err. */
int zvm_registry_add(struct zvm_registry *r, const struct zvm_record_desc *d,
                     bool replace,
                     void (*free_desc)(const struct zvm_record_desc *d),
                     char *err, size_t err_size);

const struct zvm_record_desc *zvm_registry_find(const struct zvm_registry *r,
                                                uint8_t domain,
                                                uint16_t number);
/* Iteration in the order of addition. */
size_t zvm_registry_count(const struct zvm_registry *r);
const struct zvm_record_desc *zvm_registry_at(const struct zvm_registry *r,
                                              size_t i);

/* ------------------------------------------------------------------------
 * Data sources of a layout's value list (plugin_register_data_set, the
 * generated types.db).
 */
enum zvm_ds_type { ZVM_DS_DERIVE, ZVM_DS_GAUGE };

/* Most data sources in one value list (zvm_record_check() enforces it). */
#define ZVM_LAYOUT_DS_MAX 256

struct zvm_ds {
  char name[64]; /* element name */
  enum zvm_ds_type type;
  double min, max; /* NAN = unknown ("U") */
};

/* The data sources of l's value list, in order: every dispatched field
 * element, in field order. Writes at most max entries to ds and returns
 * the total number. */
size_t zvm_layout_data_sources(const struct zvm_layout *l, struct zvm_ds *ds,
                               size_t max);

/* One types.db line for l ("zvm_useite\ttransactions:DERIVE:0:U, ...")
 * into buf; its length, or -1 if it does not fit or l has no type. */
int zvm_layout_types_db_line(const struct zvm_layout *l, char *buf,
                             size_t size);

/* ------------------------------------------------------------------------
 * Field access (the one set of readers; every length checked).
 */

/* True if element idx of field f lies fully inside len bytes. */
bool zvm_field_present(const struct zvm_field *f, size_t len, unsigned idx);

/* Element idx of a numeric field, raw (false if absent or not numeric). */
bool zvm_field_u64(const struct zvm_field *f, const uint8_t *data, size_t len,
                   unsigned idx, uint64_t *out);
bool zvm_field_i64(const struct zvm_field *f, const uint8_t *data, size_t len,
                   unsigned idx, int64_t *out);

/* Element idx as the value dispatched: TOD/CPU-timer conversion, sign,
 * DECREMENTS and scale applied. Counters give *derive, gauges *gauge.
 * False if absent, not dispatched, or not representable. */
bool zvm_field_value(const struct zvm_field *f, const uint8_t *data, size_t len,
                     unsigned idx, int64_t *derive, double *gauge);

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

/* zvm_record_accept()'s check of d's arrays (d->narrays > 0). */
void zvm_record_check_arrays(const struct zvm_record_desc *d,
                             const struct zvm_record *rec,
                             struct zvm_decode_stats *stats);

/* The check zvm_decode_set() applies to every walked record, for callers
 * that walk a set themselves: false (and counted) if d is NULL (unknown
 * record); an array of d outside the record is counted (array_rejected)
 * and the record still accepted (its fixed part is used). Inline: it runs
 * for every record, and most records have no arrays. */
static inline bool zvm_record_accept(const struct zvm_record_desc *d,
                                     const struct zvm_record *rec,
                                     struct zvm_decode_stats *stats) {
  if (d == NULL) {
    stats->unknown++;
    return false;
  }
  if (d->narrays > 0)
    zvm_record_check_arrays(d, rec, stats);
  return true;
}

typedef void (*zvm_record_cb)(const struct zvm_record *rec,
                              const struct zvm_record_desc *desc, void *ctx);

/* With a registry's tables (built-in and user-defined); with the built-in
 * ones only: zvm_decode_set() (builtin.h). */
void zvm_decode_set_with(const struct zvm_registry *r, const uint8_t *buf,
                         size_t len, zvm_domain_mask_t select, zvm_record_cb cb,
                         void *ctx, struct zvm_decode_stats *stats);

#endif /* ZVM_MONITOR_RECORDS_H */
