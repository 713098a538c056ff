/*
 * zvm_monitor - the record engine: field access, descriptor checks, the
 * registry, types.db lines, the walk of a set with a registry's
 * descriptors. The descriptors themselves are data, one file per record
 * (plugin/records/, plugin/appldata/aplsdt.c).
 */
#include "zvm_monitor/records.h"
#include "zvm_monitor/be.h"
#include "zvm_monitor/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *zvm_cpu_type_name(uint8_t type) {
  switch (type) {
  case ZVM_CPU_CP:
    return "cp";
  case ZVM_CPU_ZAAP:
    return "zaap";
  case ZVM_CPU_IFL:
    return "ifl";
  case ZVM_CPU_ICF:
    return "icf";
  case ZVM_CPU_ZIIP:
    return "ziip";
  default:
    return NULL;
  }
}

/* ------------------------------------------------------------------------
 * Field access.
 */
bool zvm_field_dispatched(const struct zvm_field *f) {
  return f->kind == ZVM_FIELD_COUNTER || f->kind == ZVM_FIELD_GAUGE;
}

static bool field_in_bytes(const struct zvm_field *f) {
  return f->type != ZVM_TYPE_RECORD_COUNT;
}

static bool field_is_numeric(const struct zvm_field *f) {
  return f->type != ZVM_TYPE_EBCDIC && f->type != ZVM_TYPE_RECORD_COUNT &&
         f->kind != ZVM_FIELD_TEXT;
}

int zvm_field_element_name(const struct zvm_field *f, unsigned idx, char *buf,
                           size_t size) {
  int n;
  if (f->count <= 1)
    n = snprintf(buf, size, "%s", f->metric);
  else
    n = snprintf(buf, size, "%s%s%u", f->metric,
                 f->elem_prefix != NULL ? f->elem_prefix
                 : f->count == 4        ? "_q"
                                        : "_",
                 idx);
  return n >= 0 && (size_t)n < size ? n : -1;
}

bool zvm_field_present(const struct zvm_field *f, size_t len, unsigned idx) {
  if (idx >= f->count || !field_in_bytes(f))
    return false;
  return zvm_in_bounds(len, (size_t)f->offset + (size_t)idx * f->width,
                       f->width);
}

bool zvm_field_u64(const struct zvm_field *f, const uint8_t *data, size_t len,
                   unsigned idx, uint64_t *out) {
  if (!field_is_numeric(f) || !zvm_field_present(f, len, idx))
    return false;
  return zvm_be_uint(data, len, (size_t)f->offset + (size_t)idx * f->width,
                     f->width, out);
}

bool zvm_field_i64(const struct zvm_field *f, const uint8_t *data, size_t len,
                   unsigned idx, int64_t *out) {
  uint64_t raw;
  if (!zvm_field_u64(f, data, len, idx, &raw))
    return false;
  if (f->type == ZVM_TYPE_SIGNED) {
    *out = zvm_sign_extend(raw, f->width);
  } else {
    if (raw > (uint64_t)INT64_MAX)
      return false;
    *out = (int64_t)raw;
  }
  return true;
}

