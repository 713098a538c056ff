/* SPDX-License-Identifier: MIT */
/*
 * Configuration values (plugin/config/conf.c): defaults, every option, every
 * error, and UserID selection with collectd's ignorelist semantics.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "conf_options.h"
#include "records/catalog.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/conf.h"
#include "zvm_monitor/registry.h"

struct fx {
  struct zvm_conf c;
  char err[512];
};

static int setup(void **state) {
  struct fx *f = calloc(1, sizeof(*f));
  assert_non_null(f);
  assert_int_equal(zvm_conf_init(&f->c, zvm_registry_builtin()), 0);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fx *f = *state;
  zvm_conf_free(&f->c);
  free(f);
  return 0;
}

#define ERR_CONTAINS(f, text)                                                  \
  do {                                                                         \
    if (strstr((f)->err, (text)) == NULL)                                      \
      fail_msg("error \"%s\" lacks \"%s\"", (f)->err, (text));                 \
  } while (0)

static void test_defaults(void **state) {
  struct fx *f = *state;
  assert_string_equal(f->c.device, "/dev/monreader");
  assert_int_equal(f->c.domains, 0xFFFF);
  assert_false(f->c.domains_given);
  assert_int_equal(f->c.userids.num, 0);
  assert_false(f->c.userids.invert);
  assert_false(f->c.guests_as_hosts);
  assert_true(f->c.report_reader_stats);
  assert_int_equal(f->c.max_set_size, 64 * 1024 * 1024);
}

static void test_option_kinds(void **state) {
  (void)state;
  assert_int_equal(zvm_conf_option_kind("Device"), ZVM_CONF_STRING);
  assert_int_equal(zvm_conf_option_kind("domain"), ZVM_CONF_STRING_OR_NUMBER);
  assert_int_equal(zvm_conf_option_kind("USERID"), ZVM_CONF_STRING);
  assert_int_equal(zvm_conf_option_kind("IgnoreSelected"), ZVM_CONF_BOOLEAN);
  assert_int_equal(zvm_conf_option_kind("GuestsAsHosts"), ZVM_CONF_BOOLEAN);
  assert_int_equal(zvm_conf_option_kind("ReportReaderStats"), ZVM_CONF_BOOLEAN);
  assert_int_equal(zvm_conf_option_kind("MaxSetSize"), ZVM_CONF_NUMBER);
  assert_int_equal(zvm_conf_option_kind("maxqueuesize"), ZVM_CONF_NUMBER);
  assert_int_equal(zvm_conf_option_kind("Interval2"), ZVM_CONF_UNKNOWN);
  assert_int_equal(zvm_conf_option_kind(""), ZVM_CONF_UNKNOWN);
  assert_int_equal(zvm_conf_option_kind(NULL), ZVM_CONF_UNKNOWN);
}

static void test_unknown_option(void **state) {
  struct fx *f = *state;
  assert_int_equal(
      zvm_conf_set_string(&f->c, "Devise", "/dev/x", f->err, sizeof(f->err)),
      -1);
  ERR_CONTAINS(f, "unknown option \"Devise\"");
  assert_int_equal(
      zvm_conf_set_boolean(&f->c, "Verbose", true, f->err, sizeof(f->err)), -1);
  ERR_CONTAINS(f, "\"Verbose\"");
  assert_int_equal(
      zvm_conf_set_number(&f->c, "Size", 1, f->err, sizeof(f->err)), -1);
  ERR_CONTAINS(f, "\"Size\"");
  assert_string_equal(f->c.device, "/dev/monreader");
}

static void test_device(void **state) {
  struct fx *f = *state;
  assert_int_equal(zvm_conf_set_string(&f->c, "device", "/tmp/monreader",
                                       f->err, sizeof(f->err)),
                   0);
  assert_string_equal(f->c.device, "/tmp/monreader");
  assert_int_equal(
      zvm_conf_set_string(&f->c, "Device", "", f->err, sizeof(f->err)), -1);
  ERR_CONTAINS(f, "Device");
  assert_int_equal(zvm_conf_set_string(&f->c, "Device", "dev/monreader", f->err,
                                       sizeof(f->err)),
                   -1);
  ERR_CONTAINS(f, "Device \"dev/monreader\"");
  assert_string_equal(f->c.device, "/tmp/monreader");
}

static void test_domain_names_and_numbers(void **state) {
  struct fx *f = *state;
  assert_int_equal(
      zvm_conf_set_string(&f->c, "Domain", "user", f->err, sizeof(f->err)), 0);
  /* The first Domain replaces "all". */
  assert_true(f->c.domains_given);
  assert_int_equal(f->c.domains, 0x0800);
  assert_int_equal(
      zvm_conf_set_string(&f->c, "Domain", "PROCESSOR", f->err, sizeof(f->err)),
      0);
  assert_int_equal(
      zvm_conf_set_string(&f->c, "Domain", "I/O", f->err, sizeof(f->err)), 0);
  assert_int_equal(f->c.domains, 0x0800 | 0x0400 | 0x0200);
  assert_int_equal(
      zvm_conf_set_number(&f->c, "Domain", 0, f->err, sizeof(f->err)), 0);
  assert_int_equal(
      zvm_conf_set_string(&f->c, "Domain", "11", f->err, sizeof(f->err)), 0);
  assert_int_equal(
      zvm_conf_set_number(&f->c, "Domain", 15, f->err, sizeof(f->err)), 0);
  assert_int_equal(f->c.domains,
                   0x8000 | 0x0800 | 0x0400 | 0x0200 | 0x0010 | 0x0001);
}

