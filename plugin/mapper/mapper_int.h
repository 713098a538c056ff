/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the mapper's internals, shared by its three parts:
 *
 *   entity.c  the entity table: one entity per record instance, keyed by
 *             (layout, instance key), named once when first seen
 *   mapper.c  a pass: records through the hooks, record-time rules,
 *             keeping the latest record per entity; life cycle
 *   output.c  the pass's output: value lists (one per entity by default,
 *             or one value per list), reader counters, notifications
 *   cdname.c  collectd's identifiers: of instances, notifications, a
 *             value with one value per list, a list a hook names, the
 *             source's health counters
 *
 * Not an installed header: nothing outside the mapper sees these structs.
 */
#ifndef ZVM_MAPPER_MAPPER_INT_H
#define ZVM_MAPPER_MAPPER_INT_H

#include "base/util.h"
#include "engine/check.h"
#include "engine/hooks.h"
#include "engine/walk.h"
#include "zvm_monitor/be.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/mapper.h"
#include "zvm_monitor/registry.h"
#include "zvm_monitor/timerule.h"
#include "zvm_monitor/typesdb.h"

#include <string.h>

/* One dispatched value of a layout (a field element), resolved once. */
struct slot {
  const struct zvm_field *f;
  unsigned idx;    /* element */
  uint16_t offset; /* of the element in the instance's bytes */
  uint8_t width;
  bool plain;     /* integer without scale or flags: the fast path */
  bool is_signed; /* plain only */
  bool records;   /* ZVM_TYPE_RECORD_COUNT */
  bool selected;  /* UserField (one value per list only) */
  enum zvm_value_kind kind;
  const char *single_type; /* collectd: type with one value per list */
  const char *single_ti;   /* collectd: its type instance (cdname.c) */
  char ds[64];             /* data source name */
};

struct mrec;

/* A layout as the mapper uses it. */
struct lay {
  const struct zvm_layout *layout;
  struct mrec *rec;                     /* its record */
  const struct zvm_record_hooks *hooks; /* rec->hooks */
  unsigned id; /* distinguishes layouts in entity keys */
  struct slot *slots;
  size_t nslots;
  size_t copy_size; /* bytes of an instance kept: up to the last field */
  /* Its entities (entity.c): where the hooks' state and the names start. */
  size_t state_off, names_off;
  bool dispatched;  /* has a type or values */
  bool single;      /* one value per list */
  bool user_key;    /* a ZVM_KEY_USERID part: selection, GuestsAsHosts */
  bool guest_named; /* hooks->guest_dropped: the guests' pool (key.v[0]
                       is the guest) */
  /* The common key, one 8-byte EBCDIC name (a user ID): read directly. */
  bool key_text8;
  uint16_t key_off;
};

/* A descriptor as the mapper uses it. */
struct mrec {
  const struct zvm_record_desc *desc;
  const struct zvm_record_hooks *hooks; /* NULL: none */
  struct zvm_hook_ctx ctx;
  struct lay main;
  struct lay *arrays;   /* desc->narrays */
  struct mrec *per_cpu; /* desc->per_cpu_view with ReportByVirtualCPU */
  struct mrec *next;    /* all of them, for destroy */
  /* No select or record hook, no arrays, no per-CPU view: a record is its
   * main instance alone (D4R10), mapped without the general steps. */
  bool plain;
  uint64_t guest_dropped; /* hooks->guest_dropped: records refused */
};

struct entity {
  /* What a record reads and writes comes first: the hash chain and
   * inst.key, .layout, .records, .hook_word in the first cache line, the
   * pass's fields and the start of the kept record in the second. A
   * record touches five lines (the copy of a 200-byte record included). */
  struct entity *next;         /* hash chain */
  struct zvm_instance inst;    /* key, layout, records, ..., state, name */
  struct entity *touched_next; /* entities seen in this pass */
  uint64_t pend_us;            /* the kept record's TOD as Unix time, the
                                  leap-second offset not yet off */
  uint64_t pend_arrival_us;    /* its set's arrival time (0: unknown) */
  struct lay *lay;
  uint64_t last_seen_us;
  bool touched;
  bool selected;   /* UserID rules, decided once */
  bool pending;    /* a record of this pass is kept */
  bool restart;    /* start afresh with the next record (a logoff) */
  bool guest_host; /* its values go to the guest's host (GuestsAsHosts) */
  uint16_t copy_len;
  /* The latest record (or entry) of the pass, lay->copy_size bytes, then
   * the hooks' state (lay->state_off), then the plugin instance, and if
   * the instance is a guest's the host and the instance's whole name
   * (lay->names_off, each at its length): one allocation. */
  uint8_t copy[];
};

