/*
 * zvm_monitor - configuration values: validation and UserID selection.
 * No collectd headers (see conf.h).
 */
#include "zvm_monitor/conf.h"
#include "zvm_monitor/builtin.h"

#include "appldata/appldata.h"

#include <ctype.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The options: the one place that spells their names. */
enum option_id {
  OPT_DEVICE,
  OPT_DOMAIN,
  OPT_USERID,
  OPT_IGNORE_SELECTED,
  OPT_GUESTS_AS_HOSTS,
  OPT_REPORT_READER_STATS,
  OPT_MAX_SET_SIZE,
  OPT_MAX_QUEUE_SIZE,
  OPT_USER_FIELD,
  OPT_ONE_VALUE_PER_LIST,
  OPT_COMBINED_USER_VALUES,
  OPT_NOTIFY_LOGON,
  OPT_NOTIFY_LOGOFF,
  OPT_NOTIFY_MULTITHREADING,
  OPT_NOTIFY_OVERFLOW,
  OPT_NOTIFY_DISCARD,
  OPT_NOTIFY_DEVICE,
  OPT_LEAP_SECOND_OFFSET,
  OPT_REPORT_BY_VIRTUAL_CPU,
  OPT_APPLDATA_KINDS,
  OPT_APPLDATA_NAMING,
};

static const struct option {
  const char *key;
  enum zvm_conf_kind kind;
  enum option_id id;
} options[] = {
    {"Device", ZVM_CONF_STRING, OPT_DEVICE},
    {"Domain", ZVM_CONF_STRING_OR_NUMBER, OPT_DOMAIN},
    {"UserID", ZVM_CONF_STRING, OPT_USERID},
    {"IgnoreSelected", ZVM_CONF_BOOLEAN, OPT_IGNORE_SELECTED},
    {"GuestsAsHosts", ZVM_CONF_BOOLEAN, OPT_GUESTS_AS_HOSTS},
    {"ReportReaderStats", ZVM_CONF_BOOLEAN, OPT_REPORT_READER_STATS},
    {"MaxSetSize", ZVM_CONF_NUMBER, OPT_MAX_SET_SIZE},
    {"MaxQueueSize", ZVM_CONF_NUMBER, OPT_MAX_QUEUE_SIZE},
    {"UserField", ZVM_CONF_STRING, OPT_USER_FIELD},
    {"OneValuePerList", ZVM_CONF_BOOLEAN, OPT_ONE_VALUE_PER_LIST},
    /* The first release's opt-in to one list per guest, now the default:
     * "CombinedUserValues false" means "OneValuePerList true". */
    {"CombinedUserValues", ZVM_CONF_BOOLEAN, OPT_COMBINED_USER_VALUES},
    {"NotifyLogon", ZVM_CONF_BOOLEAN, OPT_NOTIFY_LOGON},
    {"NotifyLogoff", ZVM_CONF_BOOLEAN, OPT_NOTIFY_LOGOFF},
    {"NotifyMultithreading", ZVM_CONF_BOOLEAN, OPT_NOTIFY_MULTITHREADING},
    {"NotifyOverflow", ZVM_CONF_BOOLEAN, OPT_NOTIFY_OVERFLOW},
    {"NotifyDiscard", ZVM_CONF_BOOLEAN, OPT_NOTIFY_DISCARD},
    {"NotifyDevice", ZVM_CONF_BOOLEAN, OPT_NOTIFY_DEVICE},
    {"LeapSecondOffset", ZVM_CONF_STRING_OR_NUMBER, OPT_LEAP_SECOND_OFFSET},
    {"ReportByVirtualCPU", ZVM_CONF_BOOLEAN, OPT_REPORT_BY_VIRTUAL_CPU},
    {"ApplDataKinds", ZVM_CONF_STRING, OPT_APPLDATA_KINDS},
    {"ApplDataNaming", ZVM_CONF_STRING, OPT_APPLDATA_NAMING},
};

static void free_desc_copy(const struct zvm_record_desc *d) { free((void *)d); }

/* The D10R2 descriptor with this configuration's APPLDATA options as its
 * hooks' data (the built-in table has none: defaults). */
static int appldata_register(struct zvm_conf *c) {
  *c->appldata = (struct zvm_apl_options){.kinds = ZVM_APL_KINDS_DEFAULT};
  struct zvm_record_desc *d = malloc(sizeof(*d));
  if (d == NULL)
    return -1;
  *d = zvm_rec_aplsdt;
  d->hook_data = c->appldata;
  return zvm_registry_add(c->records, d, true, free_desc_copy, NULL, 0);
}

