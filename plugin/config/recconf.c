/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - <Record> blocks: parsing and checking into run-time
 * descriptors. No collectd headers (see recconf.h).
 *
 * Limits and their reasons:
 * - A record never crosses a 4 KB frame (the kernel's monreader documentation:
 * "records never cross a 4K boundary"), so no field can end past byte 4096.
 * - Bytes 0-19 are the record header MRHDR (IBM MRRECHDR), which the
 *   decoder owns: no field may overlap it.
 * - Data source names: collectd's types.db parser splits a line at blanks
 *   and a data source at ':' and keeps at most 63 data sources per type
 *   (src/daemon/types_list.c, collectd 5.12: strsplit(buf, fields, 64));
 *   types.db(5) asks for lower-case alphanumeric names; rrdtool accepts at
 *   most 19 characters of [a-zA-Z0-9_-]. Names here are therefore
 *   [a-z][a-z0-9_]{0,18}, unique within the record, at most 63 of them.
 * - The type is "zvm_" + Name, so it never replaces one of collectd's own
 *   types (plugin_register_data_set() silently replaces a type of the
 *   same name), and may not equal a built-in record's type.
 */
#include "zvm_monitor/recconf.h"

#include "base/option.h"
#include "base/util.h"
#include "engine/vmdbk.h"
#include "zvm_monitor/registry.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_RECORD_NUMBER 255

/* The project's error convention: a one-line reason, -1. */
#define fail zvm_format_error

/* Text from the configuration as it may appear in a log line: printable
 * ASCII, anything else as \xNN, at most SHOWN_MAX - 4 bytes of it. */
#define SHOWN_MAX 64
static const char *shown(const char *s, char buf[SHOWN_MAX]) {
  size_t n = 0;
  for (; *s != '\0'; s++) {
    unsigned char c = (unsigned char)*s;
    if (n + 8 >= SHOWN_MAX) {
      memcpy(buf + n, "...", 3);
      n += 3;
      break;
    }
    if (c >= 0x20 && c < 0x7F && c != '\\')
      buf[n++] = (char)c;
    else
      n += (size_t)snprintf(buf + n, SHOWN_MAX - n, "\\x%02X", c);
  }
  buf[n] = '\0';
  return buf;
}

/* The <Record> and <Field> option tables (option.h); the handlers are
 * below. <Field> is a block: the builder's field_begin/field_end. */
static zvm_option_fn rc_name, rc_prefix, rc_replace, f_type, f_kind, f_offset,
    f_length, f_count, f_scale, f_counts_down, f_mask, f_format, f_elem_prefix;
static const struct zvm_option record_options[] = {
    {"Name", ZVM_OPTION_STRING, rc_name, 0},
    {"InstancePrefix", ZVM_OPTION_STRING, rc_prefix, 0},
    {"Replace", ZVM_OPTION_BOOLEAN, rc_replace, 0},
    {"Field", ZVM_OPTION_BLOCK, NULL, 0},
};
static const struct zvm_option field_options[] = {
    {"Offset", ZVM_OPTION_NUMBER, f_offset, 0},
    {"Length", ZVM_OPTION_NUMBER, f_length, 0},
    {"Type", ZVM_OPTION_STRING, f_type, 0},
    {"Kind", ZVM_OPTION_STRING, f_kind, 0},
    {"Scale", ZVM_OPTION_NUMBER, f_scale, 0},
    {"Count", ZVM_OPTION_NUMBER, f_count, 0},
    {"CountsDown", ZVM_OPTION_BOOLEAN, f_counts_down, 0},
    {"Mask", ZVM_OPTION_NUMBER, f_mask, 0},
    {"Format", ZVM_OPTION_STRING, f_format, 0},
    {"ElementPrefix", ZVM_OPTION_STRING, f_elem_prefix, 0},
};

static const char *const type_names[] = {
    [ZVM_UTYPE_UNSIGNED] = "unsigned", [ZVM_UTYPE_SIGNED] = "signed",
    [ZVM_UTYPE_CPUTIMER] = "cputimer", [ZVM_UTYPE_TOD] = "tod",
    [ZVM_UTYPE_EBCDIC] = "ebcdic",     [ZVM_UTYPE_USERID] = "userid",
    [ZVM_UTYPE_RECORDS] = "records",
};
static const char *const kind_names[] = {
    [ZVM_UKIND_COUNTER] = "counter",   [ZVM_UKIND_GAUGE] = "gauge",
    [ZVM_UKIND_INSTANCE] = "instance", [ZVM_UKIND_PROCESSOR] = "processor",
    [ZVM_UKIND_BASE] = "base",
};
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

void zvm_recconf_init(struct zvm_recconf *rc, struct zvm_registry *reg) {
  *rc = (struct zvm_recconf){.reg = reg};
}

static void field_free(struct zvm_ufield *f) {
  free(f->name);
  *f = (struct zvm_ufield){0};
}

static void record_free(struct zvm_urecord *r) {
  for (size_t i = 0; i < r->nfields; i++)
    field_free(&r->fields[i]);
  free(r->fields);
  free(r->name);
  free(r->instance_prefix);
  *r = (struct zvm_urecord){0};
}

void zvm_recconf_free(struct zvm_recconf *rc) {
  if (rc == NULL)
    return;
  for (size_t i = 0; i < rc->nrecords; i++)
    record_free(&rc->records[i]);
  free(rc->records);
  record_free(&rc->cur);
  field_free(&rc->fcur);
  zvm_recconf_init(rc, rc->reg);
}

/* The row of key in the table of the block being built, or NULL. */
static const struct zvm_option *option_row(const struct zvm_recconf *rc,
                                           const char *key) {
  if (key == NULL || !rc->in_record)
    return NULL;
  return rc->in_field
             ? zvm_option_find(field_options, COUNT_OF(field_options), key)
             : zvm_option_find(record_options, COUNT_OF(record_options), key);
}

