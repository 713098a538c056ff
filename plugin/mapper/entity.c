/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the mapper's entity table: one entity per record instance
 * (a guest for D4R10, a CPU type or "system" for D5R21, ...), keyed by its
 * layout and its instance key, whatever the record.
 *
 * A key part is the instance's raw bytes (EBCDIC names with trailing NULs
 * made blanks, right-padded with blanks) or number: equal keys <=> equal
 * names (zvm_name_format() trims blanks and NULs and is injective
 * otherwise), so a record costs one hash and a compare of two words, and
 * the name is formatted once, when the instance is first seen.
 */
#include "mapper/mapper_int.h"
#include "zvm_monitor/be.h"
#include "zvm_monitor/recconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_BUCKETS 256

/* ------------------------------------------------------------------------
 * Keys and names.
 */
bool zvm_entity_key(const struct lay *l, const uint8_t *data, size_t len,
                    struct zvm_key_value *key) {
  const struct zvm_key *k = &l->layout->key;
  *key = (struct zvm_key_value){{0}};
  if (l->key_text8)
    return (size_t)l->key_off + 8 <= len &&
           zvm_text_key8(zvm_load_be64(data + l->key_off), &key->v[0]);
  for (unsigned p = 0; p < k->nparts; p++) {
    const struct zvm_key_part *part = &k->part[p];
    if (part->kind == ZVM_KEY_FIXED)
      continue;
    const struct zvm_field *f = &l->layout->fields[part->field];
    if (part->kind == ZVM_KEY_USERID || part->kind == ZVM_KEY_EBCDIC) {
      if (!zvm_in_bounds(len, f->offset, f->width) ||
          !zvm_name_key(data + f->offset, f->width, &key->v[p]))
        return false;
    } else if (!zvm_be_uint(data, len, f->offset, f->width, &key->v[p])) {
      return false;
    }
  }
  return true;
}

/* The name of key part p into buf (without its prefix). */
static void part_name(const struct zvm_layout *l,
                      const struct zvm_key_part *part, uint64_t v, char *buf,
                      size_t size) {
  switch (part->kind) {
  case ZVM_KEY_FIXED:
    snprintf(buf, size, "%s", part->text);
    break;
  case ZVM_KEY_USERID:
  case ZVM_KEY_EBCDIC: {
    uint8_t id[8];
    for (unsigned i = 0; i < 8; i++)
      id[i] = (uint8_t)(v >> (8 * (7 - i)));
    if (zvm_name_format(id, sizeof(id), buf, size) < 0)
      buf[0] = '\0'; /* cannot happen: the key is not blank */
    break;
  }
  case ZVM_KEY_CPU_TYPE: {
    const char *name = v <= 0xFF ? zvm_cpu_type_name((uint8_t)v) : NULL;
    if (name != NULL)
      snprintf(buf, size, "%s", name);
    else
      snprintf(buf, size, "type%llu", (unsigned long long)v);
    break;
  }
  case ZVM_KEY_HEX: {
    int digits = part->field >= 0 && (size_t)part->field < l->nfields
                     ? 2 * l->fields[part->field].width
                     : 1;
    snprintf(buf, size, "%0*llX", digits, (unsigned long long)v);
    break;
  }
  case ZVM_KEY_NUMBER:
  default:
    snprintf(buf, size, "%llu", (unsigned long long)v);
    break;
  }
}

static void append(char *buf, size_t size, const char *s) {
  size_t len = strlen(buf);
  if (len + 1 < size)
    snprintf(buf + len, size - len, "%s", s);
}

/* A name of key parts may be longer than an identifier holds (a <Record>
 * InstancePrefix and two 8-byte EBCDIC fields, each byte outside the safe
 * set as "%XX": 16 + 24 + 1 + 24 = 65 characters): it is built whole and
 * then shortened by the one rule every name follows (decode.h,
 * zvm_id_fit: a prefix, "~" and the hash of the whole name), so two
 * instances never share an identifier. The prefix of a shortened name is
 * never all InstancePrefix. */
#define FULL_NAME_MAX 192
_Static_assert(ZVM_RECCONF_MAX_PREFIX + 1 + ZVM_ID_HASH_LEN < ZVM_ID_MAX,
               "a shortened <Record> instance name keeps some of its key");
_Static_assert(ZVM_RECCONF_MAX_PREFIX +
                       ZVM_RECCONF_MAX_INSTANCE_FIELDS * (3 * 8 + 1) <
                   FULL_NAME_MAX,
               "a whole <Record> instance name fits FULL_NAME_MAX");

