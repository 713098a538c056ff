/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - a Grafana dashboard for the <Record> blocks
 * zvm-monitor-record writes: one panel per mapped field (an array: one
 * panel with its elements; the named bits of one flag field: one panel;
 * the record count: one panel; a field of a variable array's entries: one
 * panel with a series per entry, in a row of the array's own), IBM's name
 * and description as the panel's description, counters as rates per
 * second, gauges as they are.
 *
 * The model is contrib/grafana/make-dashboards.py's (its Metric and the
 * functions graphite(), influxdb(), prometheus(), variables() and
 * dashboard()): the same datasource variable, the same host variable, the
 * same query shapes per back end, the same legends. Graphite reads
 * write_graphite with the plugin's "OneValuePerList true" (types derive
 * and gauge or the field's OneValueType, the data source as type
 * instance); InfluxDB 1.x (collectd listener) and Prometheus
 * (write_prometheus) read the record's own value list of type zvm_<name>
 * (an array's entries: the array's zvm_<name>, the entry's instance as
 * plugin instance), or, past 63 data sources, one value per list as
 * Graphite does (contrib/zvm_monitor.pod, RECORDS DEFINED IN
 * COLLECTD.CONF).
 */
#include "recpage.h"

#include <stdio.h>
#include <string.h>

#define PLUGIN "zvm_monitor"
#define MAX_DS_LIST 63 /* collectd's types.db limit per type */

const char *const rp_dash_kinds[RP_DASH_KINDS] = {"graphite", "influxdb",
                                                  "prometheus"};

/* A JSON string of s. */
static void jstr(struct rp_buf *b, const char *s) {
  rp_buf_printf(b, "\"");
  for (; *s != '\0'; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      rp_buf_printf(b, "\\%c", c);
    else if (c < 0x20)
      rp_buf_printf(b, "\\u%04x", c);
    else
      rp_buf_printf(b, "%c", c);
  }
  rp_buf_printf(b, "\"");
}

/* "key": "value" */
static void jkv(struct rp_buf *b, const char *key, const char *value) {
  jstr(b, key);
  rp_buf_printf(b, ": ");
  jstr(b, value);
}

/* n "key": "value" pairs (kv: key, value, key, ...), comma-separated */
static void jkvs(struct rp_buf *b, const char *const *kv, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (i > 0)
      rp_buf_printf(b, ", ");
    jkv(b, kv[2 * i], kv[2 * i + 1]);
  }
}

/* One data source as the back end has it (make-dashboards.py's Metric). */
struct metric {
  const char *pinst; /* "$guest", "$<name>", or "" (no instance) */
  char type[40];     /* zvm_<name>, or derive/gauge with one value per list */
  const char *tinst; /* the data source with one value per list, else "" */
  const char *ds;    /* the data source, "value" with one value per list */
  const char *name;  /* the legend's last word: the data source */
  bool counter;
};

/* The data sources of a layout: the record's own (table 0, the record
 * count with them) or an array's entries (the page's table of the entry). */
static size_t layout_nds(const struct rp_map *map, unsigned table) {
  size_t n = table == 0 && map->count[0] != '\0' ? 1 : 0;
  for (size_t i = 0; i < map->n; i++) {
    const struct rp_mapped *m = &map->m[i];
    if (m->emit && m->f->table == table &&
        (m->kind == RP_K_COUNTER || m->kind == RP_K_GAUGE))
      n += m->count > 1 && m->bit == NULL ? m->count : 1;
  }
  return n;
}

/* The array of a page's table, or NULL. */
static const struct rp_marray *array_of(const struct rp_map *map,
                                        unsigned table) {
  for (size_t a = 0; a < map->narrays; a++)
    if (map->arrays[a].emit && map->arrays[a].table == table)
      return &map->arrays[a];
  return NULL;
}

/* ds of a layout (table) as the plugin dispatches it (plugin/mapper,
 * cdname.c): one value per list with type derive, gauge or the field's
 * OneValueType (single), else the layout's type zvm_<name>. */
