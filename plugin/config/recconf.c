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
#include "engine/hooks.h"
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

/* Text from the configuration as it may appear in a log line (util.h). */
#define SHOWN_MAX ZVM_SHOWN_MAX
#define shown zvm_shown

static const char *const type_names[] = {
    [ZVM_UTYPE_UNSIGNED] = "unsigned", [ZVM_UTYPE_SIGNED] = "signed",
    [ZVM_UTYPE_CPUTIMER] = "cputimer", [ZVM_UTYPE_TOD] = "tod",
    [ZVM_UTYPE_EBCDIC] = "ebcdic",     [ZVM_UTYPE_USERID] = "userid",
    [ZVM_UTYPE_RECORDS] = "records",
};
static const char *const kind_names[] = {
    [ZVM_UKIND_COUNTER] = "counter",   [ZVM_UKIND_GAUGE] = "gauge",
    [ZVM_UKIND_INSTANCE] = "instance", [ZVM_UKIND_PROCESSOR] = "processor",
    [ZVM_UKIND_BASE] = "base",         [ZVM_UKIND_LAYOUT] = "layout",
};
/* Format: decimal, hex or cputype (f_format). */
static const char *const format_names[] = {"decimal", "hex", "cputype"};
/* AllOnes: IBM MRPRCSMT (z/VM V6R4.0) thread counts "or the value 255
 * (X'FF') to indicate that MAX was specified". */
static const char *const allones_names[] = {
    [ZVM_UALLONES_NAN] = "nan",
    [ZVM_UALLONES_FLAG] = "flag",
};

/* The rules of the field options' values (option.h). */
#define FIELD_SIZE(m) ZVM_OPTION_SIZE(struct zvm_recconf, fcur.m)
static const struct zvm_option_rule type_rule = {ZVM_OPTION_WORDS(type_names),
                                                 .size = FIELD_SIZE(type)};
static const struct zvm_option_rule kind_rule = {ZVM_OPTION_WORDS(kind_names),
                                                 .size = FIELD_SIZE(kind)};
static const struct zvm_option_rule format_rule = {
    ZVM_OPTION_WORDS(format_names)};
static const struct zvm_option_rule allones_rule = {
    ZVM_OPTION_WORDS(allones_names),
    .use = "nan for a count whose X'FF' means MAX, flag for its 0/1 "
           "companion",
    .size = FIELD_SIZE(allones)};
static const struct zvm_option_rule offset_rule = {
    .min = 0,
    .max = ZVM_RECCONF_MAX_RECORD_LEN - 1,
    .whole = true,
    .note = "a byte offset inside a record; records never cross a 4 KB "
            "frame",
    .size = FIELD_SIZE(offset)};
static const struct zvm_option_rule bytes_rule = {
    .min = 1,
    .max = ZVM_RECCONF_MAX_RECORD_LEN,
    .whole = true,
    .unit = "bytes",
    .size = FIELD_SIZE(length)};
static const struct zvm_option_rule count_rule = {.min = 1,
                                                  .max = ZVM_RECCONF_MAX_COUNT,
                                                  .whole = true,
                                                  .note =
                                                      "elements of an array",
                                                  .size = FIELD_SIZE(count)};
/* Mask: the named bits of a flag field, as IBM's bit patterns give them
 * ("1... ...." is 128); whole numbers up to 2^53 are exact in a double. */
static const struct zvm_option_rule mask_rule = {
    .min = 1,
    .max = 9007199254740992.0,
    .whole = true,
    .note = "the bits, e.g. 128 for X'80'",
    .size = FIELD_SIZE(mask)};

/* The <Record>, <Array> and <Field> option tables (option.h); the
 * handlers are below. <Field> and <Array> are blocks: the builder's
 * field_begin/field_end, array_begin/array_end. A field row with a rule:
 * its refusal is worded by the rule (or its handler), and the builder puts
 * the record and field before it (zvm_recconf_set). */
static zvm_option_fn rc_name, rc_prefix, rc_instance_name, f_offset, f_scale,
    f_format, f_elem_prefix, f_single_type, a_name, a_locate;
static int unknown_option(const struct zvm_recconf *rc, const char *key,
                          char *err, size_t err_size);