bool zvm_field_value(const struct zvm_field *f, const uint8_t *data, size_t len,
                     unsigned idx, int64_t *derive, double *gauge) {
  if (!zvm_field_dispatched(f))
    return false;
  uint64_t raw;
  if (!zvm_field_u64(f, data, len, idx, &raw))
    return false;
  int64_t x;
  if (f->flags &
      (ZVM_FIELD_FF_IS_MAX | ZVM_FIELD_MAX_FLAG | ZVM_FIELD_TOP_BIT)) {
    /* One-byte codes of IBM MRPRCSMT (z/VM V6R4.0): the flag, or the count
     * unless MAX. */
    bool is_max = raw == UINT64_MAX >> (64 - 8 * f->width);
    if (f->flags & ZVM_FIELD_TOP_BIT)
      *gauge = (double)((raw >> (8 * f->width - 1)) & 1);
    else if (f->flags & ZVM_FIELD_MAX_FLAG)
      *gauge = is_max ? 1 : 0;
    else
      *gauge = is_max ? NAN : (double)raw;
    *derive = 0;
    return f->kind == ZVM_FIELD_GAUGE;
  }
  /* A count down from X'7FFF...' (IBM: SYTPRP_PFXPRBTM "starts at
   * x'7FFFFFFF_00000000' and advances down") becomes what was used since:
   * X'7FFFFFFFFFFFFFFF' minus the value, in the type's unit, a positive
   * number that grows at the rate the field falls. Modulo 2^64, so a timer
   * that runs past zero (negative) keeps growing. */
  bool down = (f->flags & ZVM_FIELD_DECREMENTS) && f->width == 8 &&
              (f->type == ZVM_TYPE_UNSIGNED || f->type == ZVM_TYPE_CPU_TIMER);
  if (down)
    raw = UINT64_C(0x7FFFFFFFFFFFFFFF) - raw;
  switch (f->type) {
  case ZVM_TYPE_SIGNED:
    x = zvm_sign_extend(raw, f->width);
    break;
  case ZVM_TYPE_TOD: {
    uint64_t us;
    if (!zvm_tod_to_unix_us(raw, &us))
      return false; /* no monitor time is before 1970 */
    if (f->kind == ZVM_FIELD_GAUGE) {
      double sec = (double)us / 1e6;
      *gauge = f->scale != 0 ? sec * f->scale : sec;
      return true;
    }
    x = (int64_t)us;
    break;
  }
  case ZVM_TYPE_CPU_TIMER:
    x = (int64_t)zvm_timer_to_us(raw); /* < 2^52: fits */
    break;
  default:
    if (raw > (uint64_t)INT64_MAX)
      return false;
    x = (int64_t)raw;
    break;
  }
  if ((f->flags & ZVM_FIELD_DECREMENTS) && !down)
    x = -x; /* raw >= 0 here or small negative: no overflow */
  if (f->kind == ZVM_FIELD_GAUGE) {
    *gauge = f->scale != 0 ? (double)x * f->scale : (double)x;
    return true;
  }
  if (f->scale != 0 && f->scale != 1) {
    double d = (double)x * f->scale;
    if (!(d > -9.2e18 && d < 9.2e18))
      return false;
    x = (int64_t)d;
  }
  *derive = x;
  return true;
}

enum zvm_array_status zvm_array_locate(const struct zvm_array *a,
                                       const uint8_t *rec, size_t rec_len,
                                       struct zvm_array_view *view) {
  uint64_t count, entry_size, offset;
  if (!zvm_field_u64(a->count_field, rec, rec_len, 0, &count) ||
      !zvm_field_u64(a->size_field, rec, rec_len, 0, &entry_size) ||
      !zvm_field_u64(a->offset_field, rec, rec_len, 0, &offset))
    return ZVM_ARRAY_ABSENT;

  if (count == 0) {
    *view = (struct zvm_array_view){.base = rec, .count = 0, .entry_size = 0};
    return ZVM_ARRAY_OK;
  }
  /* Entries may not overlap the header, must have a size, and all of them
   * must lie inside the record. The quotient test cannot overflow for any
   * widths of the locating fields. */
  if (entry_size == 0 || offset < ZVM_MRHDR_LEN || offset > rec_len ||
      count > (rec_len - offset) / entry_size)
    return ZVM_ARRAY_BAD;

  *view = (struct zvm_array_view){
      .base = rec + offset,
      .count = (size_t)count,
      .entry_size = (size_t)entry_size,
  };
  return ZVM_ARRAY_OK;
}

/* ------------------------------------------------------------------------
 * Data sources and types.db lines.
 */
size_t zvm_layout_data_sources(const struct zvm_layout *l, struct zvm_ds *ds,
                               size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < l->nfields; i++) {
    const struct zvm_field *f = &l->fields[i];
    if (!zvm_field_dispatched(f))
      continue;
    for (unsigned e = 0; e < f->count; e++, n++) {
      if (n >= max)
        continue;
      if (zvm_field_element_name(f, e, ds[n].name, sizeof(ds[n].name)) < 0)
        ds[n].name[0] = '\0'; /* zvm_record_check() rejects such names */
      bool counter = f->kind == ZVM_FIELD_COUNTER;
      ds[n].type = counter ? ZVM_DS_DERIVE : ZVM_DS_GAUGE;
      /* A DERIVE minimum bounds the rate (types.db(5)); every counter,
       * one that counts down included, is dispatched with a rate >= 0. */
      ds[n].min = counter ? 0 : NAN;
      ds[n].max = NAN;
    }
  }
  return n;
}