static void test_domain_errors(void **state) {
  struct fx *f = *state;
  assert_int_equal(
      zvm_conf_set_string(&f->c, "Domain", "users", f->err, sizeof(f->err)),
      -1);
  ERR_CONTAINS(f, "Domain \"users\": unknown domain");
  assert_int_equal(
      zvm_conf_set_string(&f->c, "Domain", "16", f->err, sizeof(f->err)), -1);
  ERR_CONTAINS(f, "Domain \"16\"");
  static const double bad[] = {16, -1, 4.5, NAN, INFINITY};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    f->err[0] = '\0';
    assert_int_equal(
        zvm_conf_set_number(&f->c, "Domain", bad[i], f->err, sizeof(f->err)),
        -1);
    ERR_CONTAINS(f, "Domain");
  }
  /* Errors leave the default untouched. */
  assert_false(f->c.domains_given);
  assert_int_equal(f->c.domains, 0xFFFF);
}

static void test_userid_entries(void **state) {
  struct fx *f = *state;
  assert_int_equal(
      zvm_conf_set_string(&f->c, "UserID", "LINUX07", f->err, sizeof(f->err)),
      0);
  assert_int_equal(
      zvm_conf_set_string(&f->c, "UserID", "/^WEB/", f->err, sizeof(f->err)),
      0);
  assert_int_equal(f->c.userids.num, 2);
  assert_false(f->c.userids.rules[0].is_regex);
  assert_string_equal(f->c.userids.rules[0].text, "LINUX07");
  assert_true(f->c.userids.rules[1].is_regex);
  assert_string_equal(f->c.userids.rules[1].text, "^WEB");
}

static void test_userid_errors(void **state) {
  struct fx *f = *state;
  char expect[256];
  regex_t re;
  int rc = regcomp(&re, "[A-Z", REG_EXTENDED | REG_NOSUB);
  assert_int_not_equal(rc, 0);
  regerror(rc, &re, expect, sizeof(expect));

  assert_int_equal(
      zvm_conf_set_string(&f->c, "UserID", "/[A-Z/", f->err, sizeof(f->err)),
      -1);
  ERR_CONTAINS(f, "UserID \"/[A-Z/\": bad regular expression: ");
  ERR_CONTAINS(f, expect);
  assert_int_equal(
      zvm_conf_set_string(&f->c, "UserID", "//", f->err, sizeof(f->err)), -1);
  ERR_CONTAINS(f, "empty regular expression");
  assert_int_equal(
      zvm_conf_set_string(&f->c, "UserID", "", f->err, sizeof(f->err)), -1);
  ERR_CONTAINS(f, "UserID");
  assert_int_equal(
      zvm_conf_set_string(&f->c, "UserID", "   ", f->err, sizeof(f->err)), -1);
  ERR_CONTAINS(f, "empty user ID");
  assert_int_equal(f->c.userids.num, 0);
}

