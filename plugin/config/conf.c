/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - configuration values: the option table and validation.
 * No collectd headers (see conf.h).
 */
#include "zvm_monitor/conf.h"

#include "base/util.h"
#include "zvm_monitor/registry.h"

#include <ctype.h>
#include <stddef.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int zvm_conf_init(struct zvm_conf *c, struct zvm_registry *records) {
  *c = (struct zvm_conf){
      .domains = ZVM_DOMAINS_ALL,
      .report_reader_stats = true,
      .max_set_size = ZVM_CONF_DEFAULT_MAX_SET_SIZE,
      .max_queue_size = ZVM_CONF_DEFAULT_MAX_QUEUE_SIZE,
      .leap_auto = true,
      .guest_instances_max = ZVM_CONF_DEFAULT_GUEST_INSTANCES,
  };
  for (int k = 0; k < ZVM_NOTIFY_KINDS; k++)
    c->notify[k] = true;
  zvm_select_init(&c->userids, false, ZVM_SELECT_CASELESS, "user ID");
  c->device = strdup(ZVM_CONF_DEFAULT_DEVICE);
  c->records = records;
  if (c->device == NULL || c->records == NULL) {
    zvm_conf_free(c);
    return -1;
  }
  return 0;
}

void zvm_conf_free(struct zvm_conf *c) {
  if (c == NULL)
    return;
  free(c->device);
  zvm_select_free(&c->userids);
  for (size_t i = 0; i < c->userfields_num; i++)
    free(c->userfields[i]);
  free(c->userfields);
  zvm_registry_destroy(c->records);
  *c = (struct zvm_conf){0};
}

static int set_device(struct zvm_conf *c, const char *value, char *err,
                      size_t err_size) {
  if (value[0] != '/')
    return zvm_format_error(
        err, err_size, "Device \"%s\": an absolute path is required", value);
  char *copy = strdup(value);
  if (copy == NULL)
    return zvm_format_error(err, err_size, "Device: out of memory");
  free(c->device);
  c->device = copy;
  return 0;
}

static int add_domain(struct zvm_conf *c, const char *value, char *err,
                      size_t err_size) {
  int d = zvm_domain_from_name(value);
  if (d < 0) {
    char names[256] = "";
    for (unsigned i = 0; i < ZVM_DOMAIN_COUNT; i++) {
      size_t len = strlen(names);
      if (zvm_domain_name(i) != NULL)
        snprintf(names + len, sizeof(names) - len, "%s, ", zvm_domain_name(i));
    }
    return zvm_format_error(
        err, err_size, "Domain \"%s\": unknown domain (use %sor a number 0-15)",
        value, names);
  }
  /* The first Domain line replaces the default "all domains". */
  if (!c->domains_given)
    c->domains = 0;
  c->domains_given = true;
  c->domains |= ZVM_DOMAIN_BIT(d);
  return 0;
}

/* Calls fn with every field of the layouts keyed by a user ID (name =
 * its metric) and every element of an array field (name = the element's
 * data source): what UserField may name. An element's name starts with
 * its field's metric (zvm_field_element_name): elements are only named for
 * fields whose metric starts elements_of (case-insensitive; NULL: none).
 * Stops when fn returns true, and returns that. */
static bool each_user_value(const struct zvm_conf *c,
                            bool (*fn)(const struct zvm_field *f,
                                       const char *name, void *ctx),
                            void *ctx, const char *elements_of) {
  for (size_t r = 0; r < zvm_registry_count(c->records); r++) {
    const struct zvm_layout *l = &zvm_registry_at(c->records, r)->main;
    bool user = false;
    for (unsigned p = 0; p < l->key.nparts; p++)
      user = user || l->key.part[p].kind == ZVM_KEY_USERID;
    for (size_t i = 0; user && i < l->nfields; i++) {
      const struct zvm_field *f = &l->fields[i];
      if (!zvm_field_dispatched(f))
        continue;
      if (fn(f, f->metric, ctx))
        return true;
      if (f->count <= 1 || elements_of == NULL ||
          strncasecmp(elements_of, f->metric, strlen(f->metric)) != 0)
        continue;
      for (unsigned e = 0; e < f->count; e++) {
        char ds[64];
        if (zvm_field_element_name(f, e, ds, sizeof(ds)) >= 0 && fn(f, ds, ctx))
          return true;
      }
    }
  }
  return false;
}

static bool name_equal(const struct zvm_field *f, const char *name, void *ctx) {
  (void)f;
  return strcasecmp(name, ctx) == 0;
}

#define NAME_LIST_SIZE 1024
static bool name_list(const struct zvm_field *f, const char *name, void *ctx) {
  char *buf = ctx;
  size_t len = strlen(buf);
  if (len + 1 >= NAME_LIST_SIZE)
    return false;
  /* An array as its first element's name with the index as "N". */
  char ds[64];
  if (f->count > 1 && zvm_field_element_name(f, 0, ds, sizeof(ds)) > 0)
    ds[strlen(ds) - 1] = 'N';
  else
    snprintf(ds, sizeof(ds), "%s", name);
  snprintf(buf + len, NAME_LIST_SIZE - len, "%s%s", len ? ", " : "", ds);
  return false;
}