static char **locate_slot(struct zvm_uarray *a, int which);
/* The arg of a block row: which block. */
enum { BLOCK_FIELD, BLOCK_ARRAY };
static const struct zvm_option record_options[] = {
    {"Name", ZVM_OPTION_STRING, rc_name, 0, NULL},
    {"InstancePrefix", ZVM_OPTION_STRING, rc_prefix, 0, NULL},
    {"InstanceName", ZVM_OPTION_STRING, rc_instance_name, 0, NULL},
    {"Replace", ZVM_OPTION_BOOLEAN, zvm_option_set_flag,
     offsetof(struct zvm_recconf, cur.replace), NULL},
    {"Field", ZVM_OPTION_BLOCK, NULL, BLOCK_FIELD, NULL},
    {"Array", ZVM_OPTION_BLOCK, NULL, BLOCK_ARRAY, NULL},
};
/* An <Array>'s locating fields: the arg is the index into locate[]. */
enum { LOC_COUNT, LOC_SIZE, LOC_OFFSET };
static const struct zvm_option array_options[] = {
    {"Name", ZVM_OPTION_STRING, a_name, 0, NULL},
    {"CountField", ZVM_OPTION_STRING, a_locate, LOC_COUNT, NULL},
    {"SizeField", ZVM_OPTION_STRING, a_locate, LOC_SIZE, NULL},
    {"OffsetField", ZVM_OPTION_STRING, a_locate, LOC_OFFSET, NULL},
    {"Field", ZVM_OPTION_BLOCK, NULL, BLOCK_FIELD, NULL},
};
/* The field rows by index: rc->given has bit F_x once option x is given. */
enum {
  F_OFFSET,
  F_LENGTH,
  F_TYPE,
  F_KIND,
  F_SCALE,
  F_COUNT,
  F_COUNTS_DOWN,
  F_MASK,
  F_FORMAT,
  F_ELEM_PREFIX,
  F_ALLONES,
  F_SINGLE_TYPE,
};
#define FIELD(m) offsetof(struct zvm_recconf, fcur.m)
#define RULE(m, rule) zvm_option_set_rule, FIELD(m), &(rule)
static const struct zvm_option field_options[] = {
    [F_OFFSET] = {"Offset", ZVM_OPTION_NUMBER, f_offset, FIELD(offset),
                  &offset_rule},
    [F_LENGTH] = {"Length", ZVM_OPTION_NUMBER, RULE(length, bytes_rule)},
    [F_TYPE] = {"Type", ZVM_OPTION_STRING, RULE(type, type_rule)},
    [F_KIND] = {"Kind", ZVM_OPTION_STRING, RULE(kind, kind_rule)},
    [F_SCALE] = {"Scale", ZVM_OPTION_NUMBER, f_scale, 0, NULL},
    [F_COUNT] = {"Count", ZVM_OPTION_NUMBER, RULE(count, count_rule)},
    [F_COUNTS_DOWN] = {"CountsDown", ZVM_OPTION_BOOLEAN, zvm_option_set_flag,
                       FIELD(counts_down), NULL},
    [F_MASK] = {"Mask", ZVM_OPTION_NUMBER, RULE(mask, mask_rule)},
    [F_FORMAT] = {"Format", ZVM_OPTION_STRING, f_format, 0, &format_rule},
    [F_ELEM_PREFIX] = {"ElementPrefix", ZVM_OPTION_STRING, f_elem_prefix, 0,
                       NULL},
    [F_ALLONES] = {"AllOnes", ZVM_OPTION_STRING, RULE(allones, allones_rule)},
    [F_SINGLE_TYPE] = {"OneValueType", ZVM_OPTION_STRING, f_single_type, 0,
                       NULL},
};
#define GIVEN(rc, row) (((rc)->given >> (row)) & 1u)
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

void zvm_recconf_init(struct zvm_recconf *rc, struct zvm_registry *reg) {
  *rc = (struct zvm_recconf){.reg = reg};
}

static void field_free(struct zvm_ufield *f) {
  free(f->name);
  *f = (struct zvm_ufield){0};
}

static void fields_free(struct zvm_ufield *fields, size_t n) {
  for (size_t i = 0; i < n; i++)
    field_free(&fields[i]);
  free(fields);
}

static void array_free(struct zvm_uarray *a) {
  fields_free(a->fields, a->nfields);
  free(a->label);
  free(a->name);
  free(a->count_field);
  free(a->size_field);
  free(a->offset_field);
  *a = (struct zvm_uarray){0};
}

static void record_free(struct zvm_urecord *r) {
  fields_free(r->fields, r->nfields);
  for (size_t a = 0; a < r->narrays; a++)
    array_free(&r->arrays[a]);
  free(r->name);
  free(r->instance_prefix);
  free(r->instance_name);
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
  if (rc->in_field)
    return zvm_option_find(field_options, COUNT_OF(field_options), key);
  if (rc->in_array)
    return zvm_option_find(array_options, COUNT_OF(array_options), key);
  return zvm_option_find(record_options, COUNT_OF(record_options), key);
}

/* The fields being built: the current Array's, else the record's. */
struct flist {
  struct zvm_ufield **fields;
  size_t *n, *cap, *nds;
  uint16_t *full_len;
  uint16_t *min_len; /* NULL in an array */
  bool entry;        /* an array entry: offsets from its start */
};

static struct zvm_uarray *cur_array(struct zvm_recconf *rc) {
  return rc->in_array ? &rc->cur.arrays[rc->cur.narrays - 1] : NULL;
}

static struct flist cur_list(struct zvm_recconf *rc) {
  struct zvm_uarray *a = cur_array(rc);
  struct zvm_urecord *r = &rc->cur;
  if (a != NULL)
    return (struct flist){&a->fields, &a->nfields,  &a->cap_fields,
                          &a->nds,    &a->full_len, NULL,
                          true};
  return (struct flist){&r->fields,   &r->nfields, &r->cap_fields, &r->nds,
                        &r->full_len, &r->min_len, false};
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
  rc->in_record = rc->in_field = rc->in_array = false;
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

/* A data source name of the built-in record the block is for (which it can
 * only replace): it may keep the built-in's names, longer ones too. */
static bool builtin_ds_name(const struct zvm_recconf *rc, const char *ds) {
  const struct zvm_record_desc *b =
      rc->reg != NULL
          ? zvm_registry_find(rc->reg, rc->cur.domain, rc->cur.number)
          : NULL;
  if (b == NULL || b->user_defined || strlen(ds) > ZVM_RECCONF_MAX_DS_NAME_LONG)
    return false;
  for (size_t a = 0; a <= b->narrays; a++) {
    const struct zvm_layout *l = a == 0 ? &b->main : &b->arrays[a - 1].entry;
    for (size_t i = 0; i < l->nfields; i++) {
      const struct zvm_field *f = &l->fields[i];
      char name[64];
      for (unsigned e = 0; zvm_field_dispatched(f) && e < f->count; e++)
        if (zvm_field_element_name(f, e, name, sizeof(name)) >= 0 &&
            strcmp(name, ds) == 0)
          return true;
    }
  }
  return false;
}

int zvm_recconf_field_begin(struct zvm_recconf *rc, const char *name, char *err,
                            size_t err_size) {
  if (!rc->in_record || rc->in_field)
    return fail(err, err_size,
                "Field blocks belong directly into a Record "
                "block");
  struct flist l = cur_list(rc);
  bool bad;
  char sb[SHOWN_MAX];
  if (name == NULL)
    name = "";
  if (*l.n >= ZVM_RECCONF_MAX_FIELDS)
    return fail(err, err_size, "Record \"%s\": more than %d Field blocks",
                rc->id, ZVM_RECCONF_MAX_FIELDS);
  field_free(&rc->fcur);
  rc->fcur.name = name_copy(name, ZVM_RECCONF_MAX_DS_NAME_LONG, &bad);
  if (!bad && rc->fcur.name != NULL &&
      strlen(rc->fcur.name) > ZVM_RECCONF_MAX_DS_NAME &&
      !builtin_ds_name(rc, rc->fcur.name)) {
    free(rc->fcur.name);
    rc->fcur.name = NULL;
    bad = true;
  }
  if (bad)
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": a field name is a letter "
                "followed by letters, digits or '_', at most %d characters "
                "(it is the data source name)",
                rc->id, shown(name, sb), ZVM_RECCONF_MAX_DS_NAME);
  if (rc->fcur.name == NULL)
    return fail(err, err_size, "Record \"%s\": out of memory", rc->id);
  for (size_t i = 0; i < *l.n; i++)
    if (strcmp((*l.fields)[i].name, rc->fcur.name) == 0)
      return fail(err, err_size,
                  "Record \"%s\" Field \"%s\" is defined twice: field names "
                  "must be unique (case-insensitive)",
                  rc->id, shown(name, sb));
  rc->fcur.count = 1;
  rc->fcur.scale = 1.0;
  rc->given = 0;
  rc->in_field = true;
  return 0;
}

