/* SPDX-License-Identifier: MIT */
/*
 * Option rows with a rule (base/option.c): a choice stores its word's
 * index, a number its value, each only when the rule holds; a refusal is
 * one line made from the rule: the choices listed, or the bounds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "base/option.h"

enum letter { ALPHA, BETA, GAMMA, DELTA };

struct target {
  uint16_t count;
  uint8_t small;
  size_t bytes;
  uint64_t mask;
  double ratio;
  enum letter letter;
  int mode;
};

/* BETA has no word: it cannot be chosen. */
static const char *const letters[] = {
    [ALPHA] = "alpha", [GAMMA] = "gamma", [DELTA] = "delta"};
static const struct zvm_option_rule letter_rule = {
    ZVM_OPTION_WORDS(letters), .size = ZVM_OPTION_SIZE(struct target, letter)};
static const char *const modes[] = {"off", "on"};
static const struct zvm_option_rule mode_rule = {
    ZVM_OPTION_WORDS(modes), .use = "off, or on to switch it on",
    .size = ZVM_OPTION_SIZE(struct target, mode)};
static const struct zvm_option_rule count_rule = {
    .min = 1,
    .max = 63,
    .whole = true,
    .note = "elements of an array",
    .size = ZVM_OPTION_SIZE(struct target, count)};
static const struct zvm_option_rule small_rule = {
    .min = 0, .max = 255, .whole = true, .size = 1};
static const struct zvm_option_rule bytes_rule = {
    .min = 4096,
    .max = 2147483648.0,
    .whole = true,
    .unit = "bytes",
    .size = ZVM_OPTION_SIZE(struct target, bytes)};
static const struct zvm_option_rule mask_rule = {
    .min = 1,
    .max = 9007199254740992.0,
    .whole = true,
    .size = ZVM_OPTION_SIZE(struct target, mask)};
static const struct zvm_option_rule ratio_rule = {
    .min = 0.5, .max = 2, .size = ZVM_OPTION_SIZE(struct target, ratio)};

