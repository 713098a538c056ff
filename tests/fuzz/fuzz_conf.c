/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target "conf": the plugin's options (plugin/config/conf.c) as collectd
 * hands them over, in any order, kind and value, then the checks between
 * options and the selections they configure.
 *
 * Input: up to 64 options, each an op byte -- low 5 bits: the option (0-21
 * the documented ones in the man page's order; 22-31: a key of its own,
 * length byte and bytes, so unknown and odd names too), bits 5-6: the value
 * kind (0 and 3 string, 1 number, 2 boolean), bit 7: the key in lower
 * case -- then its value: a string (length byte and bytes), a number (8
 * bytes taken as a double: NaN, infinities and fractions included) or a
 * boolean (one byte).
 *
 * Invariants: a setter returns 0, or -1 with a non-empty one-line reason
 * inside err; the same for zvm_conf_check(); the selections answer for
 * any user ID and value name; nothing leaks (the configuration is freed).
 */
#include "fuzz.h"

#include "conf_options.h" /* tests/unit/support/: the options by name, as collectd.conf gives them */
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/conf.h"

#include <ctype.h>
#include <stdbool.h>

static const char *const keys[] = {
    "Device",           "Domain",          "UserID",
    "IgnoreSelected",   "GuestsAsHosts",   "ReportReaderStats",
    "MaxSetSize",       "MaxQueueSize",    "UserField",
    "OneValuePerList",  "CombinedUserValues", "NotifyLogon",
    "NotifyLogoff",     "NotifyMultithreading", "NotifyOverflow",
    "NotifyDiscard",    "NotifyDevice",    "LeapSecondOffset",
    "ReportByVirtualCPU", "ApplDataKinds", "ApplDataNaming",
    "Records",
};

struct in {
  const uint8_t *p;
  size_t left;
};

static bool take(struct in *in, void *out, size_t n) {
  if (in->left < n)
    return false;
  memcpy(out, in->p, n);
  in->p += n;
  in->left -= n;
  return true;
}

/* A length byte and that many bytes, as an exact-size NUL-terminated copy. */
static char *take_text(struct in *in) {
  uint8_t n = 0;
  if (!take(in, &n, 1) || in->left < n)
    return NULL;
  char *s = calloc((size_t)n + 1, 1);
  FUZZ_CHECK(s != NULL);
  memcpy(s, in->p, n);
  in->p += n;
  in->left -= n;
  return s;
}

static void check_err(int status, const char *err, size_t size) {
  FUZZ_CHECK(status == 0 || status == -1);
  if (status == 0)
    return;
  size_t n = strnlen(err, size);
  FUZZ_CHECK(n > 0 && n < size);
  FUZZ_CHECK(strchr(err, '\n') == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct zvm_conf c;
  FUZZ_CHECK(zvm_conf_init(&c, zvm_registry_builtin()) == 0);
  struct in in = {data, size};
  uint8_t op;
  for (int i = 0; i < 64 && take(&in, &op, 1); i++) {
    unsigned k = op & 31;
    char *key;
    if (k < sizeof(keys) / sizeof(keys[0])) {
      key = strdup(keys[k]);
      FUZZ_CHECK(key != NULL);
    } else if ((key = take_text(&in)) == NULL) {
      break;
    }
    if (op & 0x80)
      for (char *s = key; *s != '\0'; s++)
        *s = (char)tolower((unsigned char)*s);
    char err[256];
    memset(err, 0, sizeof(err));
    int status = 0;
    switch ((op >> 5) & 3) {
    case 1: {
      double v;
      if (!take(&in, &v, sizeof(v))) {
        free(key);
        goto done;
      }
      status = zvm_conf_set_number(&c, key, v, err, sizeof(err));
      break;
    }
    case 2: {
      uint8_t b;
      if (!take(&in, &b, 1)) {
        free(key);
        goto done;
      }
      status = zvm_conf_set_boolean(&c, key, b & 1, err, sizeof(err));
      break;
    }
    default: {
      char *v = take_text(&in);
      if (v == NULL) {
        free(key);
        goto done;
      }
      status = zvm_conf_set_string(&c, key, v, err, sizeof(err));
      free(v);
      break;
    }
    }
    check_err(status, err, sizeof(err));
    free(key);
  }
done:;
  char err[256];
  memset(err, 0, sizeof(err));
  check_err(zvm_conf_check(&c, err, sizeof(err)), err, sizeof(err));
  static const char *const users[] = {"LINUX01", "TCPIP", "", "LIN%40X",
                                      "lnxweb1"};
  for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++)
    (void)zvm_conf_user_selected(&c, users[i]);
  static const char *const values[] = {"transactions", "hfcpurn", "vmdcprmd",
                                       "vmdcprmd_q3", "VMDSLCNT", "", "x"};
  for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
    (void)zvm_conf_userfield_selected(&c, values[i], NULL);
    (void)zvm_conf_userfield_selected(&c, values[i], "vmdcprmd");
  }
  zvm_conf_free(&c);
  return 0;
}
