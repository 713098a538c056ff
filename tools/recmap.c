/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - a parsed monitor-record page into a <Record> block: the
 * mapping rules (zvm-monitor-record(1), MAPPING RULES) and the block's
 * text. The vocabulary and limits are those of the plugin's <Record>
 * parser (plugin/config/recconf.c, collectd-zvm_monitor(5), RECORDS
 * DEFINED IN COLLECTD.CONF): types unsigned, signed, cputimer, tod,
 * ebcdic, userid, records; kinds counter, gauge, instance, processor,
 * base; Mask for named bits, Format hex for device numbers, ElementPrefix
 * for per-queue arrays; at most 512 fields and 256 data sources of at
 * most 19 characters (past 63 the plugin sends one value per list); at
 * most two instance fields, a userid one alone. What it cannot hold is
 * skipped with its reason.
 */
#include "recpage.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The <Record> parser's limits (include/zvm_monitor/recconf.h). */
#define MAX_DS 256
#define MAX_DS_LIST 63
#define MAX_FIELDS 512
#define MAX_DS_NAME 19
#define MAX_NAME 27
#define MAX_PREFIX 16
#define MAX_COUNT 63
#define MAX_EBCDIC 8
#define MRHDR_LEN 20
#define HEADER_FIELD                                                           \
  "%s is in the 20-byte record header (MRHDR), which the plugin decodes "      \
  "itself: choose a field of the record's data"

#define fail rp_error

void rp_buf_free(struct rp_buf *b) {
  free(b->p);
  *b = (struct rp_buf){0};
}

void rp_buf_printf(struct rp_buf *b, const char *fmt, ...) {
  if (b->oom)
    return;
  for (;;) {
    size_t room = b->cap - b->len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p != NULL ? b->p + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->oom = true;
      return;
    }
    if ((size_t)n < room) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + (size_t)n + 1)
      cap *= 2;
    char *p = realloc(b->p, cap);
    if (p == NULL) {
      b->oom = true;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
}

const char *rp_role_name(enum rp_role r) {
  static const char *const names[] = {
      [RP_ROLE_NONE] = "none",   [RP_ROLE_COUNTER] = "counter",
      [RP_ROLE_GAUGE] = "gauge", [RP_ROLE_ID] = "identifier",
      [RP_ROLE_TEXT] = "text",   [RP_ROLE_FLAGS] = "flags",
      [RP_ROLE_CODE] = "code",   [RP_ROLE_LAYOUT] = "array layout",
  };
  return (unsigned)r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}

static const char *const vtype_names[] = {
    [RP_V_UNSIGNED] = "unsigned", [RP_V_SIGNED] = "signed",
    [RP_V_CPUTIMER] = "cputimer", [RP_V_TOD] = "tod",
    [RP_V_EBCDIC] = "ebcdic",     [RP_V_USERID] = "userid",
};
static const char *const kind_names[] = {
    [RP_K_COUNTER] = "counter",   [RP_K_GAUGE] = "gauge",
    [RP_K_INSTANCE] = "instance", [RP_K_PROCESSOR] = "processor",
    [RP_K_BASE] = "base",         [RP_K_LAYOUT] = "layout",
};

/* ------------------------------------------------------------------------
 * The wording of a description.
 */
/* phrase in the description (lower case), starting a word. */
static bool says(const char *d, const char *phrase) {
  size_t n = strlen(phrase);
  for (const char *p = d; p != NULL && *p != '\0'; p++) {
    if (strncasecmp(p, phrase, n) != 0)
      continue;
    if (p == d || !isalnum((unsigned char)p[-1]))
      return true;
  }
  return false;
}

/* "X'63' = ...", "X'00' - ...": a list of values. */
static bool lists_values(const char *d) {
  if (says(d, "valid values"))
    return true;
  for (const char *p = d; p != NULL && *p != '\0'; p++) {
    if (!((*p == 'X' || *p == 'x') && p[1] == '\''))
      continue;
    const char *q = p + 2;
    while (isxdigit((unsigned char)*q))
      q++;
    if (q == p + 2 || *q != '\'')
      continue;
    q++;
    while (*q == ' ')
      q++;
    if (*q == '=' || (*q == '-' && q[1] == ' '))
      return true;
  }
  return false;
}

static bool ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && strcasecmp(s + n - t, tail) == 0;
}

static bool is_nested_name(const struct rp_page *pg, const char *d) {
  for (size_t i = 0; i < pg->nfields; i++)
    if (pg->fields[i].table > 0 && pg->fields[i].type == RP_STRUCTURE &&
        says(d, pg->fields[i].name))
      return true;
  return false;
}

static const char *nested_name(const struct rp_page *pg, unsigned table) {
  for (size_t i = 0; i < pg->nfields; i++)
    if (pg->fields[i].table == table && pg->fields[i].type == RP_STRUCTURE)
      return pg->fields[i].name;
  return "?";
}

/* A row of the 20-byte record header (MRHDR): the decoder's, no value. */
static bool in_header(const struct rp_field *f) {
  return f->table == 0 &&
         (f->offset < MRHDR_LEN || strncmp(f->name, "MRHDR", 5) == 0 ||
          ends_with(f->name, "_MRHDR"));
}

/* The role of a field, why, and the <Record> type it would have. */
static void guess(const struct rp_page *pg, const struct rp_field *f,
                  struct rp_mapped *m) {
  const char *d = f->desc != NULL ? f->desc : "";
  bool integer = f->type == RP_UNSIGNED || f->type == RP_SIGNED;
  m->vtype = f->type == RP_SIGNED ? RP_V_SIGNED : RP_V_UNSIGNED;
  m->role = RP_ROLE_NONE;
#define WHY(...) snprintf(m->why, sizeof(m->why), __VA_ARGS__)
#define SKIP(...) snprintf(m->skip, sizeof(m->skip), __VA_ARGS__)
  if (f->type == RP_STRUCTURE)
    return;
  if (in_header(f))
    return; /* the record header: the decoder's */
  if (strcmp(f->name, "*") == 0) {
    SKIP("reserved");
    return;
  }
  if (f->length == 0)
    return; /* a label */
  bool tod = says(d, "tod") || says(d, "time-of-day");
  bool cputimer = says(d, "cpu timer") || says(d, "cpu-timer") ||
                  says(d, "cpu time") || says(d, "virtual time") ||
                  says(d, "processor time");
  switch (f->type) {
  case RP_CHARACTER:
    if (f->length == 8 &&
        (ends_with(f->name, "USER") || ends_with(f->name, "USERID") ||
         says(d, "userid") || says(d, "user id") ||
         says(d, "logon identification") || says(d, "user identification"))) {
      m->role = RP_ROLE_TEXT;
      m->vtype = RP_V_USERID;
      WHY("an 8-byte user ID");
    } else if (f->length == 8 && tod) {
      m->role = RP_ROLE_GAUGE;
      m->vtype = RP_V_TOD;
      WHY("a TOD clock value (a point in time)");
    } else if (f->length == 8 && cputimer) {
      m->role = RP_ROLE_COUNTER;
      m->vtype = RP_V_CPUTIMER;
      WHY("a CPU-timer value (accumulated time)");
    } else {
      m->role = RP_ROLE_TEXT;
      m->vtype = RP_V_EBCDIC;
      WHY("character data");
    }
    return;
  case RP_BITSTRING: {
    size_t named = 0;
    for (size_t b = 0; b < f->nbits; b++)
      named += strcmp(f->bits[b].name, "*") != 0;
    if (named > 0) {
      m->role = RP_ROLE_FLAGS;
      WHY("a bit string with %zu named bit%s", named, named > 1 ? "s" : "");
    } else if (lists_values(d)) {
      m->role = RP_ROLE_CODE;
      WHY("its values are listed: a code");
    } else {
      m->role = RP_ROLE_FLAGS;
      WHY("a bit string without named bits");
    }
    return;
  }
  case RP_UNSIGNED:
  case RP_SIGNED:
    break;
  default:
    SKIP("type %s: not a quantity the engine reads", rp_type_name(f->type));
    return;
  }
  (void)integer;
  if ((says(d, "offset to") || says(d, "offset of the") ||
       says(d, "number of entries") || says(d, "number of elements") ||
       says(d, "size of an entry") || says(d, "size of each") ||
       says(d, "length of an entry") || says(d, "entry size")) &&
      (says(d, "array") || is_nested_name(pg, d))) {
    m->role = RP_ROLE_LAYOUT;
    WHY("locates a variable array");
  } else if (f->table > 0 && f->type == RP_UNSIGNED &&
             (ends_with(f->name, "CPUTYPE") ||
              strncasecmp(d, "cpu type", 8) == 0)) {
    m->role = RP_ROLE_ID;
    m->cputype = true;
    WHY("the entry's CPU type: names the entry");
  } else if (ends_with(f->name, "CPUAD") || says(d, "processor address") ||
             says(d, "cpu address") || says(d, "processor id")) {
    m->role = RP_ROLE_ID;
    WHY("a processor address");
  } else if (says(d, "device number") || ends_with(f->name, "DEVNO") ||
             ends_with(f->name, "RDEV")) {
    m->role = RP_ROLE_ID;
    m->hex = true; /* z/VM writes device numbers in hex */
    WHY("a device number");
  } else if (f->length == 8 && cputimer) {
    m->role = RP_ROLE_COUNTER;
    m->vtype = RP_V_CPUTIMER;
    WHY("a CPU-timer value (accumulated time)");
  } else if (f->length == 8 && tod) {
    m->role = RP_ROLE_GAUGE;
    m->vtype = RP_V_TOD;
    WHY("a TOD clock value (a point in time)");
  } else if (f->length <= 2 && (says(d, "flag") || f->nbits > 0)) {
    m->role = RP_ROLE_FLAGS;
    WHY("%s", f->nbits > 0 ? "bits are defined under it" : "it holds flags");
  } else if (lists_values(d) || says(d, "status code") ||
             says(d, "reason code") || says(d, "return code")) {
    m->role = RP_ROLE_CODE;
    WHY("its values are listed: a code");
  } else if (pg->hf_prefix[0] != '\0' &&
             strncmp(f->name, pg->hf_prefix, strlen(pg->hf_prefix)) == 0) {
    m->role = RP_ROLE_COUNTER;
    WHY("the page's notes: the prefix %s marks high-frequency counters",
        pg->hf_prefix);
  } else if (says(d, "high frequency count") ||
             says(d, "high-frequency count")) {
    m->role = RP_ROLE_COUNTER;
    WHY("\"high frequency count\"");
  } else if (says(d, "number of times") || says(d, "count of times")) {
    m->role = RP_ROLE_COUNTER;
    WHY("\"number of times\"");
  } else if (says(d, "current") || says(d, "yet to") ||
             says(d, "outstanding") || says(d, "in progress")) {
    m->role = RP_ROLE_GAUGE;
    WHY("it describes a present state (\"current\", \"yet to\", "
        "\"outstanding\")");
  } else if (says(d, "count of") || says(d, "accumulated") ||
             says(d, "cumulative")) {
    m->role = RP_ROLE_COUNTER;
    WHY("\"count of\", \"accumulated\"");
  } else {
    m->role = RP_ROLE_GAUGE;
    WHY("no counting words: a level or a setting");
  }
#undef WHY
#undef SKIP
}

