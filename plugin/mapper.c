/*
 * zvm_monitor - metric mapper. Turns decoded D4R10 and D5R21 records into
 * collectd identifiers and values following the naming contract in
 * design.md. No collectd headers, no I/O (see mapper.h).
 */
#include "zvm_monitor/mapper.h"
#include "zvm_monitor/be.h"
#include "zvm_monitor/timerule.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PLUGIN_INSTANCE_READER "reader"
#define PLUGIN_INSTANCE_SYSTEM "system"
#define CPU_TYPES 256
#define MT_STARTS_KEPT 4  /* pending changes remembered by RCCSMTSQ */
#define MT_TYPES_KEPT 16  /* CPU types remembered per pending change */
#define MT_VALUE_MAX 0xFF /* thread count X'FF' = MAX was specified */
#define INITIAL_BUCKETS 256

/* One dispatched value per field element of a record table, resolved once
 * (offset, width, sign) so producing a value is a load and a sign fix. */
struct slot {
  uint16_t offset; /* of this element in the record */
  uint8_t width;
  bool is_signed;
  enum zvm_value_kind kind;
  const char *type;
  char type_instance[ZVM_ID_MAX];
};

/* Users are keyed by the raw 8-byte EBCDIC user ID with trailing NULs made
 * blanks: equal keys <=> equal names (zvm_name_format() trims blanks and
 * NULs and is injective otherwise), so a record costs one 64-bit compare,
 * and the name is formatted once, when the user is first seen. */
struct user {
  struct user *next;         /* hash chain */
  struct user *touched_next; /* users seen in this pass */
  uint64_t key;
  bool touched;
  bool selected; /* UserID rules, decided once */
  bool pending;  /* rec holds a record of this pass */
  uint16_t rec_len;
  uint64_t pend_unix_us;    /* the kept record's TOD (leap offset not off) */
  uint64_t pend_arrival_us; /* its set's arrival time */
  uint64_t out_us;          /* the time its values are dispatched at */
  uint64_t last_us;         /* time last emitted, 0: never */
  uint64_t last_seen_us;
  uint64_t transactions;
  char name[ZVM_NAME_MAX]; /* plugin instance */
  char host[ZVM_NAME_MAX]; /* lower case: the host with GuestsAsHosts */
  /* The latest record of the pass, kept next to the user's other state:
   * one cache-friendly object per user instead of a separate array. */
  uint8_t rec[ZVM_MAPPER_RECORD_COPY];
};

/* A user whose values the pass emits, and the record they come from. */
struct emit {
  const struct user *u;
  const char *host, *plugin_instance;
  const uint8_t *data; /* the record kept in the user */
  size_t len;
};

/* A record's time before the time rules: TOD as Unix time (leap-second
 * offset not yet taken off) and its set's arrival time. */
struct rec_time {
  uint64_t unix_us;
  uint64_t arrival_us;
};

struct cpu_state {
  char name[16]; /* plugin instance, set when first seen */
  bool pending;
  struct rec_time pend;
  uint64_t last_us;
  /* PRCSMT_CPUTINFO thread counts (seed 004), X'FF' = MAX as read. */
  uint8_t activated, requested, hardware_max, zvm_max, statement, set_command;
};

struct mt_start {
  bool used;
  uint32_t seq;
  size_t n;
  struct {
    uint8_t type;
    uint8_t activated;
  } e[MT_TYPES_KEPT];
};

struct zvm_mapper {
  const struct zvm_conf *conf;

  struct slot *useite_slots;
  size_t useite_nslots;
  bool transactions; /* total_events-transactions selected (UserField) */
  struct zvm_value_item *items;  /* a combined list (CombinedUserValues) */
  size_t userid_off, userid_end; /* USEITE_VMDUSER */

  struct user **buckets;
  size_t nbuckets;
  unsigned bucket_shift; /* 64 - log2(nbuckets) */
  struct user *touched;

  struct cpu_state cpu[CPU_TYPES];
  struct {
    bool pending;
    struct rec_time pend;
    uint64_t last_us;
    bool has_seq, has_maxtc, has_all, has_smset;
    uint32_t seq;
    uint8_t maxtc;
    uint8_t statement_all, set_all; /* RCCCOALL, RCCSMALL */
    uint8_t smset;                  /* RCCSMSET flags */
  } sys;
  struct mt_start starts[MT_STARTS_KEPT];
  size_t next_start;
  /* Notifications are suppressed only as exact repeats: the RCCSMTSQ of
   * the last start and of the last end notified. */
  bool have_start_seq, have_end_seq;
  uint32_t last_start_seq, last_end_seq;

  /* Time rules (timerule.h). */
  uint64_t set_arrival_us;     /* of the set being decoded, 0: unknown */
  uint64_t set_newest_unix_us; /* its newest record */
  struct zvm_leap_est leap_est;
  bool clock_leap_known;
  uint64_t clock_leap_us;

  /* The pass's output: reader and D5R21 values built by finish (a few),
   * then per user values produced on demand from the kept records. */
  struct zvm_value *fixed;
  size_t nfixed, cap_fixed;
  struct emit *emit;
  size_t nemit, cap_emit;
  struct zvm_value *values; /* zvm_mapper_values(): all of them, on demand */
  size_t nvalues, cap_values;
  struct zvm_value_item *values_items; /* their combined lists' items */
  size_t cap_values_items;
  bool values_built;
  struct zvm_notification *notifs;
  size_t nnotifs, cap_notifs;
  bool output_done; /* the previous pass's output is still there */
  bool oom;