/* Whether name is a value of a guest's record (D4R10: a data source such
 * as "transactions", "hfcpurn", "vmdcprmd_q0", case-insensitive) or one
 * of its fields ("vmdcprmd": all its elements): what UserField may name. */
static bool is_user_value(const struct zvm_conf *c, const char *name) {
  return name != NULL && each_user_value(c, name_equal, (void *)name, name);
}

static int add_userfield(struct zvm_conf *c, const char *value, char *err,
                         size_t err_size) {
  if (!is_user_value(c, value)) {
    char names[NAME_LIST_SIZE] = "";
    each_user_value(c, name_list, names, NULL);
    return zvm_format_error(err, err_size,
                            "UserField \"%s\": not a value of a guest's record "
                            "(use one of %s)",
                            value, names);
  }
  char *copy = strdup(value);
  if (copy == NULL)
    return zvm_format_error(err, err_size, "UserField: out of memory");
  for (char *p = copy; *p != '\0'; p++)
    *p = (char)tolower((unsigned char)*p);
  if (!zvm_grow(&c->userfields, &c->userfields_cap, c->userfields_num,
                sizeof(*c->userfields), 4)) {
    free(copy);
    return zvm_format_error(err, err_size, "UserField: out of memory");
  }
  c->userfields[c->userfields_num++] = copy;
  return 0;
}

/* ------------------------------------------------------------------------
 * The option table: one row per option, its handler below it names what
 * it sets. An option without a row is unknown.
 */
static int opt_device(void *t, const struct zvm_option *o,
                      const struct zvm_option_value *v, char *err,
                      size_t err_size) {
  (void)o;
  return set_device(t, v->string, err, err_size);
}

/* Domain "name" or Domain 4 (its rule: a domain's number). */
static int opt_domain(void *t, const struct zvm_option *o,
                      const struct zvm_option_value *v, char *err,
                      size_t err_size) {
  if (v->type != ZVM_OPTION_NUMBER)
    return add_domain(t, v->string, err, err_size);
  if (zvm_option_check(o, v, err, err_size) != 0)
    return -1;
  char name[8];
  snprintf(name, sizeof(name), "%d", (int)v->number);
  return add_domain(t, name, err, err_size);
}

static int opt_userfield(void *t, const struct zvm_option *o,
                         const struct zvm_option_value *v, char *err,
                         size_t err_size) {
  (void)o;
  return add_userfield(t, v->string, err, err_size);
}

/* The first release's opt-in to one list per guest, now the default:
 * "CombinedUserValues false" means "OneValuePerList true". */
static int opt_combined(void *t, const struct zvm_option *o,
                        const struct zvm_option_value *v, char *err,
                        size_t err_size) {
  (void)o;
  (void)err;
  (void)err_size;
  ((struct zvm_conf *)t)->one_value_per_list = !v->boolean;
  return 0;
}

static int opt_leap(void *t, const struct zvm_option *o,
                    const struct zvm_option_value *v, char *err,
                    size_t err_size) {
  (void)o;
  struct zvm_conf *c = t;
  if (v->type != ZVM_OPTION_NUMBER) {
    if (strcasecmp(v->string, "auto") != 0)
      return zvm_format_error(err, err_size,
                              "LeapSecondOffset \"%s\": give \"auto\" or the "
                              "seconds the TOD clock is ahead of UTC (0-%d)",
                              v->string, ZVM_LEAP_MAX_S);
    c->leap_auto = true;
    return 0;
  }
  if (!(v->number >= 0 && v->number <= ZVM_LEAP_MAX_S) ||
      v->number != (int)v->number)
    return zvm_format_error(err, err_size,
                            "LeapSecondOffset %g: must be \"auto\" or whole "
                            "seconds from 0 to %d",
                            v->number, ZVM_LEAP_MAX_S);
  c->leap_auto = false;
  c->leap_us = (uint64_t)v->number * 1000000;
  return 0;
}

/* ApplDataInstancesPerGuest: a whole number from 1 to the pool's size
 * (its rule), and that it was given. */
static int opt_guest_instances(void *t, const struct zvm_option *o,
                               const struct zvm_option_value *v, char *err,
                               size_t err_size) {
  if (zvm_option_set_rule(t, o, v, err, err_size) != 0)
    return -1;
  ((struct zvm_conf *)t)->guest_instances_given = true;
  return 0;
}

/* The rules of the numbers (option.h). */
static const struct zvm_option_rule domain_rule = {.min = 0,
                                                   .max = ZVM_DOMAIN_COUNT - 1,
                                                   .whole = true,
                                                   .note = "a domain number"};
static const struct zvm_option_rule size_rule = {
    .min = (double)ZVM_CONF_MIN_SET_SIZE,
    .max = (double)ZVM_CONF_MAX_SET_SIZE,
    .whole = true,
    .unit = "bytes",
    .size = sizeof(size_t)};
