/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - metric mapper: a pass over decoded records, generic over
 * the record descriptors of the configuration (see mapper.h for the pass,
 * hooks.h for the steps a record goes through, mapper_int.h for how the
 * mapper is split). No collectd headers, no I/O.
 */
#include "mapper/mapper_int.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------------
 * Record-time rules: the one place where a record's time is decided and
 * where a kept record is compared with what an entity already has.
 */

/* A record's TOD as Unix time in microseconds, in the TOD epoch nearest
 * its set's arrival (the 2042 wrap); 0 if it has none usable (0 is
 * reserved for "now" in zvm_value). The leap-second offset is taken off
 * when the pass ends, with one offset for the whole pass. */
static uint64_t record_time(const struct zvm_mapper *m,
                            const struct zvm_record *rec) {
  uint64_t us;
  if (!zvm_tod_unix_us(rec->tod, m->time.arrival_us, &us))
    return 0;
  return us;
}

/* The leap-second offset of this pass (LeapSecondOffset, man page). */
static uint64_t pass_leap(struct zvm_mapper *m) {
  if (!m->conf->leap_auto) {
    m->counts.stats.leap_method = ZVM_LEAP_CONFIGURED;
    return m->conf->leap_us;
  }
  if (m->time.clock_leap_known) {
    m->counts.stats.leap_method = ZVM_LEAP_CLOCKS;
    return m->time.clock_leap_us;
  }
  m->counts.stats.leap_method = ZVM_LEAP_ARRIVAL;
  return zvm_leap_estimate_us(&m->time.leap_est);
}

static void restamp_note(struct zvm_restamp_note *n, const struct entity *e,
                         uint64_t rec_us, uint64_t out_us) {
  snprintf(n->what, sizeof(n->what), "%s",
           e->inst.name[0] != '\0' ? e->inst.name : "system");
  n->record_us = rec_us;
  n->last_us = e->inst.last_us;
  n->stamped_us = out_us;
  n->arrival = out_us == e->pend_arrival_us;
}

/* The time rule (man page, "AGGREGATION AND TIME STAMPS") for an entity's kept
 * record: its time if after the entity's last, else its set's arrival time if
 * that is, else the last + ZVM_TIME_STEP_US; counted in
 * total_objects-restamped. A record time more than ZVM_TIME_AHEAD_MAX_US after
 * its set's arrival is not used (the same fallbacks), counted in
 * total_objects-time_future. The time becomes the entity's last. 0: its time
 * is not after 1970 once the offset is off (nothing to dispatch). */
static uint64_t dispatch_time(struct zvm_mapper *m, struct entity *e) {
  uint64_t rec_us, out_us;
  if (!zvm_unix_to_utc(e->pend_us, m->counts.stats.leap_us, &rec_us))
    return 0;
  enum zvm_stamp how =
      zvm_time_stamp(e->inst.last_us, rec_us, e->pend_arrival_us, &out_us);
  m->counts.stats.pass_timed++;
  if (how == ZVM_STAMP_FUTURE) {
    m->counts.stats.time_future++;
    if (m->counts.stats.pass_future++ == 0)
      restamp_note(&m->counts.stats.first_future, e, rec_us, out_us);
  } else if (how != ZVM_STAMP_RECORD) {
    m->counts.stats.restamped++;
    if (m->counts.stats.pass_restamped++ == 0)
      restamp_note(&m->counts.stats.first_restamp, e, rec_us, out_us);
  }
  return out_us;
}

/* A user ID's key word as it appears in identifiers ("" for none). */
static void user_name(uint64_t key, char *buf, size_t size) {
  uint8_t id[8];
  for (unsigned i = 0; i < 8; i++)
    id[i] = (uint8_t)(key >> (8 * (7 - i)));
  if (key == 0)
    buf[0] = '\0';
  else
    (void)zvm_name_format(id, sizeof(id), buf, size);
}

