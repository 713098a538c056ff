/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the name selector (select.h).
 */
#include "base/select.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void zvm_select_init(struct zvm_select *s, bool invert, unsigned flags,
                     const char *noun) {
  *s = (struct zvm_select){.invert = invert, .flags = flags, .noun = noun};
}

static void rule_free(struct zvm_select_rule *r) {
  if (r->is_regex)
    regfree(&r->re);
  free(r->text);
}

void zvm_select_free(struct zvm_select *s) {
  for (size_t i = 0; i < s->num; i++)
    rule_free(&s->rules[i]);
  free(s->rules);
  s->rules = NULL;
  s->num = s->cap = 0;
}

void zvm_select_invert(struct zvm_select *s, bool invert) {
  s->invert = invert;
}

/* A "/regex/" entry into r. */
static int regex_rule(struct zvm_select_rule *r, const char *option,
                      const char *entry, size_t len, char *err,
                      size_t err_size) {
  r->is_regex = true;
  r->text = strndup(entry + 1, len - 2);
  if (r->text == NULL)
    return zvm_format_error(err, err_size, "%s: out of memory", option);
  /* An empty POSIX regular expression is undefined (glibc matches all). */
  if (r->text[0] == '\0') {
    free(r->text);
    return zvm_format_error(
        err, err_size, "%s \"%s\": empty regular expression", option, entry);
  }
  int status = regcomp(&r->re, r->text, REG_EXTENDED | REG_NOSUB);
  if (status != 0) {
    char msg[256];
    regerror(status, &r->re, msg, sizeof(msg));
    free(r->text);
    return zvm_format_error(err, err_size,
                            "%s \"%s\": bad regular expression: %s", option,
                            entry, msg);
  }
  return 0;
}

int zvm_select_add(struct zvm_select *s, const char *option, const char *entry,
                   char *err, size_t err_size) {
  const char *noun = s->noun != NULL ? s->noun : "name";
  size_t len = strlen(entry);
  struct zvm_select_rule r = {0};
  if (len >= 2 && entry[0] == '/' && entry[len - 1] == '/') {
    if (regex_rule(&r, option, entry, len, err, err_size) != 0)
      return -1;
  } else {
    if (s->flags & ZVM_SELECT_CASELESS)
      while (len > 0 && entry[len - 1] == ' ')
        len--;
    if (len == 0)
      return zvm_format_error(err, err_size,
                              "%s \"%s\": empty %s (use an exact %s "
                              "or /regex/)",
                              option, entry, noun, noun);
    r.text = strndup(entry, len);
    if (r.text == NULL)
      return zvm_format_error(err, err_size, "%s: out of memory", option);
  }
  if (!zvm_grow(&s->rules, &s->cap, s->num, sizeof(*s->rules), 4)) {
    rule_free(&r);
    return zvm_format_error(err, err_size, "%s: out of memory", option);
  }
  s->rules[s->num++] = r;
  return 0;
}

static bool rule_matches(const struct zvm_select *s,
                         const struct zvm_select_rule *r, const char *name) {
  if (r->is_regex)
    return regexec(&r->re, name, 0, NULL, 0) == 0;
  return s->flags & ZVM_SELECT_CASELESS ? strcasecmp(r->text, name) == 0
                                        : strcmp(r->text, name) == 0;
}

bool zvm_select_match(const struct zvm_select *s, const char *name) {
  if (s->num == 0)
    return true;
  bool match = false;
  for (size_t i = 0; i < s->num && !match; i++)
    match = rule_matches(s, &s->rules[i], name);
  return match != s->invert;
}
