/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target "recpage": zvm-monitor-record's page parser and mapping
 * (tools/recpage.c, tools/recmap.c) on any bytes, as a page of text or
 * HTML.
 *
 * A page the parser accepts must hold what its checks promise: a record of
 * 20-4096 bytes, domain 0-15 and number 1-255, every row of a table inside
 * its structure, offsets going forward, no two fields overlapping unless
 * one holds the other. A refused page comes with a one-line reason that
 * names a line ("line N: ..."). An accepted page that maps must give a
 * block the plugin's own <Record> parser accepts (with the built-in
 * records, as zvm-monitor-record runs it), with as many fields as mapped.
 */
#include "fuzz.h"

#include <stdbool.h>

#include "../tools/recbuiltin.h"
#include "../tools/recpage.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/recconf.h"
#include "zvm_monitor/recconf_text.h"
#include "zvm_monitor/records.h"
#include "zvm_monitor/registry.h"

static void check_page(const struct rp_page *pg) {
  FUZZ_CHECK(pg->domain >= 0 && pg->domain <= 15);
  FUZZ_CHECK(pg->number >= 1 && pg->number <= 255);
  FUZZ_CHECK(pg->length >= 20 && pg->length <= 4096);
  FUZZ_CHECK(pg->nfields > 0 && pg->fields[0].type == RP_STRUCTURE);
  for (size_t i = 0; i < pg->nfields; i++) {
    const struct rp_field *f = &pg->fields[i];
    FUZZ_CHECK(f->table < pg->ntables && f->dim >= 1);
    FUZZ_CHECK(strlen(f->name) > 0 && strlen(f->name) < RP_NAME_MAX);
    const struct rp_field *s = NULL;
    for (size_t k = 0; k <= i && s == NULL; k++)
      if (pg->fields[k].table == f->table && pg->fields[k].type == RP_STRUCTURE)
        s = &pg->fields[k];
    FUZZ_CHECK(s != NULL);
    if (f == s)
      continue;
    unsigned end = f->offset + f->length * f->dim;
    FUZZ_CHECK(end <= s->length);
    for (size_t k = 0; k < i; k++) {
      const struct rp_field *o = &pg->fields[k];
      if (o->table != f->table || o == s || o->length == 0 || f->length == 0)
        continue;
      unsigned oend = o->offset + o->length * o->dim;
      FUZZ_CHECK(o->offset <= f->offset);
      FUZZ_CHECK(end <= o->offset || oend <= f->offset ||
                 (f->offset >= o->offset && end <= oend) ||
                 (o->offset >= f->offset && oend <= end));
    }
    for (size_t b = 0; b < f->nbits; b++)
      FUZZ_CHECK(f->bits[b].mask != 0 && f->bits[b].width >= 1 &&
                 f->bits[b].width <= f->length);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = (char *)fuzz_dup(data, size);
  struct rp_page pg;
  char err[512];
  if (rp_parse(text, size, &pg, err, sizeof(err)) != 0) {
    FUZZ_CHECK(strchr(err, '\n') == NULL);
    FUZZ_CHECK(strncmp(err, "line ", 5) == 0 ||
               strcmp(err, "out of memory") == 0);
    FUZZ_CHECK(pg.nfields == 0 && pg.fields == NULL);
    free(text);
    return 0;
  }
  check_page(&pg);

  struct zvm_registry *reg = zvm_registry_create();
  FUZZ_CHECK(reg != NULL && zvm_registry_add_builtins(reg) == 0);
  const struct zvm_record_desc *b =
      zvm_registry_find(reg, (uint8_t)pg.domain, (uint16_t)pg.number);
  struct rp_options opt = {.builtin = b != NULL, .source = "fuzz"};
  /* The built-in's names, as zvm-monitor-record takes them. */
  static struct rp_builtin_names bn;
  if (b != NULL && b->main.type_name != NULL) {
    rp_builtin_names(b, &bn);
    opt.names = &bn.bt;
  }
  /* One option on one field, chosen by the input's length (the input
   * alone decides, so a crash replays): --kind FIELD=counter, gauge,
   * instance or skip, --instance FIELD, --fields FIELD, or none. */
  static const char *const kinds[] = {"counter", "gauge", "instance", "skip"};
  const char *chosen =
      pg.nfields > 0 ? pg.fields[(size / 7) % pg.nfields].name : NULL;
  struct rp_kind_override kind = {.name = chosen, .kind = kinds[size % 4]};
  if (chosen != NULL && size % 7 < 4) {
    opt.kinds = &kind;
    opt.nkinds = 1;
  } else if (chosen != NULL && size % 7 == 4) {
    opt.instance = chosen;
  } else if (chosen != NULL && size % 7 == 5) {
    opt.fields = &chosen;
    opt.nfields = 1;
  }
  struct rp_map map;
  if (b == NULL || b->main.type_name != NULL) {
    if (rp_map_page(&pg, &opt, &map, err, sizeof(err)) == 0) {
      struct rp_buf out = {0}, sum = {0};
      rp_write_block(&pg, &map, &opt, &out);
      rp_write_summary(&pg, &map, "", &sum);
      FUZZ_CHECK(!out.oom && !sum.oom);
      FUZZ_CHECK(map.counters + map.gauges > 0 && map.nds <= 256);
      struct zvm_recconf rc;
      zvm_recconf_init(&rc, reg);
      int rv = zvm_recconf_parse_text(&rc, out.p, out.len, err, sizeof(err));
      /* A Name that belongs to a built-in record's type is the one thing
       * the page cannot know; the program says so and stops. */
      if (rv != 0 && strstr(err, "belongs to the built-in") == NULL) {
        fprintf(stderr, "refused: %s\n%s\n", err, out.p);
        FUZZ_CHECK(rv == 0);
      }
      if (rv == 0) {
        const struct zvm_urecord *r =
            zvm_recconf_find(&rc, (uint8_t)pg.domain, (uint16_t)pg.number);
        size_t nfields = r != NULL ? r->nfields : 0;
        for (size_t a = 0; r != NULL && a < r->narrays; a++)
          nfields += r->arrays[a].nfields;
        FUZZ_CHECK(r != NULL &&
                   nfields == map.emitted + (map.count[0] != '\0'));
      }
      zvm_recconf_free(&rc);
      rp_buf_free(&out);
      rp_buf_free(&sum);
    } else {
      FUZZ_CHECK(strchr(err, '\n') == NULL);
    }
    rp_map_free(&map);
  }
  zvm_registry_destroy(reg);
  rp_page_free(&pg);
  free(text);
  return 0;
}
