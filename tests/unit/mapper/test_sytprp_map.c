/* SPDX-License-Identifier: MIT */
/*
 * D0R2 MRSYTPRP (processor data) and records defined in collectd.conf,
 * decoded by the record engine and mapped to value lists: values checked
 * against numbers computed here from the bytes written at IBM's offsets
 * (z/VM 6.4 page mon640/MRSYTPRP.HTML: 20 PFXCPUAD U2, 22 PLSCUHAF U2,
 * 24 PFXPRBTM CPU timer counting down, 32 PFXUTIME CPU timer). D0R2's
 * table and field values: tests/unit/records/test_sytprp.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "conf_options.h"
#include "mapper_fixture.h"
#include "mapper_values.h"
#include "prcsmt_record.h"
#include "records/catalog.h"
#include "sytprp_record.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/conf.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/mapper.h"
#include "zvm_monitor/recconf.h"
#include "zvm_monitor/recconf_text.h"
#include "zvm_monitor/records.h"
#include "zvm_monitor/registry.h"
#include "zvm_monitor/typesdb.h"

#define SEC 1700000000u
#define US(sec, micro) ((uint64_t)(sec)*1000000u + (micro))
#define DCSS 0x00400000u
#define MAX_VALUES 128

struct fx {
  struct mapper_fx mf; /* conf, mapper m, builders rs and set */
  struct zvm_recconf rc;
  const struct zvm_value *v;
  size_t nv;
  struct zvm_value values[MAX_VALUES];
  int64_t short_records; /* the reader counter after the last pass */
};

static int setup(void **state) {
  struct fx *f = calloc(1, sizeof(*f));
  assert_non_null(f);
  mapper_fx_init(&f->mf);
  zvm_recconf_init(&f->rc, f->mf.conf.records);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fx *f = *state;
  /* The mapper goes before the <Record> descriptors it maps with. */
  zvm_mapper_destroy(f->mf.m);
  f->mf.m = NULL;
  zvm_recconf_free(&f->rc);
  mapper_fx_free(&f->mf);
  free(f);
  return 0;
}

static void configure(struct fx *f, const char *text) {
  char err[512];
  if (zvm_recconf_parse_text(&f->rc, text, strlen(text), err, sizeof(err)) != 0)
    fail_msg("%s", err);
}

/* The pass's values but the reader's counters (the mapper adds them to
 * every pass). */
static void pass(struct fx *f, uint8_t type, uint16_t domains) {
  if (f->mf.m == NULL)
    mapper_fx_start(&f->mf);
  tb_reset(&f->mf.set);
  tb_record_set(&f->mf.set, type, domains, DCSS, &f->mf.rs);
  zvm_mapper_add_set(f->mf.m, f->mf.set.data, f->mf.set.len);
  tb_reset(&f->mf.rs);
  assert_int_equal(zvm_mapper_finish(f->mf.m, US(SEC + 1000, 0), NULL), 0);
  const struct zvm_value *all = mapper_values(f->mf.m, &f->nv);
  size_t n = 0;
  f->short_records = -1;
  for (size_t i = 0; i < f->nv && n < MAX_VALUES; i++)
    if (strcmp(all[i].plugin_instance, "reader") != 0)
      f->values[n++] = all[i];
    else if (strcmp(all[i].type_instance, "short_records") == 0)
      f->short_records = all[i].derive;
  f->v = f->values;
  f->nv = n;
}

static const struct zvm_value *list(const struct fx *f, const char *pi,
                                    const char *type) {
  const struct zvm_value *hit = NULL;
  for (size_t i = 0; i < f->nv; i++)
    if (strcmp(f->v[i].plugin_instance, pi) == 0 &&
        strcmp(f->v[i].type, type) == 0) {
      assert_null(hit);
      hit = &f->v[i];
    }
  return hit;
}