/* A record of an instance the guests' pool refused: counted in the hooks'
 * counter, the first of a pass noted with the guest (and, if the pool
 * is full, the guest holding the most) for the log. */
static void guest_refused(struct zvm_mapper *m, struct lay *l,
                          const struct zvm_key_value *key,
                          enum zvm_refusal why) {
  l->rec->guest_dropped++;
  m->counts.stats.guest_dropped++;
  if (m->counts.stats.pass_guest_dropped++ > 0)
    return;
  struct zvm_guest_note *n = &m->counts.stats.first_guest_drop;
  *n = (struct zvm_guest_note){
      .held = zvm_entity_guest_held(m, key->v[0]),
      .limit = m->conf->guest_instances_max,
      .pool_full = why == ZVM_REFUSED_GUEST_POOL,
      .counter = l->rec->hooks->guest_dropped,
  };
  user_name(key->v[0], n->guest, sizeof(n->guest));
  if (n->pool_full)
    user_name(zvm_entity_guest_top(m, &n->top_held), n->top, sizeof(n->top));
}

/* ------------------------------------------------------------------------
 * Hook services (struct zvm_hook_ops).
 */
static struct zvm_mapper *ctx_mapper(struct zvm_hook_ctx *ctx) {
  return ctx->mapper;
}

static struct lay *lay_of(struct zvm_mapper *m,
                          const struct zvm_layout *layout) {
  for (struct mrec *r = m->index.mrecs; r != NULL; r = r->next) {
    if (&r->desc->main == layout)
      return &r->main;
    for (size_t a = 0; a < r->desc->narrays; a++)
      if (&r->desc->arrays[a].entry == layout)
        return &r->arrays[a];
  }
  return NULL;
}

/* The kind of the descriptor's notifications if its Notify<Kind> option
 * is on, else ZVM_NOTIFY_NONE. Hooks that declare no kind send nothing; a
 * kind out of range is refused by zvm_record_check(). */
static enum zvm_notify_kind notify_wanted(struct zvm_hook_ctx *ctx) {
  const struct zvm_record_hooks *h = ctx->desc->hooks;
  enum zvm_notify_kind kind = h != NULL ? h->notify_kind : ZVM_NOTIFY_NONE;
  return kind != ZVM_NOTIFY_NONE && (unsigned)kind < ZVM_NOTIFY_KINDS &&
                 ctx_mapper(ctx)->conf->notify[kind]
             ? kind
             : ZVM_NOTIFY_NONE;
}

static void op_notify(struct zvm_hook_ctx *ctx,
                      enum zvm_notif_severity severity, uint64_t time_us,
                      const char *instance, const char *message) {
  enum zvm_notify_kind kind = notify_wanted(ctx);
  if (kind != ZVM_NOTIFY_NONE)
    zvm_output_notify(ctx_mapper(ctx), ctx->desc, kind, severity, time_us,
                      instance, "", instance, message);
}

static struct entity *entity_of(const struct zvm_instance *inst) {
  return (struct entity *)((const char *)inst - offsetof(struct entity, inst));
}

static void op_notify_instance(struct zvm_hook_ctx *ctx,
                               enum zvm_notif_severity severity,
                               uint64_t time_us,
                               const struct zvm_instance *inst,
                               const char *message) {
  enum zvm_notify_kind kind = notify_wanted(ctx);
  if (kind == ZVM_NOTIFY_NONE)
    return;
  const struct entity *e = entity_of(inst);
  zvm_output_notify(ctx_mapper(ctx), ctx->desc, kind, severity, time_us,
                    zvm_entity_instance(e), zvm_entity_host(e), e->inst.name,
                    message);
}

/* The tracked instance of layout with key, for the hook services. */
static struct entity *hook_entity(struct zvm_hook_ctx *ctx,
                                  const struct zvm_layout *layout,
                                  const struct zvm_key_value *key) {
  struct zvm_mapper *m = ctx_mapper(ctx);
  struct lay *l = lay_of(m, layout);
  return l != NULL ? zvm_entity_find(m, l, key) : NULL;
}

