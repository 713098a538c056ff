/* SPDX-License-Identifier: MIT */
/*
 * hypfs - one read pass: source, decoder, selection, per-entity state and
 * the value lists (one per guest, partition, logical and physical CPU),
 * each filled from its type's value rows (hypfs/values.c).
 *
 * Counters are continued across restarts: DIAG X'2FC' counts a guest's CPU
 * time and samples from its logon, so they go back when it logs off and on
 * (its online time goes back too). collectd would turn that decrease into
 * a negative rate (DERIVE) or a wrap (COUNTER), so the plugin adds the value
 * the counter had before: the dispatched counter never decreases and the
 * interval of the restart shows what the guest used since its logon. A
 * 32-bit sample counter that goes back without a restart has wrapped and
 * is continued modulo 2^32.
 */
#include "hypfs/core.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Entities not seen for this many passes are forgotten (collectd forgets a
 * value list after Timeout, default 2, intervals). */
#define ENTITY_EXPIRE_PASSES 10
#define NCOUNTERS HYPFS_COUNTERS_MAX
#define NSUMS HYPFS_SUMS_MAX
#define KEY_MAX 96 /* kind, name or CPU (< 40), "/", CPU (< 40), NUL */

struct entity {
  char key[KEY_MAX];
  uint64_t last[NCOUNTERS];
  uint64_t off[NCOUNTERS];
  uint64_t prev[NSUMS]; /* a logical CPU's continued counters, last pass */
  uint64_t acc[NSUMS];  /* a partition's sums of its CPUs' increments */
  uint64_t seen;        /* pass number */
  bool has_prev;
};

/* ---- plans: each type's rows, sorted once by how they are read -------- */

/* How fill() reads a row: a member of 4 or 8 bytes as a gauge, bits of a
 * 4-byte member as a gauge, a member of 4 or 8 bytes as a counter; then
 * the classes a guest has none of (fill_rare()): a gauge function, a
 * counter function, a partition's sum, or else (members of 1 or 2 bytes,
 * rows over the bounds) row by row as hypfs_ds_raw() reads it. A plan
 * holds its rows' ops by class in this order, so that filling a list is a
 * few tight loops without a switch per value. */
enum op_class {
  OP_G4,
  OP_G8,
  OP_GBITS,
  OP_C4,
  OP_C8,
  OP_GFN, /* the first of fill_rare() */
  OP_CFN,
  OP_SUM,
  OP_ROW,
  OP_NUM
};

struct op {
  uint16_t off;  /* the member's offset in the source struct */
  uint16_t dst;  /* where its value goes: the byte offset of the g or d
                    member of its value in the plan's v */
  uint8_t slot;  /* a counter's slot in its entity, a sum's in acc; OP_ROW:
                    SLOT_NONE for a counter over the bound or a sum
                    without its CPU counter (test_rows rejects both) */
  uint8_t width; /* a counter's width (4: wraps, else restarts) */
  union {
    double scale; /* OP_G4, OP_G8 */
    struct {
      uint32_t mask;
      uint8_t shift;
    } bits; /* OP_GBITS */
    double (*gauge_fn)(const void *src);
    uint64_t (*counter_fn)(const void *src);
    const struct hypfs_ds *row; /* OP_ROW, a restart op */
  } u;
};
#define SLOT_NONE 0xff

/* A type's plan. Its list v is filled in place: each value's gauge flag
 * and its other member (0) are set once, a pass writes g or d. */
struct plan {
  const char *type;
  size_t values; /* values of the list */
  struct hypfs_value v[HYPFS_DS_MAX];
  size_t counters;
  const struct op *end[OP_NUM]; /* class k's ops end at end[k], in ops */
  bool rare;                    /* ops of a class from OP_GFN on */
  /* the counters whose going back is a restart: members of 8 bytes up to
   * restart_end8, then any other up to restart_end */
  const struct op *restart_end8, *restart_end;
  struct op restart[NCOUNTERS];
  struct op ops[HYPFS_DS_MAX];
};
static void plan_build(const struct hypfs_type *t, struct plan *p);

struct hypfs_ctx {
  const struct hypfs_conf *conf;
  struct hypfs_stats stats;
  char message[768];
  /* what the last snapshot dispatched showed (hypfs_ctx_notice()) */
  enum hypfs_notice notice;
  bool notice_fresh;
  enum hypfs_tree_state tree_state; /* of a pass without hyp/type */
  char notice_text[512];
  uint64_t pass;
  struct plan plans[HYPFS_T_NUM]; /* of hypfs_types[], plan_build() */
  struct entity *ents;
  size_t ents_num, ents_cap;
  uint32_t *index; /* open addressing: entity number + 1, 0 = empty */
  size_t index_cap;
  /* the last snapshot's clock, to skip the kernel's cached copy */
  bool have_tod;
  uint64_t tod_hi, tod_lo;
  /* buffers reused between passes */
  uint8_t *buf;
  size_t buf_cap;
  struct hypfs_d2fc d2fc;
  struct hypfs_d204 d204;
  char path[4096];
};