static void test_mapped(void **state) {
  struct fx *f = *state;
  sytprp(&f->mf.rs, 352, tb_tod(SEC, 0), 0, 10, 1000, 2000);
  sytprp(&f->mf.rs, 352, tb_tod(SEC, 1), 1, 20, 3000, 4000);
  pass(f, 0xE2, TB_DOM(0));
  assert_int_equal(f->nv, 2);
  assert_int_equal(f->short_records, 0);
  const struct zvm_value *v = list(f, "cpu1", "zvm_sytprp");
  assert_non_null(v);
  assert_string_equal(v->host, "");
  assert_int_equal(v->nitems, 3);
  assert_int_equal(v->items[0].derive, 20);
  assert_int_equal(v->items[1].derive, down_us(3000));
  assert_int_equal(v->items[2].derive, 4000);
  assert_int_equal(v->time_us, US(SEC, 1));

  /* 60 s later processor 0 was busy 30 s for users, 15 s in emulation. */
  sytprp(&f->mf.rs, 352, tb_tod(SEC + 60, 0), 0, 25, 1000 + 15000000,
         2000 + 30000000);
  pass(f, 0xE2, TB_DOM(0));
  v = list(f, "cpu0", "zvm_sytprp");
  assert_non_null(v);
  assert_null(list(f, "cpu1", "zvm_sytprp")); /* nothing new */
  assert_int_equal(v->items[0].derive, 25);
  assert_int_equal(v->items[1].derive - down_us(1000), 15000000);
  assert_int_equal(v->items[2].derive, 2000 + 30000000);
}

/* One value per list (OneValuePerList): derive-<field> per processor. */
static void test_one_value_per_list(void **state) {
  struct fx *f = *state;
  f->mf.conf.one_value_per_list = true;
  sytprp(&f->mf.rs, 352, tb_tod(SEC, 0), 3, 10, 1000, 2000);
  pass(f, 0xE2, TB_DOM(0));
  size_t found = 0;
  for (size_t i = 0; i < f->nv; i++) {
    const struct zvm_value *v = &f->v[i];
    assert_string_equal(v->plugin_instance, "cpu3");
    assert_string_equal(v->type, "derive");
    if (strcmp(v->type_instance, "pfxutime") == 0 && v->derive == 2000)
      found++;
  }
  assert_int_equal(f->nv, 3);
  assert_int_equal(found, 1);
}

/* A record shorter than a field's end gives no value for that field: the
 * list of a D0R2 cut inside PFXUTIME misses it. A record too short for
 * its key gives nothing. */
static void test_short_records(void **state) {
  struct fx *f = *state;
  f->mf.conf.one_value_per_list = true;
  sytprp(&f->mf.rs, 36, tb_tod(SEC, 0), 4, 10, 1000, 2000);
  sytprp(&f->mf.rs, 21, tb_tod(SEC, 1), 5, 10, 1000, 2000);
  pass(f, 0xE2, TB_DOM(0));
  assert_int_equal(f->nv, 2);
  assert_int_equal(f->short_records, 2); /* counted since start */
  for (size_t i = 0; i < f->nv; i++) {
    assert_string_equal(f->v[i].plugin_instance, "cpu4");
    assert_true(strcmp(f->v[i].type_instance, "pfxutime") != 0);
  }
}

/* A record defined in collectd.conf, through the same engine: two keys
 * (EBCDIC and a number), an array, a gauge with Scale, a CountsDown
 * counter, a field past the end of short records. */
static const char user_conf[] =
    "<Record \"8/1\">\n"
    "  Name \"vnd\"\n"
    "  InstancePrefix \"if\"\n"
    "  <Field \"owner\">\n Offset 24\n Length 8\n Type \"ebcdic\"\n"
    "    Kind \"instance\"\n  </Field>\n"
    "  <Field \"dev\">\n Offset 32\n Length 2\n Type \"unsigned\"\n"
    "    Kind \"instance\"\n  </Field>\n"
    "  <Field \"pkts\">\n Offset 40\n Length 4\n Count 3\n"
    "    Type \"unsigned\"\n Kind \"counter\"\n  </Field>\n"
    "  <Field \"load\">\n Offset 52\n Length 2\n Type \"signed\"\n"
    "    Kind \"gauge\"\n Scale 0.5\n  </Field>\n"
    "  <Field \"left\">\n Offset 56\n Length 8\n Type \"unsigned\"\n"
    "    Kind \"counter\"\n CountsDown true\n  </Field>\n"
    "  <Field \"late\">\n Offset 96\n Length 4\n Type \"unsigned\"\n"
    "    Kind \"counter\"\n  </Field>\n"
    "</Record>\n";

static size_t vnd(struct tb *rs, uint16_t len, uint64_t tod, const char *owner,
                  uint16_t dev) {
  size_t r = tb_record(rs, len, 8, 1, tod);
  tb_put_ebcdic(rs, r + 24, owner, 8);
  tb_put_u16(rs, r + 32, dev);
  for (unsigned i = 0; i < 3; i++)
    tb_put_u32(rs, r + 40 + 4 * i, 0xF0000000u + dev * 10 + i);
  tb_put_u16(rs, r + 52, 0xFFF6); /* -10 */
  tb_put_u64(rs, r + 56, UINT64_C(0x7FFFFFFFFFFFFF00));
  if (len >= 100)
    tb_put_u32(rs, r + 96, 77);
  return r;
}