static void test_userfield(void **state) {
  struct fx *f = *state;
  assert_int_equal(zvm_conf_option_kind("userfield"), ZVM_CONF_STRING);
  /* No entries: every D4R10 value. */
  assert_true(zvm_conf_userfield_selected(&f->c, "hfcpurn", "hfcpurn"));
  assert_true(zvm_conf_userfield_selected(&f->c, "transactions", NULL));
  /* A value, a whole array field, one array element; any case. */
  static const char *const ok[] = {"HFCPURN", "vmdcprmd", "vmdcwsgd_q2",
                                   "Transactions", "vmdslcnt"};
  for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
    assert_int_equal(
        zvm_conf_set_string(&f->c, "UserField", ok[i], f->err, sizeof(f->err)),
        0);
  assert_int_equal(f->c.userfields_num, 5);
  assert_string_equal(f->c.userfields[0], "hfcpurn");
  assert_true(zvm_conf_userfield_selected(&f->c, "hfcpurn", "hfcpurn"));
  assert_true(zvm_conf_userfield_selected(&f->c, "vmdcprmd_q3", "vmdcprmd"));
  assert_true(zvm_conf_userfield_selected(&f->c, "vmdcwsgd_q2", "vmdcwsgd"));
  assert_false(zvm_conf_userfield_selected(&f->c, "vmdcwsgd_q1", "vmdcwsgd"));
  assert_false(zvm_conf_userfield_selected(&f->c, "hfcpuwt", "hfcpuwt"));
  assert_true(zvm_conf_userfield_selected(&f->c, "transactions", NULL));

  /* Not values: IDs, text, codes, unknown names. */
  static const char *const bad[] = {"vmduser",  "vmdcpuad",    "vmdputyp",
                                    "hfcpurn2", "vmdcprmd_q4", ""};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    f->err[0] = '\0';
    assert_int_equal(
        zvm_conf_set_string(&f->c, "UserField", bad[i], f->err, sizeof(f->err)),
        -1);
    ERR_CONTAINS(f, "not a value of a guest's record (use one of "
                    "transactions, vmdslcnt, ");
    ERR_CONTAINS(f, "vmdcprmd_qN, vmdcwsgd_qN");
  }
  assert_int_equal(f->c.userfields_num, 5);
}

/* One value list per record instance is the default; OneValuePerList
 * brings back one value per list, and CombinedUserValues (the first
 * release's opt-in) is still accepted as its inverse. */
static void test_one_value_per_list(void **state) {
  struct fx *f = *state;
  assert_int_equal(zvm_conf_option_kind("OneValuePerList"), ZVM_CONF_BOOLEAN);
  assert_int_equal(zvm_conf_option_kind("CombinedUserValues"),
                   ZVM_CONF_BOOLEAN);
  assert_false(f->c.one_value_per_list);
  assert_int_equal(zvm_conf_check(&f->c, f->err, sizeof(f->err)), 0);
  assert_int_equal(zvm_conf_set_boolean(&f->c, "combineduservalues", false,
                                        f->err, sizeof(f->err)),
                   0);
  assert_true(f->c.one_value_per_list);
  assert_int_equal(zvm_conf_set_boolean(&f->c, "CombinedUserValues", true,
                                        f->err, sizeof(f->err)),
                   0);
  assert_false(f->c.one_value_per_list);
  /* A guest's list has a fixed set of data sources: UserField only with
   * one value per list, and the error says what to do. */
  assert_int_equal(zvm_conf_set_string(&f->c, "UserField", "hfcpurn", f->err,
                                       sizeof(f->err)),
                   0);
  assert_int_equal(zvm_conf_check(&f->c, f->err, sizeof(f->err)), -1);
  ERR_CONTAINS(f, "add OneValuePerList true or remove UserField");
  assert_int_equal(zvm_conf_set_boolean(&f->c, "onevalueperlist", true, f->err,
                                        sizeof(f->err)),
                   0);
  assert_true(f->c.one_value_per_list);
  assert_int_equal(zvm_conf_check(&f->c, f->err, sizeof(f->err)), 0);
}

