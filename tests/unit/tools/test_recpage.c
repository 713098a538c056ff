/* SPDX-License-Identifier: MIT */
/*
 * zvm-monitor-record's page parser and mapping (tools/recpage.c,
 * tools/recmap.c) on pages written for the tests in the format of IBM's
 * monitor-record pages (tests/data/recpages/, made by make-pages.py):
 * aligned columns and rows run together, HTML with <pre> and with tables,
 * bits, arrays, reserved fields, a variable tail and its array entry, a
 * cross reference, one made-up record at two levels. The D4R10 and D5R21
 * pages carry the layouts of the built-in tables (plugin/records/useite.c,
 * prcsmt.c: IBM z/VM V6R2.0 MRUSEITE, z/VM V6R4.0 MRPRCSMT).
 *
 * Measured here: how often the guessed kinds agree with the built-in
 * tables' (at least 90 %; 64 of 64 fields, the CPU type of D5R21's array
 * entries guessed as what names them), and that the block written for D4R10
 * goes through the plugin's own <Record> parser into a descriptor with the
 * built-in table's offsets, lengths, counts, types and kinds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../tools/recbuiltin.h"
#include "../tools/recpage.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/recconf.h"
#include "zvm_monitor/recconf_text.h"
#include "zvm_monitor/records.h"
#include "zvm_monitor/registry.h"
#include "zvm_monitor/typesdb.h"

static char err[512];

static char *load(const char *name, size_t *len) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", RECPAGE_DIR, name);
  FILE *fp = fopen(path, "rb");
  assert_non_null(fp);
  char *buf = malloc(1 << 20);
  assert_non_null(buf);
  *len = fread(buf, 1, (1 << 20) - 1, fp);
  buf[*len] = '\0';
  fclose(fp);
  return buf;
}

static void parse_file(const char *name, struct rp_page *pg) {
  size_t len;
  char *text = load(name, &len);
  err[0] = '\0';
  int rv = rp_parse(text, len, pg, err, sizeof(err));
  if (rv != 0)
    fprintf(stderr, "%s: %s\n", name, err);
  assert_int_equal(rv, 0);
  free(text);
}

static const struct rp_field *field(const struct rp_page *pg,
                                    const char *name) {
  for (size_t i = 0; i < pg->nfields; i++)
    if (strcmp(pg->fields[i].name, name) == 0 && pg->fields[i].length > 0)
      return &pg->fields[i];
  return NULL;
}

static void same_rows(const struct rp_page *a, const struct rp_page *b) {
  assert_int_equal(a->nfields, b->nfields);
  for (size_t i = 0; i < a->nfields; i++) {
    const struct rp_field *x = &a->fields[i], *y = &b->fields[i];
    assert_string_equal(x->name, y->name);
    assert_int_equal(x->offset, y->offset);
    assert_int_equal(x->length, y->length);
    assert_int_equal(x->dim, y->dim);
    assert_int_equal(x->type, y->type);
    assert_int_equal(x->table, y->table);
    assert_int_equal(x->nbits, y->nbits);
    for (size_t k = 0; k < x->nbits; k++) {
      assert_string_equal(x->bits[k].name, y->bits[k].name);
      assert_int_equal(x->bits[k].mask, y->bits[k].mask);
    }
    assert_string_equal(x->desc != NULL ? x->desc : "",
                        y->desc != NULL ? y->desc : "");
  }
}

/* D4R10 with its columns kept (text) and with three rows to a line inside
 * HTML <pre>: the same rows, the prolog's facts, bits, arrays. */
static void test_useite_columns_and_rows_run_together(void **state) {
  (void)state;
  struct rp_page a, b;
  parse_file("useite-v6r2.txt", &a);
  parse_file("useite-v6r2-run.html", &b);
  same_rows(&a, &b);
  assert_string_equal(a.dsect, "USEITE");
  assert_string_equal(a.mrname, "MRUSEITE");
  assert_int_equal(a.domain, 4);
  assert_int_equal(a.number, 10);
  assert_string_equal(a.title, "User Interaction at Transaction End");
  assert_string_equal(a.level, "z/VM V6R2.0");
  assert_string_equal(b.level, "z/VM V6R2.0");
  assert_string_equal(a.hf_prefix, "USEITE_HF");
  assert_int_equal(a.length, 200);
  assert_false(a.variable);
  assert_true(a.has_xref);
  assert_int_equal(a.ntables, 1);
  const struct rp_field *f = field(&a, "USEITE_HFCPURN");
  assert_non_null(f);
  assert_int_equal(f->offset, 116);
  assert_int_equal(f->length, 4);
  assert_int_equal(f->type, RP_UNSIGNED);
  assert_string_equal(f->desc,
                      "Number of times this user was running on the real CPU.");
  f = field(&a, "USEITE_VMDCPRMD");
  assert_int_equal(f->offset, 152);
  assert_int_equal(f->length, 2);
  assert_int_equal(f->dim, 4);
  f = field(&a, "USEITE_CALOSTAT");
  assert_int_equal(f->type, RP_BITSTRING);
  assert_int_equal(f->nbits, 8);
  assert_string_equal(f->bits[0].name, "USEITE_VMDSYSOP");
  assert_int_equal(f->bits[0].mask, 0x80);
  assert_string_equal(f->bits[2].name, "*");
  assert_string_equal(f->bits[7].name, "USEITE_VMDXAUTO");
  assert_int_equal(f->bits[7].mask, 0x01);
  assert_string_equal(f->bits[7].desc, "The command was XAUTOLOG.");
  rp_page_free(&a);
  rp_page_free(&b);
}

/* The made-up D4R200 at two levels, as text and as HTML <pre> and table:
 * a variable tail with its array entry, the newer level's two more
 * fields, more fields than a record block holds. */
