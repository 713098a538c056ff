/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - checking a descriptor (built-in tables, <Record> blocks)
 * before the registry takes it.
 */
#include "engine/check.h"
#include "base/util.h"
#include "engine/hooks.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/typesdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* collectd's names: letters, digits, '_' (and '-' only in instances). */
static bool valid_name(const char *s, size_t max) {
  if (s == NULL || s[0] == '\0' || strlen(s) >= max)
    return false;
  for (const char *p = s; *p != '\0'; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
          (*p >= '0' && *p <= '9') || *p == '_'))
      return false;
  return true;
}

static const char *field_label(const struct zvm_field *f) {
  return f->ibm_name != NULL ? f->ibm_name : f->metric;
}

static int check_field(const struct zvm_field *f, bool in_entry, char *err,
                       size_t err_size) {
  const char *name = field_label(f);
  if (f->metric == NULL || f->metric[0] == '\0')
    return zvm_format_error(err, err_size, "field %s has no name",
                            name ? name : "?");
  if (f->count == 0)
    return zvm_format_error(err, err_size, "field %s: count 0", name);
  if (f->type == ZVM_TYPE_RECORD_COUNT)
    return f->kind == ZVM_FIELD_COUNTER && f->count == 1
               ? 0
               : zvm_format_error(err, err_size,
                                  "field %s: a record count is one counter",
                                  name);
  switch (f->type) {
  case ZVM_TYPE_UNSIGNED:
  case ZVM_TYPE_SIGNED:
    if (f->width != 1 && f->width != 2 && f->width != 4 && f->width != 8)
      return zvm_format_error(err, err_size,
                              "field %s: width %u (use 1, 2, 4 or 8)", name,
                              (unsigned)f->width);
    break;
  case ZVM_TYPE_TOD:
  case ZVM_TYPE_CPU_TIMER:
    if (f->width != 8)
      return zvm_format_error(err, err_size,
                              "field %s: TOD and CPU-timer fields are 8 bytes",
                              name);
    break;
  case ZVM_TYPE_EBCDIC:
    if (f->width == 0 || zvm_field_dispatched(f))
      return zvm_format_error(
          err, err_size, "field %s: EBCDIC text cannot be a counter or gauge",
          name);
    break;
  default:
    return zvm_format_error(err, err_size, "field %s: unknown type", name);
  }
  if (!in_entry && f->offset < ZVM_MRHDR_LEN && zvm_field_dispatched(f))
    return zvm_format_error(
        err, err_size, "field %s: offset %u lies in the 20-byte record header",
        name, (unsigned)f->offset);
  if ((size_t)f->offset + (size_t)f->width * f->count > UINT16_MAX)
    return zvm_format_error(err, err_size, "field %s lies past 64 KiB", name);
  if (zvm_field_dispatched(f)) {
    char ds[64];
    for (unsigned e = 0; e < f->count; e++)
      if (zvm_field_element_name(f, e, ds, sizeof(ds)) < 0 ||
          !valid_name(ds, sizeof(ds)))
        return zvm_format_error(
            err, err_size,
            "field %s: \"%s\" is not a valid data source name "
            "(letters, digits, '_'; at most 63)",
            name, f->metric);
  }
  return 0;
}

static int check_layout(const struct zvm_layout *l, bool in_entry,
                        const char *what, char *err, size_t err_size) {
  for (size_t i = 0; i < l->nfields; i++)
    if (check_field(&l->fields[i], in_entry, err, err_size) != 0)
      return -1;
  size_t nds = zvm_layout_data_sources(l, NULL, 0);
  if (nds > ZVM_LAYOUT_DS_MAX)
    return zvm_format_error(err, err_size,
                            "%s: %zu values, more than %d in one value list",
                            what, nds, ZVM_LAYOUT_DS_MAX);
  if (l->type_name != NULL && !valid_name(l->type_name, 64))
    return zvm_format_error(err, err_size,
                            "%s: \"%s\" is not a valid type name", what,
                            l->type_name);
  if (nds > 0 && l->type_name == NULL && !l->one_value_per_list)
    return zvm_format_error(err, err_size, "%s: values but no type name", what);
  /* Duplicate data source names (quadratic, at configuration time). */
  if (nds > 1) {
    struct zvm_ds *ds = calloc(nds, sizeof(*ds));
    if (ds == NULL)
      return zvm_format_error(err, err_size, "out of memory");
    zvm_layout_data_sources(l, ds, nds);
    for (size_t i = 0; i < nds; i++)
      for (size_t j = i + 1; j < nds; j++)
        if (strcasecmp(ds[i].name, ds[j].name) == 0) {
          zvm_format_error(err, err_size, "%s: data source \"%s\" twice", what,
                           ds[i].name);
          free(ds);
          return -1;
        }
    free(ds);
  }
  if (l->key.nparts > ZVM_KEY_PARTS_MAX)
    return zvm_format_error(err, err_size, "%s: too many key parts", what);
  for (unsigned p = 0; p < l->key.nparts; p++) {
    const struct zvm_key_part *k = &l->key.part[p];
    if (k->kind == ZVM_KEY_FIXED) {
      if (k->text == NULL)
        return zvm_format_error(err, err_size, "%s: fixed key without a name",
                                what);
      continue;
    }
    if (k->field < 0 || (size_t)k->field >= l->nfields)
      return zvm_format_error(err, err_size, "%s: key field out of range",
                              what);
    const struct zvm_field *f = &l->fields[k->field];
    bool text = k->kind == ZVM_KEY_USERID || k->kind == ZVM_KEY_EBCDIC;
    if (text != (f->type == ZVM_TYPE_EBCDIC) || f->width == 0 || f->width > 8 ||
        f->count != 1)
      return zvm_format_error(
          err, err_size,
          "%s: key field %s cannot name an instance (EBCDIC "
          "names and numbers up to 8 bytes)",
          what, field_label(f));
  }
  return 0;
}

int zvm_record_check(const struct zvm_record_desc *d, char *err,
                     size_t err_size) {
  char what[48];
  snprintf(what, sizeof(what), "record D%uR%u", (unsigned)d->domain,
           (unsigned)d->number);
  if (d->domain >= ZVM_DOMAIN_COUNT)
    return zvm_format_error(err, err_size, "%s: domain must be 0-15", what);
  if (d->hooks != NULL && (unsigned)d->hooks->notify_kind >= ZVM_NOTIFY_KINDS)
    return zvm_format_error(err, err_size,
                            "%s: its hooks' notification kind %u is unknown",
                            what, (unsigned)d->hooks->notify_kind);
  if (check_layout(&d->main, d->window, what, err, err_size) != 0)
    return -1;
  for (size_t a = 0; a < d->narrays; a++) {
    const struct zvm_array *arr = &d->arrays[a];
    const struct zvm_field *loc[3] = {arr->count_field, arr->size_field,
                                      arr->offset_field};
    for (unsigned i = 0; i < 3; i++)
      if (loc[i] == NULL || !zvm_field_is_numeric(loc[i]) ||
          loc[i]->offset < ZVM_MRHDR_LEN)
        return zvm_format_error(
            err, err_size,
            "%s: array %s needs numeric count, size and offset "
            "fields after the header",
            what, arr->ibm_name ? arr->ibm_name : "?");
    if (check_layout(&arr->entry, true, what, err, err_size) != 0)
      return -1;
  }
  return 0;
}