static void metric(struct metric *m, const struct rp_map *map, const char *kind,
                   const char *var, unsigned table, const char *ds,
                   const char *single, bool counter) {
  bool one =
      strcmp(kind, "graphite") == 0 || layout_nds(map, table) > MAX_DS_LIST;
  const struct rp_marray *a = table != 0 ? array_of(map, table) : NULL;
  m->pinst = var;
  m->counter = counter;
  m->name = ds;
  if (one) {
    snprintf(m->type, sizeof(m->type), "%s",
             single != NULL ? single
             : counter      ? "derive"
                            : "gauge");
    m->tinst = ds;
    m->ds = "value";
  } else {
    snprintf(m->type, sizeof(m->type), "zvm_%s",
             a != NULL ? a->name : map->name);
    m->tinst = "";
    m->ds = ds;
  }
}

static void graphite_path(struct rp_buf *q, const struct metric *m) {
  rp_buf_printf(q, "collectd.$host.%s%s%s.%s", PLUGIN, m->pinst[0] ? "-" : "",
                m->pinst, m->type);
  if (m->tinst[0] != '\0')
    rp_buf_printf(q, "-%s", m->tinst);
  if (strcmp(m->ds, "value") != 0)
    rp_buf_printf(q, ".%s", m->ds);
}

/* The target's fields after its refId and datasource. */
static void target(struct rp_buf *b, const char *kind, const struct metric *m) {
  struct rp_buf q = {0};
  bool prefix = m->pinst[0] == '$';
  if (strcmp(kind, "graphite") == 0) {
    struct rp_buf path = {0};
    graphite_path(&path, m);
    const char *p = path.p != NULL ? path.p : "";
    if (prefix)
      rp_buf_printf(&q,
                    "aliasSub(aliasByNode(%s%s%s, 2), '^%s-(.*)$', '\\1 %s')",
                    m->counter ? "perSecond(interpolate(" : "", p,
                    m->counter ? "))" : "", PLUGIN, m->name);
    else
      rp_buf_printf(&q, "alias(%s%s%s, '%s')",
                    m->counter ? "perSecond(interpolate(" : "", p,
                    m->counter ? "))" : "", m->name);
    rp_buf_free(&path);
    jkv(b, "target", q.p != NULL ? q.p : "");
  } else if (strcmp(kind, "influxdb") == 0) {
    rp_buf_printf(&q,
                  "SELECT %s FROM \"%s_%s\" WHERE \"host\" =~ /^$host$/ AND ",
                  m->counter ? "non_negative_derivative(mean(\"value\"), 1s)"
                             : "mean(\"value\")",
                  PLUGIN, m->ds);
    if (prefix)
      rp_buf_printf(&q, "\"instance\" =~ /^%s$/", m->pinst);
    else
      rp_buf_printf(&q, "\"instance\" = '%s'", m->pinst);
    rp_buf_printf(&q, " AND \"type\" = '%s'", m->type);
    if (m->tinst[0] != '\0')
      rp_buf_printf(&q, " AND \"type_instance\" = '%s'", m->tinst);
    rp_buf_printf(&q,
                  " AND $timeFilter GROUP BY time($__interval)%s fill(none)",
                  prefix ? ", \"instance\"" : "");
    rp_buf_printf(b, "\"rawQuery\": true, \"resultFormat\": \"time_series\", ");
    jkv(b, "query", q.p != NULL ? q.p : "");
    rp_buf_printf(b, ", ");
    struct rp_buf a = {0};
    rp_buf_printf(&a, "%s%s", prefix ? "$tag_instance " : "", m->name);
    jkv(b, "alias", a.p != NULL ? a.p : "");
    rp_buf_free(&a);
  } else {
    rp_buf_printf(&q, "%scollectd_%s_%s", m->counter ? "rate(" : "", PLUGIN,
                  m->type);
    if (strcmp(m->ds, "value") != 0)
      rp_buf_printf(&q, "_%s", m->ds);
    rp_buf_printf(&q, "%s{instance=~\"$host\", %s%s\"%s\"",
                  m->counter ? "_total" : "", PLUGIN, prefix ? "=~" : "=",
                  m->pinst);
    if (m->tinst[0] != '\0')
      rp_buf_printf(&q, ", type=\"%s\"", m->tinst);
    rp_buf_printf(&q, "}%s", m->counter ? "[$rate_window])" : "");
    jkv(b, "expr", q.p != NULL ? q.p : "");
    rp_buf_printf(b, ", ");
    struct rp_buf l = {0};
    rp_buf_printf(&l, "%s%s", prefix ? "{{" PLUGIN "}} " : "", m->name);
    jkv(b, "legendFormat", l.p != NULL ? l.p : "");
    rp_buf_free(&l);
    rp_buf_printf(b, ", \"range\": true");
  }
  b->oom |= q.oom;
  rp_buf_free(&q);
}