const struct zvm_option *zvm_recconf_option(const struct zvm_recconf *rc,
                                            const char *key) {
  return option_row(rc, key);
}

/* ------------------------------------------------------------------------
 * Names.
 */

/* Lower-cased copy of name if it is [A-Za-z][A-Za-z0-9_]* and at most max
 * characters; NULL otherwise (*bad set) or if out of memory. */
static char *name_copy(const char *name, size_t max, bool *bad) {
  size_t len = strlen(name);
  *bad = true;
  if (len == 0 || len > max || !isalpha((unsigned char)name[0]))
    return NULL;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)name[i];
    if (c >= 0x80 || !(isalnum(c) || c == '_'))
      return NULL;
  }
  *bad = false;
  char *copy = strdup(name);
  if (copy != NULL)
    for (char *p = copy; *p; p++)
      *p = (char)tolower((unsigned char)*p);
  return copy;
}

int zvm_ufield_ds_name(const struct zvm_ufield *f, unsigned idx, char *out,
                       size_t out_size) {
  const char *sep = f->elem_prefix[0] != '\0' ? f->elem_prefix : "_";
  int n = f->count > 1 ? snprintf(out, out_size, "%s%s%u", f->name, sep, idx)
                       : snprintf(out, out_size, "%s", f->name);
  return n < 0 || (size_t)n >= out_size ? -1 : 0;
}

static bool dispatched(const struct zvm_ufield *f) {
  return f->kind == ZVM_UKIND_COUNTER || f->kind == ZVM_UKIND_GAUGE;
}

/* ------------------------------------------------------------------------
 * Builder.
 */
/* "D4R10 MRUSEITE" */
static const char *desc_label(const struct zvm_record_desc *d, char *buf,
                              size_t size) {
  snprintf(buf, size, "D%uR%u %s", (unsigned)d->domain, (unsigned)d->number,
           d->ibm_name != NULL ? d->ibm_name : "");
  return buf;
}

/* A record of the registry other than skip whose value lists have the
 * type name type. */
static const struct zvm_record_desc *
type_owner(const struct zvm_registry *reg, const char *type,
           const struct zvm_record_desc *skip) {
  for (size_t i = 0; reg != NULL && i < zvm_registry_count(reg); i++) {
    const struct zvm_record_desc *d = zvm_registry_at(reg, i);
    if (d == skip)
      continue;
    if (d->main.type_name != NULL && strcmp(d->main.type_name, type) == 0)
      return d;
    for (size_t a = 0; a < d->narrays; a++)
      if (d->arrays[a].entry.type_name != NULL &&
          strcmp(d->arrays[a].entry.type_name, type) == 0)
        return d;
  }
  return NULL;
}

const struct zvm_urecord *zvm_recconf_find(const struct zvm_recconf *rc,
                                           uint8_t domain, uint16_t number) {
  for (size_t i = 0; i < rc->nrecords; i++)
    if (rc->records[i].domain == domain && rc->records[i].number == number)
      return &rc->records[i];
  return NULL;
}

/* "D/R" with decimal numbers, nothing else. */
static bool parse_id(const char *id, unsigned *domain, unsigned *number) {
  const char *p = id;
  unsigned v[2] = {0, 0};
  for (int part = 0; part < 2; part++) {
    if (!isdigit((unsigned char)*p))
      return false;
    for (int digits = 0; isdigit((unsigned char)*p); p++, digits++) {
      if (digits >= 5)
        return false;
      v[part] = v[part] * 10 + (unsigned)(*p - '0');
    }
    if (part == 0 && *p++ != '/')
      return false;
  }
  if (*p != '\0')
    return false;
  *domain = v[0];
  *number = v[1];
  return true;
}

int zvm_recconf_record_begin(struct zvm_recconf *rc, const char *id, char *err,
                             size_t err_size) {
  unsigned domain, number;
  char sb[SHOWN_MAX];
  /* A block left unfinished was refused (its error was reported):
   * forget it, so that a later <Plugin> block starts afresh. */
  record_free(&rc->cur);
  field_free(&rc->fcur);
  rc->in_record = rc->in_field = false;
  if (id == NULL || !parse_id(id, &domain, &number))
    return fail(err, err_size,
                "Record \"%s\": give the record as \"DOMAIN/RECORD\" in "
                "decimal, e.g. <Record \"0/2\">",
                shown(id != NULL ? id : "", sb));
  if (domain >= ZVM_DOMAIN_COUNT || number == 0 || number > MAX_RECORD_NUMBER)
    return fail(err, err_size,
                "Record \"%s\": the domain must be 0-%d and the record "
                "number 1-%d",
                id, ZVM_DOMAIN_COUNT - 1, MAX_RECORD_NUMBER);
  if (rc->nrecords >= ZVM_RECCONF_MAX_RECORDS)
    return fail(err, err_size, "Record \"%s\": more than %d Record blocks", id,
                ZVM_RECCONF_MAX_RECORDS);
  if (zvm_recconf_find(rc, (uint8_t)domain, (uint16_t)number) != NULL)
    return fail(err, err_size,
                "Record \"%s\" is defined twice: merge the two blocks", id);
  record_free(&rc->cur);
  rc->cur = (struct zvm_urecord){.domain = (uint8_t)domain,
                                 .number = (uint16_t)number};
  snprintf(rc->id, sizeof(rc->id), "%u/%u", domain, number);
  rc->in_record = true;
  rc->in_field = false;
  return 0;
}