static int add_appldata_kind(struct zvm_conf *c, const char *value, char *err,
                             size_t err_size) {
  enum zvm_apl_kind k = zvm_apl_kind_from_name(value);
  if (k == ZVM_APL_UNKNOWN)
    return zvm_format_error(
        err, err_size,
        "ApplDataKinds \"%s\": not a kind (os, mem, net_sum, "
        "fsstat, procd_sum, procd_task)",
        value);
  if (!c->appldata_kinds_given)
    c->appldata->kinds = 0;
  c->appldata_kinds_given = true;
  c->appldata->kinds |= ZVM_APL_KIND_BIT(k);
  return 0;
}

static int set_appldata_naming(struct zvm_conf *c, const char *value, char *err,
                               size_t err_size) {
  if (strcasecmp(value, "collectd") == 0)
    c->appldata->zvm_naming = false;
  else if (strcasecmp(value, "zvm_monitor") == 0)
    c->appldata->zvm_naming = true;
  else
    return zvm_format_error(err, err_size,
                            "ApplDataNaming \"%s\": must be \"collectd\" or "
                            "\"zvm_monitor\"",
                            value);
  c->appldata_naming_given = true;
  return 0;
}

int zvm_conf_init(struct zvm_conf *c) {
  *c = (struct zvm_conf){
      .domains = ZVM_DOMAINS_ALL,
      .report_reader_stats = true,
      .max_set_size = ZVM_CONF_DEFAULT_MAX_SET_SIZE,
      .max_queue_size = ZVM_CONF_DEFAULT_MAX_QUEUE_SIZE,
      .leap_auto = true,
  };
  for (int k = 0; k < ZVM_NOTIFY_KINDS; k++)
    c->notify[k] = true;
  c->device = strdup(ZVM_CONF_DEFAULT_DEVICE);
  c->records = zvm_registry_create();
  c->appldata = calloc(1, sizeof(*c->appldata));
  if (c->device == NULL || c->records == NULL || c->appldata == NULL ||
      zvm_registry_add_builtins(c->records) != 0 || appldata_register(c) != 0) {
    zvm_conf_free(c);
    return -1;
  }
  return 0;
}

void zvm_conf_free(struct zvm_conf *c) {
  if (c == NULL)
    return;
  free(c->device);
  for (size_t i = 0; i < c->userids_num; i++) {
    if (c->userids[i].is_regex)
      regfree(&c->userids[i].re);
    free(c->userids[i].text);
  }
  free(c->userids);
  for (size_t i = 0; i < c->userfields_num; i++)
    free(c->userfields[i]);
  free(c->userfields);
  zvm_registry_destroy(c->records);
  free(c->appldata);
  *c = (struct zvm_conf){0};
}

static const struct option *option_find(const char *key) {
  for (size_t i = 0; key != NULL && i < sizeof(options) / sizeof(options[0]);
       i++)
    if (strcasecmp(key, options[i].key) == 0)
      return &options[i];
  return NULL;
}