/* The field that names a layout's instances: the record's first instance
 * field, or the array entry's; NULL for none. */
static const struct rp_mapped *instance_field(const struct rp_map *map,
                                              unsigned table) {
  if (table == 0)
    return map->instance[0];
  for (size_t i = 0; i < map->n; i++)
    if (map->m[i].emit && map->m[i].f->table == table &&
        map->m[i].kind == RP_K_INSTANCE)
      return &map->m[i];
  return NULL;
}

/* The per-instance variable of a layout: "guest" for a user ID, "cputype"
 * for entries named by their CPU type (the shipped dashboards' names),
 * else the record's or the array's name; "" for none. */
static void instance_var(const struct rp_map *map, unsigned table, char *var,
                         size_t size) {
  const struct rp_mapped *i = instance_field(map, table);
  const struct rp_marray *a = table != 0 ? array_of(map, table) : NULL;
  if (i == NULL)
    snprintf(var, size, "%s", "");
  else if (i->vtype == RP_V_USERID)
    snprintf(var, size, "%s", "guest");
  else if (i->cputype)
    snprintf(var, size, "%s", "cputype");
  else
    snprintf(var, size, "%s", a != NULL ? a->name : map->name);
}

/* A layout's plugin instance in the queries: "$var", the record's
 * InstanceName (D5R21's "system"), or "" (no plugin instance). */
static void instance_of(const struct rp_map *map, unsigned table, char *pinst,
                        size_t size) {
  char var[32];
  instance_var(map, table, var, sizeof(var));
  if (var[0] != '\0')
    snprintf(pinst, size, "$%s", var);
  else
    snprintf(pinst, size, "%s", table == 0 ? map->instance_name : "");
}

/* The data sources of one panel: a field's (its elements), a flag field's
 * named bits, or the record count. */
struct panel {
  const struct rp_mapped *first;
  size_t n;          /* mapped entries (the bits of one flag field) */
  const char *count; /* the record count's data source, or NULL */
  bool counter;
  unsigned table; /* 0: the record's own values; else an array's entries */
};

struct ctx {
  struct rp_buf *b;
  const char *kind;
  unsigned pid, y, x;
  bool first;
};

static void unit_text(struct rp_buf *d, const struct panel *p) {
  const struct rp_mapped *m = p->first;
  if (p->count != NULL)
    rp_buf_printf(d, " Unit: records per second.");
  else if (m->bit != NULL)
    rp_buf_printf(d, " Unit: 1 if the bit is set, else 0.");
  else if (m->allones == RP_ALLONES_FLAG)
    rp_buf_printf(d, " Unit: 1 if the field is all ones (MAX), else 0.");
  else if (m->vtype == RP_V_CPUTIMER)
    rp_buf_printf(d, " Unit: microseconds%s.", p->counter ? " per second" : "");
  else if (m->vtype == RP_V_TOD)
    rp_buf_printf(d, " Unit: seconds since 1970 (UTC)%s.",
                  p->counter ? " per second" : "");
  else if (p->counter)
    rp_buf_printf(d, " Unit: per second (the field's unit per second).");
  else
    rp_buf_printf(d, " Unit: the field's own (a level, as IBM describes it).");
}