static void test_user_record(void **state) {
  struct fx *f = *state;
  configure(f, user_conf);
  vnd(&f->mf.rs, 100, tb_tod(SEC, 0), "TCPIP", 0x600);
  vnd(&f->mf.rs, 64, tb_tod(SEC, 1), "TCP#2", 0x603); /* ends before "late" */
  pass(f, 0xE2, TB_DOM(8));
  assert_int_equal(f->nv, 1 + 5);
  assert_int_equal(f->short_records, 1);
  const struct zvm_value *v = list(f, "ifTCPIP_1536", "zvm_vnd");
  assert_non_null(v);
  assert_int_equal(v->nitems, 6);
  assert_int_equal(v->items[0].derive, 0xF0000000u + 0x600 * 10);
  assert_int_equal(v->items[2].derive, 0xF0000000u + 0x600 * 10 + 2);
  assert_int_equal(v->items[3].kind, ZVM_VALUE_GAUGE);
  assert_true(v->items[3].gauge == -5.0);
  assert_int_equal(v->items[4].derive, 0xFF);
  assert_int_equal(v->items[5].derive, 77);
  /* The short record has no "late": a value list of the type needs every
   * data source, so the engine sends the values it has one per list
   * (derive/gauge-<name>), never a made-up one. */
  assert_null(list(f, "ifTCP#2_1539", "zvm_vnd"));
  size_t singles = 0;
  for (size_t i = 0; i < f->nv; i++) {
    if (strcmp(f->v[i].plugin_instance, "ifTCP#2_1539") != 0)
      continue;
    singles++;
    assert_int_equal(f->v[i].nitems, 0);
    assert_string_not_equal(f->v[i].type_instance, "late");
    if (strcmp(f->v[i].type_instance, "pkts_1") == 0)
      assert_int_equal(f->v[i].derive, 0xF0000000u + 0x603 * 10 + 1);
  }
  assert_int_equal(singles, 5);

  /* The type the plugin registers for it. */
  const struct zvm_layout *l = NULL;
  for (size_t t = 0; t < zvm_mapper_type_count(f->mf.m); t++)
    if (strcmp(zvm_mapper_type_at(f->mf.m, t)->type_name, "zvm_vnd") == 0)
      l = zvm_mapper_type_at(f->mf.m, t);
  assert_non_null(l);
  char line[256];
  assert_true(zvm_layout_types_db_line(l, line, sizeof(line)) > 0);
  assert_string_equal(line, "zvm_vnd\tpkts_0:DERIVE:0:U, pkts_1:DERIVE:0:U, "
                            "pkts_2:DERIVE:0:U, load:GAUGE:U:U, "
                            "left:DERIVE:0:U, late:DERIVE:0:U");
}

/* The longest instance name a <Record> can make: a 16-character
 * InstancePrefix and two 8-byte EBCDIC fields whose every byte is escaped
 * ("%81": 3 characters), 16 + 24 + 1 + 24 = 65 characters, two more than
 * an identifier holds. Two instances that differ only in the last byte
 * keep two identifiers: shortened to a prefix (never ending inside an
 * escape), "~" and eight hex digits of the hash of the whole name. */
static const char long_conf[] =
    "<Record \"8/2\">\n"
    "  Name \"lng\"\n"
    "  InstancePrefix \"abcdefghijklmnop\"\n"
    "  <Field \"one\">\n Offset 24\n Length 8\n Type \"ebcdic\"\n"
    "    Kind \"instance\"\n  </Field>\n"
    "  <Field \"two\">\n Offset 32\n Length 8\n Type \"ebcdic\"\n"
    "    Kind \"instance\"\n  </Field>\n"
    "  <Field \"n\">\n Offset 40\n Length 4\n Type \"unsigned\"\n"
    "    Kind \"counter\"\n  </Field>\n"
    "</Record>\n";

static void lng(struct tb *rs, const char *one, const char *two, uint32_t n) {
  size_t r = tb_record(rs, 44, 8, 2, tb_tod(SEC, 0));
  tb_put_ebcdic(rs, r + 24, one, 8);
  tb_put_ebcdic(rs, r + 32, two, 8);
  tb_put_u32(rs, r + 40, n);
}