static void test_leap_second_offset(void **state) {
  struct fx *f = *state;
  assert_int_equal(zvm_conf_option_kind("LeapSecondOffset"),
                   ZVM_CONF_STRING_OR_NUMBER);
  assert_true(f->c.leap_auto); /* the default */
  assert_int_equal(zvm_conf_set_number(&f->c, "leapsecondoffset", 27, f->err,
                                       sizeof(f->err)),
                   0);
  assert_false(f->c.leap_auto);
  assert_int_equal(f->c.leap_us, 27000000);
  assert_int_equal(zvm_conf_set_string(&f->c, "LeapSecondOffset", "AUTO",
                                       f->err, sizeof(f->err)),
                   0);
  assert_true(f->c.leap_auto);
  static const double bad[] = {-1, 61, 1.5};
  for (size_t i = 0; i < 3; i++) {
    assert_int_equal(zvm_conf_set_number(&f->c, "LeapSecondOffset", bad[i],
                                         f->err, sizeof(f->err)),
                     -1);
    ERR_CONTAINS(f, "must be \"auto\" or whole seconds from 0 to 60");
  }
  assert_int_equal(zvm_conf_set_string(&f->c, "LeapSecondOffset", "27s", f->err,
                                       sizeof(f->err)),
                   -1);
  ERR_CONTAINS(f, "LeapSecondOffset \"27s\": give \"auto\" or the seconds");
  assert_true(f->c.leap_auto);
}

static void test_report_by_virtual_cpu(void **state) {
  struct fx *f = *state;
  assert_int_equal(zvm_conf_option_kind("ReportByVirtualCPU"),
                   ZVM_CONF_BOOLEAN);
  assert_false(f->c.report_by_virtual_cpu);
  assert_int_equal(zvm_conf_set_boolean(&f->c, "reportbyvirtualcpu", true,
                                        f->err, sizeof(f->err)),
                   0);
  assert_true(f->c.report_by_virtual_cpu);
}

static void test_booleans(void **state) {
  struct fx *f = *state;
  assert_int_equal(zvm_conf_set_boolean(&f->c, "IgnoreSelected", true, f->err,
                                        sizeof(f->err)),
                   0);
  assert_int_equal(zvm_conf_set_boolean(&f->c, "guestsashosts", true, f->err,
                                        sizeof(f->err)),
                   0);
  assert_int_equal(zvm_conf_set_boolean(&f->c, "ReportReaderStats", false,
                                        f->err, sizeof(f->err)),
                   0);
  assert_true(f->c.userids.invert);
  assert_true(f->c.guests_as_hosts);
  assert_false(f->c.report_reader_stats);
}

static void test_wrong_value_types(void **state) {
  struct fx *f = *state;
  assert_int_equal(
      zvm_conf_set_boolean(&f->c, "Device", true, f->err, sizeof(f->err)), -1);
  ERR_CONTAINS(f, "Device");
  assert_int_equal(zvm_conf_set_string(&f->c, "GuestsAsHosts", "yes", f->err,
                                       sizeof(f->err)),
                   -1);
  ERR_CONTAINS(f, "GuestsAsHosts: a boolean value is required");
  assert_int_equal(
      zvm_conf_set_number(&f->c, "UserID", 7, f->err, sizeof(f->err)), -1);
  ERR_CONTAINS(f, "UserID: a string value is required");
  assert_int_equal(
      zvm_conf_set_string(&f->c, "MaxSetSize", "64M", f->err, sizeof(f->err)),
      -1);
  ERR_CONTAINS(f, "MaxSetSize: a numeric value is required");
  assert_int_equal(zvm_conf_set_number(&f->c, "ReportReaderStats", 1, f->err,
                                       sizeof(f->err)),
                   -1);
  ERR_CONTAINS(f, "ReportReaderStats");
  assert_true(f->c.report_reader_stats);
}