static void test_two_levels_html_and_text(void **state) {
  (void)state;
  struct rp_page l1, pre, table;
  parse_file("usetst-l1.txt", &l1);
  parse_file("usetst-l2-pre.html", &pre);
  parse_file("usetst-l2-table.html", &table);
  same_rows(&pre, &table);
  assert_string_equal(l1.level, "z/VM V6R1.0");
  assert_string_equal(table.level, "z/VM V6R2.0");
  assert_int_equal(l1.domain, 4);
  assert_int_equal(table.number, 200);
  assert_int_equal(l1.length, 440);
  assert_int_equal(table.length, 452);
  assert_true(l1.variable && table.variable);
  assert_int_equal(l1.ntables, 2);
  assert_true(l1.per_vcpu);
  assert_null(field(&l1, "USETST_VTIME"));
  assert_int_equal(field(&table, "USETST_VTIME")->offset, 440);
  assert_int_equal(field(&table, "USETST_QDEPTH")->offset, 448);
  /* The older level's rows are the newer's, up to its end. */
  for (size_t i = 0; i < l1.nfields; i++) {
    const struct rp_field *f = &l1.fields[i];
    if (f->table != 0 || f->type == RP_STRUCTURE || f->offset >= 440)
      continue;
    const struct rp_field *g = &table.fields[i];
    assert_string_equal(f->name, g->name);
    assert_int_equal(f->offset, g->offset);
    assert_int_equal(f->length, g->length);
  }
  const struct rp_field *e = field(&table, "USETST_ENTIOS");
  assert_int_equal(e->table, 1);
  assert_int_equal(e->offset, 4);

  struct rp_options opt = {.source = "t"};
  struct rp_map map;
  assert_int_equal(rp_map_page(&table, &opt, &map, err, sizeof(err)), 0);
  /* Every field: the per-virtual-processor record summed per guest
   * (VMDCPUAD of Kind processor), its named bits as gauges, 101 data
   * sources (one value per list in the plugin), and its array USETST_ENTRY
   * (located by ARRCNT, ARRSIZ, ARROFF) as an <Array> block: one instance
   * per device number (Format hex), its counter ENTIOS. */
  assert_int_equal(map.nds, 102);
  assert_int_equal(map.narrays, 1);
  assert_true(map.arrays[0].emit);
  assert_string_equal(map.arrays[0].label, "entry");
  assert_string_equal(map.arrays[0].loc[0]->f->name, "USETST_ARRCNT");
  assert_string_equal(map.arrays[0].loc[1]->f->name, "USETST_ARRSIZ");
  assert_string_equal(map.arrays[0].loc[2]->f->name, "USETST_ARROFF");
  for (size_t i = 0; i < map.n; i++)
    if (strcmp(map.m[i].f->name, "USETST_ENTDEV") == 0) {
      assert_true(map.m[i].emit && map.m[i].hex);
      assert_int_equal(map.m[i].kind, RP_K_INSTANCE);
    } else if (strcmp(map.m[i].f->name, "USETST_ENTIOS") == 0) {
      assert_true(map.m[i].emit);
      assert_int_equal(map.m[i].kind, RP_K_COUNTER);
    }
  assert_true(map.per_vmdbk);
  assert_int_equal(map.instances, 1);
  assert_string_equal(map.instance[0]->f->name, "USETST_USERID");
  bool limit = false, array = false, bits = false, reserved = false;
  for (size_t i = 0; i < map.n; i++) {
    const struct rp_mapped *m = &map.m[i];
    limit |= strcmp(m->f->name, "USETST_QDEPTH") == 0 && m->emit;
    array |=
        strcmp(m->f->name, "USETST_ENTIOS") == 0 && m->emit && m->f->table == 1;
    if (strcmp(m->f->name, "USETST_VMDCPUAD") == 0)
      assert_int_equal(m->kind, RP_K_PROCESSOR);
    if (m->bit != NULL && strcmp(m->bit->name, "USETST_XA") == 0) {
      bits = m->emit && m->kind == RP_K_GAUGE && m->mask == 0x20 &&
             strcmp(m->ds, "xa") == 0;
    }
    reserved |= strcmp(m->f->name, "*") == 0 && m->f->offset == 31 &&
                strcmp(m->skip, "reserved") == 0;
    if (strcmp(m->f->name, "USETST_TTIME") == 0) {
      assert_true(m->emit);
      assert_int_equal(m->vtype, RP_V_CPUTIMER);
      assert_int_equal(m->kind, RP_K_COUNTER);
    }
    if (strcmp(m->f->name, "USETST_LOGTOD") == 0) {
      assert_int_equal(m->vtype, RP_V_TOD);
      assert_int_equal(m->kind, RP_K_GAUGE);
    }
    if (strcmp(m->f->name, "USETST_PGRDS") == 0)
      assert_int_equal(m->count, 4);
  }
  assert_true(limit && array && bits && reserved);
  rp_map_free(&map);
  rp_page_free(&l1);
  rp_page_free(&pre);
  rp_page_free(&table);
}

/* The built-in field at the page's row: the row of the same name at the
 * same offset, or (for IBM's zero-length redefinitions, such as
 * USEITE_VMDSVMW2) the row that holds the bytes at that offset. */
static const struct rp_mapped *row_of(const struct rp_map *map, unsigned table,
                                      const struct zvm_field *bf) {
  for (size_t i = 0; i < map->n; i++) {
    const struct rp_field *f = map->m[i].f;
    if (f->table == table && f->offset == bf->offset && f->length > 0 &&
        strcmp(f->name, bf->ibm_name) == 0)
      return &map->m[i];
  }
  for (size_t i = 0; i < map->n; i++) {
    const struct rp_field *f = map->m[i].f;
    if (f->table == table && f->offset == bf->offset &&
        f->length == bf->width && f->type != RP_STRUCTURE)
      return &map->m[i];
  }
  return NULL;
}

/* The guessed role against the built-in table's kind. A built-in gauge of
 * one flag bit (ZVM_FIELD_TOP_BIT: D5R21's RCCSMINI) is what the rule
 * "named bits of a Bitstring as 0/1 gauges" makes of a bit string with
 * named bits. */
