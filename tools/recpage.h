/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - IBM's monitor-record pages ("MRxxxxxx Control Block
 * Contents", www.vm.ibm.com/pubs/monNNN/MRxxxxxx.HTML) into <Record> blocks
 * for collectd.conf: the page parser, the mapping of its fields to the
 * record engine's types and kinds, and the block's text. Used by
 * zvm-monitor-record(1), its unit tests and its fuzz target.
 *
 * Plain C and libc only: no collectd, no other layer of the plugin. The
 * block it writes is meant for the plugin's own <Record> parser
 * (plugin/config/recconf.c), which the program runs over it before it
 * prints anything.
 *
 * A page is HTML (preformatted text or tables) or text copied from a
 * browser; rows may keep their columns or run together on one line. The
 * parser reads it as a stream of words and finds each row by its anchor,
 * "DEC HEX TYPE LEN NAME" with DEC and HEX the same offset. Every row is
 * checked (decimal against hex, offsets going forward and inside the
 * record, lengths that fit the type, no partial overlap) and, where the
 * page has one, against its cross reference (the second statement of
 * every name's offset and length). Anything else is an error naming the
 * page's line: never a guessed offset.
 */
#ifndef ZVM_TOOLS_RECPAGE_H
#define ZVM_TOOLS_RECPAGE_H

#include <stdbool.h>
#include <stddef.h>

#define RP_NAME_MAX 40 /* IBM names are at most 16; room for odd copies */

enum rp_type {
  RP_STRUCTURE,
  RP_CHARACTER,
  RP_UNSIGNED,
  RP_SIGNED,
  RP_BITSTRING,
  RP_ADDRESS,
  RP_AREA,
  RP_FLOAT,
  RP_PACKED,
};

struct rp_bit {
  char name[RP_NAME_MAX]; /* "*" for an unnamed bit */
  unsigned mask;          /* of the pattern, its first byte the highest */
  unsigned width;         /* bytes the pattern shows (1-4) */
  unsigned line;
  char *desc;
};

struct rp_field {
  char name[RP_NAME_MAX]; /* IBM's name; "*" reserved */
  unsigned offset;        /* from the start of its table's structure */
  unsigned length;        /* of one element */
  unsigned dim;           /* elements (1 without a dimension) */
  bool variable;          /* "36+": a variable tail follows */
  enum rp_type type;
  unsigned table; /* 0: the record; 1..: a nested structure (array entry) */
  unsigned line;  /* the page's line of the row */
  char *desc;     /* IBM's description, words joined by single blanks */
  struct rp_bit *bits;
  size_t nbits, cap_bits;
};

struct rp_xref {
  char name[RP_NAME_MAX];
  unsigned offset;
  long num[2]; /* the numbers after the offset as written (decimal and hex
                  read later, once it is known whether the name is a bit's) */
  char text[2][12];
  unsigned nnum;
  unsigned line;
};

struct rp_page {
  char dsect[RP_NAME_MAX];     /* the structure's name (DSECT NAME) */
  char mrname[RP_NAME_MAX];    /* NAME - MRxxxxxx, "" if the copy lost it */
  int domain, number;          /* -1 if not found */
  char title[96];              /* "Record 10 - <title>" */
  char level[32];              /* "z/VM V6R2.0", "" if the page has none */
  char hf_prefix[RP_NAME_MAX]; /* NOTES: prefix of high-frequency counters */
  bool per_vcpu;               /* NOTES: a record per virtual processor */
  unsigned length;             /* the record's structure length */
  bool variable;               /* ... with a variable tail ("36+") */
  unsigned ntables;            /* 1 + nested structures */
  struct rp_field *fields;
  size_t nfields, cap_fields;
  struct rp_xref *xref;
  size_t nxref, cap_xref;
  bool has_xref;
  unsigned rows; /* rows and bit rows read */
};

/* Parse len bytes of a page. 0, or -1 with "line N: what is wrong" in err
 * (one line). rp_page_free() in both cases. */
int rp_parse(const char *text, size_t len, struct rp_page *page, char *err,
             size_t err_size);
void rp_page_free(struct rp_page *page);
/* The library's one-line reasons: fmt into err, -1. */
__attribute__((format(printf, 3, 4))) int rp_error(char *err, size_t size,
                                                   const char *fmt, ...);
const char *rp_type_name(enum rp_type t);

/* What a field is, as guessed from the page (comparable with the engine's
 * field kinds). */
enum rp_role {
  RP_ROLE_NONE,    /* header, reserved, label, structure, address */
  RP_ROLE_COUNTER, /* grows: counts of events, accumulated times */
  RP_ROLE_GAUGE,   /* a level or setting */
  RP_ROLE_ID,      /* binary identifier: processor address, device number */
  RP_ROLE_TEXT,    /* character data (a user ID among them) */
  RP_ROLE_FLAGS,   /* bit string, flag byte */
  RP_ROLE_CODE,    /* enumerated value */
  RP_ROLE_LAYOUT,  /* locates a variable array (offset, count, size) */
};
const char *rp_role_name(enum rp_role r);

/* How a mapped field goes into the block (the <Record> vocabulary). */
enum rp_vtype {
  RP_V_UNSIGNED,
  RP_V_SIGNED,
  RP_V_CPUTIMER,
  RP_V_TOD,
  RP_V_EBCDIC,
  RP_V_USERID
};
enum rp_kind {
  RP_K_COUNTER,
  RP_K_GAUGE,
  RP_K_INSTANCE,
  RP_K_PROCESSOR, /* the virtual processor of a per-VMDBK record */
  RP_K_BASE,      /* the base VMDBK's bit of such a record */
  RP_K_LAYOUT     /* locates a variable array (count, size, offset) */
};

/* AllOnes: a count whose all-ones value means MAX (IBM MRPRCSMT). */
enum rp_allones { RP_ALLONES_NONE, RP_ALLONES_NAN, RP_ALLONES_FLAG };

/* The plugin's own table of a record it decodes itself, as the tool takes
 * its names (zvm-monitor-record.c fills it from the built-in descriptor):
 * a block that replaces the record then gives exactly the built-in's
 * values, under the same names. Fields of one layout in data source
 * order. */
struct rp_builtin_field {
  const char *ibm; /* IBM's name ("PRCSMT_RCCCOALL"); NULL: not a row */
  const char *ds;  /* data source ("statement_all") */
  unsigned table;  /* 0: the record; 1: its array's entry */
  unsigned offset, length, count;
  bool dispatched; /* a counter or gauge */
  bool counter;    /* ... a counter */
  bool records;    /* the record count (not in the bytes) */
  bool instance;   /* names the instance (entries: a CPU type) */
  enum rp_allones allones;
  unsigned long long mask; /* a named bit (the top bit: 128 of 1 byte) */
  const char *elem_prefix; /* "_q", NULL: "_" */
  const char *single_type; /* its type with one value per list, or NULL */
};
struct rp_builtin {
  const char *name;          /* the record's type without "zvm_" */
  const char *instance_name; /* its fixed instance ("system"), or NULL */
  const char *array;         /* IBM's name of its array, or NULL */
  const char *array_name;    /* the entries' type without "zvm_" */
  bool cputype;              /* entries named by their CPU type */
  const struct rp_builtin_field *fields;
  size_t nfields;
};

struct rp_mapped {
  const struct rp_field *f;
  size_t fi;                /* index of f in the page */
  const struct rp_bit *bit; /* a named bit of f (a 0/1 gauge), or NULL */
  unsigned long long mask;  /* the bit's Mask for a field of f's length */
  bool hex;                 /* an instance number written in hex */
  char elem_prefix[5];      /* ElementPrefix ("" for "_") */
  enum rp_role role;
  char why[160]; /* why the role (and kind) was chosen */
  bool emit;     /* a <Field> of the block */
  bool by_option;
  char ds[64]; /* data source name (a built-in's may pass 19) */
  enum rp_vtype vtype;
  enum rp_kind kind;
  unsigned count;
  enum rp_allones allones;
  bool cputype;            /* an instance named by its CPU type */
  const char *single_type; /* OneValueType, or NULL */
  /* Position in the built-in table (its data source order), or -1: the
   * page's order after the built-in's fields. */
  int order;
  bool extra;        /* a second view of f's bytes (a MAX flag), not a row */
  bool undispatched; /* the built-in table has it, and dispatches it not */
  char skip[320];    /* the reason when !emit ("" for rows not worth a line:
                        the structure, labels, the header) */
};

/* The tool's options. Names are IBM's (USEITE_HFCPURN) or the data source
 * names (hfcpurn), case-insensitive. */
struct rp_kind_override {
  const char *name;
  const char *kind; /* counter, gauge, instance, skip */
};
struct rp_options {
  const char *const *fields; /* only these (and the instance); NULL: all */
  size_t nfields;
  const char *instance; /* the instance field; "none": none; NULL: guess */
  const struct rp_kind_override *kinds;
  size_t nkinds;
  const char *prefix; /* InstancePrefix; NULL: guess */
  const char *count;  /* a record-count counter of this name; NULL: none */
  const char *name;   /* Name; NULL: the DSECT name */
  bool builtin;       /* the plugin has this record built in */
  /* ... its table, whose names and types the block takes, or NULL */
  const struct rp_builtin *names;
  const char *source;  /* the page's file name, for the comment */
  const char *version; /* the program's version, for the comment */
};

/* A variable array of the page (a nested structure located by three
 * fields of the record) as an <Array> block. */
#define RP_ARRAYS_MAX 4
struct rp_marray {
  unsigned table;                 /* the page's table of its entry */
  char label[24];                 /* <Array "label"> */
  char name[28];                  /* its Name (type zvm_<name>) */
  const struct rp_mapped *loc[3]; /* count, size, offset (Kind layout) */
  bool emit;
  char skip[200]; /* why not, when !emit */
};

struct rp_map {
  struct rp_mapped *m; /* one per field of the page, in page order, then
                          extra views */
  size_t n;
  struct rp_marray arrays[RP_ARRAYS_MAX];
  size_t narrays;
  char instance_name[17]; /* InstanceName, "" if none */
  char name[28];
  char prefix[17];
  size_t emitted, counters, gauges, instances, skipped, nds;
  const struct rp_mapped *instance[2];
  char count[24];         /* the record count's data source, "" if none */
  const char *count_type; /* its OneValueType (the built-in's), or NULL */
  bool per_vmdbk;         /* summed per guest (a processor field) */
};

/* Map the fields. 0, or -1 with a one-line reason (an option that names
 * no field, a kind a field cannot have). */
int rp_map_page(const struct rp_page *page, const struct rp_options *opt,
                struct rp_map *map, char *err, size_t err_size);
void rp_map_free(struct rp_map *map);

/* A growing text buffer. */
struct rp_buf {
  char *p;
  size_t len, cap;
  bool oom;
};
void rp_buf_free(struct rp_buf *b);
__attribute__((format(printf, 2, 3))) void rp_buf_printf(struct rp_buf *b,
                                                         const char *fmt, ...);

/* The <Record> block with its comments. */
void rp_write_block(const struct rp_page *page, const struct rp_map *map,
                    const struct rp_options *opt, struct rp_buf *out);
/* The summary for standard error: the record, the level, fields mapped
 * and every field skipped with its reason; lines begin with indent. */
void rp_write_summary(const struct rp_page *page, const struct rp_map *map,
                      const char *indent, struct rp_buf *out);

/* Grafana dashboards for the blocks (tools/recdash.c): one per back end,
 * the model of contrib/grafana/make-dashboards.py. */
#define RP_DASH_KINDS 3
extern const char *const rp_dash_kinds[RP_DASH_KINDS]; /* graphite, ... */
/* The dashboard of kind (one of rp_dash_kinds) for n pages and their maps:
 * a row per record, a panel per mapped field (an array's elements and a
 * flag field's named bits in one), IBM's description as the panel's. */
void rp_write_dashboard(const struct rp_page *pages, const struct rp_map *maps,
                        size_t n, const char *kind, struct rp_buf *out);

#endif