/* ": TEXT." (IBM's description; its own full stop kept), or "." */
static void sentence(struct rp_buf *d, const char *text) {
  if (text == NULL || text[0] == '\0') {
    rp_buf_printf(d, ".");
    return;
  }
  size_t n = strlen(text);
  rp_buf_printf(d, ": %s%s", text, text[n - 1] == '.' ? "" : ".");
}

static void one_ds(struct ctx *c, const struct rp_map *map, const char *var,
                   const struct panel *p, const char *ds, const char *single,
                   bool counter, unsigned *ref) {
  struct metric m;
  metric(&m, map, c->kind, var, p->table, ds, single, counter);
  rp_buf_printf(c->b, "%s\n        {\"refId\": \"%s%c\", ", *ref ? "," : "",
                *ref >= 26 ? "Z" : "", 'A' + (char)(*ref % 26));
  rp_buf_printf(c->b,
                "\"datasource\": {\"type\": \"%s\", \"uid\": "
                "\"${datasource}\"}, ",
                c->kind);
  target(c->b, c->kind, &m);
  rp_buf_printf(c->b, "}");
  (*ref)++;
}

static void write_panel(struct ctx *c, const struct rp_page *page,
                        const struct rp_map *map, const char *var,
                        const struct panel *p) {
  struct rp_buf *b = c->b;
  struct rp_buf title = {0}, desc = {0};
  const struct rp_mapped *m = p->first;
  rp_buf_printf(&desc, "D%dR%d %s%s%s%s: ", page->domain, page->number,
                page->mrname[0] ? page->mrname : page->dsect,
                page->level[0] ? " (" : "", page->level,
                page->level[0] ? ")" : "");
  if (p->count != NULL) {
    rp_buf_printf(&title, "%s %s", page->dsect, p->count);
    rp_buf_printf(&desc,
                  "%s: the instance's records (not in the bytes: the "
                  "number of records since the instance was first seen%s).",
                  p->count,
                  map->per_vmdbk ? ", of the guest's base virtual CPU" : "");
  } else if (m->bit != NULL) {
    rp_buf_printf(&title, "%s bits", m->f->name);
    rp_buf_printf(&desc, "the named bits of %s (offset %u, %s %u):", m->f->name,
                  m->f->offset, rp_type_name(m->f->type), m->f->length);
    for (size_t i = 0; i < p->n; i++)
      rp_buf_printf(&desc, "%s %s (X'%llX', data source %s)", i ? ";" : "",
                    m[i].bit->name, m[i].mask, m[i].ds);
    rp_buf_printf(&desc, ".");
    for (size_t i = 0; i < p->n; i++)
      if (m[i].bit->desc != NULL) {
        rp_buf_printf(&desc, " %s", m[i].bit->name);
        sentence(&desc, m[i].bit->desc);
      }
  } else {
    const struct rp_marray *a = array_of(map, p->table);
    rp_buf_printf(&title, "%s%s", m->f->name,
                  m->allones == RP_ALLONES_FLAG ? " MAX" : "");
    rp_buf_printf(&desc, "%s (offset %u%s, %s %u", m->f->name, m->f->offset,
                  a != NULL ? " in an entry" : "", rp_type_name(m->f->type),
                  m->f->length);
    if (m->count > 1)
      rp_buf_printf(&desc, ", %u elements", m->count);
    rp_buf_printf(&desc, "; data source %s)", m->ds);
    if (m->allones == RP_ALLONES_FLAG)
      rp_buf_printf(&desc, ": 1 when %s is all ones (IBM's MAX), else 0.",
                    m->f->name);
    else
      sentence(&desc, m->f->desc);
    if (m->allones == RP_ALLONES_NAN)
      rp_buf_printf(&desc, " All ones (IBM's MAX) is no value (NaN).");
    if (a != NULL)
      rp_buf_printf(&desc, " One series per entry of the array %s (%s).",
                    a->label, a->name);
  }
  if (p->counter) {
    rp_buf_printf(&title, " per second");
    rp_buf_printf(&desc, " A counter: shown as a rate per second.");
  } else {
    rp_buf_printf(&desc, " A gauge: shown as it is.");
  }
  unit_text(&desc, p);
  rp_buf_printf(&desc, " Generated by zvm-monitor-record.");

  if (c->x + 12 > 24) {
    c->x = 0;
    c->y += 8;
  }
  rp_buf_printf(b, ",\n    {\"type\": \"timeseries\", ");
  jkv(b, "title", title.p != NULL ? title.p : "");
  rp_buf_printf(b, ", \"id\": %u, ", c->pid++);
  jkv(b, "description", desc.p != NULL ? desc.p : "");
  rp_buf_printf(b,
                ",\n      \"datasource\": {\"type\": \"%s\", \"uid\": "
                "\"${datasource}\"},\n"
                "      \"gridPos\": {\"h\": 8, \"w\": 12, \"x\": %u, \"y\": "
                "%u},\n"
                "      \"fieldConfig\": {\"defaults\": {\"unit\": \"short\"}, "
                "\"overrides\": []},\n"
                "      \"options\": {\"legend\": {\"displayMode\": \"list\", "
                "\"placement\": \"bottom\"}, \"tooltip\": {\"mode\": "
                "\"multi\"}},\n"
                "      \"targets\": [",
                c->kind, c->x, c->y);
  c->x += 12;
  unsigned ref = 0;
  if (p->count != NULL) {
    one_ds(c, map, var, p, p->count, map->count_type, true, &ref);
  } else if (m->bit != NULL) {
    for (size_t i = 0; i < p->n; i++)
      one_ds(c, map, var, p, m[i].ds, m[i].single_type, false, &ref);
  } else if (m->count > 1) {
    for (unsigned e = 0; e < m->count; e++) {
      char ds[80];
      snprintf(ds, sizeof(ds), "%s%s%u", m->ds,
               m->elem_prefix[0] ? m->elem_prefix : "_", e);
      one_ds(c, map, var, p, ds, m->single_type, p->counter, &ref);
    }
  } else {
    one_ds(c, map, var, p, m->ds, m->single_type, p->counter, &ref);
  }
  rp_buf_printf(b, "]}");
  b->oom |= title.oom || desc.oom;
  rp_buf_free(&title);
  rp_buf_free(&desc);
}

