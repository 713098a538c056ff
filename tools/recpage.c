/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - IBM's monitor-record pages: parser (see recpage.h).
 *
 * What a page holds (IBM's z/VM monitor record pages, e.g. z/VM V6R2
 * MRUSEITE, www.vm.ibm.com/pubs/mon620/MRUSEITE.HTML, and z/VM V6R4
 * MRPRCSMT, www.vm.ibm.com/pubs/mon640/MRPRCSMT.HTML):
 *
 *   - a prolog: "DSECT NAME - USEITE", "NAME - MRUSEITE", "Domain 4 - User
 *     Domain", "Record 10 - User Interaction at Transaction End", a
 *     description and notes (e.g. "Fields labeled by the prefix,
 *     'USEITE_HF', are high-frequency counters");
 *   - the control block contents: a header "Offsets Dec Hex Type Len Name
 *     (Dim) Description", then one row per field, "116 74 Unsigned 4
 *     USEITE_HFCPURN Number of times ...", the description continuing over
 *     the following lines; bit rows "1... .... USEITE_CALBASE ..." under a
 *     flag field; reserved fields named "*"; a second header and table for
 *     the entry of a variable array (offsets relative to the entry);
 *   - a cross reference "Name Hex-Offset Length Hex-Value" per field and
 *     per named bit;
 *   - "This information is based on z/VM V6R2.0."
 *
 * Copies differ: aligned columns, rows flattened to single blanks, several
 * rows run together on one line, '|' cell borders, HTML with <pre> or with
 * tables. So the page becomes a stream of words (HTML tags and entities
 * resolved, each word remembering its line), and rows are found by their
 * anchor "DEC HEX TYPE LEN NAME": DEC and HEX must agree.
 */
#include "recpage.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Bounds on what a page may hold (IBM's largest records have a few
 * hundred rows): beyond them the input is not a page. */
#define MAX_FIELDS 2048
#define MAX_BITS 32
#define MAX_XREF 4096
#define MAX_TABLES 16
#define MAX_DESC 4000
#define MAX_OFFSET 65535

int rp_error(char *err, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (size > 0)
    vsnprintf(err, size, fmt, ap);
  va_end(ap);
  return -1;
}
#define fail rp_error

static bool grow(void *arr, size_t *cap, size_t n, size_t size) {
  if (n < *cap)
    return true;
  size_t ncap = *cap ? *cap * 2 : 16;
  void *p = realloc(*(void **)arr, ncap * size);
  if (p == NULL)
    return false;
  *(void **)arr = p;
  *cap = ncap;
  return true;
}

/* ------------------------------------------------------------------------
 * The page as text: HTML resolved, '|' borders blanked; each character
 * with the page's line it came from.
 */
struct norm {
  char *s;
  unsigned *line;
  size_t len, cap;
  bool oom;
};

static void put(struct norm *n, char c, unsigned line) {
  if (n->oom)
    return;
  if (n->len + 1 >= n->cap) {
    size_t cap = n->cap ? n->cap * 2 : 4096;
    char *s = realloc(n->s, cap);
    if (s == NULL) {
      n->oom = true;
      return;
    }
    n->s = s;
    unsigned *l = realloc(n->line, cap * sizeof(*l));
    if (l == NULL) {
      n->oom = true;
      return;
    }
    n->line = l;
    n->cap = cap;
  }
  n->s[n->len] = c;
  n->line[n->len] = line;
  n->len++;
}

static bool looks_html(const char *t, size_t len) {
  static const char *const marks[] = {"<html", "<pre", "<table", "<td",
                                      "<p>",   "<br",  "<body",  "<!doctype"};
  size_t look = len < 4096 ? len : 4096;
  for (size_t i = 0; i < look; i++) {
    if (t[i] != '<')
      continue;
    for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++) {
      size_t ml = strlen(marks[m]);
      if (i + ml <= len && strncasecmp(t + i, marks[m], ml) == 0)
        return true;
    }
  }
  return false;
}

/* Tags that end a line of text (block elements); td/th separate words. */
static bool block_tag(const char *name) {
  static const char *const tags[] = {
      "br",    "p",     "div",  "tr",   "h1",     "h2",    "h3",
      "h4",    "h5",    "h6",   "li",   "ul",     "ol",    "hr",
      "table", "title", "dt",   "dd",   "thead",  "tbody", "caption",
      "pre",   "body",  "head", "html", "section"};
  for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
    if (strcasecmp(name, tags[i]) == 0)
      return true;
  return false;
}