  struct zvm_decode_stats decode;
  uint64_t userid_filtered;
  uint64_t last_sweep_us;
  struct zvm_mapper_stats stats;
};

/* ------------------------------------------------------------------------
 * Output lists.
 */
static bool grow(void **array, size_t *cap, size_t n, size_t size) {
  if (n < *cap)
    return true;
  size_t new_cap = *cap ? 2 * *cap : 64;
  void *tmp = realloc(*array, new_cap * size);
  if (tmp == NULL)
    return false;
  *array = tmp;
  *cap = new_cap;
  return true;
}

/* The previous pass's output is dropped when the next pass starts: the
 * records it points into (in the users) are overwritten from here on. */
static void output_begin(struct zvm_mapper *m) {
  if (!m->output_done)
    return;
  m->nfixed = 0;
  m->nemit = 0;
  m->nvalues = 0;
  m->values_built = false;
  m->nnotifs = 0;
  m->output_done = false;
}

/* The strings must live until the next add_set or finish call: static
 * strings or strings owned by the mapper. */
static struct zvm_value *value_new(struct zvm_mapper *m, const char *host,
                                   const char *plugin_instance,
                                   const char *type, const char *type_instance,
                                   uint64_t time_us) {
  if (!grow((void **)&m->fixed, &m->cap_fixed, m->nfixed, sizeof(*m->fixed))) {
    m->oom = true;
    return NULL;
  }
  struct zvm_value *v = &m->fixed[m->nfixed++];
  *v = (struct zvm_value){.host = host,
                          .plugin_instance = plugin_instance,
                          .type = type,
                          .type_instance = type_instance,
                          .time_us = time_us};
  return v;
}

static void emit_derive(struct zvm_mapper *m, const char *host,
                        const char *plugin_instance, const char *type,
                        const char *type_instance, int64_t value,
                        uint64_t time_us) {
  struct zvm_value *v =
      value_new(m, host, plugin_instance, type, type_instance, time_us);
  if (v == NULL)
    return;
  v->kind = ZVM_VALUE_DERIVE;
  v->derive = value;
}

static void emit_gauge(struct zvm_mapper *m, const char *host,
                       const char *plugin_instance, const char *type,
                       const char *type_instance, double value,
                       uint64_t time_us) {
  struct zvm_value *v =
      value_new(m, host, plugin_instance, type, type_instance, time_us);
  if (v == NULL)
    return;
  v->kind = ZVM_VALUE_GAUGE;
  v->gauge = value;
}

/* Counters are unsigned 64-bit sums; derive_t is signed. */
static int64_t counter(uint64_t v) {
  return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

static struct zvm_notification *notif_new(struct zvm_mapper *m,
                                          enum zvm_notif_severity severity,
                                          uint64_t time_us) {
  if (!grow((void **)&m->notifs, &m->cap_notifs, m->nnotifs,
            sizeof(*m->notifs))) {
    m->oom = true;
    return NULL;
  }
  struct zvm_notification *n = &m->notifs[m->nnotifs++];
  *n = (struct zvm_notification){
      .severity = severity,
      .time_us = time_us,
      .plugin_instance = PLUGIN_INSTANCE_SYSTEM,
      .type = "threads",
  };
  return n;
}

/* snprintf that appends and never overflows; a cut message ends in "...". */
__attribute__((format(printf, 3, 4))) static void
msg_append(char *buf, size_t size, const char *fmt, ...) {
  size_t len = strlen(buf);
  if (len + 1 >= size)
    return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + len, size - len, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n >= size - len && size >= 4)
    memcpy(buf + size - 4, "...", 4);
}

/* A record's TOD as Unix time, in the TOD epoch nearest its set's arrival
 * (the 2042 wrap); the leap-second offset is taken off when the pass ends,
 * with the offset of the whole pass. False for a time before 1970. */
static bool record_time(const struct zvm_mapper *m,
                        const struct zvm_record *rec, struct rec_time *t) {
  uint64_t us;
  if (!zvm_tod_unix_us(rec->tod, m->set_arrival_us, &us))
    return false;
  *t = (struct rec_time){.unix_us = us, .arrival_us = m->set_arrival_us};
  return true;
}

/* The leap-second offset of this pass (LeapSecondOffset, man page). */
static uint64_t pass_leap(struct zvm_mapper *m) {
  if (!m->conf->leap_auto) {
    m->stats.leap_method = ZVM_LEAP_CONFIGURED;
    return m->conf->leap_us;
  }
  if (m->clock_leap_known) {
    m->stats.leap_method = ZVM_LEAP_CLOCKS;
    return m->clock_leap_us;
  }
  m->stats.leap_method = ZVM_LEAP_ARRIVAL;
  return zvm_leap_estimate_us(&m->leap_est);
}

/* The time rule (design.md "Time") for one record instance: *out_us is
 * after *last_us, which it becomes. False if the record's time is not
 * after 1970 once the offset is off (nothing to dispatch). */
static bool stamp(struct zvm_mapper *m, const char *what,
                  const struct rec_time *rt, uint64_t *last_us,
                  uint64_t *out_us) {
  uint64_t rec_us;
  if (!zvm_unix_to_utc(rt->unix_us, m->stats.leap_us, &rec_us))
    return false;
  enum zvm_stamp how = zvm_time_stamp(*last_us, rec_us, rt->arrival_us, out_us);
  m->stats.pass_timed++;
  if (how != ZVM_STAMP_RECORD) {
    m->stats.restamped++;
    if (m->stats.pass_restamped++ == 0) {
      struct zvm_restamp_note *n = &m->stats.first_restamp;
      snprintf(n->what, sizeof(n->what), "%s", what);
      n->record_us = rec_us;
      n->last_us = *last_us;
      n->stamped_us = *out_us;
      n->arrival = how == ZVM_STAMP_ARRIVAL;
    }
  }
  *last_us = *out_us;
  return true;
}