static void test_long_instance_names(void **state) {
  struct fx *f = *state;
  configure(f, long_conf);
  lng(&f->mf.rs, "aaaaaaaa", "aaaaaaab", 1);
  lng(&f->mf.rs, "aaaaaaaa", "aaaaaaac", 2);
  pass(f, 0xE2, TB_DOM(8));
  assert_int_equal(f->nv, 2);
  assert_string_not_equal(f->v[0].plugin_instance, f->v[1].plugin_instance);
  /* "abcdefghijklmnop" "%81" x 8, "_", "%81" x 7 would be 63 characters:
   * the prefix keeps 54, less the cut escape, then "~" and the hash. */
  const char *keep = "abcdefghijklmnop%81%81%81%81%81%81%81%81_%81%81%81%81";
  for (size_t i = 0; i < 2; i++) {
    const char *pi = f->v[i].plugin_instance;
    assert_true(strlen(pi) < ZVM_ID_MAX);
    assert_int_equal(strlen(pi), strlen(keep) + 9);
    assert_memory_equal(pi, keep, strlen(keep));
    assert_int_equal(pi[strlen(keep)], '~');
    assert_int_equal(strspn(pi + strlen(keep) + 1, "0123456789abcdef"), 8);
    assert_int_equal(f->v[i].nitems, 1);
  }
  /* Each name has its own record's value. */
  assert_int_equal(f->v[0].items[0].derive + f->v[1].items[0].derive, 3);
  assert_int_not_equal(f->v[0].items[0].derive, f->v[1].items[0].derive);
}

/* A user ID as the instance (Type userid): UserID selects, GuestsAsHosts
 * makes the guest the host, as for D4R10. */
static void guest_rec(struct tb *rs, const char *user, uint32_t n,
                      uint64_t tod) {
  size_t r = tb_record(rs, 32, 4, 3, tod);
  tb_put_ebcdic(rs, r + 20, user, 8);
  tb_put_u32(rs, r + 28, n);
}

static void test_userid_record(void **state) {
  struct fx *f = *state;
  configure(f, "<Record \"4/3\">\n Name \"guest\"\n"
               " <Field \"user\">\n Offset 20\n Length 8\n Type \"userid\"\n"
               " Kind \"instance\"\n </Field>\n"
               " <Field \"n\">\n Offset 28\n Length 4\n Type \"unsigned\"\n"
               " Kind \"counter\"\n </Field>\n</Record>\n");
  char err[256];
  assert_int_equal(
      zvm_conf_set_string(&f->mf.conf, "UserID", "/^LINUX/", err, sizeof(err)),
      0);
  guest_rec(&f->mf.rs, "LINUX01", 11, tb_tod(SEC, 0));
  guest_rec(&f->mf.rs, "WEB01", 22, tb_tod(SEC, 1));
  pass(f, 0xC5, TB_DOM(4));
  assert_int_equal(f->nv, 1);
  const struct zvm_value *v = list(f, "LINUX01", "zvm_guest");
  assert_non_null(v);
  assert_string_equal(v->host, "");
  assert_int_equal(v->items[0].derive, 11);

  zvm_mapper_destroy(f->mf.m);
  f->mf.m = NULL;
  f->mf.conf.guests_as_hosts = true;
  guest_rec(&f->mf.rs, "LINUX02", 33, tb_tod(SEC, 2));
  pass(f, 0xC5, TB_DOM(4));
  assert_int_equal(f->nv, 1);
  v = list(f, "", "zvm_guest");
  assert_non_null(v);
  assert_string_equal(v->host, "linux02");
  assert_int_equal(v->items[0].derive, 33);
}

/* Replace true: the block takes over D0R2 from the built-in table. */
static void test_replace_builtin(void **state) {
  struct fx *f = *state;
  configure(f, "<Record \"0/2\">\n Name \"prp\"\n Replace true\n"
               " <Field \"utime\">\n Offset 32\n Length 8\n"
               " Type \"cputimer\"\n Kind \"gauge\"\n Scale 0.000001\n"
               " </Field>\n</Record>\n");
  sytprp(&f->mf.rs, 352, tb_tod(SEC, 0), 0, 10, 1000, 2500000);
  pass(f, 0xE2, TB_DOM(0));
  assert_int_equal(f->nv, 1);
  assert_null(list(f, "cpu0", "zvm_sytprp"));
  const struct zvm_value *v = list(f, "", "zvm_prp");
  assert_non_null(v);
  assert_int_equal(v->nitems, 1);
  assert_true(v->items[0].gauge > 2.4999 && v->items[0].gauge < 2.5001);
}

/* D4R10 as a <Record> block with Replace true: a field of Kind processor
 * (VMDCPUAD), the base VMDBK's bit (CALBASE, X'80' of CALFLAG1), the
 * record count and the dispatch-queue array named as the built-in names it
 * (_q0.._q3). A guest with two VMDBKs, one skipping a transaction, then a
 * logon that starts its sums afresh: every value the block gives is the
 * built-in table's value of the same name. */