static bool op_restart(struct zvm_hook_ctx *ctx,
                       const struct zvm_layout *layout,
                       const struct zvm_key_value *key) {
  struct entity *e = hook_entity(ctx, layout, key);
  if (e == NULL)
    return false;
  e->restart = true;
  return true;
}

static void op_restart_sessions(struct zvm_hook_ctx *ctx,
                                const struct zvm_key_value *key) {
  struct zvm_mapper *m = ctx_mapper(ctx);
  for (struct mrec *r = m->index.mrecs; r != NULL; r = r->next) {
    const struct zvm_layout *l = &r->desc->main;
    if (r->hooks == NULL || !r->hooks->guest_session || l->key.nparts != 1 ||
        l->key.part[0].kind != ZVM_KEY_USERID)
      continue;
    struct zvm_key_value k = {.v = {key->v[0]}};
    struct entity *e = zvm_entity_find(m, &r->main, &k);
    if (e != NULL)
      e->restart = true;
  }
}

static bool op_forget(struct zvm_hook_ctx *ctx, const struct zvm_layout *layout,
                      const struct zvm_key_value *key) {
  struct entity *e = hook_entity(ctx, layout, key);
  if (e == NULL)
    return false;
  zvm_entity_remove(ctx_mapper(ctx), e);
  return true;
}

static struct zvm_instance *op_find(struct zvm_hook_ctx *ctx,
                                    const struct zvm_layout *layout,
                                    const struct zvm_key_value *key) {
  struct entity *e = hook_entity(ctx, layout, key);
  return e != NULL ? &e->inst : NULL;
}

static void op_count_malformed(struct zvm_hook_ctx *ctx) {
  ctx_mapper(ctx)->counts.hook_malformed++;
}

static const uint8_t *op_kept(struct zvm_hook_ctx *ctx,
                              const struct zvm_instance *inst, size_t *len) {
  (void)ctx;
  /* Hooks only ever see the instance inside its entity. */
  const struct entity *e =
      (const struct entity *)(const void *)((const char *)inst -
                                            offsetof(struct entity, inst));
  *len = e->copy_len;
  return e->copy_len > 0 ? e->copy : NULL;
}

/* ------------------------------------------------------------------------
 * Layouts and descriptors as the mapper uses them.
 */
static bool slots_build(struct zvm_mapper *m, struct lay *l) {
  const struct zvm_layout *layout = l->layout;
  size_t n = zvm_layout_data_sources(layout, NULL, 0);
  l->slots = calloc(n ? n : 1, sizeof(*l->slots));
  if (l->slots == NULL)
    return false;
  l->single = m->conf->one_value_per_list || layout->one_value_per_list;
  for (size_t i = 0; i < layout->nfields; i++) {
    const struct zvm_field *f = &layout->fields[i];
    if (f->type != ZVM_TYPE_RECORD_COUNT && f->width > 0) {
      size_t end = (size_t)f->offset + (size_t)f->width * f->count;
      if (end > l->copy_size)
        l->copy_size = end;
    }
    if (!zvm_field_dispatched(f))
      continue;
    for (unsigned idx = 0; idx < f->count; idx++) {
      struct slot *s = &l->slots[l->nslots++];
      s->f = f;
      s->idx = idx;
      s->offset = (uint16_t)(f->offset + idx * f->width);
      s->width = f->width;
      s->records = f->type == ZVM_TYPE_RECORD_COUNT;
      s->plain = (f->type == ZVM_TYPE_UNSIGNED || f->type == ZVM_TYPE_SIGNED) &&
                 f->flags == 0 && (f->scale == 0 || f->scale == 1);
      s->is_signed = f->type == ZVM_TYPE_SIGNED;
      s->kind =
          f->kind == ZVM_FIELD_COUNTER ? ZVM_VALUE_DERIVE : ZVM_VALUE_GAUGE;
      (void)zvm_field_element_name(f, idx, s->ds, sizeof(s->ds));
      zvm_cd_slot(f, s->kind, s->ds, &s->single_type, &s->single_ti);
      /* UserField selects a guest's values (one value per list). */
      s->selected = !l->user_key ||
                    zvm_conf_userfield_selected(m->conf, s->ds, f->metric);
    }
  }
  if (l->nslots > m->index.max_slots)
    m->index.max_slots = l->nslots;
  l->dispatched = (l->nslots > 0 && (layout->type_name != NULL || l->single)) ||
                  (l->rec->hooks != NULL && l->rec->hooks->lists != NULL);
  return true;
}