/* ------------------------------------------------------------------------
 * Users (D4R10): a chained hash table keyed by the raw user ID (struct user).
 */
#define EBCDIC_BLANK 0x40

/* The key of an 8-byte EBCDIC user ID; false if it is blank (or NULs). */
static bool user_key(const uint8_t *id, uint64_t *key) {
  uint8_t b[ZVM_USERID_LEN];
  memcpy(b, id, sizeof(b));
  int i = ZVM_USERID_LEN - 1;
  for (; i >= 0 && (b[i] == EBCDIC_BLANK || b[i] == 0x00); i--)
    b[i] = EBCDIC_BLANK;
  if (i < 0)
    return false;
  *key = zvm_load_be64(b);
  return true;
}

/* Fibonacci hashing: the top bits of key * 2^64/phi. */
static size_t bucket_of(const struct zvm_mapper *m, uint64_t key) {
  return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> m->bucket_shift);
}

static bool table_resize(struct zvm_mapper *m, size_t nbuckets) {
  struct user **b = calloc(nbuckets, sizeof(*b));
  if (b == NULL)
    return false;
  unsigned shift = 64;
  for (size_t n = nbuckets; n > 1; n >>= 1)
    shift--;
  struct user **old = m->buckets;
  size_t nold = m->nbuckets;
  m->buckets = b;
  m->nbuckets = nbuckets;
  m->bucket_shift = shift;
  for (size_t i = 0; i < nold; i++) {
    struct user *u = old[i];
    while (u != NULL) {
      struct user *next = u->next;
      size_t j = bucket_of(m, u->key);
      u->next = b[j];
      b[j] = u;
      u = next;
    }
  }
  free(old);
  return true;
}

static struct user *user_find(const struct zvm_mapper *m, uint64_t key) {
  for (struct user *u = m->buckets[bucket_of(m, key)]; u != NULL; u = u->next)
    if (u->key == key)
      return u;
  return NULL;
}

static struct user *user_insert(struct zvm_mapper *m, uint64_t key,
                                const char *name) {
  if (m->stats.users_tracked >= ZVM_MAPPER_MAX_USERS)
    return NULL;
  if (m->stats.users_tracked >= m->nbuckets)
    (void)table_resize(m, 2 * m->nbuckets); /* still works if it fails */
  struct user *u = calloc(1, sizeof(*u));
  if (u == NULL)
    return NULL;
  u->key = key;
  u->selected = zvm_conf_user_selected(m->conf, name);
  size_t len = strlen(name);
  if (len >= sizeof(u->name))
    len = sizeof(u->name) - 1;
  memcpy(u->name, name, len);
  for (size_t i = 0; u->name[i] != '\0'; i++)
    u->host[i] = (char)tolower((unsigned char)u->name[i]);
  size_t j = bucket_of(m, key);
  u->next = m->buckets[j];
  m->buckets[j] = u;
  m->stats.users_tracked++;
  return u;
}

/* Forget users not seen for ZVM_MAPPER_EXPIRE_US. */
static void users_expire(struct zvm_mapper *m, uint64_t now_us) {
  for (size_t i = 0; i < m->nbuckets; i++) {
    struct user **pp = &m->buckets[i];
    while (*pp != NULL) {
      struct user *u = *pp;
      if (!u->touched && now_us > u->last_seen_us &&
          now_us - u->last_seen_us > ZVM_MAPPER_EXPIRE_US) {
        *pp = u->next;
        free(u);
        m->stats.users_tracked--;
        m->stats.users_expired++;
      } else {
        pp = &u->next;
      }
    }
  }
}

static void map_useite(struct zvm_mapper *m, const struct zvm_record *rec) {
  uint64_t key;
  if (rec->len < m->userid_end || !user_key(rec->data + m->userid_off, &key)) {
    m->stats.no_userid++;
    return;
  }

  struct user *u = user_find(m, key);
  if (u == NULL) {
    char name[ZVM_NAME_MAX];
    uint8_t id[ZVM_USERID_LEN];
    for (unsigned i = 0; i < ZVM_USERID_LEN; i++)
      id[i] = (uint8_t)(key >> (8 * (ZVM_USERID_LEN - 1 - i)));
    if (zvm_name_format(id, sizeof(id), name, sizeof(name)) < 0) {
      m->stats.no_userid++; /* cannot happen: the key is not blank */
      return;
    }
    u = user_insert(m, key, name);
    if (u == NULL) {
      /* Table full or no memory: still honour the selection for counting. */
      if (zvm_conf_user_selected(m->conf, name))
        m->stats.users_dropped++;
      else
        m->userid_filtered++;
      return;
    }
  }
  if (!u->touched) {
    u->touched = true;
    u->touched_next = m->touched;
    m->touched = u;
  }
  if (!u->selected) {
    m->userid_filtered++;
    return;
  }

  /* Every transaction counts, also one whose values are superseded. */
  u->transactions++;

  struct rec_time t;
  if (!record_time(m, rec, &t))
    return;
  /* The latest record in stream order is kept, whatever its TOD says (a
   * clock set back): the time rule stamps it at the end of the pass. */
  u->pending = true;
  u->rec_len = rec->len < sizeof(u->rec) ? rec->len : sizeof(u->rec);
  memcpy(u->rec, rec->data, u->rec_len);
  u->pend_unix_us = t.unix_us;
  u->pend_arrival_us = t.arrival_us;
}

