/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the record engine's descriptors.
 *
 * A monitor record is described by data, not code: one struct
 * zvm_record_desc per (domain, record), built into the plugin (one table
 * per record, copied field by field from IBM's layout, plugin/records/) or
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
 *       .type_name      collectd type of its value list ("zvm_useite";
 *                       collectd naming, see below)
 *     .arrays[]       zvm_array: variable arrays located by count/size/
 *                     offset fields of .main; each entry is an instance
 *                     of the array's own layout (D5R21 CPUTINFO per CPU
 *                     type; APPLDATA per-CPU entries)
 *     .hooks          behaviour that is not a field (hooks.h)
 *
 * collectd naming, kept here because it is each record's own and one
 * record stays one file: a layout's list type (.type_name, "zvm_useite":
 * registered with collectd at start-up, written to the shipped types.db by
 * typesdb.c, owned by one descriptor, which the registry and <Record>
 * blocks check), its plugin (.plugin, NULL for all but tests), where its
 * instance's values go (.host: a guest's own values, APPLDATA), whether it
 * always goes out one value per list (.one_value_per_list) and a field's
 * type and type instance then (.single_type, .single_type_instance,
 * D5R21's "threads"). The engine only stores and checks them (a type name
 * is a valid name, a layout with values has a type or goes out one value
 * per list); the mapper's naming module (plugin/mapper/cdname.c) makes
 * collectd's identifiers from them, and every other name a descriptor
 * gives (IBM names, data source names, key parts) is no front end's.
 *
 * Offsets are from the start of the record (the 20-byte MRHDR included),
 * as IBM prints them; array entry offsets are from the entry's start. A
 * record shorter than its table yields only the fields it fully contains;
 * a longer one (newer z/VM) yields the known part.
 *
 * This header is the model only. Beside it: registry.h (descriptors by
 * domain and record), field.h (reading fields from bytes), typesdb.h (a
 * layout's data sources and types.db line), recwalk.h (walking a set with
 * a registry); inside the engine: engine/table.h (ZVM_FIELD rows),
 * engine/check.h (checking a descriptor), engine/walk.h (the per-record
 * check of a walk), engine/hooks.h (behaviour that is not a field).
 */
#ifndef ZVM_MONITOR_RECORDS_H
#define ZVM_MONITOR_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
/* A named bit (or bits) of a flag field: the value is 1 if the field's
 * bytes AND .mask are not zero, else 0 (a gauge). */
#define ZVM_FIELD_MASK 0x10

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
  /* Element names: metric + elem_prefix + index; NULL: "_". The row
   * declares its own (D4R10's dispatch queues: "_q", vmdcprmd_q0). */
  const char *elem_prefix;
  /* collectd naming (above: kept in the row beside its field; cdname.c
   * reads it): the type of the value with OneValuePerList (one value per
   * list, type instance = metric): NULL means "derive" for counters and
   * "gauge" for gauges; D5R21 uses "threads". */
  const char *single_type;
  /* collectd naming: type instance with OneValuePerList when it differs
   * from metric (NULL: metric). */
  const char *single_type_instance;
  uint64_t mask; /* ZVM_FIELD_MASK: the bits */
};

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
  ZVM_KEY_HEX,      /* unsigned number in upper-case hexadecimal, two
                       digits per byte of the field (device number 0A00) */
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

/* Where an instance's value list goes (collectd naming, above: whether
 * the instance is a guest's own; cdname.c). */
enum zvm_host_rule {
  ZVM_HOST_DAEMON = 0, /* collectd's Hostname; GuestsAsHosts applies to a
                          USERID key */
  ZVM_HOST_GUEST,      /* always host = the USERID part in lower case,
                          plugin_instance = the remaining parts (APPLDATA) */
};

/* One kind of instance: the record itself, or one array entry. */
struct zvm_layout {
  /* collectd naming (above): the type of the instance's value list; its
   * data sources are the dispatched fields' element names in field order
   * ("zvm_useite"). */
  const char *type_name;
  const char *plugin; /* collectd naming: NULL: "zvm_monitor" */
  struct zvm_key key;
  enum zvm_host_rule host;
  /* collectd naming: always one value per list with the single_type
   * naming (a <Record> block with more data sources than a list holds). */
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

/* Options of the plugin's block a record's hooks read (base/option.h): a
 * record carries its own rows, and the configuration applies a key none
 * of its own rows knows to them. A registry gives every descriptor it
 * holds with options its own struct of them (size bytes, init's
 * defaults) as hook_data (registry.h). */
struct zvm_option;
struct zvm_record_options {
  const struct zvm_option *rows;
  size_t nrows;
  size_t size;              /* of the struct the rows set */
  void (*init)(void *opts); /* its defaults */
  /* Whether an option was given (not only defaults): the configuration
   * requires the record's domain then. */
  bool (*given)(const void *opts);
};

struct zvm_record_desc {
  uint8_t domain;
  uint16_t number;
  const char *ibm_name;   /* e.g. "MRUSEITE" */
  const char *title;      /* IBM descriptive name */
  const char *zvm_level;  /* z/VM level the layout is copied from */
  const char *source;     /* URL of the IBM page the layout comes from */
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
  /* Its options (above); NULL: none. */
  const struct zvm_record_options *options;
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

#endif /* ZVM_MONITOR_RECORDS_H */