/* An entity at t (after '&'): its character, *used its length. */
static char entity(const char *t, size_t left, size_t *used) {
  static const struct {
    const char *name;
    char c;
  } ents[] = {{"amp;", '&'},  {"lt;", '<'},    {"gt;", '>'},
              {"quot;", '"'}, {"apos;", '\''}, {"nbsp;", ' '}};
  for (size_t i = 0; i < sizeof(ents) / sizeof(ents[0]); i++) {
    size_t l = strlen(ents[i].name);
    if (l <= left && strncasecmp(t, ents[i].name, l) == 0) {
      *used = l;
      return ents[i].c;
    }
  }
  if (left >= 3 && t[0] == '#') {
    size_t i = 1;
    unsigned long v = 0;
    bool hex = i < left && (t[i] == 'x' || t[i] == 'X');
    if (hex)
      i++;
    size_t start = i;
    while (i < left && i < start + 6 &&
           (hex ? isxdigit((unsigned char)t[i]) : isdigit((unsigned char)t[i])))
      v = v * (hex ? 16 : 10) +
          (unsigned long)(isdigit((unsigned char)t[i])
                              ? t[i] - '0'
                              : tolower((unsigned char)t[i]) - 'a' + 10),
      i++;
    if (i > start && i < left && t[i] == ';') {
      *used = i + 1;
      return v == 160 ? ' ' : v >= 0x20 && v < 0x7F ? (char)v : '?';
    }
  }
  *used = 0;
  return '&';
}

static void normalise(const char *t, size_t len, struct norm *n) {
  unsigned line = 1;
  bool html = looks_html(t, len);
  int pre = 0;
  for (size_t i = 0; i < len; i++) {
    char c = t[i];
    if (c == '\n') {
      put(n, html && pre == 0 ? ' ' : '\n', line);
      line++;
      continue;
    }
    if (html && c == '<' && i + 1 < len &&
        (isalpha((unsigned char)t[i + 1]) || t[i + 1] == '/' ||
         t[i + 1] == '!')) {
      /* A comment, a tag; script and style skipped whole. */
      if (i + 3 < len && strncmp(t + i, "<!--", 4) == 0) {
        size_t j = i + 4;
        while (j + 2 < len && strncmp(t + j, "-->", 3) != 0)
          line += t[j++] == '\n';
        i = j + 2 < len ? j + 2 : len;
        continue;
      }
      size_t j = i + 1;
      bool closing = t[j] == '/';
      if (closing)
        j++;
      char name[16];
      size_t k = 0;
      while (j < len && isalnum((unsigned char)t[j]) && k + 1 < sizeof(name))
        name[k++] = t[j++];
      name[k] = '\0';
      while (j < len && t[j] != '>')
        line += t[j++] == '\n';
      i = j < len ? j : len;
      bool skip_body = !closing && (strcasecmp(name, "script") == 0 ||
                                    strcasecmp(name, "style") == 0);
      if (skip_body) {
        const char *end =
            strcasecmp(name, "script") == 0 ? "</script" : "</style";
        size_t el = strlen(end);
        size_t m = i + 1;
        while (m + el <= len && strncasecmp(t + m, end, el) != 0)
          line += t[m++] == '\n';
        while (m < len && t[m] != '>')
          line += t[m++] == '\n';
        i = m < len ? m : len;
        continue;
      }
      if (strcasecmp(name, "pre") == 0)
        pre += closing ? (pre > 0 ? -1 : 0) : 1;
      if (block_tag(name))
        put(n, '\n', line);
      else if (strcasecmp(name, "td") == 0 || strcasecmp(name, "th") == 0)
        put(n, ' ', line);
      continue;
    }
    if (html && c == '&') {
      size_t used;
      char e = entity(t + i + 1, len - i - 1, &used);
      put(n, e, line);
      i += used;
      continue;
    }
    if (c == '|' || c == '\t' || c == '\r' || c == '\0' || c == '\f' ||
        c == '\v')
      c = ' ';
    put(n, c, line);
  }
  put(n, '\0', line);
}

/* ------------------------------------------------------------------------
 * Words.
 */
struct tok {
  const char *s;
  unsigned len;
  unsigned line;
};

struct ctx {
  struct tok *t;
  size_t n, cap;
  struct rp_page *pg;
  char *err;
  size_t err_size;
};

static bool tokenise(const struct norm *nm, struct ctx *c) {
  size_t i = 0;
  while (i < nm->len && nm->s[i] != '\0') {
    if (isspace((unsigned char)nm->s[i])) {
      i++;
      continue;
    }
    size_t start = i;
    while (i < nm->len && nm->s[i] != '\0' && !isspace((unsigned char)nm->s[i]))
      i++;
    if (!grow(&c->t, &c->cap, c->n, sizeof(*c->t)))
      return false;
    size_t len = i - start;
    c->t[c->n++] = (struct tok){
        nm->s + start, len > 0xFFFF ? 0xFFFF : (unsigned)len, nm->line[start]};
  }
  return true;
}

static bool is(const struct ctx *c, size_t i, const char *word) {
  return i < c->n && c->t[i].len == strlen(word) &&
         strncmp(c->t[i].s, word, c->t[i].len) == 0;
}

static bool is_ci(const struct ctx *c, size_t i, const char *word) {
  return i < c->n && c->t[i].len == strlen(word) &&
         strncasecmp(c->t[i].s, word, c->t[i].len) == 0;
}