static bool agrees(enum rp_role role, const struct zvm_field *f) {
  switch (f->kind) {
  case ZVM_FIELD_COUNTER:
    return role == RP_ROLE_COUNTER;
  case ZVM_FIELD_GAUGE:
    return role == RP_ROLE_GAUGE ||
           (role == RP_ROLE_FLAGS && (f->flags & ZVM_FIELD_TOP_BIT));
  case ZVM_FIELD_ID:
    return role == RP_ROLE_ID;
  case ZVM_FIELD_TEXT:
    return role == RP_ROLE_TEXT;
  case ZVM_FIELD_FLAGS:
    return role == RP_ROLE_FLAGS;
  case ZVM_FIELD_CODE:
    return role == RP_ROLE_CODE;
  case ZVM_FIELD_LAYOUT:
    return role == RP_ROLE_LAYOUT;
  default:
    return false;
  }
}

static void compare_layout(const struct rp_page *pg, const struct rp_map *map,
                           unsigned table, const struct zvm_layout *l,
                           unsigned *fields, unsigned *agree) {
  for (size_t i = 0; i < l->nfields; i++) {
    const struct zvm_field *bf = &l->fields[i];
    /* Rows of the page only: not the record count, not a second view of
     * a byte (the _is_max flags of D5R21). */
    if (bf->ibm_name == NULL || (bf->flags & ZVM_FIELD_MAX_FLAG))
      continue;
    const struct rp_mapped *m = row_of(map, table, bf);
    if (m == NULL)
      fprintf(stderr, "no row for %s\n", bf->ibm_name);
    assert_non_null(m);
    assert_int_equal(m->f->length, bf->width);
    assert_int_equal(m->f->dim, bf->count);
    (*fields)++;
    if (agrees(m->role, bf))
      (*agree)++;
    else
      print_message("  %s %s: guessed %s (%s), built in kind %d\n", pg->dsect,
                    bf->ibm_name, rp_role_name(m->role), m->why, (int)bf->kind);
  }
}

static void test_kind_guesses_agree_with_builtin_tables(void **state) {
  (void)state;
  struct zvm_registry *reg = zvm_registry_create();
  assert_non_null(reg);
  assert_int_equal(zvm_registry_add_builtins(reg), 0);
  static const char *const pages[] = {"useite-v6r2.txt", "prcsmt-v6r4.txt"};
  unsigned fields = 0, agree = 0;
  for (size_t p = 0; p < 2; p++) {
    struct rp_page pg;
    struct rp_map map;
    struct rp_options opt = {0};
    parse_file(pages[p], &pg);
    assert_int_equal(rp_map_page(&pg, &opt, &map, err, sizeof(err)), 0);
    const struct zvm_record_desc *d =
        zvm_registry_find(reg, (uint8_t)pg.domain, (uint16_t)pg.number);
    assert_non_null(d);
    compare_layout(&pg, &map, 0, &d->main, &fields, &agree);
    for (size_t a = 0; a < d->narrays; a++) {
      unsigned table = 0;
      for (size_t i = 0; i < pg.nfields; i++)
        if (pg.fields[i].type == RP_STRUCTURE &&
            strcmp(pg.fields[i].name, d->arrays[a].ibm_name) == 0)
          table = pg.fields[i].table;
      assert_true(table > 0);
      compare_layout(&pg, &map, table, &d->arrays[a].entry, &fields, &agree);
    }
    rp_map_free(&map);
    rp_page_free(&pg);
  }
  print_message("kind guesses agree with the built-in tables (D4R10, D5R21) "
                "on %u of %u fields: %.1f %%\n",
                agree, fields, 100.0 * agree / fields);
  assert_true(fields >= 60);
  assert_true(agree * 10 >= fields * 9);
  zvm_registry_destroy(reg);
}

/* Layout u (the block's) has b's (the built-in table's) type, data sources
 * in order, their data-source types, one-value-per-list types and the
 * readings of their bytes (X'FF' as MAX, MAX flags, the top bit). */
static void same_layout(const struct zvm_layout *u,
                        const struct zvm_layout *b) {
  assert_string_equal(u->type_name, b->type_name);
  struct zvm_ds du[64], db[64];
  size_t n = zvm_layout_data_sources(u, du, 64);
  assert_int_equal(n, zvm_layout_data_sources(b, db, 64));
  for (size_t i = 0; i < n; i++) {
    assert_string_equal(du[i].name, db[i].name);
    assert_int_equal(du[i].type, db[i].type);
  }
  size_t j = 0;
  for (size_t i = 0; i < u->nfields; i++) {
    const struct zvm_field *fu = &u->fields[i];
    if (!zvm_field_dispatched(fu))
      continue;
    while (!zvm_field_dispatched(&b->fields[j]))
      j++;
    const struct zvm_field *fb = &b->fields[j++];
    assert_int_equal(fu->offset, fb->offset);
    assert_int_equal(fu->width, fb->width);
    assert_string_equal(fu->single_type ? fu->single_type : "gauge",
                        fb->single_type ? fb->single_type : "gauge");
    uint8_t flags = fb->flags;
    if (flags & ZVM_FIELD_TOP_BIT) /* the block's Mask 128 of one byte */
      assert_true((fu->flags & ZVM_FIELD_MASK) && fu->mask == 0x80 &&
                  fu->width == 1);
    else
      assert_int_equal(fu->flags, flags);
  }
  assert_int_equal(u->key.nparts, b->key.nparts);
  for (unsigned p = 0; p < u->key.nparts; p++) {
    assert_int_equal(u->key.part[p].kind, b->key.part[p].kind);
    if (u->key.part[p].kind == ZVM_KEY_FIXED)
      assert_string_equal(u->key.part[p].text, b->key.part[p].text);
  }
}

/* The block written from IBM's D5R21 page (z/VM V6R4.0 MRPRCSMT) with the
 * built-in table's names: through the plugin's own <Record> parser it is
 * the built-in table (the fixed part as instance "system", the
 * PRCSMT_CPUTINFO array per CPU type, X'FF' as MAX, the MAX flags, the
 * INITIAL bit), and it keeps the built-in's notifications. */
