/* SPDX-License-Identifier: MIT */
/*
 * <Record> blocks (plugin/config/recconf.c): a definition as an admin writes it
 * in collectd.conf becomes the expected run-time descriptor, and every
 * mistake is refused with a one-line reason that names it.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "builder.h"
#include "prcsmt_record.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/recconf.h"
#include "zvm_monitor/recconf_text.h"
#include "zvm_monitor/recwalk.h"
#include "zvm_monitor/registry.h"
#include "zvm_monitor/typesdb.h"

static char err[512];
/* The built-in records, and each test's records once parsed. */
static struct zvm_registry *reg;

static int parse(struct zvm_recconf *rc, const char *text) {
  zvm_registry_destroy(reg);
  reg = zvm_registry_create();
  assert_non_null(reg);
  assert_int_equal(zvm_registry_add_builtins(reg), 0);
  zvm_recconf_init(rc, reg);
  err[0] = '\0';
  return zvm_recconf_parse_text(rc, text, strlen(text), err, sizeof(err));
}

static int teardown(void **state) {
  (void)state;
  zvm_registry_destroy(reg);
  reg = NULL;
  return 0;
}

/* D0R2 as IBM's z/VM 6.4 page lays it out (offsets 20, 22, 24, 32). */
static const char d0r2_text[] = "# IBM mon640 MRSYTPRP\n"
                                "<Record \"0/7\">\n"
                                "  Name \"MyPrp\"\n"
                                "  InstancePrefix \"cpu\"\n"
                                "  <Field \"PFXCPUAD\">\n"
                                "    Offset 20\n"
                                "    Length 2\n"
                                "    Type \"unsigned\"\n"
                                "    Kind \"instance\"\n"
                                "  </Field>\n"
                                "  <Field \"plscuhaf\">\n"
                                "    Offset 22\n"
                                "    Length 2\n"
                                "    Type \"Unsigned\"\n"
                                "    Kind \"counter\"\n"
                                "  </Field>\n"
                                "  <Field \"pfxprbtm\">\n"
                                "    offset 24\n"
                                "    length 8\n"
                                "    type \"cputimer\"\n"
                                "    kind \"counter\"\n"
                                "    CountsDown true\n"
                                "  </Field>\n"
                                "  <Field \"pfxutime\">   # counts up\n"
                                "    Offset 32\n"
                                "    Length 8\n"
                                "    Type \"cputimer\"\n"
                                "    Kind \"counter\"\n"
                                "    Scale 0.001\n"
                                "  </Field>\n"
                                "</Record>\n";

static void test_valid_record(void **state) {
  (void)state;
  struct zvm_recconf rc;
  assert_int_equal(parse(&rc, d0r2_text), 0);
  assert_int_equal(rc.nrecords, 1);
  const struct zvm_urecord *r = zvm_recconf_find(&rc, 0, 7);
  assert_non_null(r);
  assert_null(zvm_recconf_find(&rc, 0, 2));
  assert_string_equal(r->name, "myprp");
  assert_string_equal(r->type_name, "zvm_myprp");
  assert_string_equal(r->instance_prefix, "cpu");
  assert_false(r->replace);
  assert_int_equal(r->nfields, 4);
  assert_int_equal(r->nds, 3);
  assert_int_equal(r->min_len, 22);
  assert_int_equal(r->full_len, 40);

  const struct zvm_ufield *f = &r->fields[0];
  assert_string_equal(f->name, "pfxcpuad");
  assert_int_equal(f->offset, 20);
  assert_int_equal(f->length, 2);
  assert_int_equal(f->count, 1);
  assert_int_equal(f->type, ZVM_UTYPE_UNSIGNED);
  assert_int_equal(f->kind, ZVM_UKIND_INSTANCE);
  f = &r->fields[2];
  assert_string_equal(f->name, "pfxprbtm");
  assert_int_equal(f->type, ZVM_UTYPE_CPUTIMER);
  assert_int_equal(f->kind, ZVM_UKIND_COUNTER);
  assert_true(f->counts_down);
  assert_true(f->scale == 1.0);
  f = &r->fields[3];
  assert_false(f->counts_down);
  assert_true(f->scale == 0.001);

  /* The engine's descriptor in the registry: same fields, key and type. */
  const struct zvm_record_desc *d = zvm_registry_find(reg, 0, 7);
  assert_non_null(d);
  assert_true(d->user_defined);
  assert_string_equal(d->main.type_name, "zvm_myprp");
  assert_int_equal(d->main.nfields, 4);
  assert_int_equal(d->main.key.nparts, 1);
  assert_int_equal(d->main.key.part[0].kind, ZVM_KEY_NUMBER);
  assert_int_equal(d->main.key.part[0].field, 0);
  assert_string_equal(d->main.key.part[0].text, "cpu");
  assert_int_equal(d->main.fields[2].type, ZVM_TYPE_CPU_TIMER);
  assert_int_equal(d->main.fields[2].flags, ZVM_FIELD_DECREMENTS);
  assert_int_equal(d->main.fields[1].kind, ZVM_FIELD_COUNTER);
  char line[256];
  assert_true(zvm_layout_types_db_line(&d->main, line, sizeof(line)) > 0);
  assert_string_equal(line, "zvm_myprp\tplscuhaf:DERIVE:0:U, "
                            "pfxprbtm:DERIVE:0:U, pfxutime:DERIVE:0:U");
  zvm_recconf_free(&rc);
  zvm_recconf_free(&rc); /* idempotent */
}