static const char useite_conf[] =
    "<Record \"4/10\">\n Name \"useite\"\n Replace true\n"
    " <Field \"transactions\">\n Type \"records\"\n Kind \"counter\"\n"
    " </Field>\n"
    " <Field \"vmduser\">\n Offset 20\n Length 8\n Type \"userid\"\n"
    " Kind \"instance\"\n </Field>\n"
    " <Field \"vmdcpuad\">\n Offset 28\n Length 2\n Type \"unsigned\"\n"
    " Kind \"processor\"\n </Field>\n"
    " <Field \"vmdslcnt\">\n Offset 30\n Length 2\n Type \"signed\"\n"
    " Kind \"gauge\"\n </Field>\n"
    " <Field \"calbase\">\n Offset 47\n Length 1\n Mask 128\n"
    " Type \"unsigned\"\n Kind \"base\"\n </Field>\n"
    " <Field \"hfcpurn\">\n Offset 116\n Length 4\n Type \"unsigned\"\n"
    " Kind \"counter\"\n </Field>\n"
    " <Field \"vmdcprmd\">\n Offset 152\n Length 2\n Count 4\n"
    " ElementPrefix \"_q\"\n Type \"unsigned\"\n Kind \"counter\"\n"
    " </Field>\n"
    "</Record>\n";

/* One D4R10 record of VMDBK cpuad of user (CALBASE on base), its values
 * derived from n. */
static void useite_rec(struct tb *rs, uint64_t tod, const char *user,
                       uint16_t cpuad, bool base, uint32_t n) {
  size_t r = tb_record(rs, 200, 4, 10, tod);
  tb_put_ebcdic(rs, r + 20, user, 8);
  tb_put_u16(rs, r + 28, cpuad);
  tb_put_u16(rs, r + 30, (uint16_t)(n % 7 + 10 * cpuad));
  tb_put_u8(rs, r + 47, base ? 0xC0 : 0x40);
  tb_put_u32(rs, r + 116, n * 3 + cpuad);
  for (unsigned q = 0; q < 4; q++)
    tb_put_u16(rs, r + 152 + 2 * q, (uint16_t)(n + q + 100 * cpuad));
}

/* A logon (D4R1) of user. */
static void logon_rec(struct tb *rs, uint64_t tod, const char *user) {
  size_t r = tb_record(rs, 180, 4, 1, tod);
  tb_put_ebcdic(rs, r + 20, user, 8);
}

#define USEITE_PASSES 4
struct useite_list {
  uint64_t time_us;
  size_t nitems;
  struct zvm_value_item items[ZVM_LAYOUT_DS_MAX];
};
/* The guest's zvm_useite list after each pass (its items copied: the
 * mapper's are valid until its next pass). */
static void useite_passes(struct fx *f, struct useite_list out[USEITE_PASSES]) {
  for (unsigned p = 0; p < USEITE_PASSES; p++) {
    uint64_t t = tb_tod(SEC + 60 * p, 0);
    uint32_t n = p < 3 ? 1000 * (p + 1) : 5; /* after the logon: small */
    if (p == 3)
      logon_rec(&f->mf.rs, t, "LINUX01");
    useite_rec(&f->mf.rs, t + 1, "LINUX01", 0, true, n);
    if (p != 1) /* VMDBK 1 skips the second transaction */
      useite_rec(&f->mf.rs, t + 2, "LINUX01", 1, false, n + 1);
    pass(f, 0xC5, TB_DOM(4));
    const struct zvm_value *v = list(f, "LINUX01", "zvm_useite");
    assert_non_null(v);
    assert_true(v->nitems <= ZVM_LAYOUT_DS_MAX);
    out[p].time_us = v->time_us;
    out[p].nitems = v->nitems;
    memcpy(out[p].items, v->items, v->nitems * sizeof(*v->items));
  }
}