static void test_prcsmt_block_is_the_builtin(void **state) {
  (void)state;
  struct zvm_registry *reg = zvm_registry_create();
  assert_non_null(reg);
  assert_int_equal(zvm_registry_add_builtins(reg), 0);
  const struct zvm_record_desc *b = zvm_registry_find(reg, 5, 21);
  struct rp_builtin_names bn;
  rp_builtin_names(b, &bn);
  struct rp_page pg;
  struct rp_map map;
  struct rp_options opt = {
      .builtin = true, .names = &bn.bt, .source = "prcsmt-v6r4.txt"};
  struct rp_buf out = {0};
  parse_file("prcsmt-v6r4.txt", &pg);
  assert_int_equal(rp_map_page(&pg, &opt, &map, err, sizeof(err)), 0);
  rp_write_block(&pg, &map, &opt, &out);
  assert_false(out.oom);
  assert_int_equal(map.narrays, 1);
  assert_true(map.arrays[0].emit);
  /* every row but CAL_STATUS (not dispatched) and the reserved bytes */
  assert_int_equal(map.skipped, 3);
  struct zvm_recconf rc;
  zvm_recconf_init(&rc, reg);
  int rv = zvm_recconf_parse_text(&rc, out.p, out.len, err, sizeof(err));
  if (rv != 0)
    fail_msg("%s\n%s", err, out.p);
  const struct zvm_record_desc *u = zvm_registry_find(reg, 5, 21);
  assert_true(u != b && u->user_defined);
  /* the built-in's hooks (a second registry still holds the table) */
  struct zvm_registry *orig = zvm_registry_create();
  assert_int_equal(zvm_registry_add_builtins(orig), 0);
  const struct zvm_record_desc *ob = zvm_registry_find(orig, 5, 21);
  assert_ptr_equal(u->hooks, ob->hooks);
  same_layout(&u->main, &ob->main);
  assert_int_equal(u->narrays, 1);
  same_layout(&u->arrays[0].entry, &ob->arrays[0].entry);
  assert_int_equal(u->arrays[0].count_field->offset, 29);
  assert_int_equal(u->arrays[0].size_field->offset, 30);
  assert_int_equal(u->arrays[0].offset_field->offset, 32);
  zvm_recconf_free(&rc);
  zvm_registry_destroy(orig);
  zvm_registry_destroy(reg);
  rp_buf_free(&out);
  rp_map_free(&map);
  rp_page_free(&pg);
}

/* The block written for D4R10 through the plugin's own <Record> parser:
 * every field it maps has the built-in table's offset, length, count,
 * type and kind. */
static void test_block_accepted_by_the_plugin(void **state) {
  (void)state;
  struct rp_page pg;
  struct rp_map map;
  struct rp_options opt = {
      .builtin = true, .source = "useite-v6r2.txt", .count = "transactions"};
  struct rp_buf out = {0};
  parse_file("useite-v6r2.txt", &pg);
  assert_int_equal(rp_map_page(&pg, &opt, &map, err, sizeof(err)), 0);
  rp_write_block(&pg, &map, &opt, &out);
  assert_false(out.oom);

  struct zvm_registry *reg = zvm_registry_create();
  assert_non_null(reg);
  assert_int_equal(zvm_registry_add_builtins(reg), 0);
  const struct zvm_record_desc *builtin = zvm_registry_find(reg, 4, 10);
  assert_non_null(builtin);
  const struct zvm_layout *bl = &builtin->main; /* replaced below */
  struct zvm_field bfields[64];
  size_t nb = bl->nfields;
  assert_true(nb <= 64);
  memcpy(bfields, bl->fields, nb * sizeof(*bfields));

  struct zvm_recconf rc;
  zvm_recconf_init(&rc, reg);
  int rv = zvm_recconf_parse_text(&rc, out.p, out.len, err, sizeof(err));
  if (rv != 0)
    fprintf(stderr, "%s\n%s\n", err, out.p);
  assert_int_equal(rv, 0);
  const struct zvm_urecord *r = zvm_recconf_find(&rc, 4, 10);
  assert_non_null(r);
  assert_true(r->replace);
  assert_string_equal(r->name, "useite");
  assert_int_equal(r->nfields, map.emitted + 1); /* and the record count */
  assert_true(r->nfields >= 35);
  /* The elements of the queue arrays are named as the built-in names
   * them. */
  for (size_t i = 0; i < r->nfields; i++)
    if (strcmp(r->fields[i].name, "vmdcprmd") == 0)
      assert_string_equal(r->fields[i].elem_prefix, "_q");
  for (size_t i = 0; i < r->nfields; i++) {
    const struct zvm_ufield *u = &r->fields[i];
    const struct zvm_field *b = NULL;
    if (u->type == ZVM_UTYPE_RECORDS) { /* --count: D4R10's transactions */
      assert_string_equal(u->name, "transactions");
      assert_int_equal(bfields[0].type, ZVM_TYPE_RECORD_COUNT);
      continue;
    }
    for (size_t k = 0; k < nb && b == NULL; k++)
      if (bfields[k].offset == u->offset && bfields[k].ibm_name != NULL)
        b = &bfields[k];
    assert_non_null(b);
    assert_int_equal(u->length, b->width);
    assert_int_equal(u->count, b->count);
    if (u->mask != 0) { /* a named bit of a flag byte: CALBASE is base */
      assert_int_equal(b->kind, ZVM_FIELD_FLAGS);
      assert_true(
          u->kind == ZVM_UKIND_GAUGE ||
          (u->kind == ZVM_UKIND_BASE && u->offset == 47 && u->mask == 0x80));
      continue;
    }
    switch (u->kind) {
    case ZVM_UKIND_PROCESSOR: /* VMDCPUAD: the guest's VMDBKs summed */
      assert_int_equal(b->kind, ZVM_FIELD_ID);
      assert_int_equal(u->offset, 28);
      break;
    case ZVM_UKIND_COUNTER:
      assert_int_equal(b->kind, ZVM_FIELD_COUNTER);
      break;
    case ZVM_UKIND_GAUGE:
      assert_int_equal(b->kind, ZVM_FIELD_GAUGE);
      break;
    case ZVM_UKIND_INSTANCE:
    default:
      assert_true(b->kind == ZVM_FIELD_ID || b->kind == ZVM_FIELD_TEXT);
      break;
    }
    switch (u->type) {
    case ZVM_UTYPE_UNSIGNED:
      assert_int_equal(b->type, ZVM_TYPE_UNSIGNED);
      break;
    case ZVM_UTYPE_SIGNED:
      assert_int_equal(b->type, ZVM_TYPE_SIGNED);
      break;
    case ZVM_UTYPE_USERID:
      /* D4R10's key is the user ID (ZVM_KEY_USERID on USEITE_VMDUSER) */
      assert_int_equal(b->type, ZVM_TYPE_EBCDIC);
      assert_int_equal(builtin->main.key.part[0].kind, ZVM_KEY_USERID);
      break;
    default:
      fail_msg("unexpected type %d at offset %u", (int)u->type, u->offset);
    }
  }
  /* The plugin now decodes D4R10 with this definition. */
  const struct zvm_record_desc *d = zvm_registry_find(reg, 4, 10);
  assert_true(d->user_defined);
  assert_int_equal(d->main.key.nparts, 1);
  assert_int_equal(d->main.key.part[0].kind, ZVM_KEY_USERID);
  zvm_recconf_free(&rc);
  zvm_registry_destroy(reg);
  rp_buf_free(&out);
  rp_map_free(&map);
  rp_page_free(&pg);
}

