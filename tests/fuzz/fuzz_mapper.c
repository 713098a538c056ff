/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target "mapper": hostile data sets through the record engine -- the
 * built-in tables and a run-time descriptor as a <Record> block would
 * build it (a number key, a CPU timer counting down, a TOD gauge, an
 * array whose entries are instances keyed by an EBCDIC name) -- and out
 * as values, in either value shape.
 *
 * Input: byte 0 = options (bit 0 OneValuePerList, bit 1 GuestsAsHosts,
 * bit 2 the run-time descriptor, bit 3 a second pass with the same set
 * one second later), byte 1 = Domain mask high byte (0: all), the rest one
 * data set (seeds: the decoder's corpus with four option bytes each,
 * runtime-d0r2-* for the run-time descriptor, appldata-* a sample set of
 * zvm-stream-gen --linux-guests 2 --appldata all --appldata-faults).
 * Invariants: nothing crashes or reads outside the set (ASan), every name is
 * non-empty only where it may be, shorter than ZVM_ID_MAX and made of safe
 * characters, a value list carries exactly its type's data sources, no
 * identifier twice in a pass (every pair, through a hash table), times never go
 * back.
 */
#include "fuzz.h"

#include "appldata/appldata.h"
#include "engine/hooks.h"
#include "mapper_values.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/conf.h"
#include "zvm_monitor/mapper.h"
#include "zvm_monitor/registry.h"
#include "zvm_monitor/typesdb.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct zvm_field rt_fields[] = {
    {.ibm_name = "RT_ADDR",
     .metric = "addr",
     .offset = 20,
     .width = 2,
     .count = 1,
     .kind = ZVM_FIELD_ID},
    {.ibm_name = "RT_DOWN",
     .metric = "down",
     .offset = 22,
     .width = 8,
     .count = 1,
     .type = ZVM_TYPE_CPU_TIMER,
     .kind = ZVM_FIELD_COUNTER,
     .flags = ZVM_FIELD_DECREMENTS},
    {.ibm_name = "RT_TOD",
     .metric = "stamp",
     .offset = 30,
     .width = 8,
     .count = 1,
     .type = ZVM_TYPE_TOD,
     .kind = ZVM_FIELD_GAUGE,
     .scale = 2},
    {.ibm_name = "RT_Q",
     .metric = "q",
     .offset = 38,
     .width = 4,
     .count = 3,
     .type = ZVM_TYPE_SIGNED,
     .kind = ZVM_FIELD_COUNTER,
     .scale = 0.5},
    {.ibm_name = "RT_CNT",
     .metric = "cnt",
     .offset = 50,
     .width = 1,
     .count = 1,
     .kind = ZVM_FIELD_LAYOUT},
    {.ibm_name = "RT_SIZE",
     .metric = "size",
     .offset = 51,
     .width = 1,
     .count = 1,
     .kind = ZVM_FIELD_LAYOUT},
    {.ibm_name = "RT_OFF",
     .metric = "off",
     .offset = 52,
     .width = 2,
     .count = 1,
     .kind = ZVM_FIELD_LAYOUT},
};

static const struct zvm_field rt_entry_fields[] = {
    {.ibm_name = "RE_NAME",
     .metric = "name",
     .offset = 0,
     .width = 8,
     .count = 1,
     .type = ZVM_TYPE_EBCDIC,
     .kind = ZVM_FIELD_TEXT},
    {.ibm_name = "RE_VAL",
     .metric = "val",
     .offset = 8,
     .width = 4,
     .count = 1,
     .kind = ZVM_FIELD_GAUGE},
};

static const struct zvm_array rt_array = {
    .ibm_name = "RT_ARRAY",
    .count_field = &rt_fields[4],
    .size_field = &rt_fields[5],
    .offset_field = &rt_fields[6],
    .entry = {.type_name = "zvm_fuzzent",
              .key = {.nparts = 1,
                      .part = {{.kind = ZVM_KEY_EBCDIC, .field = 0}}},
              .fields = rt_entry_fields,
              .nfields = 2,
              .length = 12},
};

