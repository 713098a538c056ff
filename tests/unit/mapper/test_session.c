/* SPDX-License-Identifier: MIT */
/*
 * Guest logon and logoff (D4R1 MRUSELON, D4R2 MRUSELOF; plugin/
 * hooks_session.c) through the mapper: one notification per logon and per
 * logoff (not per VMDBK record), named like the guest's values, selected
 * by UserID, switched by NotifyLogon/NotifyLogoff, and a logoff starts the
 * guest's D4R10 state afresh without losing what the pass holds. Records
 * are built byte by byte with tests/rig/builder.h from IBM's layouts: user ID
 * at offset 20 (8 bytes EBCDIC), VMDCPUAD at 28 (unsigned 2).
 */
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
#include "zvm_monitor/conf.h"
#include "zvm_monitor/mapper.h"

#define SEC 1700000000u
#define US(sec, micro) ((uint64_t)(sec)*1000000u + (micro))
#define NOW US(SEC + 100, 0)
#define DCSS_ADDR 0x00400000u
#define USEITE_HFCPURN                                                         \
  116 /* IBM MRUSEITE (z/VM V6R2.0): Unsigned 4, a counter */

struct fx {
  struct mapper_fx mf; /* conf, mapper m, builders rs and set */
  const struct zvm_value *v;
  size_t nv;
  const struct zvm_notification *n;
  size_t nn;
};

static int setup(void **state) {
  struct fx *f = calloc(1, sizeof(*f));
  assert_non_null(f);
  mapper_fx_init(&f->mf);
  f->mf.conf.one_value_per_list = true; /* values by identifier */
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fx *f = *state;
  mapper_fx_free(&f->mf);
  free(f);
  return 0;
}

static void pass(struct fx *f) {
  tb_reset(&f->mf.set);
  tb_record_set(&f->mf.set, 0xC5, TB_DOM(4), DCSS_ADDR, &f->mf.rs);
  zvm_mapper_add_set(f->mf.m, f->mf.set.data, f->mf.set.len);
  tb_reset(&f->mf.rs);
  assert_int_equal(zvm_mapper_finish(f->mf.m, NOW, NULL), 0);
  f->v = mapper_values(f->mf.m, &f->nv);
  f->n = zvm_mapper_notifications(f->mf.m, &f->nn);
}

/* D4R1 (180 bytes, mon730) or D4R2 (496 bytes, mon620). */
static void add_session(struct tb *rs, bool logon, const char *user,
                        uint16_t cpuad, uint64_t tod) {
  size_t rec = tb_record(rs, logon ? 180 : 496, 4, logon ? 1 : 2, tod);
  tb_put_ebcdic(rs, rec + 20, user, 8);
  tb_put_u16(rs, rec + 28, cpuad);
  /* Bytes past 30 differ between z/VM levels: must not matter. */
  for (size_t off = 32; off + 4 <= (logon ? 180u : 496u); off += 4)
    tb_put_u32(rs, rec + off, 0xDEAD0000u + (uint32_t)off);
}

/* One D4R10 record of a VMDBK: user, VMDCPUAD, base flag, HFCPURN. */
static void add_useite(struct tb *rs, const char *user, uint16_t cpuad,
                       bool base, uint32_t hfcpurn, uint64_t tod) {
  size_t rec = tb_record(rs, 200, 4, 10, tod);
  tb_put_ebcdic(rs, rec + 20, user, 8);
  tb_put_u16(rs, rec + 28, cpuad);
  tb_put_u8(rs, rec + 47, base ? 0x80 : 0x00); /* CALFLAG1: CALBASE */
  tb_put_u32(rs, rec + USEITE_HFCPURN, hfcpurn);
}

static const struct zvm_value *find(const struct fx *f, const char *host,
                                    const char *pi, const char *ti) {
  for (size_t i = 0; i < f->nv; i++)
    if (strcmp(f->v[i].host, host) == 0 &&
        strcmp(f->v[i].plugin_instance, pi) == 0 &&
        strcmp(f->v[i].type_instance, ti) == 0)
      return &f->v[i];
  return NULL;
}