/* Options: fields chosen, an instance and kinds overridden, a prefix. */
/* Every option on every field of a built-in page with arrays (D5R21) and
 * of a per-processor page with an array: a block written is one the plugin
 * takes (a field chosen as the instance drops the built-in's fixed
 * instance, value type and MAX rule; a field that locates an array is no
 * instance of it; a processor field with none of the record's own values
 * is left out; header fields are refused), or the mapping fails with a
 * one-line reason. */
static void test_every_option_on_every_field(void **state) {
  (void)state;
  static const char *const pages[] = {"prcsmt-v6r4.txt", "usetst-l1.txt"};
  static const char *const kinds[] = {"counter", "gauge", "instance", "skip"};
  struct zvm_registry *reg = zvm_registry_create();
  assert_non_null(reg);
  assert_int_equal(zvm_registry_add_builtins(reg), 0);
  size_t blocks = 0, refused = 0;
  for (size_t p = 0; p < sizeof(pages) / sizeof(*pages); p++) {
    struct rp_page pg;
    parse_file(pages[p], &pg);
    const struct zvm_record_desc *b =
        zvm_registry_find(reg, (uint8_t)pg.domain, (uint16_t)pg.number);
    struct rp_builtin_names bn;
    if (b != NULL)
      rp_builtin_names(b, &bn);
    for (size_t i = 0; i < pg.nfields; i++) {
      const char *name = pg.fields[i].name;
      if (strcmp(name, "*") == 0)
        continue;
      for (int o = 0; o < 6; o++) {
        struct rp_options opt = {.builtin = b != NULL,
                                 .names = b != NULL ? &bn.bt : NULL,
                                 .source = pages[p]};
        struct rp_kind_override k = {.name = name, .kind = kinds[o % 4]};
        if (o < 4) {
          opt.kinds = &k;
          opt.nkinds = 1;
        } else if (o == 4) {
          opt.instance = name;
        } else {
          opt.fields = &name;
          opt.nfields = 1;
        }
        struct rp_map map;
        if (rp_map_page(&pg, &opt, &map, err, sizeof(err)) != 0) {
          assert_null(strchr(err, '\n'));
          refused++;
          rp_map_free(&map);
          continue;
        }
        struct rp_buf out = {0};
        rp_write_block(&pg, &map, &opt, &out);
        assert_false(out.oom);
        /* A registry as the plugin starts with (a block replacing a
         * built-in record changes the one it is parsed against). */
        struct zvm_registry *fresh = zvm_registry_create();
        assert_non_null(fresh);
        assert_int_equal(zvm_registry_add_builtins(fresh), 0);
        struct zvm_recconf rc;
        zvm_recconf_init(&rc, fresh);
        int rv = zvm_recconf_parse_text(&rc, out.p, out.len, err, sizeof(err));
        if (rv != 0)
          fprintf(stderr, "%s, option %d on %s: %s\n", pages[p], o, name, err);
        assert_int_equal(rv, 0);
        blocks++;
        zvm_recconf_free(&rc);
        zvm_registry_destroy(fresh);
        rp_buf_free(&out);
        rp_map_free(&map);
      }
    }
    rp_page_free(&pg);
  }
  print_message("%zu blocks taken by the plugin, %zu option sets refused\n",
                blocks, refused);
  assert_true(blocks > 300);
  zvm_registry_destroy(reg);
}

static void test_options(void **state) {
  (void)state;
  struct rp_page pg;
  struct rp_map map;
  parse_file("useite-v6r2.txt", &pg);
  static const char *const fields[] = {"hfcpurn", "USEITE_HFCPUWT"};
  static const struct rp_kind_override kinds[] = {{"hfcpuwt", "gauge"}};
  struct rp_options opt = {.fields = fields,
                           .nfields = 2,
                           .instance = "vmdcpuad",
                           .kinds = kinds,
                           .nkinds = 1,
                           .prefix = "vcpu"};
  assert_int_equal(rp_map_page(&pg, &opt, &map, err, sizeof(err)), 0);
  assert_int_equal(map.emitted, 3);
  assert_int_equal(map.counters, 1);
  assert_int_equal(map.gauges, 1);
  assert_string_equal(map.instance[0]->f->name, "USEITE_VMDCPUAD");
  assert_string_equal(map.prefix, "vcpu");
  rp_map_free(&map);

  static const struct rp_kind_override bad[] = {{"vmdsvmid", "counter"}};
  opt = (struct rp_options){.kinds = bad, .nkinds = 1};
  assert_int_equal(rp_map_page(&pg, &opt, &map, err, sizeof(err)), -1);
  assert_string_equal(err, "--kind vmdsvmid=counter: USEITE_VMDSVMID is "
                           "Character 8; a counter or gauge is an Unsigned "
                           "or Signed field of 1, 2, 4 or 8 bytes");
  rp_map_free(&map);
  opt = (struct rp_options){.instance = "nosuch"};
  assert_int_equal(rp_map_page(&pg, &opt, &map, err, sizeof(err)), -1);
  assert_string_equal(err, "--instance nosuch: the page (USEITE) has no such "
                           "field");
  rp_map_free(&map);
  rp_page_free(&pg);
}