/* Whole token as a number of at most max digits in base 10 or 16. */
static bool number(const struct tok *t, int base, unsigned max, long *v) {
  if (t->len == 0 || t->len > max)
    return false;
  long x = 0;
  for (unsigned i = 0; i < t->len; i++) {
    unsigned char ch = (unsigned char)t->s[i];
    int d = isdigit(ch)                  ? ch - '0'
            : base == 16 && isxdigit(ch) ? tolower(ch) - 'a' + 10
                                         : -1;
    if (d < 0)
      return false;
    x = x * base + d;
  }
  *v = x;
  return true;
}

static const struct {
  const char *name;
  enum rp_type type;
} types[] = {
    {"Structure", RP_STRUCTURE}, {"Character", RP_CHARACTER},
    {"Unsigned", RP_UNSIGNED},   {"Signed", RP_SIGNED},
    {"Bitstring", RP_BITSTRING}, {"Address", RP_ADDRESS},
    {"Area", RP_AREA},           {"Float", RP_FLOAT},
    {"Packed", RP_PACKED},
};

const char *rp_type_name(enum rp_type t) {
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
    if (types[i].type == t)
      return types[i].name;
  return "?";
}

static int type_at(const struct ctx *c, size_t i) {
  for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++)
    if (is_ci(c, i, types[k].name))
      return (int)types[k].type;
  return -1;
}

static bool name_char(unsigned char ch) {
  return isalnum(ch) || ch == '_' || ch == '@' || ch == '#' || ch == '$';
}

/* A bit group: four of '.', '1' (or 'x'). */
static bool bit_group(const struct ctx *c, size_t i) {
  if (i >= c->n || c->t[i].len != 4)
    return false;
  for (unsigned k = 0; k < 4; k++)
    if (strchr(".1xX", c->t[i].s[k]) == NULL)
      return false;
  return true;
}

/* "Dec Hex Type Len": a contents table's header. */
static bool table_header(const struct ctx *c, size_t i) {
  return is(c, i, "Dec") && is(c, i + 1, "Hex") && is(c, i + 2, "Type") &&
         is(c, i + 3, "Len");
}

static bool contents_end(const struct ctx *c, size_t i) {
  return (is(c, i, "Cross") && is(c, i + 1, "Reference")) ||
         (is(c, i, "This") && is(c, i + 1, "information") &&
          is(c, i + 2, "is")) ||
         (is(c, i, "Last") && is(c, i + 1, "updated"));
}

static void append_desc(char **desc, const struct tok *t) {
  size_t have = *desc != NULL ? strlen(*desc) : 0;
  if (have + t->len + 2 > MAX_DESC)
    return;
  char *p = realloc(*desc, have + t->len + 2);
  if (p == NULL)
    return;
  if (have > 0)
    p[have++] = ' ';
  memcpy(p + have, t->s, t->len);
  p[have + t->len] = '\0';
  *desc = p;
}

/* A name token (possibly with "(dim)" attached) into out; dim or 1. */
static int row_name(struct ctx *c, size_t *i, char *out, unsigned *dim) {
  const struct tok *t = &c->t[*i];
  unsigned len = t->len;
  *dim = 1;
  const char *paren = memchr(t->s, '(', len);
  unsigned nlen = paren != NULL ? (unsigned)(paren - t->s) : len;
  bool ok = nlen > 0 && nlen < RP_NAME_MAX;
  if (ok && !(nlen == 1 && t->s[0] == '*')) {
    ok = isalpha((unsigned char)t->s[0]) || strchr("@#$", t->s[0]) != NULL;
    for (unsigned k = 0; ok && k < nlen; k++)
      ok = name_char((unsigned char)t->s[k]);
  }
  if (!ok)
    return fail(c->err, c->err_size,
                "line %u: '%.*s' where a row's name belongs (a name of "
                "letters, digits, _ @ # $, or * for a reserved field)",
                t->line, (int)(len > 40 ? 40 : len), t->s);
  memcpy(out, t->s, nlen);
  out[nlen] = '\0';
  const char *d = paren;
  unsigned dlen = paren != NULL ? len - nlen : 0;
  if (paren == NULL && *i + 1 < c->n && c->t[*i + 1].len >= 3 &&
      c->t[*i + 1].s[0] == '(' && c->t[*i + 1].s[c->t[*i + 1].len - 1] == ')') {
    /* "NAME (4)" */
    struct tok in = {c->t[*i + 1].s + 1, c->t[*i + 1].len - 2, 0};
    long v;
    if (number(&in, 10, 5, &v)) {
      d = c->t[*i + 1].s;
      dlen = c->t[*i + 1].len;
      (*i)++;
    }
  }
  if (d != NULL) {
    struct tok in = {d + 1, dlen >= 2 ? dlen - 2 : 0, 0};
    long v;
    if (dlen < 3 || d[dlen - 1] != ')' || !number(&in, 10, 5, &v) || v < 1 ||
        v > 4096)
      return fail(c->err, c->err_size,
                  "line %u: %s: dimension '%.*s' is not (N) with N 1-4096",
                  t->line, out, (int)(dlen > 20 ? 20 : dlen), d);
    *dim = (unsigned)v;
  }
  return 0;
}

/* ------------------------------------------------------------------------
 * The prolog.
 */