/* A logon or logoff notification: its neutral view (record D4R1 or D4R2,
 * kind, the instance's whole name) and its collectd names. */
static void expect_note(const struct zvm_notification *n, int severity,
                        const char *instance, const char *host, const char *pi,
                        const char *ti, const char *message, uint64_t time_us) {
  bool logon = strcmp(ti, "logon") == 0;
  assert_non_null(n->record);
  assert_int_equal(n->record->domain, 4);
  assert_int_equal(n->record->number, logon ? 1 : 2);
  assert_int_equal(n->kind, logon ? ZVM_NOTIFY_LOGON : ZVM_NOTIFY_LOGOFF);
  assert_string_equal(n->instance, instance);
  assert_int_equal(n->severity, severity);
  assert_string_equal(n->host, host);
  assert_string_equal(n->plugin_instance, pi);
  assert_string_equal(n->type, "session");
  assert_string_equal(n->type_instance, ti);
  assert_string_equal(n->message, message);
  assert_int_equal(n->time_us, time_us);
}

static void test_logon_and_logoff_once_per_guest(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  add_session(&f->mf.rs, true, "LINUX07", 0, tb_tod(SEC, 1));
  add_useite(&f->mf.rs, "LINUX07", 0, true, 100, tb_tod(SEC, 2));
  /* Logoff of a 3-CPU guest: one D4R2 per VMDBK, one notification. */
  add_session(&f->mf.rs, false, "LINUX07", 0, tb_tod(SEC, 3));
  add_session(&f->mf.rs, false, "LINUX07", 1, tb_tod(SEC, 3) + (1 << 12));
  add_session(&f->mf.rs, false, "LINUX07", 2, tb_tod(SEC, 3) + (2 << 12));
  pass(f);
  assert_int_equal(f->nn, 2);
  expect_note(&f->n[0], ZVM_NOTIF_OKAY, "LINUX07", "", "LINUX07", "logon",
              "z/VM guest LINUX07 logged on", US(SEC, 1));
  expect_note(&f->n[1], ZVM_NOTIF_WARNING, "LINUX07", "", "LINUX07", "logoff",
              "z/VM guest LINUX07 logged off", US(SEC, 3));
  /* The last values before the logoff are not lost. */
  const struct zvm_value *v = find(f, "", "LINUX07", "hfcpurn");
  assert_non_null(v);
  assert_int_equal(v->derive, 100);
  /* No values of their own: only D4R10's and the reader's. */
  for (size_t i = 0; i < f->nv; i++)
    assert_true(strcmp(f->v[i].plugin_instance, "LINUX07") != 0 ||
                strcmp(f->v[i].type, "derive") == 0 ||
                strcmp(f->v[i].type, "gauge") == 0 ||
                strcmp(f->v[i].type, "total_events") == 0);

  /* The same guest logs off again later (its logon was lost): a new
   * logoff, notified. */
  add_session(&f->mf.rs, false, "LINUX07", 0, tb_tod(SEC + 60, 0));
  pass(f);
  assert_int_equal(f->nn, 1);
  expect_note(&f->n[0], ZVM_NOTIF_WARNING, "LINUX07", "", "LINUX07", "logoff",
              "z/VM guest LINUX07 logged off", US(SEC + 60, 0));
}

/* A logoff and a new logon: the new session's counters are not summed
 * with the old VMDBKs', transactions start again. */
static void test_logoff_starts_afresh(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  add_useite(&f->mf.rs, "LINUX07", 0, true, 5000, tb_tod(SEC, 1));
  add_useite(&f->mf.rs, "LINUX07", 1, false, 7000, tb_tod(SEC, 2));
  pass(f);
  const struct zvm_value *tr = find(f, "", "LINUX07", "transactions");
  assert_non_null(tr);
  uint64_t before = (uint64_t)tr->derive;
  assert_true(before >= 1);

  add_session(&f->mf.rs, false, "LINUX07", 0, tb_tod(SEC, 10));
  add_session(&f->mf.rs, false, "LINUX07", 1, tb_tod(SEC, 10) + (1 << 12));
  pass(f);
  add_session(&f->mf.rs, true, "LINUX07", 0, tb_tod(SEC, 20));
  add_useite(&f->mf.rs, "LINUX07", 0, true, 30, tb_tod(SEC, 21));
  pass(f);
  const struct zvm_value *v = find(f, "", "LINUX07", "hfcpurn");
  assert_non_null(v);
  assert_int_equal(v->derive, 30); /* not 30 + 7000 from the old VMDBK 1 */
  assert_int_equal(v->time_us, US(SEC, 21));
  tr = find(f, "", "LINUX07", "transactions");
  assert_non_null(tr);
  assert_int_equal(tr->derive, 1);
}