struct hypfs_ctx *hypfs_ctx_create(const struct hypfs_conf *conf) {
  struct hypfs_ctx *ctx = calloc(1, sizeof(*ctx));
  if (ctx == NULL)
    return NULL;
  ctx->conf = conf;
  for (size_t t = 0; t < HYPFS_T_NUM && t < hypfs_types_num; t++)
    plan_build(&hypfs_types[t], &ctx->plans[t]);
  return ctx;
}

void hypfs_ctx_destroy(struct hypfs_ctx *ctx) {
  if (ctx == NULL)
    return;
  free(ctx->ents);
  free(ctx->index);
  free(ctx->buf);
  hypfs_d2fc_free(&ctx->d2fc);
  hypfs_d204_free(&ctx->d204);
  free(ctx);
}

const char *hypfs_ctx_message(const struct hypfs_ctx *ctx) {
  return ctx->message;
}
const struct hypfs_stats *hypfs_ctx_stats(const struct hypfs_ctx *ctx) {
  return &ctx->stats;
}
enum hypfs_notice hypfs_ctx_notice(const struct hypfs_ctx *ctx,
                                   const char **text, bool *fresh) {
  *text = ctx->notice_text;
  *fresh = ctx->notice_fresh;
  return ctx->notice;
}

/* The notice of a snapshot being dispatched: what of its records it could
 * not use. what: "guest" or "partition"; src: the source's DIAG. */
static void snapshot_notice(struct hypfs_ctx *ctx, const char *what,
                            const char *diag, size_t records,
                            unsigned long skipped,
                            const struct hypfs_skip *first) {
  ctx->notice_fresh = true;
  ctx->notice = HYPFS_N_NONE;
  ctx->notice_text[0] = '\0';
  if (records == 0) {
    ctx->notice = HYPFS_N_EMPTY;
    snprintf(ctx->notice_text, sizeof(ctx->notice_text),
             "the %s snapshot holds no %s at all, although the own one is "
             "always there: nothing dispatched for it but the count 0; if "
             "it lasts, look for hypfs messages in the kernel log",
             diag, what);
  } else if (skipped > 0) {
    ctx->notice = HYPFS_N_SKIPPED;
    snprintf(ctx->notice_text, sizeof(ctx->notice_text),
             "skipped %lu of the %zu %ss of the %s snapshot, the first "
             "named %s for %s: no values for them, counted in "
             "total_objects-skipped",
             skipped, records, what, diag,
             first->name[0] != '\0' ? first->name : "?",
             first->why != NULL ? first->why : "its name");
  }
}

/* ---- entity table -------------------------------------------------------- */