static void copy_tok(char *out, size_t size, const struct tok *t) {
  size_t n = t->len < size - 1 ? t->len : size - 1;
  memcpy(out, t->s, n);
  out[n] = '\0';
}

/* Lower-case letters of token i, punctuation stripped, equals word. */
static bool word_is(const struct ctx *c, size_t i, const char *word) {
  if (i >= c->n)
    return false;
  const struct tok *t = &c->t[i];
  size_t k = 0, w = 0;
  while (k < t->len && !isalnum((unsigned char)t->s[k]))
    k++;
  for (; k < t->len && isalnum((unsigned char)t->s[k]); k++, w++)
    if (word[w] == '\0' || tolower((unsigned char)t->s[k]) != word[w])
      return false;
  return word[w] == '\0' && w > 0;
}

static void prolog(struct ctx *c, size_t end) {
  struct rp_page *pg = c->pg;
  long v;
  for (size_t i = 0; i < end; i++) {
    const struct tok *t = &c->t[i];
    if (is(c, i, "DSECT") && is(c, i + 1, "NAME") && is(c, i + 2, "-") &&
        i + 3 < end && pg->dsect[0] == '\0')
      copy_tok(pg->dsect, sizeof(pg->dsect), &c->t[i + 3]);
    if (is(c, i, "NAME") && is(c, i + 1, "-") && i + 2 < end &&
        (i == 0 || (!is(c, i - 1, "DSECT") && !is(c, i - 1, "DESCRIPTIVE"))) &&
        pg->mrname[0] == '\0')
      copy_tok(pg->mrname, sizeof(pg->mrname), &c->t[i + 2]);
    if (is(c, i, "Domain") && pg->domain < 0 && i + 1 < end &&
        number(&c->t[i + 1], 10, 3, &v))
      pg->domain = (int)v;
    if (is(c, i, "Record") && pg->domain >= 0 && pg->number < 0 &&
        i + 1 < end && number(&c->t[i + 1], 10, 4, &v)) {
      pg->number = (int)v;
      size_t k = i + 2;
      if (is(c, k, "-"))
        k++;
      size_t tl = 0;
      for (;
           k < end && c->t[k].line == c->t[i].line && !is(c, k, "DESCRIPTION");
           k++) {
        size_t n = c->t[k].len;
        if (tl + n + 2 >= sizeof(pg->title))
          break;
        if (tl > 0)
          pg->title[tl++] = ' ';
        memcpy(pg->title + tl, c->t[k].s, n);
        tl += n;
        pg->title[tl] = '\0';
      }
    }
    /* NOTES: "Fields labeled by the prefix, 'USEITE_HF', are high-frequency
     * counters." */
    bool hf = (t->len >= 14 && strncasecmp(t->s, "high-frequency", 14) == 0) ||
              (word_is(c, i, "high") && word_is(c, i + 1, "frequency"));
    if (hf && pg->hf_prefix[0] == '\0')
      for (size_t k = i; k-- > 0 && k + 16 > i;) {
        const struct tok *q = &c->t[k];
        if (q->len < 3 || q->s[0] != '\'')
          continue;
        unsigned n = 0;
        while (n + 1 < q->len && name_char((unsigned char)q->s[n + 1]))
          n++;
        if (n > 0 && n < RP_NAME_MAX) {
          memcpy(pg->hf_prefix, q->s + 1, n);
          pg->hf_prefix[n] = '\0';
        }
        break;
      }
    if (word_is(c, i, "each") &&
        ((word_is(c, i + 1, "virtual") &&
          (word_is(c, i + 2, "processor") || word_is(c, i + 2, "cpu"))) ||
         word_is(c, i + 1, "vmdbk")))
      pg->per_vcpu = true; /* "each VMDBK": one VMDBK per virtual CPU */
  }
}

/* ------------------------------------------------------------------------
 * The contents.
 */
static int add_field(struct ctx *c, const struct rp_field *f) {
  struct rp_page *pg = c->pg;
  if (pg->nfields >= MAX_FIELDS)
    return fail(c->err, c->err_size,
                "line %u: more than %d rows: not a monitor-record page",
                f->line, MAX_FIELDS);
  if (!grow(&pg->fields, &pg->cap_fields, pg->nfields, sizeof(*pg->fields)))
    return fail(c->err, c->err_size, "out of memory");
  pg->fields[pg->nfields++] = *f;
  return 0;
}

/* A row at i: "DEC HEX TYPE LEN NAME[(DIM)]". 1 if it is one (*next after
 * its name), 0 if not, -1 on a row that is wrong. */
