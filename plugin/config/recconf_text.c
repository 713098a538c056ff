/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - collectd.conf text -> zvm_recconf builder (see the header).
 */
#include "zvm_monitor/recconf_text.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_TOKEN 256
#define MAX_DEPTH 3 /* <Record>, <Array> in it, <Field> in either */

enum value_type { V_NONE, V_STRING, V_NUMBER, V_BOOLEAN };

struct value {
  enum value_type type;
  char text[MAX_TOKEN];
  double number;
  bool boolean;
};

struct parser {
  const char *p, *end;
  unsigned line;
  char *err;
  size_t err_size;
};

__attribute__((format(printf, 2, 3))) static int perr(struct parser *ps,
                                                      const char *fmt, ...) {
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  snprintf(ps->err, ps->err_size, "line %u: %s", ps->line, msg);
  return -1;
}

static void skip_blanks(struct parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r'))
    ps->p++;
}

/* A bare word: letters, digits, and the characters of numbers. */
static size_t word(struct parser *ps, char *out) {
  size_t n = 0;
  while (ps->p < ps->end && n + 1 < MAX_TOKEN &&
         (isalnum((unsigned char)*ps->p) || strchr("_.+-/", *ps->p)))
    out[n++] = *ps->p++;
  out[n] = '\0';
  return n;
}

static int quoted(struct parser *ps, char *out) {
  size_t n = 0;
  ps->p++; /* opening quote */
  while (ps->p < ps->end && *ps->p != '"') {
    if (*ps->p == '\n' || *ps->p == '\0')
      return perr(ps, "unterminated string");
    if (*ps->p == '\\' && ps->p + 1 < ps->end)
      ps->p++;
    if (n + 1 >= MAX_TOKEN)
      return perr(ps, "string too long");
    out[n++] = *ps->p++;
  }
  if (ps->p >= ps->end)
    return perr(ps, "unterminated string");
  ps->p++;
  out[n] = '\0';
  return 0;
}

static int value(struct parser *ps, struct value *v) {
  skip_blanks(ps);
  v->type = V_NONE;
  if (ps->p >= ps->end)
    return 0;
  if (*ps->p == '"') {
    v->type = V_STRING;
    return quoted(ps, v->text);
  }
  if (word(ps, v->text) == 0)
    return 0;
  if (strcasecmp(v->text, "true") == 0 || strcasecmp(v->text, "false") == 0) {
    v->type = V_BOOLEAN;
    v->boolean = strcasecmp(v->text, "true") == 0;
    return 0;
  }
  char *e;
  v->number = strtod(v->text, &e);
  if (*e != '\0')
    return perr(ps, "\"%s\" is not a number, true/false or a quoted string",
                v->text);
  v->type = V_NUMBER;
  return 0;
}

/* Rest of the line must be blank or a comment. */
static int line_end(struct parser *ps) {
  skip_blanks(ps);
  if (ps->p < ps->end && *ps->p == '#')
    while (ps->p < ps->end && *ps->p != '\n')
      ps->p++;
  if (ps->p < ps->end && *ps->p != '\n')
    return perr(ps, "one value per option");
  return 0;
}

static int apply(struct parser *ps, struct zvm_recconf *rc, const char *key,
                 const struct value *v) {
  const struct zvm_option *o = zvm_recconf_option(rc, key);
  struct zvm_option_value ov = {.type = ZVM_OPTION_STRING, .string = ""};
  if (o == NULL) /* the builder words unknown options */
    return zvm_recconf_set(rc, key, &ov, ps->err, ps->err_size);
  if (o->kind == ZVM_OPTION_BLOCK)
    return perr(ps, "%s is a block: <%s \"name\">", key, key);
  if (v->type == V_STRING)
    ov.string = v->text;
  else if (v->type == V_NUMBER)
    ov = (struct zvm_option_value){.type = ZVM_OPTION_NUMBER,
                                   .number = v->number};
  else if (v->type == V_BOOLEAN)
    ov = (struct zvm_option_value){.type = ZVM_OPTION_BOOLEAN,
                                   .boolean = v->boolean};
  if (v->type == V_NONE || ov.type != o->kind)
    return perr(ps, "%s: exactly one %s value is required", key,
                zvm_option_kind_name(o->kind));
  return zvm_recconf_set(rc, key, &ov, ps->err, ps->err_size);
}

int zvm_recconf_parse_text(struct zvm_recconf *rc, const char *text, size_t len,
                           char *err, size_t err_size) {
  struct parser ps = {text, text + len, 1, err, err_size};
  char stack[MAX_DEPTH][MAX_TOKEN];
  int depth = 0;

  while (ps.p < ps.end) {
    skip_blanks(&ps);
    if (ps.p >= ps.end)
      break;
    char c = *ps.p;
    if (c == '\n') {
      ps.p++;
      ps.line++;
      continue;
    }
    if (c == '#') {
      if (line_end(&ps) != 0)
        return -1;
      continue;
    }
    char key[MAX_TOKEN];
    struct value v;
    if (c == '<') {
      ps.p++;
      bool closing = ps.p < ps.end && *ps.p == '/';
      if (closing)
        ps.p++;
      if (word(&ps, key) == 0)
        return perr(&ps, "block name expected after '<'");
      if (!closing && value(&ps, &v) != 0)
        return -1;
      skip_blanks(&ps);
      if (ps.p >= ps.end || *ps.p != '>')
        return perr(&ps, "'>' expected");
      ps.p++;
      if (line_end(&ps) != 0)
        return -1;
      if (closing) {
        if (depth == 0 || strcasecmp(stack[depth - 1], key) != 0)
          return perr(&ps, "</%s> closes no open block", key);
        depth--;
        int rv = depth == 0 ? zvm_recconf_record_end(rc, err, err_size)
                            : zvm_recconf_block_end(rc, err, err_size);
        if (rv != 0)
          return -1;
        continue;
      }
      if (v.type != V_STRING)
        return perr(&ps, "<%s> needs one quoted argument", key);
      if (depth == 0 && strcasecmp(key, "Record") == 0) {
        if (zvm_recconf_record_begin(rc, v.text, err, err_size) != 0)
          return -1;
      } else if (depth > 0 && depth < MAX_DEPTH &&
                 zvm_recconf_option(rc, key) != NULL &&
                 zvm_recconf_option(rc, key)->kind == ZVM_OPTION_BLOCK) {
        if (zvm_recconf_block_begin(rc, key, v.text, err, err_size) != 0)
          return -1;
      } else {
        return perr(&ps, "block <%s> not allowed here", key);
      }
      snprintf(stack[depth++], MAX_TOKEN, "%s", key);
      continue;
    }
    if (word(&ps, key) == 0)
      return perr(&ps, "option name expected");
    if (value(&ps, &v) != 0 || line_end(&ps) != 0)
      return -1;
    if (depth == 0)
      return perr(&ps, "option %s outside a <Record> block", key);
    if (apply(&ps, rc, key, &v) != 0)
      return -1;
  }
  if (depth != 0)
    return perr(&ps, "<%s> is not closed", stack[depth - 1]);
  return 0;
}