int zvm_recconf_array_begin(struct zvm_recconf *rc, const char *name, char *err,
                            size_t err_size) {
  if (!rc->in_record || rc->in_field || rc->in_array)
    return fail(err, err_size,
                "Array blocks belong directly into a Record block");
  struct zvm_urecord *r = &rc->cur;
  char sb[SHOWN_MAX];
  bool bad;
  if (name == NULL)
    name = "";
  if (r->narrays >= ZVM_RECCONF_MAX_ARRAYS)
    return fail(err, err_size, "Record \"%s\": more than %d Array blocks",
                rc->id, ZVM_RECCONF_MAX_ARRAYS);
  char *label = name_copy(name, ZVM_RECCONF_MAX_DS_NAME, &bad);
  if (bad)
    return fail(err, err_size,
                "Record \"%s\" Array \"%s\": an array's name is a letter "
                "followed by letters, digits or '_', at most %d characters",
                rc->id, shown(name, sb), ZVM_RECCONF_MAX_DS_NAME);
  if (label == NULL)
    return fail(err, err_size, "Record \"%s\": out of memory", rc->id);
  for (size_t a = 0; a < r->narrays; a++)
    if (strcmp(r->arrays[a].label, label) == 0) {
      free(label);
      return fail(err, err_size,
                  "Record \"%s\" Array \"%s\" is defined twice: array names "
                  "must be unique (case-insensitive)",
                  rc->id, shown(name, sb));
    }
  r->arrays[r->narrays++] = (struct zvm_uarray){.label = label};
  snprintf(rc->id, sizeof(rc->id), "%u/%u\" Array \"%s", (unsigned)r->domain,
           (unsigned)r->number, label);
  rc->in_array = true;
  return 0;
}

int zvm_recconf_array_end(struct zvm_recconf *rc, char *err, size_t err_size) {
  if (!rc->in_array || rc->in_field)
    return fail(err, err_size, "end of an Array block outside one");
  struct zvm_uarray *a = cur_array(rc);
  static const char *const loc_keys[] = {"CountField", "SizeField",
                                         "OffsetField"};
  if (a->name == NULL)
    return fail(err, err_size,
                "Record \"%s\": Name is missing (it names the entries' type, "
                "zvm_<name>)",
                rc->id);
  for (int k = LOC_COUNT; k <= LOC_OFFSET; k++)
    if (*locate_slot(a, k) == NULL)
      return fail(err, err_size,
                  "Record \"%s\": %s is missing (CountField, SizeField and "
                  "OffsetField name the record's fields of Kind layout that "
                  "locate the array)",
                  rc->id, loc_keys[k]);
  bool keyed = false;
  for (size_t i = 0; i < a->nfields; i++)
    keyed |= a->fields[i].kind == ZVM_UKIND_INSTANCE;
  if (!keyed)
    return fail(err, err_size,
                "Record \"%s\": no field of Kind instance; each entry is an "
                "instance of its own and needs its name (e.g. the CPU type, "
                "Format \"cputype\")",
                rc->id);
  if (a->nds == 0)
    return fail(err, err_size,
                "Record \"%s\": no field with Kind counter or gauge, so there "
                "is nothing to dispatch",
                rc->id);
  a->one_value_per_list = a->nds > ZVM_RECCONF_MAX_DS_LIST;
  snprintf(a->type_name, sizeof(a->type_name), "zvm_%s", a->name);
  snprintf(rc->id, sizeof(rc->id), "%u/%u", (unsigned)rc->cur.domain,
           (unsigned)rc->cur.number);
  rc->in_array = false;
  return 0;
}

int zvm_recconf_block_begin(struct zvm_recconf *rc, const char *key,
                            const char *name, char *err, size_t err_size) {
  const struct zvm_option *o = option_row(rc, key);
  if (o == NULL || o->kind != ZVM_OPTION_BLOCK)
    return unknown_option(rc, key, err, err_size);
  return o->arg == BLOCK_ARRAY
             ? zvm_recconf_array_begin(rc, name, err, err_size)
             : zvm_recconf_field_begin(rc, name, err, err_size);
}