/* The instance name (plugin instance) and the host its values go to ("":
 * collectd's Hostname), decided when the entity was first seen. */
static inline const char *zvm_entity_host(const struct entity *e) {
  return e->guest_host ? e->inst.name + strlen(e->inst.name) + 1 : "";
}

/* The instance's name in no front end's terms: every part of its key
 * ("LINUX01", "LINUX01-vcpu1"), the plugin instance unless a part went to
 * the host. */
static inline const char *zvm_entity_instance(const struct entity *e) {
  if (!e->guest_host)
    return e->inst.name;
  const char *host = zvm_entity_host(e);
  return host + strlen(host) + 1;
}

/* cdname.c: collectd's identifiers of a list a lists hook named. */
struct zvm_cd_list {
  bool daemon_host;   /* host = collectd's Hostname, else the instance's */
  const char *plugin; /* NULL: "zvm_monitor" */
  const char *plugin_instance; /* the list's member, or the buffer given */
  const char *type;            /* a type of collectd's types.db */
  const char *type_instance;
};

/* A list a lists hook made, kept for the pass (output.c): its neutral
 * name (the member copied) and its collectd identifiers. */
struct hlist {
  struct zvm_hook_list l;
  struct zvm_cd_list cd;
};

/* Storage for strings the pass hands out (output.c). */
struct text_chunk {
  struct text_chunk *next;
  size_t used, size;
  char text[];
};

/* How many instances of the guests' pool a guest holds (entity.c): an
 * open-addressing table keyed by the user ID's key word (never 0). */
struct guest_count {
  uint64_t user;
  uint64_t held;
};

/* An entity whose values the pass emits. */
struct emit {
  struct entity *e;
};

/* The mapper's state in five parts, each reset as a whole
 * (zvm_mapper_reset()): a member added to a part is reset with it. */

/* The descriptors and their layouts: by (domain, record) for the
 * registry's, plus any a select hook hands out (looked up by pointer);
 * the value-list types for plugin_register_data_set. */
struct mapper_index {
  struct mrec **by_num[ZVM_DOMAIN_COUNT];
  size_t nby_num[ZVM_DOMAIN_COUNT];
  struct mrec *mrecs;
  unsigned nlays;
  const struct zvm_layout **types;
  size_t ntypes, cap_types;
  size_t max_slots; /* the widest layout's values */
  /* What create built, for zvm_mapper_reset(): descriptors a select hook
   * hands out later are added in front of created_mrecs. */
  struct mrec *created_mrecs;
  unsigned created_nlays;
  size_t created_ntypes, created_max_slots;
};

/* Record-time rules (timerule.h): the arrival time and the newest record
 * of the set being added, the leap-second estimate from arrival times,
 * the offset the glue read from the clocks. */
struct mapper_time {
  uint64_t arrival_us;
  uint64_t set_newest_us;
  struct zvm_leap_est leap_est;
  bool clock_leap_known;
  uint64_t clock_leap_us;
};

/* The entity table (entity.c): chained hash over (layout, key), the
 * guests' pool, the entities of the pass, the last expiry sweep. */
struct mapper_entities {
  struct entity **buckets;
  size_t nbuckets;
  unsigned bucket_shift; /* 64 - log2(nbuckets) */
  size_t nentities;
  size_t nguest_entities; /* of them, in the guests' pool */
  struct guest_count *guests;
  size_t guests_cap, nguests; /* cap: 0 or a power of two */
  struct entity *touched;
  uint64_t last_sweep_us;
};

/* The pass's output (output.c): reader values built by finish (a few),
 * then the entities' values produced on demand from the kept records. */
struct mapper_output {
  struct zvm_value *fixed;
  size_t nfixed, cap_fixed;
  struct emit *emit;
  size_t nemit, cap_emit;
  struct zvm_value_item *items; /* one entity's values */
  bool *present;
  size_t items_cap; /* entries of items and present (> max_slots) */
  size_t items_for; /* emit index the items belong to + 1; 0: none */
  size_t head_for;  /* emit index head_host/instance belong to + 1 */
  const char *head_host, *head_instance;
  bool items_ok; /* every item present */
  size_t nitems_present;
  struct zvm_notification *notifs;
  size_t nnotifs, cap_notifs;
  bool output_done; /* the previous pass's output is still there */
  bool oom;
  /* Value lists a lists hook made for one emitted entity (hlists_for:
   * its emit index + 1), and the pass's copies of their plugin
   * instances (and members): chunks never moved nor reused within a pass,
   * so a pointer names one string for the whole pass (the glue compares
   * pointers). */
  struct hlist *hlists;
  size_t nhlists, cap_hlists, hlists_for;
  struct text_chunk *chunks;
  const char *last_text;
};