static bool shown(const struct rp_mapped *m, unsigned table) {
  return m->emit && m->f->table == table &&
         (m->kind == RP_K_COUNTER || m->kind == RP_K_GAUGE);
}

/* A row of the dashboard titled TITLE (var: the row's instance
 * variable). */
static void write_row(struct ctx *c, struct rp_buf *title, const char *var) {
  if (c->x > 0)
    c->y += 8;
  rp_buf_printf(c->b,
                "%s\n    {\"type\": \"row\", \"collapsed\": false, \"id\": %u, "
                "\"panels\": [], \"gridPos\": {\"h\": 1, \"w\": 24, \"x\": 0, "
                "\"y\": %u}, ",
                c->first ? "" : ",", c->pid++, c->y);
  c->first = false;
  if (var[0] != '\0')
    rp_buf_printf(title, " ($%s)", var);
  jkv(c->b, "title", title->p != NULL ? title->p : "");
  c->b->oom |= title->oom;
  rp_buf_free(title);
  rp_buf_printf(c->b, "}");
  c->y += 1;
  c->x = 0;
}

/* A layout's row and panels, in the block's order: the record's own
 * values (table 0), or an array's entries. */
static void write_layout(struct ctx *c, const struct rp_page *page,
                         const struct rp_map *map, unsigned table) {
  char var[32], pinst[40];
  const struct rp_marray *a = array_of(map, table);
  instance_var(map, table, var, sizeof(var));
  instance_of(map, table, pinst, sizeof(pinst));
  struct rp_buf t = {0};
  rp_buf_printf(&t, "D%dR%d %s: %s", page->domain, page->number,
                page->mrname[0] ? page->mrname : page->dsect, page->title);
  if (a != NULL)
    rp_buf_printf(&t, ", array %s (one series per entry)", a->label);
  write_row(c, &t, var);
  if (table == 0 && map->count[0] != '\0') {
    struct panel p = {.count = map->count, .counter = true, .n = 0};
    write_panel(c, page, map, pinst, &p);
  }
  for (size_t i = 0; i < map->n; i++) {
    const struct rp_mapped *m = &map->m[i];
    if (!shown(m, table))
      continue;
    struct panel p = {
        .first = m, .n = 1, .counter = m->kind == RP_K_COUNTER, .table = table};
    while (m->bit != NULL && i + p.n < map->n &&
           shown(&map->m[i + p.n], table) && map->m[i + p.n].bit != NULL &&
           map->m[i + p.n].fi == m->fi)
      p.n++;
    i += p.n - 1;
    write_panel(c, page, map, pinst, &p);
  }
  c->y += 8;
  c->x = 0;
}