int zvm_recconf_block_end(struct zvm_recconf *rc, char *err, size_t err_size) {
  if (rc->in_field)
    return zvm_recconf_field_end(rc, err, err_size);
  return zvm_recconf_array_end(rc, err, err_size);
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
                "ElementPrefix, AllOnes, OneValueType)",
                rc->id, rc->fcur.name, key);
  if (rc->in_array)
    return fail(err, err_size,
                "Record \"%s\": unknown option \"%s\" (Name, CountField, "
                "SizeField, OffsetField, <Field>)",
                rc->id, key);
  return fail(err, err_size,
              "Record \"%s\": unknown option \"%s\" (Name, InstancePrefix, "
              "InstanceName, Replace, <Field>, <Array>)",
              rc->id, key);
}

/* ------------------------------------------------------------------------
 * The options' handlers (rows in record_options and field_options).
 */
/* A name option's value, lower case, into *slot if it is a letter followed
 * by letters, digits or '_', at most max characters: 0, or -1 with
 * "Record "D/R" KEY "VALUE": " and that rule and tail, or what (if not
 * NULL) instead. */
static int take_name(struct zvm_recconf *rc, char **slot, const char *key,
                     const char *value, size_t max, const char *tail,
                     const char *what, char *err, size_t err_size) {
  char sb[SHOWN_MAX];
  bool bad;
  char *copy = name_copy(value, max, &bad);
  if (bad && what != NULL)
    return fail(err, err_size, "Record \"%s\" %s \"%s\": %s", rc->id, key,
                shown(value, sb), what);
  if (bad)
    return fail(err, err_size,
                "Record \"%s\" %s \"%s\": a letter followed by letters, "
                "digits or '_', at most %d characters%s",
                rc->id, key, shown(value, sb), (int)max, tail);
  if (copy == NULL)
    return fail(err, err_size, "Record \"%s\": out of memory", rc->id);
  free(*slot);
  *slot = copy;
  return 0;
}