int zvm_layout_types_db_line(const struct zvm_layout *l, char *buf,
                             size_t size) {
  if (l->type_name == NULL || size == 0)
    return -1;
  size_t n = zvm_layout_data_sources(l, NULL, 0);
  if (n == 0)
    return -1;
  struct zvm_ds *ds = calloc(n, sizeof(*ds));
  if (ds == NULL)
    return -1;
  zvm_layout_data_sources(l, ds, n);
  size_t len = 0;
  int w = snprintf(buf, size, "%s\t", l->type_name);
  bool ok = w >= 0 && (size_t)w < size;
  len = ok ? (size_t)w : 0;
  for (size_t i = 0; ok && i < n; i++) {
    char min[32] = "U", max[32] = "U";
    if (!isnan(ds[i].min))
      snprintf(min, sizeof(min), "%g", ds[i].min);
    if (!isnan(ds[i].max))
      snprintf(max, sizeof(max), "%g", ds[i].max);
    w = snprintf(buf + len, size - len, "%s%s:%s:%s:%s", i ? ", " : "",
                 ds[i].name, ds[i].type == ZVM_DS_DERIVE ? "DERIVE" : "GAUGE",
                 min, max);
    ok = w >= 0 && (size_t)w < size - len;
    if (ok)
      len += (size_t)w;
  }
  free(ds);
  return ok ? (int)len : -1;
}