/* Domain 0 record 2: where a <Record> block would put D0R2. */
static const struct zvm_record_desc rt_desc = {
    .domain = 0,
    .number = 2,
    .ibm_name = "FUZZREC",
    .title = "fuzz record",
    .zvm_level = "test",
    .source = "tests/fuzz/fuzz_mapper.c",
    .length = 54,
    .main =
        {.type_name = "zvm_fuzzrec",
         .key = {.nparts = 2,
                 .part = {{.kind = ZVM_KEY_NUMBER, .field = 0, .text = "cpu"},
                          {.kind = ZVM_KEY_CPU_TYPE, .field = 4, .text = "_"}}},
         .fields = rt_fields,
         .nfields = sizeof(rt_fields) / sizeof(rt_fields[0]),
         .length = 54},
    .arrays = &rt_array,
    .narrays = 1,
    .user_defined = true,
};

static void check_name(const char *s, bool may_be_empty) {
  FUZZ_CHECK(s != NULL);
  size_t n = strlen(s);
  FUZZ_CHECK(n < ZVM_ID_MAX);
  FUZZ_CHECK(may_be_empty || n > 0);
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    /* '.' and '~': APPLDATA's names from guest strings (df's mount
     * points keep their dots, as in collectd; a cut name ends in ~hash) */
    FUZZ_CHECK((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
               (c >= '0' && c <= '9') || strchr("@#$_-+%.~", c) != NULL);
  }
}

/* A value's identifier, hashed (FNV-1a over its parts, each ended by a
 * byte no name holds); equal hashes are compared in full. */
static uint64_t ident_hash(const struct zvm_value *v) {
  const char *parts[5] = {v->host, v->plugin != NULL ? v->plugin : "",
                          v->plugin_instance, v->type, v->type_instance};
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (size_t p = 0; p < 5; p++) {
    for (const char *c = parts[p]; *c != '\0'; c++)
      h = (h ^ (uint8_t)*c) * UINT64_C(0x100000001b3);
    h = (h ^ 0xFF) * UINT64_C(0x100000001b3);
  }
  return h;
}

static bool same_ident(const struct zvm_value *a, const struct zvm_value *b) {
  return strcmp(a->host, b->host) == 0 &&
         strcmp(a->plugin != NULL ? a->plugin : "",
                b->plugin != NULL ? b->plugin : "") == 0 &&
         strcmp(a->plugin_instance, b->plugin_instance) == 0 &&
         strcmp(a->type, b->type) == 0 &&
         strcmp(a->type_instance, b->type_instance) == 0;
}

/* The identifiers of a pass in an open-addressing table (power-of-two
 * size, at most half full) of value indexes + 1 (0: empty). */
struct idset {
  const struct zvm_value *v;
  size_t *slot;
  size_t mask;
};

static void idset_init(struct idset *t, const struct zvm_value *v, size_t n) {
  size_t size = 16;
  while (size < 2 * n)
    size *= 2;
  t->v = v;
  t->mask = size - 1;
  t->slot = calloc(size, sizeof(*t->slot));
  FUZZ_CHECK(t->slot != NULL);
}

/* The index of a value with w's identifier, or SIZE_MAX; with add, w
 * (index i) is entered if it is not there. */
static size_t idset_find(struct idset *t, const struct zvm_value *w, bool add,
                         size_t i) {
  for (size_t k = ident_hash(w) & t->mask;; k = (k + 1) & t->mask) {
    if (t->slot[k] == 0) {
      if (add)
        t->slot[k] = i + 1;
      return SIZE_MAX;
    }
    if (same_ident(&t->v[t->slot[k] - 1], w))
      return t->slot[k] - 1;
  }
}

/* The value-list types a mapper registers, by name (sorted), each with its
 * number of data sources: SIZE_MAX where two layouts of one name differ
 * (no list can then have every data source of each). Built once per
 * mapper, again if its types change (a hook's layout first used). */
