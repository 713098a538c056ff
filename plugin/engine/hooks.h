/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - record hooks: behaviour of a record that is not a field.
 *
 * A descriptor (records.h) may carry a struct zvm_record_hooks. The mapper
 * runs every record through the same steps and calls a hook at each one
 * that has it; there are no per-record branches outside hooks:
 *
 *   1. select    choose the layout and the bytes to decode (APPLDATA: a
 *                layout by product ID, the data window CALDATOF/CALDATLN,
 *                the guest's user ID as key); or skip the record
 *   2. record    once per record, with its time: notifications (D5R21,
 *                D4R1/D4R2), ending another instance's state (logoff)
 *   3. instance  once per instance the record holds (the main layout's
 *                instance, then every array entry): keep per-instance
 *                state (D4R10 per-VMDBK values), or drop the record
 *   4. values    at the end of the pass, for every instance with a new
 *                record: adjust the value list (per-VMDBK sums)
 *
 * select and record are the hooks of the registry's descriptor for the
 * record's (domain, record); instance and values (and the per-instance
 * state) those of the descriptor whose layout decodes it (view->desc,
 * which select may change).
 *
 * Hooks are engine code: they see bytes, descriptors and this interface,
 * never the mapper's internals nor collectd. What they may ask of the
 * mapper goes through struct zvm_hook_ctx (function pointers, so the
 * engine does not link against the mapper).
 *
 * Time: every time a hook gets is the record's time in microseconds since
 * the epoch after the mapper's record-time rules (one place, the mapping
 * layer); hooks do not convert TODs themselves.
 */
#ifndef ZVM_ENGINE_HOOKS_H
#define ZVM_ENGINE_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/decode.h"
#include "zvm_monitor/records.h"
#include "zvm_monitor/value.h"

/* An instance as hooks see it (one entity of the mapper's table). */
struct zvm_instance {
  /* What the engine reads for every record first (with the hook word, in
   * the entity's first cache line). */
  struct zvm_key_value key;
  const struct zvm_layout *layout;
  uint64_t records; /* records seen since first seen (RECORD_COUNT) */
  /* A word the hooks may use for checks made on every record: it sits
   * with what the engine reads for every record, where state (after the
   * kept record) would cost a cache miss per record at 10,000 guests.
   * Zeroed and restarted with the state. */
  uint64_t hook_word;
  uint64_t last_us; /* time of its last value list; 0: none yet */
  /* hooks->state_size bytes (aligned as malloc's), zeroed when the
   * instance is first seen, released with hooks->state_release when it is
   * forgotten or restarted; NULL if the size is 0. The engine owns the
   * bytes: state_release frees only what they point to. */
  void *state;
  const char *name; /* formatted instance name ("LINUX01", "ifl") */
};

/* What the select hook may change for one record (filled with the
 * defaults before the call: the record's descriptor, all its bytes, the
 * main layout's own key). */
struct zvm_record_view {
  const struct zvm_record *rec;       /* the whole record */
  const struct zvm_record_desc *desc; /* the layouts to decode with */
  const uint8_t *data;                /* bytes the offsets apply to */
  size_t len;
  /* If true, the main instance's key is key (not read from data): e.g.
   * APPLDATA's user ID sits in the record header, outside the window. */
  bool key_given;
  struct zvm_key_value key;
};

struct zvm_hook_ctx;

/* Services of the mapper (set by the mapper; hooks call the inline
 * wrappers below). */