/* ------------------------------------------------------------------------
 * Options.
 */
static void ds_base(const struct rp_page *pg, const char *ibm, char *out,
                    size_t size) {
  size_t pl = strlen(pg->dsect);
  const char *s = ibm;
  if (pl > 0 && strncasecmp(ibm, pg->dsect, pl) == 0 && ibm[pl] == '_' &&
      ibm[pl + 1] != '\0')
    s = ibm + pl + 1;
  size_t n = 0;
  if (!isalpha((unsigned char)*s) && n + 1 < size)
    out[n++] = 'f';
  for (; *s != '\0' && n + 1 < size; s++)
    out[n++] =
        isalnum((unsigned char)*s) ? (char)tolower((unsigned char)*s) : '_';
  out[n] = '\0';
}

static bool names_field(const struct rp_page *pg, const struct rp_field *f,
                        const char *name) {
  char ds[RP_NAME_MAX + 2];
  if (strcasecmp(f->name, name) == 0)
    return true;
  ds_base(pg, f->name, ds, sizeof(ds));
  return strcasecmp(ds, name) == 0;
}

/* The field an option names: -1 if none (err set). */
static long find_named(const struct rp_page *pg, const char *name,
                       const char *option, char *err, size_t err_size) {
  for (size_t i = 0; i < pg->nfields; i++)
    if (strcmp(pg->fields[i].name, "*") != 0 &&
        pg->fields[i].type != RP_STRUCTURE &&
        names_field(pg, &pg->fields[i], name))
      return (long)i;
  fail(err, err_size, "%s %s: the page (%s) has no such field", option, name,
       pg->dsect);
  return -1;
}

static bool valid_word(const char *s, size_t max, bool letter_first) {
  size_t n = strlen(s);
  if (n > max || (letter_first && (n == 0 || !isalpha((unsigned char)s[0]))))
    return false;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] >= 0x80 ||
        !(isalnum((unsigned char)s[i]) || s[i] == '_'))
      return false;
  return true;
}

/* An integer field the engine reads. */
static bool engine_integer(const struct rp_field *f) {
  return (f->type == RP_UNSIGNED || f->type == RP_SIGNED) &&
         (f->length == 1 || f->length == 2 || f->length == 4 || f->length == 8);
}

static int make_instance(const struct rp_page *pg, struct rp_mapped *m,
                         char *err, size_t err_size) {
  const struct rp_field *f = m->f;
  if (in_header(f))
    return fail(err, err_size, HEADER_FIELD, f->name);
  if (f->table != 0)
    return fail(err, err_size,
                "%s is a field of the variable array %s: this engine version "
                "cannot make it an instance",
                f->name, nested_name(pg, f->table));
  if (f->dim != 1)
    return fail(err, err_size, "%s is an array: it cannot be an instance",
                f->name);
  if (f->type == RP_UNSIGNED && engine_integer(f)) {
    m->vtype = RP_V_UNSIGNED;
  } else if (f->type == RP_CHARACTER && f->length >= 1 &&
             f->length <= MAX_EBCDIC) {
    if (m->vtype != RP_V_USERID)
      m->vtype = RP_V_EBCDIC;
  } else {
    return fail(err, err_size,
                "%s is %s %u: an instance field is Unsigned of 1, 2, 4 or 8 "
                "bytes or Character of 1-8",
                f->name, rp_type_name(f->type), f->length);
  }
  m->kind = RP_K_INSTANCE;
  /* A built-in value's type and MAX rule: an instance has neither. */
  m->single_type = NULL;
  m->allones = RP_ALLONES_NONE;
  m->emit = true;
  m->skip[0] = '\0';
  m->count = 1;
  return 0;
}

/* The entry of the page's row i (not one of its bits). */
static struct rp_mapped *entry_of(struct rp_map *map, size_t i) {
  for (size_t k = 0; k < map->n; k++)
    if (map->m[k].fi == i && map->m[k].bit == NULL)
      return &map->m[k];
  return &map->m[0]; /* cannot happen: every row has its entry */
}

static bool ds_taken(const struct rp_map *map, const char *ds, size_t upto,
                     unsigned table, const char **by);

/* An emitted field whose bytes m's would share (named bits of one field
 * may share them), or NULL: the plugin refuses overlapping fields, and a
 * page whose rows overlap (a redefinition the cross reference does not
 * catch) must not make a block it refuses. */
static const struct rp_mapped *overlapping(const struct rp_map *map,
                                           const struct rp_mapped *m) {
  unsigned from = m->f->offset;
  unsigned to = from + m->f->length * (m->count > 1 ? m->count : 1);
  for (size_t i = 0; i < map->n; i++) {
    const struct rp_mapped *o = &map->m[i];
    if (!o->emit || o == m || o->f->table != m->f->table)
      continue;
    unsigned ofrom = o->f->offset;
    unsigned oto = ofrom + o->f->length * (o->count > 1 ? o->count : 1);
    /* Named bits of one field, a MAX flag beside its count. */
    bool bits =
        ((m->bit != NULL && o->bit != NULL) || m->allones == RP_ALLONES_FLAG ||
         o->allones == RP_ALLONES_FLAG) &&
        from == ofrom && m->f->length == o->f->length;
    if (from < oto && ofrom < to && !bits)
      return o;
  }
  return NULL;
}