/* The record's rows: its own values, then each array's entries. */
static void write_record(struct ctx *c, const struct rp_page *page,
                         const struct rp_map *map) {
  if (layout_nds(map, 0) > 0) /* none: the values are all in arrays */
    write_layout(c, page, map, 0);
  for (size_t a = 0; a < map->narrays; a++)
    if (map->arrays[a].emit)
      write_layout(c, page, map, map->arrays[a].table);
}

/* The first counter or gauge of a layout, one that always has a value
 * (not AllOnes nan) if there is one: the instance variable's probe. */
static void probe(const struct rp_map *map, unsigned table, char *ds,
                  size_t size, const char **single, bool *counter) {
  *counter = true;
  *single = NULL;
  if (table == 0 && map->count[0] != '\0') {
    snprintf(ds, size, "%s", map->count);
    *single = map->count_type;
    return;
  }
  const struct rp_mapped *m = NULL;
  for (size_t i = 0; i < map->n; i++)
    if (shown(&map->m[i], table) &&
        (m == NULL ||
         (m->allones == RP_ALLONES_NAN && map->m[i].allones != RP_ALLONES_NAN)))
      m = &map->m[i];
  if (m != NULL) {
    *counter = m->kind == RP_K_COUNTER;
    *single = m->single_type;
    if (m->count > 1)
      snprintf(ds, size, "%s%s0", m->ds,
               m->elem_prefix[0] ? m->elem_prefix : "_");
    else
      snprintf(ds, size, "%s", m->ds);
    return;
  }
  snprintf(ds, size, "%s", "");
}

static void query_var(struct rp_buf *b, const char *kind, const char *name,
                      const char *label, bool multi, const char *query,
                      const char *regex) {
  rp_buf_printf(b, ",\n      {\"type\": \"query\", ");
  jkvs(b, (const char *const[]){"name", name, "label", label}, 2);
  rp_buf_printf(b,
                ", \"datasource\": {\"type\": \"%s\", \"uid\": "
                "\"${datasource}\"}, ",
                kind);
  jkvs(b,
       (const char *const[]){"query", query, "definition", query, "regex",
                             regex},
       3);
  rp_buf_printf(b,
                ", \"refresh\": 2, \"sort\": 1, \"multi\": %s, "
                "\"includeAll\": %s, \"current\": {}, \"hide\": 0}",
                multi ? "true" : "false", multi ? "true" : "false");
}