static bool lay_init(struct zvm_mapper *m, struct mrec *r, struct lay *l,
                     const struct zvm_layout *layout) {
  l->layout = layout;
  l->rec = r;
  l->hooks = r->hooks;
  l->id = m->index.nlays++;
  for (unsigned p = 0; p < layout->key.nparts; p++)
    if (layout->key.part[p].kind == ZVM_KEY_USERID)
      l->user_key = true;
  l->guest_named = r->hooks != NULL && r->hooks->guest_dropped != NULL;
  const struct zvm_key_part *k0 = &layout->key.part[0];
  if (layout->key.nparts == 1 &&
      (k0->kind == ZVM_KEY_USERID || k0->kind == ZVM_KEY_EBCDIC) &&
      k0->field >= 0 && (size_t)k0->field < layout->nfields &&
      layout->fields[k0->field].width == 8) {
    l->key_text8 = true;
    l->key_off = layout->fields[k0->field].offset;
  }
  if (!slots_build(m, l))
    return false;
  /* An entity of this layout: the struct, the kept record, the hooks'
   * state (aligned as malloc's), the names (entity.c). */
  size_t align = _Alignof(max_align_t);
  l->state_off =
      (offsetof(struct entity, copy) + l->copy_size + align - 1) & ~(align - 1);
  l->names_off = l->state_off + (l->hooks != NULL ? l->hooks->state_size : 0);
  if (l->dispatched && layout->type_name != NULL && !l->single) {
    if (!zvm_grow(&m->index.types, &m->index.cap_types, m->index.ntypes,
                  sizeof(*m->index.types), 8))
      return false;
    m->index.types[m->index.ntypes++] = layout;
  }
  return true;
}

static struct mrec *mrec_of(struct zvm_mapper *m,
                            const struct zvm_record_desc *d, bool *bad);

static struct mrec *mrec_create(struct zvm_mapper *m,
                                const struct zvm_record_desc *d) {
  struct mrec *r = calloc(1, sizeof(*r));
  if (r == NULL)
    return NULL;
  r->next = m->index.mrecs; /* owned by m from here on */
  m->index.mrecs = r;
  r->desc = d;
  r->hooks = d->hooks;
  r->ctx = (struct zvm_hook_ctx){
      .ops = &m->ops, .mapper = m, .desc = d, .hook_data = d->hook_data};
  if (r->hooks != NULL && r->hooks->record_state_size > 0) {
    r->ctx.record_state = calloc(1, r->hooks->record_state_size);
    if (r->ctx.record_state == NULL)
      return NULL;
  }
  if (!lay_init(m, r, &r->main, &d->main))
    return NULL;
  if (d->narrays > 0) {
    r->arrays = calloc(d->narrays, sizeof(*r->arrays));
    if (r->arrays == NULL)
      return NULL;
    for (size_t a = 0; a < d->narrays; a++)
      if (!lay_init(m, r, &r->arrays[a], &d->arrays[a].entry))
        return NULL;
  }
  bool bad;
  if (d->per_cpu_view != NULL && m->conf->report_by_virtual_cpu &&
      (r->per_cpu = mrec_of(m, d->per_cpu_view, &bad)) == NULL)
    return NULL;
  r->plain = (r->hooks == NULL ||
              (r->hooks->select == NULL && r->hooks->record == NULL)) &&
             d->narrays == 0 && r->per_cpu == NULL;
  return r;
}

