/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - monitor records defined in collectd.conf (<Record> blocks).
 *
 *   <Record "0/2">
 *     Name "sytprp"
 *     <Field "pfxcpuad">
 *       Offset 20
 *       Length 2
 *       Type "unsigned"
 *       Kind "instance"
 *     </Field>
 *     <Field "pfxutime">
 *       Offset 32
 *       Length 8
 *       Type "cputimer"
 *       Kind "counter"
 *     </Field>
 *   </Record>
 *
 * No collectd headers: the glue walks collectd's oconfig tree and calls the
 * builder below (the fuzz harness does the same from config text). The
 * builder is a small state machine: record_begin, options, field_begin,
 * field options, field_end, ..., record_end. Every mistake is found here,
 * at start-up, with a one-line reason that names the record and field and
 * says what to do. The result is a plain run-time descriptor per record
 * that the record engine decodes with the same bounds checks as its
 * built-in tables.
 */
#ifndef ZVM_MONITOR_RECCONF_H
#define ZVM_MONITOR_RECCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/option.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/records.h"

/* How a field's bytes are read. */
enum zvm_ufield_type {
  ZVM_UTYPE_UNSIGNED, /* big-endian unsigned, 1, 2, 4 or 8 bytes */
  ZVM_UTYPE_SIGNED,   /* big-endian two's complement, 1, 2, 4 or 8 bytes */
  ZVM_UTYPE_CPUTIMER, /* 8 bytes, CPU-timer format (bit 51 = 1 us): us */
  ZVM_UTYPE_TOD,      /* 8 bytes, TOD clock: Unix seconds (gauge only) */
  ZVM_UTYPE_EBCDIC,   /* EBCDIC text, 1-8 bytes (instance only) */
  ZVM_UTYPE_USERID,   /* 8-byte EBCDIC user ID (instance only): UserID
                         selection and GuestsAsHosts apply */
  ZVM_UTYPE_RECORDS,  /* not in the bytes: the instance's records (with a
                         processor field: its base VMDBK's); counter only,
                         no Offset or Length */
};

/* What a field becomes. */
enum zvm_ufield_kind {
  ZVM_UKIND_COUNTER,  /* DERIVE data source */
  ZVM_UKIND_GAUGE,    /* GAUGE data source */
  ZVM_UKIND_INSTANCE, /* names the record instance (plugin_instance) */
  /* The record is written per virtual processor (VMDBK) of the guest the
   * userid instance field names: its counters are summed per guest over
   * the VMDBKs, as D4R10's (engine/vmdbk.h). Unsigned, 1 or 2 bytes. */
  ZVM_UKIND_PROCESSOR,
  /* With a processor field: set (Mask) on the base VMDBK's records, whose
   * gauges and record count the guest's are. Unsigned. */
  ZVM_UKIND_BASE,
  /* Locates an <Array>: its entry count, entry size or the offset of its
   * first entry (the Array's CountField, SizeField, OffsetField). Not
   * dispatched; unsigned, in the record itself. */
  ZVM_UKIND_LAYOUT,
};

/* AllOnes: a field whose all-ones value (X'FF' of one byte) means MAX was
 * specified (IBM MRPRCSMT, z/VM V6R4.0: thread counts). */
enum zvm_ufield_allones {
  ZVM_UALLONES_NONE = 0,
  ZVM_UALLONES_NAN,  /* the count, NaN when all ones (never 255) */
  ZVM_UALLONES_FLAG, /* 1 when all ones (MAX), else 0 */
};

/* Limits, each with its reason in recconf.c. */
/* A record never crosses a 4 KB frame. */
#define ZVM_RECCONF_MAX_RECORD_LEN ((int)ZVM_FRAME_SIZE)
/* Data sources of one value list (collectd's types.db: 63 per type); a
 * record with more is dispatched one value per list. */
#define ZVM_RECCONF_MAX_DS_LIST 63
#define ZVM_RECCONF_MAX_DS 256     /* data sources of one record */
#define ZVM_RECCONF_MAX_DS_NAME 19 /* rrdtool's limit, the tightest */
/* A block that replaces a built-in record may keep the built-in's own
 * data source names (D5R21's statement_all_is_max has 20): up to
 * collectd's limit for a name (DATA_MAX_NAME_LEN 64, with its NUL). */