/* Every counter and statistic the mapper keeps (the hooks' own and the
 * per-record refusals are in the descriptors: struct mrec). */
struct mapper_counters {
  struct zvm_decode_stats decode;
  uint64_t userid_filtered;
  uint64_t hook_skipped, hook_malformed;
  uint64_t short_records; /* shorter than their layout's fields */
  struct zvm_mapper_stats stats;
};

struct zvm_mapper {
  const struct zvm_conf *conf;
  const struct zvm_registry *reg;
  struct zvm_hook_ops ops;
  struct mapper_index index;
  struct mapper_time time;
  struct mapper_entities entities;
  struct mapper_output out;
  struct mapper_counters counts;
};

/* entity.c */
/* (zvm_text_key8(), zvm_name_key(): decode.h) */

/* The names of an instance's key parts, in no front end's terms. */
struct zvm_key_names {
  unsigned n;
  int user; /* the first ZVM_KEY_USERID part; -1: none */
  char part[ZVM_KEY_PARTS_MAX][ZVM_ID_MAX];
};
void zvm_key_names(const struct zvm_layout *l, const struct zvm_key_value *key,
                   struct zvm_key_names *kn);
/* The parts' names, each after its prefix, all but part skip (-1: none;
 * a separator it leaves at the start is dropped), shortened to size - 1
 * characters by the rule every name follows (zvm_id_shorten). */
void zvm_key_names_join(const struct zvm_layout *l,
                        const struct zvm_key_names *kn, int skip, char *out,
                        size_t size);

bool zvm_entity_table_init(struct zvm_mapper *m);
void zvm_entity_table_free(struct zvm_mapper *m);
/* Every entity freed, the buckets kept (empty). */
void zvm_entity_table_clear(struct zvm_mapper *m);
/* The key of an instance in data; false if it has none (blank user ID,
 * field absent). */
bool zvm_entity_key(const struct lay *l, const uint8_t *data, size_t len,
                    struct zvm_key_value *key);
static inline size_t zvm_entity_bucket(const struct zvm_mapper *m, unsigned id,
                                       const struct zvm_key_value *key) {
  uint64_t h = key->v[0] ^ (key->v[1] * UINT64_C(0xC2B2AE3D27D4EB4F)) ^
               ((uint64_t)id << 56);
  /* Fibonacci hashing: the top bits of h * 2^64/phi. */
  return (size_t)((h * UINT64_C(0x9E3779B97F4A7C15)) >>
                  m->entities.bucket_shift);
}

/* Inline: this runs for every record. */
static inline struct entity *zvm_entity_find(const struct zvm_mapper *m,
                                             const struct lay *l,
                                             const struct zvm_key_value *key) {
  for (struct entity *e = m->entities.buckets[zvm_entity_bucket(m, l->id, key)];
       e != NULL; e = e->next)
    if (e->inst.key.v[0] == key->v[0] && e->inst.key.v[1] == key->v[1] &&
        e->inst.layout == l->layout)
      return e;
  return NULL;
}
/* Why zvm_entity_insert() made no entity. */
enum zvm_refusal {
  ZVM_REFUSED_NONE = 0,
  ZVM_REFUSED_FULL,       /* ZVM_MAPPER_MAX_USERS reached */
  ZVM_REFUSED_GUEST_CAP,  /* the guest holds ApplDataInstancesPerGuest */
  ZVM_REFUSED_GUEST_POOL, /* the guests' pool (or its reserve) is full */
  ZVM_REFUSED_NO_MEMORY,
};
/* A new entity (named, selected by the UserID rules); NULL if refused
 * (*why says why). */
struct entity *zvm_entity_insert(struct zvm_mapper *m, struct lay *l,
                                 const struct zvm_key_value *key,
                                 enum zvm_refusal *why);
/* Instances of the guests' pool the guest with this key word holds. */
uint64_t zvm_entity_guest_held(const struct zvm_mapper *m, uint64_t user);
/* The guest holding the most of them (0 if none) and how many. */
uint64_t zvm_entity_guest_top(const struct zvm_mapper *m, uint64_t *held);
/* Remove an entity from the table and the pass and free it. */
void zvm_entity_remove(struct zvm_mapper *m, struct entity *e);
/* Start e afresh (its restart flag): hook state zeroed, record count 0. */
void zvm_entity_restart(struct zvm_mapper *m, struct entity *e);
/* Forget entities not seen for ZVM_MAPPER_EXPIRE_US (the guests' pool:
 * ZVM_MAPPER_GUEST_EXPIRE_US). */