/* A named bit m->bit of the flag field m->f: a 0/1 gauge (Mask), or the
 * base VMDBK's flag of a record summed per guest. 0, or -1 with m->skip
 * set. */
static int map_bit(const struct rp_page *pg, struct rp_map *map,
                   struct rp_mapped *m, bool per_vmdbk, const bool *chosen,
                   size_t *nfields) {
  const struct rp_field *f = m->f;
  const struct rp_bit *b = m->bit;
  bool already = false;
  for (size_t i = 0; i < map->n; i++)
    already |= map->m[i].emit && map->m[i].kind == RP_K_BASE;
#define SKIP(...) snprintf(m->skip, sizeof(m->skip), __VA_ARGS__)
  bool base = per_vmdbk && !already &&
              (ends_with(b->name, "BASE") ||
               (b->desc != NULL && (says(b->desc, "base vmdbk") ||
                                    says(b->desc, "base virtual"))));
  if (!base && chosen != NULL && !chosen[m->fi]) {
    SKIP("a bit of %s: not chosen (--fields)", f->name);
    return -1;
  }
  if (!(f->length == 1 || f->length == 2 || f->length == 4 || f->length == 8) ||
      b->width == 0 || b->width > f->length) {
    SKIP("a bit of %s (%s %u): the engine reads fields of 1, 2, 4 or 8 "
         "bytes",
         f->name, rp_type_name(f->type), f->length);
    return -1;
  }
  m->mask = (unsigned long long)b->mask << (8 * (f->length - b->width));
  const struct rp_mapped *o = overlapping(map, m);
  if (o != NULL) {
    SKIP("a bit of %s: its bytes are %s's too (the page's rows overlap)",
         f->name, o->bit != NULL ? o->bit->name : o->f->name);
    return -1;
  }
  if (m->order < 0) {
    ds_base(pg, b->name, m->ds, sizeof(m->ds));
    m->ds[MAX_DS_NAME] = '\0';
  }
  /* A base flag is a field of the block too (and becomes a gauge where
   * the record has no processor field): its name must be free as well. */
  const char *by = NULL;
  if (ds_taken(map, m->ds, map->n, 0, &by) ||
      (map->instance[0] != NULL && strcmp(map->instance[0]->ds, m->ds) == 0 &&
       (by = map->instance[0]->f->name) != NULL)) {
    SKIP("a bit of %s: its data source name %s is taken by %s", f->name, m->ds,
         by);
    return -1;
  }
  if (!base && m->undispatched) {
    SKIP("a bit of %s: the plugin's table for this record does not dispatch "
         "it",
         f->name);
    return -1;
  }
  if (base) {
    m->kind = RP_K_BASE;
    snprintf(m->why, sizeof(m->why),
             "the base VMDBK's records: the guest's gauges are its values");
    return 0;
  }
  if (map->nds + 1 > MAX_DS || *nfields + 1 > MAX_FIELDS) {
    SKIP("more fields than a record block holds (limit %d data sources, "
         "%d fields)",
         MAX_DS, MAX_FIELDS);
    return -1;
  }
  m->kind = RP_K_GAUGE;
  return 0;
#undef SKIP
}

void rp_map_free(struct rp_map *map) {
  if (map == NULL)
    return;
  free(map->m);
  *map = (struct rp_map){0};
}

static bool ds_taken(const struct rp_map *map, const char *ds, size_t upto,
                     unsigned table, const char **by) {
  for (size_t i = 0; i < upto; i++) {
    const struct rp_mapped *o = &map->m[i];
    if (!o->emit || o->f->table != table)
      continue;
    for (unsigned e = 0; e < (o->count > 1 ? o->count : 1); e++) {
      char n[80];
      if (o->count > 1)
        snprintf(n, sizeof(n), "%s%s%u", o->ds,
                 o->elem_prefix[0] ? o->elem_prefix : "_", e);
      else
        snprintf(n, sizeof(n), "%s", o->ds);
      if (strcmp(n, ds) == 0) {
        *by = o->f->name;
        return true;
      }
    }
  }
  return false;
}

/* ------------------------------------------------------------------------
 * The built-in table's names (opt->names).
 */
/* The built-in field of m's row (or bit) and its position, or -1. */
static int builtin_of(const struct rp_builtin *bt, const struct rp_mapped *m) {
  const struct rp_field *f = m->f;
  unsigned long long mask = 0;
  if (m->bit != NULL) {
    /* The built-in tables' bits are of fields of at most 8 bytes. */
    if (m->bit->width > f->length || f->length - m->bit->width >= 8)
      return -1;
    mask = (unsigned long long)m->bit->mask
           << (8 * (f->length - m->bit->width));
  }
  for (size_t i = 0; i < bt->nfields; i++) {
    const struct rp_builtin_field *b = &bt->fields[i];
    if (b->ibm == NULL || (b->table == 0) != (f->table == 0) ||
        b->offset != f->offset || b->length != f->length ||
        b->count != f->dim || b->allones == RP_ALLONES_FLAG)
      continue;
    if (m->bit != NULL
            ? (b->mask == mask && (strcmp(b->ibm, f->name) == 0 ||
                                   strcmp(b->ibm, m->bit->name) == 0))
            : (b->mask == 0 && strcmp(b->ibm, f->name) == 0))
      return (int)i;
  }
  return -1;
}

/* Every row the built-in table has takes its name, kind and type; a row it
 * does not dispatch is left out; its second views of a row (MAX flags) are
 * added; its record count is the block's. Rows it lacks (another z/VM
 * level) keep their guesses, after its fields. */
static void apply_builtin(const struct rp_page *pg, const struct rp_builtin *bt,
                          struct rp_map *map, const struct rp_options *opt) {
  (void)pg;
  size_t rows = map->n;
  for (size_t i = 0; i < rows; i++) {
    struct rp_mapped *m = &map->m[i];
    int k = builtin_of(bt, m);
    if (k < 0 && m->bit != NULL) {
      /* a bit of a field the table has, but not as a value */
      struct rp_mapped row = {.f = m->f};
      int r = builtin_of(bt, &row);
      m->undispatched = r >= 0 && !bt->fields[r].dispatched;
    }
    if (k < 0)
      continue;
    const struct rp_builtin_field *b = &bt->fields[k];
    m->order = k;
    snprintf(m->ds, sizeof(m->ds), "%s", b->ds);
    if (b->instance && m->f->table > 0) {
      m->role = RP_ROLE_ID;
      m->cputype = bt->cputype;
      snprintf(m->why, sizeof(m->why),
               "the plugin's table names the entries "
               "by it");
      continue;
    }
    if (!b->dispatched) {
      /* What names or locates (instance, processor, layout, flags) keeps
       * its guess; a value the table does not dispatch is left out. */
      if (m->role == RP_ROLE_COUNTER || m->role == RP_ROLE_GAUGE) {
        snprintf(m->skip, sizeof(m->skip),
                 "the plugin's table for this record does not dispatch it");
        m->by_option = true;
        m->role = RP_ROLE_NONE;
      }
      m->undispatched = m->bit != NULL;
      m->order = -1;
      continue;
    }
    m->role = b->counter ? RP_ROLE_COUNTER : RP_ROLE_GAUGE;
    /* All ones means MAX in an Unsigned field; a page that prints the
     * row otherwise keeps the value without the rule (and its flag). */
    bool unsigned_row = m->f->type == RP_UNSIGNED;
    m->allones = unsigned_row ? b->allones : RP_ALLONES_NONE;
    m->single_type = b->single_type;
    if (b->elem_prefix != NULL && strcmp(b->elem_prefix, "_") != 0)
      snprintf(m->elem_prefix, sizeof(m->elem_prefix), "%s", b->elem_prefix);
    snprintf(m->why, sizeof(m->why), "the plugin's table for this record");
    /* Its MAX flag (or other second view of the same bytes). */
    for (size_t j = 0; j < bt->nfields && m->bit == NULL && unsigned_row; j++) {
      const struct rp_builtin_field *v = &bt->fields[j];
      if (v->ibm == NULL || v->allones != RP_ALLONES_FLAG ||
          strcmp(v->ibm, b->ibm) != 0 || v->table != b->table)
        continue;
      struct rp_mapped *e = &map->m[map->n++];
      *e = (struct rp_mapped){.f = m->f,
                              .fi = m->fi,
                              .extra = true,
                              .count = 1,
                              .role = RP_ROLE_GAUGE,
                              .vtype = RP_V_UNSIGNED,
                              .allones = RP_ALLONES_FLAG,
                              .single_type = v->single_type,
                              .order = (int)j};
      snprintf(e->ds, sizeof(e->ds), "%s", v->ds);
      snprintf(e->why, sizeof(e->why),
               "the plugin's table: 1 when %s is all ones (MAX), else 0",
               m->f->name);
    }
  }
  for (size_t i = 0; i < bt->nfields; i++)
    if (bt->fields[i].records && opt->count == NULL) {
      snprintf(map->count, sizeof(map->count), "%s", bt->fields[i].ds);
      map->count_type = bt->fields[i].single_type;
    }
  if (bt->instance_name != NULL)
    snprintf(map->instance_name, sizeof(map->instance_name), "%s",
             bt->instance_name);
}