struct zvm_hook_ops {
  /* Queue a notification about the named instance ("system"), of the
   * hooks' notify_kind, from the descriptor being run. The strings are
   * copied. (A front end names it by instance and kind: collectd's
   * names in cdname.c.) */
  void (*notify)(struct zvm_hook_ctx *ctx, enum zvm_notif_severity severity,
                 uint64_t time_us, const char *instance, const char *message);
  /* Forget an instance (its state is released; its next record starts
   * from nothing, as for a new one). False if it was not tracked. */
  bool (*forget)(struct zvm_hook_ctx *ctx, const struct zvm_layout *layout,
                 const struct zvm_key_value *key);
  /* An instance being tracked, or NULL. Valid until the hook returns. */
  struct zvm_instance *(*find)(struct zvm_hook_ctx *ctx,
                               const struct zvm_layout *layout,
                               const struct zvm_key_value *key);
  /* Count a record a hook rejected as bad data (errors-malformed). */
  void (*count_malformed)(struct zvm_hook_ctx *ctx);
  /* Queue a notification about a tracked instance, as notify does (a
   * front end names it as the instance's values: collectd's host and
   * plugin instance, GuestsAsHosts applies). The message is copied. */
  void (*notify_instance)(struct zvm_hook_ctx *ctx,
                          enum zvm_notif_severity severity, uint64_t time_us,
                          const struct zvm_instance *inst, const char *message);
  /* Start an instance afresh with its next record (a guest's logoff): its
   * hook state is released and zeroed and its record count restarts at 0
   * then. What it holds for this pass is still dispatched, and the times
   * already dispatched stay, so nothing is lost or dispatched twice. False
   * if it is not tracked. */
  bool (*restart)(struct zvm_hook_ctx *ctx, const struct zvm_layout *layout,
                  const struct zvm_key_value *key);
  /* The bytes the engine keeps for an instance (its latest record that an
   * instance hook answered ZVM_HOOK_KEEP, or had no hook); NULL and *len
   * 0 if none. Valid until the hook returns. */
  const uint8_t *(*kept)(struct zvm_hook_ctx *ctx,
                         const struct zvm_instance *inst, size_t *len);
  /* A guest's session ended or began (D4R2, D4R1): restart, as restart
   * does, the guest's instance of every record whose hooks say
   * .guest_session (a layout keyed by the user ID alone); key->v[0] is
   * the user ID. Whichever descriptor decodes such a record (built in or
   * a <Record> block that replaces it), its state follows the session. */
  void (*restart_sessions)(struct zvm_hook_ctx *ctx,
                           const struct zvm_key_value *key);
};

struct zvm_hook_ctx {
  const struct zvm_hook_ops *ops;
  void *mapper;
  const struct zvm_record_desc *desc; /* the descriptor being run */
  void *hook_data;                    /* desc->hook_data */
  uint64_t arrival_us; /* arrival time of the set being mapped; 0 unknown */
  uint64_t now_us;     /* values hook: the pass's wall clock */
  /* hooks->record_state_size bytes per descriptor and mapper, zeroed at
   * start (state that is not per instance: D5R21's pending changes). */
  void *record_state;
};

static inline void zvm_hook_notify(struct zvm_hook_ctx *ctx,
                                   enum zvm_notif_severity severity,
                                   uint64_t time_us, const char *instance,
                                   const char *message) {
  ctx->ops->notify(ctx, severity, time_us, instance, message);
}

static inline bool zvm_hook_forget(struct zvm_hook_ctx *ctx,
                                   const struct zvm_layout *layout,
                                   const struct zvm_key_value *key) {
  return ctx->ops->forget(ctx, layout, key);
}

static inline struct zvm_instance *
zvm_hook_find(struct zvm_hook_ctx *ctx, const struct zvm_layout *layout,
              const struct zvm_key_value *key) {
  return ctx->ops->find(ctx, layout, key);
}

static inline void zvm_hook_count_malformed(struct zvm_hook_ctx *ctx) {
  ctx->ops->count_malformed(ctx);
}

static inline void zvm_hook_notify_instance(struct zvm_hook_ctx *ctx,
                                            enum zvm_notif_severity severity,
                                            uint64_t time_us,
                                            const struct zvm_instance *inst,
                                            const char *message) {
  ctx->ops->notify_instance(ctx, severity, time_us, inst, message);
}

static inline bool zvm_hook_restart(struct zvm_hook_ctx *ctx,
                                    const struct zvm_layout *layout,
                                    const struct zvm_key_value *key) {
  return ctx->ops->restart(ctx, layout, key);
}

static inline void zvm_hook_restart_sessions(struct zvm_hook_ctx *ctx,
                                             const struct zvm_key_value *key) {
  ctx->ops->restart_sessions(ctx, key);
}

static inline const uint8_t *zvm_hook_kept(struct zvm_hook_ctx *ctx,
                                           const struct zvm_instance *inst,
                                           size_t *len) {
  return ctx->ops->kept(ctx, inst, len);
}

enum zvm_hook_verdict {
  /* The engine keeps the latest record of the pass for the instance and
   * makes its values from the fields (the default without a hook). */
  ZVM_HOOK_KEEP = 0,
  /* No values from this record for this instance (it still counts in
   * RECORD_COUNT). */
  ZVM_HOOK_DROP,
  /* The hook kept what it needs in inst->state: the instance has new
   * values at time_us, and the values hook fills every item. */
  ZVM_HOOK_PENDING,
};

/* A value list a lists hook names itself (APPLDATA: what a guest measures
 * of itself), in no front end's terms: its name (value.h: family, member,
 * metric, label, item names) and its items. The member is valid during
 * the call (the mapper copies it); family, metric, label and item_names
 * are static (string literals). The front end's naming module makes its
 * identifiers (collectd's: plugin/mapper/cdname.c). */