/* A slot's value in a kept record; false if the record is too short to
 * hold it (an older z/VM) or it is not representable (as zvm_field_i64). */
static inline __attribute__((always_inline)) bool
slot_read(const struct slot *s, const uint8_t *data, size_t len, int64_t *x) {
  if ((size_t)s->offset + s->width > len)
    return false;
  const uint8_t *q = data + s->offset;
  uint64_t raw;
  switch (s->width) {
  case 1:
    raw = q[0];
    break;
  case 2:
    raw = zvm_load_be16(q);
    break;
  case 4:
    raw = zvm_load_be32(q);
    break;
  default:
    raw = zvm_load_be64(q);
    break;
  }
  if (s->is_signed)
    *x = zvm_sign_extend(raw, s->width);
  else if (raw > (uint64_t)INT64_MAX)
    return false;
  else
    *x = (int64_t)raw;
  return true;
}

/* Value number k (0: transactions, k >= 1: slot k - 1) of an emitted user;
 * false if it has none (not selected, or absent from the record). */
static inline __attribute__((always_inline)) bool
user_value(const struct zvm_mapper *m, const struct emit *e, size_t k,
           struct zvm_value *v) {
  const struct user *u = e->u;
  v->host = e->host;
  v->plugin_instance = e->plugin_instance;
  v->time_us = u->out_us;
  v->nitems = 0;
  v->items = NULL;
  if (k == 0) {
    if (!m->transactions)
      return false;
    v->type = "total_events";
    v->type_instance = "transactions";
    v->kind = ZVM_VALUE_DERIVE;
    v->derive = counter(u->transactions);
    v->gauge = 0;
    return true;
  }
  const struct slot *s = &m->useite_slots[k - 1];
  int64_t x;
  if (!slot_read(s, e->data, e->len, &x))
    return false;
  v->type = s->type;
  v->type_instance = s->type_instance;
  v->kind = s->kind;
  if (s->kind == ZVM_VALUE_DERIVE) {
    v->derive = x;
    v->gauge = 0;
  } else {
    v->derive = 0;
    v->gauge = (double)x;
  }
  return true;
}

/* CombinedUserValues: all of a user's values in one list, if the record
 * holds every field (else false: the user's values go out one by one, as
 * without the option, so nothing is made up for an older, shorter record). */
static bool user_combined(struct zvm_mapper *m, const struct emit *e,
                          struct zvm_value *v) {
  struct zvm_value_item *items = m->items;
  items[0] = (struct zvm_value_item){.kind = ZVM_VALUE_DERIVE,
                                     .derive = counter(e->u->transactions)};
  for (size_t i = 0; i < m->useite_nslots; i++) {
    const struct slot *s = &m->useite_slots[i];
    int64_t x;
    if (!slot_read(s, e->data, e->len, &x))
      return false;
    items[1 + i] =
        s->kind == ZVM_VALUE_DERIVE
            ? (struct zvm_value_item){.kind = s->kind, .derive = x}
            : (struct zvm_value_item){.kind = s->kind, .gauge = (double)x};
  }
  *v = (struct zvm_value){.host = e->host,
                          .plugin_instance = e->plugin_instance,
                          .type = ZVM_MAPPER_COMBINED_TYPE,
                          .type_instance = "",
                          .time_us = e->u->out_us,
                          .nitems = 1 + m->useite_nslots,
                          .items = items};
  return true;
}

/* ------------------------------------------------------------------------
 * Multithreading configuration (D5R21).
 */
static const char *cpu_name(uint8_t type, char *buf, size_t size) {
  const char *name = zvm_cpu_type_name(type);
  if (name != NULL)
    return name;
  snprintf(buf, size, "type%u", (unsigned)type);
  return buf;
}

static void thread_count(char *buf, size_t size, uint8_t v) {
  if (v == MT_VALUE_MAX)
    snprintf(buf, size, "MAX");
  else
    snprintf(buf, size, "%u", (unsigned)v);
}

static struct mt_start *start_find(struct zvm_mapper *m, uint32_t seq) {
  for (size_t i = 0; i < MT_STARTS_KEPT; i++)
    if (m->starts[i].used && m->starts[i].seq == seq)
      return &m->starts[i];
  return NULL;
}

/* us: the record's Unix time; the leap-second offset is taken off when
 * the pass ends (notifs_to_utc). */
static void notify_start(struct zvm_mapper *m, uint32_t seq, uint64_t us,
                         const struct zvm_array_view *cpus) {
  /* Remember the activated counts from before the change (seed 004: the
   * start record holds the old RCCACMNT) to name old -> new at the end. */
  struct mt_start *s = start_find(m, seq);
  if (s == NULL) {
    s = &m->starts[m->next_start];
    m->next_start = (m->next_start + 1) % MT_STARTS_KEPT;
  }
  *s = (struct mt_start){.used = true, .seq = seq};
  for (size_t i = 0; i < cpus->count && s->n < MT_TYPES_KEPT; i++) {
    const uint8_t *e = zvm_array_entry(cpus, i);
    uint64_t type, act;
    if (zvm_field_u64(zvm_cputinfo_cputype, e, cpus->entry_size, 0, &type) &&
        zvm_field_u64(zvm_cputinfo_rccacmnt, e, cpus->entry_size, 0, &act)) {
      s->e[s->n].type = (uint8_t)type;
      s->e[s->n].activated = (uint8_t)act;
      s->n++;
    }
  }

  struct zvm_notification *n = notif_new(m, ZVM_NOTIF_WARNING, us);
  if (n == NULL)
    return;
  snprintf(n->message, sizeof(n->message),
           "multithreading configuration change %u started (RCCSMTSQ %u); "
           "activated threads per core before the change:",
           (unsigned)((seq + 1) / 2), (unsigned)seq);
  for (size_t i = 0; i < s->n; i++) {
    char name[16], act[8];
    thread_count(act, sizeof(act), s->e[i].activated);
    msg_append(n->message, sizeof(n->message), "%s %s %s", i ? "," : "",
               cpu_name(s->e[i].type, name, sizeof(name)), act);
  }
  if (s->n == 0)
    msg_append(n->message, sizeof(n->message), " none listed");
  msg_append(n->message, sizeof(n->message),
             "; data until the change ends spans two configurations");
}