static void mrec_free(struct mrec *r) {
  free(r->main.slots);
  for (size_t a = 0; r->arrays != NULL && a < r->desc->narrays; a++)
    free(r->arrays[a].slots);
  free(r->arrays);
  free(r->ctx.record_state);
  free(r);
}

/* One entity's value arrays hold the widest layout's slots: grown when a
 * layout a select hook handed out (created during a pass) is wider than
 * every layout so far. */
static bool slots_fit(struct zvm_mapper *m) {
  size_t want = m->index.max_slots + 1;
  if (want <= m->out.items_cap)
    return true;
  struct zvm_value_item *items = realloc(m->out.items, want * sizeof(*items));
  if (items != NULL)
    m->out.items = items;
  bool *present = realloc(m->out.present, want * sizeof(*present));
  if (present != NULL)
    m->out.present = present;
  if (items == NULL || present == NULL)
    return false;
  memset(m->out.items + m->out.items_cap, 0,
         (want - m->out.items_cap) * sizeof(*items));
  memset(m->out.present + m->out.items_cap, 0,
         (want - m->out.items_cap) * sizeof(*present));
  m->out.items_cap = want;
  return true;
}

/* The mapper's view of a descriptor: the registry's by number; one a
 * select hook handed out by pointer (created when first used). */
static struct mrec *mrec_of(struct zvm_mapper *m,
                            const struct zvm_record_desc *d, bool *bad) {
  *bad = false;
  if (d->domain < ZVM_DOMAIN_COUNT && d->number < m->index.nby_num[d->domain]) {
    struct mrec *r = m->index.by_num[d->domain][d->number];
    if (r != NULL && r->desc == d)
      return r;
  }
  for (struct mrec *r = m->index.mrecs; r != NULL; r = r->next)
    if (r->desc == d)
      return r;
  *bad = zvm_record_check(d, NULL, 0) != 0;
  return *bad ? NULL : mrec_create(m, d); /* a hook's bad layout: not run */
}

/* ------------------------------------------------------------------------
 * A pass: records -> entities.
 */

/* One instance of a record: the main part, or one array entry. Inline:
 * this runs for every record (callgrind: the call alone cost a tenth). */
static inline __attribute__((always_inline)) void
map_instance(struct zvm_mapper *m, struct lay *l, const uint8_t *data,
             size_t len, const struct zvm_key_value *given, uint64_t time_us) {
  const struct zvm_record_hooks *h = l->hooks;
  if (!l->dispatched && (h == NULL || h->instance == NULL))
    return;

  struct zvm_key_value key = {{0, 0}};
  bool have_key;
  if (given != NULL) {
    key = *given;
    have_key = true;
  } else if (l->key_text8) { /* the common case, inline */
    have_key = (size_t)l->key_off + 8 <= len &&
               zvm_text_key8(zvm_load_be64(data + l->key_off), &key.v[0]);
  } else {
    have_key = zvm_entity_key(l, data, len, &key);
  }
  if (!have_key) {
    if (l->user_key)
      m->counts.stats.no_userid++;
    else
      m->counts.hook_skipped++;
    return;
  }

  struct entity *e = zvm_entity_find(m, l, &key);
  if (e == NULL) {
    enum zvm_refusal why;
    e = zvm_entity_insert(m, l, &key, &why);
    if (e == NULL) {
      if (why == ZVM_REFUSED_GUEST_CAP || why == ZVM_REFUSED_GUEST_POOL)
        guest_refused(m, l, &key, why);
      else
        m->counts.stats.users_dropped++; /* table full or no memory */
      return;
    }
  }
  if (!e->touched) {
    e->touched = true;
    e->touched_next = m->entities.touched;
    m->entities.touched = e;
  }
  if (!e->selected) {
    m->counts.userid_filtered++;
    return;
  }
  if (e->restart)
    zvm_entity_restart(m, e);

  /* Every record counts, also one whose values are superseded. */
  e->inst.records++;
  if (time_us == 0)
    return;

  enum zvm_hook_verdict verdict = ZVM_HOOK_KEEP;
  if (h != NULL && h->instance != NULL)
    verdict = h->instance(&l->rec->ctx, &e->inst, data, len, time_us);
  /* A record replaces the one the entity keeps for this pass: the latest
   * in stream order, whatever its TOD says (the z/VM clock may have been
   * set back); the time rule stamps it. */
  if (verdict == ZVM_HOOK_DROP)
    return;
  if (verdict == ZVM_HOOK_KEEP) {
    e->copy_len = (uint16_t)(len < l->copy_size ? len : l->copy_size);
    memcpy(e->copy, data, e->copy_len);
  } else {
    e->copy_len = 0;
  }
  e->pending = true;
  e->pend_us = time_us;
  e->pend_arrival_us = m->time.arrival_us;
}