static void test_useite_block_equals_builtin(void **state) {
  struct fx *f = *state;
  static struct useite_list builtin[USEITE_PASSES], block[USEITE_PASSES];
  useite_passes(f, builtin);
  zvm_mapper_destroy(f->mf.m);
  f->mf.m = NULL;
  configure(f, useite_conf);
  useite_passes(f, block);

  const struct zvm_record_desc *d =
      zvm_registry_find(f->mf.conf.records, 4, 10);
  assert_true(d->user_defined);
  struct zvm_ds ds[ZVM_LAYOUT_DS_MAX], bds[ZVM_LAYOUT_DS_MAX];
  size_t nds = zvm_layout_data_sources(&d->main, ds, ZVM_LAYOUT_DS_MAX);
  size_t nbds =
      zvm_layout_data_sources(&zvm_rec_useite.main, bds, ZVM_LAYOUT_DS_MAX);
  assert_int_equal(nds, 7);
  for (unsigned p = 0; p < USEITE_PASSES; p++) {
    assert_int_equal(block[p].nitems, nds);
    assert_int_equal(block[p].time_us, builtin[p].time_us);
    for (size_t i = 0; i < nds; i++) {
      size_t j = 0;
      while (j < nbds && strcmp(bds[j].name, ds[i].name) != 0)
        j++;
      assert_true(j < nbds); /* the built-in has the same name */
      const struct zvm_value_item *a = &block[p].items[i];
      const struct zvm_value_item *b = &builtin[p].items[j];
      assert_int_equal(a->kind, b->kind);
      if (a->kind == ZVM_VALUE_DERIVE)
        assert_int_equal(a->derive, b->derive);
      else
        assert_true(a->gauge == b->gauge);
    }
  }
  /* The sums themselves: hfcpurn of both VMDBKs, VMDBK 1 keeping its
   * first value in the second pass; transactions count the base's
   * records; vmdslcnt is the base VMDBK's; after the logon, afresh. */
  assert_int_equal(block[0].items[2].derive, 3000 + 3004);
  assert_int_equal(block[1].items[2].derive, 6000 + 3004);
  assert_int_equal(block[2].items[2].derive, 9000 + 9004);
  assert_int_equal(block[3].items[2].derive, 15 + 19);
  assert_int_equal(block[1].items[0].derive, 2);
  assert_true(block[2].items[1].gauge == 3000 % 7);
  assert_int_equal(block[3].items[0].derive, 1);
}

/* A record per virtual processor whose page names no base VMDBK bit
 * (Kind processor, no Kind base): its counters summed per guest, its
 * gauge the latest record's, its record count every VMDBK's records. */
static void test_per_vp_without_base(void **state) {
  struct fx *f = *state;
  configure(f, "<Record \"4/200\">\n Name \"vp\"\n"
               " <Field \"user\">\n Offset 20\n Length 8\n Type \"userid\"\n"
               " Kind \"instance\"\n </Field>\n"
               " <Field \"n\">\n Type \"records\"\n Kind \"counter\"\n"
               " </Field>\n"
               " <Field \"cpu\">\n Offset 28\n Length 2\n Type \"unsigned\"\n"
               " Kind \"processor\"\n </Field>\n"
               " <Field \"lvl\">\n Offset 30\n Length 2\n Type \"unsigned\"\n"
               " Kind \"gauge\"\n </Field>\n"
               " <Field \"c\">\n Offset 32\n Length 4\n Type \"unsigned\"\n"
               " Kind \"counter\"\n </Field>\n</Record>\n");
  static const struct {
    uint16_t cpu, lvl;
    uint32_t c;
  } recs[] = {{0, 5, 100}, {1, 6, 1000}, {2, 7, 10}, {1, 8, 2000}};
  for (size_t i = 0; i < 4; i++) {
    size_t r = tb_record(&f->mf.rs, 36, 4, 200, tb_tod(SEC, (uint32_t)i));
    tb_put_ebcdic(&f->mf.rs, r + 20, "LINUX01", 8);
    tb_put_u16(&f->mf.rs, r + 28, recs[i].cpu);
    tb_put_u16(&f->mf.rs, r + 30, recs[i].lvl);
    tb_put_u32(&f->mf.rs, r + 32, recs[i].c);
  }
  pass(f, 0xC5, TB_DOM(4));
  const struct zvm_value *v = list(f, "LINUX01", "zvm_vp");
  assert_non_null(v);
  assert_int_equal(v->nitems, 3);
  assert_int_equal(v->items[0].derive, 4);               /* every record */
  assert_true(v->items[1].gauge == 8);                   /* the latest's */
  assert_int_equal(v->items[2].derive, 100 + 2000 + 10); /* each latest */
}

/* Named bits as 0/1 gauges (two bits of one flag byte), a device number
 * as a hexadecimal instance, and a record of more counters than one value
 * list holds (70), dispatched one value per list. */