/* ------------------------------------------------------------------------
 * Pages that are wrong: one line naming the page's line, no page.
 */
static char *replace(const char *text, const char *from, const char *to) {
  const char *at = strstr(text, from);
  assert_non_null(at);
  size_t n = strlen(text) + strlen(to) + 1;
  char *out = malloc(n);
  assert_non_null(out);
  snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  return out;
}

/* The line number of the first line holding s. */
static unsigned line_of(const char *text, const char *s) {
  const char *at = strstr(text, s);
  assert_non_null(at);
  unsigned line = 1;
  for (const char *p = text; p < at; p++)
    line += *p == '\n';
  return line;
}

static void expect_error(const char *text, size_t len, const char *want) {
  struct rp_page pg;
  err[0] = '\0';
  assert_int_equal(rp_parse(text, len, &pg, err, sizeof(err)), -1);
  if (strstr(err, want) == NULL)
    fail_msg("error '%s' lacks '%s'", err, want);
  assert_null(strchr(err, '\n'));
  assert_int_equal(pg.nfields, 0);
}

static void test_errors(void **state) {
  (void)state;
  size_t len;
  char *page = load("useite-v6r2.txt", &len);
  char want[256], *bad;
  static const char row[] = " 116  74  Unsigned      4  USEITE_HFCPURN";
  unsigned row_line = line_of(page, row);

  bad = replace(page, row, " 116  75  Unsigned      4  USEITE_HFCPURN");
  snprintf(want, sizeof(want),
           "line %u: a row's offsets disagree: decimal 116, hex 75 (117)",
           row_line);
  expect_error(bad, strlen(bad), want);
  free(bad);

  bad = replace(page, row, " 110  6E  Unsigned      4  USEITE_HFCPURN");
  snprintf(want, sizeof(want),
           "line %u: USEITE_HFCPURN at offset 110 goes back (the row before "
           "is at 112)",
           row_line);
  expect_error(bad, strlen(bad), want);
  free(bad);

  bad = replace(page, row, " 116  74  Unsigned     16  USEITE_HFCPURN");
  snprintf(want, sizeof(want),
           "line %u: USEITE_HFCPURN: length 16 does not fit type Unsigned",
           row_line);
  expect_error(bad, strlen(bad), want);
  free(bad);

  bad = replace(page, row, " 116  74  Character     6  USEITE_HFCPURN");
  expect_error(bad, strlen(bad),
               "USEITE_HFESVM (bytes 120-123) overlaps USEITE_HFCPURN (bytes "
               "116-121");
  free(bad);

  bad = replace(page, "Structure   200", "Structure   190");
  expect_error(bad, strlen(bad),
               "USEITE_HFLLIST ends at byte 192, past the end of USEITE (190 "
               "bytes)");
  free(bad);

  /* The cross reference contradicts a row, lacks one, names one more. */
  static const char xrow[] = "USEITE_HFCPURN             74      4";
  bad = replace(page, xrow, "USEITE_HFCPURN             78      4");
  snprintf(want, sizeof(want),
           "line %u: USEITE_HFCPURN at offset 116 (X'74'), length 4, but the "
           "cross reference (line %u) gives offset X'78', length 4",
           row_line, line_of(page, xrow));
  expect_error(bad, strlen(bad), want);
  free(bad);
  bad = replace(page, xrow, "");
  snprintf(want, sizeof(want),
           "line %u: USEITE_HFCPURN is not in the cross reference", row_line);
  expect_error(bad, strlen(bad), want);
  free(bad);
  bad = replace(page, xrow, "USEITE_HFCPURX             74      4\n");
  expect_error(bad, strlen(bad),
               "USEITE_HFCPURN is not in the cross reference");
  free(bad);
  bad = replace(page, "USEITE_VMDXAUTO            95        01",
                "USEITE_VMDXAUTO            95        02");
  expect_error(bad, strlen(bad),
               "bit USEITE_VMDXAUTO of USEITE_CALOSTAT (offset X'95') has "
               "another byte or value in the cross reference");
  free(bad);

  /* Cut short: in the contents, in the cross reference. */
  const char *cut = strstr(page, row);
  expect_error(page, (size_t)(cut - page),
               "the rows of USEITE end at byte 116, but it is 200 bytes: the "
               "page is cut short");
  cut = strstr(page, "USEITE_VMDCPUAD            1C");
  expect_error(page, (size_t)(cut - page), "is not in the cross reference");

  /* Not a page; a page without its Domain. */
  expect_error("Hello\nworld\n", 12, "line 1: not a monitor-record page");
  bad = replace(page, "Domain 4", "Area 4");
  expect_error(bad, strlen(bad), "names no 'Domain N' and 'Record M'");
  free(bad);
  bad = replace(page, "DSECT NAME - USEITE", "DSECT NAME - USEITX");
  expect_error(bad, strlen(bad),
               "the structure is USEITE, but the prolog's DSECT NAME is "
               "USEITX");
  free(bad);
  free(page);
}

static size_t occurrences(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(hay, needle); p != NULL;
       p = strstr(p + 1, needle))
    n++;
  return n;
}

/* The dashboards (--dashboard) for the D4R10 page: one panel per mapped
 * field (the four elements of an array in one, the named bits of a flag
 * field in one, the record count in one), IBM's description in the
 * panel's, counters as rates in each back end's query language (the
 * shapes of contrib/grafana/make-dashboards.py), gauges as they are. */