/* reg: the registry's descriptor (select and record hooks); r: the one
 * whose layouts decode the record (select may hand out another). */
static void map_record(struct zvm_mapper *m, struct mrec *reg,
                       const struct zvm_record *rec) {
  const struct zvm_record_desc *desc = reg->desc;
  struct mrec *r = reg;
  const struct zvm_record_hooks *h = reg->hooks;
  uint64_t time_us = record_time(m, rec);
  /* The newest record of the set, for the leap-second estimate (one too
   * far ahead of its arrival is no estimate of the offset). */
  if (m->time.arrival_us != 0 && time_us > m->time.set_newest_us &&
      !zvm_time_too_far(time_us, m->time.arrival_us))
    m->time.set_newest_us = time_us;
  if (reg->plain) { /* the steps below, none of which applies */
    if (rec->len < reg->main.copy_size)
      m->counts.short_records++;
    map_instance(m, &reg->main, rec->data, rec->len, NULL, time_us);
    return;
  }
  struct zvm_record_view view = {
      .rec = rec, .desc = desc, .data = rec->data, .len = rec->len};

  if (h != NULL && h->select != NULL) {
    reg->ctx.arrival_us = m->time.arrival_us;
    if (!h->select(&reg->ctx, &view)) {
      m->counts.hook_skipped++;
      return;
    }
    bool bad;
    if (view.desc != desc && (r = mrec_of(m, view.desc, &bad)) == NULL) {
      if (bad)
        m->counts.hook_malformed++; /* a hook handed out a layout that fails
                                zvm_record_check(): a bug, counted */
      else
        m->out.oom = true;
      return;
    }
    if (!slots_fit(m)) {
      m->out.oom = true;
      return;
    }
  }

  if (h != NULL && h->record != NULL) {
    reg->ctx.arrival_us = m->time.arrival_us;
    if (!h->record(&reg->ctx, &view, time_us))
      return;
  }

  /* Shorter than its fields (an older z/VM level, a <Record> block that
   * does not fit): the fields it holds are used, and it is counted. */
  if (view.len < r->main.copy_size)
    m->counts.short_records++;
  map_instance(m, &r->main, view.data, view.len,
               view.key_given ? &view.key : NULL, time_us);
  for (size_t a = 0; a < view.desc->narrays; a++) {
    struct lay *l = &r->arrays[a];
    if (!l->dispatched && (r->hooks == NULL || r->hooks->instance == NULL))
      continue;
    struct zvm_array_view av;
    if (zvm_array_locate(&view.desc->arrays[a], view.data, view.len, &av) !=
        ZVM_ARRAY_OK)
      continue;
    for (size_t i = 0; i < av.count; i++)
      map_instance(m, l, zvm_array_entry(&av, i), av.entry_size, NULL, time_us);
  }
  if (r->per_cpu != NULL)
    map_instance(m, &r->per_cpu->main, view.data, view.len, NULL, time_us);
}