static uint64_t hash_key(const char *s) {
  uint64_t h = 14695981039346656037ull;
  for (; *s; s++)
    h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

static bool index_rebuild(struct hypfs_ctx *ctx, size_t want) {
  size_t cap = 64;
  while (cap < 2 * want)
    cap *= 2;
  uint32_t *idx = calloc(cap, sizeof(*idx));
  if (idx == NULL)
    return false;
  for (size_t i = 0; i < ctx->ents_num; i++) {
    size_t h = (size_t)hash_key(ctx->ents[i].key) & (cap - 1);
    while (idx[h] != 0)
      h = (h + 1) & (cap - 1);
    idx[h] = (uint32_t)(i + 1);
  }
  free(ctx->index);
  ctx->index = idx;
  ctx->index_cap = cap;
  return true;
}

/* The entity of key, created if new (*created). NULL if out of memory. */
static struct entity *entity_get(struct hypfs_ctx *ctx, const char *key,
                                 bool *created) {
  *created = false;
  if (ctx->index_cap == 0 && !index_rebuild(ctx, 32))
    return NULL;
  size_t h = (size_t)hash_key(key) & (ctx->index_cap - 1);
  while (ctx->index[h] != 0) {
    struct entity *e = &ctx->ents[ctx->index[h] - 1];
    if (strcmp(e->key, key) == 0)
      return e;
    h = (h + 1) & (ctx->index_cap - 1);
  }
  if (ctx->ents_num + 1 > ctx->ents_cap) {
    size_t n = ctx->ents_cap ? 2 * ctx->ents_cap : 64;
    struct entity *p = realloc(ctx->ents, n * sizeof(*p));
    if (p == NULL)
      return NULL;
    ctx->ents = p;
    ctx->ents_cap = n;
  }
  struct entity *e = &ctx->ents[ctx->ents_num];
  memset(e, 0, sizeof(*e));
  memcpy(e->key, key, strlen(key) + 1); /* key_make() bounds it */
  ctx->ents_num++;
  if (2 * ctx->ents_num > ctx->index_cap) {
    if (!index_rebuild(ctx, ctx->ents_num)) {
      ctx->ents_num--;
      return NULL;
    }
  } else {
    ctx->index[h] = (uint32_t)ctx->ents_num;
  }
  *created = true;
  return e;
}

static void entities_expire(struct hypfs_ctx *ctx) {
  size_t kept = 0;
  for (size_t i = 0; i < ctx->ents_num; i++)
    if (ctx->ents[i].seen + ENTITY_EXPIRE_PASSES > ctx->pass) {
      if (kept != i) /* an entity is some 300 bytes: move only to fill */
        ctx->ents[kept] = ctx->ents[i];
      kept++;
    }
  if (kept != ctx->ents_num) {
    ctx->ents_num = kept;
    index_rebuild(ctx, kept);
  }
}

/* kind, a, then "/" b if b: an entity's key (names are below
 * ZVM_NAME_MAX, CPU type instances 40 bytes: KEY_MAX holds them). */
static const char *key_make(char *out, char kind, const char *a,
                            const char *b) {
  /* both are NUL-terminated names built here; the clamp only bounds */
  size_t la = strlen(a), lb = b ? strlen(b) : 0;
  la = la < 40 ? la : 40;
  lb = lb < 40 ? lb : 40;
  out[0] = kind;
  memcpy(out + 1, a, la);
  size_t n = 1 + la;
  if (b != NULL) {
    out[n++] = '/';
    memcpy(out + n, b, lb);
    n += lb;
  }
  out[n] = '\0';
  return out;
}

/* The dispatched value of counter i (see the top of this file). */
__attribute__((always_inline)) static inline uint64_t
counter(struct entity *e, size_t i, uint64_t raw, unsigned width, bool created,
        bool restarted, struct hypfs_stats *st) {
  if (!created) {
    if (restarted)
      e->off[i] += e->last[i];
    else if (raw < e->last[i]) {
      if (width == 4) {
        e->off[i] += (uint64_t)1 << 32;
      } else {
        e->off[i] += e->last[i];
        st->restarts++;
      }
    }
  }
  e->last[i] = raw;
  return e->off[i] + raw;
}

static struct hypfs_value derive(uint64_t v) {
  struct hypfs_value x = {.gauge = false, .d = (int64_t)(v & INT64_MAX)};
  return x;
}
static struct hypfs_value gauge(double v) {
  struct hypfs_value x = {.gauge = true, .g = v};
  return x;
}

/* Identifiers: plugin instance = the name; with GuestsAsHosts host = the
 * name in lower case and no plugin instance (zvm_monitor's naming). */
struct naming {
  char host[ZVM_NAME_MAX];
  const char *plugin_instance;
};

__attribute__((always_inline)) static inline void
name_entity(const struct hypfs_ctx *ctx, const char *name, struct naming *n) {
  if (ctx->conf->guests_as_hosts) {
    size_t i = 0;
    for (; name[i] != '\0' && i + 1 < sizeof(n->host); i++)
      n->host[i] = (char)tolower((unsigned char)name[i]);
    n->host[i] = '\0';
    n->plugin_instance = "";
  } else {
    n->host[0] = '\0';
    n->plugin_instance = name;
  }
}

static void emit_list(hypfs_emit_fn emit, void *arg, const struct naming *n,
                      const char *type, const char *type_instance,
                      const struct hypfs_value *v, size_t num) {
  struct hypfs_list l = {
      .host = n != NULL && n->host[0] != '\0' ? n->host : NULL,
      .plugin_instance = n != NULL ? n->plugin_instance : "",
      .type = type,
      .type_instance = type_instance,
      .values = v,
      .values_num = num,
  };
  emit(arg, &l);
}

/* ---- plans ---------------------------------------------------------- */

/* The plan of type t (at context creation: once per type, not per list). */
static void plan_build(const struct hypfs_type *t, struct plan *p) {
  memset(p, 0, sizeof(*p));
  p->type = t->name;
  p->values = t->ds_num < HYPFS_DS_MAX ? t->ds_num : HYPFS_DS_MAX;
  struct op ops[HYPFS_DS_MAX], restart[NCOUNTERS];
  enum op_class cls[HYPFS_DS_MAX];
  bool restart8[NCOUNTERS];
  size_t restart_num = 0;
  for (size_t i = 0; i < p->values; i++) {
    const struct hypfs_ds *r = &t->ds[i];
    const bool fn = r->gauge_fn != NULL || r->counter_fn != NULL;
    const bool member = !fn && r->mask == 0 && (r->width == 4 || r->width == 8);
    struct op o = {.off = (uint16_t)r->off,
                   .dst = (uint16_t)(i * sizeof(struct hypfs_value) +
                                     (r->kind == HYPFS_GAUGE
                                          ? offsetof(struct hypfs_value, g)
                                          : offsetof(struct hypfs_value, d))),
                   .width = (uint8_t)r->width,
                   .u.row = r};
    enum op_class c = OP_ROW;
    switch (r->kind) {
    case HYPFS_GAUGE:
      if (r->gauge_fn != NULL) {
        c = OP_GFN;
        o.u.gauge_fn = r->gauge_fn;
      } else if (member) {
        c = r->width == 4 ? OP_G4 : OP_G8;
        o.u.scale = r->scale;
      } else if (r->mask != 0 && r->width == 4 && r->scale == 1) {
        c = OP_GBITS;
        o.u.bits.mask = r->mask;
        o.u.bits.shift = (uint8_t)__builtin_ctz(r->mask);
      }
      break;
    case HYPFS_COUNTER:
      if (p->counters >= NCOUNTERS) {
        o.slot = SLOT_NONE;
        break;
      }
      o.slot = (uint8_t)p->counters++;
      if (r->restart) {
        restart[restart_num] = o;
        restart8[restart_num++] = member && r->width == 8;
      }
      if (r->counter_fn != NULL) {
        c = OP_CFN;
        o.u.counter_fn = r->counter_fn;
      } else if (member) {
        c = r->width == 4 ? OP_C4 : OP_C8;
      }
      break;
    case HYPFS_SUM: {
      int k = hypfs_cpu_counter_slot(r->name);
      if (k >= 0 && k < NSUMS) {
        c = OP_SUM;
        o.slot = (uint8_t)k;
      } else {
        o.slot = SLOT_NONE;
      }
      break;
    }
    }
    p->v[i] = r->kind == HYPFS_GAUGE ? gauge(0) : derive(0);
    ops[i] = o;
    cls[i] = c;
  }
  size_t n = 0;
  for (int c = 0; c < OP_NUM; c++) {
    for (size_t i = 0; i < p->values; i++)
      if (cls[i] == (enum op_class)c)
        p->ops[n++] = ops[i];
    p->end[c] = p->ops + n;
  }
  p->rare = p->end[OP_C8] < p->end[OP_NUM - 1];
  n = 0;
  for (int pass = 1; pass >= 0; pass--) {
    for (size_t k = 0; k < restart_num; k++)
      if (restart8[k] == (bool)pass)
        p->restart[n++] = restart[k];
    if (pass)
      p->restart_end8 = p->restart + n;
  }
  p->restart_end = p->restart + n;
}

static uint32_t load4(const uint8_t *p) {
  uint32_t x;
  memcpy(&x, p, 4);
  return x;
}
static uint64_t load8(const uint8_t *p) {
  uint64_t x;
  memcpy(&x, p, 8);
  return x;
}

/* A value of the plan's list: a gauge's g, a counter's or sum's d. */
__attribute__((always_inline)) static inline void
put_g(struct plan *p, const struct op *o, double x) {
  *(double *)((char *)p->v + o->dst) = x;
}
__attribute__((always_inline)) static inline void
put_d(struct plan *p, const struct op *o, uint64_t x) {
  *(int64_t *)((char *)p->v + o->dst) = (int64_t)(x & INT64_MAX);
}

/* The counters of the ops of class cls (always inlined with constant
 * created and restarted: the loop of the usual pass, neither, has no
 * branch on them). */
__attribute__((always_inline)) static inline void
fill_counters(enum op_class cls, struct plan *p, const uint8_t *s,
              struct entity *e, bool created, bool restarted,
              struct hypfs_stats *st) {
  for (const struct op *o = p->end[cls - 1]; o < p->end[cls]; o++) {
    uint64_t raw = cls == OP_C4   ? load4(s + o->off)
                   : cls == OP_C8 ? load8(s + o->off)
                                  : o->u.counter_fn(s);
    unsigned width = cls == OP_C4 ? 4 : cls == OP_C8 ? 8 : o->width;
    put_d(p, o, counter(e, o->slot, raw, width, created, restarted, st));
  }
}

/* The ops of fill()'s classes from OP_GFN on. */
__attribute__((noinline)) static void
fill_rare(struct plan *p, const uint8_t *s, struct entity *e, bool created,
          bool restarted, struct hypfs_stats *st) {
  for (const struct op *o = p->end[OP_C8]; o < p->end[OP_GFN]; o++)
    put_g(p, o, o->u.gauge_fn(s));
  fill_counters(OP_CFN, p, s, e, created, restarted, st);
  for (const struct op *o = p->end[OP_CFN]; o < p->end[OP_SUM]; o++)
    put_d(p, o, e->acc[o->slot]);
  for (const struct op *o = p->end[OP_SUM]; o < p->end[OP_ROW]; o++) {
    const struct hypfs_ds *r = o->u.row;
    if (r->kind == HYPFS_GAUGE)
      put_g(p, o, hypfs_ds_gauge(r, s));
    else if (o->slot == SLOT_NONE)
      put_d(p, o, r->kind == HYPFS_SUM ? 0 : hypfs_ds_raw(r, s));
    else
      put_d(p, o,
            counter(e, o->slot, hypfs_ds_raw(r, s), o->width, created,
                    restarted, st));
  }
}

/* The values of one list from its plan p (its type's rows,
 * hypfs/values.c) into p->v: gauges from src, the entity's struct;
 * counters continued in e, each in its slot; a partition's sums from
 * e->acc. A counter row marked restart that went back restarts every
 * counter of e. Each class is a tight loop over its ops. */
__attribute__((always_inline)) static inline void
fill(struct hypfs_ctx *ctx, struct plan *p, const void *src, struct entity *e,
     bool created) {
  const uint8_t *s = src;
  bool restarted = false;
  if (!created) {
    for (const struct op *o = p->restart; o < p->restart_end8; o++)
      restarted |= load8(s + o->off) < e->last[o->slot];
    for (const struct op *o = p->restart_end8; o < p->restart_end; o++)
      restarted |= hypfs_ds_raw(o->u.row, s) < e->last[o->slot];
  }
  if (restarted)
    ctx->stats.restarts++;
  struct hypfs_stats *st = &ctx->stats;
  for (const struct op *o = p->ops; o < p->end[OP_G4]; o++)
    put_g(p, o, (double)load4(s + o->off) * o->u.scale);
  for (const struct op *o = p->end[OP_G4]; o < p->end[OP_G8]; o++)
    put_g(p, o, (double)load8(s + o->off) * o->u.scale);
  for (const struct op *o = p->end[OP_G8]; o < p->end[OP_GBITS]; o++)
    put_g(p, o, (load4(s + o->off) & o->u.bits.mask) >> o->u.bits.shift);
  if (!created && !restarted) {
    fill_counters(OP_C4, p, s, e, false, false, st);
    fill_counters(OP_C8, p, s, e, false, false, st);
  } else {
    fill_counters(OP_C4, p, s, e, created, restarted, st);
    fill_counters(OP_C8, p, s, e, created, restarted, st);
  }
  if (p->rare)
    fill_rare(p, s, e, created, restarted, st);
}

/* The same, not inlined: for the lists made once a pass (hypervisor,
 * partition), which need no copy of the loops of their own. */
__attribute__((noinline)) static void fill_one(struct hypfs_ctx *ctx,
                                               struct plan *p, const void *src,
                                               struct entity *e, bool created) {
  fill(ctx, p, src, e, created);
}

/* A logical CPU's continued counter of slot k, as fill() dispatched it;
 * 0 for a slot its type has no counter in (its partition sums it). */
static uint64_t continued(const struct entity *e, const struct plan *p,
                          size_t k) {
  return k < p->counters ? e->off[k] + e->last[k] : 0;
}

/* ---- z/VM ------------------------------------------------------------ */

void hypfs_map_vm(struct hypfs_ctx *ctx, const struct hypfs_d2fc *d,
                  hypfs_emit_fn emit, void *arg) {
  const struct hypfs_conf *conf = ctx->conf;
  struct plan *gp = &ctx->plans[HYPFS_T_GUEST];
  ctx->pass++;
  ctx->stats.skipped += d->skipped_names;
  snapshot_notice(ctx, "guest", "DIAG X'2FC'", d->records, d->skipped_names,
                  &d->skipped_first);
  for (size_t i = 0; i < d->guests_num; i++) {
    const struct hypfs_guest *g = &d->guests[i];
    if (!zvm_select_match(&conf->userids, g->name))
      continue;
    char key[KEY_MAX];
    bool created;
    struct entity *e =
        entity_get(ctx, key_make(key, 'g', g->name, NULL), &created);
    if (e == NULL)
      continue;
    if (!created && e->seen == ctx->pass) {
      ctx->stats.skipped++; /* the same name twice in one snapshot */
      continue;
    }
    e->seen = ctx->pass;
    fill(ctx, gp, g, e, created);
    struct naming n;
    name_entity(ctx, g->name, &n);
    emit_list(emit, arg, &n, gp->type, "", gp->v, gp->values);
  }
  struct plan *sp = &ctx->plans[HYPFS_T_VM];
  struct naming sys = {.host = "", .plugin_instance = "hypervisor"};
  fill_one(ctx, sp, d, NULL, true);
  emit_list(emit, arg, &sys, sp->type, "", sp->v, sp->values);
  entities_expire(ctx);
}

/* ---- LPAR ------------------------------------------------------------ */

void hypfs_map_lpar(struct hypfs_ctx *ctx, const struct hypfs_d204 *d,
                    hypfs_emit_fn emit, void *arg) {
  const struct hypfs_conf *conf = ctx->conf;
  const bool ext = d->format == HYPFS_D204_EXT;
  /* the types of the format: the simple one has no online time */
  struct plan *pt = &ctx->plans[ext ? HYPFS_T_LPAR : HYPFS_T_LPAR_SIMPLE];
  struct plan *ct =
      &ctx->plans[ext ? HYPFS_T_LPAR_CPU : HYPFS_T_LPAR_CPU_SIMPLE];
  ctx->pass++;
  ctx->stats.skipped += d->skipped_names;
  snapshot_notice(ctx, "partition", "DIAG X'204'", d->records, d->skipped_names,
                  &d->skipped_first);
  for (size_t p = 0; p < d->lpars_num; p++) {
    const struct hypfs_lpar *l = &d->lpars[p];
    if (!zvm_select_match(&conf->partitions, l->name))
      continue;
    char key[KEY_MAX];
    bool part_created;
    struct entity *pe =
        entity_get(ctx, key_make(key, 'p', l->name, NULL), &part_created);
    if (pe == NULL)
      continue;
    if (!part_created && pe->seen == ctx->pass) {
      ctx->stats.skipped++;
      continue;
    }
    pe->seen = ctx->pass;
    struct naming n;
    name_entity(ctx, l->name, &n);
    for (size_t c = l->cpu_first; c < l->cpu_first + l->cpu_num; c++) {
      const struct hypfs_lpar_cpu *cpu = &d->cpus[c];
      char ti[40];
      snprintf(ti, sizeof(ti), "%s-%u", cpu->type, (unsigned)cpu->cpu_addr);
      key_make(key, 'c', l->name, ti);
      /* pe may move when the table grows: keep its index. */
      size_t pe_idx = (size_t)(pe - ctx->ents);
      bool created;
      struct entity *e = entity_get(ctx, key, &created);
      pe = &ctx->ents[pe_idx];
      if (e == NULL || (!created && e->seen == ctx->pass)) {
        ctx->stats.skipped++;
        continue;
      }
      e->seen = ctx->pass;
      fill(ctx, ct, cpu, e, created);
      /* The partition's sums grow by each CPU's increment; a CPU new in
       * a known partition adds what it counted since it appeared. */
      for (size_t k = 0; k < NSUMS; k++) {
        uint64_t now = continued(e, ct, k);
        pe->acc[k] += e->has_prev ? now - e->prev[k] : now;
        e->prev[k] = now;
      }
      e->has_prev = true;
      emit_list(emit, arg, &n, ct->type, ti, ct->v, ct->values);
    }
    fill_one(ctx, pt, l, pe, part_created);
    emit_list(emit, arg, &n, pt->type, "", pt->v, pt->values);
  }
  struct plan *ft = &ctx->plans[HYPFS_T_PHYS_CPU];
  struct naming phys = {.host = "", .plugin_instance = "physical"};
  for (size_t c = 0; c < d->phys_num; c++) {
    const struct hypfs_phys_cpu *pc = &d->phys[c];
    char ti[40], key[KEY_MAX];
    snprintf(ti, sizeof(ti), "%s-%u", pc->type, (unsigned)pc->cpu_addr);
    key_make(key, 'f', ti, NULL);
    bool created;
    struct entity *e = entity_get(ctx, key, &created);
    if (e == NULL || (!created && e->seen == ctx->pass)) {
      ctx->stats.skipped++;
      continue;
    }
    e->seen = ctx->pass;
    fill(ctx, ft, pc, e, created);
    emit_list(emit, arg, &phys, ft->type, ti, ft->v, ft->values);
  }
  struct plan *st = &ctx->plans[HYPFS_T_LPAR_SYS];
  struct naming sys = {.host = "", .plugin_instance = "hypervisor"};
  fill_one(ctx, st, d, NULL, true);
  emit_list(emit, arg, &sys, st->type, "", st->v, st->values);
  entities_expire(ctx);
}

void hypfs_emit_stats(struct hypfs_ctx *ctx, hypfs_emit_fn emit, void *arg) {
  if (!ctx->conf->report_reader_stats)
    return;
  struct naming n = {.host = "", .plugin_instance = "reader"};
  static const enum hypfs_error kinds[] = {HYPFS_E_SHORT, HYPFS_E_LONG,
                                           HYPFS_E_HEADER, HYPFS_E_TRUNC,
                                           HYPFS_E_TOO_MANY};
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
    struct hypfs_value v = derive(ctx->stats.errors[kinds[i]]);
    emit_list(emit, arg, &n, "errors", hypfs_error_name(kinds[i]), &v, 1);
  }
  struct {
    const char *type, *ti;
    uint64_t v;
  } items[] = {
      {"errors", "read", ctx->stats.errors_read},
      {"total_objects", "reads", ctx->stats.reads},
      {"total_objects", "retries", ctx->stats.retries},
      {"total_objects", "stale", ctx->stats.stale},
      {"total_objects", "skipped", ctx->stats.skipped},
      {"total_objects", "restarts", ctx->stats.restarts},
      {"total_bytes", "read", ctx->stats.bytes},
  };
  for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
    struct hypfs_value v = derive(items[i].v);
    emit_list(emit, arg, &n, items[i].type, items[i].ti, &v, 1);
  }
}

