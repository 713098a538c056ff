/* SPDX-License-Identifier: MIT */
/*
 * hypfs - configuration values: the option table (base/option.h) and its
 * handlers; the selection of guests and partitions is the base's name
 * selector (base/select.h), as zvm_monitor's UserID.
 */
#include "hypfs/core.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int hypfs_conf_init(struct hypfs_conf *c) {
  memset(c, 0, sizeof(*c));
  zvm_select_init(&c->userids, false, ZVM_SELECT_CASELESS, "name");
  zvm_select_init(&c->partitions, false, ZVM_SELECT_CASELESS, "name");
  c->debugfs_dir = strdup(HYPFS_DEFAULT_DEBUGFS_DIR);
  c->tree_dir = strdup(HYPFS_DEFAULT_TREE_DIR);
  c->report_reader_stats = true;
  if (c->debugfs_dir == NULL || c->tree_dir == NULL) {
    hypfs_conf_free(c);
    return -1;
  }
  return 0;
}

void hypfs_conf_free(struct hypfs_conf *c) {
  free(c->debugfs_dir);
  free(c->tree_dir);
  zvm_select_free(&c->userids);
  zvm_select_free(&c->partitions);
  memset(c, 0, sizeof(*c));
}

/* DebugfsPath, HypfsPath: an absolute path (a char * member at o->arg),
 * trailing slashes dropped. */
static int opt_path(void *t, const struct zvm_option *o,
                    const struct zvm_option_value *v, char *err,
                    size_t err_size) {
  char **dst = (char **)((char *)t + o->arg);
  if (v->string[0] != '/')
    return zvm_format_error(err, err_size, "%s \"%s\": needs an absolute path",
                            o->key, v->string);
  char *s = strdup(v->string);
  if (s == NULL)
    return zvm_format_error(err, err_size, "%s: out of memory", o->key);
  size_t n = strlen(s);
  while (n > 1 && s[n - 1] == '/')
    s[--n] = '\0';
  free(*dst);
  *dst = s;
  return 0;
}

/* Source: the index of its word is the enum hypfs_source. */
static const char *const source_names[] = {
    [HYPFS_SOURCE_AUTO] = "auto",
    [HYPFS_SOURCE_DEBUGFS] = "debugfs",
    [HYPFS_SOURCE_TREE] = "hypfs",
};
static const struct zvm_option_rule source_rule = {
    ZVM_OPTION_WORDS(source_names),
    .size = ZVM_OPTION_SIZE(struct hypfs_conf, source)};

/* IgnoreSelected inverts both selections. */
static int opt_ignore_selected(void *t, const struct zvm_option *o,
                               const struct zvm_option_value *v, char *err,
                               size_t err_size) {
  (void)o;
  (void)err;
  (void)err_size;
  struct hypfs_conf *c = t;
  zvm_select_invert(&c->userids, v->boolean);
  zvm_select_invert(&c->partitions, v->boolean);
  return 0;
}

#define MEMBER(m) offsetof(struct hypfs_conf, m)
#define FLAG(m) ZVM_OPTION_BOOLEAN, zvm_option_set_flag, MEMBER(m), NULL
#define SELECT(m) ZVM_OPTION_STRING, zvm_option_add_select, MEMBER(m), NULL

static const struct zvm_option options[] = {
    {"DebugfsPath", ZVM_OPTION_STRING, opt_path, MEMBER(debugfs_dir), NULL},
    {"HypfsPath", ZVM_OPTION_STRING, opt_path, MEMBER(tree_dir), NULL},
    {"Source", ZVM_OPTION_STRING, zvm_option_set_rule, MEMBER(source),
     &source_rule},
    {"UserID", SELECT(userids)},
    {"Partition", SELECT(partitions)},
    {"IgnoreSelected", ZVM_OPTION_BOOLEAN, opt_ignore_selected, 0, NULL},
    {"GuestsAsHosts", FLAG(guests_as_hosts)},
    {"ReportReaderStats", FLAG(report_reader_stats)},
    {"OneValuePerList", FLAG(one_value_per_list)},
};

const struct zvm_option *hypfs_conf_options(size_t *n) {
  *n = sizeof(options) / sizeof(options[0]);
  return options;
}

int hypfs_conf_set(struct hypfs_conf *c, const char *key,
                   const struct zvm_option_value *v, char *err,
                   size_t err_size) {
  return zvm_option_apply(options, sizeof(options) / sizeof(options[0]), c, key,
                          v, HYPFS_UNKNOWN_OPTION_HINT, err, err_size);
}