static void test_dashboard(void **state) {
  (void)state;
  struct rp_page pg;
  struct rp_map map;
  struct rp_options opt = {
      .builtin = true, .source = "useite-v6r2.txt", .count = "transactions"};
  parse_file("useite-v6r2.txt", &pg);
  assert_int_equal(rp_map_page(&pg, &opt, &map, err, sizeof(err)), 0);
  struct rp_buf d[RP_DASH_KINDS] = {{0}};
  for (int k = 0; k < RP_DASH_KINDS; k++) {
    rp_write_dashboard(&pg, &map, 1, rp_dash_kinds[k], &d[k]);
    assert_false(d[k].oom);
  }
  const char *g = d[0].p, *i = d[1].p, *p = d[2].p;

  /* One panel per field: 35 fields (8 of them arrays of 4 elements), 5
   * flag fields with named bits, the record count: 41 panels and a row. */
  size_t fields = 0;
  for (size_t j = 0; j < map.n; j++) {
    const struct rp_mapped *m = &map.m[j];
    if (!m->emit || m->bit != NULL ||
        (m->kind != RP_K_COUNTER && m->kind != RP_K_GAUGE))
      continue;
    char title[64];
    snprintf(title, sizeof(title), "\"title\": \"%s%s\"", m->f->name,
             m->kind == RP_K_COUNTER ? " per second" : "");
    for (int k = 0; k < RP_DASH_KINDS; k++)
      assert_int_equal(occurrences(d[k].p, title), 1);
    fields++;
  }
  assert_int_equal(fields, 35);
  for (int k = 0; k < RP_DASH_KINDS; k++) {
    assert_int_equal(occurrences(d[k].p, "\"type\": \"timeseries\""), 41);
    assert_int_equal(occurrences(d[k].p, "\"type\": \"row\""), 1);
    assert_int_equal(occurrences(d[k].p, " bits\","), 5);
    assert_non_null(strstr(d[k].p, "\"title\": \"USEITE_CALOSTAT bits\""));
    assert_non_null(
        strstr(d[k].p, "\"title\": \"USEITE transactions per second\""));
  }
  /* IBM's name, description and the unit */
  assert_non_null(strstr(
      p, "\"description\": \"D4R10 MRUSEITE (z/VM V6R2.0): USEITE_HFCPURN "
         "(offset 116, Unsigned 4; data source hfcpurn): Number of times "
         "this user was running on the real CPU. A counter: shown as a rate "
         "per second. Unit: per second"));
  assert_non_null(strstr(
      p, "USEITE_VMDSLCNT (offset 30, Signed 2; data source vmdslcnt): Count "
         "of minor time slices expired since the start of the current "
         "transaction. A gauge: shown as it is."));
  assert_non_null(strstr(p, "USEITE_VMDSYSOP (X'80', data source vmdsysop)"));
  /* counters as rates, gauges as they are */
  assert_non_null(
      strstr(g, "\"target\": \"aliasSub(aliasByNode(perSecond(interpolate("
                "collectd.$host.zvm_monitor-$guest.derive-hfcpurn)), 2), "
                "'^zvm_monitor-(.*)$', '\\\\1 hfcpurn')\""));
  assert_non_null(
      strstr(g, "aliasSub(aliasByNode(collectd.$host.zvm_monitor-$guest."
                "gauge-vmdslcnt, 2)"));
  assert_non_null(strstr(
      i, "\"query\": \"SELECT non_negative_derivative(mean(\\\"value\\\"), "
         "1s) FROM \\\"zvm_monitor_hfcpurn\\\" WHERE \\\"host\\\" =~ "
         "/^$host$/ AND \\\"instance\\\" =~ /^$guest$/ AND \\\"type\\\" = "
         "'zvm_useite' AND $timeFilter GROUP BY time($__interval), "
         "\\\"instance\\\" fill(none)\""));
  assert_non_null(strstr(i, "\"alias\": \"$tag_instance hfcpurn\""));
  assert_non_null(strstr(i, "SELECT mean(\\\"value\\\") FROM "
                            "\\\"zvm_monitor_vmdslcnt\\\""));
  assert_non_null(strstr(
      p, "\"expr\": \"rate(collectd_zvm_monitor_zvm_useite_hfcpurn_total{"
         "instance=~\\\"$host\\\", zvm_monitor=~\\\"$guest\\\"}"
         "[$rate_window])\""));
  assert_non_null(strstr(
      p, "\"expr\": \"collectd_zvm_monitor_zvm_useite_vmdslcnt{instance=~"
         "\\\"$host\\\", zvm_monitor=~\\\"$guest\\\"}\""));
  assert_null(strstr(p, "rate(collectd_zvm_monitor_zvm_useite_vmdslcnt"));
  assert_non_null(strstr(p, "\"legendFormat\": \"{{zvm_monitor}} hfcpurn\""));
  /* an array: one panel, its elements */
  const char *a = strstr(p, "\"title\": \"USEITE_VMDCPRMD per second\"");
  assert_non_null(a);
  const char *next = strstr(a + 1, "\"title\"");
  assert_non_null(next);
  for (int q = 0; q < 4; q++) {
    char el[80];
    snprintf(el, sizeof(el),
             "collectd_zvm_monitor_zvm_useite_vmdcprmd_q%d_total", q);
    const char *e = strstr(a, el);
    assert_true(e != NULL && e < next);
  }
  /* the variables of the shipped dashboards */
  assert_non_null(
      strstr(g, "\"regex\": \"/^zvm_monitor-([A-Z0-9@#$_+%-]+)$/\""));
  assert_non_null(strstr(
      p, "label_values(collectd_zvm_monitor_zvm_useite_transactions_total{"
         "instance=~\\\"$host\\\"}, zvm_monitor)"));
  assert_non_null(strstr(p, "\"name\": \"rate_window\""));
  for (int k = 0; k < RP_DASH_KINDS; k++)
    rp_buf_free(&d[k]);
  rp_map_free(&map);
  rp_page_free(&pg);
}

/* The dashboards for the D5R21 page with the built-in's names: the
 * record's own values under its InstanceName "system", a row of the
 * PRCSMT_CPUTINFO array with one panel per entry field and one series per
 * CPU type ($cputype), each named as the plugin dispatches it: type
 * zvm_prcsmt_cpu, or with one value per list (Graphite) the field's
 * OneValueType ("threads", "bool") and the data source as type instance;
 * a MAX flag's panel titled apart from its count's. Then the same page
 * with an entry field only (-f): the block has no values of its own, the
 * plugin accepts it, and the dashboard is the array's row alone. */