int zvm_recconf_field_begin(struct zvm_recconf *rc, const char *name, char *err,
                            size_t err_size) {
  if (!rc->in_record || rc->in_field)
    return fail(err, err_size,
                "Field blocks belong directly into a Record "
                "block");
  struct zvm_urecord *r = &rc->cur;
  bool bad;
  char sb[SHOWN_MAX];
  if (name == NULL)
    name = "";
  if (r->nfields >= ZVM_RECCONF_MAX_FIELDS)
    return fail(err, err_size, "Record \"%s\": more than %d Field blocks",
                rc->id, ZVM_RECCONF_MAX_FIELDS);
  field_free(&rc->fcur);
  rc->fcur.name = name_copy(name, ZVM_RECCONF_MAX_DS_NAME, &bad);
  if (bad)
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": a field name is a letter "
                "followed by letters, digits or '_', at most %d characters "
                "(it is the data source name)",
                rc->id, shown(name, sb), ZVM_RECCONF_MAX_DS_NAME);
  if (rc->fcur.name == NULL)
    return fail(err, err_size, "Record \"%s\": out of memory", rc->id);
  for (size_t i = 0; i < r->nfields; i++)
    if (strcmp(r->fields[i].name, rc->fcur.name) == 0)
      return fail(err, err_size,
                  "Record \"%s\" Field \"%s\" is defined twice: field names "
                  "must be unique (case-insensitive)",
                  rc->id, shown(name, sb));
  rc->fcur.count = 1;
  rc->fcur.scale = 1.0;
  rc->has_offset = rc->has_length = rc->has_type = rc->has_kind = false;
  rc->has_elem_prefix = false;
  rc->in_field = true;
  return 0;
}

static int lookup_name(const char *const *names, size_t n, const char *value) {
  for (size_t i = 0; i < n; i++)
    if (names[i] != NULL && strcasecmp(value, names[i]) == 0)
      return (int)i;
  return -1;
}

static int unknown_option(const struct zvm_recconf *rc, const char *key,
                          char *err, size_t err_size) {
  char sb[SHOWN_MAX];
  key = shown(key != NULL ? key : "", sb);
  if (!rc->in_record)
    return fail(err, err_size, "option \"%s\" outside a Record block", key);
  if (rc->in_field)
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": unknown option \"%s\" (Offset, "
                "Length, Type, Kind, Scale, Count, CountsDown, Mask, Format, "
                "ElementPrefix)",
                rc->id, rc->fcur.name, key);
  return fail(err, err_size,
              "Record \"%s\": unknown option \"%s\" (Name, InstancePrefix, "
              "Replace, <Field>)",
              rc->id, key);
}

/* ------------------------------------------------------------------------
 * The options' handlers (rows in record_options and field_options).
 */
static int f_type(void *t, const struct zvm_option *o,
                  const struct zvm_option_value *v, char *err,
                  size_t err_size) {
  (void)o;
  struct zvm_recconf *rc = t;
  struct zvm_ufield *f = &rc->fcur;
  char sb[SHOWN_MAX];
  int type = lookup_name(type_names, COUNT_OF(type_names), v->string);
  if (type < 0)
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": unknown Type \"%s\" (use "
                "unsigned, signed, cputimer, tod, ebcdic, userid or records)",
                rc->id, f->name, shown(v->string, sb));
  f->type = (enum zvm_ufield_type)type;
  rc->has_type = true;
  return 0;
}

static int f_kind(void *t, const struct zvm_option *o,
                  const struct zvm_option_value *v, char *err,
                  size_t err_size) {
  (void)o;
  struct zvm_recconf *rc = t;
  struct zvm_ufield *f = &rc->fcur;
  char sb[SHOWN_MAX];
  int k = lookup_name(kind_names, COUNT_OF(kind_names), v->string);
  if (k < 0)
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": unknown Kind \"%s\" (use "
                "counter, gauge, instance, processor or base)",
                rc->id, f->name, shown(v->string, sb));
  f->kind = (enum zvm_ufield_kind)k;
  rc->has_kind = true;
  return 0;
}

static int rc_name(void *t, const struct zvm_option *o,
                   const struct zvm_option_value *v, char *err,
                   size_t err_size) {
  (void)o;
  struct zvm_recconf *rc = t;
  bool bad;
  char sb[SHOWN_MAX];
  char *copy = name_copy(v->string, ZVM_RECCONF_MAX_NAME, &bad);
  if (bad)
    return fail(err, err_size,
                "Record \"%s\" Name \"%s\": a letter followed by letters, "
                "digits or '_', at most %d characters (the type is "
                "zvm_<name>)",
                rc->id, shown(v->string, sb), ZVM_RECCONF_MAX_NAME);
  if (copy == NULL)
    return fail(err, err_size, "Record \"%s\": out of memory", rc->id);
  free(rc->cur.name);
  rc->cur.name = copy;
  return 0;
}

/* InstancePrefix: it becomes part of plugin_instance verbatim. */
static int rc_prefix(void *t, const struct zvm_option *o,
                     const struct zvm_option_value *v, char *err,
                     size_t err_size) {
  (void)o;
  struct zvm_recconf *rc = t;
  const char *value = v->string;
  char sb[SHOWN_MAX];
  bool bad;
  size_t len = strlen(value);
  if (len > ZVM_RECCONF_MAX_PREFIX)
    bad = true;
  else {
    bad = false;
    for (size_t i = 0; i < len; i++) {
      unsigned char c = (unsigned char)value[i];
      if (c >= 0x80 || !(isalnum(c) || c == '_'))
        bad = true;
    }
  }
  if (bad)
    return fail(err, err_size,
                "Record \"%s\" InstancePrefix \"%s\": letters, digits and "
                "'_' only, at most %d characters",
                rc->id, shown(value, sb), ZVM_RECCONF_MAX_PREFIX);
  char *copy = strdup(value);
  if (copy == NULL)
    return fail(err, err_size, "Record \"%s\": out of memory", rc->id);
  free(rc->cur.instance_prefix);
  rc->cur.instance_prefix = copy;
  return 0;
}