static int row(struct ctx *c, size_t i, unsigned table, size_t *next) {
  long dec, hex, len;
  int type = type_at(c, i + 2);
  if (type < 0 || !number(&c->t[i], 10, 5, &dec) ||
      !number(&c->t[i + 1], 16, 4, &hex))
    return 0;
  const struct tok *t = &c->t[i];
  if (dec != hex)
    return fail(c->err, c->err_size,
                "line %u: a row's offsets disagree: decimal %ld, hex %.*s "
                "(%ld)",
                t->line, dec, (int)c->t[i + 1].len, c->t[i + 1].s, hex);
  if (i + 4 >= c->n)
    return fail(c->err, c->err_size,
                "line %u: the page ends inside a row (cut short?)", t->line);
  struct tok lt = c->t[i + 3];
  bool variable = lt.len > 1 && lt.s[lt.len - 1] == '+';
  if (variable)
    lt.len--;
  if (!number(&lt, 10, 5, &len) || len > MAX_OFFSET)
    return fail(c->err, c->err_size,
                "line %u: the row at offset %ld has length '%.*s', not a "
                "number of bytes",
                t->line, dec,
                (int)(c->t[i + 3].len > 20 ? 20 : c->t[i + 3].len),
                c->t[i + 3].s);
  struct rp_field f = {.offset = (unsigned)dec,
                       .length = (unsigned)len,
                       .variable = variable,
                       .type = (enum rp_type)type,
                       .table = table,
                       .line = t->line};
  size_t k = i + 4;
  if (row_name(c, &k, f.name, &f.dim) != 0)
    return -1;
  if (add_field(c, &f) != 0)
    return -1;
  *next = k + 1;
  return 1;
}

/* A bit row at i: groups of ". 1" then a name. */
static int bit_row(struct ctx *c, size_t i, size_t *next) {
  size_t k = i;
  unsigned mask = 0, nbits = 0;
  while (bit_group(c, k) && nbits < 64) {
    for (unsigned b = 0; b < 4; b++) {
      if (nbits < MAX_BITS)
        mask = mask << 1 | (c->t[k].s[b] != '.');
      nbits++;
    }
    k++;
  }
  if (k - i < 2 || k >= c->n)
    return 0;
  const struct tok *t = &c->t[i];
  struct rp_page *pg = c->pg;
  if (pg->nfields == 0)
    return fail(c->err, c->err_size,
                "line %u: a bit definition before any field", t->line);
  struct rp_field *f = &pg->fields[pg->nfields - 1];
  if (nbits > MAX_BITS || nbits > 8u * f->length || nbits % 8 != 0)
    return fail(c->err, c->err_size,
                "line %u: a bit definition of %u bits under %s, a field of "
                "%u bytes",
                t->line, nbits, f->name, f->length);
  if (mask == 0)
    return fail(c->err, c->err_size,
                "line %u: a bit definition with no bit set, under %s", t->line,
                f->name);
  struct rp_bit b = {.mask = mask, .width = nbits / 8, .line = t->line};
  unsigned dim;
  if (row_name(c, &k, b.name, &dim) != 0)
    return -1;
  if (f->nbits >= 64)
    return fail(c->err, c->err_size, "line %u: more than 64 bits under %s",
                t->line, f->name);
  if (!grow(&f->bits, &f->cap_bits, f->nbits, sizeof(*f->bits)))
    return fail(c->err, c->err_size, "out of memory");
  f->bits[f->nbits++] = b;
  *next = k + 1;
  return 1;
}

static int contents(struct ctx *c, size_t start, size_t *end) {
  struct rp_page *pg = c->pg;
  unsigned table = 0;
  bool want_structure = true;
  size_t i = start + 4;
  for (; i < c->n && !contents_end(c, i);) {
    size_t next = 0;
    if (table_header(c, i)) {
      /* A header repeated before any row (a copy that lost the rows
       * between, or a page header printed twice) opens no new table:
       * the rows under it are the current one's, so the record's own
       * table is never left empty. */
      if (want_structure) {
        i += 4;
        continue;
      }
      if (pg->ntables >= MAX_TABLES)
        return fail(c->err, c->err_size, "line %u: more than %d tables",
                    c->t[i].line, MAX_TABLES);
      table = pg->ntables++;
      want_structure = true;
      i += 4;
      continue;
    }
    size_t before = pg->nfields;
    int r = row(c, i, table, &next);
    if (r < 0)
      return -1;
    if (r > 0) {
      struct rp_field *f = &pg->fields[before];
      if (want_structure && f->type != RP_STRUCTURE)
        return fail(c->err, c->err_size,
                    "line %u: %s: a table of the contents starts with its "
                    "Structure row",
                    f->line, f->name);
      want_structure = false;
      pg->rows++;
      i = next;
      continue;
    }
    r = bit_row(c, i, &next);
    if (r < 0)
      return -1;
    if (r > 0) {
      pg->rows++;
      i = next;
      continue;
    }
    /* A word of a description (or of a paragraph between rows). */
    if (pg->nfields > 0) {
      struct rp_field *f = &pg->fields[pg->nfields - 1];
      if (f->nbits > 0) /* the words after a bit row are the bit's */
        append_desc(&f->bits[f->nbits - 1].desc, &c->t[i]);
      else
        append_desc(&f->desc, &c->t[i]);
    }
    i++;
  }
  *end = i;
  return 0;
}

/* ------------------------------------------------------------------------
 * The cross reference.
 */
