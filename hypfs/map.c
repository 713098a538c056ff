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
  if (ctx != NULL)
    ctx->conf = conf;
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
static uint64_t counter(struct entity *e, size_t i, uint64_t raw,
                        unsigned width, bool created, bool restarted,
                        struct hypfs_stats *st) {
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

static void name_entity(const struct hypfs_ctx *ctx, const char *name,
                        struct naming *n) {
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

/* The values of one list from the rows of its type t (hypfs/values.c):
 * gauges from src, the entity's struct; counters continued in e, each in
 * the slot of its place among the rows' counters, their dispatched values
 * also in now[slot] (if now); a partition's sums from e->acc. A counter
 * row marked restart that went back restarts every counter of e. */
static void fill(struct hypfs_ctx *ctx, const struct hypfs_type *t,
                 const void *src, struct entity *e, bool created,
                 struct hypfs_value *v, uint64_t *now) {
  bool restarted = false;
  size_t slot = 0;
  for (size_t i = 0; i < t->ds_num; i++) {
    const struct hypfs_ds *r = &t->ds[i];
    if (r->kind != HYPFS_COUNTER || slot >= NCOUNTERS)
      continue;
    if (r->restart && !created && hypfs_ds_raw(r, src) < e->last[slot])
      restarted = true;
    slot++;
  }
  if (restarted)
    ctx->stats.restarts++;
  slot = 0;
  for (size_t i = 0; i < t->ds_num; i++) {
    const struct hypfs_ds *r = &t->ds[i];
    switch (r->kind) {
    case HYPFS_GAUGE:
      v[i] = gauge(hypfs_ds_gauge(r, src));
      break;
    case HYPFS_COUNTER: {
      if (slot >= NCOUNTERS) { /* rows over the bound (test_rows fails) */
        v[i] = derive(hypfs_ds_raw(r, src));
        break;
      }
      uint64_t x = counter(e, slot, hypfs_ds_raw(r, src), r->width, created,
                           restarted, &ctx->stats);
      if (now != NULL)
        now[slot] = x;
      slot++;
      v[i] = derive(x);
      break;
    }
    case HYPFS_SUM: {
      int k = hypfs_cpu_counter_slot(r->name); /* test_rows: always found */
      v[i] = derive(k >= 0 && k < NSUMS ? e->acc[k] : 0);
      break;
    }
    }
  }
}

/* ---- z/VM ------------------------------------------------------------ */

void hypfs_map_vm(struct hypfs_ctx *ctx, const struct hypfs_d2fc *d,
                  hypfs_emit_fn emit, void *arg) {
  const struct hypfs_conf *conf = ctx->conf;
  ctx->pass++;
  ctx->stats.skipped += d->skipped_names;
  snapshot_notice(ctx, "guest", "DIAG X'2FC'", d->records, d->skipped_names,
                  &d->skipped_first);
  for (size_t i = 0; i < d->guests_num; i++) {
    const struct hypfs_guest *g = &d->guests[i];
    if (!hypfs_rules_selected(&conf->userids, conf->ignore_selected, g->name))
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
    const struct hypfs_type *t = &hypfs_types[HYPFS_T_GUEST];
    struct hypfs_value v[HYPFS_DS_MAX];
    fill(ctx, t, g, e, created, v, NULL);
    struct naming n;
    name_entity(ctx, g->name, &n);
    emit_list(emit, arg, &n, t->name, "", v, t->ds_num);
  }
  const struct hypfs_type *t = &hypfs_types[HYPFS_T_VM];
  struct naming sys = {.host = "", .plugin_instance = "hypervisor"};
  struct hypfs_value v[HYPFS_DS_MAX];
  fill(ctx, t, d, NULL, true, v, NULL);
  emit_list(emit, arg, &sys, t->name, "", v, t->ds_num);
  entities_expire(ctx);
}

/* ---- LPAR ------------------------------------------------------------ */

void hypfs_map_lpar(struct hypfs_ctx *ctx, const struct hypfs_d204 *d,
                    hypfs_emit_fn emit, void *arg) {
  const struct hypfs_conf *conf = ctx->conf;
  const bool ext = d->format == HYPFS_D204_EXT;
  /* the types of the format: the simple one has no online time */
  const struct hypfs_type *pt =
      &hypfs_types[ext ? HYPFS_T_LPAR : HYPFS_T_LPAR_SIMPLE];
  const struct hypfs_type *ct =
      &hypfs_types[ext ? HYPFS_T_LPAR_CPU : HYPFS_T_LPAR_CPU_SIMPLE];
  ctx->pass++;
  ctx->stats.skipped += d->skipped_names;
  snapshot_notice(ctx, "partition", "DIAG X'204'", d->records, d->skipped_names,
                  &d->skipped_first);
  for (size_t p = 0; p < d->lpars_num; p++) {
    const struct hypfs_lpar *l = &d->lpars[p];
    if (!hypfs_rules_selected(&conf->partitions, conf->ignore_selected,
                              l->name))
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
      uint64_t now[NCOUNTERS] = {0};
      struct hypfs_value v[HYPFS_DS_MAX];
      fill(ctx, ct, cpu, e, created, v, now);
      /* The partition's sums grow by each CPU's increment; a CPU new in
       * a known partition adds what it counted since it appeared. */
      for (size_t k = 0; k < NSUMS; k++)
        pe->acc[k] += e->has_prev ? now[k] - e->prev[k] : now[k];
      memcpy(e->prev, now, sizeof(e->prev));
      e->has_prev = true;
      emit_list(emit, arg, &n, ct->name, ti, v, ct->ds_num);
    }
    struct hypfs_value v[HYPFS_DS_MAX];
    fill(ctx, pt, l, pe, part_created, v, NULL);
    emit_list(emit, arg, &n, pt->name, "", v, pt->ds_num);
  }
  const struct hypfs_type *ft = &hypfs_types[HYPFS_T_PHYS_CPU];
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
    struct hypfs_value v[HYPFS_DS_MAX];
    fill(ctx, ft, pc, e, created, v, NULL);
    emit_list(emit, arg, &phys, ft->name, ti, v, ft->ds_num);
  }
  const struct hypfs_type *st = &hypfs_types[HYPFS_T_LPAR_SYS];
  struct naming sys = {.host = "", .plugin_instance = "hypervisor"};
  struct hypfs_value v[HYPFS_DS_MAX];
  fill(ctx, st, d, NULL, true, v, NULL);
  emit_list(emit, arg, &sys, st->name, "", v, st->ds_num);
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
