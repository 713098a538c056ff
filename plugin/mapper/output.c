/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the mapper's output: the values of a pass, produced one by
 * one from the records the entities kept (not stored: a pass with 10,000
 * guests yields 10,000 lists of 48 values, and neither their memory nor
 * their formatting is paid for up front), the reader's counters and the
 * notifications hooks queued.
 *
 * By default an entity's values go out as one value list of its layout's
 * type (zvm_useite: every data source in table order). With
 * OneValuePerList (or a layout that copies a collectd plugin) every value
 * is a list of its own, type "derive"/"gauge"/the field's single_type and
 * type instance the data source name. A record too short for every field
 * (an older z/VM) also goes out one value per list, so nothing is made up.
 */
#include "mapper/mapper_int.h"
#include "zvm_monitor/be.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The previous pass's output is dropped when the next pass starts: the
 * records it points into (in the entities) are overwritten from here on. */
static void text_reset(struct zvm_mapper *m) {
  for (struct text_chunk *c = m->out.chunks; c != NULL; c = c->next)
    c->used = 0;
  m->out.last_text = NULL;
}

void zvm_output_begin(struct zvm_mapper *m) {
  if (!m->out.output_done)
    return;
  text_reset(m);
  m->out.hlists_for = 0;
  m->out.nfixed = 0;
  m->out.nemit = 0;
  m->out.items_for = 0;
  m->out.head_for = 0;
  m->out.nnotifs = 0;
  m->out.output_done = false;
  m->counts.stats.pass_guest_dropped = 0; /* counted while sets are added */
}

void zvm_output_reset(struct zvm_mapper *m) {
  struct mapper_output *o = &m->out;
  text_reset(m);
  /* The memory kept, every other member from nothing. */
  *o = (struct mapper_output){.fixed = o->fixed,
                              .cap_fixed = o->cap_fixed,
                              .emit = o->emit,
                              .cap_emit = o->cap_emit,
                              .items = o->items,
                              .present = o->present,
                              .items_cap = o->items_cap,
                              .notifs = o->notifs,
                              .cap_notifs = o->cap_notifs,
                              .hlists = o->hlists,
                              .cap_hlists = o->cap_hlists,
                              .chunks = o->chunks};
}

void zvm_output_free(struct zvm_mapper *m) {
  for (struct text_chunk *c = m->out.chunks, *next; c != NULL; c = next) {
    next = c->next;
    free(c);
  }
  free(m->out.hlists);
  free(m->out.fixed);
  free(m->out.emit);
  free(m->out.items);
  free(m->out.present);
  free(m->out.notifs);
}