/* ---- the read pass --------------------------------------------------- */

__attribute__((format(printf, 3, 4))) static enum hypfs_fault
set_fault(struct hypfs_ctx *ctx, enum hypfs_fault f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->message, sizeof(ctx->message), fmt, ap);
  va_end(ap);
  return f;
}

static enum hypfs_fault io_fault(struct hypfs_ctx *ctx, int err,
                                 const char *path) {
  ctx->stats.errors_read++;
  if (err == -HYPFS_NOT_REGULAR)
    return set_fault(ctx, HYPFS_F_NOT_REGULAR,
                     "%s: not a regular file (a FIFO, device, directory or "
                     "symbolic link): refused, the kernel's hypfs and debugfs "
                     "files are regular files; remove it or correct "
                     "DebugfsPath or HypfsPath",
                     path);
  if (err == EACCES || err == EPERM)
    return set_fault(ctx, HYPFS_F_ACCESS,
                     "%s: permission denied: collectd must run as root to "
                     "read hypfs",
                     path);
  return set_fault(ctx, HYPFS_F_READ, "%s: %s", path, strerror(err));
}

/* Skip the kernel's cached snapshot (it keeps one for a second): nothing
 * new to dispatch. */
static bool stale(struct hypfs_ctx *ctx, uint64_t hi, uint64_t lo) {
  if (ctx->have_tod && hi == ctx->tod_hi && lo == ctx->tod_lo) {
    ctx->stats.stale++;
    return true;
  }
  ctx->have_tod = true;
  ctx->tod_hi = hi;
  ctx->tod_lo = lo;
  return false;
}