static void test_arrays_gauges_and_two_records(void **state) {
  (void)state;
  struct zvm_recconf rc;
  assert_int_equal(parse(&rc, "<Record \"3/2\">\n"
                              " Name \"stor\"\n"
                              " <Field \"q\">\n"
                              "  Offset 24\n Length 2\n Count 4\n"
                              "  Type \"signed\"\n Kind \"gauge\"\n"
                              " </Field>\n"
                              " <Field \"user\">\n"
                              "  Offset 40\n Length 8\n"
                              "  Type \"ebcdic\"\n Kind \"instance\"\n"
                              " </Field>\n"
                              " <Field \"stamp\">\n"
                              "  Offset 48\n Length 8\n"
                              "  Type \"tod\"\n Kind \"gauge\"\n"
                              " </Field>\n"
                              "</Record>\n"
                              "<Record \"4/10\">\n"
                              " Name \"useite\"\n Replace true\n"
                              " <Field \"hfcpurn\">\n"
                              "  Offset 116\n Length 4\n"
                              "  Type \"unsigned\"\n Kind \"counter\"\n"
                              " </Field>\n"
                              "</Record>\n"),
                   0);
  assert_int_equal(rc.nrecords, 2);
  const struct zvm_urecord *r = zvm_recconf_find(&rc, 3, 2);
  assert_non_null(r);
  assert_int_equal(r->nds, 5);
  assert_string_equal(r->instance_prefix, "");
  char line[256];
  const struct zvm_record_desc *d = zvm_registry_find(reg, 3, 2);
  assert_non_null(d);
  assert_int_equal(d->main.key.nparts, 1);
  assert_int_equal(d->main.key.part[0].kind, ZVM_KEY_EBCDIC);
  assert_null(d->main.key.part[0].text);
  assert_true(zvm_layout_types_db_line(&d->main, line, sizeof(line)) > 0);
  assert_string_equal(line, "zvm_stor\tq_0:GAUGE:U:U, q_1:GAUGE:U:U, "
                            "q_2:GAUGE:U:U, q_3:GAUGE:U:U, "
                            "stamp:GAUGE:U:U");
  char ds[32];
  assert_int_equal(zvm_ufield_ds_name(&r->fields[0], 3, ds, sizeof(ds)), 0);
  assert_string_equal(ds, "q_3");
  assert_int_equal(zvm_ufield_ds_name(&r->fields[0], 3, ds, 3), -1);
  r = zvm_recconf_find(&rc, 4, 10);
  assert_non_null(r);
  assert_true(r->replace);
  assert_string_equal(r->type_name, "zvm_useite");
  /* It replaced the built-in D4R10 in the registry. */
  d = zvm_registry_find(reg, 4, 10);
  assert_true(d->user_defined);
  assert_int_equal(d->main.nfields, 1);
  zvm_recconf_free(&rc);
}

/* 63 data sources is collectd's limit per type: a record of 63 counters
 * is one value list of type zvm_<name>; of 64, one value per list (no
 * type of its own); 256 is the most a record holds, the 257th is refused
 * with that limit in its message. */
static void test_data_source_limit(void **state) {
  (void)state;
  static char text[65536];
  static const int counts[] = {63, 64, 256, 257};
  for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
    int n = counts[c];
    size_t len = (size_t)snprintf(text, sizeof(text),
                                  "<Record \"2/9\">\nName \"many\"\n");
    for (int i = 0; i < n; i++)
      len += (size_t)snprintf(text + len, sizeof(text) - len,
                              "<Field \"c%d\">\nOffset %d\nLength 1\n"
                              "Type \"unsigned\"\nKind \"counter\"\n"
                              "</Field>\n",
                              i, 20 + i);
    snprintf(text + len, sizeof(text) - len, "</Record>\n");
    struct zvm_recconf rc;
    int rv = parse(&rc, text);
    if (n <= 256) {
      assert_int_equal(rv, 0);
      assert_int_equal(rc.records[0].nds, n);
      assert_int_equal(rc.records[0].one_value_per_list, n > 63);
      const struct zvm_record_desc *d = zvm_registry_find(reg, 2, 9);
      assert_non_null(d);
      assert_int_equal(d->main.one_value_per_list, n > 63);
      if (n > 63)
        assert_null(d->main.type_name);
      else
        assert_string_equal(d->main.type_name, "zvm_many");
    } else {
      assert_int_equal(rv, -1);
      assert_non_null(strstr(err, "Field \"c256\": more than 256 counters "
                                  "and gauges in one record"));
    }
    zvm_recconf_free(&rc);
  }
}

/* At most 64 records defined in all: 64 blocks are fine, the 65th is
 * refused with the limit in its message. */
static void test_record_block_limit(void **state) {
  (void)state;
  char text[8192];
  for (int n = 64; n <= 65; n++) {
    size_t len = 0;
    for (int i = 1; i <= n; i++)
      len += (size_t)snprintf(text + len, sizeof(text) - len,
                              "<Record \"15/%d\">\nName \"r%d\"\n"
                              "<Field \"c\">\nOffset 20\nLength 4\n"
                              "Type \"unsigned\"\nKind \"counter\"\n"
                              "</Field>\n</Record>\n",
                              i, i);
    assert_true(len < sizeof(text));
    struct zvm_recconf rc;
    int rv = parse(&rc, text);
    if (n == 64) {
      assert_int_equal(rv, 0);
      assert_int_equal(rc.nrecords, 64);
      assert_non_null(zvm_recconf_find(&rc, 15, 64));
      assert_non_null(zvm_registry_find(reg, 15, 64));
    } else {
      assert_int_equal(rv, -1);
      assert_string_equal(err, "Record \"15/65\": more than 64 Record blocks");
    }
    zvm_recconf_free(&rc);
  }
}

#define FIELD(name, body) "<Field \"" name "\">\n" body "</Field>\n"
#define REC(id, body) "<Record \"" id "\">\nName \"r\"\n" body "</Record>\n"
#define OK_COUNTER_24                                                          \
  FIELD("c", "Offset 24\nLength 4\nType \"unsigned\"\nKind \"counter\"\n")
#define OK_COUNTER_32                                                          \
  FIELD("c", "Offset 32\nLength 4\nType \"unsigned\"\nKind \"counter\"\n")
#define USER_ID                                                                \
  FIELD("u", "Offset 20\nLength 8\nType \"userid\"\nKind \"instance\"\n")
#define OK_COUNTER                                                             \
  FIELD("c", "Offset 20\nLength 4\nType \"unsigned\"\nKind \"counter\"\n")

