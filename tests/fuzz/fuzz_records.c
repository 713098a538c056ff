/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: records defined in collectd.conf, then hostile data.
 *
 * Input: 2 bytes (big-endian) of configuration text length N, N bytes of
 * collectd.conf text with <Record> blocks (parsed by
 * plugin/config/recconf_text.c into the recconf builder, as the glue does from
 * collectd's tree), then one data set.
 *
 * A definition the builder accepts must satisfy every documented rule
 * (checked here independently): fields inside bytes 20-4095 and not
 * overlapping (but for named bits and MAX flags of one field), names
 * [a-z][a-z0-9_] of at most 19 characters (63 for the replaced built-in's
 * own) and unique, types, kinds and lengths compatible; <Array> blocks
 * located by fields of Kind layout, their entries keyed. A refused one
 * must come with a one-line reason. Then the data set goes through the
 * mapper with the definitions (twice, as two read callbacks): every value
 * list must have a registered type with as many values as data sources,
 * and identifier parts made of safe characters only.
 */
#include "fuzz.h"

#include <ctype.h>
#include <stdbool.h>

#include "zvm_monitor/builtin.h"
#include "zvm_monitor/conf.h"
#include "zvm_monitor/mapper.h"
#include "zvm_monitor/recconf.h"
#include "zvm_monitor/recconf_text.h"
#include "zvm_monitor/typesdb.h"

static bool ds_name_ok(const char *s, bool replace) {
  size_t n = strlen(s);
  if (n == 0 || n > (replace ? 63 : 19) || !(s[0] >= 'a' && s[0] <= 'z'))
    return false;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
          s[i] == '_'))
      return false;
  return true;
}

/* The fields of a record (entry false) or of an array's entry: their
 * bytes, names, kinds; returns the data sources, *keys the instance
 * fields. */
static size_t check_fields(const struct zvm_urecord *r,
                           const struct zvm_ufield *fields, size_t n,
                           bool entry, uint16_t full_len, size_t *keys) {
  size_t nds = 0;
  *keys = 0;
  for (size_t i = 0; i < n; i++) {
    const struct zvm_ufield *f = &fields[i];
    unsigned end = (unsigned)f->offset + (unsigned)f->length * f->count;
    bool in_bytes = f->type != ZVM_UTYPE_RECORDS;
    FUZZ_CHECK(!in_bytes || ((entry || f->offset >= 20) && f->length >= 1));
    FUZZ_CHECK(in_bytes || (!entry && f->offset == 0 && f->length == 0 &&
                            f->kind == ZVM_UKIND_COUNTER));
    FUZZ_CHECK(f->count >= 1);
    FUZZ_CHECK(end <= 4096 && end <= full_len &&
               (entry || !in_bytes || end >= r->min_len));
    FUZZ_CHECK(f->scale != 0 && f->scale == f->scale);
    /* a long name only where the replaced built-in record has it */
    FUZZ_CHECK(strlen(f->name) <= 19 || (r->replace && strlen(f->name) <= 63));
    for (size_t j = 0; j < i; j++) {
      const struct zvm_ufield *o = &fields[j];
      unsigned oend = (unsigned)o->offset + (unsigned)o->length * o->count;
      bool views =
          f->offset == o->offset && f->length == o->length &&
          ((f->mask != 0 && o->mask != 0) || f->allones == ZVM_UALLONES_FLAG ||
           o->allones == ZVM_UALLONES_FLAG);
      FUZZ_CHECK(end <= o->offset || oend <= f->offset || views);
      FUZZ_CHECK(strcmp(f->name, o->name) != 0);
    }
    switch (f->type) {
    case ZVM_UTYPE_UNSIGNED:
    case ZVM_UTYPE_SIGNED:
      FUZZ_CHECK(f->length == 1 || f->length == 2 || f->length == 4 ||
                 f->length == 8);
      break;
    case ZVM_UTYPE_CPUTIMER:
    case ZVM_UTYPE_TOD:
      FUZZ_CHECK(f->length == 8);
      break;
    case ZVM_UTYPE_EBCDIC:
      FUZZ_CHECK(f->length <= 8 && f->kind == ZVM_UKIND_INSTANCE);
      break;
    case ZVM_UTYPE_USERID:
      FUZZ_CHECK(!entry && f->length == 8 && f->kind == ZVM_UKIND_INSTANCE);
      break;
    case ZVM_UTYPE_RECORDS:
      FUZZ_CHECK(!entry);
      break;
    default:
      FUZZ_CHECK(!"unknown type");
    }
    FUZZ_CHECK(f->allones == ZVM_UALLONES_NONE ||
               (f->kind == ZVM_UKIND_GAUGE && f->type == ZVM_UTYPE_UNSIGNED &&
                f->count == 1 && f->mask == 0));
    FUZZ_CHECK(!f->cputype || (f->kind == ZVM_UKIND_INSTANCE &&
                               f->type == ZVM_UTYPE_UNSIGNED));
    FUZZ_CHECK(f->single_type[0] == '\0' || f->kind == ZVM_UKIND_COUNTER ||
               f->kind == ZVM_UKIND_GAUGE);
    if (f->kind == ZVM_UKIND_INSTANCE) {
      (*keys)++;
      FUZZ_CHECK(f->count == 1);
      continue;
    }
    if (f->kind == ZVM_UKIND_PROCESSOR || f->kind == ZVM_UKIND_BASE ||
        f->kind == ZVM_UKIND_LAYOUT) {
      FUZZ_CHECK(!entry && f->count == 1 && f->type == ZVM_UTYPE_UNSIGNED);
      continue;
    }
    FUZZ_CHECK(!(f->type == ZVM_UTYPE_TOD && f->kind == ZVM_UKIND_COUNTER));
    for (unsigned e = 0; e < f->count; e++) {
      char ds[80];
      FUZZ_CHECK(zvm_ufield_ds_name(f, e, ds, sizeof(ds)) == 0);
      FUZZ_CHECK(ds_name_ok(ds, r->replace));
      nds++;
    }
  }
  FUZZ_CHECK(*keys <= 2);
  return nds;
}