void zvm_key_names(const struct zvm_layout *l, const struct zvm_key_value *key,
                   struct zvm_key_names *kn) {
  kn->n = l->key.nparts;
  kn->user = -1;
  for (unsigned p = 0; p < l->key.nparts; p++) {
    const struct zvm_key_part *part = &l->key.part[p];
    part_name(l, part, key->v[p], kn->part[p], sizeof(kn->part[p]));
    if (part->kind == ZVM_KEY_USERID && kn->user < 0)
      kn->user = (int)p;
  }
}

void zvm_key_names_join(const struct zvm_layout *l,
                        const struct zvm_key_names *kn, int skip, char *out,
                        size_t size) {
  char full[FULL_NAME_MAX] = "";
  for (unsigned p = 0; p < kn->n; p++) {
    const struct zvm_key_part *part = &l->key.part[p];
    if ((int)p == skip)
      continue;
    if (part->kind != ZVM_KEY_FIXED && part->text != NULL)
      append(full, sizeof(full), part->text);
    append(full, sizeof(full), kn->part[p]);
  }
  /* A part left out: no separator before what is left ("-vcpu1" ->
   * "vcpu1"). */
  const char *name = full;
  if (skip >= 0 && (name[0] == '-' || name[0] == '_'))
    name++;
  size_t len = strlen(name);
  memcpy(out, name, len < size ? len + 1 : size);
  if (len >= size)
    (void)zvm_id_shorten(out, size - 1, size, name, len);
}

/* How an entity is named and where its values go (cdname.c), decided
 * before it is allocated: the names are stored at their length. */
struct entity_naming {
  struct zvm_cd_instance cd;
  char instance[ZVM_ID_MAX]; /* cd.guest_host: every key part */
  bool selected;             /* UserID rules */
};

static void entity_naming(const struct zvm_mapper *m, const struct lay *lay,
                          const struct zvm_key_value *key,
                          struct entity_naming *n) {
  struct zvm_key_names kn;
  zvm_key_names(lay->layout, key, &kn);
  zvm_cd_instance(m->conf, lay, &kn, &n->cd);
  n->instance[0] = '\0';
  if (n->cd.guest_host)
    zvm_key_names_join(lay->layout, &kn, -1, n->instance, sizeof(n->instance));
  n->selected = kn.user < 0 || kn.part[kn.user][0] == '\0' ||
                zvm_conf_user_selected(m->conf, kn.part[kn.user]);
}

/* ------------------------------------------------------------------------
 * The table.
 */
static bool table_resize(struct zvm_mapper *m, size_t nbuckets) {
  struct entity **b = calloc(nbuckets, sizeof(*b));
  if (b == NULL)
    return false;
  unsigned shift = 64;
  for (size_t n = nbuckets; n > 1; n >>= 1)
    shift--;
  struct entity **old = m->entities.buckets;
  size_t nold = m->entities.nbuckets;
  m->entities.buckets = b;
  m->entities.nbuckets = nbuckets;
  m->entities.bucket_shift = shift;
  for (size_t i = 0; i < nold; i++) {
    struct entity *e = old[i];
    while (e != NULL) {
      struct entity *next = e->next;
      size_t j = zvm_entity_bucket(m, e->lay->id, &e->inst.key);
      e->next = b[j];
      b[j] = e;
      e = next;
    }
  }
  free(old);
  return true;
}

bool zvm_entity_table_init(struct zvm_mapper *m) {
  return table_resize(m, INITIAL_BUCKETS);
}

/* ------------------------------------------------------------------------
 * The guests' pool: how many instances each guest holds. Open addressing
 * with linear probing; a removal shifts the entries behind it back, so
 * no slot is ever a tombstone.
 */
static size_t guest_home(const struct zvm_mapper *m, uint64_t user) {
  return (size_t)((user * UINT64_C(0x9E3779B97F4A7C15)) >> 32) &
         (m->entities.guests_cap - 1);
}

static struct guest_count *guest_find(const struct zvm_mapper *m,
                                      uint64_t user) {
  if (m->entities.guests_cap == 0)
    return NULL;
  for (size_t i = guest_home(m, user);;
       i = (i + 1) & (m->entities.guests_cap - 1)) {
    if (m->entities.guests[i].user == user)
      return &m->entities.guests[i];
    if (m->entities.guests[i].user == 0)
      return NULL;
  }
}

static bool guests_grow(struct zvm_mapper *m) {
  size_t cap = m->entities.guests_cap ? 2 * m->entities.guests_cap : 64;
  struct guest_count *g = calloc(cap, sizeof(*g));
  if (g == NULL)
    return false;
  struct guest_count *old = m->entities.guests;
  size_t nold = m->entities.guests_cap;
  m->entities.guests = g;
  m->entities.guests_cap = cap;
  for (size_t j = 0; j < nold; j++) {
    if (old[j].user == 0)
      continue;
    size_t i = guest_home(m, old[j].user);
    while (g[i].user != 0)
      i = (i + 1) & (cap - 1);
    g[i] = old[j];
  }
  free(old);
  return true;
}