static void test_max_set_size(void **state) {
  struct fx *f = *state;
  assert_int_equal(
      zvm_conf_set_number(&f->c, "MaxSetSize", 4096, f->err, sizeof(f->err)),
      0);
  assert_int_equal(f->c.max_set_size, 4096);
  assert_int_equal(zvm_conf_set_number(&f->c, "MaxSetSize", 2147483648.0,
                                       f->err, sizeof(f->err)),
                   0);
  assert_int_equal(f->c.max_set_size, (size_t)2147483648u);
  assert_int_equal(zvm_conf_set_number(&f->c, "MaxSetSize", 16777216, f->err,
                                       sizeof(f->err)),
                   0);

  static const double bad[] = {0,        -1,  4095,     2147483649.0, 1e18,
                               100000.5, NAN, INFINITY, -INFINITY};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    f->err[0] = '\0';
    assert_int_equal(zvm_conf_set_number(&f->c, "MaxSetSize", bad[i], f->err,
                                         sizeof(f->err)),
                     -1);
    ERR_CONTAINS(f, "MaxSetSize");
  }
  assert_int_equal(f->c.max_set_size, 16777216);
}

static void test_max_queue_size(void **state) {
  struct fx *f = *state;
  assert_int_equal(f->c.max_queue_size, 64 * 1024 * 1024);
  assert_int_equal(
      zvm_conf_set_number(&f->c, "MaxQueueSize", 4096, f->err, sizeof(f->err)),
      0);
  assert_int_equal(f->c.max_queue_size, 4096);
  assert_int_equal(f->c.max_set_size, 64 * 1024 * 1024); /* untouched */
  static const double bad[] = {0, 4095, 2147483649.0, 0.5, NAN};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    f->err[0] = '\0';
    assert_int_equal(zvm_conf_set_number(&f->c, "MaxQueueSize", bad[i], f->err,
                                         sizeof(f->err)),
                     -1);
    ERR_CONTAINS(f, "MaxQueueSize");
  }
  assert_int_equal(f->c.max_queue_size, 4096);
}

/* ApplDataInstancesPerGuest: what one guest's APPLDATA may hold in the
 * mapper; whole numbers from 1 to the guests' pool, and only with domain
 * 10 selected. */
static void test_appldata_instances_per_guest(void **state) {
  struct fx *f = *state;
  assert_int_equal(f->c.guest_instances_max, 4096);
  assert_int_equal(zvm_conf_option_kind("ApplDataInstancesPerGuest"),
                   ZVM_CONF_NUMBER);
  assert_int_equal(zvm_conf_set_number(&f->c, "ApplDataInstancesPerGuest",
                                       65536, f->err, sizeof(f->err)),
                   0);
  assert_int_equal(f->c.guest_instances_max, 65536);
  assert_int_equal(zvm_conf_set_number(&f->c, "ApplDataInstancesPerGuest", 20,
                                       f->err, sizeof(f->err)),
                   0);
  assert_int_equal(f->c.guest_instances_max, 20);
  static const double bad[] = {0, -1, 65537, 2.5, NAN};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    f->err[0] = '\0';
    assert_int_equal(zvm_conf_set_number(&f->c, "ApplDataInstancesPerGuest",
                                         bad[i], f->err, sizeof(f->err)),
                     -1);
    ERR_CONTAINS(f, "ApplDataInstancesPerGuest");
    ERR_CONTAINS(f, "from 1 to 65536");
  }
  assert_int_equal(f->c.guest_instances_max, 20);
  assert_int_equal(zvm_conf_set_string(&f->c, "ApplDataInstancesPerGuest",
                                       "many", f->err, sizeof(f->err)),
                   -1);
  /* Given while Domain leaves domain 10 out: an error, not silence. */
  assert_int_equal(zvm_conf_check(&f->c, f->err, sizeof(f->err)), 0);
  assert_int_equal(
      zvm_conf_set_string(&f->c, "Domain", "user", f->err, sizeof(f->err)), 0);
  assert_int_equal(zvm_conf_check(&f->c, f->err, sizeof(f->err)), -1);
  ERR_CONTAINS(f, "ApplDataInstancesPerGuest");
  ERR_CONTAINS(f, "add Domain \"appldata\"");
}