/* A whole number in [lo, hi], as collectd hands over numbers (double). */
static bool whole_in(double v, double lo, double hi) {
  return isfinite(v) && v == floor(v) && v >= lo && v <= hi;
}

static int f_offset(void *t, const struct zvm_option *o,
                    const struct zvm_option_value *v, char *err,
                    size_t err_size) {
  (void)o;
  struct zvm_recconf *rc = t;
  struct zvm_ufield *f = &rc->fcur;
  double value = v->number;
  if (!whole_in(value, 0, ZVM_RECCONF_MAX_RECORD_LEN - 1))
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": Offset %g is not a byte offset "
                "inside a record (0-%d; records never cross a 4 KB frame)",
                rc->id, f->name, value, ZVM_RECCONF_MAX_RECORD_LEN - 1);
  if (value < ZVM_MRHDR_LEN)
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": Offset %g lies in the %d-byte "
                "record header (MRHDR); offsets count from the record "
                "start as IBM prints them, so fields start at %d or later",
                rc->id, f->name, value, ZVM_MRHDR_LEN, ZVM_MRHDR_LEN);
  f->offset = (uint16_t)value;
  rc->has_offset = true;
  return 0;
}

static int f_length(void *t, const struct zvm_option *o,
                    const struct zvm_option_value *v, char *err,
                    size_t err_size) {
  (void)o;
  struct zvm_recconf *rc = t;
  struct zvm_ufield *f = &rc->fcur;
  if (!whole_in(v->number, 1, ZVM_RECCONF_MAX_RECORD_LEN))
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": Length %g is not a byte count "
                "(1-%d)",
                rc->id, f->name, v->number, ZVM_RECCONF_MAX_RECORD_LEN);
  f->length = (uint16_t)v->number;
  rc->has_length = true;
  return 0;
}

static int f_count(void *t, const struct zvm_option *o,
                   const struct zvm_option_value *v, char *err,
                   size_t err_size) {
  (void)o;
  struct zvm_recconf *rc = t;
  struct zvm_ufield *f = &rc->fcur;
  if (!whole_in(v->number, 1, ZVM_RECCONF_MAX_COUNT))
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": Count %g must be a whole "
                "number 1-%d (elements of an array)",
                rc->id, f->name, v->number, ZVM_RECCONF_MAX_COUNT);
  f->count = (uint16_t)v->number;
  return 0;
}

static int f_scale(void *t, const struct zvm_option *o,
                   const struct zvm_option_value *v, char *err,
                   size_t err_size) {
  (void)o;
  struct zvm_recconf *rc = t;
  struct zvm_ufield *f = &rc->fcur;
  if (!isfinite(v->number) || v->number == 0)
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": Scale %g must be a finite "
                "number other than 0",
                rc->id, f->name, v->number);
  f->scale = v->number;
  return 0;
}

static int f_counts_down(void *t, const struct zvm_option *o,
                         const struct zvm_option_value *v, char *err,
                         size_t err_size) {
  (void)o;
  (void)err;
  (void)err_size;
  ((struct zvm_recconf *)t)->fcur.counts_down = v->boolean;
  return 0;
}

/* Mask: the named bits of a flag field, as IBM's bit patterns give them
 * ("1... ...." is 128). */
static int f_mask(void *t, const struct zvm_option *o,
                  const struct zvm_option_value *v, char *err,
                  size_t err_size) {
  (void)o;
  struct zvm_recconf *rc = t;
  struct zvm_ufield *f = &rc->fcur;
  /* Whole numbers up to 2^53 are exact in a double. */
  if (!whole_in(v->number, 1, 9007199254740992.0))
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": Mask %g must be a whole number "
                "1-2^53 (the bits, e.g. 128 for X'80')",
                rc->id, f->name, v->number);
  f->mask = (uint64_t)v->number;
  return 0;
}

static int f_format(void *t, const struct zvm_option *o,
                    const struct zvm_option_value *v, char *err,
                    size_t err_size) {
  (void)o;
  struct zvm_recconf *rc = t;
  char sb[SHOWN_MAX];
  if (strcasecmp(v->string, "hex") == 0)
    rc->fcur.hex = true;
  else if (strcasecmp(v->string, "decimal") == 0)
    rc->fcur.hex = false;
  else
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": unknown Format \"%s\" (use "
                "decimal or hex)",
                rc->id, rc->fcur.name, shown(v->string, sb));
  return 0;
}

static int f_elem_prefix(void *t, const struct zvm_option *o,
                         const struct zvm_option_value *v, char *err,
                         size_t err_size) {
  (void)o;
  struct zvm_recconf *rc = t;
  struct zvm_ufield *f = &rc->fcur;
  char sb[SHOWN_MAX];
  size_t len = strlen(v->string);
  bool bad = len == 0 || len > ZVM_RECCONF_MAX_ELEM_PREFIX;
  for (size_t i = 0; i < len && !bad; i++) {
    unsigned char c = (unsigned char)v->string[i];
    bad = c >= 0x80 || !(isalnum(c) || c == '_');
  }
  if (bad)
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\" ElementPrefix \"%s\": 1-%d "
                "letters, digits or '_' (element i is <name><prefix><i>)",
                rc->id, f->name, shown(v->string, sb),
                ZVM_RECCONF_MAX_ELEM_PREFIX);
  for (size_t i = 0; i <= len; i++)
    f->elem_prefix[i] = (char)tolower((unsigned char)v->string[i]);
  rc->has_elem_prefix = true;
  return 0;
}

static int rc_replace(void *t, const struct zvm_option *o,
                      const struct zvm_option_value *v, char *err,
                      size_t err_size) {
  (void)o;
  (void)err;
  (void)err_size;
  ((struct zvm_recconf *)t)->cur.replace = v->boolean;
  return 0;
}

