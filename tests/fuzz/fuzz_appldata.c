/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: one domain 10 (APPLDATA) record, as a guest can shape it.
 *
 * Input: 1 byte of name buffer size, then the record (its MRHDR included).
 * The record is copied into a heap block of exactly its size, so ASan sees
 * any read past it. Checked: a decoded record's data window lies inside the
 * record (CALDATOF/CALDATLN, recomputed here); every os per-CPU entry and
 * every length-prefixed string lies inside the window; every value list has
 * 1-3 values and names made only of [A-Za-z0-9._+%~-], shorter than 64;
 * no identifier twice from one record; zvm_apl_name() never writes past
 * a buffer of the given size and only writes safe characters; a compacted
 * record (zvm_apl_compact) decodes to as many value lists.
 *
 * Then the record (its MRHDR made a valid D10R2 header) goes through the
 * record engine and the mapper twice, 72 minutes apart, in one pass (bit
 * X'40' of the first byte: every kind, ApplDataNaming zvm_monitor): every
 * value's names are safe and no identifier comes twice.
 */
#include "fuzz.h"

#include <stdbool.h>

#include "appldata/appldata.h"
#include "conf_options.h"
#include "mapper_values.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/conf.h"
#include "zvm_monitor/mapper.h"

static bool name_ok(const char *s) {
  size_t n = strlen(s);
  if (n >= ZVM_APL_NAME_MAX)
    return false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' ||
          c == '%' || c == '~' || c == '-'))
      return false;
  }
  return true;
}

#define SEEN_MAX 2048
struct seen {
  char ids[SEEN_MAX][4 * ZVM_APL_NAME_MAX];
  size_t n;
};
static struct seen seen;

static void check_value(void *ctx, const struct zvm_apl_value *v) {
  (void)ctx;
  FUZZ_CHECK(v->n >= 1 && v->n <= ZVM_APL_ITEMS_MAX);
  const struct zvm_list_name *nm = &v->name;
  FUZZ_CHECK(nm->family[0] != '\0' && nm->metric[0] != '\0');
  FUZZ_CHECK(name_ok(nm->family) && name_ok(nm->member) &&
             name_ok(nm->metric) && name_ok(nm->label));
  for (size_t i = 0; i < v->n; i++)
    FUZZ_CHECK(nm->item_names[i] != NULL && name_ok(nm->item_names[i]));
  char id[4 * ZVM_APL_NAME_MAX];
  snprintf(id, sizeof(id), "%s/%s/%s/%s", nm->family, nm->member, nm->metric,
           nm->label);
  for (size_t i = 0; i < seen.n; i++)
    FUZZ_CHECK(strcmp(seen.ids[i], id) != 0);
  FUZZ_CHECK(seen.n < SEEN_MAX);
  memcpy(seen.ids[seen.n++], id, sizeof(id));
}

static bool inside(const uint8_t *base, size_t len, const uint8_t *p,
                   size_t n) {
  return p >= base && (size_t)(p - base) <= len &&
         n <= len - (size_t)(p - base);
}