/* The guest's entry, made if it has none; NULL if out of memory. */
static struct guest_count *guest_add(struct zvm_mapper *m, uint64_t user) {
  struct guest_count *g = guest_find(m, user);
  if (g != NULL)
    return g;
  if (2 * (m->entities.nguests + 1) > m->entities.guests_cap && !guests_grow(m))
    return NULL;
  size_t i = guest_home(m, user);
  while (m->entities.guests[i].user != 0)
    i = (i + 1) & (m->entities.guests_cap - 1);
  m->entities.guests[i] = (struct guest_count){.user = user};
  m->entities.nguests++;
  return &m->entities.guests[i];
}

static void guest_release(struct zvm_mapper *m, uint64_t user) {
  struct guest_count *g = guest_find(m, user);
  if (g == NULL || --g->held > 0)
    return;
  size_t mask = m->entities.guests_cap - 1;
  size_t hole = (size_t)(g - m->entities.guests);
  for (size_t i = (hole + 1) & mask; m->entities.guests[i].user != 0;
       i = (i + 1) & mask) {
    size_t home = guest_home(m, m->entities.guests[i].user);
    /* Move back unless its home lies in (hole, i]. */
    if (((i - home) & mask) >= ((i - hole) & mask)) {
      m->entities.guests[hole] = m->entities.guests[i];
      hole = i;
    }
  }
  m->entities.guests[hole] = (struct guest_count){0};
  m->entities.nguests--;
}

uint64_t zvm_entity_guest_held(const struct zvm_mapper *m, uint64_t user) {
  const struct guest_count *g = guest_find(m, user);
  return g != NULL ? g->held : 0;
}

uint64_t zvm_entity_guest_top(const struct zvm_mapper *m, uint64_t *held) {
  uint64_t user = 0;
  *held = 0;
  for (size_t i = 0; i < m->entities.guests_cap; i++)
    if (m->entities.guests[i].user != 0 && m->entities.guests[i].held > *held) {
      user = m->entities.guests[i].user;
      *held = m->entities.guests[i].held;
    }
  return user;
}

/* Whether the guests' pool takes one more instance of a guest holding
 * held: its cap, the pool, and the reserve for guests with few. */
static enum zvm_refusal guest_admit(const struct zvm_mapper *m, uint64_t held) {
  if (held >= m->conf->guest_instances_max)
    return ZVM_REFUSED_GUEST_CAP;
  if (m->entities.nguest_entities >= ZVM_MAPPER_MAX_GUEST_INSTANCES)
    return ZVM_REFUSED_GUEST_POOL;
  if (m->entities.nguest_entities >=
          ZVM_MAPPER_MAX_GUEST_INSTANCES - ZVM_MAPPER_GUEST_RESERVE &&
      held >= ZVM_MAPPER_GUEST_RESERVE_BELOW)
    return ZVM_REFUSED_GUEST_POOL;
  return ZVM_REFUSED_NONE;
}

static void entity_free(struct zvm_mapper *m, struct entity *e) {
  const struct zvm_record_hooks *h = e->lay->rec->hooks;
  if (e->inst.state != NULL && h != NULL && h->state_release != NULL)
    h->state_release(e->inst.state); /* inside e: freed with it */
  if (e->lay->guest_named) {
    guest_release(m, e->inst.key.v[0]);
    m->entities.nguest_entities--;
    m->counts.stats.guest_tracked--;
  } else if (e->lay->user_key) {
    m->counts.stats.users_tracked--;
  }
  m->entities.nentities--;
  free(e);
}

void zvm_entity_table_clear(struct zvm_mapper *m) {
  for (size_t i = 0; i < m->entities.nbuckets; i++) {
    struct entity *e = m->entities.buckets[i];
    while (e != NULL) {
      struct entity *next = e->next;
      entity_free(m, e);
      e = next;
    }
    m->entities.buckets[i] = NULL;
  }
  /* Empty (the guests' pool emptied itself as its entities went): the
   * memory kept, every other member from nothing. */
  struct mapper_entities *t = &m->entities;
  if (t->guests != NULL)
    memset(t->guests, 0, t->guests_cap * sizeof(*t->guests));
  *t = (struct mapper_entities){.buckets = t->buckets,
                                .nbuckets = t->nbuckets,
                                .bucket_shift = t->bucket_shift,
                                .guests = t->guests,
                                .guests_cap = t->guests_cap};
}

