/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the registry: per domain a table indexed by record number,
 * grown to the largest number added (record numbers are small in
 * practice).
 */
#include "zvm_monitor/registry.h"
#include "base/option.h"
#include "base/util.h"
#include "engine/check.h"
#include "zvm_monitor/decode.h"

#include <stdlib.h>
#include <string.h>

struct reg_entry {
  const struct zvm_record_desc *desc;
  void (*free_desc)(const struct zvm_record_desc *d);
  /* desc is the registry's copy of orig with its own options (NULL: desc
   * is the descriptor added). */
  const struct zvm_record_desc *orig;
};

struct zvm_registry {
  struct reg_entry *all; /* in order of addition */
  size_t n, cap;
  size_t *slot[ZVM_DOMAIN_COUNT]; /* record number -> 1 + index in all */
  size_t nslots[ZVM_DOMAIN_COUNT];
};

struct zvm_registry *zvm_registry_create(void) {
  return calloc(1, sizeof(struct zvm_registry));
}

static void entry_free(const struct reg_entry *e) {
  if (e->orig != NULL) {
    free(e->desc->hook_data);
    free((void *)e->desc);
  }
  if (e->free_desc != NULL)
    e->free_desc(e->orig != NULL ? e->orig : e->desc);
}

/* The entry of d: d itself, or with options and no hook_data the
 * registry's copy of d with its own options. */
static int entry_make(const struct zvm_record_desc *d,
                      void (*free_desc)(const struct zvm_record_desc *d),
                      struct reg_entry *e) {
  *e = (struct reg_entry){d, free_desc, NULL};
  if (d->options == NULL || d->hook_data != NULL)
    return 0;
  struct zvm_record_desc *copy = malloc(sizeof(*copy));
  void *opts = calloc(1, d->options->size > 0 ? d->options->size : 1);
  if (copy == NULL || opts == NULL) {
    free(copy);
    free(opts);
    return -1;
  }
  if (d->options->init != NULL)
    d->options->init(opts);
  *copy = *d;
  copy->hook_data = opts;
  *e = (struct reg_entry){copy, free_desc, d};
  return 0;
}

void zvm_registry_destroy(struct zvm_registry *r) {
  if (r == NULL)
    return;
  for (size_t i = 0; i < r->n; i++)
    entry_free(&r->all[i]);
  free(r->all);
  for (unsigned d = 0; d < ZVM_DOMAIN_COUNT; d++)
    free(r->slot[d]);
  free(r);
}

static bool type_clash(const struct zvm_layout *a, const struct zvm_layout *b) {
  return a->type_name != NULL && b->type_name != NULL &&
         strcmp(a->type_name, b->type_name) == 0;
}

/* A type name of d already used by another record than skip. */
static const char *clashing_type(const struct zvm_registry *r,
                                 const struct zvm_record_desc *d,
                                 const struct zvm_record_desc *skip) {
  for (size_t i = 0; i < r->n; i++) {
    const struct zvm_record_desc *o = r->all[i].desc;
    if (o == skip)
      continue;
    const struct zvm_layout *ol[8], *dl[8];
    size_t on = 0, dn = 0;
    ol[on++] = &o->main;
    for (size_t a = 0; a < o->narrays && on < 8; a++)
      ol[on++] = &o->arrays[a].entry;
    dl[dn++] = &d->main;
    for (size_t a = 0; a < d->narrays && dn < 8; a++)
      dl[dn++] = &d->arrays[a].entry;
    for (size_t x = 0; x < dn; x++)
      for (size_t y = 0; y < on; y++)
        if (type_clash(dl[x], ol[y]))
          return dl[x]->type_name;
  }
  return NULL;
}

static int registry_add(struct zvm_registry *r, const struct zvm_record_desc *d,
                        bool replace,
                        void (*free_desc)(const struct zvm_record_desc *d),
                        char *err, size_t err_size, bool checked);

int zvm_registry_add(struct zvm_registry *r, const struct zvm_record_desc *d,
                     bool replace,
                     void (*free_desc)(const struct zvm_record_desc *d),
                     char *err, size_t err_size) {
  return registry_add(r, d, replace, free_desc, err, err_size, false);
}

int zvm_registry_add_checked(struct zvm_registry *r,
                             const struct zvm_record_desc *d) {
  return registry_add(r, d, false, NULL, NULL, 0, true);
}

static int registry_add(struct zvm_registry *r, const struct zvm_record_desc *d,
                        bool replace,
                        void (*free_desc)(const struct zvm_record_desc *d),
                        char *err, size_t err_size, bool checked) {
  int status = checked ? 0 : zvm_record_check(d, err, err_size);
  const struct zvm_record_desc *old =
      status == 0 ? zvm_registry_find(r, d->domain, d->number) : NULL;
  if (status == 0 && old != NULL && !replace)
    status = zvm_format_error(
        err, err_size, "record D%uR%u is defined twice (%s and %s)",
        (unsigned)d->domain, (unsigned)d->number,
        old->ibm_name ? old->ibm_name : "?", d->ibm_name ? d->ibm_name : "?");
  const char *type = status == 0 ? clashing_type(r, d, old) : NULL;
  if (type != NULL)
    status = zvm_format_error(err, err_size,
                              "record D%uR%u: type name \"%s\" is already used",
                              (unsigned)d->domain, (unsigned)d->number, type);
  if (status != 0) {
    if (free_desc != NULL)
      free_desc(d);
    return -1;
  }

  struct reg_entry e;
  if (entry_make(d, free_desc, &e) != 0)
    goto nomem;
  if (old != NULL) {
    size_t i = r->slot[d->domain][d->number] - 1;
    entry_free(&r->all[i]);
    r->all[i] = e;
    return 0;
  }

  size_t nslots = r->nslots[d->domain];
  if (!zvm_grow(&r->slot[d->domain], &r->nslots[d->domain], d->number,
                sizeof(size_t), 64)) {
    entry_free(&e);
    return zvm_format_error(err, err_size, "out of memory");
  }
  memset(r->slot[d->domain] + nslots, 0,
         (r->nslots[d->domain] - nslots) * sizeof(size_t));
  if (!zvm_grow(&r->all, &r->cap, r->n, sizeof(*r->all), 16)) {
    entry_free(&e);
    return zvm_format_error(err, err_size, "out of memory");
  }
  r->all[r->n++] = e;
  r->slot[d->domain][d->number] = r->n;
  return 0;

nomem:
  if (free_desc != NULL)
    free_desc(d);
  return zvm_format_error(err, err_size, "out of memory");
}

const struct zvm_record_desc *zvm_registry_find(const struct zvm_registry *r,
                                                uint8_t domain,
                                                uint16_t number) {
  if (domain >= ZVM_DOMAIN_COUNT || number >= r->nslots[domain])
    return NULL;
  size_t i = r->slot[domain][number];
  return i ? r->all[i - 1].desc : NULL;
}

size_t zvm_registry_count(const struct zvm_registry *r) { return r->n; }

const struct zvm_record_desc *zvm_registry_at(const struct zvm_registry *r,
                                              size_t i) {
  return i < r->n ? r->all[i].desc : NULL;
}

const struct zvm_option *zvm_registry_option(const struct zvm_registry *r,
                                             const char *key, void **target) {
  for (size_t i = 0; r != NULL && i < r->n; i++) {
    const struct zvm_record_desc *d = r->all[i].desc;
    const struct zvm_option *o =
        d->options != NULL
            ? zvm_option_find(d->options->rows, d->options->nrows, key)
            : NULL;
    if (o != NULL) {
      *target = d->hook_data;
      return o;
    }
  }
  return NULL;
}