static void notify_end(struct zvm_mapper *m, uint32_t seq, uint64_t us,
                       const struct zvm_array_view *cpus) {
  struct mt_start *s = start_find(m, seq);
  {
    struct zvm_notification *n = notif_new(m, ZVM_NOTIF_OKAY, us);
    if (n != NULL) {
      snprintf(n->message, sizeof(n->message),
               "multithreading configuration change %u ended (RCCSMTSQ %u); "
               "activated threads per core:",
               (unsigned)((seq + 1) / 2), (unsigned)seq);
      size_t listed = 0;
      for (size_t i = 0; i < cpus->count; i++) {
        const uint8_t *e = zvm_array_entry(cpus, i);
        uint64_t type, act;
        if (!zvm_field_u64(zvm_cputinfo_cputype, e, cpus->entry_size, 0,
                           &type) ||
            !zvm_field_u64(zvm_cputinfo_rccacmnt, e, cpus->entry_size, 0, &act))
          continue;
        char name[16], before[8] = "?", after[8];
        for (size_t j = 0; s != NULL && j < s->n; j++)
          if (s->e[j].type == type)
            thread_count(before, sizeof(before), s->e[j].activated);
        thread_count(after, sizeof(after), (uint8_t)act);
        msg_append(n->message, sizeof(n->message), "%s %s %s -> %s",
                   listed++ ? "," : "",
                   cpu_name((uint8_t)type, name, sizeof(name)), before, after);
      }
      if (listed == 0)
        msg_append(n->message, sizeof(n->message), " none listed");
      if (s == NULL)
        msg_append(n->message, sizeof(n->message),
                   "; the start of this change was not seen");
    }
  }
  if (s != NULL)
    s->used = false;
}

static void map_prcsmt(struct zvm_mapper *m, const struct zvm_record *rec) {
  struct rec_time t;
  if (!record_time(m, rec, &t))
    return;
  const uint8_t *d = rec->data;
  size_t len = rec->len;

  uint64_t seq = 0, maxtc = 0, status = 0, coall = 0, small = 0, smset = 0;
  bool has_seq = zvm_field_u64(zvm_prcsmt_rccsmtsq, d, len, 0, &seq);
  bool has_maxtc = zvm_field_u64(zvm_prcsmt_calmaxtc, d, len, 0, &maxtc);
  bool has_all = zvm_field_u64(zvm_prcsmt_rcccoall, d, len, 0, &coall) &&
                 zvm_field_u64(zvm_prcsmt_rccsmall, d, len, 0, &small);
  bool has_smset = zvm_field_u64(zvm_prcsmt_rccsmset, d, len, 0, &smset);
  (void)zvm_field_u64(zvm_prcsmt_cal_status, d, len, 0, &status);

  /* The latest record in stream order wins, whatever its TOD. */
  if (has_seq || has_maxtc || has_all || has_smset) {
    m->sys.pending = true;
    m->sys.pend = t;
    m->sys.has_seq = has_seq;
    m->sys.has_maxtc = has_maxtc;
    m->sys.has_all = has_all;
    m->sys.has_smset = has_smset;
    m->sys.seq = (uint32_t)seq;
    m->sys.maxtc = (uint8_t)maxtc;
    m->sys.statement_all = (uint8_t)coall;
    m->sys.set_all = (uint8_t)small;
    m->sys.smset = (uint8_t)smset;
  }

  /* An unusable array (zero entry size, entries outside the record; the
   * decoder counted it as malformed) loses only the per-type values: the
   * fixed part above and the notification below are still used. */
  struct zvm_array_view cpus = {.count = 0};
  if (zvm_array_locate(zvm_rec_prcsmt.array, d, len, &cpus) != ZVM_ARRAY_OK)
    cpus.count = 0;
  for (size_t i = 0; i < cpus.count; i++) {
    const uint8_t *e = zvm_array_entry(&cpus, i);
    size_t elen = cpus.entry_size;
    uint64_t type, act, req, hw, sy, co, sm;
    /* An entry must hold every count: a half-known type is skipped. */
    if (!zvm_field_u64(zvm_cputinfo_cputype, e, elen, 0, &type) ||
        !zvm_field_u64(zvm_cputinfo_rccacmnt, e, elen, 0, &act) ||
        !zvm_field_u64(zvm_cputinfo_rcccrmnt, e, elen, 0, &req) ||
        !zvm_field_u64(zvm_cputinfo_rcchwmnt, e, elen, 0, &hw) ||
        !zvm_field_u64(zvm_cputinfo_rccsymnt, e, elen, 0, &sy) ||
        !zvm_field_u64(zvm_cputinfo_rcccomnt, e, elen, 0, &co) ||
        !zvm_field_u64(zvm_cputinfo_rccsmmnt, e, elen, 0, &sm))
      continue;
    struct cpu_state *c = &m->cpu[type & 0xFF];
    if (c->name[0] == '\0') {
      const char *name = cpu_name((uint8_t)type, c->name, sizeof(c->name));
      if (name != c->name)
        snprintf(c->name, sizeof(c->name), "%s", name);
    }
    c->pending = true;
    c->pend = t;
    c->activated = (uint8_t)act;
    c->requested = (uint8_t)req;
    c->hardware_max = (uint8_t)hw;
    c->zvm_max = (uint8_t)sy;
    c->statement = (uint8_t)co;
    c->set_command = (uint8_t)sm;
  }

  /* Notifications: every start and end once; only an exact repeat (same
   * RCCSMTSQ and status as the last one notified) is suppressed, never a
   * record for its time. */
  if (!has_seq)
    return;
  if ((status & ZVM_PRCSMT_CAL_START) &&
      !(m->have_start_seq && m->last_start_seq == seq)) {
    m->have_start_seq = true;
    m->last_start_seq = (uint32_t)seq;
    notify_start(m, (uint32_t)seq, t.unix_us, &cpus);
  }
  if ((status & ZVM_PRCSMT_CAL_END) &&
      !(m->have_end_seq && m->last_end_seq == seq)) {
    m->have_end_seq = true;
    m->last_end_seq = (uint32_t)seq;
    notify_end(m, (uint32_t)seq, t.unix_us, &cpus);
  }
}