void zvm_entity_table_free(struct zvm_mapper *m) {
  zvm_entity_table_clear(m);
  free(m->entities.guests);
  m->entities.guests = NULL;
  m->entities.guests_cap = 0;
  free(m->entities.buckets);
  m->entities.buckets = NULL;
  m->entities.nbuckets = 0;
}

struct entity *zvm_entity_insert(struct zvm_mapper *m, struct lay *l,
                                 const struct zvm_key_value *key,
                                 enum zvm_refusal *why) {
  struct guest_count *g = NULL;
  if (l->guest_named) {
    *why = guest_admit(m, zvm_entity_guest_held(m, key->v[0]));
    if (*why == ZVM_REFUSED_NONE && (g = guest_add(m, key->v[0])) == NULL)
      *why = ZVM_REFUSED_NO_MEMORY;
  } else {
    *why = m->entities.nentities - m->entities.nguest_entities >=
                   ZVM_MAPPER_MAX_USERS
               ? ZVM_REFUSED_FULL
               : ZVM_REFUSED_NONE;
  }
  if (*why != ZVM_REFUSED_NONE)
    return NULL;
  if (m->entities.nentities >= m->entities.nbuckets)
    (void)table_resize(m,
                       2 * m->entities.nbuckets); /* still works if it fails */
  /* One allocation: the entity, its kept record, the hooks' state, the
   * names at their length (struct entity). */
  struct entity_naming n;
  entity_naming(m, l, key, &n);
  size_t name_size = strlen(n.cd.name) + 1;
  size_t host_size = n.cd.guest_host ? strlen(n.cd.host) + 1 : 0;
  size_t inst_size = n.cd.guest_host ? strlen(n.instance) + 1 : 0;
  struct entity *e =
      calloc(1, l->names_off + name_size + host_size + inst_size);
  if (e == NULL) {
    *why = ZVM_REFUSED_NO_MEMORY;
    if (g != NULL && g->held == 0) { /* made for this entity */
      g->held = 1;
      guest_release(m, key->v[0]);
    }
    return NULL;
  }
  if (l->names_off > l->state_off) /* the hooks keep state */
    e->inst.state = (char *)e + l->state_off;
  char *names = (char *)e + l->names_off;
  memcpy(names, n.cd.name, name_size);
  memcpy(names + name_size, n.cd.host, host_size);
  memcpy(names + name_size + host_size, n.instance, inst_size);
  e->inst.name = names;
  e->guest_host = n.cd.guest_host;
  e->selected = n.selected;
  e->lay = l;
  e->inst.layout = l->layout;
  e->inst.key = *key;
  size_t j = zvm_entity_bucket(m, l->id, key);
  e->next = m->entities.buckets[j];
  m->entities.buckets[j] = e;
  m->entities.nentities++;
  if (g != NULL) {
    g->held++;
    m->entities.nguest_entities++;
    m->counts.stats.guest_tracked++;
  } else if (l->user_key) {
    m->counts.stats.users_tracked++;
  }
  return e;
}

void zvm_entity_remove(struct zvm_mapper *m, struct entity *e) {
  struct entity **pp =
      &m->entities.buckets[zvm_entity_bucket(m, e->lay->id, &e->inst.key)];
  while (*pp != NULL && *pp != e)
    pp = &(*pp)->next;
  if (*pp == e)
    *pp = e->next;
  if (e->touched) {
    struct entity **tp = &m->entities.touched;
    while (*tp != NULL && *tp != e)
      tp = &(*tp)->touched_next;
    if (*tp == e)
      *tp = e->touched_next;
  }
  entity_free(m, e);
}

void zvm_entity_restart(struct zvm_mapper *m, struct entity *e) {
  (void)m;
  const struct zvm_record_hooks *h = e->lay->rec->hooks;
  if (e->inst.state != NULL) {
    if (h->state_release != NULL)
      h->state_release(e->inst.state);
    memset(e->inst.state, 0, h->state_size);
  }
  e->inst.hook_word = 0;
  e->inst.records = 0;
  e->restart = false;
}

void zvm_entity_expire(struct zvm_mapper *m, uint64_t now_us) {
  for (size_t i = 0; i < m->entities.nbuckets; i++) {
    struct entity **pp = &m->entities.buckets[i];
    while (*pp != NULL) {
      struct entity *e = *pp;
      uint64_t expire_us = e->lay->guest_named ? ZVM_MAPPER_GUEST_EXPIRE_US
                                               : ZVM_MAPPER_EXPIRE_US;
      if (!e->touched && now_us > e->last_seen_us &&
          now_us - e->last_seen_us > expire_us) {
        *pp = e->next;
        if (e->lay->user_key && !e->lay->guest_named)
          m->counts.stats.users_expired++;
        entity_free(m, e);
      } else {
        pp = &e->next;
      }
    }
  }
}