void zvm_mapper_add_set_at(struct zvm_mapper *m, const uint8_t *set, size_t len,
                           uint64_t arrival_us) {
  zvm_output_begin(m);
  m->time.arrival_us = arrival_us;
  m->time.set_newest_us = 0;
  /* zvm_decode_set_with(), with the mapper's own table: one lookup per
   * record gives the descriptor and the mapper's state for it. */
  struct zvm_walk walk;
  struct zvm_record rec;
  zvm_walk_init(&walk, set, len, m->conf->domains);
  while (zvm_walk_next(&walk, &rec)) {
    struct mrec *r = rec.domain < ZVM_DOMAIN_COUNT &&
                             rec.number < m->index.nby_num[rec.domain]
                         ? m->index.by_num[rec.domain][rec.number]
                         : NULL;
    if (zvm_record_accept(r != NULL ? r->desc : NULL, &rec, &m->counts.decode))
      map_record(m, r, &rec);
  }
  zvm_walk_stats_add(&m->counts.decode.walk, &walk.stats);
  zvm_leap_observe(&m->time.leap_est, m->time.set_newest_us, arrival_us);
  m->time.arrival_us = 0;
}

void zvm_mapper_set_clock_leap(struct zvm_mapper *m, bool known,
                               uint64_t leap_us) {
  m->time.clock_leap_known = known;
  m->time.clock_leap_us = leap_us;
}

void zvm_mapper_add_set(struct zvm_mapper *m, const uint8_t *set, size_t len) {
  zvm_mapper_add_set_at(m, set, len, 0);
}

int zvm_mapper_finish(struct zvm_mapper *m, uint64_t now_us,
                      const struct zvm_source_health *rs) {
  zvm_output_begin(m);
  m->counts.stats.leap_us = pass_leap(m);
  m->counts.stats.pass_timed = 0;
  m->counts.stats.pass_restamped = 0;
  m->counts.stats.pass_future = 0;

  /* Entities' values are produced on demand (zvm_mapper_next_value) from
   * the records kept in them, untouched until the next pass starts. */
  for (struct entity *e = m->entities.touched; e != NULL;) {
    struct entity *next = e->touched_next;
    uint64_t us = e->pending && e->lay->dispatched ? dispatch_time(m, e) : 0;
    if (us != 0) {
      if (zvm_output_grow((void **)&m->out.emit, &m->out.cap_emit, m->out.nemit,
                          sizeof(*m->out.emit))) {
        m->out.emit[m->out.nemit++] = (struct emit){.e = e};
        e->inst.last_us = us;
      } else {
        m->out.oom = true;
      }
    }
    e->pending = false;
    e->touched = false;
    e->touched_next = NULL;
    e->last_seen_us = now_us;
    e = next;
  }
  m->entities.touched = NULL;
  zvm_output_notifs_to_utc(m);
  /* The reader's counters last: they include this pass's restamping. */
  if (m->conf->report_reader_stats)
    zvm_output_reader(m, rs);

  if (m->entities.last_sweep_us == 0 || now_us < m->entities.last_sweep_us) {
    m->entities.last_sweep_us = now_us;
  } else if (now_us - m->entities.last_sweep_us >= ZVM_MAPPER_SWEEP_US) {
    zvm_entity_expire(m, now_us);
    m->entities.last_sweep_us = now_us;
  }

  m->out.output_done = true;
  bool oom = m->out.oom;
  m->out.oom = false;
  return oom ? -1 : 0;
}

/* ------------------------------------------------------------------------
 * Life cycle and accessors.
 */