#define ZVM_HOOK_LIST_ITEMS_MAX ZVM_LIST_ITEMS_MAX
struct zvm_hook_list {
  struct zvm_list_name name;
  /* The record's options present the values as the monitor's own, about
   * the instance, rather than as the instance's own measures (APPLDATA's
   * ApplDataNaming zvm_monitor). */
  bool as_monitor;
  size_t nitems; /* 1 .. ZVM_HOOK_LIST_ITEMS_MAX */
  struct zvm_value_item items[ZVM_HOOK_LIST_ITEMS_MAX];
};
typedef void (*zvm_hook_list_fn)(void *sink, const struct zvm_hook_list *l);

/* A counter a hook keeps, reported with the source's health counters
 * (instance "reader"; collectd: type "total_objects", cdname.c). */
struct zvm_hook_counter {
  const char *name; /* static: "appldata_torn" */
  uint64_t value;
};

struct zvm_record_hooks {
  /* Step 1. False: skip the record (counted as skipped). */
  bool (*select)(struct zvm_hook_ctx *ctx, struct zvm_record_view *view);
  /* Step 2. False: the record yields no values (its notifications
   * stand). time_us: the record's time (0 if it has none usable). */
  bool (*record)(struct zvm_hook_ctx *ctx, const struct zvm_record_view *view,
                 uint64_t time_us);
  /* Step 3. data/len: the instance's bytes (record or array entry). */
  enum zvm_hook_verdict (*instance)(struct zvm_hook_ctx *ctx,
                                    struct zvm_instance *inst,
                                    const uint8_t *data, size_t len,
                                    uint64_t time_us);
  /* Step 4. items[0..nitems) are filled from the kept record (KEEP) or
   * zero (PENDING), in zvm_layout_data_sources() order. False: no value
   * list for the instance in this pass. */
  bool (*values)(struct zvm_hook_ctx *ctx, const struct zvm_instance *inst,
                 struct zvm_value_item *items, size_t nitems);
  /* Descriptors select may hand out in view->desc (APPLDATA's layouts by
   * product ID): prepared with the mapper, their types registered at
   * start-up like the registry's. */
  const struct zvm_record_desc *const *layouts;
  size_t nlayouts;
  size_t state_size;        /* per-instance state for the hooks */
  size_t record_state_size; /* per-descriptor state (ctx->record_state) */
  void (*state_release)(void *state); /* NULL: nothing to free inside */
  /* Step 4 instead of the layout's fields: every value list of an
   * instance with new data (kept in inst->state by the instance hook,
   * which returned PENDING), each named by the hook (struct
   * zvm_hook_list), passed to fn. Values take the instance's time; the
   * hook makes each name at most once per instance, and instances' names
   * must not overlap (two instances of one guest never name the same
   * family, member, metric and label). */
  void (*lists)(struct zvm_hook_ctx *ctx, const struct zvm_instance *inst,
                zvm_hook_list_fn fn, void *sink);
  /* Counters of the hook (in ctx->record_state): up to max into out;
   * returns how many. */
  size_t (*counters)(struct zvm_hook_ctx *ctx, struct zvm_hook_counter *out,
                     size_t max);
  /* The kind of the notifications these hooks send (its Notify<Kind>
   * option switches them); ZVM_NOTIFY_NONE: they send none, and any they
   * try is dropped. Every record's hooks set it. */
  enum zvm_notify_kind notify_kind;
  /* Instances named by what a guest writes (APPLDATA's mount points and
   * processes): the key's first word is the guest's user ID, the rest the
   * guest's choice. The mapper keeps them in a pool of their own, at most
   * ApplDataInstancesPerGuest per guest (mapper.h), before any hook sees
   * a new one, and counts the records of refused instances in the health
   * counter of this name (collectd: total_objects-<guest_dropped>). NULL:
   * instances of the monitor's own
   * records (user IDs, CPU types), in the common table. */
  const char *guest_dropped;
  /* The instances are a guest's, keyed by its user ID alone, and their
   * state belongs to the guest's session: a logon or logoff restarts them
   * (zvm_hook_restart_sessions). */
  bool guest_session;
  /* Only a record hook (and its record state) that reads the record with
   * the built-in descriptor's own fields, never view->desc's: a <Record>
   * block that replaces the record keeps these hooks (D5R21's
   * notifications), whatever names and layouts the block gives. */
  bool kept_by_replacement;
};

#endif /* ZVM_ENGINE_HOOKS_H */