static void test_selection_default_all(void **state) {
  struct fx *f = *state;
  assert_true(zvm_conf_user_selected(&f->c, "LINUX07"));
  /* IgnoreSelected with no entries still collects everything. */
  zvm_select_invert(&f->c.userids, true);
  assert_true(zvm_conf_user_selected(&f->c, "LINUX07"));
}

static void test_selection_rules(void **state) {
  struct fx *f = *state;
  assert_int_equal(
      zvm_conf_set_string(&f->c, "UserID", "linux07 ", f->err, sizeof(f->err)),
      0);
  assert_int_equal(zvm_conf_set_string(&f->c, "UserID", "/^WEB0[12]$/", f->err,
                                       sizeof(f->err)),
                   0);
  /* Exact entries: trimmed, case-insensitive, whole ID only. */
  assert_true(zvm_conf_user_selected(&f->c, "LINUX07"));
  assert_false(zvm_conf_user_selected(&f->c, "LINUX0"));
  assert_false(zvm_conf_user_selected(&f->c, "LINUX077"));
  /* Regexes: extended syntax, as written. */
  assert_true(zvm_conf_user_selected(&f->c, "WEB01"));
  assert_true(zvm_conf_user_selected(&f->c, "WEB02"));
  assert_false(zvm_conf_user_selected(&f->c, "WEB03"));
  assert_false(zvm_conf_user_selected(&f->c, "XWEB01"));
  assert_false(zvm_conf_user_selected(&f->c, "DB2"));

  zvm_select_invert(&f->c.userids, true);
  assert_false(zvm_conf_user_selected(&f->c, "LINUX07"));
  assert_false(zvm_conf_user_selected(&f->c, "WEB01"));
  assert_true(zvm_conf_user_selected(&f->c, "WEB03"));
  assert_true(zvm_conf_user_selected(&f->c, "DB2"));
}

/* Every notification kind is on by default and has its Notify<Kind>
 * switch; an unknown kind is an unknown option. */
static void test_notify_switches(void **state) {
  struct fx *f = *state;
  static const struct {
    const char *key;
    enum zvm_notify_kind kind;
  } cases[] = {
      {"NotifyLogon", ZVM_NOTIFY_LOGON},
      {"notifylogoff", ZVM_NOTIFY_LOGOFF},
      {"NotifyMultithreading", ZVM_NOTIFY_MULTITHREADING},
      {"NotifyOverflow", ZVM_NOTIFY_OVERFLOW},
      {"NOTIFYDISCARD", ZVM_NOTIFY_DISCARD},
      {"NotifyDevice", ZVM_NOTIFY_DEVICE},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    assert_true(f->c.notify[cases[i].kind]);
    assert_int_equal(zvm_conf_option_kind(cases[i].key), ZVM_CONF_BOOLEAN);
    assert_int_equal(zvm_conf_set_boolean(&f->c, cases[i].key, false, f->err,
                                          sizeof(f->err)),
                     0);
    for (size_t j = 0; j < sizeof(cases) / sizeof(cases[0]); j++)
      assert_int_equal(f->c.notify[cases[j].kind], j > i);
  }
  assert_int_equal(zvm_conf_option_kind("NotifyEverything"), ZVM_CONF_UNKNOWN);
  assert_int_equal(zvm_conf_option_kind("Notify"), ZVM_CONF_UNKNOWN);
  assert_int_equal(
      zvm_conf_set_boolean(&f->c, "NotifyFoo", true, f->err, sizeof(f->err)),
      -1);
  ERR_CONTAINS(f, "unknown option \"NotifyFoo\"");
}

/* A record's own option rows: a descriptor that carries them (here a
 * copy of D1R11 as record D1R250 with a "TestLevel" row) gets its own
 * options struct in the configuration's registry; the configuration
 * applies the key through that row to that struct, as it applies
 * ApplDataKinds to D10R2's. A key no row knows is still an unknown
 * option, worded as the glue words it. */