/* ------------------------------------------------------------------------
 * Variable arrays: a nested structure of the page located by three fields
 * of the record.
 */
static struct rp_marray *array_of(struct rp_map *map, unsigned table) {
  for (size_t a = 0; a < map->narrays; a++)
    if (map->arrays[a].table == table)
      return &map->arrays[a];
  return NULL;
}

/* Which of count (0), size (1), offset (2) a layout field's words say. */
static int locator(const char *d) {
  if (says(d, "number of entries") || says(d, "number of elements") ||
      says(d, "count of entries"))
    return 0;
  if (says(d, "size of an entry") || says(d, "size of each") ||
      says(d, "length of an entry") || says(d, "entry size") ||
      says(d, "size of the entries"))
    return 1;
  if (says(d, "offset to") || says(d, "offset of the"))
    return 2;
  return -1;
}

/* Every nested structure of the page: its locating fields and the field
 * that names its entries, or why it cannot be an <Array>. */
static void find_arrays(const struct rp_page *pg, struct rp_map *map,
                        const struct rp_options *opt) {
  unsigned nested = pg->ntables > 1 ? pg->ntables - 1 : 0;
  for (unsigned t = 1; t < pg->ntables && map->narrays < RP_ARRAYS_MAX; t++) {
    struct rp_marray *a = &map->arrays[map->narrays++];
    const char *sname = nested_name(pg, t);
    *a = (struct rp_marray){.table = t};
    ds_base(pg, sname, a->label, sizeof(a->label));
    a->label[MAX_DS_NAME] = '\0';
    if (opt->names != NULL && opt->names->array != NULL &&
        strcmp(opt->names->array, sname) == 0)
      snprintf(a->name, sizeof(a->name), "%s", opt->names->array_name);
    else {
      char name[sizeof(map->name)], label[sizeof(a->label)];
      memcpy(name, map->name, sizeof(name));
      memcpy(label, a->label, sizeof(label));
      snprintf(a->name, sizeof(a->name), "%.13s_%.13s", name, label);
    }
#define ASKIP(...) snprintf(a->skip, sizeof(a->skip), __VA_ARGS__)
    for (size_t i = 0; i < map->n; i++) {
      struct rp_mapped *m = &map->m[i];
      const char *d = m->f->desc != NULL ? m->f->desc : "";
      if (m->f->table != 0 || m->role != RP_ROLE_LAYOUT || m->bit != NULL ||
          m->extra || (!says(d, sname) && nested != 1))
        continue;
      int k = locator(d);
      if (k >= 0 && a->loc[k] == NULL && m->f->type == RP_UNSIGNED &&
          engine_integer(m->f) && m->f->dim == 1)
        a->loc[k] = m;
    }
    const struct rp_mapped *inst = map->instance[0];
    if (inst != NULL &&
        (a->loc[0] == inst || a->loc[1] == inst || a->loc[2] == inst)) {
      ASKIP("%s, which locates it, is the instance field", inst->f->name);
      continue;
    }
    if (a->loc[0] == NULL || a->loc[1] == NULL || a->loc[2] == NULL) {
      ASKIP("the page names no %s field that locates %s",
            a->loc[0] == NULL   ? "entry count"
            : a->loc[1] == NULL ? "entry size"
                                : "offset",
            sname);
      continue;
    }
    struct rp_mapped *key = NULL;
    for (size_t i = 0; i < map->n && key == NULL; i++) {
      struct rp_mapped *m = &map->m[i];
      if (m->f->table == t && m->role == RP_ROLE_ID && m->bit == NULL &&
          m->f->type == RP_UNSIGNED && engine_integer(m->f) && m->f->dim == 1)
        key = m;
    }
    if (key == NULL) {
      ASKIP("no field of its entries names them (a CPU type, an address)");
      continue;
    }
    /* The plugin refuses two <Array> blocks of one name (case-insensitive):
     * the first structure keeps it. */
    const struct rp_marray *same = NULL, *located = NULL;
    for (size_t b = 0; b + 1 < map->narrays && same == NULL; b++)
      if (map->arrays[b].emit && strcasecmp(map->arrays[b].name, a->name) == 0)
        same = &map->arrays[b];
    for (size_t b = 0; b + 1 < map->narrays && located == NULL; b++)
      if (map->arrays[b].emit && map->arrays[b].loc[0] == a->loc[0] &&
          map->arrays[b].loc[1] == a->loc[1] &&
          map->arrays[b].loc[2] == a->loc[2])
        located = &map->arrays[b];
    if (located != NULL) {
      ASKIP("the fields that locate it locate the earlier structure %s",
            nested_name(pg, located->table));
      continue;
    }
    if (same != NULL) {
      char name[sizeof(a->name)];
      memcpy(name, a->name, sizeof(name));
      ASKIP("its <Array> name %s is taken by the earlier structure %s", name,
            nested_name(pg, same->table));
      continue;
    }
    key->kind = RP_K_INSTANCE;
    key->single_type = NULL;
    key->vtype = RP_V_UNSIGNED;
    key->emit = true;
    key->count = 1;
    key->skip[0] = '\0';
    if (key->order < 0)
      ds_base(pg, key->f->name, key->ds, sizeof(key->ds));
    key->ds[MAX_DS_NAME] = '\0';
    a->emit = true;
#undef ASKIP
  }
}

/* Leave out an <Array> block chosen earlier: its fields and its locating
 * fields, each with the reason. */
static void drop_array(const struct rp_page *pg, struct rp_map *map,
                       struct rp_marray *ar, const char *reason) {
  ar->emit = false;
  snprintf(ar->skip, sizeof(ar->skip), "%s", reason);
  for (size_t i = 0; i < map->n; i++) {
    struct rp_mapped *m = &map->m[i];
    bool loc = m == ar->loc[0] || m == ar->loc[1] || m == ar->loc[2];
    for (size_t b = 0; loc && b < map->narrays; b++) /* another's too */
      for (int k = 0; k < 3; k++)
        loc &= !(map->arrays[b].emit && map->arrays[b].loc[k] == m);
    if (m->emit && (m->f->table == ar->table || loc)) {
      m->emit = false;
      snprintf(m->skip, sizeof(m->skip), "%s %s: %s",
               loc ? "locates the variable array"
                   : "a field of the variable array",
               nested_name(pg, ar->table), ar->skip);
    }
  }
}