/* A value of type v->type for key in the block being built: through its
 * row; a key without a row, or of another kind, is an unknown option. */
int zvm_recconf_set(struct zvm_recconf *rc, const char *key,
                    const struct zvm_option_value *v, char *err,
                    size_t err_size) {
  const struct zvm_option *o = option_row(rc, key);
  if (o == NULL || o->set == NULL || o->kind != v->type)
    return unknown_option(rc, key, err, err_size);
  return o->set(rc, o, v, err, err_size);
}

/* Lengths each type accepts. */
static bool length_ok(enum zvm_ufield_type t, unsigned len) {
  switch (t) {
  case ZVM_UTYPE_UNSIGNED:
  case ZVM_UTYPE_SIGNED:
    return len == 1 || len == 2 || len == 4 || len == 8;
  case ZVM_UTYPE_CPUTIMER:
  case ZVM_UTYPE_TOD:
  case ZVM_UTYPE_USERID:
    return len == 8;
  case ZVM_UTYPE_RECORDS:
    return len == 0;
  case ZVM_UTYPE_EBCDIC:
  default:
    return len >= 1 && len <= ZVM_RECCONF_MAX_EBCDIC;
  }
}

static const char *length_rule(enum zvm_ufield_type t) {
  switch (t) {
  case ZVM_UTYPE_UNSIGNED:
  case ZVM_UTYPE_SIGNED:
    return "1, 2, 4 or 8";
  case ZVM_UTYPE_CPUTIMER:
  case ZVM_UTYPE_TOD:
  case ZVM_UTYPE_USERID:
    return "8";
  case ZVM_UTYPE_RECORDS:
    return "no";
  case ZVM_UTYPE_EBCDIC:
  default:
    return "1-8";
  }
}

/* Type and Kind that make sense together; NULL or why not. */
static const char *combination_error(const struct zvm_ufield *f,
                                     bool elem_prefix) {
  if (f->type == ZVM_UTYPE_RECORDS &&
      (f->kind != ZVM_UKIND_COUNTER || f->count != 1 || f->scale != 1.0 ||
       f->counts_down || f->mask != 0))
    return "a record count is a counter without Count, Scale, CountsDown or "
           "Mask";
  if (f->hex &&
      (f->kind != ZVM_UKIND_INSTANCE || f->type != ZVM_UTYPE_UNSIGNED))
    return "Format applies to instance fields of Type unsigned";
  if (elem_prefix && f->count < 2)
    return "ElementPrefix names the elements of an array: it needs a Count";
  if (f->mask != 0) {
    if (f->type != ZVM_UTYPE_UNSIGNED)
      return "a Mask selects bits of an unsigned field";
    if (f->kind != ZVM_UKIND_GAUGE && f->kind != ZVM_UKIND_BASE)
      return "a bit is a state, 1 or 0: use Kind gauge (or base)";
    if (f->count != 1 || f->scale != 1.0 || f->counts_down)
      return "a field with a Mask takes no Count, Scale or CountsDown";
    if (f->length < 8 && f->mask >> (8 * f->length) != 0)
      return "the Mask has bits outside the field's Length";
  }
  switch (f->kind) {
  case ZVM_UKIND_PROCESSOR:
    if (f->type != ZVM_UTYPE_UNSIGNED || f->length > 2)
      return "a processor address is unsigned, 1 or 2 bytes";
    /* fall through */
  case ZVM_UKIND_BASE:
    if (f->type != ZVM_UTYPE_UNSIGNED)
      return "a base flag is unsigned (with Mask for its bit)";
    if (f->count != 1 || f->scale != 1.0 || f->counts_down)
      return "it takes no Count, Scale or CountsDown";
    return NULL;
  case ZVM_UKIND_INSTANCE:
    if (f->type != ZVM_UTYPE_UNSIGNED && f->type != ZVM_UTYPE_EBCDIC &&
        f->type != ZVM_UTYPE_USERID)
      return "an instance field has Type unsigned, ebcdic or userid";
    if (f->count != 1)
      return "an instance field cannot have a Count";
    if (f->scale != 1.0 || f->counts_down)
      return "an instance field takes no Scale or CountsDown";
    return NULL;
  case ZVM_UKIND_COUNTER:
    if (f->type == ZVM_UTYPE_TOD)
      return "a TOD clock value is a point in time, not a counter: use Kind "
             "gauge";
    /* fall through */
  case ZVM_UKIND_GAUGE:
  default:
    if (f->type == ZVM_UTYPE_EBCDIC || f->type == ZVM_UTYPE_USERID)
      return "text cannot be a value: use Kind instance";
    if (f->counts_down &&
        (f->kind != ZVM_UKIND_COUNTER ||
         (f->type != ZVM_UTYPE_UNSIGNED && f->type != ZVM_UTYPE_CPUTIMER)))
      return "CountsDown applies to unsigned or cputimer counters only";
    if (f->counts_down && f->type == ZVM_UTYPE_UNSIGNED && f->length != 8)
      return "CountsDown needs an 8-byte field (it counts down from "
             "X'7FFFFFFFFFFFFFFF')";
    return NULL;
  }
}