#define AT(m) offsetof(struct target, m)
static const struct zvm_option rows[] = {
    {"Letter", ZVM_OPTION_STRING, zvm_option_set_rule, AT(letter),
     &letter_rule},
    {"Mode", ZVM_OPTION_STRING, zvm_option_set_rule, AT(mode), &mode_rule},
    {"Count", ZVM_OPTION_NUMBER, zvm_option_set_rule, AT(count), &count_rule},
    {"Small", ZVM_OPTION_NUMBER, zvm_option_set_rule, AT(small), &small_rule},
    {"Bytes", ZVM_OPTION_NUMBER, zvm_option_set_rule, AT(bytes), &bytes_rule},
    {"Mask", ZVM_OPTION_NUMBER, zvm_option_set_rule, AT(mask), &mask_rule},
    {"Ratio", ZVM_OPTION_NUMBER, zvm_option_set_rule, AT(ratio), &ratio_rule},
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static char err[256];

static int number(struct target *t, const char *key, double x) {
  const struct zvm_option_value v = {.type = ZVM_OPTION_NUMBER, .number = x};
  err[0] = '\0';
  return zvm_option_apply(rows, NROWS, t, key, &v, NULL, err, sizeof(err));
}

static int word(struct target *t, const char *key, const char *s) {
  const struct zvm_option_value v = {.type = ZVM_OPTION_STRING, .string = s};
  err[0] = '\0';
  return zvm_option_apply(rows, NROWS, t, key, &v, NULL, err, sizeof(err));
}

/* A whole number: the bounds themselves are inside, one past is not, nor
 * is a fraction or NaN; a refusal leaves the member as it was. */
static void test_whole_bounds(void **state) {
  (void)state;
  struct target t = {.count = 7};
  assert_int_equal(number(&t, "Count", 1), 0);
  assert_int_equal(t.count, 1);
  assert_int_equal(number(&t, "count", 63), 0); /* key case-insensitive */
  assert_int_equal(t.count, 63);
  assert_int_equal(number(&t, "Count", 64), -1);
  assert_string_equal(
      err, "Count 64 must be a whole number from 1 to 63 (elements of an "
           "array)");
  assert_int_equal(number(&t, "Count", 0), -1);
  assert_string_equal(
      err,
      "Count 0 must be a whole number from 1 to 63 (elements of an array)");
  assert_int_equal(number(&t, "Count", 2.5), -1);
  assert_string_equal(
      err,
      "Count 2.5 must be a whole number from 1 to 63 (elements of an array)");
  assert_int_equal(number(&t, "Count", NAN), -1);
  assert_non_null(strstr(err, "Count nan must be a whole number"));
  assert_int_equal(number(&t, "Count", INFINITY), -1);
  assert_int_equal(t.count, 63);
}

/* The member's size is the rule's: 1, 2 or 8 bytes, whole numbers up to
 * 2^53 exactly; a bound from 2^32 on that is a power of two reads 2^N. */
static void test_member_sizes(void **state) {
  (void)state;
  struct target t = {0};
  assert_int_equal(number(&t, "Small", 255), 0);
  assert_int_equal(t.small, 255);
  assert_int_equal(number(&t, "Small", 256), -1);
  assert_string_equal(err, "Small 256 must be a whole number from 0 to 255");
  assert_int_equal(number(&t, "Bytes", 2147483648.0), 0);
  assert_true(t.bytes == (size_t)2147483648u);
  assert_int_equal(number(&t, "Bytes", 4095), -1);
  assert_string_equal(err, "Bytes 4095 must be a whole number of bytes from "
                           "4096 to 2147483648");
  assert_int_equal(number(&t, "Mask", 9007199254740992.0), 0);
  assert_true(t.mask == UINT64_C(9007199254740992));
  assert_int_equal(number(&t, "Mask", 0), -1);
  assert_string_equal(err, "Mask 0 must be a whole number from 1 to 2^53");
}

/* A number not whole: a fraction is the value, the bounds still hold. */
static void test_not_whole(void **state) {
  (void)state;
  struct target t = {.ratio = 1};
  assert_int_equal(number(&t, "Ratio", 0.75), 0);
  assert_true(t.ratio == 0.75);
  assert_int_equal(number(&t, "Ratio", 2), 0);
  assert_true(t.ratio == 2);
  assert_int_equal(number(&t, "Ratio", 2.25), -1);
  assert_string_equal(err, "Ratio 2.25 must be a number from 0.5 to 2");
  assert_int_equal(number(&t, "Ratio", 0.25), -1);
  assert_true(t.ratio == 2);
}

/* A choice: any case of a word; its index goes to the member; an unknown
 * word is refused with the words listed (a word-less index is none). */
static void test_choice(void **state) {
  (void)state;
  struct target t = {.letter = BETA};
  assert_int_equal(word(&t, "Letter", "GAMMA"), 0);
  assert_int_equal(t.letter, GAMMA);
  assert_int_equal(word(&t, "Letter", "delta"), 0);
  assert_int_equal(t.letter, DELTA);
  assert_int_equal(word(&t, "Letter", "Alpha"), 0);
  assert_int_equal(t.letter, ALPHA);
  assert_int_equal(word(&t, "Letter", "beta"), -1);
  assert_string_equal(err,
                      "unknown Letter \"beta\" (use alpha, gamma or delta)");
  assert_int_equal(t.letter, ALPHA);
  assert_int_equal(word(&t, "Letter", ""), -1);
  assert_string_equal(err, "unknown Letter \"\" (use alpha, gamma or delta)");
  /* The value as a log line may show it. */
  assert_int_equal(word(&t, "Letter", "a\nb\\"), -1);
  assert_string_equal(
      err, "unknown Letter \"a\\x0Ab\\x5C\" (use alpha, gamma or delta)");
  /* A rule's own list of the choices. */
  assert_int_equal(word(&t, "Mode", "on"), 0);
  assert_int_equal(t.mode, 1);
  assert_int_equal(word(&t, "Mode", "maybe"), -1);
  assert_string_equal(
      err, "unknown Mode \"maybe\" (use off, or on to switch it on)");
}

/* zvm_option_check, for a handler that checks more: a choice's index, a
 * number's 0, nothing stored. */
static void test_check(void **state) {
  (void)state;
  const struct zvm_option_value gamma = {.type = ZVM_OPTION_STRING,
                                         .string = "gamma"};
  const struct zvm_option_value big = {.type = ZVM_OPTION_NUMBER,
                                       .number = 100};
  const struct zvm_option_value ten = {.type = ZVM_OPTION_NUMBER, .number = 10};
  assert_int_equal(zvm_option_check(&rows[0], &gamma, err, sizeof(err)), GAMMA);
  assert_int_equal(zvm_option_check(&rows[2], &ten, err, sizeof(err)), 0);
  assert_int_equal(zvm_option_check(&rows[2], &big, err, sizeof(err)), -1);
  assert_string_equal(
      err,
      "Count 100 must be a whole number from 1 to 63 (elements of an array)");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_whole_bounds), cmocka_unit_test(test_member_sizes),
      cmocka_unit_test(test_not_whole),    cmocka_unit_test(test_choice),
      cmocka_unit_test(test_check),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