static enum hypfs_fault data_fault(struct hypfs_ctx *ctx, enum hypfs_error e,
                                   const char *path) {
  if (e < HYPFS_ERROR_KINDS)
    ctx->stats.errors[e]++;
  return set_fault(ctx, HYPFS_F_DATA,
                   "%s: rejected a %s file (torn or malformed read; counted "
                   "in errors-*, nothing dispatched from it)",
                   path, hypfs_error_name(e));
}

static enum hypfs_fault own_only(struct hypfs_ctx *ctx, size_t guests) {
  if (guests == 1)
    return set_fault(ctx, HYPFS_F_OWN_ONLY,
                     "only one guest (%s) is visible: DIAG X'2FC' for all "
                     "guests needs privilege class B; give the guest class B "
                     "and initialise hypfs again (reboot)",
                     ctx->d2fc.guests[0].name);
  return HYPFS_F_NONE;
}

/* 0: read and mapped; 1: file absent; a fault otherwise (in *fault). */
static int read_debugfs(struct hypfs_ctx *ctx, hypfs_emit_fn emit, void *arg,
                        enum hypfs_fault *fault) {
  static const char *files[] = {"diag_2fc", "diag_204"};
  for (size_t f = 0; f < 2; f++) {
    snprintf(ctx->path, sizeof(ctx->path), "%s/%s", ctx->conf->debugfs_dir,
             files[f]);
    size_t len = 0;
    int rc = hypfs_read_debugfs(ctx->path, &ctx->buf, &ctx->buf_cap, &len,
                                &ctx->stats.retries);
    if (rc == -ENOENT)
      continue;
    if (rc < 0) {
      *fault = io_fault(ctx, -rc, ctx->path);
      return -1;
    }
    ctx->stats.bytes += len;
    enum hypfs_error e;
    if (f == 0) {
      e = hypfs_decode_d2fc(ctx->buf, len, &ctx->d2fc);
      if (e != HYPFS_OK) {
        *fault = data_fault(ctx, e, ctx->path);
        return -1;
      }
      ctx->stats.reads++;
      if (!stale(ctx, ctx->d2fc.tod_ext_hi, ctx->d2fc.tod_ext_lo))
        hypfs_map_vm(ctx, &ctx->d2fc, emit, arg);
      *fault = own_only(ctx, ctx->d2fc.guests_num);
    } else {
      e = hypfs_decode_d204(ctx->buf, len, &ctx->d204);
      if (e == HYPFS_E_HEADER && len >= HYPFS_D204_HDR_SIZE &&
          hypfs_d204_sc_format(ctx->d204.sc) < 0) {
        ctx->stats.errors[e]++;
        *fault = set_fault(
            ctx, HYPFS_F_DATA,
            "%s: rejected: its header names DIAG X'204' subcode %u, whose "
            "data format the plugin does not know (4: simple, 6 and 7: "
            "extended); counted in errors-header, nothing dispatched from it",
            ctx->path, (unsigned)ctx->d204.sc);
        return -1;
      }
      if (e != HYPFS_OK) {
        *fault = data_fault(ctx, e, ctx->path);
        return -1;
      }
      ctx->stats.reads++;
      if (!stale(ctx, ctx->d204.tod, 0))
        hypfs_map_lpar(ctx, &ctx->d204, emit, arg);
      *fault = HYPFS_F_NONE;
    }
    return 0;
  }
  return 1;
}