int zvm_recconf_field_end(struct zvm_recconf *rc, char *err, size_t err_size) {
  if (!rc->in_field)
    return fail(err, err_size, "end of a Field block outside one");
  struct zvm_ufield *f = &rc->fcur;
  struct zvm_urecord *r = &rc->cur;
  bool in_bytes = !rc->has_type || f->type != ZVM_UTYPE_RECORDS;
  const char *missing = !rc->has_offset && in_bytes   ? "Offset"
                        : !rc->has_length && in_bytes ? "Length"
                        : !rc->has_type               ? "Type"
                        : !rc->has_kind               ? "Kind"
                                                      : NULL;
  if (missing != NULL)
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": %s is missing (every field needs "
                "Offset, Length, Type and Kind, from IBM's layout)",
                rc->id, f->name, missing);
  if (!in_bytes && (rc->has_offset || rc->has_length))
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": Type records counts the "
                "instance's records, it is not in the bytes: remove Offset "
                "and Length",
                rc->id, f->name);
  if (!length_ok(f->type, f->length))
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": Length %u does not fit Type %s "
                "(%s bytes)",
                rc->id, f->name, f->length, type_names[f->type],
                length_rule(f->type));
  const char *why = combination_error(f, rc->has_elem_prefix);
  if (why != NULL)
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": Kind %s, Type %s: %s", rc->id,
                f->name, kind_names[f->kind], type_names[f->type], why);
  unsigned end = (unsigned)f->offset + (unsigned)f->length * f->count;
  if (end > ZVM_RECCONF_MAX_RECORD_LEN)
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": ends at byte %u, past the "
                "largest possible record (%d bytes: records never cross a "
                "4 KB frame); check Offset, Length and Count",
                rc->id, f->name, end, ZVM_RECCONF_MAX_RECORD_LEN);
  for (size_t i = 0; i < r->nfields; i++) {
    const struct zvm_ufield *o = &r->fields[i];
    unsigned oend = (unsigned)o->offset + (unsigned)o->length * o->count;
    /* Named bits of one flag field share its bytes. */
    bool bits = f->mask != 0 && o->mask != 0 && f->offset == o->offset &&
                f->length == o->length;
    if (f->offset < oend && o->offset < end && !bits)
      return fail(err, err_size,
                  "Record \"%s\" Field \"%s\" (bytes %u-%u) overlaps field "
                  "\"%s\" (bytes %u-%u): check the offsets against IBM's "
                  "layout",
                  rc->id, f->name, f->offset, end - 1, o->name, o->offset,
                  oend - 1);
  }
  if (dispatched(f)) {
    size_t nds = r->nds + f->count;
    if (nds > ZVM_RECCONF_MAX_DS)
      return fail(err, err_size,
                  "Record \"%s\" Field \"%s\": more than %d counters and "
                  "gauges in one record; define the rest in a second "
                  "block of another record, or leave fields out",
                  rc->id, f->name, ZVM_RECCONF_MAX_DS);
    /* Array elements are named name_<i>: they must not meet another
     * field's name, and must stay within the data source name limit. */
    char ds[64];
    for (unsigned e = 0; e < f->count; e++) {
      if (zvm_ufield_ds_name(f, e, ds, sizeof(ds)) != 0 ||
          strlen(ds) > ZVM_RECCONF_MAX_DS_NAME)
        return fail(err, err_size,
                    "Record \"%s\" Field \"%s\": the data source name \"%s\" "
                    "is longer than %d characters; shorten the field name",
                    rc->id, f->name, ds, ZVM_RECCONF_MAX_DS_NAME);
      for (size_t i = 0; i < r->nfields; i++) {
        const struct zvm_ufield *o = &r->fields[i];
        char ods[64];
        if (!dispatched(o))
          continue;
        for (unsigned oe = 0; oe < o->count; oe++)
          if (zvm_ufield_ds_name(o, oe, ods, sizeof(ods)) == 0 &&
              strcmp(ds, ods) == 0)
            return fail(err, err_size,
                        "Record \"%s\" Field \"%s\": its data source \"%s\" "
                        "has the name of field \"%s\"; rename one",
                        rc->id, f->name, ds, o->name);
      }
    }
    r->nds = nds;
  } else if (f->kind == ZVM_UKIND_PROCESSOR || f->kind == ZVM_UKIND_BASE) {
    for (size_t i = 0; i < r->nfields; i++)
      if (r->fields[i].kind == f->kind)
        return fail(err, err_size,
                    "Record \"%s\" Field \"%s\": field \"%s\" has Kind %s "
                    "already; a record has at most one",
                    rc->id, f->name, r->fields[i].name, kind_names[f->kind]);
  } else {
    size_t keys = 0;
    for (size_t i = 0; i < r->nfields; i++)
      keys += r->fields[i].kind == ZVM_UKIND_INSTANCE;
    if (keys >= ZVM_RECCONF_MAX_INSTANCE_FIELDS)
      return fail(err, err_size,
                  "Record \"%s\" Field \"%s\": at most %d fields may have "
                  "Kind instance",
                  rc->id, f->name, ZVM_RECCONF_MAX_INSTANCE_FIELDS);
    /* A user ID names the guest (and with GuestsAsHosts is the host): it
     * is the only instance field of its record. */
    bool userid = f->type == ZVM_UTYPE_USERID;
    for (size_t i = 0; i < r->nfields; i++)
      userid |= r->fields[i].kind == ZVM_UKIND_INSTANCE &&
                r->fields[i].type == ZVM_UTYPE_USERID;
    if (keys > 0 && userid)
      return fail(err, err_size,
                  "Record \"%s\" Field \"%s\": a field of Type userid must "
                  "be the record's only field of Kind instance",
                  rc->id, f->name);
  }

  if (!zvm_grow(&r->fields, &r->cap_fields, r->nfields, sizeof(*r->fields), 8))
    return fail(err, err_size, "Record \"%s\": out of memory", rc->id);
  r->fields[r->nfields++] = *f;
  *f = (struct zvm_ufield){0}; /* the name moved into the record */
  if (in_bytes && (r->min_len == 0 || end < r->min_len))
    r->min_len = (uint16_t)end;
  if (end > r->full_len)
    r->full_len = (uint16_t)end;
  rc->in_field = false;
  return 0;
}