int rp_map_page(const struct rp_page *pg, const struct rp_options *opt,
                struct rp_map *map, char *err, size_t err_size) {
  *map = (struct rp_map){0};
  /* One entry per row, and one per named bit after its row. */
  size_t entries = pg->nfields;
  for (size_t i = 0; i < pg->nfields; i++)
    entries += pg->fields[i].nbits;
  if (opt->names != NULL)
    entries += opt->names->nfields; /* its second views of a row */
  map->m = calloc(entries ? entries : 1, sizeof(*map->m));
  if (map->m == NULL)
    return fail(err, err_size, "out of memory");
  /* Name. */
  if (opt->name != NULL || (opt->names != NULL && opt->names->name != NULL)) {
    const char *name = opt->name != NULL ? opt->name : opt->names->name;
    snprintf(map->name, sizeof(map->name), "%s", name);
    if (strlen(name) > MAX_NAME || !valid_word(name, MAX_NAME, true))
      return fail(err, err_size,
                  "--name %s: a letter followed by letters, digits or _, at "
                  "most %d characters",
                  name, MAX_NAME);
  } else {
    size_t n = 0;
    for (const char *s = pg->dsect; *s != '\0' && n < MAX_NAME; s++)
      map->name[n++] =
          isalnum((unsigned char)*s) ? (char)tolower((unsigned char)*s) : '_';
    map->name[n] = '\0';
    if (!valid_word(map->name, MAX_NAME, true))
      return fail(err, err_size,
                  "the structure's name %s makes no record Name (a letter "
                  "followed by letters, digits or _): give one with --name",
                  pg->dsect);
  }
  for (size_t i = 0; i < pg->nfields; i++) {
    struct rp_mapped *m = &map->m[map->n++];
    m->f = &pg->fields[i];
    m->fi = i;
    m->count = 1;
    m->order = -1;
    guess(pg, m->f, m);
    if (m->role != RP_ROLE_FLAGS || m->f->table != 0)
      continue;
    for (size_t b = 0; b < m->f->nbits; b++) {
      const struct rp_bit *bit = &m->f->bits[b];
      if (strcmp(bit->name, "*") == 0)
        continue;
      struct rp_mapped *e = &map->m[map->n++];
      *e = (struct rp_mapped){
          .f = m->f, .fi = i, .bit = bit, .count = 1, .order = -1};
      e->role = RP_ROLE_GAUGE;
      e->vtype = RP_V_UNSIGNED;
      snprintf(e->why, sizeof(e->why), "a named bit: 1 when set, else 0");
    }
  }

  if (opt->names != NULL)
    apply_builtin(pg, opt->names, map, opt);

  /* --kind NAME=KIND */
  const char *want_instance = opt->instance;
  for (size_t k = 0; k < opt->nkinds; k++) {
    long i = find_named(pg, opt->kinds[k].name, "--kind", err, err_size);
    if (i < 0)
      return -1;
    struct rp_mapped *m = entry_of(map, (size_t)i);
    const char *kind = opt->kinds[k].kind;
    if (strcasecmp(kind, "instance") == 0) {
      if (want_instance != NULL && strcasecmp(want_instance, "none") != 0 &&
          !names_field(pg, m->f, want_instance))
        return fail(err, err_size,
                    "--kind %s=instance and --instance %s name two instance "
                    "fields: give one",
                    opt->kinds[k].name, want_instance);
      want_instance = opt->kinds[k].name;
      continue;
    }
    m->by_option = true;
    if (strcasecmp(kind, "skip") == 0) {
      m->role = m->role == RP_ROLE_NONE ? RP_ROLE_NONE : m->role;
      snprintf(m->skip, sizeof(m->skip), "left out (--kind %s=skip)",
               opt->kinds[k].name);
      m->emit = false;
      m->why[0] = '\0';
      continue;
    }
    bool counter = strcasecmp(kind, "counter") == 0;
    if (!counter && strcasecmp(kind, "gauge") != 0)
      return fail(err, err_size,
                  "--kind %s=%s: the kind is counter, gauge, instance or skip",
                  opt->kinds[k].name, kind);
    if (in_header(m->f))
      return fail(err, err_size, HEADER_FIELD, m->f->name);
    if (m->vtype == RP_V_CPUTIMER || m->vtype == RP_V_TOD) {
      if (counter && m->vtype == RP_V_TOD)
        return fail(err, err_size,
                    "--kind %s=counter: a TOD clock value is a point in time, "
                    "not a counter",
                    m->f->name);
    } else if (!engine_integer(m->f)) {
      return fail(err, err_size,
                  "--kind %s=%s: %s is %s %u; a counter or gauge is an "
                  "Unsigned or Signed field of 1, 2, 4 or 8 bytes",
                  opt->kinds[k].name, kind, m->f->name,
                  rp_type_name(m->f->type), m->f->length);
    }
    enum rp_role role = counter ? RP_ROLE_COUNTER : RP_ROLE_GAUGE;
    if (role != m->role) {
      /* The built-in's value type and MAX rule were for its own kind. */
      m->single_type = NULL;
      m->allones = RP_ALLONES_NONE;
    }
    m->role = role;
    snprintf(m->why, sizeof(m->why), "--kind %s=%s", opt->kinds[k].name, kind);
  }

  /* The instance field. */
  struct rp_mapped *inst = NULL;
  if (want_instance != NULL && strcasecmp(want_instance, "none") != 0) {
    long i = find_named(pg, want_instance, "--instance", err, err_size);
    if (i < 0)
      return -1;
    inst = entry_of(map, (size_t)i);
    if (make_instance(pg, inst, err, err_size) != 0)
      return -1;
    inst->by_option = true;
    snprintf(inst->why, sizeof(inst->why), "chosen with --instance");
  } else if (want_instance == NULL) {
    for (size_t i = 0; i < map->n && inst == NULL; i++)
      if (map->m[i].f->table == 0 && map->m[i].vtype == RP_V_USERID &&
          map->m[i].role == RP_ROLE_TEXT && !map->m[i].by_option &&
          map->m[i].bit == NULL)
        inst = &map->m[i];
    for (size_t i = 0; i < map->n && inst == NULL; i++)
      if (map->m[i].f->table == 0 && map->m[i].role == RP_ROLE_ID &&
          map->m[i].f->dim == 1 && engine_integer(map->m[i].f) &&
          !map->m[i].by_option && map->m[i].bit == NULL)
        inst = &map->m[i];
    if (inst != NULL && make_instance(pg, inst, err, err_size) != 0)
      return -1;
  }
  if (inst != NULL) {
    map->instance[0] = inst;
    /* The built-in's one fixed instance ("system") names a record without
     * an instance field; the plugin refuses InstanceName beside one. */
    map->instance_name[0] = '\0';
  }
  /* A record IBM writes per virtual processor (VMDBK) of a guest: its
   * processor address makes the block sum it per guest. */
  bool per_vmdbk = pg->per_vcpu && inst != NULL && inst->vtype == RP_V_USERID;

  /* --fields */
  bool *chosen = NULL;
  if (opt->fields != NULL) {
    chosen = calloc(map->n ? map->n : 1, sizeof(*chosen));
    if (chosen == NULL)
      return fail(err, err_size, "out of memory");
    for (size_t k = 0; k < opt->nfields; k++) {
      long i = find_named(pg, opt->fields[k], "--fields", err, err_size);
      if (i < 0) {
        free(chosen);
        return -1;
      }
      chosen[i] = true;
    }
  }

  /* Prefix. */
  if (opt->prefix != NULL) {
    if (!valid_word(opt->prefix, MAX_PREFIX, false))
      return free(chosen),
             fail(err, err_size,
                  "--prefix %s: letters, digits and _ only, at most %d "
                  "characters",
                  opt->prefix, MAX_PREFIX);
    if (inst == NULL && opt->prefix[0] != '\0')
      return free(chosen),
             fail(err, err_size,
                  "--prefix %s: the record has no instance field to put it "
                  "before (choose one with --instance)",
                  opt->prefix);
    snprintf(map->prefix, sizeof(map->prefix), "%s", opt->prefix);
  } else if (inst != NULL && inst->role == RP_ROLE_ID) {
    snprintf(map->prefix, sizeof(map->prefix), "%s",
             strstr(inst->why, "device") != NULL ? "dev" : "cpu");
  }

  find_arrays(pg, map, opt);

  /* Every other field: a <Field>, or skipped with its reason. */
  size_t nfields = inst != NULL ? 1 : 0;
  if (inst != NULL) {
    ds_base(pg, inst->f->name, inst->ds, sizeof(inst->ds));
    inst->ds[MAX_DS_NAME] = '\0';
  }
  for (size_t i = 0; i < map->n; i++) {
    struct rp_mapped *m = &map->m[i];
    const struct rp_field *f = m->f;
    if (m == inst || (f->table > 0 && m->kind == RP_K_INSTANCE && m->emit))
      continue;
    m->emit = false;
#define SKIP(...) snprintf(m->skip, sizeof(m->skip), __VA_ARGS__)
    if (m->extra) { /* a MAX flag beside its count (the built-in's) */
      const char *by = NULL;
      if (!entry_of(map, m->fi)->emit)
        continue;
      if (ds_taken(map, m->ds, map->n, f->table, &by)) {
        SKIP("its data source name %s is taken by %s", m->ds, by);
        continue;
      }
      m->kind = RP_K_GAUGE;
      m->emit = true;
      map->nds++;
      nfields++;
      continue;
    }
    if (m->role == RP_ROLE_LAYOUT && f->table == 0) {
      /* Kept whatever --fields says, with the array it locates. */
      bool loc = false;
      for (size_t a = 0; a < map->narrays; a++)
        for (int k = 0; k < 3; k++)
          loc |= map->arrays[a].emit && map->arrays[a].loc[k] == m;
      if (!loc) {
        SKIP("locates a variable array that this block cannot hold (see "
             "the array's fields)");
        continue;
      }
      if (m->order < 0) {
        ds_base(pg, f->name, m->ds, sizeof(m->ds));
        m->ds[MAX_DS_NAME] = '\0';
      }
      m->kind = RP_K_LAYOUT;
      m->emit = true;
      m->skip[0] = '\0';
      nfields++;
      continue;
    }
    if (m->skip[0] != '\0' && (m->role == RP_ROLE_NONE || m->by_option))
      continue; /* reserved, other types, --kind skip */
    if (m->role == RP_ROLE_NONE)
      continue; /* structure, header, labels: no line */
    if (f->table != 0) {
      const struct rp_marray *a = array_of(map, f->table);
      if (a == NULL || !a->emit) {
        SKIP("a field of the variable array %s: %s", nested_name(pg, f->table),
             a != NULL ? a->skip : "more arrays than a block holds");
        continue;
      }
    }
    if (per_vmdbk && f->table == 0 && m->bit == NULL && m->role == RP_ROLE_ID &&
        !map->per_vmdbk && strstr(m->why, "processor") != NULL &&
        f->type == RP_UNSIGNED && (f->length == 1 || f->length == 2) &&
        f->dim == 1 && overlapping(map, m) == NULL) {
      /* Kept whatever --fields says, like the instance field. */
      const char *by = NULL;
      ds_base(pg, f->name, m->ds, sizeof(m->ds));
      m->ds[MAX_DS_NAME] = '\0';
      if (ds_taken(map, m->ds, map->n, 0, &by)) {
        SKIP("its data source name %s is taken by %s", m->ds, by);
        continue;
      }
      m->kind = RP_K_PROCESSOR;
      snprintf(m->why, sizeof(m->why),
               "IBM writes the record once per virtual processor: the "
               "guest's counters are summed over them");
      m->emit = true;
      m->skip[0] = '\0';
      map->per_vmdbk = true;
      nfields++;
      continue;
    }
    if (m->bit != NULL) {
      if (map_bit(pg, map, m, per_vmdbk, chosen, &nfields) != 0)
        continue;
      m->emit = true;
      m->skip[0] = '\0';
      map->nds += m->kind == RP_K_GAUGE;
      nfields++;
      continue;
    }
    if (chosen != NULL && !chosen[m->fi]) {
      SKIP("not chosen (--fields)");
      continue;
    }
    switch (m->role) {
    case RP_ROLE_COUNTER:
    case RP_ROLE_GAUGE:
      break;
    case RP_ROLE_FLAGS: {
      size_t named = 0, len = 0;
      char list[120] = "";
      for (size_t b = 0; b < f->nbits; b++) {
        if (strcmp(f->bits[b].name, "*") == 0)
          continue;
        named++;
        if (len + strlen(f->bits[b].name) + 8 < sizeof(list))
          len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
                                  len ? ", " : "", f->bits[b].name);
        else if (len + 5 < sizeof(list) && strstr(list, "...") == NULL)
          len += (size_t)snprintf(list + len, sizeof(list) - len, ", ...");
      }
      if (named > 0)
        m->skip[0] = '\0'; /* its named bits are fields of their own */
      else
        SKIP("%s without named bits",
             f->type == RP_BITSTRING ? "bitstring" : "flag field");
      continue;
    }
    case RP_ROLE_CODE:
      SKIP("a code (its values name states): not a quantity");
      continue;
    case RP_ROLE_LAYOUT:
      SKIP("locates a variable array inside an array entry");
      continue;
    case RP_ROLE_TEXT:
      if (m->vtype == RP_V_USERID)
        SKIP("a user ID; the record's instance field is %s",
             inst != NULL ? inst->f->name : "none (--instance none)");
      else
        SKIP("character data");
      continue;
    case RP_ROLE_ID:
      if (inst != NULL && inst->vtype == RP_V_USERID)
        SKIP("%s: beside a user ID this engine version takes no second "
             "instance field",
             m->why);
      else
        SKIP("%s, not a quantity (the instance field is %s)", m->why,
             inst != NULL ? inst->f->name : "none");
      continue;
    case RP_ROLE_NONE:
    default:
      continue;
    }
    if (m->vtype != RP_V_CPUTIMER && m->vtype != RP_V_TOD &&
        !engine_integer(f)) {
      SKIP("%s %u: the engine reads integers of 1, 2, 4 or 8 bytes",
           rp_type_name(f->type), f->length);
      continue;
    }
    if (f->dim > MAX_COUNT) {
      SKIP("an array of %u elements: more than a Count holds (limit %d)",
           f->dim, MAX_COUNT);
      continue;
    }
    m->kind = m->role == RP_ROLE_COUNTER ? RP_K_COUNTER : RP_K_GAUGE;
    m->count = f->dim;
    /* IBM's four dispatch-list queues Q0-Q3: elements _q0.._q3. */
    if (m->count == 4 && m->order < 0 && f->desc != NULL &&
        says(f->desc, "dispatch list"))
      snprintf(m->elem_prefix, sizeof(m->elem_prefix), "_q");
    if (map->nds + m->count > MAX_DS) {
      SKIP("more fields than a record block holds (limit %d data sources)",
           MAX_DS);
      continue;
    }
    if (nfields + 1 > MAX_FIELDS) {
      SKIP("more fields than a record block holds (limit %d fields)",
           MAX_FIELDS);
      continue;
    }
    /* The data source name: IBM's without the structure's prefix, cut to
     * what rrdtool holds with the array suffix (the built-in's own name
     * where it has the field). */
    if (m->order < 0) {
      char base[RP_NAME_MAX + 2];
      ds_base(pg, f->name, base, sizeof(base));
      size_t room = MAX_DS_NAME;
      if (m->count > 1)
        room -= (m->elem_prefix[0] ? strlen(m->elem_prefix) : 1) +
                (m->count > 10 ? 2 : 1);
      base[room < sizeof(base) ? room : sizeof(base) - 1] = '\0';
      snprintf(m->ds, sizeof(m->ds), "%.19s", base);
    }
    const char *by = NULL;
    bool taken = false;
    for (unsigned e = 0; e < m->count && !taken; e++) {
      char n[80];
      if (m->count > 1)
        snprintf(n, sizeof(n), "%s%s%u", m->ds,
                 m->elem_prefix[0] ? m->elem_prefix : "_", e);
      else
        snprintf(n, sizeof(n), "%s", m->ds);
      taken = ds_taken(map, n, map->n, f->table, &by) ||
              (inst != NULL && strcmp(inst->ds, n) == 0 &&
               (by = inst->f->name) != NULL);
    }
    if (taken) {
      SKIP("its data source name %s is taken by %s", m->ds, by);
      continue;
    }
    const struct rp_mapped *o = overlapping(map, m);
    if (o != NULL) {
      SKIP("its bytes are %s's too (the page's rows overlap)",
           o->bit != NULL ? o->bit->name : o->f->name);
      continue;
    }
    m->emit = true;
    m->skip[0] = '\0';
    map->nds += m->count;
    nfields++;
#undef SKIP
  }
  free(chosen);
  /* A locating field whose name or bytes another field of the block has
   * (a page that repeats a row) cannot be written: no <Array> block. */
  for (size_t a = 0; a < map->narrays; a++) {
    struct rp_marray *ar = &map->arrays[a];
    for (int k = 0; ar->emit && k < 3; k++) {
      const struct rp_mapped *l = ar->loc[k], *o = overlapping(map, l);
      for (size_t i = 0; o == NULL && i < map->n; i++) {
        const struct rp_mapped *x = &map->m[i];
        if (x != l && x->emit && x->f->table == 0 && x->count <= 1 &&
            strcasecmp(x->ds, l->ds) == 0)
          o = x;
      }
      if (o != NULL) {
        char reason[sizeof(ar->skip)];
        snprintf(reason, sizeof(reason),
                 "its locating field %s has the name or bytes of %s too",
                 l->f->name, o->bit != NULL ? o->bit->name : o->f->name);
        drop_array(pg, map, ar, reason);
      }
    }
  }
  /* An array with nothing to dispatch is no <Array> block. */
  for (size_t a = 0; a < map->narrays; a++) {
    struct rp_marray *ar = &map->arrays[a];
    bool values = false;
    for (size_t i = 0; ar->emit && i < map->n; i++)
      values |=
          map->m[i].emit && map->m[i].f->table == ar->table &&
          (map->m[i].kind == RP_K_COUNTER || map->m[i].kind == RP_K_GAUGE);
    if (ar->emit && !values)
      drop_array(pg, map, ar, "none of its fields is a counter or gauge");
  }
  /* The processor field sums the record's own counters and gauges per
   * guest: with none chosen (only an array's fields), it has none to sum. */
  bool own = false;
  for (size_t i = 0; map->per_vmdbk && i < map->n; i++)
    own |= map->m[i].emit && map->m[i].f->table == 0 &&
           (map->m[i].kind == RP_K_COUNTER || map->m[i].kind == RP_K_GAUGE);
  for (size_t i = 0; map->per_vmdbk && !own && i < map->n; i++) {
    struct rp_mapped *m = &map->m[i];
    if (m->emit && m->kind == RP_K_PROCESSOR) {
      m->emit = false;
      snprintf(m->skip, sizeof(m->skip),
               "no counter or gauge of the record itself is chosen for it to "
               "sum per guest");
    }
  }
  if (!own)
    map->per_vmdbk = false;
  for (size_t i = 0; i < map->n; i++) {
    struct rp_mapped *m = &map->m[i];
    if (m->emit && m->kind == RP_K_BASE && !map->per_vmdbk) {
      m->kind = RP_K_GAUGE; /* no processor field to go with it */
      map->nds++;
    }
  }
  if (opt->count != NULL) {
    const char *by = NULL;
    if (!valid_word(opt->count, MAX_DS_NAME, true))
      return fail(err, err_size,
                  "--count %s: a letter followed by letters, digits or _, at "
                  "most %d characters",
                  opt->count, MAX_DS_NAME);
    snprintf(map->count, sizeof(map->count), "%s", opt->count);
    for (char *p = map->count; *p != '\0'; p++)
      *p = (char)tolower((unsigned char)*p);
    if (ds_taken(map, map->count, map->n, 0, &by))
      return fail(err, err_size, "--count %s: the data source name is %s's",
                  opt->count, by);
    if (map->nds + 1 > MAX_DS)
      return fail(err, err_size,
                  "--count %s: the block holds %d data sources already",
                  opt->count, MAX_DS);
    map->nds++;
    map->counters++;
  }
  for (size_t i = 0; i < map->n; i++) {
    const struct rp_mapped *m = &map->m[i];
    if (m->emit) {
      map->emitted++;
      map->counters += m->kind == RP_K_COUNTER;
      map->gauges += m->kind == RP_K_GAUGE;
      map->instances += m->kind == RP_K_INSTANCE && m->f->table == 0;
    } else if (m->skip[0] != '\0') {
      map->skipped++;
    }
  }
  if (map->counters + map->gauges == 0)
    return fail(err, err_size,
                "D%dR%d %s: no field this engine version can hold as a "
                "counter or gauge (%zu skipped), so there is no block to write",
                pg->domain, pg->number, pg->dsect, map->skipped);
  return 0;
}