static bool xref_name(const struct tok *t) {
  if (t->len == 0 || t->len >= RP_NAME_MAX)
    return false;
  unsigned char c0 = (unsigned char)t->s[0];
  if (!(isupper(c0) || c0 == '@' || c0 == '#' || c0 == '$'))
    return false;
  bool nonhex = false;
  for (unsigned k = 0; k < t->len; k++) {
    unsigned char ch = (unsigned char)t->s[k];
    if (!(isupper(ch) || isdigit(ch) || ch == '_' || ch == '@' || ch == '#' ||
          ch == '$'))
      return false;
    nonhex |= !isxdigit(ch);
  }
  return nonhex || t->len > 4;
}

static int xref(struct ctx *c, size_t from) {
  struct rp_page *pg = c->pg;
  size_t i = from;
  /* "Cross Reference" ... "Name Offset Length [Value]" */
  while (i < c->n && !(is(c, i, "Name") && is(c, i + 1, "Offset") &&
                       is(c, i + 2, "Length"))) {
    if (table_header(c, i) || (is(c, i, "This") && is(c, i + 1, "information")))
      return 0;
    i++;
  }
  if (i >= c->n)
    return 0;
  pg->has_xref = true;
  i += 3;
  if (is(c, i, "Value"))
    i++;
  while (i < c->n && xref_name(&c->t[i])) {
    long off;
    if (i + 1 >= c->n || !number(&c->t[i + 1], 16, 4, &off))
      break; /* a trailer's capitals, e.g. "IBM" */
    struct rp_xref x = {.offset = (unsigned)off, .line = c->t[i].line};
    copy_tok(x.name, sizeof(x.name), &c->t[i]);
    size_t k = i + 2;
    while (x.nnum < 2 && k < c->n && !xref_name(&c->t[k])) {
      struct tok nt = c->t[k];
      if (nt.len > 1 && nt.s[nt.len - 1] == '+')
        nt.len--;
      long v;
      if (!number(&nt, 16, 8, &v))
        break;
      copy_tok(x.text[x.nnum], sizeof(x.text[0]), &c->t[k]);
      x.num[x.nnum++] = v;
      k++;
    }
    if (pg->nxref >= MAX_XREF)
      return fail(c->err, c->err_size,
                  "line %u: more than %d cross reference entries", x.line,
                  MAX_XREF);
    if (!grow(&pg->xref, &pg->cap_xref, pg->nxref, sizeof(*pg->xref)))
      return fail(c->err, c->err_size, "out of memory");
    pg->xref[pg->nxref++] = x;
    i = k;
  }
  if (pg->nxref == 0)
    return fail(c->err, c->err_size,
                "line %u: the cross reference has no entries (the page is cut "
                "short)",
                c->t[i < c->n ? i : c->n - 1].line);
  return 0;
}

/* A number written in decimal (lengths) or hex (values), '+' allowed. */
static long xnum(const char *text, int base, bool *variable) {
  struct tok t = {text, (unsigned)strlen(text), 0};
  *variable = t.len > 1 && text[t.len - 1] == '+';
  if (*variable)
    t.len--;
  long v;
  return number(&t, base, 8, &v) ? v : -1;
}

static const struct rp_field *find_bit(const struct rp_page *pg,
                                       const char *name, unsigned offset,
                                       unsigned value) {
  for (size_t i = 0; i < pg->nfields; i++) {
    const struct rp_field *f = &pg->fields[i];
    for (size_t b = 0; b < f->nbits; b++) {
      const struct rp_bit *bit = &f->bits[b];
      if (strcmp(bit->name, name) != 0)
        continue;
      /* The whole pattern's value at the field's offset, or the byte that
       * holds every bit of it at that byte's offset. */
      if (f->offset == offset && bit->mask == value)
        return f;
      for (unsigned byte = 0; byte < bit->width; byte++) {
        unsigned shift = 8 * (bit->width - 1 - byte);
        if (f->offset + byte == offset && (bit->mask >> shift) == value &&
            ((unsigned long)value << shift) == bit->mask)
          return f;
      }
    }
  }
  return NULL;
}

static bool is_bit_name(const struct rp_page *pg, const char *name) {
  for (size_t i = 0; i < pg->nfields; i++)
    for (size_t b = 0; b < pg->fields[i].nbits; b++)
      if (strcmp(pg->fields[i].bits[b].name, name) == 0)
        return true;
  return false;
}

