/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: names that come from the data or the configuration.
 *
 * Input: 1 byte of output buffer size, then the name bytes.
 *
 * zvm_name_format() turns EBCDIC bytes from a record (a user ID) into a
 * collectd identifier part: it must produce exactly the documented string,
 * only characters from [A-Z0-9@#$_+%-], and never write past a deliberately
 * tight output buffer (each call gets a heap block of exactly out_size bytes,
 * so ASan sees a one-byte overrun). zvm_domain_from_name() parses Domain
 * options from the configuration; zvm_cpu_type_name() names plugin
 * instances.
 */
#include "fuzz.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "zvm_monitor/decode.h"
#include "zvm_monitor/records.h"

/* The safe characters in EBCDIC code page 037, written out independently
 * of plugin/format/ebcdic.c; 0 for every other byte. */
static char safe_char(uint8_t e) {
  if (e >= 0xC1 && e <= 0xC9)
    return (char)('A' + (e - 0xC1));
  if (e >= 0xD1 && e <= 0xD9)
    return (char)('J' + (e - 0xD1));
  if (e >= 0xE2 && e <= 0xE9)
    return (char)('S' + (e - 0xE2));
  if (e >= 0xF0 && e <= 0xF9)
    return (char)('0' + (e - 0xF0));
  switch (e) {
  case 0x7C:
    return '@';
  case 0x7B:
    return '#';
  case 0x5B:
    return '$';
  case 0x6D:
    return '_';
  case 0x60:
    return '-';
  case 0x4E:
    return '+';
  default:
    return 0;
  }
}

static bool output_char_ok(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '@' ||
         c == '#' || c == '$' || c == '_' || c == '+' || c == '%' || c == '-';
}

/* The documented result: trailing blanks and NULs trimmed, safe characters
 * kept, every other byte as %XX of its EBCDIC value. Returns its length, 0
 * for a blank name. */
static size_t expected_name(const uint8_t *e, size_t len, char *out) {
  static const char hex[] = "0123456789ABCDEF";
  while (len > 0 && (e[len - 1] == 0x40 || e[len - 1] == 0x00))
    len--;
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    char c = safe_char(e[i]);
    if (c != 0) {
      out[n++] = c;
    } else {
      out[n++] = '%';
      out[n++] = hex[e[i] >> 4];
      out[n++] = hex[e[i] & 0x0F];
    }
  }
  out[n] = '\0';
  return n;
}

/* One call with a heap buffer of exactly out_size bytes. */
static void format_into(const uint8_t *e, size_t len, size_t out_size,
                        const char *want, size_t want_len) {
  char *out = malloc(out_size);
  FUZZ_CHECK(out_size == 0 || out != NULL);
  int n = zvm_name_format(e, len, out, out_size);
  if (want_len == 0 || want_len + 1 > out_size) {
    FUZZ_CHECK(n == -1); /* blank, or does not fit: refused */
  } else {
    FUZZ_CHECK(n >= 0 && (size_t)n == want_len);
    FUZZ_CHECK(memcmp(out, want, want_len + 1) == 0);
    for (int i = 0; i < n; i++)
      FUZZ_CHECK(output_char_ok(out[i]));
  }
  free(out);
}

static void check_name_format(const uint8_t *e, size_t len, size_t out_size) {
  char *want = malloc(3 * len + 1);
  FUZZ_CHECK(want != NULL);
  size_t want_len = expected_name(e, len, want);

  for (size_t i = 0; i < len; i++) {
    char c = safe_char(e[i]);
    uint8_t l = zvm_ebcdic_to_latin1(e[i]);
    FUZZ_CHECK(c == 0 ? !output_char_ok((char)l) || l == '%' : l == (uint8_t)c);
  }

  format_into(e, len, out_size, want, want_len);     /* the input's size */
  format_into(e, len, want_len + 1, want, want_len); /* exactly enough */
  if (want_len > 0)
    format_into(e, len, want_len, want, want_len);  /* one byte short */
  format_into(e, len, 3 * len + 1, want, want_len); /* documented max */
  FUZZ_CHECK(zvm_name_format(e, len, NULL, 0) == -1);
  free(want);
}

/* Domain names as the man page lists them, independent of
 * plugin/format/decode.c. */
static const char *const domains[] = {
    "system", "monitor", "scheduler",       "storage", "user",     "processor",
    "i/o",    "seek",    "virtual_network", "isfc",    "appldata", "ssi",
};
#define NDOMAINS (sizeof(domains) / sizeof(domains[0]))

static int expected_domain(const char *s) {
  for (size_t d = 0; d < NDOMAINS; d++)
    if (strcasecmp(s, domains[d]) == 0)
      return (int)d;
  /* one or two decimal digits, value 0-15 */
  size_t n = strlen(s);
  if (n == 0 || n > 2)
    return -1;
  int v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v < ZVM_DOMAIN_COUNT ? v : -1;
}

static void check_domain(const uint8_t *bytes, size_t len, uint8_t number) {
  char *s = malloc(len + 1); /* exact: the string and its NUL */
  FUZZ_CHECK(s != NULL);
  memcpy(s, bytes, len);
  s[len] = '\0';
  int d = zvm_domain_from_name(s);
  FUZZ_CHECK(d == expected_domain(s));
  FUZZ_CHECK(d >= -1 && d < ZVM_DOMAIN_COUNT);
  free(s);

  const char *name = zvm_domain_name(number);
  FUZZ_CHECK((name != NULL) == (number < NDOMAINS));
  if (name != NULL) {
    FUZZ_CHECK(strcmp(name, domains[number]) == 0);
    FUZZ_CHECK(zvm_domain_from_name(name) == number);
  }
}

/* CPU type codes (USEITE_VMDPUTYP, PRCSMT_CAL_CPUTYPE) as the man page names
 * them. */
static void check_cpu_type(uint8_t type) {
  static const char *const names[] = {"cp", NULL, "zaap", "ifl", "icf", "ziip"};
  const char *want = type < 6 ? names[type] : NULL;
  const char *got = zvm_cpu_type_name(type);
  FUZZ_CHECK(want == NULL ? got == NULL
                          : got != NULL && strcmp(got, want) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  size_t len = size - 1;
  uint8_t *name = fuzz_dup(data + 1, len);
  check_name_format(name, len, data[0]);
  check_domain(name, len, data[0]);
  check_cpu_type(data[0]);
  free(name);
  return 0;
}
