/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - collectd's identifiers from the front-end-neutral model
 * (the naming contract, man page "METRICS" and "NOTIFICATIONS"): where an
 * instance's values and notifications go (host, plugin instance), what a
 * notification of each kind is called (type, type instance), a layout's
 * value with one value per list, a list a hook names (APPLDATA: family,
 * member, metric, label), the source's health counters. The records'
 * hooks and the entity table name instances, lists and notifications in no
 * front end's terms (key parts, list names, kind); the glue copies what
 * this makes into collectd's structs. (A layout's own list type and
 * plugin are its descriptor's, records.h.)
 */
#include "mapper/mapper_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void zvm_cd_instance(const struct zvm_conf *conf, const struct lay *lay,
                     const struct zvm_key_names *kn,
                     struct zvm_cd_instance *out) {
  const struct zvm_layout *l = lay->layout;
  /* A guest's instance goes to the guest's host (GuestsAsHosts, or a
   * layout that always does, APPLDATA): the user ID names the host, the
   * rest of the key the plugin instance. */
  *out = (struct zvm_cd_instance){
      .guest_host = lay->user_key && kn->user >= 0 &&
                    (l->host == ZVM_HOST_GUEST || conf->guests_as_hosts)};
  if (out->guest_host) {
    const char *user = kn->part[kn->user];
    for (size_t i = 0; user[i] != '\0' && i + 1 < sizeof(out->host); i++)
      out->host[i] = (char)tolower((unsigned char)user[i]);
  }
  zvm_key_names_join(l, kn, out->guest_host ? kn->user : -1, out->name,
                     sizeof(out->name));
}

/* A notification's type and type instance, by kind. */
static const struct {
  const char *type, *type_instance;
} notify_names[ZVM_NOTIFY_KINDS] = {
    [ZVM_NOTIFY_NONE] = {"", ""}, /* never dispatched */
    [ZVM_NOTIFY_MULTITHREADING] = {"threads", ""},
    [ZVM_NOTIFY_LOGON] = {"session", "logon"},
    [ZVM_NOTIFY_LOGOFF] = {"session", "logoff"},
    /* The reader's episodes' names (the glue, events.h), should a
     * record's hooks send them. */
    [ZVM_NOTIFY_OVERFLOW] = {"errors", "overflow"},
    [ZVM_NOTIFY_DISCARD] = {"errors", "discard"},
    [ZVM_NOTIFY_DEVICE] = {"errors", "device"},
};

void zvm_cd_notification(struct zvm_notification *n, const char *host,
                         const char *plugin_instance) {
  unsigned k = (unsigned)n->kind < ZVM_NOTIFY_KINDS ? (unsigned)n->kind : 0;
  n->type = notify_names[k].type;
  n->type_instance = notify_names[k].type_instance;
  snprintf(n->host, sizeof(n->host), "%s", host != NULL ? host : "");
  snprintf(n->plugin_instance, sizeof(n->plugin_instance), "%s",
           plugin_instance != NULL ? plugin_instance : "");
}

/* With one value per list, a layout's value is a list of its own: type
 * "derive" for a counter, "gauge" for a gauge, or the field's own (D5R21's
 * "threads"); type instance the element's data source name, or the
 * field's own for a one-element field. */
void zvm_cd_slot(const struct zvm_field *f, enum zvm_value_kind kind,
                 const char *ds, const char **type,
                 const char **type_instance) {
  *type = f->single_type != NULL     ? f->single_type
          : kind == ZVM_VALUE_DERIVE ? "derive"
                                     : "gauge";
  *type_instance = f->count == 1 && f->single_type_instance != NULL
                       ? f->single_type_instance
                       : ds;
}

/* A list a hook named: zvm_cd_list() in mapper_int.h (inline: it runs
 * for every value of every guest), its plugin instance with ApplDataNaming
 * zvm_monitor here. */
bool zvm_cd_list_monitor(const struct zvm_hook_list *l, const char *instance,
                         char *buf, size_t size, struct zvm_cd_list *out) {
  const struct zvm_list_name *n = &l->name;
  int w = snprintf(buf, size, "%s-%s%s%s", instance, n->family,
                   n->member[0] != '\0' ? "-" : "", n->member);
  if (w < 0 || (size_t)w >= size)
    return false;
  out->daemon_host = true;
  out->plugin = NULL;
  out->plugin_instance = buf;
  return true;
}

const char *zvm_cd_health_type(enum zvm_health_class c) {
  switch (c) {
  case ZVM_HEALTH_ERRORS:
    return "errors";
  case ZVM_HEALTH_BYTES:
    return "total_bytes";
  case ZVM_HEALTH_OBJECTS:
  default:
    return "total_objects";
  }
}