void zvm_entity_expire(struct zvm_mapper *m, uint64_t now_us);

/* output.c */
void zvm_output_begin(struct zvm_mapper *m);
/* No output and no notification, the arrays and text chunks kept. */
void zvm_output_reset(struct zvm_mapper *m);
/* Room for element n (of size bytes) in *array of *cap (util.h; output
 * arrays start at 64 elements): false if out of memory. */
static inline bool zvm_output_grow(void *array, size_t *cap, size_t n,
                                   size_t size) {
  return zvm_grow(array, cap, n, size, 64);
}
void zvm_output_reader(struct zvm_mapper *m,
                       const struct zvm_source_health *rs);
/* Queue a notification (the strings are copied); host and plugin_instance
 * are the instance's collectd names (cdname.c). */
void zvm_output_notify(struct zvm_mapper *m,
                       const struct zvm_record_desc *record,
                       enum zvm_notify_kind kind,
                       enum zvm_notif_severity severity, uint64_t time_us,
                       const char *instance, const char *host,
                       const char *plugin_instance, const char *message);
void zvm_output_notifs_to_utc(struct zvm_mapper *m);
void zvm_output_free(struct zvm_mapper *m);

/* cdname.c: collectd's identifiers from the neutral names. */
struct zvm_cd_instance {
  char name[ZVM_ID_MAX]; /* plugin instance */
  char host[ZVM_ID_MAX]; /* guest_host: the guest's host, lower case */
  bool guest_host;
};
/* Where an instance of lay with key parts kn goes. */
void zvm_cd_instance(const struct zvm_conf *conf, const struct lay *lay,
                     const struct zvm_key_names *kn,
                     struct zvm_cd_instance *out);
/* A notification's collectd identifiers: its type and type instance by
 * its kind, the host and plugin instance given (its instance's). */
void zvm_cd_notification(struct zvm_notification *n, const char *host,
                         const char *plugin_instance);
/* The collectd type and type instance of a layout's value with one value
 * per list: field f's element named ds, of kind. */
void zvm_cd_slot(const struct zvm_field *f, enum zvm_value_kind kind,
                 const char *ds, const char **type, const char **type_instance);
/* The collectd identifiers of a list a lists hook named (APPLDATA) for
 * the instance named instance (a guest: "LINUX01"): as collectd's own
 * plugins on the guest name it, on the guest's host (the instance's):
 * plugin = family, plugin instance = member, type = metric, type instance
 * = label. Presented as the monitor's own (ApplDataNaming zvm_monitor):
 * everything under zvm_monitor on the daemon's host, plugin instance
 * INSTANCE-family[-member], made in buf (size bytes). Every plugin
 * instance made here ends with the member. False if one does not fit
 * collectd's names (the list is not dispatched). Inline (cdname.c's, the
 * naming module's): it runs for every value of every guest. */
#define ZVM_CD_NAME_MAX 128 /* collectd's DATA_MAX_NAME_LEN */
bool zvm_cd_list_monitor(const struct zvm_hook_list *l, const char *instance,
                         char *buf, size_t size, struct zvm_cd_list *out);
static inline bool zvm_cd_list(const struct zvm_hook_list *l,
                               const char *instance, char *buf, size_t size,
                               struct zvm_cd_list *out) {
  const struct zvm_list_name *n = &l->name;
  *out = (struct zvm_cd_list){.plugin = n->family,
                              .plugin_instance = n->member,
                              .type = n->metric,
                              .type_instance = n->label};
  if (l->as_monitor && !zvm_cd_list_monitor(l, instance, buf, size, out))
    return false;
  /* The type and its instance are the hook's fixed words. */
  return strlen(out->plugin_instance) < ZVM_CD_NAME_MAX &&
         strlen(out->type) < ZVM_ID_MAX &&
         strlen(out->type_instance) < ZVM_ID_MAX;
}
/* What the source's health counters are, in no front end's terms: errors,
 * objects counted, bytes read. */
enum zvm_health_class {
  ZVM_HEALTH_ERRORS,
  ZVM_HEALTH_OBJECTS,
  ZVM_HEALTH_BYTES
};
/* The instance of the source's health counters ("reader"), and the
 * collectd type of a counter of class c ("errors", "total_objects",
 * "total_bytes"); its type instance is the counter's name. */
#define ZVM_HEALTH_INSTANCE "reader"
const char *zvm_cd_health_type(enum zvm_health_class c);

#endif /* ZVM_MAPPER_MAPPER_INT_H */