static void test_guests_as_hosts_and_selection(void **state) {
  struct fx *f = *state;
  char err[256];
  f->mf.conf.guests_as_hosts = true;
  assert_int_equal(
      zvm_conf_set_string(&f->mf.conf, "UserID", "/^WEB/", err, sizeof(err)),
      0);
  mapper_fx_start(&f->mf);
  add_session(&f->mf.rs, true, "LINUX07", 0, tb_tod(SEC, 1));
  add_session(&f->mf.rs, true, "WEB01", 0, tb_tod(SEC, 2));
  add_session(&f->mf.rs, false, "WEB01", 0, tb_tod(SEC, 3));
  pass(f);
  assert_int_equal(f->nn, 2);
  expect_note(&f->n[0], ZVM_NOTIF_OKAY, "WEB01", "web01", "", "logon",
              "z/VM guest WEB01 logged on", US(SEC, 2));
  expect_note(&f->n[1], ZVM_NOTIF_WARNING, "WEB01", "web01", "", "logoff",
              "z/VM guest WEB01 logged off", US(SEC, 3));
}

static void test_notify_switches(void **state) {
  struct fx *f = *state;
  f->mf.conf.notify[ZVM_NOTIFY_LOGON] = false;
  mapper_fx_start(&f->mf);
  add_session(&f->mf.rs, true, "LINUX07", 0, tb_tod(SEC, 1));
  add_session(&f->mf.rs, false, "LINUX08", 0, tb_tod(SEC, 2));
  pass(f);
  assert_int_equal(f->nn, 1);
  assert_string_equal(f->n[0].type_instance, "logoff");

  zvm_mapper_destroy(f->mf.m);
  f->mf.conf.notify[ZVM_NOTIFY_LOGON] = true;
  f->mf.conf.notify[ZVM_NOTIFY_LOGOFF] = false;
  mapper_fx_start(&f->mf);
  add_session(&f->mf.rs, true, "LINUX07", 0, tb_tod(SEC, 1));
  add_session(&f->mf.rs, false, "LINUX08", 0, tb_tod(SEC, 2));
  pass(f);
  assert_int_equal(f->nn, 1);
  assert_string_equal(f->n[0].type_instance, "logon");
}

/* A record too short for the user ID, or with a blank one: nothing, and
 * no crash; bytes past offset 30 are never needed. */
static void test_short_and_blank(void **state) {
  struct fx *f = *state;
  mapper_fx_start(&f->mf);
  size_t rec = tb_record(&f->mf.rs, 27, 4, 2, tb_tod(SEC, 1));
  tb_put_ebcdic(&f->mf.rs, rec + 20, "LINUX", 7);
  add_session(&f->mf.rs, false, "", 0, tb_tod(SEC, 2));
  rec = tb_record(&f->mf.rs, 30, 4, 1, tb_tod(SEC, 3)); /* ends after CPUAD */
  tb_put_ebcdic(&f->mf.rs, rec + 20, "SHORT", 8);
  pass(f);
  assert_int_equal(f->nn, 1);
  expect_note(&f->n[0], ZVM_NOTIF_OKAY, "SHORT", "", "SHORT", "logon",
              "z/VM guest SHORT logged on", US(SEC, 3));
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_logon_and_logoff_once_per_guest),
      T(test_logoff_starts_afresh),
      T(test_guests_as_hosts_and_selection),
      T(test_notify_switches),
      T(test_short_and_blank),
#undef T
  };
  return cmocka_run_group_tests_name("session", tests, NULL, NULL);
}