static void test_bits_hex_and_many(void **state) {
  struct fx *f = *state;
  char text[16384];
  size_t len = (size_t)snprintf(
      text, sizeof(text),
      "<Record \"6/30\">\n Name \"dev\"\n InstancePrefix \"dev\"\n"
      " <Field \"rdev\">\n Offset 20\n Length 2\n Format \"hex\"\n"
      " Type \"unsigned\"\n Kind \"instance\"\n </Field>\n"
      " <Field \"busy\">\n Offset 22\n Length 1\n Mask 128\n"
      " Type \"unsigned\"\n Kind \"gauge\"\n </Field>\n"
      " <Field \"online\">\n Offset 22\n Length 1\n Mask 1\n"
      " Type \"unsigned\"\n Kind \"gauge\"\n </Field>\n");
  for (int i = 0; i < 70; i++)
    len += (size_t)snprintf(text + len, sizeof(text) - len,
                            " <Field \"c%d\">\n Offset %d\n Length 4\n"
                            " Type \"unsigned\"\n Kind \"counter\"\n"
                            " </Field>\n",
                            i, 24 + 4 * i);
  snprintf(text + len, sizeof(text) - len, "</Record>\n");
  configure(f, text);
  size_t r = tb_record(&f->mf.rs, 24 + 4 * 70, 6, 30, tb_tod(SEC, 0));
  tb_put_u16(&f->mf.rs, r + 20, 0x0A0C);
  tb_put_u8(&f->mf.rs, r + 22, 0x81 & ~0x01); /* busy, not online */
  for (int i = 0; i < 70; i++)
    tb_put_u32(&f->mf.rs, r + 24 + 4 * (size_t)i, 1000u + (unsigned)i);
  pass(f, 0xE2, TB_DOM(6));
  assert_int_equal(f->nv, 72);
  for (size_t i = 0; i < f->nv; i++) {
    assert_string_equal(f->v[i].plugin_instance, "dev0A0C");
    assert_int_equal(f->v[i].nitems, 0); /* one value per list */
  }
  const struct zvm_value *busy = NULL, *online = NULL, *c69 = NULL;
  for (size_t i = 0; i < f->nv; i++) {
    const char *ti = f->v[i].type_instance;
    if (strcmp(ti, "busy") == 0)
      busy = &f->v[i];
    else if (strcmp(ti, "online") == 0)
      online = &f->v[i];
    else if (strcmp(ti, "c69") == 0)
      c69 = &f->v[i];
  }
  assert_non_null(busy);
  assert_non_null(online);
  assert_non_null(c69);
  assert_string_equal(busy->type, "gauge");
  assert_true(busy->gauge == 1.0);
  assert_true(online->gauge == 0.0);
  assert_string_equal(c69->type, "derive");
  assert_int_equal(c69->derive, 1069);
}

/* The man page's worked example, taken from the page itself: it decodes
 * D0R2 as the page says (instance cpuN, type zvm_myprp, the values of the
 * built-in table) and its types.db line is the one the page prints. */
static void test_man_page_example(void **state) {
  struct fx *f = *state;
  FILE *fp = fopen(ZVM_POD, "r");
  assert_non_null(fp);
  char line[512], text[4096] = "";
  size_t len = 0;
  bool example = false, in = false, printed = false;
  char want_line[256] = "";
  while (fgets(line, sizeof(line), fp) != NULL) {
    if (strncmp(line, "B<A worked example>", 19) == 0)
      example = true;
    if (example && strstr(line, "<Record \"0/2\">") != NULL)
      in = true;
    if (in) {
      assert_true(len + strlen(line) < sizeof(text));
      strcpy(text + len, line);
      len += strlen(line);
    }
    if (in && strstr(line, "</Record>") != NULL) {
      in = false;
      example = false;
      printed = true;
    }
    if (printed && strncmp(line, "  zvm_myprp ", 12) == 0) {
      snprintf(want_line, sizeof(want_line), "%s", line + 2);
      break;
    }
  }
  fclose(fp);
  assert_true(len > 0);
  assert_true(want_line[0] != '\0');
  configure(f, text);

  sytprp(&f->mf.rs, 352, tb_tod(SEC, 0), 2, 10, 1000, 2000);
  pass(f, 0xE2, TB_DOM(0));
  assert_int_equal(f->nv, 1);
  const struct zvm_value *v = list(f, "cpu2", "zvm_myprp");
  assert_non_null(v);
  assert_int_equal(v->nitems, 3);
  assert_int_equal(v->items[0].derive, 10);
  assert_int_equal(v->items[1].derive, down_us(1000));
  assert_int_equal(v->items[2].derive, 2000);

  /* "zvm_myprp  plscuhaf:..." on the page, a tab in types.db. */
  const struct zvm_record_desc *d = zvm_registry_find(f->mf.conf.records, 0, 2);
  char got[256];
  assert_true(zvm_layout_types_db_line(&d->main, got, sizeof(got)) > 0);
  want_line[strcspn(want_line, "\n")] = '\0';
  char *gap = strstr(want_line, "  ");
  assert_non_null(gap);
  assert_int_equal(strncmp(got, want_line, (size_t)(gap - want_line)), 0);
  assert_int_equal(got[gap - want_line], '\t');
  assert_string_equal(got + (gap - want_line) + 1, gap + 2);
}