static int check_xref(struct ctx *c) {
  struct rp_page *pg = c->pg;
  if (!pg->has_xref)
    return 0;
  /* Every field: an entry with its offset and length. */
  for (size_t i = 0; i < pg->nfields; i++) {
    const struct rp_field *f = &pg->fields[i];
    if (strcmp(f->name, "*") == 0)
      continue;
    const struct rp_xref *seen = NULL;
    bool ok = false;
    for (size_t k = 0; k < pg->nxref && !ok; k++) {
      const struct rp_xref *x = &pg->xref[k];
      if (strcmp(x->name, f->name) != 0)
        continue;
      seen = x;
      bool var;
      long len = x->nnum > 0 ? xnum(x->text[0], 10, &var) : -1;
      ok = x->offset == f->offset &&
           (len == (long)f->length || len == (long)(f->length * f->dim));
    }
    if (ok)
      continue;
    if (seen == NULL)
      return fail(c->err, c->err_size,
                  "line %u: %s is not in the cross reference: the page "
                  "contradicts itself or its cross reference is cut short",
                  f->line, f->name);
    return fail(c->err, c->err_size,
                "line %u: %s at offset %u (X'%X'), length %u, but the cross "
                "reference (line %u) gives offset X'%X', length %s",
                f->line, f->name, f->offset, f->offset, f->length * f->dim,
                seen->line, seen->offset,
                seen->nnum > 0 ? seen->text[0] : "(none)");
  }
  /* Every named bit: an entry with its byte and value. */
  for (size_t i = 0; i < pg->nfields; i++) {
    const struct rp_field *f = &pg->fields[i];
    for (size_t b = 0; b < f->nbits; b++) {
      const struct rp_bit *bit = &f->bits[b];
      if (strcmp(bit->name, "*") == 0)
        continue;
      bool ok = false, seen = false;
      for (size_t k = 0; k < pg->nxref && !ok; k++) {
        const struct rp_xref *x = &pg->xref[k];
        if (strcmp(x->name, bit->name) != 0 || x->nnum == 0)
          continue;
        seen = true;
        bool var;
        long v = xnum(x->text[x->nnum - 1], 16, &var);
        ok = v >= 0 && find_bit(pg, bit->name, x->offset, (unsigned)v) == f;
      }
      if (!ok)
        return fail(c->err, c->err_size,
                    "line %u: bit %s of %s (offset X'%X') %s", bit->line,
                    bit->name, f->name, f->offset,
                    seen ? "has another byte or value in the cross reference"
                         : "is not in the cross reference");
    }
  }
  /* Every entry: a row of the contents (a row the parser could not read
   * would otherwise go missing unnoticed). */
  for (size_t k = 0; k < pg->nxref; k++) {
    const struct rp_xref *x = &pg->xref[k];
    bool found = false;
    if (is_bit_name(pg, x->name)) {
      bool var;
      long v = xnum(x->text[x->nnum > 0 ? x->nnum - 1 : 0], 16, &var);
      found = x->nnum > 0 && v >= 0 &&
              find_bit(pg, x->name, x->offset, (unsigned)v) != NULL;
    } else {
      for (size_t i = 0; i < pg->nfields && !found; i++)
        found = strcmp(pg->fields[i].name, x->name) == 0 &&
                pg->fields[i].offset == x->offset;
    }
    if (!found)
      return fail(c->err, c->err_size,
                  "line %u: the cross reference names %s at X'%X', which no "
                  "row of the contents has (a row the page garbles?)",
                  x->line, x->name, x->offset);
  }
  return 0;
}

/* ------------------------------------------------------------------------
 * The rows' own checks.
 */
static bool length_fits(const struct rp_field *f) {
  switch (f->type) {
  case RP_UNSIGNED:
  case RP_SIGNED:
  case RP_ADDRESS:
    return f->length >= 1 && f->length <= 8;
  case RP_BITSTRING:
  case RP_PACKED:
    return f->length >= 1;
  case RP_FLOAT:
    return f->length == 4 || f->length == 8 || f->length == 16;
  case RP_STRUCTURE:
  case RP_CHARACTER:
  case RP_AREA:
  default:
    return true;
  }
}

static int check_rows(struct ctx *c) {
  struct rp_page *pg = c->pg;
  for (unsigned tb = 0; tb < pg->ntables; tb++) {
    const struct rp_field *s = NULL;
    unsigned prev = 0, reach = 0;
    const struct rp_field *last = NULL;
    for (size_t i = 0; i < pg->nfields; i++) {
      const struct rp_field *f = &pg->fields[i];
      if (f->table != tb)
        continue;
      if (s == NULL) {
        s = f; /* the Structure row (contents() made sure) */
        if (f->offset != 0)
          return fail(c->err, c->err_size,
                      "line %u: structure %s starts at offset %u, not 0",
                      f->line, f->name, f->offset);
        if (f->dim != 1)
          return fail(c->err, c->err_size,
                      "line %u: structure %s has a dimension", f->line,
                      f->name);
        if (tb == 0) {
          pg->length = f->length;
          pg->variable = f->variable;
          if (f->length < 20)
            return fail(c->err, c->err_size,
                        "line %u: record %s is %u bytes, shorter than its "
                        "20-byte header",
                        f->line, f->name, f->length);
          if (f->length > 4096)
            return fail(c->err, c->err_size,
                        "line %u: record %s is %u bytes: a monitor record "
                        "never crosses a 4 KB frame",
                        f->line, f->name, f->length);
        }
        continue;
      }
      if (f->type == RP_STRUCTURE)
        return fail(c->err, c->err_size,
                    "line %u: a second Structure row (%s) in one table",
                    f->line, f->name);
      if (f->offset < prev)
        return fail(c->err, c->err_size,
                    "line %u: %s at offset %u goes back (the row before is at "
                    "%u)",
                    f->line, f->name, f->offset, prev);
      prev = f->offset;
      if (!length_fits(f))
        return fail(c->err, c->err_size,
                    "line %u: %s: length %u does not fit type %s", f->line,
                    f->name, f->length, rp_type_name(f->type));
      unsigned end = f->offset + f->length * f->dim;
      if (end > s->length)
        return fail(c->err, c->err_size,
                    "line %u: %s ends at byte %u, past the end of %s (%u "
                    "bytes)",
                    f->line, f->name, end, s->name, s->length);
      if (f->length == 0)
        continue;
      /* Overlap: only a field inside another (a redefinition, the parts
       * of a larger field) is allowed. */
      for (size_t k = 0; k < i; k++) {
        const struct rp_field *o = &pg->fields[k];
        if (o->table != tb || o == s || o->length == 0)
          continue;
        unsigned oend = o->offset + o->length * o->dim;
        bool overlap = f->offset < oend && o->offset < end;
        bool nested = (f->offset >= o->offset && end <= oend) ||
                      (o->offset >= f->offset && oend <= end);
        if (overlap && !nested)
          return fail(c->err, c->err_size,
                      "line %u: %s (bytes %u-%u) overlaps %s (bytes %u-%u, "
                      "line %u)",
                      f->line, f->name, f->offset, end - 1, o->name, o->offset,
                      oend - 1, o->line);
      }
      if (end > reach)
        reach = end;
      last = f;
    }
    if (s != NULL && reach < s->length)
      return fail(c->err, c->err_size,
                  "line %u: the rows of %s end at byte %u, but it is %u bytes: "
                  "the page is cut short",
                  last != NULL ? last->line : s->line, s->name, reach,
                  s->length);
  }
  return 0;
}