/* The tree holds only its update file (see rebuild_tree()); update_rc:
 * what writing update answered. */
static enum hypfs_fault emptied_fault(struct hypfs_ctx *ctx, int update_rc) {
  ctx->stats.errors_read++;
  return set_fault(
      ctx, HYPFS_F_EMPTIED,
      "%s holds only its update file: hypfs is mounted, but the kernel's "
      "last update of the tree failed (writing update again: %s), as it "
      "does for a guest or partition whose name cannot be a directory name "
      "(with \"/\", or blank) and for none at all; the plugin writes update "
      "every interval and reads the tree as soon as the kernel rebuilds it; "
      "until then find that guest, or read the debugfs files instead "
      "(Source \"debugfs\"), which have no such failure",
      ctx->conf->tree_dir,
      update_rc == 0 ? "no tree built" : strerror(-update_rc));
}

/* A tree the kernel emptied (only its update file left): writing update
 * is what makes the kernel build it again, so write it every interval.
 * 0: rebuilt, hyp/type read into *kind; -1: still empty (*fault). */
static int rebuild_tree(struct hypfs_ctx *ctx, enum hypfs_tree_kind *kind,
                        enum hypfs_fault *fault) {
  const char *dir = ctx->conf->tree_dir;
  int rc = hypfs_tree_update(dir);
  if (rc == HYPFS_NOT_REGULAR) {
    snprintf(ctx->path, sizeof(ctx->path), "%s/update", dir);
    *fault = io_fault(ctx, -rc, ctx->path);
    return -1;
  }
  if (rc == 0 || rc == -EBUSY) {
    int k = hypfs_tree_kind(dir, kind);
    if (k == 0)
      return 0;
    if (k != -ENOENT) {
      snprintf(ctx->path, sizeof(ctx->path), "%s/hyp/type", dir);
      *fault = io_fault(ctx, -k, ctx->path);
      return -1;
    }
  }
  *fault = emptied_fault(ctx, rc);
  return -1;
}

