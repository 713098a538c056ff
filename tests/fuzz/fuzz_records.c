/*
 * Fuzz target: records defined in collectd.conf, then hostile data.
 *
 * Input: 2 bytes (big-endian) of configuration text length N, N bytes of
 * collectd.conf text with <Record> blocks (parsed by tests/recconf_text.c
 * into the recconf builder, as the glue does from collectd's tree), then
 * one data set.
 *
 * A definition the builder accepts must satisfy every documented rule
 * (checked here independently): fields inside bytes 20-4095 and not
 * overlapping, names [a-z][a-z0-9_] of at most 19 characters and unique,
 * at most 63 data sources, types and lengths compatible. A refused one
 * must come with a one-line reason. Then the data set is decoded with the
 * definitions.
 */
#include "fuzz.h"

#include <ctype.h>
#include <stdbool.h>

#include "recconf_text.h"
#include "zvm_monitor/recconf.h"

static const struct zvm_recconf_builtin builtins[] = {
    {1, 11, "D1R11 MRMTREND", NULL, false},
    {1, 13, "D1R13 MRMTREOF", NULL, false},
    {4, 10, "D4R10 MRUSEITE", "zvm_useite", true},
};

static bool ds_name_ok(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 19 || !(s[0] >= 'a' && s[0] <= 'z'))
    return false;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
          s[i] == '_'))
      return false;
  return true;
}

static void check_record(const struct zvm_urecord *r) {
  size_t nds = 0, keys = 0;
  FUZZ_CHECK(r->domain < 16 && r->number >= 1 && r->number <= 255);
  FUZZ_CHECK(r->name != NULL && strlen(r->name) <= 27);
  FUZZ_CHECK(strncmp(r->type_name, "zvm_", 4) == 0 &&
             strcmp(r->type_name + 4, r->name) == 0);
  FUZZ_CHECK(r->instance_prefix != NULL && strlen(r->instance_prefix) <= 16);
  for (size_t i = 0; i < r->nfields; i++) {
    const struct zvm_ufield *f = &r->fields[i];
    unsigned end = (unsigned)f->offset + (unsigned)f->length * f->count;
    FUZZ_CHECK(f->offset >= 20 && f->length >= 1 && f->count >= 1);
    FUZZ_CHECK(end <= 4096 && end <= r->full_len && end >= r->min_len);
    FUZZ_CHECK(f->scale != 0 && f->scale == f->scale);
    for (size_t j = 0; j < i; j++) {
      const struct zvm_ufield *o = &r->fields[j];
      unsigned oend = (unsigned)o->offset + (unsigned)o->length * o->count;
      FUZZ_CHECK(end <= o->offset || oend <= f->offset);
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
      FUZZ_CHECK(f->length <= 16 && f->kind == ZVM_UKIND_INSTANCE);
      break;
    default:
      FUZZ_CHECK(!"unknown type");
    }
    if (f->kind == ZVM_UKIND_INSTANCE) {
      keys++;
      FUZZ_CHECK(f->count == 1);
      continue;
    }
    FUZZ_CHECK(!(f->type == ZVM_UTYPE_TOD && f->kind == ZVM_UKIND_COUNTER));
    for (unsigned e = 0; e < f->count; e++) {
      char ds[64];
      FUZZ_CHECK(zvm_ufield_ds_name(f, e, ds, sizeof(ds)) == 0);
      FUZZ_CHECK(ds_name_ok(ds));
      nds++;
    }
  }
  FUZZ_CHECK(nds == r->nds && nds >= 1 && nds <= 63 && keys <= 2);
  char line[4096];
  FUZZ_CHECK(zvm_urecord_types_db_line(r, line, sizeof(line)) == 0);
  FUZZ_CHECK(strchr(line, '\n') == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  size_t text_len = (size_t)fuzz_be(data, 2);
  if (text_len > size - 2)
    text_len = size - 2;
  /* An exact-size copy: the parser must not read past its length. */
  char *text = (char *)fuzz_dup(data + 2, text_len);

  struct zvm_recconf rc;
  char err[512];
  zvm_recconf_init(&rc, builtins, sizeof(builtins) / sizeof(builtins[0]));
  err[0] = '\0';
  if (recconf_parse_text(&rc, text, text_len, err, sizeof(err)) == 0) {
    for (size_t i = 0; i < rc.nrecords; i++) {
      check_record(&rc.records[i]);
      FUZZ_CHECK(zvm_recconf_find(&rc, rc.records[i].domain,
                                  rc.records[i].number) == &rc.records[i]);
      FUZZ_CHECK(!(rc.records[i].domain == 1 &&
                   (rc.records[i].number == 11 || rc.records[i].number == 13)));
    }
  } else {
    FUZZ_CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
  }
  zvm_recconf_free(&rc);
  free(text);
  return 0;
}