/* ------------------------------------------------------------------------
 * Text.
 */
/* A comment's words, wrapped, printable ASCII only. */
static void comment(struct rp_buf *out, const char *indent, const char *text) {
  const size_t width = 76;
  size_t col = 0;
  const char *p = text;
  while (*p != '\0') {
    while (*p == ' ')
      p++;
    if (*p == '\0')
      break;
    size_t n = 0;
    while (p[n] != '\0' && p[n] != ' ')
      n++;
    if (col == 0 || col + 1 + n > width) {
      if (col > 0)
        rp_buf_printf(out, "\n");
      rp_buf_printf(out, "%s", indent);
      col = strlen(indent);
    } else {
      rp_buf_printf(out, " ");
      col++;
    }
    for (size_t k = 0; k < n; k++) {
      unsigned char ch = (unsigned char)p[k];
      rp_buf_printf(out, "%c", ch >= 0x20 && ch < 0x7F ? ch : '?');
    }
    col += n;
    p += n;
  }
  if (col > 0)
    rp_buf_printf(out, "\n");
}

static void record_label(const struct rp_page *pg, char *buf, size_t size) {
  snprintf(buf, size, "D%dR%d %s", pg->domain, pg->number,
           pg->mrname[0] != '\0' ? pg->mrname : pg->dsect);
}