static int read_tree(struct hypfs_ctx *ctx, hypfs_emit_fn emit, void *arg,
                     enum hypfs_fault *fault) {
  const char *dir = ctx->conf->tree_dir;
  enum hypfs_tree_kind kind;
  bool updated = false;
  int rc = hypfs_tree_kind(dir, &kind);
  if (rc == -ENOENT) {
    /* nothing mounted, or a tree emptied by a failed update */
    ctx->tree_state = hypfs_tree_state(dir);
    if (ctx->tree_state != HYPFS_TREE_EMPTIED)
      return 1;
    if (rebuild_tree(ctx, &kind, fault) < 0)
      return -1;
    updated = true;
    rc = 0;
  }
  if (rc < 0) {
    snprintf(ctx->path, sizeof(ctx->path), "%s/hyp/type", dir);
    *fault = io_fault(ctx, -rc, ctx->path);
    return -1;
  }
  if (kind == HYPFS_TREE_UNKNOWN) {
    *fault = set_fault(ctx, HYPFS_F_HYPERVISOR,
                       "%s/hyp/type names neither \"z/VM Hypervisor\" nor "
                       "\"LPAR Hypervisor\": not a z/VM guest or LPAR; "
                       "remove the plugin from this system's configuration",
                       dir);
    return -1;
  }
  rc = updated ? 0 : hypfs_tree_update(dir);
  if (rc == HYPFS_NOT_REGULAR) {
    snprintf(ctx->path, sizeof(ctx->path), "%s/update", dir);
    *fault = io_fault(ctx, -rc, ctx->path);
    return -1;
  }
  if (rc < 0 && rc != -EBUSY && hypfs_tree_state(dir) == HYPFS_TREE_EMPTIED) {
    /* this update failed and the kernel emptied the tree */
    *fault = emptied_fault(ctx, rc);
    return -1;
  }
  if (rc < 0 && rc != -EBUSY) {
    ctx->stats.errors_read++;
    *fault = set_fault(
        ctx, HYPFS_F_UPDATE,
        "%s/update: %s: the kernel could not rebuild the tree (run as root; "
        "a guest name the tree cannot hold fails every update and empties "
        "the tree: use the debugfs files, Source \"debugfs\")",
        dir, strerror(-rc));
    return -1;
  }
  if (kind == HYPFS_TREE_VM) {
    rc = hypfs_tree_read_vm(dir, &ctx->d2fc, &ctx->stats.bytes);
    if (rc < 0) {
      *fault = io_fault(ctx, -rc, dir);
      return -1;
    }
    ctx->stats.reads++;
    hypfs_map_vm(ctx, &ctx->d2fc, emit, arg);
    *fault = own_only(ctx, ctx->d2fc.guests_num);
  } else {
    rc = hypfs_tree_read_lpar(dir, &ctx->d204, &ctx->stats.bytes,
                              &ctx->stats.skipped);
    if (rc < 0) {
      *fault = io_fault(ctx, -rc, dir);
      return -1;
    }
    ctx->stats.reads++;
    hypfs_map_lpar(ctx, &ctx->d204, emit, arg);
    *fault = HYPFS_F_NONE;
  }
  return 0;
}