/* The record's field of Kind layout named name. */
static bool layout_named(const struct zvm_urecord *r, const char *name) {
  for (size_t i = 0; name != NULL && i < r->nfields; i++)
    if (r->fields[i].kind == ZVM_UKIND_LAYOUT &&
        strcmp(r->fields[i].name, name) == 0)
      return true;
  return false;
}

static void check_record(const struct zvm_urecord *r) {
  size_t keys;
  FUZZ_CHECK(r->domain < 16 && r->number >= 1 && r->number <= 255);
  FUZZ_CHECK(r->name != NULL && strlen(r->name) <= 27);
  FUZZ_CHECK(strncmp(r->type_name, "zvm_", 4) == 0 &&
             strcmp(r->type_name + 4, r->name) == 0);
  FUZZ_CHECK(r->instance_prefix != NULL && strlen(r->instance_prefix) <= 16);
  size_t nds =
      check_fields(r, r->fields, r->nfields, false, r->full_len, &keys);
  FUZZ_CHECK(nds == r->nds && nds >= 1 && nds <= 256);
  FUZZ_CHECK(r->one_value_per_list == (nds > 63));
  for (size_t i = 0; i < r->nfields; i++)
    if (r->fields[i].type == ZVM_UTYPE_USERID)
      FUZZ_CHECK(keys == 1);
  FUZZ_CHECK(r->instance_prefix[0] == '\0' || keys > 0);
  FUZZ_CHECK(r->instance_name == NULL || keys == 0);
  FUZZ_CHECK(r->narrays <= ZVM_RECCONF_MAX_ARRAYS);
  for (size_t a = 0; a < r->narrays; a++) {
    const struct zvm_uarray *ar = &r->arrays[a];
    FUZZ_CHECK(ar->name != NULL && strcmp(ar->name, r->name) != 0);
    FUZZ_CHECK(layout_named(r, ar->count_field) &&
               layout_named(r, ar->size_field) &&
               layout_named(r, ar->offset_field));
    size_t ands =
        check_fields(r, ar->fields, ar->nfields, true, ar->full_len, &keys);
    FUZZ_CHECK(ands == ar->nds && ands >= 1 && ands <= 256 && keys >= 1);
    FUZZ_CHECK(ar->one_value_per_list == (ands > 63));
  }
}

static bool id_ok(const char *s) {
  size_t n = strlen(s);
  FUZZ_CHECK(n < 64);
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
          (s[i] >= '0' && s[i] <= '9') || strchr("@#$_+%-", s[i]) != NULL))
      return false;
  return true;
}

/* The data set through the mapper with conf's records. */
static void map_set(const struct zvm_conf *conf, const uint8_t *set,
                    size_t len) {
  struct zvm_mapper *m = zvm_mapper_create(conf);
  FUZZ_CHECK(m != NULL);
  for (int pass = 0; pass < 2; pass++) {
    zvm_mapper_add_set_at(m, set, len, UINT64_C(1800000000000000));
    FUZZ_CHECK(zvm_mapper_finish(m, UINT64_C(1800000000000000), NULL) == 0);
    struct zvm_value_iter it = ZVM_VALUE_ITER_INIT;
    struct zvm_value v;
    while (zvm_mapper_next_value(m, &it, &v)) {
      FUZZ_CHECK(id_ok(v.host) && id_ok(v.plugin_instance) &&
                 id_ok(v.type_instance));
      if (v.nitems == 0)
        continue;
      const struct zvm_layout *l = NULL;
      for (size_t t = 0; t < zvm_mapper_type_count(m) && l == NULL; t++)
        if (strcmp(zvm_mapper_type_at(m, t)->type_name, v.type) == 0)
          l = zvm_mapper_type_at(m, t);
      FUZZ_CHECK(l != NULL);
      FUZZ_CHECK(zvm_layout_data_sources(l, NULL, 0) == v.nitems);
    }
  }
  zvm_mapper_destroy(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  size_t text_len = (size_t)fuzz_be(data, 2);
  if (text_len > size - 2)
    text_len = size - 2;
  /* An exact-size copy: the parser must not read past its length. */
  char *text = (char *)fuzz_dup(data + 2, text_len);

  struct zvm_conf conf;
  FUZZ_CHECK(zvm_conf_init(&conf, zvm_registry_builtin()) == 0);
  struct zvm_recconf rc;
  char err[512];
  zvm_recconf_init(&rc, conf.records);
  err[0] = '\0';
  if (zvm_recconf_parse_text(&rc, text, text_len, err, sizeof(err)) == 0) {
    for (size_t i = 0; i < rc.nrecords; i++) {
      check_record(&rc.records[i]);
      FUZZ_CHECK(zvm_recconf_find(&rc, rc.records[i].domain,
                                  rc.records[i].number) == &rc.records[i]);
      FUZZ_CHECK(!(rc.records[i].domain == 1 &&
                   (rc.records[i].number == 11 || rc.records[i].number == 13)));
    }
    uint8_t *set = fuzz_dup(data + 2 + text_len, size - 2 - text_len);
    map_set(&conf, set, size - 2 - text_len);
    free(set);
  } else {
    FUZZ_CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
  }
  zvm_recconf_free(&rc);
  zvm_conf_free(&conf);
  free(text);
  return 0;
}