/* Counters are unsigned 64-bit sums; derive_t is signed. */
static int64_t counter(uint64_t v) {
  return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* ------------------------------------------------------------------------
 * Reader counters and notifications (built by finish).
 */
static void emit_counter(struct zvm_mapper *m, enum zvm_health_class c,
                         const char *name, uint64_t value) {
  if (!zvm_output_grow((void **)&m->out.fixed, &m->out.cap_fixed, m->out.nfixed,
                       sizeof(*m->out.fixed))) {
    m->out.oom = true;
    return;
  }
  /* time 0: the daemon stamps these with the time of dispatch. */
  m->out.fixed[m->out.nfixed++] = (struct zvm_value){
      .instance = ZVM_HEALTH_INSTANCE,
      .field = name,
      .host = "",
      .plugin_instance = ZVM_HEALTH_INSTANCE,
      .type = zvm_cd_health_type(c),
      .type_instance = name,
      .kind = ZVM_VALUE_DERIVE,
      .derive = counter(value),
  };
}

void zvm_output_reader(struct zvm_mapper *m,
                       const struct zvm_source_health *rs) {
  static const struct zvm_source_health none;
  if (rs == NULL)
    rs = &none;
  const struct zvm_decode_stats *d = &m->counts.decode;
  uint64_t malformed = d->walk.malformed + d->walk.mce_rejected +
                       d->array_rejected + rs->oversize +
                       m->counts.hook_malformed;
  uint64_t skipped = d->unknown + d->walk.filtered + m->counts.userid_filtered +
                     m->counts.stats.no_userid + m->counts.stats.users_dropped +
                     m->counts.hook_skipped;

  emit_counter(m, ZVM_HEALTH_ERRORS, "eoverflow", rs->eoverflow);
  emit_counter(m, ZVM_HEALTH_ERRORS, "eio", rs->eio);
  emit_counter(m, ZVM_HEALTH_ERRORS, "efault", rs->efault);
  emit_counter(m, ZVM_HEALTH_ERRORS, "open", rs->open_errors);
  emit_counter(m, ZVM_HEALTH_ERRORS, "malformed", malformed);
  emit_counter(m, ZVM_HEALTH_ERRORS, "stream", rs->stream_errors);
  emit_counter(m, ZVM_HEALTH_OBJECTS, "sets", rs->sets);
  emit_counter(m, ZVM_HEALTH_OBJECTS, "sets_dropped", rs->sets_dropped);
  emit_counter(m, ZVM_HEALTH_OBJECTS, "records", d->walk.records);
  emit_counter(m, ZVM_HEALTH_OBJECTS, "skipped", skipped);
  emit_counter(m, ZVM_HEALTH_OBJECTS, "short_records", m->counts.short_records);
  emit_counter(m, ZVM_HEALTH_BYTES, "read", rs->bytes_read);
  emit_counter(m, ZVM_HEALTH_OBJECTS, "restamped", m->counts.stats.restamped);
  emit_counter(m, ZVM_HEALTH_OBJECTS, "time_future",
               m->counts.stats.time_future);
  for (struct mrec *r = m->index.mrecs; r != NULL; r = r->next) {
    if (r->hooks == NULL || r->hooks->counters == NULL)
      continue;
    struct zvm_hook_counter c[8];
    size_t n = r->hooks->counters(&r->ctx, c, 8);
    for (size_t i = 0; i < n && i < 8; i++)
      emit_counter(m, ZVM_HEALTH_OBJECTS, c[i].name, c[i].value);
  }
  for (struct mrec *r = m->index.mrecs; r != NULL; r = r->next)
    if (r->hooks != NULL && r->hooks->guest_dropped != NULL)
      emit_counter(m, ZVM_HEALTH_OBJECTS, r->hooks->guest_dropped,
                   r->guest_dropped);
}

void zvm_output_notify(struct zvm_mapper *m,
                       const struct zvm_record_desc *record,
                       enum zvm_notify_kind kind,
                       enum zvm_notif_severity severity, uint64_t time_us,
                       const char *instance, const char *host,
                       const char *plugin_instance, const char *message) {
  /* Hooks notify while a set is added (the output already begun), never
   * while the pass's output is read. */
  if (!zvm_output_grow((void **)&m->out.notifs, &m->out.cap_notifs,
                       m->out.nnotifs, sizeof(*m->out.notifs))) {
    m->out.oom = true;
    return;
  }
  struct zvm_notification *n = &m->out.notifs[m->out.nnotifs++];
  /* Names are copied: an instance may be forgotten before the
   * notification goes out. */
  *n = (struct zvm_notification){
      .record = record,
      .kind = kind,
      .severity = severity,
      .time_us = time_us,
  };
  snprintf(n->instance, sizeof(n->instance), "%s",
           instance != NULL ? instance : "");
  snprintf(n->message, sizeof(n->message), "%s", message);
  zvm_cd_notification(n, host, plugin_instance);
}

/* Hooks notify with their records' Unix times: take the pass's
 * leap-second offset off (timerule.h). */
void zvm_output_notifs_to_utc(struct zvm_mapper *m) {
  for (size_t i = 0; i < m->out.nnotifs; i++) {
    uint64_t utc;
    if (zvm_unix_to_utc(m->out.notifs[i].time_us, m->counts.stats.leap_us,
                        &utc))
      m->out.notifs[i].time_us = utc;
  }
}

/* ------------------------------------------------------------------------
 * Entities' values.
 */

/* A plain integer slot's value in a kept record; false if the record is
 * too short to hold it (an older z/VM) or it is not representable (as
 * zvm_field_i64). The fast path: the offset and width are resolved. */
static inline __attribute__((always_inline)) bool
plain_read(const struct slot *s, const uint8_t *data, size_t len, int64_t *x) {
  uint64_t raw;
  if (!zvm_be_uint(data, len, s->offset, s->width, &raw))
    return false;
  if (s->is_signed)
    *x = zvm_sign_extend(raw, s->width);
  else if (raw > (uint64_t)INT64_MAX)
    return false;
  else
    *x = (int64_t)raw;
  return true;
}

/* Fill m->out.items for emitted entity k (once per entity and pass); false if
 * the entity has no value list this pass (its values hook said so). */
static bool entity_items(struct zvm_mapper *m, size_t k) {
  if (m->out.items_for == k + 1)
    return m->out.items_ok || m->out.nitems_present > 0;
  const struct entity *e = m->out.emit[k].e;
  const struct lay *l = e->lay;
  struct zvm_value_item *items = m->out.items;
  bool all = true;
  size_t npresent = 0;
  for (size_t i = 0; i < l->nslots; i++) {
    const struct slot *s = &l->slots[i];
    int64_t x = 0;
    double g = 0;
    bool ok;
    if (s->records) {
      x = counter(e->inst.records);
      ok = true;
    } else if (e->copy_len == 0) {
      ok = true; /* ZVM_HOOK_PENDING: the values hook fills them */
    } else if (s->plain) {
      ok = plain_read(s, e->copy, e->copy_len, &x);
      g = (double)x;
    } else {
      ok = zvm_field_value(s->f, e->copy, e->copy_len, s->idx, &x, &g);
    }
    m->out.present[i] = ok;
    all = all && ok;
    npresent += ok;
    items[i] =
        s->kind == ZVM_VALUE_DERIVE
            ? (struct zvm_value_item){.kind = s->kind, .derive = ok ? x : 0}
            : (struct zvm_value_item){.kind = s->kind, .gauge = ok ? g : 0};
  }
  const struct zvm_record_hooks *h = l->rec->hooks;
  if (h != NULL && h->values != NULL &&
      !h->values(&l->rec->ctx, &e->inst, items, l->nslots)) {
    all = false;
    npresent = 0;
  }
  m->out.items_for = k + 1;
  m->out.items_ok = all;
  m->out.nitems_present = npresent;
  return all || npresent > 0;
}

/* A copy of s for the rest of the pass (NULL if out of memory). */
static const char *text_keep(struct zvm_mapper *m, const char *s) {
  if (m->out.last_text != NULL && strcmp(m->out.last_text, s) == 0)
    return m->out.last_text;
  size_t n = strlen(s) + 1;
  struct text_chunk *c = m->out.chunks;
  for (; c != NULL && c->size - c->used < n; c = c->next)
    ;
  if (c == NULL) {
    size_t size = n > 65536 ? n : 65536;
    c = malloc(sizeof(*c) + size);
    if (c == NULL)
      return NULL;
    *c = (struct text_chunk){.next = m->out.chunks, .size = size};
    m->out.chunks = c;
  }
  char *t = c->text + c->used;
  memcpy(t, s, n);
  c->used += n;
  m->out.last_text = t;
  return t;
}

struct hook_sink {
  struct zvm_mapper *m;
  const char *instance; /* the entity's whole name (the guest's) */
};

static void hook_list_cb(void *sink, const struct zvm_hook_list *l) {
  const struct hook_sink *hs = sink;
  struct zvm_mapper *m = hs->m;
  if (l->nitems == 0 || l->nitems > ZVM_HOOK_LIST_ITEMS_MAX)
    return;
  if (!zvm_output_grow((void **)&m->out.hlists, &m->out.cap_hlists,
                       m->out.nhlists, sizeof(*m->out.hlists))) {
    m->out.oom = true;
    return;
  }
  struct hlist *h = &m->out.hlists[m->out.nhlists];
  char buf[3 * ZVM_ID_MAX + 8];
  if (!zvm_cd_list(l, hs->instance, buf, sizeof(buf), &h->cd))
    return; /* too long for collectd's names */
  /* The member (valid during the call only) is kept as the end of the
   * plugin instance kept (cdname.c makes every plugin instance end with
   * it): one copy. */
  const char *pi = text_keep(m, h->cd.plugin_instance);
  if (pi == NULL) {
    m->out.oom = true;
    return;
  }
  const char *member = pi;
  if (h->cd.plugin_instance != l->name.member) {
    size_t pi_len = strlen(pi), member_len = strlen(l->name.member);
    member = pi + (pi_len >= member_len ? pi_len - member_len : pi_len);
  }
  h->cd.plugin_instance = pi;
  h->l = *l;
  h->l.name.member = member;
  m->out.nhlists++;
}

/* The value lists a lists hook makes for emitted entity k (once). */
static size_t entity_hook_lists(struct zvm_mapper *m, size_t k) {
  if (m->out.hlists_for != k + 1) {
    const struct entity *e = m->out.emit[k].e;
    const struct mrec *r = e->lay->rec;
    m->out.nhlists = 0;
    struct hook_sink hs = {.m = m, .instance = zvm_entity_instance(e)};
    r->hooks->lists((struct zvm_hook_ctx *)&r->ctx, &e->inst, hook_list_cb,
                    &hs);
    m->out.hlists_for = k + 1;
  }
  return m->out.nhlists;
}

/* The names every value of emitted entity k starts with; a guest's
 * (host, whole name: after the plugin instance) found once per entity. */
static void value_head(struct zvm_mapper *m, size_t k, const struct entity *e,
                       struct zvm_value *v) {
  const char *host = "", *instance = e->inst.name;
  if (e->guest_host) {
    if (m->out.head_for != k + 1) {
      m->out.head_host = zvm_entity_host(e);
      m->out.head_instance = zvm_entity_instance(e);
      m->out.head_for = k + 1;
    }
    host = m->out.head_host;
    instance = m->out.head_instance;
  }
  const struct zvm_layout *layout = e->lay->layout;
  *v = (struct zvm_value){.record = e->lay->rec->desc,
                          .layout = layout,
                          .instance = instance,
                          .host = host,
                          .plugin = layout->plugin,
                          .plugin_instance = e->inst.name,
                          .time_us = e->inst.last_us};
}

bool zvm_mapper_next_value(struct zvm_mapper *m, struct zvm_value_iter *it,
                           struct zvm_value *v) {
  if (it->fixed < m->out.nfixed) {
    *v = m->out.fixed[it->fixed++];
    return true;
  }
  while (it->user < m->out.nemit) {
    const struct entity *e = m->out.emit[it->user].e;
    const struct lay *l = e->lay;
    if (l->rec->hooks != NULL && l->rec->hooks->lists != NULL) {
      if (it->value < entity_hook_lists(m, it->user)) {
        const struct hlist *h = &m->out.hlists[it->value++];
        const struct zvm_hook_list *hl = &h->l;
        value_head(m, it->user, e, v);
        v->list = &hl->name;
        if (h->cd.daemon_host)
          v->host = "";
        v->plugin = h->cd.plugin;
        v->plugin_instance = h->cd.plugin_instance;
        v->type = h->cd.type;
        v->type_instance = h->cd.type_instance;
        if (hl->nitems == 1) {
          v->kind = hl->items[0].kind;
          v->derive = hl->items[0].derive;
          v->gauge = hl->items[0].gauge;
        } else {
          v->nitems = hl->nitems;
          v->items = hl->items;
        }
        return true;
      }
      it->user++;
      it->value = 0;
      continue;
    }
    if (!entity_items(m, it->user)) {
      it->user++;
      it->value = 0;
      continue;
    }
    if (it->value == 0 && !l->single && m->out.items_ok) {
      value_head(m, it->user, e, v);
      v->type = l->layout->type_name;
      v->type_instance = "";
      v->nitems = l->nslots;
      v->items = m->out.items;
      it->user++;
      return true;
    }
    while (it->value < l->nslots) {
      size_t i = it->value++;
      const struct slot *s = &l->slots[i];
      if (!m->out.present[i] || !s->selected)
        continue;
      value_head(m, it->user, e, v);
      v->field = s->ds;
      v->type = s->single_type;
      v->type_instance = s->single_ti;
      v->kind = s->kind;
      v->derive = m->out.items[i].derive;
      v->gauge = m->out.items[i].gauge;
      return true;
    }
    it->user++;
    it->value = 0;
  }
  return false;
}

const struct zvm_notification *
zvm_mapper_notifications(const struct zvm_mapper *m, size_t *n) {
  *n = m->out.nnotifs;
  return m->out.notifs;
}