static void check_str(const struct zvm_apl_header *h,
                      const struct zvm_apl_str *s) {
  FUZZ_CHECK(inside(h->data, h->data_len, s->p, s->len));
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The record as a D10R2 in a data set, twice, through a mapper as new
 * (reset after each record: as new, its unit test). */
static void through_mapper(const uint8_t *rec, size_t len, bool all) {
  if (len < 20 || len > 4096 - 12)
    return;
  /* Two configurations and their mappers, built once (the mapper only
   * reads them): the default, and every kind with ApplDataNaming
   * zvm_monitor. */
  static struct zvm_conf confs[2];
  static struct zvm_mapper *mappers[2];
  static bool ready;
  if (!ready) {
    char err[256];
    FUZZ_CHECK(zvm_conf_init(&confs[0], zvm_registry_builtin()) == 0);
    FUZZ_CHECK(zvm_conf_init(&confs[1], zvm_registry_builtin()) == 0);
    static const char *const kinds[] = {"os",     "mem",       "net_sum",
                                        "fsstat", "procd_sum", "procd_task"};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
      FUZZ_CHECK(zvm_conf_set_string(&confs[1], "ApplDataKinds", kinds[i], err,
                                     sizeof(err)) == 0);
    FUZZ_CHECK(zvm_conf_set_string(&confs[1], "ApplDataNaming", "zvm_monitor",
                                   err, sizeof(err)) == 0);
    for (size_t i = 0; i < 2; i++)
      FUZZ_CHECK((mappers[i] = zvm_mapper_create(&confs[i])) != NULL);
    ready = true;
  }
  struct zvm_mapper *m = mappers[all ? 1 : 0];
  uint8_t *set = malloc(12 + len);
  FUZZ_CHECK(set != NULL);
  const uint32_t start = 0x00400000;
  const uint32_t end = start + (uint32_t)len - 1;
  const uint8_t mce[12] = {0xE2,
                           0x00,
                           0x20,
                           0x00,
                           (uint8_t)(start >> 24),
                           (uint8_t)(start >> 16),
                           (uint8_t)(start >> 8),
                           (uint8_t)start,
                           (uint8_t)(end >> 24),
                           (uint8_t)(end >> 16),
                           (uint8_t)(end >> 8),
                           (uint8_t)end};
  memcpy(set, mce, sizeof(mce));
  memcpy(set + 12, rec, len);
  uint8_t *r = set + 12;
  r[0] = (uint8_t)(len >> 8); /* MRHDRLEN */
  r[1] = (uint8_t)len;
  r[2] = r[3] = 0; /* MRHDRZER */
  r[4] = 10;       /* domain */
  r[6] = 0;
  r[7] = 2;                                             /* D10R2 */
  memcpy(r + 8, "\xDC\x00\x00\x00\x00\x00\x00\x00", 8); /* 2022-08-23 */
  zvm_mapper_add_set(m, set, 12 + len);
  r[10] = 0x10; /* 72 minutes later */
  zvm_mapper_add_set(m, set, 12 + len);
  FUZZ_CHECK(zvm_mapper_finish(m, 0, NULL) == 0);
  size_t n;
  const struct zvm_value *v = mapper_values(m, &n);
  FUZZ_CHECK(v != NULL || n == 0);
  char **ids = malloc((n ? n : 1) * sizeof(*ids));
  FUZZ_CHECK(ids != NULL);
  for (size_t i = 0; i < n; i++) {
    const char *pl = v[i].plugin != NULL ? v[i].plugin : "zvm_monitor";
    FUZZ_CHECK(v[i].nitems <= 4);
    FUZZ_CHECK(strlen(v[i].host) < 64 && !strchr(v[i].host, '/'));
    FUZZ_CHECK(name_ok(pl) && strlen(v[i].plugin_instance) < 128);
    for (const char *c = v[i].plugin_instance; *c; c++)
      FUZZ_CHECK(*c > ' ' && *c < 127 && *c != '/');
    FUZZ_CHECK(name_ok(v[i].type) && name_ok(v[i].type_instance));
    size_t sz = strlen(v[i].host) + strlen(pl) + strlen(v[i].plugin_instance) +
                strlen(v[i].type) + strlen(v[i].type_instance) + 8;
    ids[i] = malloc(sz);
    FUZZ_CHECK(ids[i] != NULL);
    snprintf(ids[i], sz, "%s/%s/%s/%s/%s", v[i].host, pl, v[i].plugin_instance,
             v[i].type, v[i].type_instance);
  }
  qsort(ids, n, sizeof(*ids), cmp_str);
  for (size_t i = 0; i + 1 < n; i++)
    FUZZ_CHECK(strcmp(ids[i], ids[i + 1]) != 0);
  for (size_t i = 0; i < n; i++)
    free(ids[i]);
  free(ids);
  free(set);
  zvm_mapper_reset(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  size_t out_size = data[0] % (ZVM_APL_NAME_MAX + 1);
  size_t len = size - 1;
  uint8_t *rec = malloc(len ? len : 1);
  FUZZ_CHECK(rec != NULL);
  memcpy(rec, data + 1, len);

  struct zvm_apl_record r;
  enum zvm_apl_status st = zvm_apl_decode(rec, len, &r);
  FUZZ_CHECK((unsigned)st < ZVM_APL_STATUS_COUNT);
  if (st != ZVM_APL_BAD_HEADER || r.hdr.data != NULL) {
    /* The window, recomputed: CALDATOF >= 52, inside the record. */
    FUZZ_CHECK(len >= 52);
    size_t off = (size_t)fuzz_be(rec + 20, 2),
           dl = (size_t)fuzz_be(rec + 22, 2);
    FUZZ_CHECK(off < 0x8000 && dl < 0x8000 && off >= 52 && off + dl <= len);
    FUZZ_CHECK(r.hdr.data == rec + off && r.hdr.data_len == dl);
  }
  if (st == ZVM_APL_OK) {
    const struct zvm_apl_header *h = &r.hdr;
    switch (h->kind) {
    case ZVM_APL_OS:
      for (uint32_t i = 0; i < r.u.os.nr_cpus; i++)
        FUZZ_CHECK(inside(h->data, h->data_len,
                          r.u.os.cpus + (size_t)i * r.u.os.per_cpu_size,
                          r.u.os.per_cpu_size));
      break;
    case ZVM_APL_FSSTAT:
      check_str(h, &r.u.fs.fsname);
      check_str(h, &r.u.fs.dir);
      check_str(h, &r.u.fs.type);
      break;
    case ZVM_APL_PROCD_TASK:
      check_str(h, &r.u.task.ruser);
      check_str(h, &r.u.task.cmdline);
      check_str(h, &r.u.task.cmd);
      break;
    default:
      break;
    }
    seen.n = 0;
    zvm_apl_values(&r, check_value, NULL);
    /* The compacted record decodes OK to the same values. */
    uint8_t *small = malloc(len);
    FUZZ_CHECK(small != NULL);
    size_t n = zvm_apl_compact(&r, rec, small, len);
    FUZZ_CHECK(n >= 52 && n <= len);
    struct zvm_apl_record c;
    FUZZ_CHECK(zvm_apl_decode(small, n, &c) == ZVM_APL_OK);
    FUZZ_CHECK(c.hdr.kind == r.hdr.kind && c.hdr.used_len == r.hdr.used_len &&
               c.hdr.data_len == r.hdr.used_len);
    size_t before = seen.n;
    seen.n = 0;
    zvm_apl_values(&c, check_value, NULL);
    FUZZ_CHECK(seen.n == before);
    free(small);
  }

  /* Names from the raw bytes into an exact-size heap buffer. */
  char *out = malloc(out_size ? out_size : 1);
  FUZZ_CHECK(out != NULL);
  size_t n = zvm_apl_name(rec, len, (data[0] & 0x80) != 0, out, out_size);
  if (out_size > 0) {
    FUZZ_CHECK(n < out_size && strlen(out) == n);
    for (size_t i = 0; i < n; i++)
      FUZZ_CHECK(out[i] != '/' && out[i] != '\0' &&
                 (unsigned char)out[i] < 127 && (unsigned char)out[i] > ' ');
  }
  n = zvm_apl_mount_name(rec, len, out, out_size);
  if (out_size > 0)
    FUZZ_CHECK(n < out_size && strlen(out) == n && strchr(out, '/') == NULL);
  free(out);
  if (st != ZVM_APL_BAD_HEADER) /* else select drops it at once */
    through_mapper(rec, len, (data[0] & 0x40) != 0);
  free(rec);
  return 0;
}