/* The query variable var of a layout (table) of map: its instances. */
static void write_variable(struct rp_buf *b, const char *kind,
                           const struct rp_map *map, unsigned table,
                           const char *var) {
  char ds[80];
  bool counter;
  const char *single;
  probe(map, table, ds, sizeof(ds), &single, &counter);
  struct metric m;
  metric(&m, map, kind, "", table, ds, single, counter);
  const struct rp_mapped *inst = instance_field(map, table);
  struct rp_buf q = {0}, re = {0};
  if (strcmp(kind, "graphite") == 0) {
    rp_buf_printf(&q, "collectd.$host.%s-*", PLUGIN);
    if (inst->vtype == RP_V_USERID)
      rp_buf_printf(&re, "/^%s-([A-Z0-9@#$_+%%-]+)$/", PLUGIN);
    else if (inst->cputype) /* plugin/engine/records.c's names */
      rp_buf_printf(&re, "/^%s-(cp|zaap|ifl|icf|ziip|type[0-9]+)$/", PLUGIN);
    else if (table != 0 && inst->vtype == RP_V_UNSIGNED)
      rp_buf_printf(&re, "/^%s-([0-9]+)$/", PLUGIN);
    else
      rp_buf_printf(&re, "/^%s-(%s[0-9A-Za-z_%%-]*)$/", PLUGIN,
                    table == 0 ? map->prefix : "");
  } else if (strcmp(kind, "influxdb") == 0) {
    rp_buf_printf(&q,
                  "SHOW TAG VALUES FROM \"%s_%s\" WITH KEY = \"instance\" "
                  "WHERE \"host\" =~ /^$host$/ AND \"type\" = '%s'",
                  PLUGIN, m.ds, m.type);
    if (m.tinst[0] != '\0')
      rp_buf_printf(&q, " AND \"type_instance\" = '%s'", m.tinst);
  } else {
    rp_buf_printf(&q, "label_values(collectd_%s_%s", PLUGIN, m.type);
    if (strcmp(m.ds, "value") != 0)
      rp_buf_printf(&q, "_%s", m.ds);
    rp_buf_printf(&q, "%s{instance=~\"$host\"", counter ? "_total" : "");
    if (m.tinst[0] != '\0')
      rp_buf_printf(&q, ", type=\"%s\"", m.tinst);
    rp_buf_printf(&q, "}, %s)", PLUGIN);
  }
  char label[64];
  snprintf(label, sizeof(label), "%s",
           strcmp(var, "guest") == 0     ? "Guest"
           : strcmp(var, "cputype") == 0 ? "CPU type"
                                         : var);
  query_var(b, kind, var, label, true, q.p != NULL ? q.p : "",
            re.p != NULL ? re.p : "");
  b->oom |= q.oom || re.oom;
  rp_buf_free(&q);
  rp_buf_free(&re);
}

static void write_variables(struct rp_buf *b, const char *kind,
                            const struct rp_map *maps, size_t n) {
  rp_buf_printf(b, "    {\"type\": \"datasource\", \"name\": \"datasource\", "
                   "\"label\": \"Data source\", ");
  jkv(b, "query", kind);
  rp_buf_printf(b, ", \"current\": {}, \"hide\": 0}");
  if (strcmp(kind, "prometheus") == 0)
    rp_buf_printf(
        b,
        ",\n      {\"type\": \"custom\", \"name\": \"rate_window\", \"label\": "
        "\"Rate window\", \"query\": \"1m,2m,5m,15m,1h\", \"current\": "
        "{\"text\": \"5m\", \"value\": \"5m\"}, \"hide\": 0, \"description\": "
        "\"rate() window: at least two monitor sample intervals (CP MONITOR "
        "SAMPLE INTERVAL)\", \"options\": [{\"text\": \"1m\", \"value\": "
        "\"1m\", \"selected\": false}, {\"text\": \"2m\", \"value\": \"2m\", "
        "\"selected\": false}, {\"text\": \"5m\", \"value\": \"5m\", "
        "\"selected\": true}, {\"text\": \"15m\", \"value\": \"15m\", "
        "\"selected\": false}, {\"text\": \"1h\", \"value\": \"1h\", "
        "\"selected\": false}]}");
  if (strcmp(kind, "graphite") == 0)
    query_var(b, kind, "host", "z/VM system (host)", false, "collectd.*", "");
  else if (strcmp(kind, "influxdb") == 0)
    query_var(b, kind, "host", "z/VM system (host)", false,
              "SHOW TAG VALUES FROM \"" PLUGIN "_value\" WITH KEY = \"host\"",
              "");
  else
    query_var(b, kind, "host", "z/VM system (host)", false,
              "label_values(collectd_" PLUGIN "_total_objects_total, instance)",
              "");
  struct rp_buf seen = {0}; /* "\nvar\n" of the variables written */
  for (size_t r = 0; r < n; r++)
    for (size_t l = 0; l <= maps[r].narrays; l++) {
      const struct rp_map *map = &maps[r];
      if (l > 0 && !map->arrays[l - 1].emit)
        continue;
      unsigned table = l == 0 ? 0 : map->arrays[l - 1].table;
      char var[32], key[40];
      instance_var(map, table, var, sizeof(var));
      snprintf(key, sizeof(key), "\n%s\n", var);
      if (var[0] == '\0' || (seen.p != NULL && strstr(seen.p, key) != NULL))
        continue;
      rp_buf_printf(&seen, "%s", seen.p == NULL ? "\n" : "");
      rp_buf_printf(&seen, "%s\n", var);
      write_variable(b, kind, map, table, var);
    }
  b->oom |= seen.oom;
  rp_buf_free(&seen);
}