/* A thread count. X'FF' means MAX was specified (seed 004), not 255
 * threads: it is dispatched as NaN, never as a number a dashboard graphs,
 * and, for counts where MAX can be specified, a bool-<name>_is_max value
 * (1 or 0) says so. */
static void emit_threads(struct zvm_mapper *m, const char *pi, const char *ti,
                         const char *max_ti, uint8_t v, uint64_t us) {
  bool is_max = v == ZVM_PRCSMT_THREADS_MAX;
  emit_gauge(m, "", pi, "threads", ti, is_max ? NAN : (double)v, us);
  if (max_ti != NULL)
    emit_gauge(m, "", pi, "bool", max_ti, is_max ? 1 : 0, us);
}

static void emit_mt(struct zvm_mapper *m) {
  for (unsigned t = 0; t < CPU_TYPES; t++) {
    struct cpu_state *c = &m->cpu[t];
    if (!c->pending)
      continue;
    c->pending = false;
    uint64_t us;
    if (!stamp(m, c->name, &c->pend, &c->last_us, &us))
      continue;
    const char *pi = c->name;
    emit_threads(m, pi, "activated", NULL, c->activated, us);
    emit_threads(m, pi, "requested", "requested_is_max", c->requested, us);
    emit_threads(m, pi, "hardware_max", NULL, c->hardware_max, us);
    emit_threads(m, pi, "zvm_max", NULL, c->zvm_max, us);
    emit_threads(m, pi, "statement", "statement_is_max", c->statement, us);
    emit_threads(m, pi, "set_command", "set_command_is_max", c->set_command,
                 us);
  }

  if (m->sys.pending) {
    m->sys.pending = false;
    uint64_t us;
    if (stamp(m, PLUGIN_INSTANCE_SYSTEM, &m->sys.pend, &m->sys.last_us, &us)) {
      const char *pi = PLUGIN_INSTANCE_SYSTEM;
      if (m->sys.has_seq)
        emit_gauge(m, "", pi, "gauge", "mt_config_seq", m->sys.seq, us);
      if (m->sys.has_maxtc)
        emit_gauge(m, "", pi, "gauge", "mt_max_threads", m->sys.maxtc, us);
      if (m->sys.has_all) {
        emit_threads(m, pi, "statement_all", "statement_all_is_max",
                     m->sys.statement_all, us);
        emit_threads(m, pi, "set_all", "set_all_is_max", m->sys.set_all, us);
      }
      if (m->sys.has_smset)
        emit_gauge(m, "", pi, "bool", "set_initial",
                   (m->sys.smset & ZVM_PRCSMT_RCCSMINI) ? 1 : 0, us);
    }
  }
}

/* The pass's notifications carry their records' Unix times: take the
 * leap-second offset off. */
static void notifs_to_utc(struct zvm_mapper *m) {
  for (size_t i = 0; i < m->nnotifs; i++) {
    uint64_t utc;
    if (zvm_unix_to_utc(m->notifs[i].time_us, m->stats.leap_us, &utc))
      m->notifs[i].time_us = utc;
  }
}

/* ------------------------------------------------------------------------
 * Passes.
 */
static void record_cb(const struct zvm_record *rec,
                      const struct zvm_record_desc *desc, void *ctx) {
  struct zvm_mapper *m = ctx;
  if (m->set_arrival_us != 0) {
    /* The newest record of the set, for the leap-second estimate. */
    uint64_t us;
    if (zvm_tod_unix_us(rec->tod, m->set_arrival_us, &us) &&
        us > m->set_newest_unix_us)
      m->set_newest_unix_us = us;
  }
  if (desc == &zvm_rec_useite)
    map_useite(m, rec);
  else if (desc == &zvm_rec_prcsmt)
    map_prcsmt(m, rec);
  /* D1R11/D1R13 only structure the stream. */
}

void zvm_mapper_add_set_at(struct zvm_mapper *m, const uint8_t *set, size_t len,
                           uint64_t arrival_us) {
  output_begin(m);
  m->set_arrival_us = arrival_us;
  m->set_newest_unix_us = 0;
  zvm_decode_set(set, len, m->conf->domains, record_cb, m, &m->decode);
  zvm_leap_observe(&m->leap_est, m->set_newest_unix_us, arrival_us);
  m->set_arrival_us = 0;
}