struct test_opts {
  double level;
  bool given;
};

static int set_level(void *t, const struct zvm_option *o,
                     const struct zvm_option_value *v, char *err,
                     size_t err_size) {
  (void)o;
  if (v->number < 0)
    return zvm_format_error(err, err_size, "TestLevel %g: not below 0",
                            v->number);
  ((struct test_opts *)t)->level = v->number;
  ((struct test_opts *)t)->given = true;
  return 0;
}

static void test_opts_init(void *opts) {
  *(struct test_opts *)opts = (struct test_opts){.level = 7};
}

static const struct zvm_option test_rows[] = {
    {"TestLevel", ZVM_OPTION_NUMBER, set_level, 0, NULL},
};
static const struct zvm_record_options test_options = {
    .rows = test_rows,
    .nrows = 1,
    .size = sizeof(struct test_opts),
    .init = test_opts_init,
};

static void test_record_option_rows(void **state) {
  struct fx *f = *state;
  struct zvm_record_desc d = zvm_rec_mtrend;
  d.number = 250;
  d.options = &test_options;
  assert_int_equal(
      zvm_registry_add(f->c.records, &d, false, NULL, f->err, sizeof(f->err)),
      0);
  const struct zvm_record_desc *held = zvm_registry_find(f->c.records, 1, 250);
  assert_non_null(held);
  assert_ptr_not_equal(held, &d); /* the registry's copy, its own options */
  const struct test_opts *opts = held->hook_data;
  assert_non_null(opts);
  assert_true(opts->level == 7 && !opts->given); /* init's defaults */

  void *target = NULL;
  const struct zvm_option *o = zvm_conf_option(&f->c, "testlevel", &target);
  assert_non_null(o);
  assert_ptr_equal(target, opts);
  assert_int_equal(
      zvm_conf_set_number(&f->c, "TestLevel", 3, f->err, sizeof(f->err)), 0);
  assert_true(opts->level == 3 && opts->given);
  assert_int_equal(
      zvm_conf_set_number(&f->c, "TestLevel", -1, f->err, sizeof(f->err)), -1);
  assert_string_equal(f->err, "TestLevel -1: not below 0");
  assert_true(opts->level == 3);

  /* The plugin's own rows come first, D10R2's rows stay D10R2's. */
  assert_ptr_equal(zvm_conf_option(&f->c, "Device", &target),
                   conf_row("Device"));
  assert_ptr_equal(target, &f->c);
  assert_non_null(zvm_conf_option(&f->c, "ApplDataKinds", &target));
  assert_ptr_equal(target, zvm_registry_find(f->c.records, 10, 2)->hook_data);

  /* Unknown: no row, and the glue's words for it (zvm_glue_option). */
  target = NULL;
  o = zvm_conf_option(&f->c, "TestLevel2", &target);
  assert_null(o);
  const struct zvm_option_value v = {.type = ZVM_OPTION_NUMBER, .number = 1};
  assert_int_equal(zvm_option_apply(o, 0, target, "TestLevel2", &v, NULL,
                                    f->err, sizeof(f->err)),
                   -1);
  assert_string_equal(f->err, "unknown option \"TestLevel2\"");
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_defaults),
      T(test_option_kinds),
      T(test_unknown_option),
      T(test_device),
      T(test_domain_names_and_numbers),
      T(test_domain_errors),
      T(test_userid_entries),
      T(test_userid_errors),
      T(test_booleans),
      T(test_wrong_value_types),
      T(test_max_set_size),
      T(test_max_queue_size),
      T(test_appldata_instances_per_guest),
      T(test_userfield),
      T(test_one_value_per_list),
      T(test_leap_second_offset),
      T(test_report_by_virtual_cpu),
      T(test_selection_default_all),
      T(test_selection_rules),
      T(test_notify_switches),
      T(test_record_option_rows),
#undef T
  };
  return cmocka_run_group_tests_name("conf", tests, NULL, NULL);
}