/* One <Field> block with its comments. */
static void write_field(const struct rp_mapped *m, const char *ind,
                        struct rp_buf *out) {
  const struct rp_field *f = m->f;
  char text[600], ci[16], ci2[16];
  snprintf(ci, sizeof(ci), "%s# ", ind);
  snprintf(ci2, sizeof(ci2), "%s#   ", ind);
  char dim[16] = "";
  if (f->dim > 1)
    snprintf(dim, sizeof(dim), "(%u)", f->dim);
  rp_buf_printf(out, "\n");
  if (m->bit != NULL) {
    snprintf(text, sizeof(text),
             "%s: bit X'%llX' of %s, offset %u (X'%X'), %s %u", m->bit->name,
             m->mask, f->name, f->offset, f->offset, rp_type_name(f->type),
             f->length);
    comment(out, ci, text);
    if (m->bit->desc != NULL)
      comment(out, ci2, m->bit->desc);
  } else {
    snprintf(text, sizeof(text), "%s%s: offset %u (X'%X')%s, %s %u", f->name,
             dim, f->offset, f->offset, f->table > 0 ? " in the entry" : "",
             rp_type_name(f->type), f->length);
    comment(out, ci, text);
    if (f->desc != NULL && !m->extra)
      comment(out, ci2, f->desc);
  }
  snprintf(text, sizeof(text), "%s %s: %s", kind_names[m->kind],
           m->order >= 0  ? "(built-in)"
           : m->by_option ? "(option)"
                          : "(guess)",
           m->why);
  comment(out, ci, text);
  rp_buf_printf(out, "%s<Field \"%s\">\n", ind, m->ds);
  rp_buf_printf(out, "%s  Offset %u\n%s  Length %u\n", ind, f->offset, ind,
                f->length);
  rp_buf_printf(out, "%s  Type \"%s\"\n%s  Kind \"%s\"\n", ind,
                m->bit != NULL ? "unsigned" : vtype_names[m->vtype], ind,
                kind_names[m->kind]);
  if (m->bit != NULL)
    rp_buf_printf(out, "%s  Mask %llu\n", ind, m->mask);
  if (m->kind == RP_K_INSTANCE && m->vtype == RP_V_UNSIGNED && m->hex)
    rp_buf_printf(out, "%s  Format \"hex\"\n", ind);
  if (m->kind == RP_K_INSTANCE && m->cputype)
    rp_buf_printf(out, "%s  Format \"cputype\"\n", ind);
  if (m->allones != RP_ALLONES_NONE)
    rp_buf_printf(out, "%s  AllOnes \"%s\"\n", ind,
                  m->allones == RP_ALLONES_NAN ? "nan" : "flag");
  if (m->single_type != NULL)
    rp_buf_printf(out, "%s  OneValueType \"%s\"\n", ind, m->single_type);
  if (m->count > 1)
    rp_buf_printf(out, "%s  Count %u\n", ind, m->count);
  if (m->elem_prefix[0] != '\0')
    rp_buf_printf(out, "%s  ElementPrefix \"%s\"\n", ind, m->elem_prefix);
  rp_buf_printf(out, "%s</Field>\n", ind);
}

/* Where a field goes: the built-in table's position, else after them in
 * the page's order. */
static long field_rank(const struct rp_map *map, const struct rp_mapped *m) {
  (void)map;
  return m->order >= 0 ? (long)m->order : 1000000L + (long)(m - map->m);
}