/* ------------------------------------------------------------------------
 */
void rp_page_free(struct rp_page *pg) {
  if (pg == NULL)
    return;
  for (size_t i = 0; i < pg->nfields; i++) {
    for (size_t b = 0; b < pg->fields[i].nbits; b++)
      free(pg->fields[i].bits[b].desc);
    free(pg->fields[i].bits);
    free(pg->fields[i].desc);
  }
  free(pg->fields);
  free(pg->xref);
  *pg = (struct rp_page){.domain = -1, .number = -1};
}

int rp_parse(const char *text, size_t len, struct rp_page *pg, char *err,
             size_t err_size) {
  *pg = (struct rp_page){.domain = -1, .number = -1};
  struct norm nm = {0};
  struct ctx c = {.pg = pg, .err = err, .err_size = err_size};
  int rv = -1;
  normalise(text, len, &nm);
  if (nm.oom || !tokenise(&nm, &c)) {
    fail(err, err_size, "out of memory");
    goto out;
  }
  size_t start = 0;
  while (start < c.n && !table_header(&c, start))
    start++;
  if (start >= c.n) {
    fail(err, err_size,
         "line 1: not a monitor-record page: it has no control block "
         "contents (a line 'Offsets Dec Hex Type Len Name (Dim) "
         "Description')");
    goto out;
  }
  unsigned hline = c.t[start].line;
  prolog(&c, start);
  pg->ntables = 1;
  size_t end = 0;
  if (contents(&c, start, &end) != 0)
    goto out;
  /* The level, wherever the trailer is. */
  for (size_t i = end; i + 3 < c.n; i++)
    if (is(&c, i, "based") && is(&c, i + 1, "on") && is(&c, i + 2, "z/VM")) {
      struct tok lv = c.t[i + 3];
      while (lv.len > 0 && (lv.s[lv.len - 1] == '.' || lv.s[lv.len - 1] == ','))
        lv.len--;
      snprintf(pg->level, sizeof(pg->level), "z/VM %.*s",
               (int)(lv.len > 20 ? 20 : lv.len), lv.s);
      break;
    }
  if (end < c.n && is(&c, end, "Cross") && xref(&c, end) != 0)
    goto out;
  if (pg->nfields == 0) {
    fail(err, err_size,
         "line %u: the control block contents have no rows (the page is "
         "cut short, or not a monitor-record page)",
         hline);
    goto out;
  }
  if (pg->domain < 0 || pg->number < 0) {
    fail(err, err_size,
         "line %u: not a monitor-record page: its prolog names no "
         "'Domain N' and 'Record M'",
         hline);
    goto out;
  }
  if (pg->domain > 15 || pg->number < 1 || pg->number > 255) {
    fail(err, err_size,
         "line %u: Domain %d Record %d: a monitor record has domain 0-15 and "
         "number 1-255",
         hline, pg->domain, pg->number);
    goto out;
  }
  const struct rp_field *s = &pg->fields[0];
  if (pg->dsect[0] != '\0' && strcmp(pg->dsect, s->name) != 0) {
    fail(err, err_size,
         "line %u: the structure is %s, but the prolog's DSECT NAME is %s",
         s->line, s->name, pg->dsect);
    goto out;
  }
  snprintf(pg->dsect, sizeof(pg->dsect), "%s", s->name);
  if (check_rows(&c) != 0 || check_xref(&c) != 0)
    goto out;
  rv = 0;
out:
  free(c.t);
  free(nm.s);
  free(nm.line);
  if (rv != 0)
    rp_page_free(pg);
  return rv;
}