void rp_write_dashboard(const struct rp_page *pages, const struct rp_map *maps,
                        size_t n, const char *kind, struct rp_buf *out) {
  static const char *const names[RP_DASH_KINDS] = {"Graphite", "InfluxDB 1.x",
                                                   "Prometheus"};
  const char *kname = kind;
  for (int k = 0; k < RP_DASH_KINDS; k++)
    if (strcmp(kind, rp_dash_kinds[k]) == 0)
      kname = names[k];
  struct rp_buf t = {0}, d = {0}, uid = {0};
  rp_buf_printf(&t, "z/VM monitor records:");
  rp_buf_printf(&d, "collectd zvm_monitor plugin: the records of the "
                    "<Record> blocks written by zvm-monitor-record from "
                    "IBM's pages:");
  rp_buf_printf(&uid, "zvm-rec");
  for (size_t r = 0; r < n; r++) {
    rp_buf_printf(&t, "%s %s", r ? "," : "", maps[r].name);
    rp_buf_printf(&d, "%s D%dR%d %s%s%s%s", r ? "," : "", pages[r].domain,
                  pages[r].number,
                  pages[r].mrname[0] ? pages[r].mrname : pages[r].dsect,
                  pages[r].level[0] ? " (" : "", pages[r].level,
                  pages[r].level[0] ? ")" : "");
    if (uid.len + strlen(maps[r].name) + 12 < 40)
      rp_buf_printf(&uid, "-%s", maps[r].name);
  }
  rp_buf_printf(&t, " (zvm_monitor, %s)", kname);
  rp_buf_printf(&d,
                ". Counters are shown as rates per second. %sGenerated "
                "by zvm-monitor-record.",
                strcmp(kind, "graphite") == 0
                    ? "Needs OneValuePerList true in the plugin's "
                      "configuration. "
                    : "");
  rp_buf_printf(&uid, "-%s", kind);

  rp_buf_printf(out, "{\n  ");
  jkv(out, "title", t.p != NULL ? t.p : "");
  rp_buf_printf(out, ",\n  ");
  jkv(out, "uid", uid.p != NULL ? uid.p : "");
  rp_buf_printf(out, ",\n  ");
  jkv(out, "description", d.p != NULL ? d.p : "");
  rp_buf_printf(out,
                ",\n  \"tags\": [\"collectd\", \"z/VM\", \"zvm_monitor\"],\n"
                "  \"editable\": true, \"schemaVersion\": 37, \"version\": 1,\n"
                "  \"time\": {\"from\": \"now-1h\", \"to\": \"now\"}, "
                "\"refresh\": \"1m\",\n"
                "  \"annotations\": {\"list\": []},\n"
                "  \"templating\": {\"list\": [\n");
  write_variables(out, kind, maps, n);
  rp_buf_printf(out, "\n  ]},\n  \"panels\": [");
  struct ctx c = {.b = out, .kind = kind, .pid = 1, .first = true};
  for (size_t r = 0; r < n; r++)
    write_record(&c, &pages[r], &maps[r]);
  rp_buf_printf(out, "\n  ]\n}\n");
  out->oom |= t.oom || d.oom || uid.oom;
  rp_buf_free(&t);
  rp_buf_free(&d);
  rp_buf_free(&uid);
}