/* The fields of one table (0: the record's): its instance first (and the
 * record's count), then the others by rank. */
static void write_fields(const struct rp_page *pg, const struct rp_map *map,
                         unsigned table, const char *ind, struct rp_buf *out) {
  (void)pg;
  for (size_t i = 0; i < map->n; i++)
    if (map->m[i].emit && map->m[i].f->table == table &&
        map->m[i].kind == RP_K_INSTANCE)
      write_field(&map->m[i], ind, out);
  if (table == 0 && map->count[0] != '\0') {
    rp_buf_printf(out, "\n");
    comment(out, "  # ",
            map->per_vmdbk ? "counter (option): the guest's records (of its "
                             "base VMDBK), not in the bytes"
                           : "counter (option): the instance's records, not "
                             "in the bytes");
    rp_buf_printf(out,
                  "  <Field \"%s\">\n    Type \"records\"\n"
                  "    Kind \"counter\"\n",
                  map->count);
    if (map->count_type != NULL)
      rp_buf_printf(out, "    OneValueType \"%s\"\n", map->count_type);
    rp_buf_printf(out, "  </Field>\n");
  }
  long last = -1;
  for (;;) { /* the next rank after last: n is small (at most 512) */
    const struct rp_mapped *next = NULL;
    for (size_t i = 0; i < map->n; i++) {
      const struct rp_mapped *m = &map->m[i];
      if (!m->emit || m->f->table != table || m->kind == RP_K_INSTANCE)
        continue;
      long r = field_rank(map, m);
      if (r > last && (next == NULL || r < field_rank(map, next)))
        next = m;
    }
    if (next == NULL)
      break;
    last = field_rank(map, next);
    write_field(next, ind, out);
  }
}

void rp_write_block(const struct rp_page *pg, const struct rp_map *map,
                    const struct rp_options *opt, struct rp_buf *out) {
  char label[64], text[600];
  record_label(pg, label, sizeof(label));
  snprintf(text, sizeof(text), "%s%s%s", label, pg->title[0] ? ": " : "",
           pg->title);
  comment(out, "# ", text);
  snprintf(
      text, sizeof(text),
      "From IBM's monitor record page%s%s%s%s%s, %u bytes%s; every offset "
      "below is the page's%s.",
      pg->level[0] ? " for " : "", pg->level, opt->source != NULL ? " (" : "",
      opt->source != NULL ? opt->source : "", opt->source != NULL ? ")" : "",
      pg->length, pg->variable ? " and a variable tail" : "",
      pg->has_xref ? ", checked against its cross reference" : "");
  comment(out, "# ", text);
  snprintf(text, sizeof(text),
           "Written by zvm-monitor-record%s%s. Kinds marked \"guess\" come "
           "from the page's wording: check them (zvm-monitor-record(1)).",
           opt->version != NULL ? " " : "",
           opt->version != NULL ? opt->version : "");
  comment(out, "# ", text);
  if (opt->builtin) {
    snprintf(text, sizeof(text),
             "The plugin decodes D%dR%d itself: Replace true puts this "
             "definition in place of its built-in table (its built-in values "
             "stop; its notifications: Replace in collectd-zvm_monitor(5)).",
             pg->domain, pg->number);
    comment(out, "# ", text);
  }
  bool base = false;
  for (size_t i = 0; i < map->n; i++)
    base |= map->m[i].emit && map->m[i].kind == RP_K_BASE;
  if (map->per_vmdbk)
    comment(out, "# ",
            base ? "IBM writes this record once per virtual processor "
                   "(VMDBK): the field of Kind processor sums its counters "
                   "per guest over them; its gauges are the base VMDBK's."
                 : "IBM writes this record once per virtual processor "
                   "(VMDBK): the field of Kind processor sums its counters "
                   "per guest over them; the page names no base VMDBK bit, "
                   "so its gauges are the latest record's.");
  else if (pg->per_vcpu)
    comment(out, "# ",
            "IBM writes this record once per virtual processor; without a "
            "user ID and a processor address to sum them by, each record's "
            "values go out as they come.");
  if (map->nds > MAX_DS_LIST) {
    snprintf(text, sizeof(text),
             "%zu data sources, more than one value list holds (%d): the "
             "plugin sends them one value per list (types derive and gauge, "
             "type instance the field's name).",
             map->nds, MAX_DS_LIST);
    comment(out, "# ", text);
  }
  rp_buf_printf(out, "<Record \"%d/%d\">\n", pg->domain, pg->number);
  rp_buf_printf(out, "  Name \"%s\"\n", map->name);
  if (opt->builtin)
    rp_buf_printf(out, "  Replace true\n");
  if (map->prefix[0] != '\0')
    rp_buf_printf(out, "  InstancePrefix \"%s\"\n", map->prefix);
  if (map->instance_name[0] != '\0')
    rp_buf_printf(out, "  InstanceName \"%s\"\n", map->instance_name);
  /* The instance field first (and the record count), then the others in
   * the built-in table's order, else the page's. */
  write_fields(pg, map, 0, "  ", out);
  for (size_t a = 0; a < map->narrays; a++) {
    const struct rp_marray *ar = &map->arrays[a];
    if (!ar->emit)
      continue;
    rp_buf_printf(out, "\n");
    snprintf(text, sizeof(text),
             "The variable array %s: one instance per entry, located by %s, "
             "%s and %s; offsets from the entry's start.",
             nested_name(pg, ar->table), ar->loc[0]->f->name,
             ar->loc[1]->f->name, ar->loc[2]->f->name);
    comment(out, "  # ", text);
    rp_buf_printf(out,
                  "  <Array \"%s\">\n    Name \"%s\"\n    CountField \"%s\"\n"
                  "    SizeField \"%s\"\n    OffsetField \"%s\"\n",
                  ar->label, ar->name, ar->loc[0]->ds, ar->loc[1]->ds,
                  ar->loc[2]->ds);
    write_fields(pg, map, ar->table, "    ", out);
    rp_buf_printf(out, "  </Array>\n");
  }
  rp_buf_printf(out, "</Record>\n");
}

void rp_write_summary(const struct rp_page *pg, const struct rp_map *map,
                      const char *indent, struct rp_buf *out) {
  char label[64];
  record_label(pg, label, sizeof(label));
  rp_buf_printf(out, "%s%s (%s, %u bytes%s): %u rows%s\n", indent, label,
                pg->level[0] ? pg->level : "z/VM level not stated", pg->length,
                pg->variable ? " and a variable tail" : "", pg->rows,
                pg->has_xref ? " checked, and against the cross reference"
                             : " checked (the page has no cross reference)");
  rp_buf_printf(out,
                "%s  mapped %zu fields: %zu instance, %zu counters, %zu "
                "gauges (%zu data sources)\n",
                indent, map->emitted, map->instances, map->counters,
                map->gauges, map->nds);
  for (size_t a = 0; a < map->narrays; a++) {
    const struct rp_marray *ar = &map->arrays[a];
    size_t n = 0;
    for (size_t i = 0; i < map->n; i++)
      n += map->m[i].emit && map->m[i].f->table == ar->table;
    if (ar->emit)
      rp_buf_printf(out,
                    "%s  array %s: <Array \"%s\"> of %zu fields (type zvm_%s), "
                    "located by %s, %s, %s\n",
                    indent, nested_name(pg, ar->table), ar->label, n, ar->name,
                    ar->loc[0]->f->name, ar->loc[1]->f->name,
                    ar->loc[2]->f->name);
    else
      rp_buf_printf(out, "%s  array %s: not mapped: %s\n", indent,
                    nested_name(pg, ar->table), ar->skip);
  }
  if (map->skipped > 0)
    rp_buf_printf(out, "%s  skipped %zu fields:\n", indent, map->skipped);
  for (size_t i = 0; i < map->n; i++) {
    const struct rp_mapped *m = &map->m[i];
    if (m->emit || m->skip[0] == '\0')
      continue;
    if (m->f->table > 0)
      rp_buf_printf(out, "%s    %s (offset %u of a %s entry): %s\n", indent,
                    m->f->name, m->f->offset, nested_name(pg, m->f->table),
                    m->skip);
    else
      rp_buf_printf(out, "%s    %s (offset %u): %s\n", indent, m->f->name,
                    m->f->offset, m->skip);
  }
}