struct type_ds {
  const char *name;
  size_t nds;
};

struct types {
  struct type_ds *t;
  size_t n;
  size_t count; /* zvm_mapper_type_count() when built */
};

static int type_cmp(const void *a, const void *b) {
  return strcmp(((const struct type_ds *)a)->name,
                ((const struct type_ds *)b)->name);
}

static void types_init(struct types *ts, const struct zvm_mapper *m) {
  size_t n = zvm_mapper_type_count(m);
  free(ts->t);
  ts->count = n;
  ts->t = calloc(n ? n : 1, sizeof(*ts->t));
  FUZZ_CHECK(ts->t != NULL);
  ts->n = 0;
  for (size_t i = 0; i < n; i++) {
    const struct zvm_layout *l = zvm_mapper_type_at(m, i);
    ts->t[ts->n++] = (struct type_ds){
        .name = l->type_name, .nds = zvm_layout_data_sources(l, NULL, 0)};
  }
  qsort(ts->t, ts->n, sizeof(*ts->t), type_cmp);
  size_t k = 0;
  for (size_t i = 0; i < ts->n; i++) {
    if (k > 0 && strcmp(ts->t[k - 1].name, ts->t[i].name) == 0) {
      if (ts->t[k - 1].nds != ts->t[i].nds)
        ts->t[k - 1].nds = SIZE_MAX;
      continue;
    }
    ts->t[k++] = ts->t[i];
  }
  ts->n = k;
}

/* Its data sources, or NULL if no registered type has that name. */
static const struct type_ds *types_find(const struct types *ts,
                                        const char *name) {
  struct type_ds key = {.name = name};
  return bsearch(&key, ts->t, ts->n, sizeof(*ts->t), type_cmp);
}