/* ------------------------------------------------------------------------
 * Checking descriptors.
 */
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
  if (check_layout(&d->main, d->window, what, err, err_size) != 0)
    return -1;
  for (size_t a = 0; a < d->narrays; a++) {
    const struct zvm_array *arr = &d->arrays[a];
    const struct zvm_field *loc[3] = {arr->count_field, arr->size_field,
                                      arr->offset_field};
    for (unsigned i = 0; i < 3; i++)
      if (loc[i] == NULL || !field_is_numeric(loc[i]) ||
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

/* ------------------------------------------------------------------------
 * Registry: per domain a table indexed by record number, grown to the
 * largest number added (record numbers are small in practice).
 */
struct reg_entry {
  const struct zvm_record_desc *desc;
  void (*free_desc)(const struct zvm_record_desc *d);
};

struct zvm_registry {
  struct reg_entry *all; /* in order of addition */
  size_t n, cap;
  size_t *slot[ZVM_DOMAIN_COUNT]; /* record number -> 1 + index in all */
  size_t nslots[ZVM_DOMAIN_COUNT];
};

struct zvm_registry *zvm_registry_create(void) {
  return calloc(1, sizeof(struct zvm_registry));
}

void zvm_registry_destroy(struct zvm_registry *r) {
  if (r == NULL)
    return;
  for (size_t i = 0; i < r->n; i++)
    if (r->all[i].free_desc != NULL)
      r->all[i].free_desc(r->all[i].desc);
  free(r->all);
  for (unsigned d = 0; d < ZVM_DOMAIN_COUNT; d++)
    free(r->slot[d]);
  free(r);
}

static bool type_clash(const struct zvm_layout *a, const struct zvm_layout *b) {
  return a->type_name != NULL && b->type_name != NULL &&
         strcmp(a->type_name, b->type_name) == 0;
}

/* A type name of d already used by another record than skip. */
static const char *clashing_type(const struct zvm_registry *r,
                                 const struct zvm_record_desc *d,
                                 const struct zvm_record_desc *skip) {
  for (size_t i = 0; i < r->n; i++) {
    const struct zvm_record_desc *o = r->all[i].desc;
    if (o == skip)
      continue;
    const struct zvm_layout *ol[8], *dl[8];
    size_t on = 0, dn = 0;
    ol[on++] = &o->main;
    for (size_t a = 0; a < o->narrays && on < 8; a++)
      ol[on++] = &o->arrays[a].entry;
    dl[dn++] = &d->main;
    for (size_t a = 0; a < d->narrays && dn < 8; a++)
      dl[dn++] = &d->arrays[a].entry;
    for (size_t x = 0; x < dn; x++)
      for (size_t y = 0; y < on; y++)
        if (type_clash(dl[x], ol[y]))
          return dl[x]->type_name;
  }
  return NULL;
}

int zvm_registry_add(struct zvm_registry *r, const struct zvm_record_desc *d,
                     bool replace,
                     void (*free_desc)(const struct zvm_record_desc *d),
                     char *err, size_t err_size) {
  int status = zvm_record_check(d, err, err_size);
  const struct zvm_record_desc *old =
      status == 0 ? zvm_registry_find(r, d->domain, d->number) : NULL;
  if (status == 0 && old != NULL && !replace)
    status = zvm_format_error(
        err, err_size, "record D%uR%u is defined twice (%s and %s)",
        (unsigned)d->domain, (unsigned)d->number,
        old->ibm_name ? old->ibm_name : "?", d->ibm_name ? d->ibm_name : "?");
  const char *type = status == 0 ? clashing_type(r, d, old) : NULL;
  if (type != NULL)
    status = zvm_format_error(err, err_size,
                              "record D%uR%u: type name \"%s\" is already used",
                              (unsigned)d->domain, (unsigned)d->number, type);
  if (status != 0) {
    if (free_desc != NULL)
      free_desc(d);
    return -1;
  }

  if (old != NULL) {
    size_t i = r->slot[d->domain][d->number] - 1;
    if (r->all[i].free_desc != NULL)
      r->all[i].free_desc(r->all[i].desc);
    r->all[i] = (struct reg_entry){d, free_desc};
    return 0;
  }

  size_t nslots = r->nslots[d->domain];
  if (!zvm_grow(&r->slot[d->domain], &r->nslots[d->domain], d->number,
                sizeof(size_t), 64))
    goto nomem;
  memset(r->slot[d->domain] + nslots, 0,
         (r->nslots[d->domain] - nslots) * sizeof(size_t));
  if (!zvm_grow(&r->all, &r->cap, r->n, sizeof(*r->all), 16))
    goto nomem;
  r->all[r->n++] = (struct reg_entry){d, free_desc};
  r->slot[d->domain][d->number] = r->n;
  return 0;

nomem:
  if (free_desc != NULL)
    free_desc(d);
  return zvm_format_error(err, err_size, "out of memory");
}

const struct zvm_record_desc *zvm_registry_find(const struct zvm_registry *r,
                                                uint8_t domain,
                                                uint16_t number) {
  if (domain >= ZVM_DOMAIN_COUNT || number >= r->nslots[domain])
    return NULL;
  size_t i = r->slot[domain][number];
  return i ? r->all[i - 1].desc : NULL;
}

size_t zvm_registry_count(const struct zvm_registry *r) { return r->n; }

const struct zvm_record_desc *zvm_registry_at(const struct zvm_registry *r,
                                              size_t i) {
  return i < r->n ? r->all[i].desc : NULL;
}

/* ------------------------------------------------------------------------
 * Walking a set with the tables.
 */
void zvm_record_check_arrays(const struct zvm_record_desc *d,
                             const struct zvm_record *rec,
                             struct zvm_decode_stats *stats) {
  /* An unusable array is counted, yet the record's fixed part is still
   * accepted: the mapper locates the arrays itself and skips a bad one. */
  for (size_t a = 0; a < d->narrays; a++) {
    struct zvm_array_view view;
    if (zvm_array_locate(&d->arrays[a], rec->data, rec->len, &view) ==
        ZVM_ARRAY_BAD) {
      stats->array_rejected++;
      break;
    }
  }
}

void zvm_decode_set_with(const struct zvm_registry *r, const uint8_t *buf,
                         size_t len, zvm_domain_mask_t select, zvm_record_cb cb,
                         void *ctx, struct zvm_decode_stats *stats) {
  struct zvm_walk walk;
  struct zvm_record rec;
  zvm_walk_init(&walk, buf, len, select);
  while (zvm_walk_next(&walk, &rec)) {
    const struct zvm_record_desc *desc =
        zvm_registry_find(r, rec.domain, rec.number);
    if (zvm_record_accept(desc, &rec, stats) && cb != NULL)
      cb(&rec, desc, ctx);
  }
  zvm_walk_stats_add(&stats->walk, &walk.stats);
}