enum hypfs_fault hypfs_read(struct hypfs_ctx *ctx, hypfs_emit_fn emit,
                            void *arg) {
  enum hypfs_fault fault = HYPFS_F_NONE;
  ctx->message[0] = '\0';
  ctx->notice_fresh = false;
  ctx->tree_state = HYPFS_TREE_ABSENT;
  int rc = 1;
  if (ctx->conf->source != HYPFS_SOURCE_TREE)
    rc = read_debugfs(ctx, emit, arg, &fault);
  if (rc == 1 && ctx->conf->source != HYPFS_SOURCE_DEBUGFS)
    rc = read_tree(ctx, emit, arg, &fault);
  if (rc == 1) {
    ctx->stats.errors_read++;
    if (ctx->conf->source == HYPFS_SOURCE_DEBUGFS)
      fault = set_fault(ctx, HYPFS_F_NO_SOURCE,
                        "%s: no diag_2fc or diag_204: mount debugfs (mount -t "
                        "debugfs none /sys/kernel/debug) and load the hypfs "
                        "support (s390 kernel with CONFIG_S390_HYPFS_FS)",
                        ctx->conf->debugfs_dir);
    else if (ctx->conf->source == HYPFS_SOURCE_TREE &&
             ctx->tree_state == HYPFS_TREE_OTHER)
      fault = set_fault(ctx, HYPFS_F_NO_SOURCE,
                        "%s has no hyp/type: not a hypfs tree (mount -t "
                        "s390_hypfs none %s), or one another process is "
                        "rebuilding right now",
                        ctx->conf->tree_dir, ctx->conf->tree_dir);
    else if (ctx->conf->source == HYPFS_SOURCE_TREE)
      fault = set_fault(ctx, HYPFS_F_NO_SOURCE,
                        "%s: hypfs is not mounted: mount -t s390_hypfs none "
                        "%s",
                        ctx->conf->tree_dir, ctx->conf->tree_dir);
    else
      fault = set_fault(ctx, HYPFS_F_NO_SOURCE,
                        "neither %s/diag_2fc nor diag_204 nor the hypfs tree "
                        "at %s: mount debugfs (mount -t debugfs none "
                        "/sys/kernel/debug) on an s390 z/VM guest or LPAR",
                        ctx->conf->debugfs_dir, ctx->conf->tree_dir);
  }
  hypfs_emit_stats(ctx, emit, arg);
  return fault;
}