static const struct zvm_option_rule guest_instances_rule = {
    .min = 1,
    .max = (double)ZVM_CONF_MAX_GUEST_INSTANCES,
    .whole = true,
    .unit = "instances",
    .size = ZVM_OPTION_SIZE(struct zvm_conf, guest_instances_max)};

#define MEMBER(m) offsetof(struct zvm_conf, m)
#define FLAG(m) ZVM_OPTION_BOOLEAN, zvm_option_set_flag, MEMBER(m), NULL
#define SIZE(m) ZVM_OPTION_NUMBER, zvm_option_set_rule, MEMBER(m), &size_rule
#define NOTIFY(kind) FLAG(notify[ZVM_NOTIFY_##kind])

static const struct zvm_option options[] = {
    {"Device", ZVM_OPTION_STRING, opt_device, 0, NULL},
    {"Domain", ZVM_OPTION_STRING_OR_NUMBER, opt_domain, 0, &domain_rule},
    {"UserID", ZVM_OPTION_STRING, zvm_option_add_select, MEMBER(userids), NULL},
    {"IgnoreSelected", ZVM_OPTION_BOOLEAN, zvm_option_invert_select,
     MEMBER(userids), NULL},
    {"GuestsAsHosts", FLAG(guests_as_hosts)},
    {"ReportReaderStats", FLAG(report_reader_stats)},
    {"MaxSetSize", SIZE(max_set_size)},
    {"MaxQueueSize", SIZE(max_queue_size)},
    {"UserField", ZVM_OPTION_STRING, opt_userfield, 0, NULL},
    {"OneValuePerList", FLAG(one_value_per_list)},
    {"CombinedUserValues", ZVM_OPTION_BOOLEAN, opt_combined, 0, NULL},
    {"NotifyLogon", NOTIFY(LOGON)},
    {"NotifyLogoff", NOTIFY(LOGOFF)},
    {"NotifyMultithreading", NOTIFY(MULTITHREADING)},
    {"NotifyOverflow", NOTIFY(OVERFLOW)},
    {"NotifyDiscard", NOTIFY(DISCARD)},
    {"NotifyDevice", NOTIFY(DEVICE)},
    {"LeapSecondOffset", ZVM_OPTION_STRING_OR_NUMBER, opt_leap, 0, NULL},
    {"ReportByVirtualCPU", FLAG(report_by_virtual_cpu)},
    {"ApplDataInstancesPerGuest", ZVM_OPTION_NUMBER, opt_guest_instances,
     MEMBER(guest_instances_max), &guest_instances_rule},
};

const struct zvm_option *zvm_conf_options(size_t *n) {
  *n = ZVM_COUNT_OF(options);
  return options;
}

const struct zvm_option *zvm_conf_option(struct zvm_conf *c, const char *key,
                                         void **target) {
  const struct zvm_option *o =
      zvm_option_find(options, ZVM_COUNT_OF(options), key);
  if (o != NULL) {
    *target = c;
    return o;
  }
  return zvm_registry_option(c->records, key, target);
}

/* Whether a record of domain has options given (records.h). */
static bool record_options_given(const struct zvm_conf *c, unsigned domain) {
  for (size_t i = 0; i < zvm_registry_count(c->records); i++) {
    const struct zvm_record_desc *d = zvm_registry_at(c->records, i);
    if (d->domain == domain && d->options != NULL &&
        d->options->given != NULL && d->hook_data != NULL &&
        d->options->given(d->hook_data))
      return true;
  }
  return false;
}

int zvm_conf_check(const struct zvm_conf *c, char *err, size_t err_size) {
  if (!c->one_value_per_list && c->userfields_num > 0)
    return zvm_format_error(
        err, err_size,
        "UserField selects values only with \"OneValuePerList "
        "true\" (one value per list): a guest's value list has "
        "a fixed set of data sources; add OneValuePerList true "
        "or remove UserField");
  if ((c->guest_instances_given ||
       record_options_given(c, ZVM_DOMAIN_APPLDATA)) &&
      !(c->domains & ZVM_DOMAIN_BIT(ZVM_DOMAIN_APPLDATA)))
    return zvm_format_error(
        err, err_size,
        "ApplDataKinds/ApplDataNaming/ApplDataInstancesPerGuest configure "
        "Linux guests' records "
        "(domain 10), which no Domain option selects: add Domain "
        "\"appldata\" or remove them");
  return 0;
}

bool zvm_conf_user_selected(const struct zvm_conf *c, const char *userid) {
  return zvm_select_match(&c->userids, userid);
}

bool zvm_conf_userfield_selected(const struct zvm_conf *c,
                                 const char *type_instance, const char *field) {
  if (c->userfields_num == 0)
    return true;
  for (size_t i = 0; i < c->userfields_num; i++)
    if (strcasecmp(c->userfields[i], type_instance) == 0 ||
        (field != NULL && strcasecmp(c->userfields[i], field) == 0))
      return true;
  return false;
}