void zvm_mapper_add_set(struct zvm_mapper *m, const uint8_t *set, size_t len) {
  zvm_mapper_add_set_at(m, set, len, 0);
}

void zvm_mapper_set_clock_leap(struct zvm_mapper *m, bool known,
                               uint64_t leap_us) {
  m->clock_leap_known = known;
  m->clock_leap_us = leap_us;
}

static void emit_reader(struct zvm_mapper *m,
                        const struct zvm_reader_stats *rs) {
  static const struct zvm_reader_stats none;
  if (rs == NULL)
    rs = &none;
  const struct zvm_decode_stats *d = &m->decode;
  const char *pi = PLUGIN_INSTANCE_READER;
  uint64_t malformed = d->walk.malformed + d->walk.mce_rejected +
                       d->array_rejected + rs->oversize;
  uint64_t skipped = d->unknown + d->walk.filtered + m->userid_filtered +
                     m->stats.no_userid + m->stats.users_dropped;

  /* time 0: the daemon stamps these with the time of dispatch. */
  emit_derive(m, "", pi, "errors", "eoverflow", counter(rs->eoverflow), 0);
  emit_derive(m, "", pi, "errors", "eio", counter(rs->eio), 0);
  emit_derive(m, "", pi, "errors", "efault", counter(rs->efault), 0);
  emit_derive(m, "", pi, "errors", "open", counter(rs->open_errors), 0);
  emit_derive(m, "", pi, "errors", "malformed", counter(malformed), 0);
  emit_derive(m, "", pi, "total_objects", "sets", counter(rs->sets), 0);
  emit_derive(m, "", pi, "total_objects", "records", counter(d->walk.records),
              0);
  emit_derive(m, "", pi, "total_objects", "skipped", counter(skipped), 0);
  emit_derive(m, "", pi, "total_bytes", "read", counter(rs->bytes_read), 0);
  emit_derive(m, "", pi, "total_objects", "restamped",
              counter(m->stats.restamped), 0);
}

int zvm_mapper_finish(struct zvm_mapper *m, uint64_t now_us,
                      const struct zvm_reader_stats *rs) {
  output_begin(m);

  m->stats.leap_us = pass_leap(m);
  m->stats.pass_timed = 0;
  m->stats.pass_restamped = 0;

  /* Users' values are produced on demand (zvm_mapper_next_value) from
   * the records kept in the users, untouched until the next pass starts. */
  for (struct user *u = m->touched; u != NULL;) {
    struct user *next = u->touched_next;
    if (u->pending) {
      struct rec_time rt = {u->pend_unix_us, u->pend_arrival_us};
      if (!grow((void **)&m->emit, &m->cap_emit, m->nemit, sizeof(*m->emit)))
        m->oom = true;
      else if (stamp(m, u->name, &rt, &u->last_us, &u->out_us))
        m->emit[m->nemit++] = (struct emit){
            .u = u,
            .host = m->conf->guests_as_hosts ? u->host : "",
            .plugin_instance = m->conf->guests_as_hosts ? "" : u->name,
            .data = u->rec,
            .len = u->rec_len,
        };
    }
    u->pending = false;
    u->touched = false;
    u->touched_next = NULL;
    u->last_seen_us = now_us;
    u = next;
  }
  m->touched = NULL;

  emit_mt(m);
  notifs_to_utc(m);
  /* The reader's counters last: they include this pass's restamping. */
  if (m->conf->report_reader_stats)
    emit_reader(m, rs);

  if (m->last_sweep_us == 0 || now_us < m->last_sweep_us) {
    m->last_sweep_us = now_us;
  } else if (now_us - m->last_sweep_us >= ZVM_MAPPER_SWEEP_US) {
    users_expire(m, now_us);
    m->last_sweep_us = now_us;
  }

  m->output_done = true;
  bool oom = m->oom;
  m->oom = false;
  return oom ? -1 : 0;
}

/* ------------------------------------------------------------------------
 * Life cycle and accessors.
 */
static bool field_dispatched(const struct zvm_field *f) {
  return f->kind == ZVM_FIELD_COUNTER || f->kind == ZVM_FIELD_GAUGE;
}

/* The type instance of element idx of a dispatched field. */
static void slot_name(const struct zvm_field *f, unsigned idx, char *buf,
                      size_t size) {
  /* 4-element arrays are per dispatch queue Q0..Q3 (seed 002). */
  if (f->count == 1)
    snprintf(buf, size, "%s", f->metric);
  else if (f->count == 4)
    snprintf(buf, size, "%s_q%u", f->metric, idx);
  else
    snprintf(buf, size, "%s_%u", f->metric, idx);
}

bool zvm_mapper_is_user_value(const char *name) {
  if (name == NULL)
    return false;
  if (strcasecmp(name, "transactions") == 0)
    return true;
  const struct zvm_record_desc *d = &zvm_rec_useite;
  for (size_t i = 0; i < d->nfields; i++) {
    const struct zvm_field *f = &d->fields[i];
    if (!field_dispatched(f))
      continue;
    if (strcasecmp(name, f->metric) == 0)
      return true;
    for (unsigned idx = 0; idx < f->count; idx++) {
      char ti[ZVM_ID_MAX];
      slot_name(f, idx, ti, sizeof(ti));
      if (strcasecmp(name, ti) == 0)
        return true;
    }
  }
  return false;
}

