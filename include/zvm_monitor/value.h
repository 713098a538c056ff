/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the words the core and its front ends share: a value's
 * kind and one value of a list, and the kinds and severities of
 * notifications. The mapper hands these out (mapper.h), the configuration
 * switches notifications by kind (conf.h), and records' hooks produce them
 * (engine/hooks.h); no front end's identifiers.
 */
#ifndef ZVM_MONITOR_VALUE_H
#define ZVM_MONITOR_VALUE_H

#include <stdint.h>

#define ZVM_NOTIF_MSG_MAX 256 /* collectd's NOTIF_MAX_MSG_LEN */

enum zvm_notif_severity { ZVM_NOTIF_OKAY, ZVM_NOTIF_WARNING };

/* Kinds of notification, each switched by an option Notify<Kind>
 * (conf.h). A record's hooks name the kind they send (notify_kind); hooks
 * that send none say ZVM_NOTIFY_NONE, and a notification of that kind (a
 * kind left unset) is never dispatched. */
enum zvm_notify_kind {
  ZVM_NOTIFY_NONE = 0,       /* no notifications: none is dispatched */
  ZVM_NOTIFY_MULTITHREADING, /* D5R21: start/end of an MT change */
  ZVM_NOTIFY_LOGON,          /* D4R1: a guest logged on */
  ZVM_NOTIFY_LOGOFF,         /* D4R2: a guest logged off */
  ZVM_NOTIFY_OVERFLOW,       /* EOVERFLOW episodes (events.h) */
  ZVM_NOTIFY_DISCARD,        /* discarded data sets (events.h) */
  ZVM_NOTIFY_DEVICE,         /* device trouble (events.h) */
  ZVM_NOTIFY_KINDS
};

enum zvm_value_kind { ZVM_VALUE_DERIVE, ZVM_VALUE_GAUGE };

/* One value of a value list, in its layout's data-source order. */
struct zvm_value_item {
  enum zvm_value_kind kind;
  int64_t derive;
  double gauge;
};

/* The name of a value list a record's hooks name themselves, not a
 * layout's fields (APPLDATA: what a Linux guest measures of itself, in the
 * words the guest's own tools use), in no front end's terms: which family
 * of measures, which member of it, what is measured and which part of it,
 * and the name of each item. The instance it belongs to (the guest) is the
 * value's. A front end's naming module makes its identifiers from these
 * (collectd's: plugin/mapper/cdname.c). */
#define ZVM_LIST_ITEMS_MAX 4
struct zvm_list_name {
  const char *family; /* "cpu", "memory", "df", "interface", "processes" */
  const char *member; /* which of the family: a CPU's number ("2"), a mount
                         point ("var-log"), "sum"; "" for the whole */
  const char *metric; /* what is measured: "cpu" (jiffies), "memory"
                         (bytes), "if_octets", "load" */
  const char *label;  /* which part of it: "user", "free"; "" for none */
  const char *const *item_names; /* one per item: "value"; "rx", "tx" */
};

#endif /* ZVM_MONITOR_VALUE_H */