int zvm_recconf_record_end(struct zvm_recconf *rc, char *err, size_t err_size) {
  if (!rc->in_record || rc->in_field)
    return fail(err, err_size, "end of a Record block outside one");
  struct zvm_urecord *r = &rc->cur;
  if (r->name == NULL)
    return fail(err, err_size,
                "Record \"%s\": Name is missing (it names the type, "
                "zvm_<name>)",
                rc->id);
  if (r->nds == 0)
    return fail(err, err_size,
                "Record \"%s\": no field with Kind counter or gauge, so there "
                "is nothing to dispatch",
                rc->id);
  bool keyed = false, userid = false, processor = false, base = false;
  for (size_t i = 0; i < r->nfields; i++) {
    keyed |= r->fields[i].kind == ZVM_UKIND_INSTANCE;
    userid |= r->fields[i].type == ZVM_UTYPE_USERID;
    processor |= r->fields[i].kind == ZVM_UKIND_PROCESSOR;
    base |= r->fields[i].kind == ZVM_UKIND_BASE;
  }
  if (processor && !userid)
    return fail(err, err_size,
                "Record \"%s\": a field of Kind processor sums the record per "
                "guest; it needs the guest's user ID as the instance field "
                "(Type userid, Kind instance)",
                rc->id);
  if (base && !processor)
    return fail(err, err_size,
                "Record \"%s\": a field of Kind base marks the base virtual "
                "processor's records; add the field of Kind processor or "
                "remove it",
                rc->id);
  r->one_value_per_list = r->nds > ZVM_RECCONF_MAX_DS_LIST;
  if (r->instance_prefix != NULL && r->instance_prefix[0] != '\0' && !keyed)
    return fail(err, err_size,
                "Record \"%s\": InstancePrefix without a field of Kind "
                "instance would name nothing; add the instance field or "
                "remove InstancePrefix",
                rc->id);
  snprintf(r->type_name, sizeof(r->type_name), "zvm_%s", r->name);
  if (r->instance_prefix == NULL && (r->instance_prefix = strdup("")) == NULL)
    return fail(err, err_size, "Record \"%s\": out of memory", rc->id);

  /* Records of earlier blocks are in the registry too: their Name is
   * checked first, for the clearer message. */
  for (size_t i = 0; i < rc->nrecords; i++)
    if (strcmp(rc->records[i].name, r->name) == 0)
      return fail(err, err_size,
                  "Record \"%s\" Name \"%s\": record %u/%u has that Name "
                  "already; names must be unique",
                  rc->id, r->name, rc->records[i].domain,
                  rc->records[i].number);
  char label[64];
  const struct zvm_record_desc *b =
      rc->reg != NULL ? zvm_registry_find(rc->reg, r->domain, r->number) : NULL;
  if (b != NULL && b->main.type_name == NULL)
    return fail(err, err_size,
                "Record \"%s\" is %s, which the plugin itself needs; it "
                "cannot be redefined",
                rc->id, desc_label(b, label, sizeof(label)));
  if (b != NULL && !r->replace)
    return fail(err, err_size,
                "Record \"%s\" is built in (%s, type %s); add 'Replace true' "
                "to the block to decode it with this definition instead "
                "(its built-in values and notifications then stop)",
                rc->id, desc_label(b, label, sizeof(label)), b->main.type_name);
  if (b == NULL && r->replace)
    return fail(err, err_size,
                "Record \"%s\": Replace true, but there is no built-in "
                "record %s to replace; remove Replace",
                rc->id, rc->id);
  const struct zvm_record_desc *owner = type_owner(rc->reg, r->type_name, b);
  if (owner != NULL)
    return fail(err, err_size,
                "Record \"%s\" Name \"%s\": the type %s belongs to the "
                "built-in %s; choose another Name",
                rc->id, r->name, r->type_name,
                desc_label(owner, label, sizeof(label)));

  if (!zvm_grow(&rc->records, &rc->cap_records, rc->nrecords,
                sizeof(*rc->records), 4))
    return fail(err, err_size, "Record \"%s\": out of memory", rc->id);
  if (rc->reg != NULL) {
    struct zvm_record_desc *d = zvm_urecord_desc(r);
    if (d == NULL)
      return fail(err, err_size, "Record \"%s\": out of memory", rc->id);
    char why[256];
    if (zvm_registry_add(rc->reg, d, r->replace, zvm_urecord_desc_free, why,
                         sizeof(why)) != 0)
      return fail(err, err_size, "Record \"%s\": %s", rc->id, why);
  }
  rc->records[rc->nrecords++] = *r;
  rc->cur = (struct zvm_urecord){0};
  rc->in_record = false;
  return 0;
}

int zvm_recconf_check_domains(const struct zvm_recconf *rc,
                              zvm_domain_mask_t mask, char *err,
                              size_t err_size) {
  for (size_t i = 0; i < rc->nrecords; i++) {
    unsigned d = rc->records[i].domain;
    if (mask & ZVM_DOMAIN_BIT(d))
      continue;
    const char *name = zvm_domain_name(d);
    char num[8];
    snprintf(num, sizeof(num), "%u", d);
    return fail(err, err_size,
                "Record \"%u/%u\": its domain (%s) is not selected by the "
                "Domain options, so it would never be decoded; add Domain "
                "\"%s\" or remove the block",
                d, (unsigned)rc->records[i].number, name ? name : num,
                name ? name : num);
  }
  return 0;
}

/* ------------------------------------------------------------------------
 * The engine's descriptor. One allocation owns the descriptor, its fields
 * and every string, so that the registry frees it with one call.
 */
struct owned_desc {
  struct zvm_record_desc desc; /* first: freed through its address */
  struct zvm_field *fields;
  char *names; /* the field names, NUL separated */
  char *type_name, *prefix, *ibm_name, *source;
  struct zvm_vmdbk_fields vmdbk; /* hook_data with a processor field */
};

static char *dup_or_null(const char *s) { return s != NULL ? strdup(s) : NULL; }