/* The checks of one pass, over its values v[0..n) (iterated once). */
static void check_pass(struct zvm_mapper *m, struct types *ts,
                       const struct zvm_value *v, size_t n,
                       uint64_t *last_time) {
  FUZZ_CHECK(v != NULL || n == 0);
  if (zvm_mapper_type_count(m) != ts->count)
    types_init(ts, m);
  /* no identifier twice in a pass */
  struct idset ids;
  idset_init(&ids, v, n);
  for (size_t i = 0; i < n; i++)
    FUZZ_CHECK(idset_find(&ids, &v[i], true, i) == SIZE_MAX);
  free(ids.slot);
  for (size_t i = 0; i < n; i++) {
    check_name(v[i].host, true);
    check_name(v[i].plugin_instance, true);
    check_name(v[i].type, false);
    check_name(v[i].type_instance, true);
    if (v[i].nitems > 0) {
      /* a list of one of the registered types, every data source */
      const struct type_ds *t = types_find(ts, v[i].type);
      if (t != NULL) {
        FUZZ_CHECK(t->nds == v[i].nitems);
        FUZZ_CHECK(v[i].type_instance[0] == '\0');
      } else {
        /* APPLDATA's lists of collectd's own types (load, if_octets...) */
        FUZZ_CHECK(zvm_apl_type_ds_count(v[i].type) == v[i].nitems);
      }
    }
    if (v[i].time_us != 0 && v[i].time_us > *last_time)
      *last_time = v[i].time_us;
  }
  size_t nn;
  const struct zvm_notification *no = zvm_mapper_notifications(m, &nn);
  for (size_t i = 0; i < nn; i++)
    FUZZ_CHECK(strlen(no[i].message) < ZVM_NOTIF_MSG_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  uint8_t opt = data[0];
  /* Four configurations and their mappers, built once (a registry is
   * read-only for a mapper): the built-in tables, and those plus the
   * run-time record; each with OneValuePerList off and on (a mapper's
   * layouts follow it). A mapper is reset after each input (as new: its
   * unit test), GuestsAsHosts and the Domain mask are read per pass. */
  static struct zvm_conf confs[2][2];
  static struct zvm_mapper *mappers[2][2];
  static struct types types[2][2];
  unsigned rt = (opt >> 2) & 1, ovpl = opt & 1;
  struct zvm_conf *c = &confs[rt][ovpl];
  if (mappers[rt][ovpl] == NULL) {
    char err[256];
    FUZZ_CHECK(zvm_conf_init(c, zvm_registry_builtin()) == 0);
    /* D0R2 is built in: the run-time record replaces it (the first
     * configuration keeps the built-in table). */
    if (rt)
      FUZZ_CHECK(zvm_registry_add(c->records, &rt_desc, true, NULL, err,
                                  sizeof(err)) == 0);
    c->one_value_per_list = ovpl;
    mappers[rt][ovpl] = zvm_mapper_create(c);
    FUZZ_CHECK(mappers[rt][ovpl] != NULL);
    types_init(&types[rt][ovpl], mappers[rt][ovpl]);
  }
  struct types *ts = &types[rt][ovpl];
  c->guests_as_hosts = (opt >> 1) & 1;
  c->domains = data[1] != 0 ? (zvm_domain_mask_t)(data[1] << 8 | 0x00FF)
                            : ZVM_DOMAINS_ALL;
  struct zvm_mapper *m = mappers[rt][ovpl];

  size_t len = size - 2;
  uint8_t *set = fuzz_dup(data + 2, len);
  uint64_t last_time = 0;
  zvm_mapper_add_set_at(m, set, len, 1);
  FUZZ_CHECK(zvm_mapper_finish(m, 1700000000000000u, NULL) == 0);
  size_t n1;
  const struct zvm_value *v1 = mapper_values(m, &n1);
  check_pass(m, ts, v1, n1, &last_time);
  if (opt & 8) {
    /* The same set again: its values come again (the time rule: nothing is
     * dropped for its time stamp), each strictly after its first time, so
     * nothing is dispatched twice for a time. */
    /* The first pass's identifiers outlive its output: copied. */
    struct zvm_value *first = malloc((n1 ? n1 : 1) * sizeof(*first));
    size_t text = 1;
    for (size_t i = 0; i < n1; i++)
      text += strlen(v1[i].host) + strlen(v1[i].plugin ? v1[i].plugin : "") +
              strlen(v1[i].plugin_instance) + strlen(v1[i].type) +
              strlen(v1[i].type_instance) + 5;
    char *arena = malloc(text), *at = arena;
    FUZZ_CHECK(first != NULL && arena != NULL);
    for (size_t i = 0; i < n1; i++) {
      const char *parts[5] = {v1[i].host, v1[i].plugin ? v1[i].plugin : "",
                              v1[i].plugin_instance, v1[i].type,
                              v1[i].type_instance};
      const char *copy[5];
      for (size_t p = 0; p < 5; p++) {
        size_t plen = strlen(parts[p]) + 1;
        memcpy(at, parts[p], plen);
        copy[p] = at;
        at += plen;
      }
      first[i] = (struct zvm_value){.host = copy[0],
                                    .plugin = copy[1],
                                    .plugin_instance = copy[2],
                                    .type = copy[3],
                                    .type_instance = copy[4],
                                    .time_us = v1[i].time_us};
    }
    struct idset ids1;
    idset_init(&ids1, first, n1);
    for (size_t i = 0; i < n1; i++)
      (void)idset_find(&ids1, &first[i], true, i);
    zvm_mapper_add_set(m, set, len);
    FUZZ_CHECK(zvm_mapper_finish(m, 1700000001000000u, NULL) == 0);
    size_t n;
    const struct zvm_value *v = mapper_values(m, &n);
    for (size_t i = 0; i < n; i++) {
      if (v[i].time_us == 0)
        continue; /* reader counters */
      size_t j = idset_find(&ids1, &v[i], false, 0);
      if (j != SIZE_MAX)
        FUZZ_CHECK(v[i].time_us > first[j].time_us);
    }
    free(ids1.slot);
    free(arena);
    free(first);
    check_pass(m, ts, v, n, &last_time);
  }
  free(set);
  zvm_mapper_reset(m);
  return 0;
}
