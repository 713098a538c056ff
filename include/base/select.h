/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the name selector every plugin's "exact name or /regex/"
 * options use (zvm_monitor's UserID, hypfs's UserID and Partition,
 * dmstats's Device), modelled on collectd's ignorelist
 * (src/utils/ignorelist/ignorelist.c): created with an invert flag,
 * entries added as an exact name or a POSIX extended regular expression
 * written "/regex/", a name matched against them. collectd does not export
 * its ignorelist to plugins (those that use it link it statically), so the
 * plugins share this one.
 *
 * A selector without entries selects every name; with entries, a name
 * matching any of them, or with invert (IgnoreSelected true) every name
 * matching none.
 */
#ifndef ZVM_BASE_SELECT_H
#define ZVM_BASE_SELECT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

/* Exact entries are compared case-insensitively and an entry's trailing
 * blanks are ignored (z/VM user IDs and partition names: upper case,
 * blank-padded). Without it an exact entry is compared byte for byte, as
 * collectd's ignorelist does (device-mapper names). */
#define ZVM_SELECT_CASELESS 1u

struct zvm_select_rule {
  char *text; /* as configured (a regex without its slashes) */
  bool is_regex;
  regex_t re; /* valid only if is_regex */
};

struct zvm_select {
  struct zvm_select_rule *rules;
  size_t num, cap;
  bool invert;      /* IgnoreSelected: the entries name what is left out */
  unsigned flags;   /* ZVM_SELECT_* */
  const char *noun; /* what an entry names, for errors: "user ID" */
};

/* An empty selector (it selects everything). noun: what an entry names
 * ("user ID", "name"), a static string. */
void zvm_select_init(struct zvm_select *s, bool invert, unsigned flags,
                     const char *noun);
void zvm_select_free(struct zvm_select *s);

/* IgnoreSelected: invert the selection (it applies to the entries given
 * before and after it). */
void zvm_select_invert(struct zvm_select *s, bool invert);

/* Add an entry: "/regex/" or an exact name. 0, or -1 with a one-line reason
 * naming option (the configuration's key) in err; s is then as it was. */
int zvm_select_add(struct zvm_select *s, const char *option, const char *entry,
                   char *err, size_t err_size);

/* Whether name is selected. */
bool zvm_select_match(const struct zvm_select *s, const char *name);

#endif /* ZVM_BASE_SELECT_H */