#define ZVM_RECCONF_MAX_DS_NAME_LONG 63
#define ZVM_RECCONF_MAX_NAME 27 /* Name: "zvm_" + name fits 32 */
#define ZVM_RECCONF_MAX_INSTANCE_FIELDS 2
#define ZVM_RECCONF_MAX_EBCDIC 8 /* instance keys are up to 8 bytes */
#define ZVM_RECCONF_MAX_COUNT 63
#define ZVM_RECCONF_MAX_RECORDS 64
#define ZVM_RECCONF_MAX_FIELDS 512
#define ZVM_RECCONF_MAX_ELEM_PREFIX 4 /* ElementPrefix: "_q" */
#define ZVM_RECCONF_MAX_PREFIX 16
#define ZVM_RECCONF_MAX_ARRAYS 4 /* <Array> blocks per record */
/* OneValueType: a collectd type name (DATA_MAX_NAME_LEN is 128; types.db
 * names are far shorter). */
#define ZVM_RECCONF_MAX_TYPE_NAME 31

struct zvm_ufield {
  char *name;      /* lower case; data source name (arrays: name_0...) */
  uint16_t offset; /* from the record start, MRHDR included, as IBM prints */
  uint16_t length; /* bytes of one element */
  uint16_t count;  /* elements (1 unless Count) */
  enum zvm_ufield_type type;
  enum zvm_ufield_kind kind;
  double scale;     /* applied after the type's conversion */
  bool counts_down; /* CountsDown: X'7FFF...F' minus the value */
  uint64_t mask;    /* Mask: the value is 1 if (field & mask) != 0; 0: none */
  bool hex;         /* Format hex: an instance number in hexadecimal */
  bool cputype;     /* Format cputype: "cp", "ifl", ..., else "type<N>" */
  enum zvm_ufield_allones allones; /* AllOnes */
  /* OneValueType: collectd type with one value per list ("" : derive for
   * counters, gauge for gauges). */
  char single_type[ZVM_RECCONF_MAX_TYPE_NAME + 1];
  char elem_prefix[ZVM_RECCONF_MAX_ELEM_PREFIX + 1]; /* "_" unless set */
};

/* Whether two fields may share their bytes: named bits of one flag field
 * (Mask), and a MAX flag (AllOnes flag) beside its count, each of the same
 * Offset and Length. */
static inline bool zvm_ufields_share(const struct zvm_ufield *f,
                                     const struct zvm_ufield *o) {
  return f->offset == o->offset && f->length == o->length &&
         ((f->mask != 0 && o->mask != 0) || f->allones == ZVM_UALLONES_FLAG ||
          o->allones == ZVM_UALLONES_FLAG);
}

/* An <Array "name"> block: a variable array of the record located by three
 * of its fields of Kind layout; each entry an instance of its own type
 * zvm_<Name>, its fields' offsets from the entry's start. */
struct zvm_uarray {
  char *label; /* the block's name, lower case (for messages) */
  char *name;  /* Name, lower case */
  char type_name[ZVM_RECCONF_MAX_NAME + 5];
  char *count_field, *size_field, *offset_field; /* names, lower case */
  struct zvm_ufield *fields;
  size_t nfields, cap_fields;
  uint16_t full_len; /* end of the last byte any field covers */
  size_t nds;
  bool one_value_per_list;
};

struct zvm_urecord {
  uint8_t domain;
  uint16_t number;
  char *name;                               /* Name, lower case */
  char type_name[ZVM_RECCONF_MAX_NAME + 5]; /* "zvm_" + name */
  char *instance_prefix;                    /* InstancePrefix, "" if none */
  char *instance_name; /* InstanceName: a fixed instance, NULL if none */
  bool replace;        /* Replace: takes over a built-in */
  struct zvm_ufield *fields;
  size_t nfields, cap_fields;
  uint16_t min_len;  /* end of the first field (offset+length of lowest) */
  uint16_t full_len; /* end of the last byte any field covers */
  size_t nds;        /* data sources (counters and gauges, arrays expanded) */
  /* More than ZVM_RECCONF_MAX_DS_LIST data sources: one value per list
   * (types derive and gauge, type instance the data source), no type
   * zvm_<name>. */
  bool one_value_per_list;
  struct zvm_uarray arrays[ZVM_RECCONF_MAX_ARRAYS];
  size_t narrays;
};

