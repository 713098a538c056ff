/* SPDX-License-Identifier: MIT */
/*
 * hypfs - configuration values and name selection (zvm_monitor's UserID
 * semantics: exact names or /regex/, IgnoreSelected inverts).
 */
#include "hypfs/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

__attribute__((format(printf, 3, 4))) static int
fail(char *err, size_t err_size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, err_size, fmt, ap);
  va_end(ap);
  return -1;
}

int hypfs_conf_init(struct hypfs_conf *c) {
  memset(c, 0, sizeof(*c));
  c->debugfs_dir = strdup(HYPFS_DEFAULT_DEBUGFS_DIR);
  c->tree_dir = strdup(HYPFS_DEFAULT_TREE_DIR);
  c->report_reader_stats = true;
  if (c->debugfs_dir == NULL || c->tree_dir == NULL) {
    hypfs_conf_free(c);
    return -1;
  }
  return 0;
}

static void rules_free(struct hypfs_rules *r) {
  for (size_t i = 0; i < r->num; i++) {
    if (r->rules[i].is_regex)
      regfree(&r->rules[i].re);
    free(r->rules[i].text);
  }
  free(r->rules);
  r->rules = NULL;
  r->num = 0;
}

void hypfs_conf_free(struct hypfs_conf *c) {
  free(c->debugfs_dir);
  free(c->tree_dir);
  rules_free(&c->userids);
  rules_free(&c->partitions);
  memset(c, 0, sizeof(*c));
}

static int rules_add(struct hypfs_rules *r, const char *key, const char *value,
                     char *err, size_t err_size) {
  size_t len = strlen(value);
  struct hypfs_rule rule = {0};
  if (len >= 2 && value[0] == '/' && value[len - 1] == '/') {
    rule.is_regex = true;
    rule.text = strndup(value + 1, len - 2);
    if (rule.text == NULL)
      return fail(err, err_size, "%s: out of memory", key);
    if (rule.text[0] == '\0') {
      free(rule.text);
      return fail(err, err_size, "%s \"%s\": empty regular expression", key,
                  value);
    }
    int status = regcomp(&rule.re, rule.text, REG_EXTENDED | REG_NOSUB);
    if (status != 0) {
      char msg[256];
      regerror(status, &rule.re, msg, sizeof(msg));
      free(rule.text);
      return fail(err, err_size, "%s \"%s\": bad regular expression: %s", key,
                  value, msg);
    }
  } else {
    while (len > 0 && value[len - 1] == ' ')
      len--;
    if (len == 0)
      return fail(err, err_size,
                  "%s \"%s\": empty name (use an exact name or /regex/)", key,
                  value);
    rule.text = strndup(value, len);
    if (rule.text == NULL)
      return fail(err, err_size, "%s: out of memory", key);
  }
  struct hypfs_rule *tmp = realloc(r->rules, (r->num + 1) * sizeof(*tmp));
  if (tmp == NULL) {
    if (rule.is_regex)
      regfree(&rule.re);
    free(rule.text);
    return fail(err, err_size, "%s: out of memory", key);
  }
  r->rules = tmp;
  r->rules[r->num++] = rule;
  return 0;
}

static int set_path(char **dst, const char *key, const char *value, char *err,
                    size_t err_size) {
  if (value[0] != '/')
    return fail(err, err_size, "%s \"%s\": needs an absolute path", key, value);
  char *s = strdup(value);
  if (s == NULL)
    return fail(err, err_size, "%s: out of memory", key);
  size_t n = strlen(s);
  while (n > 1 && s[n - 1] == '/')
    s[--n] = '\0';
  free(*dst);
  *dst = s;
  return 0;
}

int hypfs_conf_option_kind(const char *key) {
  static const char *strings[] = {"DebugfsPath", "HypfsPath", "Source",
                                  "UserID", "Partition"};
  static const char *booleans[] = {"IgnoreSelected", "GuestsAsHosts",
                                   "ReportReaderStats", "OneValuePerList"};
  for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
    if (strcasecmp(key, strings[i]) == 0)
      return 1;
  for (size_t i = 0; i < sizeof(booleans) / sizeof(booleans[0]); i++)
    if (strcasecmp(key, booleans[i]) == 0)
      return 2;
  return 0;
}

int hypfs_conf_set_string(struct hypfs_conf *c, const char *key,
                          const char *value, char *err, size_t err_size) {
  if (strcasecmp(key, "DebugfsPath") == 0)
    return set_path(&c->debugfs_dir, "DebugfsPath", value, err, err_size);
  if (strcasecmp(key, "HypfsPath") == 0)
    return set_path(&c->tree_dir, "HypfsPath", value, err, err_size);
  if (strcasecmp(key, "Source") == 0) {
    if (strcasecmp(value, "auto") == 0)
      c->source = HYPFS_SOURCE_AUTO;
    else if (strcasecmp(value, "debugfs") == 0)
      c->source = HYPFS_SOURCE_DEBUGFS;
    else if (strcasecmp(value, "hypfs") == 0)
      c->source = HYPFS_SOURCE_TREE;
    else
      return fail(err, err_size,
                  "Source \"%s\": use \"auto\", \"debugfs\" or \"hypfs\"",
                  value);
    return 0;
  }
  if (strcasecmp(key, "UserID") == 0)
    return rules_add(&c->userids, "UserID", value, err, err_size);
  if (strcasecmp(key, "Partition") == 0)
    return rules_add(&c->partitions, "Partition", value, err, err_size);
  return fail(err, err_size,
              "unknown option \"%s\" (see collectd-hypfs(5) for the options)",
              key);
}

int hypfs_conf_set_boolean(struct hypfs_conf *c, const char *key, bool value,
                           char *err, size_t err_size) {
  if (strcasecmp(key, "IgnoreSelected") == 0)
    c->ignore_selected = value;
  else if (strcasecmp(key, "GuestsAsHosts") == 0)
    c->guests_as_hosts = value;
  else if (strcasecmp(key, "ReportReaderStats") == 0)
    c->report_reader_stats = value;
  else if (strcasecmp(key, "OneValuePerList") == 0)
    c->one_value_per_list = value;
  else
    return fail(err, err_size,
                "unknown option \"%s\" (see collectd-hypfs(5) for the "
                "options)",
                key);
  return 0;
}

bool hypfs_rules_selected(const struct hypfs_rules *r, bool ignore_selected,
                          const char *name) {
  if (r->num == 0)
    return true;
  bool match = false;
  for (size_t i = 0; i < r->num && !match; i++) {
    const struct hypfs_rule *rule = &r->rules[i];
    match = rule->is_regex ? regexec(&rule->re, name, 0, NULL, 0) == 0
                           : strcasecmp(rule->text, name) == 0;
  }
  return ignore_selected ? !match : match;
}