static void test_prcsmt_dashboard(void **state) {
  (void)state;
  struct zvm_registry *reg = zvm_registry_create();
  assert_non_null(reg);
  assert_int_equal(zvm_registry_add_builtins(reg), 0);
  struct rp_builtin_names bn;
  rp_builtin_names(zvm_registry_find(reg, 5, 21), &bn);
  struct rp_page pg;
  struct rp_map map;
  struct rp_options opt = {
      .builtin = true, .names = &bn.bt, .source = "prcsmt-v6r4.txt"};
  parse_file("prcsmt-v6r4.txt", &pg);
  assert_int_equal(rp_map_page(&pg, &opt, &map, err, sizeof(err)), 0);
  struct rp_buf d[RP_DASH_KINDS] = {{0}};
  for (int k = 0; k < RP_DASH_KINDS; k++) {
    rp_write_dashboard(&pg, &map, 1, rp_dash_kinds[k], &d[k]);
    assert_false(d[k].oom);
    /* 7 of the record, 9 of an entry; a row each */
    assert_int_equal(occurrences(d[k].p, "\"type\": \"timeseries\""), 16);
    assert_int_equal(occurrences(d[k].p, "\"type\": \"row\""), 2);
    assert_int_equal(occurrences(d[k].p, "\"title\": \"PRCSMT_CAL_RCCCOMNT\""),
                     1);
    assert_int_equal(
        occurrences(d[k].p, "\"title\": \"PRCSMT_CAL_RCCCOMNT MAX\""), 1);
    assert_non_null(strstr(d[k].p, "array cputinfo (one series per entry) "
                                   "($cputype)\""));
    assert_non_null(strstr(d[k].p, "\"name\": \"cputype\""));
  }
  const char *g = d[0].p, *i = d[1].p, *p = d[2].p;
  assert_non_null(strstr(
      g, "aliasSub(aliasByNode(collectd.$host.zvm_monitor-$cputype."
         "threads-activated, 2), '^zvm_monitor-(.*)$', '\\\\1 activated')"));
  assert_non_null(strstr(g, "collectd.$host.zvm_monitor-$cputype.bool-"
                            "requested_is_max, 2)"));
  assert_non_null(strstr(g, "alias(collectd.$host.zvm_monitor-system."
                            "threads-statement_all, 'statement_all')"));
  assert_non_null(strstr(
      g, "\"regex\": \"/^zvm_monitor-(cp|zaap|ifl|icf|ziip|type[0-9]+)$/\""));
  assert_non_null(
      strstr(i, "FROM \\\"zvm_monitor_activated\\\" WHERE \\\"host\\\" =~ "
                "/^$host$/ AND \\\"instance\\\" =~ /^$cputype$/ AND "
                "\\\"type\\\" = 'zvm_prcsmt_cpu'"));
  assert_non_null(strstr(i, "\\\"instance\\\" = 'system' AND \\\"type\\\" = "
                            "'zvm_prcsmt'"));
  assert_non_null(strstr(i, "\"alias\": \"$tag_instance activated\""));
  assert_non_null(
      strstr(p, "\"expr\": \"collectd_zvm_monitor_zvm_prcsmt_cpu_activated{"
                "instance=~\\\"$host\\\", zvm_monitor=~\\\"$cputype\\\"}\""));
  assert_non_null(strstr(p, "\"legendFormat\": \"{{zvm_monitor}} activated\""));
  assert_non_null(strstr(p, "collectd_zvm_monitor_zvm_prcsmt_mt_config_seq{"
                            "instance=~\\\"$host\\\", "
                            "zvm_monitor=\\\"system\\\"}"));
  assert_non_null(
      strstr(p, "label_values(collectd_zvm_monitor_zvm_prcsmt_cpu_"));
  /* IBM's description of the entry's field */
  assert_non_null(strstr(
      p, "PRCSMT_CAL_RCCACMNT (offset 4 in an entry, Unsigned 1; data source "
         "activated): Number of activated threads for this CPU type. All "
         "ones (IBM's MAX) is no value (NaN). One series per entry of the "
         "array cputinfo (prcsmt_cpu)."));
  for (int k = 0; k < RP_DASH_KINDS; k++)
    rp_buf_free(&d[k]);
  rp_map_free(&map);

  /* only the activated threads per CPU type */
  static const char *const only[] = {"PRCSMT_CAL_RCCACMNT"};
  opt.fields = only;
  opt.nfields = 1;
  assert_int_equal(rp_map_page(&pg, &opt, &map, err, sizeof(err)), 0);
  struct rp_buf out = {0};
  rp_write_block(&pg, &map, &opt, &out);
  assert_false(out.oom);
  struct zvm_recconf rc;
  zvm_recconf_init(&rc, reg);
  if (zvm_recconf_parse_text(&rc, out.p, out.len, err, sizeof(err)) != 0)
    fail_msg("%s\n%s", err, out.p);
  const struct zvm_record_desc *u = zvm_registry_find(reg, 5, 21);
  assert_true(u->user_defined);
  assert_int_equal(zvm_layout_data_sources(&u->main, NULL, 0), 0);
  assert_int_equal(zvm_layout_data_sources(&u->arrays[0].entry, NULL, 0), 1);
  rp_write_dashboard(&pg, &map, 1, "prometheus", &d[2]);
  assert_false(d[2].oom);
  assert_int_equal(occurrences(d[2].p, "\"type\": \"row\""), 1);
  assert_int_equal(occurrences(d[2].p, "\"type\": \"timeseries\""), 1);
  assert_non_null(strstr(d[2].p, "zvm_prcsmt_cpu_activated{"));
  rp_buf_free(&d[2]);
  rp_buf_free(&out);
  zvm_recconf_free(&rc);
  zvm_registry_destroy(reg);
  rp_map_free(&map);
  rp_page_free(&pg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_useite_columns_and_rows_run_together),
      cmocka_unit_test(test_two_levels_html_and_text),
      cmocka_unit_test(test_kind_guesses_agree_with_builtin_tables),
      cmocka_unit_test(test_block_accepted_by_the_plugin),
      cmocka_unit_test(test_prcsmt_block_is_the_builtin),
      cmocka_unit_test(test_dashboard),
      cmocka_unit_test(test_prcsmt_dashboard),
      cmocka_unit_test(test_every_option_on_every_field),
      cmocka_unit_test(test_options),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