static int rc_name(void *t, const struct zvm_option *o,
                   const struct zvm_option_value *v, char *err,
                   size_t err_size) {
  struct zvm_recconf *rc = t;
  return take_name(rc, &rc->cur.name, o->key, v->string, ZVM_RECCONF_MAX_NAME,
                   " (the type is zvm_<name>)", NULL, err, err_size);
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

/* Offset: inside a record, and past its header unless in an array entry
 * (whose offsets count from the entry's start). */
static int f_offset(void *t, const struct zvm_option *o,
                    const struct zvm_option_value *v, char *err,
                    size_t err_size) {
  struct zvm_recconf *rc = t;
  if (zvm_option_check(o, v, err, err_size) < 0)
    return -1;
  if (v->number < ZVM_MRHDR_LEN && !rc->in_array)
    return fail(err, err_size,
                "Offset %g lies in the %d-byte record header (MRHDR); offsets "
                "count from the record start as IBM prints them, so fields "
                "start at %d or later",
                v->number, ZVM_MRHDR_LEN, ZVM_MRHDR_LEN);
  return zvm_option_set_rule(t, o, v, err, err_size);
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

/* Format: decimal, hex (an instance number in hexadecimal) or cputype. */
static int f_format(void *t, const struct zvm_option *o,
                    const struct zvm_option_value *v, char *err,
                    size_t err_size) {
  struct zvm_recconf *rc = t;
  int format = zvm_option_check(o, v, err, err_size);
  if (format < 0)
    return -1;
  rc->fcur.hex = format == 1;
  rc->fcur.cputype = format == 2;
  return 0;
}

/* OneValueType: a type of collectd's types.db of one value (the glue
 * checks that it is one at start-up). */
static int f_single_type(void *t, const struct zvm_option *o,
                         const struct zvm_option_value *v, char *err,
                         size_t err_size) {
  (void)o;
  struct zvm_recconf *rc = t;
  char sb[SHOWN_MAX];
  bool bad;
  char *copy = name_copy(v->string, ZVM_RECCONF_MAX_TYPE_NAME, &bad);
  if (bad)
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\" OneValueType \"%s\": a type of "
                "collectd's types.db, a letter followed by letters, digits "
                "or '_', at most %d characters",
                rc->id, rc->fcur.name, shown(v->string, sb),
                ZVM_RECCONF_MAX_TYPE_NAME);
  if (copy == NULL)
    return fail(err, err_size, "Record \"%s\": out of memory", rc->id);
  snprintf(rc->fcur.single_type, sizeof(rc->fcur.single_type), "%s", copy);
  free(copy);
  return 0;
}

/* InstanceName: the one instance of a record without an instance field
 * (D5R21's "system"). */
static int rc_instance_name(void *t, const struct zvm_option *o,
                            const struct zvm_option_value *v, char *err,
                            size_t err_size) {
  struct zvm_recconf *rc = t;
  return take_name(rc, &rc->cur.instance_name, o->key, v->string,
                   ZVM_RECCONF_MAX_PREFIX, "", NULL, err, err_size);
}

static int a_name(void *t, const struct zvm_option *o,
                  const struct zvm_option_value *v, char *err,
                  size_t err_size) {
  struct zvm_recconf *rc = t;
  return take_name(rc, &cur_array(rc)->name, o->key, v->string,
                   ZVM_RECCONF_MAX_NAME, " (the entries' type is zvm_<name>)",
                   NULL, err, err_size);
}

static char **locate_slot(struct zvm_uarray *a, int which) {
  return which == LOC_COUNT  ? &a->count_field
         : which == LOC_SIZE ? &a->size_field
                             : &a->offset_field;
}

/* CountField, SizeField, OffsetField: a field of the record of Kind
 * layout, by name (checked when the record ends). */
static int a_locate(void *t, const struct zvm_option *o,
                    const struct zvm_option_value *v, char *err,
                    size_t err_size) {
  struct zvm_recconf *rc = t;
  return take_name(rc, locate_slot(cur_array(rc), o->arg), o->key, v->string,
                   ZVM_RECCONF_MAX_DS_NAME, "",
                   "the name of a field of the record of Kind layout", err,
                   err_size);
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
  /* A row with a rule (a field's): its refusal after the record and
   * field. */
  char why[512];
  int ret = o->rule == NULL ? o->set(rc, o, v, err, err_size)
                            : o->set(rc, o, v, why, sizeof(why));
  if (ret != 0 && o->rule != NULL)
    return fail(err, err_size, "Record \"%s\" Field \"%s\": %s", rc->id,
                rc->fcur.name, why);
  if (ret == 0 && rc->in_field)
    rc->given |= 1u << (o - field_options);
  return ret;
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
  if ((f->hex || f->cputype) &&
      (f->kind != ZVM_UKIND_INSTANCE || f->type != ZVM_UTYPE_UNSIGNED))
    return "Format applies to instance fields of Type unsigned";
  if (f->single_type[0] != '\0' && f->kind != ZVM_UKIND_COUNTER &&
      f->kind != ZVM_UKIND_GAUGE)
    return "OneValueType names the type of a counter's or a gauge's value";
  if (f->allones != ZVM_UALLONES_NONE) {
    if (f->type != ZVM_UTYPE_UNSIGNED || f->kind != ZVM_UKIND_GAUGE)
      return "AllOnes applies to unsigned gauges (a count whose all-ones "
             "value means MAX)";
    if (f->count != 1 || f->scale != 1.0 || f->counts_down || f->mask != 0)
      return "a field with AllOnes takes no Count, Scale, CountsDown or Mask";
  }
  if (f->kind == ZVM_UKIND_LAYOUT &&
      (f->type != ZVM_UTYPE_UNSIGNED || f->count != 1 || f->scale != 1.0 ||
       f->counts_down || f->mask != 0))
    return "a field that locates an array is unsigned, without Count, Scale, "
           "CountsDown or Mask";
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
  case ZVM_UKIND_LAYOUT:
    return NULL;
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
  struct flist l = cur_list(rc);
  bool in_bytes = !GIVEN(rc, F_TYPE) || f->type != ZVM_UTYPE_RECORDS;
  const char *missing = !GIVEN(rc, F_OFFSET) && in_bytes   ? "Offset"
                        : !GIVEN(rc, F_LENGTH) && in_bytes ? "Length"
                        : !GIVEN(rc, F_TYPE)               ? "Type"
                        : !GIVEN(rc, F_KIND)               ? "Kind"
                                                           : NULL;
  if (missing != NULL)
    return fail(err, err_size,
                "Record \"%s\" Field \"%s\": %s is missing (every field needs "
                "Offset, Length, Type and Kind, from IBM's layout)",
                rc->id, f->name, missing);
  if (!in_bytes && (GIVEN(rc, F_OFFSET) || GIVEN(rc, F_LENGTH)))
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
  const char *why = combination_error(f, GIVEN(rc, F_ELEM_PREFIX));
  if (why == NULL && l.entry &&
      (f->kind == ZVM_UKIND_PROCESSOR || f->kind == ZVM_UKIND_BASE ||
       f->kind == ZVM_UKIND_LAYOUT || f->type == ZVM_UTYPE_USERID ||
       f->type == ZVM_UTYPE_RECORDS))
    why = "not in an array entry (counters, gauges and instance fields of "
          "Type unsigned or ebcdic are)";
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
  struct zvm_ufield *fields = *l.fields;
  for (size_t i = 0; i < *l.n; i++) {
    const struct zvm_ufield *o = &fields[i];
    unsigned oend = (unsigned)o->offset + (unsigned)o->length * o->count;
    /* Views of one field share its bytes: its named bits (Mask) and its
     * MAX flag (AllOnes flag), beside each other or the field itself. */
    bool bits = zvm_ufields_share(f, o);
    if (f->offset < oend && o->offset < end && !bits)
      return fail(err, err_size,
                  "Record \"%s\" Field \"%s\" (bytes %u-%u) overlaps field "
                  "\"%s\" (bytes %u-%u): check the offsets against IBM's "
                  "layout",
                  rc->id, f->name, f->offset, end - 1, o->name, o->offset,
                  oend - 1);
  }
  if (dispatched(f)) {
    size_t nds = *l.nds + f->count;
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
          (strlen(ds) > ZVM_RECCONF_MAX_DS_NAME && !builtin_ds_name(rc, ds)))
        return fail(err, err_size,
                    "Record \"%s\" Field \"%s\": the data source name \"%s\" "
                    "is longer than %d characters; shorten the field name",
                    rc->id, f->name, ds, ZVM_RECCONF_MAX_DS_NAME);
      for (size_t i = 0; i < *l.n; i++) {
        const struct zvm_ufield *o = &fields[i];
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
    *l.nds = nds;
  } else if (f->kind == ZVM_UKIND_PROCESSOR || f->kind == ZVM_UKIND_BASE) {
    for (size_t i = 0; i < *l.n; i++)
      if (fields[i].kind == f->kind)
        return fail(err, err_size,
                    "Record \"%s\" Field \"%s\": field \"%s\" has Kind %s "
                    "already; a record has at most one",
                    rc->id, f->name, fields[i].name, kind_names[f->kind]);
  } else if (f->kind == ZVM_UKIND_INSTANCE) {
    size_t keys = 0;
    for (size_t i = 0; i < *l.n; i++)
      keys += fields[i].kind == ZVM_UKIND_INSTANCE;
    if (keys >= ZVM_RECCONF_MAX_INSTANCE_FIELDS)
      return fail(err, err_size,
                  "Record \"%s\" Field \"%s\": at most %d fields may have "
                  "Kind instance",
                  rc->id, f->name, ZVM_RECCONF_MAX_INSTANCE_FIELDS);
    /* A user ID names the guest (and with GuestsAsHosts is the host): it
     * is the only instance field of its record. */
    bool userid = f->type == ZVM_UTYPE_USERID;
    for (size_t i = 0; i < *l.n; i++)
      userid |= fields[i].kind == ZVM_UKIND_INSTANCE &&
                fields[i].type == ZVM_UTYPE_USERID;
    if (keys > 0 && userid)
      return fail(err, err_size,
                  "Record \"%s\" Field \"%s\": a field of Type userid must "
                  "be the record's only field of Kind instance",
                  rc->id, f->name);
  }

  if (!zvm_grow(l.fields, l.cap, *l.n, sizeof(**l.fields), 8))
    return fail(err, err_size, "Record \"%s\": out of memory", rc->id);
  (*l.fields)[(*l.n)++] = *f;
  *f = (struct zvm_ufield){0}; /* the name moved into the record */
  if (l.min_len != NULL && in_bytes && (*l.min_len == 0 || end < *l.min_len))
    *l.min_len = (uint16_t)end;
  if (end > *l.full_len)
    *l.full_len = (uint16_t)end;
  rc->in_field = false;
  return 0;
}

/* The record's field of Kind layout named name, or NULL. */
static const struct zvm_ufield *layout_field(const struct zvm_urecord *r,
                                             const char *name) {
  for (size_t i = 0; i < r->nfields; i++)
    if (r->fields[i].kind == ZVM_UKIND_LAYOUT &&
        strcmp(r->fields[i].name, name) == 0)
      return &r->fields[i];
  return NULL;
}

/* The arrays against the record's fields: 0, or -1 with the reason. */
static int check_arrays(const struct zvm_recconf *rc, char *err,
                        size_t err_size) {
  const struct zvm_urecord *r = &rc->cur;
  static const char *const loc_keys[] = {"CountField", "SizeField",
                                         "OffsetField"};
  for (size_t a = 0; a < r->narrays; a++) {
    struct zvm_uarray *arr = (struct zvm_uarray *)&r->arrays[a];
    for (int k = LOC_COUNT; k <= LOC_OFFSET; k++)
      if (layout_field(r, *locate_slot(arr, k)) == NULL)
        return fail(
            err, err_size,
            "Record \"%s\" Array \"%s\" %s \"%s\": the record has "
            "no field of that name with Kind layout; define it (Offset, "
            "Length, Type \"unsigned\", Kind \"layout\")",
            rc->id, arr->label, loc_keys[k], *locate_slot(arr, k));
    if (strcmp(arr->name, r->name) == 0)
      return fail(err, err_size,
                  "Record \"%s\" Array \"%s\" Name \"%s\": the record has "
                  "that Name; the types zvm_<name> must differ",
                  rc->id, arr->label, arr->name);
    for (size_t b = 0; b < a; b++)
      if (strcmp(arr->name, r->arrays[b].name) == 0)
        return fail(err, err_size,
                    "Record \"%s\" Array \"%s\" Name \"%s\": array \"%s\" "
                    "has that Name already; names must be unique",
                    rc->id, arr->label, arr->name, r->arrays[b].label);
  }
  for (size_t i = 0; i < r->nfields; i++) {
    const struct zvm_ufield *f = &r->fields[i];
    bool used = false;
    for (size_t a = 0; f->kind == ZVM_UKIND_LAYOUT && a < r->narrays; a++)
      for (int k = LOC_COUNT; k <= LOC_OFFSET; k++)
        used |= strcmp(*locate_slot((struct zvm_uarray *)&r->arrays[a], k),
                       f->name) == 0;
    if (f->kind == ZVM_UKIND_LAYOUT && !used)
      return fail(err, err_size,
                  "Record \"%s\" Field \"%s\": Kind layout, but no Array "
                  "block names it in CountField, SizeField or OffsetField",
                  rc->id, f->name);
  }
  return 0;
}

int zvm_recconf_record_end(struct zvm_recconf *rc, char *err, size_t err_size) {
  if (!rc->in_record || rc->in_field || rc->in_array)
    return fail(err, err_size, "end of a Record block outside one");
  struct zvm_urecord *r = &rc->cur;
  if (r->name == NULL)
    return fail(err, err_size,
                "Record \"%s\": Name is missing (it names the type, "
                "zvm_<name>)",
                rc->id);
  /* A record whose values are all in its arrays (every Array has a
   * counter or gauge): its own part is then dispatched by nobody (the
   * mapper's layout without data sources, no type registered). */
  if (r->nds == 0 && r->narrays == 0)
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
  if (r->nds == 0 && processor)
    return fail(err, err_size,
                "Record \"%s\": a field of Kind processor sums the record's "
                "own counters and gauges per guest, and it has none; add one "
                "or remove the field of Kind processor",
                rc->id);
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
  if (r->instance_name != NULL && keyed)
    return fail(err, err_size,
                "Record \"%s\": InstanceName names the one instance of a "
                "record without an instance field; remove it or the field of "
                "Kind instance",
                rc->id);
  if (r->instance_prefix == NULL && (r->instance_prefix = strdup("")) == NULL)
    return fail(err, err_size, "Record \"%s\": out of memory", rc->id);
  if (check_arrays(rc, err, err_size) != 0)
    return -1;

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
                "(its built-in values then stop%s)",
                rc->id, desc_label(b, label, sizeof(label)), b->main.type_name,
                b->hooks != NULL && b->hooks->kept_by_replacement
                    ? "; its notifications stay"
                : b->hooks != NULL && b->hooks->notify_kind != ZVM_NOTIFY_NONE
                    ? ", and its notifications"
                    : "");
  if (b == NULL && r->replace)
    return fail(err, err_size,
                "Record \"%s\": Replace true, but there is no built-in "
                "record %s to replace; remove Replace",
                rc->id, rc->id);
  for (size_t t = 0; t <= r->narrays; t++) {
    const char *type = t == 0 ? r->type_name : r->arrays[t - 1].type_name;
    const char *name = t == 0 ? r->name : r->arrays[t - 1].name;
    for (size_t i = 0; t > 0 && i < rc->nrecords; i++) {
      const struct zvm_urecord *o = &rc->records[i];
      for (size_t a = 0; a <= o->narrays; a++)
        if (strcmp(a == 0 ? o->name : o->arrays[a - 1].name, name) == 0)
          return fail(err, err_size,
                      "Record \"%s\" Array \"%s\" Name \"%s\": record %u/%u "
                      "has that Name already; names must be unique",
                      rc->id, r->arrays[t - 1].label, name, o->domain,
                      o->number);
    }
    for (size_t i = 0; t == 0 && i < rc->nrecords; i++)
      for (size_t a = 0; a < rc->records[i].narrays; a++)
        if (strcmp(rc->records[i].arrays[a].name, name) == 0)
          return fail(err, err_size,
                      "Record \"%s\" Name \"%s\": an array of record %u/%u "
                      "has that Name already; names must be unique",
                      rc->id, name, rc->records[i].domain,
                      rc->records[i].number);
    const struct zvm_record_desc *owner = type_owner(rc->reg, type, b);
    if (owner != NULL)
      return fail(err, err_size,
                  "Record \"%s\" Name \"%s\": the type %s belongs to the "
                  "built-in %s; choose another Name",
                  rc->id, name, type, desc_label(owner, label, sizeof(label)));
  }

  if (!zvm_grow(&rc->records, &rc->cap_records, rc->nrecords,
                sizeof(*rc->records), 4))
    return fail(err, err_size, "Record \"%s\": out of memory", rc->id);
  if (rc->reg != NULL) {
    struct zvm_record_desc *d = zvm_urecord_desc(r);
    if (d == NULL)
      return fail(err, err_size, "Record \"%s\": out of memory", rc->id);
    /* Hooks that read the record with the built-in's own layout (D5R21's
     * notifications) stay with a block that replaces it (hooks.h). */
    if (b != NULL && d->hooks == NULL && b->hooks != NULL &&
        b->hooks->kept_by_replacement) {
      d->hooks = b->hooks;
      d->hook_data = b->hook_data;
    }
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
  struct zvm_field *fields;    /* the record's, then each array's */
  char *names; /* the field names and type names, NUL separated */
  char *prefix, *source;
  struct zvm_array arrays[ZVM_RECCONF_MAX_ARRAYS];
  struct zvm_vmdbk_fields vmdbk; /* hook_data with a processor field */
};

void zvm_urecord_desc_free(const struct zvm_record_desc *d) {
  if (d == NULL)
    return;
  struct owned_desc *o = (struct owned_desc *)(uintptr_t)d;
  free(o->fields);
  free(o->names);
  free(o->prefix);
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

static const uint8_t allones_flags[] = {
    [ZVM_UALLONES_NONE] = 0,
    [ZVM_UALLONES_NAN] = ZVM_FIELD_FF_IS_MAX,
    [ZVM_UALLONES_FLAG] = ZVM_FIELD_MAX_FLAG,
};

/* s into the names area at *cursor; its copy. */
static const char *put_name(char **cursor, const char *s) {
  size_t len = strlen(s) + 1;
  char *copy = *cursor;
  memcpy(copy, s, len);
  *cursor += len;
  return copy;
}

/* The engine's fields of n <Field> blocks into out, their instance fields
 * into key (prefix before the first part); a processor or base field into
 * o->vmdbk. True if a processor field. */
static bool make_fields(const struct zvm_ufield *u, size_t n,
                        struct zvm_field *out, char **names,
                        struct zvm_key *key, const char *prefix,
                        struct owned_desc *o) {
  bool per_vmdbk = false;
  for (size_t i = 0; i < n; i++) {
    const struct zvm_ufield *uf = &u[i];
    struct zvm_field *f = &out[i];
    const char *name = put_name(names, uf->name);
    *f = (struct zvm_field){
        .ibm_name = name,
        .metric = name,
        .offset = uf->offset,
        .width = (uint8_t)uf->length,
        .count = (uint8_t)uf->count,
        .type = engine_types[uf->type],
        .scale = uf->scale,
        .flags = (uint8_t)((uf->counts_down ? ZVM_FIELD_DECREMENTS : 0) |
                           (uf->mask != 0 ? ZVM_FIELD_MASK : 0) |
                           allones_flags[uf->allones]),
        .mask = uf->mask,
        .elem_prefix = "_", /* name_0, name_1, ... unless ElementPrefix */
    };
    if (uf->elem_prefix[0] != '\0')
      f->elem_prefix = put_name(names, uf->elem_prefix);
    if (uf->single_type[0] != '\0')
      f->single_type = put_name(names, uf->single_type);
    if (uf->kind == ZVM_UKIND_PROCESSOR) {
      f->kind = ZVM_FIELD_ID;
      o->vmdbk.cpuad_offset = uf->offset;
      o->vmdbk.cpuad_width = (uint8_t)uf->length;
      per_vmdbk = true;
    } else if (uf->kind == ZVM_UKIND_BASE) {
      f->kind = ZVM_FIELD_FLAGS;
      o->vmdbk.base_offset = uf->offset;
      o->vmdbk.base_width = (uint8_t)uf->length;
      o->vmdbk.base_mask = uf->mask != 0 ? uf->mask : UINT64_MAX;
    } else if (uf->kind == ZVM_UKIND_LAYOUT) {
      f->kind = ZVM_FIELD_LAYOUT;
    } else if (uf->kind == ZVM_UKIND_COUNTER) {
      f->kind = ZVM_FIELD_COUNTER;
    } else if (uf->kind == ZVM_UKIND_GAUGE) {
      f->kind = ZVM_FIELD_GAUGE;
    } else { /* instance: a part of the key */
      bool text = uf->type == ZVM_UTYPE_EBCDIC || uf->type == ZVM_UTYPE_USERID;
      struct zvm_key_part *p = &key->part[key->nparts];
      f->kind = text ? ZVM_FIELD_TEXT : ZVM_FIELD_ID;
      p->kind = uf->type == ZVM_UTYPE_USERID ? ZVM_KEY_USERID
                : text                       ? ZVM_KEY_EBCDIC
                : uf->hex                    ? ZVM_KEY_HEX
                : uf->cputype                ? ZVM_KEY_CPU_TYPE
                                             : ZVM_KEY_NUMBER;
      p->field = (int16_t)i;
      p->text = key->nparts > 0 ? "_" : prefix[0] != '\0' ? prefix : NULL;
      key->nparts++;
    }
  }
  return per_vmdbk;
}

static size_t names_size(const struct zvm_ufield *u, size_t n) {
  size_t len = 0;
  for (size_t i = 0; i < n; i++)
    len += strlen(u[i].name) + strlen(u[i].elem_prefix) +
           strlen(u[i].single_type) + 3;
  return len;
}

/* The index of the record's field named name (a checked record has it). */
static size_t field_index(const struct zvm_urecord *r, const char *name) {
  for (size_t i = 0; i < r->nfields; i++)
    if (strcmp(r->fields[i].name, name) == 0)
      return i;
  return 0;
}

struct zvm_record_desc *zvm_urecord_desc(const struct zvm_urecord *r) {
  struct owned_desc *o = calloc(1, sizeof(*o));
  if (o == NULL)
    return NULL;
  size_t nfields = r->nfields;
  size_t names_len = names_size(r->fields, r->nfields) + strlen(r->type_name) +
                     strlen(r->name) + 2 +
                     (r->instance_name ? strlen(r->instance_name) + 1 : 0);
  for (size_t a = 0; a < r->narrays; a++) {
    nfields += r->arrays[a].nfields;
    names_len += names_size(r->arrays[a].fields, r->arrays[a].nfields) +
                 strlen(r->arrays[a].type_name) + strlen(r->arrays[a].label) +
                 2;
  }
  char source[64];
  snprintf(source, sizeof(source), "<Record \"%u/%u\"> in collectd.conf",
           (unsigned)r->domain, (unsigned)r->number);
  o->fields = calloc(nfields ? nfields : 1, sizeof(*o->fields));
  o->names = malloc(names_len);
  o->prefix = strdup(r->instance_prefix ? r->instance_prefix : "");
  o->source = strdup(source);
  if (o->fields == NULL || o->names == NULL || o->prefix == NULL ||
      o->source == NULL) {
    zvm_urecord_desc_free(&o->desc);
    return NULL;
  }

  char *names = o->names;
  struct zvm_key key = {0};
  bool per_vmdbk =
      make_fields(r->fields, r->nfields, o->fields, &names, &key, o->prefix, o);
  if (r->instance_name != NULL)
    key = (struct zvm_key){
        .nparts = 1,
        .part = {{.kind = ZVM_KEY_FIXED,
                  .field = -1,
                  .text = put_name(&names, r->instance_name)}}};
  const char *type_name = put_name(&names, r->type_name);
  const char *ibm_name = put_name(&names, r->name);
  struct zvm_field *next = o->fields + r->nfields;
  for (size_t a = 0; a < r->narrays; a++) {
    const struct zvm_uarray *ua = &r->arrays[a];
    struct zvm_array *ea = &o->arrays[a];
    struct zvm_key akey = {0};
    (void)make_fields(ua->fields, ua->nfields, next, &names, &akey, "", o);
    const char *atype = put_name(&names, ua->type_name);
    *ea = (struct zvm_array){
        .ibm_name = put_name(&names, ua->label),
        .count_field = &o->fields[field_index(r, ua->count_field)],
        .size_field = &o->fields[field_index(r, ua->size_field)],
        .offset_field = &o->fields[field_index(r, ua->offset_field)],
        .entry =
            {
                .type_name = ua->one_value_per_list ? NULL : atype,
                .one_value_per_list = ua->one_value_per_list,
                .key = akey,
                .fields = next,
                .nfields = ua->nfields,
                .length = ua->full_len,
            },
    };
    next += ua->nfields;
  }
  o->desc = (struct zvm_record_desc){
      .domain = r->domain,
      .number = r->number,
      .ibm_name = ibm_name,
      .title = "defined in collectd.conf",
      .zvm_level = "as configured",
      .source = o->source,
      .length = r->full_len,
      .main =
          {
              /* Past what one value list holds: one value per list. */
              .type_name = r->one_value_per_list ? NULL : type_name,
              .one_value_per_list = r->one_value_per_list,
              .key = key,
              .fields = o->fields,
              .nfields = r->nfields,
              .length = r->full_len,
          },
      .arrays = r->narrays > 0 ? o->arrays : NULL,
      .narrays = r->narrays,
      .user_defined = true,
      /* Written per virtual processor: summed per guest (vmdbk.h). */
      .hooks = per_vmdbk ? &zvm_vmdbk_hooks : NULL,
      .hook_data = per_vmdbk ? &o->vmdbk : NULL,
  };
  return &o->desc;
}