/* D5R21 (IBM MRPRCSMT, z/VM V6R4.0) with the values of its PRCSMT_CPUTINFO
 * entries only: the record's own fields locate the array, none is a
 * counter or gauge. Each entry's list, nothing for the record itself, no
 * type registered for it; with OneValuePerList, one value per list. */
static const char cputinfo_only_conf[] =
    "<Record \"5/21\">\n Name \"smt\"\n Replace true\n"
    " <Field \"cnt\">\n Offset 29\n Length 1\n Type \"unsigned\"\n"
    " Kind \"layout\"\n </Field>\n"
    " <Field \"esz\">\n Offset 30\n Length 2\n Type \"unsigned\"\n"
    " Kind \"layout\"\n </Field>\n"
    " <Field \"off\">\n Offset 32\n Length 2\n Type \"unsigned\"\n"
    " Kind \"layout\"\n </Field>\n"
    " <Array \"cputinfo\">\n Name \"smt_cpu\"\n CountField \"cnt\"\n"
    " SizeField \"esz\"\n OffsetField \"off\"\n"
    " <Field \"cputype\">\n Offset 0\n Length 1\n Type \"unsigned\"\n"
    " Kind \"instance\"\n Format \"cputype\"\n </Field>\n"
    " <Field \"activated\">\n Offset 4\n Length 1\n Type \"unsigned\"\n"
    " Kind \"gauge\"\n OneValueType \"threads\"\n </Field>\n"
    " <Field \"set_command\">\n Offset 5\n Length 1\n Type \"unsigned\"\n"
    " Kind \"gauge\"\n AllOnes \"nan\"\n OneValueType \"threads\"\n"
    " </Field>\n"
    " </Array>\n"
    "</Record>\n";

static void test_arrays_only_record(void **state) {
  static const char *const names[] = {"cp", "zaap", "ifl", "icf", "ziip"};
  struct fx *f = *state;
  configure(f, cputinfo_only_conf);
  build_prcsmt(&f->mf.rs, 0x40, five, 5, 8, 36, 76);
  pass(f, 0xC5, TB_DOM(5));
  assert_int_equal(f->nv, 5);
  for (size_t i = 0; i < 5; i++) {
    const struct zvm_value *v = list(f, names[i], "zvm_smt_cpu");
    assert_non_null(v);
    assert_int_equal(v->nitems, 2);
    assert_true(v->items[0].gauge == five[i].ac);
    if (five[i].sm == 0xFF) /* the IFL's: MAX */
      assert_true(isnan(v->items[1].gauge));
    else
      assert_true(v->items[1].gauge == five[i].sm);
  }
  /* The entries' type is registered, the record's own (no values) not. */
  bool entry = false;
  for (size_t t = 0; t < zvm_mapper_type_count(f->mf.m); t++) {
    const char *type = zvm_mapper_type_at(f->mf.m, t)->type_name;
    assert_string_not_equal(type, "zvm_smt");
    entry |= strcmp(type, "zvm_smt_cpu") == 0;
  }
  assert_true(entry);

  zvm_mapper_destroy(f->mf.m);
  f->mf.m = NULL;
  f->mf.conf.one_value_per_list = true;
  build_prcsmt(&f->mf.rs, 0x40, five, 5, 8, 36, 76);
  pass(f, 0xC5, TB_DOM(5));
  assert_int_equal(f->nv, 10);
  for (size_t k = 0; k < f->nv; k++) {
    const struct zvm_value *v = &f->v[k];
    size_t i = 0;
    while (i < 5 && strcmp(v->plugin_instance, names[i]) != 0)
      i++;
    assert_true(i < 5);
    assert_string_equal(v->type, "threads");
    if (strcmp(v->type_instance, "activated") == 0)
      assert_true(v->gauge == five[i].ac);
    else
      assert_string_equal(v->type_instance, "set_command");
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_mapped),
      T(test_one_value_per_list),
      T(test_short_records),
      T(test_user_record),
      T(test_long_instance_names),
      T(test_replace_builtin),
      T(test_userid_record),
      T(test_man_page_example),
      T(test_useite_block_equals_builtin),
      T(test_bits_hex_and_many),
      T(test_per_vp_without_base),
      T(test_arrays_only_record),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