const char *zvm_mapper_user_value_names(void) {
  static char names[1024];
  if (names[0] == '\0') {
    size_t len = (size_t)snprintf(names, sizeof(names), "transactions");
    const struct zvm_record_desc *d = &zvm_rec_useite;
    for (size_t i = 0; i < d->nfields && len < sizeof(names); i++)
      if (field_dispatched(&d->fields[i]))
        len += (size_t)snprintf(names + len, sizeof(names) - len, ", %s%s",
                                d->fields[i].metric,
                                d->fields[i].count > 1 ? "[_qN]" : "");
  }
  return names;
}

static int slots_build(struct zvm_mapper *m, const struct zvm_record_desc *d) {
  size_t n = 0;
  for (size_t i = 0; i < d->nfields; i++)
    if (field_dispatched(&d->fields[i]))
      n += d->fields[i].count;
  m->useite_slots = calloc(n ? n : 1, sizeof(*m->useite_slots));
  m->items = calloc(1 + n, sizeof(*m->items));
  if (m->useite_slots == NULL || m->items == NULL)
    return -1;

  m->transactions = zvm_conf_userfield_selected(m->conf, "transactions", NULL);
  for (size_t i = 0; i < d->nfields; i++) {
    const struct zvm_field *f = &d->fields[i];
    if (!field_dispatched(f))
      continue;
    for (unsigned idx = 0; idx < f->count; idx++) {
      struct slot *s = &m->useite_slots[m->useite_nslots];
      slot_name(f, idx, s->type_instance, sizeof(s->type_instance));
      if (!zvm_conf_userfield_selected(m->conf, s->type_instance, f->metric))
        continue; /* UserField: not dispatched */
      m->useite_nslots++;
      s->offset = (uint16_t)(f->offset + idx * f->width);
      s->width = f->width;
      s->is_signed = f->is_signed;
      if (f->kind == ZVM_FIELD_COUNTER) {
        s->type = "derive";
        s->kind = ZVM_VALUE_DERIVE;
      } else {
        s->type = "gauge";
        s->kind = ZVM_VALUE_GAUGE;
      }
    }
  }
  return 0;
}

struct zvm_mapper *zvm_mapper_create(const struct zvm_conf *conf) {
  struct zvm_mapper *m = calloc(1, sizeof(*m));
  if (m == NULL)
    return NULL;
  m->conf = conf;
  m->userid_off = zvm_useite_vmduser->offset;
  m->userid_end = m->userid_off + zvm_useite_vmduser->width;
  if (slots_build(m, &zvm_rec_useite) != 0 ||
      !table_resize(m, INITIAL_BUCKETS)) {
    zvm_mapper_destroy(m);
    return NULL;
  }
  return m;
}

void zvm_mapper_destroy(struct zvm_mapper *m) {
  if (m == NULL)
    return;
  for (size_t i = 0; i < m->nbuckets; i++) {
    struct user *u = m->buckets[i];
    while (u != NULL) {
      struct user *next = u->next;
      free(u);
      u = next;
    }
  }
  free(m->buckets);
  free(m->useite_slots);
  free(m->fixed);
  free(m->emit);
  free(m->values);
  free(m->values_items);
  free(m->items);
  free(m->notifs);
  free(m);
}

bool zvm_mapper_next_value(struct zvm_mapper *m, struct zvm_value_iter *it,
                           struct zvm_value *v) {
  if (it->fixed < m->nfixed) {
    *v = m->fixed[it->fixed++];
    return true;
  }
  size_t per_user = 1 + m->useite_nslots;
  while (it->user < m->nemit) {
    const struct emit *e = &m->emit[it->user];
    if (it->value == 0 && m->conf->combined_user_values &&
        user_combined(m, e, v)) {
      it->user++;
      return true;
    }
    while (it->value < per_user)
      if (user_value(m, e, it->value++, v))
        return true;
    it->user++;
    it->value = 0;
  }
  return false;
}

const struct zvm_value *zvm_mapper_values(struct zvm_mapper *m, size_t *n) {
  if (!m->values_built) {
    struct zvm_value_iter it = ZVM_VALUE_ITER_INIT;
    struct zvm_value v;
    size_t nitems = 0;
    m->nvalues = 0;
    while (zvm_mapper_next_value(m, &it, &v)) {
      if (!grow((void **)&m->values, &m->cap_values, m->nvalues,
                sizeof(*m->values)) ||
          !grow((void **)&m->values_items, &m->cap_values_items,
                nitems + v.nitems, sizeof(*m->values_items))) {
        *n = 0;
        return NULL;
      }
      /* Combined lists: the items are copied; pointers are set below,
       * once the item array no longer moves. */
      if (v.nitems > 0)
        memcpy(m->values_items + nitems, v.items, v.nitems * sizeof(*v.items));
      v.items = NULL;
      nitems += v.nitems;
      m->values[m->nvalues++] = v;
    }
    nitems = 0;
    for (size_t i = 0; i < m->nvalues; i++) {
      if (m->values[i].nitems > 0)
        m->values[i].items = m->values_items + nitems;
      nitems += m->values[i].nitems;
    }
    m->values_built = true;
  }
  *n = m->nvalues;
  return m->values;
}

const struct zvm_notification *
zvm_mapper_notifications(const struct zvm_mapper *m, size_t *n) {
  *n = m->nnotifs;
  return m->notifs;
}

const struct zvm_mapper_stats *
zvm_mapper_get_stats(const struct zvm_mapper *m) {
  return &m->stats;
}

const struct zvm_decode_stats *
zvm_mapper_decode_stats(const struct zvm_mapper *m) {
  return &m->decode;
}