static void test_every_error(void **state) {
  (void)state;
  static const struct {
    const char *text;
    const char *reason; /* part of the one-line error */
  } cases[] = {
      /* the record's identity */
      {REC("0-2", OK_COUNTER), "as \"DOMAIN/RECORD\" in decimal"},
      {REC("0/", OK_COUNTER), "as \"DOMAIN/RECORD\""},
      {REC("0/2x", OK_COUNTER), "as \"DOMAIN/RECORD\""},
      {REC("16/1", OK_COUNTER), "the domain must be 0-15"},
      {REC("0/0", OK_COUNTER), "record number 1-255"},
      {REC("0/256", OK_COUNTER), "record number 1-255"},
      {REC("0/9", OK_COUNTER) REC("0/9", OK_COUNTER), "is defined twice"},
      {"<Record \"0/9\">\n" OK_COUNTER "</Record>\n", "Name is missing"},
      {"<Record \"0/9\">\nName \"9lives\"\n" OK_COUNTER "</Record>\n",
       "Name \"9lives\": a letter followed by"},
      {"<Record \"0/9\">\nName \"a-b\"\n" OK_COUNTER "</Record>\n",
       "Name \"a-b\""},
      {"<Record \"0/9\">\nName \"abcdefghijabcdefghijabcdefgh\"\n" OK_COUNTER
       "</Record>\n",
       "at most 27 characters"},
      {"<Record \"0/9\">\nName \"useite\"\n" OK_COUNTER "</Record>\n",
       "the type zvm_useite belongs to the built-in D4R10 MRUSEITE"},
      {REC("0/9", OK_COUNTER) "<Record \"0/8\">\nName \"R\"\n" OK_COUNTER
                              "</Record>\n",
       "record 0/9 has that Name already"},
      {REC("0/9", "InstancePrefix \"c-p\"\n" OK_COUNTER),
       "InstancePrefix \"c-p\": letters, digits"},
      {REC("0/9", "InstancePrefix \"cpu\"\n" OK_COUNTER),
       "InstancePrefix without a field of Kind instance"},
      {REC("0/9", "Prefix \"x\"\n" OK_COUNTER),
       "unknown option \"Prefix\" (Name, InstancePrefix"},
      {REC("0/9", FIELD("i", "Offset 20\nLength 2\nType \"unsigned\"\n"
                             "Kind \"instance\"\n")),
       "no field with Kind counter or gauge"},
      /* per virtual processor, bits, hex instances, record counts */
      {REC("4/9",
           FIELD("p", "Offset 20\nLength 2\n"
                      "Type \"unsigned\"\nKind \"processor\"\n") OK_COUNTER_24),
       "Record \"4/9\": a field of Kind processor sums the record per guest; "
       "it needs the guest's user ID"},
      {REC("4/9", USER_ID FIELD("b", "Offset 28\nLength 1\nMask 128\n"
                                     "Type \"unsigned\"\nKind \"base\"\n")
                      OK_COUNTER_32),
       "a field of Kind base marks the base virtual processor's records; "
       "add the field of Kind processor"},
      {REC("4/9", FIELD("p", "Offset 28\nLength 4\n"
                             "Type \"unsigned\"\nKind \"processor\"\n")),
       "Kind processor, Type unsigned: a processor address is unsigned, 1 or "
       "2 bytes"},
      {REC("4/9", USER_ID FIELD("p", "Offset 28\nLength 2\nType "
                                     "\"unsigned\"\nKind \"processor\"\n")
                      FIELD("q", "Offset 30\nLength 2\nType \"unsigned\"\n"
                                 "Kind \"processor\"\n")),
       "Field \"q\": field \"p\" has Kind processor already; a record has at "
       "most one"},
      {REC("0/9", FIELD("b", "Offset 20\nLength 1\nMask 128\n"
                             "Type \"unsigned\"\nKind \"counter\"\n")),
       "a bit is a state, 1 or 0: use Kind gauge"},
      {REC("0/9", FIELD("b", "Offset 20\nLength 1\nMask 256\n"
                             "Type \"unsigned\"\nKind \"gauge\"\n")),
       "the Mask has bits outside the field's Length"},
      {REC("0/9", FIELD("b", "Offset 20\nLength 1\nMask 0\n")),
       "Mask 0 must be a whole number from 1 to 2^53"},
      {REC("0/9", FIELD("b", "Offset 20\nLength 8\nMask 1\n"
                             "Type \"cputimer\"\nKind \"gauge\"\n")),
       "a Mask selects bits of an unsigned field"},
      {REC("0/9", FIELD("a", "Offset 20\nLength 1\nMask 128\n"
                             "Type \"unsigned\"\nKind \"gauge\"\n")
                      FIELD("b", "Offset 20\nLength 1\n"
                                 "Type \"unsigned\"\nKind \"gauge\"\n")),
       "Field \"b\" (bytes 20-20) overlaps field \"a\""},
      {REC("0/9", FIELD("d", "Offset 20\nLength 2\nFormat \"hex\"\n"
                             "Type \"unsigned\"\nKind \"gauge\"\n")),
       "Format applies to instance fields of Type unsigned"},
      {REC("0/9", FIELD("d", "Format \"octal\"\n")),
       "unknown Format \"octal\" (use decimal, hex or cputype)"},
      {REC("0/9", FIELD("c", "Offset 20\nLength 2\nElementPrefix \"_q\"\n"
                             "Type \"unsigned\"\nKind \"counter\"\n")),
       "ElementPrefix names the elements of an array: it needs a Count"},
      {REC("0/9", FIELD("c", "ElementPrefix \"-q\"\n")),
       "ElementPrefix \"-q\": 1-4 letters, digits or '_'"},
      {REC("0/9", FIELD("n", "Offset 20\nLength 4\n"
                             "Type \"records\"\nKind \"counter\"\n")),
       "Type records counts the instance's records, it is not in the bytes: "
       "remove Offset and Length"},
      {REC("0/9", FIELD("n", "Type \"records\"\nKind \"gauge\"\n")),
       "a record count is a counter"},
      /* built-in records */
      {REC("4/10", OK_COUNTER), "is built in (D4R10 MRUSEITE, type "
                                "zvm_useite); add 'Replace true'"},
      {REC("0/2", OK_COUNTER), "is built in (D0R2 MRSYTPRP, type "
                               "zvm_sytprp); add 'Replace true'"},
      {"<Record \"0/9\">\nName \"sytprp\"\n" OK_COUNTER "</Record>\n",
       "the type zvm_sytprp belongs to the built-in D0R2 MRSYTPRP"},
      {"<Record \"0/9\">\nName \"prcsmt_cpu\"\n" OK_COUNTER "</Record>\n",
       "the type zvm_prcsmt_cpu belongs to the built-in D5R21 MRPRCSMT"},
      {REC("1/13", "Replace true\n" OK_COUNTER),
       "D1R13 MRMTREOF, which the plugin itself needs"},
      {REC("0/9", "Replace true\n" OK_COUNTER),
       "there is no built-in record 0/9 to replace"},
      /* field names */
      {REC("0/9", FIELD("2x", "")), "Field \"2x\": a field name is a letter"},
      {REC("0/9", FIELD("a.b", "")), "Field \"a.b\""},
      {REC("0/9", FIELD("", "")), "Field \"\""},
      /* text from the configuration is shown escaped, on one line */
      {REC("0/9", FIELD("a\tb\\\nc", "")), "Field \"a\\x09b\\x0Ac\""},
      {REC("0/9", FIELD("c", "Type \"\x01\"\n")), "unknown Type \"\\x01\""},
      {REC("0/9", FIELD("abcdefghijabcdefghij", "")), "at most 19 characters"},
      {REC("0/9", OK_COUNTER FIELD("C", "")), "Field \"C\" is defined twice"},
      {REC("0/9", FIELD("c", "Offset 20\nLength 1\nCount 10\n"
                             "Type \"unsigned\"\nKind \"counter\"\n")
                      FIELD("c_3", "Offset 40\nLength 1\n"
                                   "Type \"unsigned\"\nKind \"counter\"\n")),
       "its data source \"c_3\" has the name of field \"c\""},
      {REC("0/9", FIELD("abcdefghijabcdefgh",
                        "Offset 20\nLength 1\nCount 10\n"
                        "Type \"unsigned\"\nKind \"counter\"\n")),
       "\"abcdefghijabcdefgh_0\" is longer than 19"},
      /* offsets, lengths, counts */
      {REC("0/9", FIELD("c", "Offset 19\nLength 1\n"
                             "Type \"unsigned\"\nKind \"counter\"\n")),
       "Offset 19 lies in the 20-byte record header"},
      {REC("0/9", FIELD("c", "Offset 0\n")), "Offset 0 lies in the 20-byte"},
      {REC("0/9", FIELD("c", "Offset -4\n")),
       "Offset -4 must be a whole number from 0 to 4095"},
      {REC("0/9", FIELD("c", "Offset 20.5\n")), "Offset 20.5 must be a whole"},
      {REC("0/9", FIELD("c", "Offset 4096\n")), "Offset 4096 must be a whole"},
      {REC("0/9", FIELD("c", "Offset 4090\nLength 8\n"
                             "Type \"unsigned\"\nKind \"counter\"\n")),
       "ends at byte 4098, past the largest possible record (4096"},
      {REC("0/9", FIELD("c", "Offset 4000\nLength 8\nCount 20\n"
                             "Type \"unsigned\"\nKind \"gauge\"\n")),
       "ends at byte 4160"},
      {REC("0/9", FIELD("c", "Length 0\n")), "Length 0 must be a whole"},
      {REC("0/9", FIELD("c", "Count 0\n")), "Count 0 must be a whole"},
      {REC("0/9", FIELD("c", "Count 64\n")), "Count 64 must be a whole"},
      {REC("0/9", FIELD("c", "Scale 0\n")), "Scale 0 must be a finite"},
      {REC("0/9", FIELD("c", "Length 4\nType \"unsigned\"\n"
                             "Kind \"counter\"\n")),
       "Field \"c\": Offset is missing"},
      {REC("0/9", FIELD("c", "Offset 20\nType \"unsigned\"\n"
                             "Kind \"counter\"\n")),
       "Length is missing"},
      {REC("0/9", FIELD("c", "Offset 20\nLength 4\nKind \"counter\"\n")),
       "Type is missing"},
      {REC("0/9", FIELD("c", "Offset 20\nLength 4\nType \"unsigned\"\n")),
       "Kind is missing"},
      {REC("0/9", FIELD("c", "Offset 20\nLength 3\n"
                             "Type \"unsigned\"\nKind \"counter\"\n")),
       "Length 3 does not fit Type unsigned (1, 2, 4 or 8 bytes)"},
      {REC("0/9", FIELD("c", "Offset 20\nLength 4\n"
                             "Type \"cputimer\"\nKind \"counter\"\n")),
       "Length 4 does not fit Type cputimer (8 bytes)"},
      {REC("0/9", FIELD("c", "Offset 20\nLength 9\n"
                             "Type \"ebcdic\"\nKind \"instance\"\n")),
       "Length 9 does not fit Type ebcdic (1-8 bytes)"},
      {REC("0/9", OK_COUNTER FIELD("d", "Offset 22\nLength 4\n"
                                        "Type \"unsigned\"\n"
                                        "Kind \"gauge\"\n")),
       "Field \"d\" (bytes 22-25) overlaps field \"c\" (bytes 20-23)"},
      /* types, kinds and their combinations */
      {REC("0/9", FIELD("c", "Type \"float\"\n")), "unknown Type \"float\""},
      {REC("0/9", FIELD("c", "Kind \"rate\"\n")), "unknown Kind \"rate\""},
      {REC("0/9", FIELD("c", "Offset 20\nLength 8\n"
                             "Type \"tod\"\nKind \"counter\"\n")),
       "a TOD clock value is a point in time"},
      {REC("0/9", FIELD("c", "Offset 20\nLength 8\n"
                             "Type \"ebcdic\"\nKind \"gauge\"\n")),
       "text cannot be a value"},
      {REC("0/9", FIELD("c", "Offset 20\nLength 8\n"
                             "Type \"cputimer\"\nKind \"instance\"\n")),
       "an instance field has Type unsigned, ebcdic or userid"},
      {REC("0/9", FIELD("c", "Offset 20\nLength 1\nCount 2\n"
                             "Type \"unsigned\"\nKind \"instance\"\n")),
       "an instance field cannot have a Count"},
      {REC("0/9", FIELD("c", "Offset 20\nLength 1\nScale 2\n"
                             "Type \"unsigned\"\nKind \"instance\"\n")),
       "takes no Scale or CountsDown"},
      {REC("0/9", FIELD("c", "Offset 20\nLength 8\nCountsDown true\n"
                             "Type \"cputimer\"\nKind \"gauge\"\n")),
       "CountsDown applies to unsigned or cputimer counters only"},
      {REC("0/9", FIELD("c", "Offset 20\nLength 4\nCountsDown true\n"
                             "Type \"unsigned\"\nKind \"counter\"\n")),
       "CountsDown needs an 8-byte field"},
      {REC("0/9", FIELD("a", "Offset 20\nLength 1\n"
                             "Type \"unsigned\"\nKind \"instance\"\n")
                      FIELD("b", "Offset 21\nLength 1\n"
                                 "Type \"unsigned\"\nKind \"instance\"\n")
                          FIELD("c", "Offset 22\nLength 1\n"
                                     "Type \"unsigned\"\n"
                                     "Kind \"instance\"\n")),
       "at most 2 fields may have Kind instance"},
      {REC("0/9", FIELD("u", "Offset 20\nLength 4\n"
                             "Type \"userid\"\nKind \"instance\"\n")),
       "Length 4 does not fit Type userid (8 bytes)"},
      {REC("0/9", FIELD("u", "Offset 20\nLength 8\n"
                             "Type \"userid\"\nKind \"gauge\"\n")),
       "text cannot be a value"},
      {REC("0/9", FIELD("u", "Offset 20\nLength 8\n"
                             "Type \"userid\"\nKind \"instance\"\n")
                      FIELD("n", "Offset 28\nLength 2\n"
                                 "Type \"unsigned\"\nKind \"instance\"\n")),
       "Field \"n\": a field of Type userid must be the record's only field "
       "of Kind instance"},
      {REC("0/9", FIELD("n", "Offset 28\nLength 2\n"
                             "Type \"unsigned\"\nKind \"instance\"\n")
                      FIELD("u", "Offset 20\nLength 8\n"
                                 "Type \"userid\"\nKind \"instance\"\n")),
       "Field \"u\": a field of Type userid must be the record's only"},
      {REC("0/9", FIELD("c", "Width 4\n")),
       "unknown option \"Width\" (Offset, Length"},
      /* values of the wrong kind (as the glue checks them) */
      {REC("0/9", FIELD("c", "Offset \"20\"\n")),
       "Offset: exactly one numeric value is required"},
      {REC("0/9", FIELD("c", "Type unsigned\n")), "is not a number"},
      {REC("0/9", "Replace 1\n" OK_COUNTER),
       "Replace: exactly one boolean value is required"},
      /* an option with no value at all (a boolean one too) */
      {REC("0/9", "Replace\n" OK_COUNTER),
       "Replace: exactly one boolean value is required"},
      {REC("0/9", FIELD("c", "Offset\n")),
       "Offset: exactly one numeric value is required"},
  /* arrays, fixed instances, MAX counts */
#define LAYOUT3                                                                \
  FIELD("n", "Offset 24\nLength 1\nType \"unsigned\"\nKind \"layout\"\n")      \
  FIELD("s", "Offset 26\nLength 2\nType \"unsigned\"\nKind \"layout\"\n")      \
  FIELD("o", "Offset 28\nLength 2\nType \"unsigned\"\nKind \"layout\"\n")
#define LOCATE "CountField \"n\"\nSizeField \"s\"\nOffsetField \"o\"\n"
#define ENTRY_KEY                                                              \
  FIELD("t", "Offset 0\nLength 1\nType \"unsigned\"\nKind \"instance\"\n"      \
             "Format \"cputype\"\n")
#define ENTRY_GAUGE                                                            \
  FIELD("g", "Offset 1\nLength 1\nType \"unsigned\"\nKind \"gauge\"\n")
#define ARRAY(body) "<Array \"a\">\n" body "</Array>\n"
      {REC("0/9", OK_COUNTER LAYOUT3 ARRAY(LOCATE ENTRY_KEY ENTRY_GAUGE)),
       "Record \"0/9\" Array \"a\": Name is missing (it names the entries' "
       "type"},
      {REC("0/9",
           OK_COUNTER LAYOUT3 ARRAY(
               "Name \"e\"\nCountField \"n\"\nSizeField \"s\"\n" ENTRY_KEY
                   ENTRY_GAUGE)),
       "Array \"a\": OffsetField is missing"},
      {REC("0/9", OK_COUNTER LAYOUT3 ARRAY("Name \"e\"\n" LOCATE ENTRY_GAUGE)),
       "Array \"a\": no field of Kind instance; each entry"},
      {REC("0/9", OK_COUNTER LAYOUT3 ARRAY("Name \"e\"\n" LOCATE ENTRY_KEY)),
       "Array \"a\": no field with Kind counter or gauge"},
      {REC("0/9", OK_COUNTER FIELD("n", "Offset 24\nLength 1\nType "
                                        "\"unsigned\"\nKind \"gauge\"\n")
                      ARRAY("Name \"e\"\n" LOCATE ENTRY_KEY ENTRY_GAUGE)),
       "Array \"a\" CountField \"n\": the record has no field of that name "
       "with Kind layout"},
      {REC("0/9", OK_COUNTER LAYOUT3),
       "Field \"n\": Kind layout, but no Array block names it"},
      /* values in arrays only, but summed per virtual processor */
      {REC("4/9",
           USER_ID FIELD("p", "Offset 28\nLength 2\nType \"unsigned\"\n"
                              "Kind \"processor\"\n")
               FIELD("n", "Offset 30\nLength 1\nType \"unsigned\"\n"
                          "Kind \"layout\"\n")
                   FIELD("s", "Offset 31\nLength 2\nType \"unsigned\"\n"
                              "Kind \"layout\"\n")
                       FIELD("o", "Offset 33\nLength 2\nType \"unsigned\"\n"
                                  "Kind \"layout\"\n")
                           ARRAY("Name \"e\"\n" LOCATE ENTRY_KEY ENTRY_GAUGE)),
       "Record \"4/9\": a field of Kind processor sums the record's own "
       "counters and gauges per guest, and it has none"},
      {REC("0/9", OK_COUNTER LAYOUT3 ARRAY(
                      "Name \"r\"\n" LOCATE ENTRY_KEY ENTRY_GAUGE)),
       "Array \"a\" Name \"r\": the record has that Name"},
      {REC("0/9", OK_COUNTER LAYOUT3 ARRAY(
                      "Name \"prcsmt_cpu\"\n" LOCATE ENTRY_KEY ENTRY_GAUGE)),
       "the type zvm_prcsmt_cpu belongs to the built-in D5R21 MRPRCSMT"},
      {REC("0/9", OK_COUNTER LAYOUT3 ARRAY("Name \"e\"\n" LOCATE ENTRY_KEY
                                               ENTRY_GAUGE) "<Array \"A\">\n"),
       "Array \"A\" is defined twice"},
      {REC("0/9", OK_COUNTER ARRAY(ARRAY(""))), "not allowed here"},
      {REC("0/9", OK_COUNTER ARRAY("Offset 3\n")),
       "Record \"0/9\" Array \"a\": unknown option \"Offset\" (Name, "
       "CountField"},
      {REC("0/9",
           OK_COUNTER ARRAY(FIELD("p", "Offset 0\nLength 1\nType \"unsigned\"\n"
                                       "Kind \"layout\"\n"))),
       "Array \"a\" Field \"p\": Kind layout, Type unsigned: not in an array "
       "entry"},
      {REC("0/9", OK_COUNTER ARRAY("CountField \"9\"\n")),
       "CountField \"9\": the name of a field of the record of Kind layout"},
      {REC("0/9",
           OK_COUNTER FIELD("n", "Offset 24\nLength 1\nScale 2\n"
                                 "Type \"unsigned\"\nKind \"layout\"\n")),
       "a field that locates an array is unsigned, without Count, Scale"},
      {REC("0/9", OK_COUNTER FIELD("t", "Offset 24\nLength 1\nType "
                                        "\"unsigned\"\nKind \"gauge\"\nFormat "
                                        "\"cputype\"\n")),
       "Format applies to instance fields of Type unsigned"},
      {REC("0/9", "InstanceName \"sys-tem\"\n" OK_COUNTER),
       "InstanceName \"sys-tem\": a letter followed by"},
      {REC("0/9", "InstanceName \"system\"\n" OK_COUNTER FIELD(
                      "i", "Offset 24\nLength 2\nType \"unsigned\"\n"
                           "Kind \"instance\"\n")),
       "InstanceName names the one instance of a record without an instance "
       "field"},
      {REC("0/9", FIELD("m", "Offset 20\nLength 1\nAllOnes \"max\"\n")),
       "unknown AllOnes \"max\" (use nan for a count whose X'FF' means MAX"},
      {REC("0/9", FIELD("m", "Offset 20\nLength 1\nAllOnes \"nan\"\nType "
                             "\"unsigned\"\nKind \"counter\"\n")),
       "AllOnes applies to unsigned gauges"},
      {REC("0/9", FIELD("m", "Offset 20\nLength 1\nAllOnes \"flag\"\nCount 2\n"
                             "Type \"unsigned\"\nKind \"gauge\"\n")),
       "a field with AllOnes takes no Count, Scale, CountsDown or Mask"},
      {REC("0/9", FIELD("m", "Offset 20\nLength 1\nType \"unsigned\"\n"
                             "Kind \"gauge\"\n")
                      FIELD("n", "Offset 20\nLength 1\nType \"unsigned\"\n"
                                 "Kind \"gauge\"\nAllOnes \"nan\"\n")),
       "Field \"n\" (bytes 20-20) overlaps field \"m\""},
      {REC("0/9", FIELD("m", "Offset 20\nLength 1\nOneValueType \"1x\"\n")),
       "OneValueType \"1x\": a type of collectd's types.db"},
      {REC("0/9", FIELD("m", "Offset 20\nLength 1\nOneValueType \"bool\"\n"
                             "Type \"unsigned\"\nKind \"instance\"\n")),
       "OneValueType names the type of a counter's or a gauge's value"},
      /* a long data source name only where the built-in record has it */
      {REC("0/9", FIELD("statement_all_is_max", "")), "at most 19 characters"},
      {"<Record \"5/21\">\nName \"p\"\nReplace true\n" FIELD(
           "statement_all_is_maxx", "") "</Record>\n",
       "at most 19 characters"},
      /* syntax of the text itself (the test parser) */
      {"<Record \"0/9\">\nName \"r\"\n" OK_COUNTER, "<Record> is not closed"},
      {"Name \"r\"\n", "outside a <Record> block"},
      {"<Plugin \"x\">\n</Plugin>\n", "block <Plugin> not allowed here"},
      {REC("0/9", "<Field \"a\">\n<Field \"b\">\n"), "not allowed here"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct zvm_recconf rc;
    int rv = parse(&rc, cases[i].text);
    if (rv != -1 || strstr(err, cases[i].reason) == NULL ||
        strchr(err, '\n') != NULL)
      fail_msg("case %zu: rv %d, error \"%s\", want \"%s\"\n%s", i, rv, err,
               cases[i].reason, cases[i].text);
    zvm_recconf_free(&rc);
  }
}

/* D5R21 as IBM MRPRCSMT (z/VM V6R4.0) lays it out, with the built-in
 * table's names and types (what zvm-monitor-record writes from the page):
 * a fixed instance "system", thread counts whose X'FF' means MAX, their
 * flags, a top bit, and the PRCSMT_CPUTINFO array per CPU type. */
#define PRCSMT_FIELD(name, off, len, opts)                                     \
  "<Field \"" name "\">\nOffset " #off "\nLength " #len                        \
  "\nType \"unsigned\"\n" opts "</Field>\n"
#define COUNT_MAX "Kind \"gauge\"\nAllOnes \"nan\"\nOneValueType \"threads\"\n"
#define FLAG_MAX "Kind \"gauge\"\nAllOnes \"flag\"\nOneValueType \"bool\"\n"
static const char prcsmt_text[] =
    "<Record \"5/21\">\nName \"prcsmt\"\nReplace true\n"
    "InstanceName \"system\"\n" PRCSMT_FIELD(
        "mt_config_seq", 20, 4,
        "Kind \"gauge\"\n") PRCSMT_FIELD("mt_max_threads", 25, 1,
                                         "Kind \"gauge\"\n")
        PRCSMT_FIELD("statement_all", 26, 1, COUNT_MAX) PRCSMT_FIELD(
            "set_all", 27, 1,
            COUNT_MAX) PRCSMT_FIELD("set_initial", 28, 1,
                                    "Kind \"gauge\"\nMask 128\nOneValueType "
                                    "\"bool\"\n")
            PRCSMT_FIELD("cal_cputacnt", 29, 1,
                         "Kind \"layout\"\n") PRCSMT_FIELD("cal_cputaesz", 30,
                                                           2,
                                                           "Kind \"layout\"\n")
                PRCSMT_FIELD(
                    "cal_cputaoff", 32, 2,
                    "Kind \"layout\"\n") PRCSMT_FIELD("statement_all_is_max",
                                                      26, 1, FLAG_MAX)
                    PRCSMT_FIELD(
                        "set_all_is_max", 27, 1,
                        FLAG_MAX) "<Array \"cputinfo\">\nName \"prcsmt_cpu\"\n"
                                  "CountField \"cal_cputacnt\"\nSizeField "
                                  "\"cal_cputaesz\"\n"
                                  "OffsetField \"cal_cputaoff\"\n" PRCSMT_FIELD(
                                      "cputype", 0, 1,
                                      "Kind \"instance\"\nFormat \"cputype\"\n")
                                      PRCSMT_FIELD(
                                          "statement", 1, 1,
                                          COUNT_MAX) PRCSMT_FIELD("hardware_"
                                                                  "max",
                                                                  2, 1,
                                                                  COUNT_MAX)
                                          PRCSMT_FIELD(
                                              "zvm_max", 3, 1,
                                              COUNT_MAX) PRCSMT_FIELD("activate"
                                                                      "d",
                                                                      4, 1,
                                                                      COUNT_MAX)
                                              PRCSMT_FIELD("set_command", 5, 1,
                                                           COUNT_MAX)
                                                  PRCSMT_FIELD("requested", 6,
                                                               1, COUNT_MAX)
                                                      PRCSMT_FIELD(
                                                          "statement_is_max", 1,
                                                          1, FLAG_MAX)
                                                          PRCSMT_FIELD(
                                                              "set_command_is_"
                                                              "max",
                                                              5, 1, FLAG_MAX)
                                                              PRCSMT_FIELD(
                                                                  "requested_"
                                                                  "is_max",
                                                                  6, 1,
                                                                  FLAG_MAX) "</"
                                                                            "Ar"
                                                                            "ra"
                                                                            "y>"
                                                                            "\n"
                                                                            "</"
                                                                            "Re"
                                                                            "co"
                                                                            "rd"
                                                                            ">"
                                                                            "\n";

/* Three entries: CP, IFL (MAX on SET MULTITHREAD, so also requested), an
 * unknown CPU type 9. */
static const struct cputinfo three[] = {
    {0x00, 1, 2, 1, 1, 0, 1},
    {0x03, 2, 2, 2, 2, 0xFF, 0xFF},
    {0x09, 9, 10, 11, 12, 13, 14},
};

/* The dispatched fields of l, in data source order. */
static size_t dispatched_fields(const struct zvm_layout *l,
                                const struct zvm_field **out) {
  size_t n = 0;
  for (size_t i = 0; i < l->nfields; i++)
    if (zvm_field_dispatched(&l->fields[i]))
      out[n++] = &l->fields[i];
  return n;
}

/* Layout u (from the block) gives exactly what layout b (built in) gives
 * for the bytes: the type, the data sources, each value (NaN as NaN), the
 * one-value-per-list type. Returns the values of u. */
static void same_values(const struct zvm_layout *u, const struct zvm_layout *b,
                        const uint8_t *data, size_t len, double *values,
                        size_t nvalues) {
  assert_string_equal(u->type_name, b->type_name);
  struct zvm_ds du[16], db[16];
  size_t n = zvm_layout_data_sources(u, du, 16);
  assert_int_equal(n, zvm_layout_data_sources(b, db, 16));
  assert_int_equal(n, nvalues);
  const struct zvm_field *fu[16], *fb[16];
  assert_int_equal(dispatched_fields(u, fu), n);
  assert_int_equal(dispatched_fields(b, fb), n);
  for (size_t i = 0; i < n; i++) {
    assert_string_equal(du[i].name, db[i].name);
    assert_int_equal(du[i].type, db[i].type);
    assert_string_equal(fu[i]->single_type ? fu[i]->single_type : "gauge",
                        fb[i]->single_type ? fb[i]->single_type : "gauge");
    int64_t d1 = 0, d2 = 0;
    double g1 = 0, g2 = 0;
    assert_true(zvm_field_value(fu[i], data, len, 0, &d1, &g1));
    assert_true(zvm_field_value(fb[i], data, len, 0, &d2, &g2));
    if (!(isnan(g1) && isnan(g2)))
      assert_true(g1 == g2);
    values[i] = g1;
  }
}

static void on_rec(const struct zvm_record *rec,
                   const struct zvm_record_desc *d, void *ctx) {
  (void)rec;
  *(const struct zvm_record_desc **)ctx = d;
}

/* A walk of a set of the records in rs takes them with descriptor u and
 * counts rejected unusable arrays. */
static void walk_sees(const struct tb *rs, const struct zvm_record_desc *u,
                      uint64_t rejected) {
  struct tb set;
  tb_init(&set);
  tb_record_set(&set, 0xC5, 0x0400, 0x09000000, rs);
  struct zvm_decode_stats st = {0};
  const struct zvm_record_desc *seen = NULL;
  zvm_decode_set_with(reg, set.data, set.len, ZVM_DOMAINS_ALL, on_rec, &seen,
                      &st);
  assert_ptr_equal(seen, u);
  assert_int_equal(st.array_rejected, rejected);
  tb_free(&set);
}

static void test_prcsmt_block(void **state) {
  (void)state;
  struct zvm_recconf rc;
  if (parse(&rc, prcsmt_text) != 0)
    fail_msg("%s", err);
  struct zvm_registry *builtin = zvm_registry_create();
  assert_non_null(builtin);
  assert_int_equal(zvm_registry_add_builtins(builtin), 0);
  const struct zvm_record_desc *u = zvm_registry_find(reg, 5, 21);
  const struct zvm_record_desc *b = zvm_registry_find(builtin, 5, 21);
  assert_true(u->user_defined && !b->user_defined);
  /* The built-in's notifications stay (they read IBM's layout). */
  assert_ptr_equal(u->hooks, b->hooks);
  assert_int_equal(u->narrays, 1);
  assert_int_equal(u->main.key.part[0].kind, ZVM_KEY_FIXED);
  assert_string_equal(u->main.key.part[0].text, "system");
  assert_int_equal(u->arrays[0].entry.key.part[0].kind, ZVM_KEY_CPU_TYPE);

  /* IBM MRPRCSMT (z/VM V6R4.0): 36 bytes, 3 entries of 8 from byte 36 */
  struct tb rs;
  tb_init(&rs);
  size_t at = build_prcsmt(&rs, 0x40, three, 3, 8, 36, 60);
  const uint8_t *r = rs.data + at;
  size_t len = 60;
  double v[16];
  same_values(&u->main, &b->main, r, len, v, 7);
  /* mt_config_seq, mt_max_threads, statement_all (X'FF': NaN), set_all,
   * set_initial (X'80'), statement_all_is_max, set_all_is_max */
  assert_true(v[0] == 7 && v[1] == 2 && isnan(v[2]) && v[3] == 1 && v[4] == 1 &&
              v[5] == 1 && v[6] == 0);
  struct zvm_array_view av, bv;
  assert_int_equal(zvm_array_locate(&u->arrays[0], r, len, &av), ZVM_ARRAY_OK);
  assert_int_equal(zvm_array_locate(&b->arrays[0], r, len, &bv), ZVM_ARRAY_OK);
  assert_int_equal(av.count, 3);
  assert_ptr_equal(av.base, bv.base);
  for (size_t i = 0; i < av.count; i++)
    same_values(&u->arrays[0].entry, &b->arrays[0].entry,
                zvm_array_entry(&av, i), av.entry_size, v, 9);
  /* the IFL entry (the second): set_command and requested MAX */
  same_values(&u->arrays[0].entry, &b->arrays[0].entry, zvm_array_entry(&av, 1),
              av.entry_size, v, 9);
  assert_true(v[0] == 2 && isnan(v[4]) && isnan(v[5]) && v[6] == 0 &&
              v[7] == 1 && v[8] == 1);

  /* A count or an offset that points outside the record: the array is
   * refused, and a walk counts the record (its fixed part still used). */
  tb_put_u8(&rs, at + 29, 4); /* 4 entries do not fit in 60 bytes */
  assert_int_equal(zvm_array_locate(&u->arrays[0], r, len, &av), ZVM_ARRAY_BAD);
  tb_put_u8(&rs, at + 29, 3);
  tb_put_u16(&rs, at + 32, 60); /* the array would start at the end */
  assert_int_equal(zvm_array_locate(&u->arrays[0], r, len, &av), ZVM_ARRAY_BAD);
  tb_put_u16(&rs, at + 32, 12); /* in the header */
  assert_int_equal(zvm_array_locate(&u->arrays[0], r, len, &av), ZVM_ARRAY_BAD);
  walk_sees(&rs, u, 1);
  tb_free(&rs);
  zvm_registry_destroy(builtin);
  zvm_recconf_free(&rc);
}

/* D5R21 (IBM MRPRCSMT, z/VM V6R4.0) with the values of its PRCSMT_CPUTINFO
 * entries only: the record's own fields are the three that locate the
 * array, none a counter or gauge. */
static const char cputinfo_only_text[] =
    "<Record \"5/21\">\nName \"smt\"\nReplace true\n" PRCSMT_FIELD(
        "cal_cputacnt", 29, 1, "Kind \"layout\"\n")
        PRCSMT_FIELD("cal_cputaesz", 30, 2, "Kind \"layout\"\n") PRCSMT_FIELD(
            "cal_cputaoff", 32, 2,
            "Kind \"layout\"\n") "<Array \"cputinfo\">\nName \"smt_cpu\"\n"
                                 "CountField \"cal_cputacnt\"\n"
                                 "SizeField \"cal_cputaesz\"\n"
                                 "OffsetField \"cal_cputaoff\"\n" PRCSMT_FIELD(
                                     "cputype", 0, 1,
                                     "Kind \"instance\"\nFormat \"cputype\"\n")
                                     PRCSMT_FIELD("activated", 4, 1, COUNT_MAX)
                                         PRCSMT_FIELD("set_command", 5, 1,
                                                      COUNT_MAX) "</Array>\n"
                                                                 "</Record>\n";

/* A record whose values are all in an array: accepted, its own part
 * without data sources (no type line), each entry's values decoded from
 * the bytes at IBM's offsets. */
static void test_arrays_only(void **state) {
  (void)state;
  struct zvm_recconf rc;
  if (parse(&rc, cputinfo_only_text) != 0)
    fail_msg("%s", err);
  const struct zvm_record_desc *u = zvm_registry_find(reg, 5, 21);
  assert_non_null(u);
  assert_true(u->user_defined);
  assert_int_equal(zvm_layout_data_sources(&u->main, NULL, 0), 0);
  char line[256];
  assert_true(zvm_layout_types_db_line(&u->main, line, sizeof(line)) < 0);
  assert_int_equal(u->narrays, 1);
  const struct zvm_layout *e = &u->arrays[0].entry;
  assert_string_equal(e->type_name, "zvm_smt_cpu");
  assert_true(zvm_layout_types_db_line(e, line, sizeof(line)) > 0);
  assert_string_equal(
      line, "zvm_smt_cpu\tactivated:GAUGE:U:U, set_command:GAUGE:U:U");

  /* five entries of 8 bytes from byte 36: CP, zAAP, IFL (SET MULTITHREAD
   * MAX), ICF, zIIP */
  struct tb rs;
  tb_init(&rs);
  size_t at = build_prcsmt(&rs, 0x40, five, 5, 8, 36, 76);
  const uint8_t *r = rs.data + at;
  struct zvm_array_view av;
  assert_int_equal(zvm_array_locate(&u->arrays[0], r, 76, &av), ZVM_ARRAY_OK);
  assert_int_equal(av.count, 5);
  const struct zvm_field *f[2];
  assert_int_equal(dispatched_fields(e, f), 2);
  for (size_t i = 0; i < av.count; i++) {
    int64_t d = 0;
    double ac = 0, sm = 0;
    assert_true(zvm_field_value(f[0], zvm_array_entry(&av, i), av.entry_size, 0,
                                &d, &ac));
    assert_true(zvm_field_value(f[1], zvm_array_entry(&av, i), av.entry_size, 0,
                                &d, &sm));
    assert_true(ac == five[i].ac);
    if (five[i].sm == 0xFF)
      assert_true(isnan(sm));
    else
      assert_true(sm == five[i].sm);
  }
  /* a walk takes the record with the block's descriptor, array intact */
  walk_sees(&rs, u, 0);
  tb_free(&rs);
  zvm_recconf_free(&rc);
}

/* A block whose domain Domain does not select would yield nothing. */
static void test_domains(void **state) {
  (void)state;
  struct zvm_recconf rc;
  assert_int_equal(
      parse(&rc, REC("3/2", OK_COUNTER) REC("0/9", OK_COUNTER "Name \"s\"\n")),
      0);
  assert_int_equal(
      zvm_recconf_check_domains(&rc, ZVM_DOMAINS_ALL, err, sizeof(err)), 0);
  assert_int_equal(
      zvm_recconf_check_domains(&rc, ZVM_DOMAIN_BIT(3) | ZVM_DOMAIN_BIT(0), err,
                                sizeof(err)),
      0);
  assert_int_equal(
      zvm_recconf_check_domains(&rc, ZVM_DOMAIN_BIT(3), err, sizeof(err)), -1);
  assert_string_equal(err, "Record \"0/9\": its domain (system) is not "
                           "selected by the Domain options, so it would never "
                           "be decoded; add Domain \"system\" or remove the "
                           "block");
  zvm_recconf_free(&rc);
}

/* The builder refuses calls out of order (the glue never makes them, but
 * nothing may break if it did). */
static void test_builder_order(void **state) {
  (void)state;
  struct zvm_recconf rc;
  zvm_recconf_init(&rc, NULL);
  assert_null(zvm_recconf_option(&rc, "Name"));
  assert_int_equal(zvm_recconf_field_begin(&rc, "a", err, sizeof(err)), -1);
  assert_int_equal(zvm_recconf_field_end(&rc, err, sizeof(err)), -1);
  assert_int_equal(zvm_recconf_record_end(&rc, err, sizeof(err)), -1);
  const struct zvm_option_value x = {.type = ZVM_OPTION_STRING, .string = "x"};
  assert_int_equal(zvm_recconf_set(&rc, "Name", &x, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "outside a Record block"));
  assert_int_equal(zvm_recconf_record_begin(&rc, NULL, err, sizeof(err)), -1);
  assert_int_equal(zvm_recconf_record_begin(&rc, "0/9", err, sizeof(err)), 0);
  /* An unfinished block (refused) is forgotten by the next one. */
  assert_int_equal(zvm_recconf_record_begin(&rc, "0/8", err, sizeof(err)), 0);
  assert_int_equal(zvm_recconf_record_begin(&rc, "0/9", err, sizeof(err)), 0);
  assert_int_equal(zvm_recconf_option(&rc, "field")->kind, ZVM_OPTION_BLOCK);
  assert_int_equal(zvm_recconf_field_begin(&rc, "a", err, sizeof(err)), 0);
  assert_int_equal(zvm_recconf_option(&rc, "OFFSET")->kind, ZVM_OPTION_NUMBER);
  assert_int_equal(zvm_recconf_field_begin(&rc, "b", err, sizeof(err)), -1);
  assert_int_equal(zvm_recconf_record_end(&rc, err, sizeof(err)), -1);
  const struct zvm_option_value one = {.type = ZVM_OPTION_NUMBER, .number = 1};
  assert_int_equal(zvm_recconf_set(&rc, "Name", &one, err, sizeof(err)), -1);
  zvm_recconf_free(&rc); /* frees the half-built record and field */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_valid_record, teardown),
      cmocka_unit_test_teardown(test_arrays_gauges_and_two_records, teardown),
      cmocka_unit_test_teardown(test_data_source_limit, teardown),
      cmocka_unit_test_teardown(test_record_block_limit, teardown),
      cmocka_unit_test_teardown(test_every_error, teardown),
      cmocka_unit_test_teardown(test_prcsmt_block, teardown),
      cmocka_unit_test_teardown(test_arrays_only, teardown),
      cmocka_unit_test_teardown(test_domains, teardown),
      cmocka_unit_test_teardown(test_builder_order, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