void zvm_urecord_desc_free(const struct zvm_record_desc *d) {
  if (d == NULL)
    return;
  struct owned_desc *o = (struct owned_desc *)(uintptr_t)d;
  free(o->fields);
  free(o->names);
  free(o->type_name);
  free(o->prefix);
  free(o->ibm_name);
  free(o->source);
  free(o);
}

static const enum zvm_field_type engine_types[] = {
    [ZVM_UTYPE_UNSIGNED] = ZVM_TYPE_UNSIGNED,
    [ZVM_UTYPE_SIGNED] = ZVM_TYPE_SIGNED,
    [ZVM_UTYPE_CPUTIMER] = ZVM_TYPE_CPU_TIMER,
    [ZVM_UTYPE_TOD] = ZVM_TYPE_TOD,
    [ZVM_UTYPE_EBCDIC] = ZVM_TYPE_EBCDIC,
    [ZVM_UTYPE_USERID] = ZVM_TYPE_EBCDIC,
    [ZVM_UTYPE_RECORDS] = ZVM_TYPE_RECORD_COUNT,
};

struct zvm_record_desc *zvm_urecord_desc(const struct zvm_urecord *r) {
  struct owned_desc *o = calloc(1, sizeof(*o));
  if (o == NULL)
    return NULL;
  size_t names_len = 0;
  for (size_t i = 0; i < r->nfields; i++)
    names_len +=
        strlen(r->fields[i].name) + 1 + strlen(r->fields[i].elem_prefix) + 1;
  char source[64];
  snprintf(source, sizeof(source), "<Record \"%u/%u\"> in collectd.conf",
           (unsigned)r->domain, (unsigned)r->number);
  o->fields = calloc(r->nfields ? r->nfields : 1, sizeof(*o->fields));
  o->names = malloc(names_len ? names_len : 1);
  o->type_name = dup_or_null(r->type_name);
  o->prefix = dup_or_null(r->instance_prefix ? r->instance_prefix : "");
  o->ibm_name = dup_or_null(r->name);
  o->source = strdup(source);
  if (o->fields == NULL || o->names == NULL || o->type_name == NULL ||
      o->prefix == NULL || o->ibm_name == NULL || o->source == NULL) {
    zvm_urecord_desc_free(&o->desc);
    return NULL;
  }

  struct zvm_key key = {0};
  bool per_vmdbk = false;
  char *name = o->names;
  for (size_t i = 0; i < r->nfields; i++) {
    const struct zvm_ufield *u = &r->fields[i];
    struct zvm_field *f = &o->fields[i];
    size_t len = strlen(u->name) + 1;
    memcpy(name, u->name, len);
    *f = (struct zvm_field){
        .ibm_name = name,
        .metric = name,
        .offset = u->offset,
        .width = (uint8_t)u->length,
        .count = (uint8_t)u->count,
        .type = engine_types[u->type],
        .scale = u->scale,
        .flags = (uint8_t)((u->counts_down ? ZVM_FIELD_DECREMENTS : 0) |
                           (u->mask != 0 ? ZVM_FIELD_MASK : 0)),
        .mask = u->mask,
        .elem_prefix = "_", /* name_0, name_1, ... unless ElementPrefix */
    };
    name += len;
    if (u->elem_prefix[0] != '\0') {
      size_t plen = strlen(u->elem_prefix) + 1;
      memcpy(name, u->elem_prefix, plen);
      f->elem_prefix = name;
      name += plen;
    }
    if (u->kind == ZVM_UKIND_PROCESSOR) {
      f->kind = ZVM_FIELD_ID;
      o->vmdbk.cpuad_offset = u->offset;
      o->vmdbk.cpuad_width = (uint8_t)u->length;
      per_vmdbk = true;
    } else if (u->kind == ZVM_UKIND_BASE) {
      f->kind = ZVM_FIELD_FLAGS;
      o->vmdbk.base_offset = u->offset;
      o->vmdbk.base_width = (uint8_t)u->length;
      o->vmdbk.base_mask = u->mask != 0 ? u->mask : UINT64_MAX;
    } else if (u->kind == ZVM_UKIND_COUNTER) {
      f->kind = ZVM_FIELD_COUNTER;
    } else if (u->kind == ZVM_UKIND_GAUGE) {
      f->kind = ZVM_FIELD_GAUGE;
    } else { /* instance: a part of the key */
      bool text = u->type == ZVM_UTYPE_EBCDIC || u->type == ZVM_UTYPE_USERID;
      struct zvm_key_part *p = &key.part[key.nparts];
      f->kind = text ? ZVM_FIELD_TEXT : ZVM_FIELD_ID;
      p->kind = u->type == ZVM_UTYPE_USERID ? ZVM_KEY_USERID
                : text                      ? ZVM_KEY_EBCDIC
                : u->hex                    ? ZVM_KEY_HEX
                                            : ZVM_KEY_NUMBER;
      p->field = (int16_t)i;
      p->text = key.nparts > 0 ? "_" : o->prefix[0] != '\0' ? o->prefix : NULL;
      key.nparts++;
    }
  }
  o->desc = (struct zvm_record_desc){
      .domain = r->domain,
      .number = r->number,
      .ibm_name = o->ibm_name,
      .title = "defined in collectd.conf",
      .zvm_level = "as configured",
      .source = o->source,
      .length = r->full_len,
      .main =
          {
              /* Past what one value list holds: one value per list. */
              .type_name = r->one_value_per_list ? NULL : o->type_name,
              .one_value_per_list = r->one_value_per_list,
              .key = key,
              .fields = o->fields,
              .nfields = r->nfields,
              .length = r->full_len,
          },
      .user_defined = true,
      /* Written per virtual processor: summed per guest (vmdbk.h). */
      .hooks = per_vmdbk ? &zvm_vmdbk_hooks : NULL,
      .hook_data = per_vmdbk ? &o->vmdbk : NULL,
  };
  return &o->desc;
}