struct zvm_mapper *zvm_mapper_create(const struct zvm_conf *conf) {
  struct zvm_mapper *m = calloc(1, sizeof(*m));
  if (m == NULL)
    return NULL;
  m->conf = conf;
  m->reg = conf->records;
  m->ops = (struct zvm_hook_ops){.notify = op_notify,
                                 .forget = op_forget,
                                 .find = op_find,
                                 .count_malformed = op_count_malformed,
                                 .notify_instance = op_notify_instance,
                                 .restart = op_restart,
                                 .restart_sessions = op_restart_sessions,
                                 .kept = op_kept};
  bool ok = m->reg != NULL && zvm_entity_table_init(m);
  for (size_t i = 0; ok && i < zvm_registry_count(m->reg); i++) {
    const struct zvm_record_desc *d = zvm_registry_at(m->reg, i);
    size_t old = m->index.nby_num[d->domain];
    ok = zvm_grow(&m->index.by_num[d->domain], &m->index.nby_num[d->domain],
                  d->number, sizeof(struct mrec *), (size_t)d->number + 1);
    if (!ok)
      break;
    memset(m->index.by_num[d->domain] + old, 0,
           (m->index.nby_num[d->domain] - old) * sizeof(struct mrec *));
    struct mrec *r = mrec_create(m, d);
    ok = r != NULL;
    if (ok)
      m->index.by_num[d->domain][d->number] = r;
    for (size_t j = 0; ok && d->hooks != NULL && j < d->hooks->nlayouts; j++) {
      bool bad;
      ok = mrec_of(m, d->hooks->layouts[j], &bad) != NULL;
    }
  }
  m->index.created_mrecs = m->index.mrecs;
  m->index.created_nlays = m->index.nlays;
  m->index.created_ntypes = m->index.ntypes;
  m->index.created_max_slots = m->index.max_slots;
  ok = ok && slots_fit(m);
  if (!ok) {
    zvm_mapper_destroy(m);
    return NULL;
  }
  return m;
}

void zvm_mapper_destroy(struct zvm_mapper *m) {
  if (m == NULL)
    return;
  zvm_entity_table_free(m);
  while (m->index.mrecs != NULL) {
    struct mrec *next = m->index.mrecs->next;
    mrec_free(m->index.mrecs);
    m->index.mrecs = next;
  }
  for (unsigned d = 0; d < ZVM_DOMAIN_COUNT; d++)
    free(m->index.by_num[d]);
  free(m->index.types);
  zvm_output_free(m);
  free(m);
}

/* Each part back to what create left: the entity table and the output
 * by assignment keeping their memory, the index to what create built,
 * the time rules and the counters by assignment. */
void zvm_mapper_reset(struct zvm_mapper *m) {
  zvm_entity_table_clear(m); /* first: entities point to their layouts */
  while (m->index.mrecs != m->index.created_mrecs) {
    struct mrec *next = m->index.mrecs->next;
    mrec_free(m->index.mrecs);
    m->index.mrecs = next;
  }
  m->index.nlays = m->index.created_nlays;
  m->index.ntypes = m->index.created_ntypes;
  m->index.max_slots = m->index.created_max_slots;
  /* The descriptors create built: their hooks' state from nothing. */
  for (struct mrec *r = m->index.mrecs; r != NULL; r = r->next) {
    r->ctx.arrival_us = 0;
    r->ctx.now_us = 0;
    if (r->ctx.record_state != NULL)
      memset(r->ctx.record_state, 0, r->hooks->record_state_size);
  }
  for (struct mrec *r = m->index.mrecs; r != NULL; r = r->next)
    r->guest_dropped = 0;
  zvm_output_reset(m);
  m->time = (struct mapper_time){0};
  m->counts = (struct mapper_counters){0};
}

size_t zvm_mapper_type_count(const struct zvm_mapper *m) {
  return m->index.ntypes;
}

const struct zvm_layout *zvm_mapper_type_at(const struct zvm_mapper *m,
                                            size_t i) {
  return i < m->index.ntypes ? m->index.types[i] : NULL;
}

const struct zvm_mapper_stats *
zvm_mapper_get_stats(const struct zvm_mapper *m) {
  return &m->counts.stats;
}

const struct zvm_decode_stats *
zvm_mapper_decode_stats(const struct zvm_mapper *m) {
  return &m->counts.decode;
}