struct zvm_recconf {
  struct zvm_urecord *records;
  size_t nrecords, cap_records;
  /* builder state */
  struct zvm_urecord cur;
  struct zvm_ufield fcur;
  bool in_record, in_field, in_array;
  unsigned given; /* the field's options given: bit i for its row i */
  /* "D/R" of the record being built, for messages; inside an Array
   * block 'D/R" Array "name', so that every message names both. */
  char id[16 + ZVM_RECCONF_MAX_DS_NAME + 16];
  struct zvm_registry *reg;
};

/* reg holds the built-in records: a block for one of them is an error
 * unless it says Replace true, and never allowed for a record without a
 * value-list type (D1R11, D1R13: the data stream's own structure); no
 * block may take a type name of another record. Every complete block is
 * added to reg as a run-time descriptor (zvm_urecord_desc()). reg may be
 * NULL (no built-in records, nothing added); it must outlive rc. */
void zvm_recconf_init(struct zvm_recconf *rc, struct zvm_registry *reg);
void zvm_recconf_free(struct zvm_recconf *rc);

/* The option row (base/option.h) of key at the current level (inside a
 * Record or a Field), or NULL; names case-insensitive, as collectd matches
 * them. Its kind is the value the option takes; ZVM_OPTION_BLOCK is
 * <Field "name"> inside <Record> or <Array> and <Array "name"> inside
 * <Record> (zvm_recconf_block_begin). */
const struct zvm_option *zvm_recconf_option(const struct zvm_recconf *rc,
                                            const char *key);

/* Every call returns 0, or -1 with a one-line reason in err (which names
 * the record and the field). A record whose block failed is not added;
 * the next zvm_recconf_record_begin() forgets it and starts afresh. */
int zvm_recconf_record_begin(struct zvm_recconf *rc, const char *id, char *err,
                             size_t err_size);
int zvm_recconf_field_begin(struct zvm_recconf *rc, const char *name, char *err,
                            size_t err_size);
/* <Array "name"> inside a Record block, ended by zvm_recconf_array_end;
 * its options and <Field> blocks in between. */
int zvm_recconf_array_begin(struct zvm_recconf *rc, const char *name, char *err,
                            size_t err_size);
int zvm_recconf_array_end(struct zvm_recconf *rc, char *err, size_t err_size);
/* A block option (its row's kind ZVM_OPTION_BLOCK) key "name" at the
 * current level: <Field> or <Array>. Its end: zvm_recconf_block_end. */
int zvm_recconf_block_begin(struct zvm_recconf *rc, const char *key,
                            const char *name, char *err, size_t err_size);
int zvm_recconf_block_end(struct zvm_recconf *rc, char *err, size_t err_size);
/* Value v of key at the current level, through its row; a key without a
 * row (or a value of another kind) is an unknown option, worded with the
 * options the block knows. */
int zvm_recconf_set(struct zvm_recconf *rc, const char *key,
                    const struct zvm_option_value *v, char *err,
                    size_t err_size);
int zvm_recconf_field_end(struct zvm_recconf *rc, char *err, size_t err_size);
int zvm_recconf_record_end(struct zvm_recconf *rc, char *err, size_t err_size);

/* Every record's domain must be selected by the Domain options (mask as
 * handed to the decoder), or its block would silently yield nothing: 0,
 * or -1 with a one-line reason. */
int zvm_recconf_check_domains(const struct zvm_recconf *rc,
                              zvm_domain_mask_t mask, char *err,
                              size_t err_size);

/* The record defined for domain/number, or NULL. */
const struct zvm_urecord *zvm_recconf_find(const struct zvm_recconf *rc,
                                           uint8_t domain, uint16_t number);

/* Data source name of element idx of field f ("name", or "name_<idx>"
 * with its ElementPrefix in place of "_"). */
int zvm_ufield_ds_name(const struct zvm_ufield *f, unsigned idx, char *out,
                       size_t out_size);

/* The record engine's descriptor of a checked record: fields in block
 * order (instance fields become the key, InstancePrefix before the first
 * part, "_" before the second), type zvm_<name>. Allocated; free it with
 * zvm_urecord_desc_free(). NULL if out of memory. */
struct zvm_record_desc *zvm_urecord_desc(const struct zvm_urecord *r);
void zvm_urecord_desc_free(const struct zvm_record_desc *d);

#endif /* ZVM_MONITOR_RECCONF_H */