enum zvm_conf_kind zvm_conf_option_kind(const char *key) {
  const struct option *o = option_find(key);
  return o != NULL ? o->kind : ZVM_CONF_UNKNOWN;
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

static int add_userid(struct zvm_conf *c, const char *value, char *err,
                      size_t err_size) {
  size_t len = strlen(value);
  struct zvm_userid_rule rule = {0};

  if (len >= 2 && value[0] == '/' && value[len - 1] == '/') {
    rule.is_regex = true;
    rule.text = strndup(value + 1, len - 2);
    if (rule.text == NULL)
      return zvm_format_error(err, err_size, "UserID: out of memory");
    if (rule.text[0] == '\0') {
      free(rule.text);
      return zvm_format_error(err, err_size,
                              "UserID \"%s\": empty regular expression", value);
    }
    int status = regcomp(&rule.re, rule.text, REG_EXTENDED | REG_NOSUB);
    if (status != 0) {
      char msg[256];
      regerror(status, &rule.re, msg, sizeof(msg));
      free(rule.text);
      return zvm_format_error(err, err_size,
                              "UserID \"%s\": bad regular expression: %s",
                              value, msg);
    }
  } else {
    /* Exact entries are compared with the blank-trimmed user ID. */
    while (len > 0 && value[len - 1] == ' ')
      len--;
    if (len == 0)
      return zvm_format_error(
          err, err_size,
          "UserID \"%s\": empty user ID (use an exact user ID "
          "or /regex/)",
          value);
    rule.text = strndup(value, len);
    if (rule.text == NULL)
      return zvm_format_error(err, err_size, "UserID: out of memory");
  }

  if (!zvm_grow(&c->userids, &c->userids_cap, c->userids_num,
                sizeof(*c->userids), 4)) {
    if (rule.is_regex)
      regfree(&rule.re);
    free(rule.text);
    return zvm_format_error(err, err_size, "UserID: out of memory");
  }
  c->userids[c->userids_num++] = rule;
  return 0;
}

/* Calls fn with every field of the layouts keyed by a user ID (name =
 * its metric) and every element of an array field (name = the element's
 * data source): what UserField may name. Stops when fn returns true, and
 * returns that. */
static bool each_user_value(const struct zvm_conf *c,
                            bool (*fn)(const struct zvm_field *f,
                                       const char *name, void *ctx),
                            void *ctx) {
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
      for (unsigned e = 0; f->count > 1 && e < f->count; e++) {
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
  if (name != f->metric || len + 1 >= NAME_LIST_SIZE)
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

bool zvm_conf_is_user_value(const struct zvm_conf *c, const char *name) {
  return name != NULL && each_user_value(c, name_equal, (void *)name);
}

static int add_userfield(struct zvm_conf *c, const char *value, char *err,
                         size_t err_size) {
  if (!zvm_conf_is_user_value(c, value)) {
    char names[NAME_LIST_SIZE] = "";
    each_user_value(c, name_list, names);
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

int zvm_conf_set_string(struct zvm_conf *c, const char *key, const char *value,
                        char *err, size_t err_size) {
  enum zvm_conf_kind kind = zvm_conf_option_kind(key);
  if (kind == ZVM_CONF_UNKNOWN)
    return zvm_format_error(err, err_size, "unknown option \"%s\"",
                            key != NULL ? key : "");
  if (kind != ZVM_CONF_STRING && kind != ZVM_CONF_STRING_OR_NUMBER)
    return zvm_format_error(err, err_size,
                            "%s: a %s value is required, not a string", key,
                            kind == ZVM_CONF_BOOLEAN ? "boolean" : "numeric");
  if (value == NULL)
    return zvm_format_error(err, err_size, "%s: missing value", key);

  switch (option_find(key)->id) {
  case OPT_DEVICE:
    return set_device(c, value, err, err_size);
  case OPT_DOMAIN:
    return add_domain(c, value, err, err_size);
  case OPT_USER_FIELD:
    return add_userfield(c, value, err, err_size);
  case OPT_LEAP_SECOND_OFFSET:
    if (strcasecmp(value, "auto") != 0)
      return zvm_format_error(err, err_size,
                              "LeapSecondOffset \"%s\": give \"auto\" or the "
                              "seconds the TOD clock is ahead of UTC (0-%d)",
                              value, ZVM_LEAP_MAX_S);
    c->leap_auto = true;
    return 0;
  case OPT_APPLDATA_KINDS:
    return add_appldata_kind(c, value, err, err_size);
  case OPT_APPLDATA_NAMING:
    return set_appldata_naming(c, value, err, err_size);
  default: /* OPT_USERID */
    return add_userid(c, value, err, err_size);
  }
}

int zvm_conf_set_boolean(struct zvm_conf *c, const char *key, bool value,
                         char *err, size_t err_size) {
  enum zvm_conf_kind kind = zvm_conf_option_kind(key);
  if (kind == ZVM_CONF_UNKNOWN)
    return zvm_format_error(err, err_size, "unknown option \"%s\"",
                            key != NULL ? key : "");
  if (kind != ZVM_CONF_BOOLEAN)
    return zvm_format_error(err, err_size, "%s: a boolean is not a valid value",
                            key);

  switch (option_find(key)->id) {
  case OPT_NOTIFY_LOGON:
    c->notify[ZVM_NOTIFY_LOGON] = value;
    break;
  case OPT_NOTIFY_LOGOFF:
    c->notify[ZVM_NOTIFY_LOGOFF] = value;
    break;
  case OPT_NOTIFY_MULTITHREADING:
    c->notify[ZVM_NOTIFY_MULTITHREADING] = value;
    break;
  case OPT_NOTIFY_OVERFLOW:
    c->notify[ZVM_NOTIFY_OVERFLOW] = value;
    break;
  case OPT_NOTIFY_DISCARD:
    c->notify[ZVM_NOTIFY_DISCARD] = value;
    break;
  case OPT_NOTIFY_DEVICE:
    c->notify[ZVM_NOTIFY_DEVICE] = value;
    break;
  case OPT_IGNORE_SELECTED:
    c->ignore_selected = value;
    break;
  case OPT_REPORT_BY_VIRTUAL_CPU:
    c->report_by_virtual_cpu = value;
    break;
  case OPT_ONE_VALUE_PER_LIST:
    c->one_value_per_list = value;
    break;
  case OPT_COMBINED_USER_VALUES:
    c->one_value_per_list = !value;
    break;
  case OPT_GUESTS_AS_HOSTS:
    c->guests_as_hosts = value;
    break;
  default: /* OPT_REPORT_READER_STATS */
    c->report_reader_stats = value;
    break;
  }
  return 0;
}

int zvm_conf_set_number(struct zvm_conf *c, const char *key, double value,
                        char *err, size_t err_size) {
  enum zvm_conf_kind kind = zvm_conf_option_kind(key);
  if (kind == ZVM_CONF_UNKNOWN)
    return zvm_format_error(err, err_size, "unknown option \"%s\"",
                            key != NULL ? key : "");
  if (kind != ZVM_CONF_NUMBER && kind != ZVM_CONF_STRING_OR_NUMBER)
    return zvm_format_error(err, err_size,
                            "%s: a %s value is required, not a number", key,
                            kind == ZVM_CONF_BOOLEAN ? "boolean" : "string");

  const struct option *o = option_find(key);
  if (o->id == OPT_DOMAIN) {
    /* Range first: NaN fails it, and the cast is then defined. */
    if (!(value >= 0 && value < ZVM_DOMAIN_COUNT) || value != (int)value)
      return zvm_format_error(err, err_size,
                              "Domain %g: a domain number must be 0-15", value);
    char name[8];
    snprintf(name, sizeof(name), "%d", (int)value);
    return add_domain(c, name, err, err_size);
  }
  if (o->id == OPT_LEAP_SECOND_OFFSET) {
    if (!(value >= 0 && value <= ZVM_LEAP_MAX_S) || value != (int)value)
      return zvm_format_error(err, err_size,
                              "LeapSecondOffset %g: must be \"auto\" or whole "
                              "seconds from 0 to %d",
                              value, ZVM_LEAP_MAX_S);
    c->leap_auto = false;
    c->leap_us = (uint64_t)value * 1000000;
    return 0;
  }

  /* MaxSetSize, MaxQueueSize */
  bool queue = o->id == OPT_MAX_QUEUE_SIZE;
  if (!(value >= (double)ZVM_CONF_MIN_SET_SIZE &&
        value <= (double)ZVM_CONF_MAX_SET_SIZE) ||
      value != (double)(uint64_t)value)
    return zvm_format_error(err, err_size,
                            "%s %g: must be a whole number of bytes from "
                            "%zu to %zu",
                            o->key, value, ZVM_CONF_MIN_SET_SIZE,
                            ZVM_CONF_MAX_SET_SIZE);
  if (queue)
    c->max_queue_size = (size_t)value;
  else
    c->max_set_size = (size_t)value;
  return 0;
}

static bool rule_matches(const struct zvm_userid_rule *r, const char *userid) {
  if (r->is_regex)
    return regexec(&r->re, userid, 0, NULL, 0) == 0;
  return strcasecmp(r->text, userid) == 0;
}

int zvm_conf_check(const struct zvm_conf *c, char *err, size_t err_size) {
  if (!c->one_value_per_list && c->userfields_num > 0)
    return zvm_format_error(
        err, err_size,
        "UserField selects values only with \"OneValuePerList "
        "true\" (one value per list): a guest's value list has "
        "a fixed set of data sources; add OneValuePerList true "
        "or remove UserField");
  if ((c->appldata_kinds_given || c->appldata_naming_given) &&
      !(c->domains & ZVM_DOMAIN_BIT(ZVM_DOMAIN_APPLDATA)))
    return zvm_format_error(
        err, err_size,
        "ApplDataKinds/ApplDataNaming configure Linux guests' records "
        "(domain 10), which no Domain option selects: add Domain "
        "\"appldata\" or remove them");
  return 0;
}

bool zvm_conf_user_selected(const struct zvm_conf *c, const char *userid) {
  if (c->userids_num == 0)
    return true;
  bool match = false;
  for (size_t i = 0; i < c->userids_num && !match; i++)
    match = rule_matches(&c->userids[i], userid);
  return c->ignore_selected ? !match : match;
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
