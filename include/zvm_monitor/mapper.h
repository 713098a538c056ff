/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - metric mapper: decoded records -> collectd identifiers.
 *
 * No collectd headers and no I/O. One read callback is one "pass":
 *
 *   zvm_mapper_add_set(m, set, len);    for every complete data set
 *   zvm_mapper_finish(m, now_us, stats);
 *   while (zvm_mapper_next_value(m, &it, &v))   dispatch them
 *   notifs = zvm_mapper_notifications(m, &k);
 *
 * Values are produced one by one from the records the pass kept (one per
 * user), not stored: a pass with 10,000 guests yields 480,000 values, and
 * neither their memory nor their formatting is paid for up front.
 *
 * Within a pass only the latest record per identifier group (a user for
 * D4R10; a CPU type, or "system", for D5R21), in stream order, is used.
 * Its values are stamped with its record's time if that is after the last
 * time emitted for the group, else with its set's arrival time or the
 * last time + 1 us (timerule.h), and counted: collectd never sees a value
 * twice or out of order, and no value is dropped for its time stamp.
 */
#ifndef ZVM_MONITOR_MAPPER_H
#define ZVM_MONITOR_MAPPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/conf.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/health.h"
#include "zvm_monitor/records.h"
#include "zvm_monitor/recwalk.h"
#include "zvm_monitor/value.h"

/* Longest host/plugin_instance/type_instance the mapper produces, with the
 * NUL; well below collectd's DATA_MAX_NAME_LEN (128). */
#define ZVM_ID_MAX 64

/* A user ID not seen for this long is forgotten (its transaction counter
 * starts again at 0 if it comes back); the table is swept at most once
 * per ZVM_MAPPER_SWEEP_US. */
#define ZVM_MAPPER_EXPIRE_US (UINT64_C(24) * 3600 * 1000000)
#define ZVM_MAPPER_SWEEP_US (UINT64_C(3600) * 1000000)
/* Upper bound on instances of z/VM's own records tracked at once (D4R10
 * user IDs, D5R21 CPU types, <Record> instances: a memory bound against a
 * hostile stream); records of further ones are dropped and counted. */
#define ZVM_MAPPER_MAX_USERS 65536
/* Instances guests name themselves (APPLDATA: a guest's record kinds,
 * mount points, processes; hooks.h guest_dropped) have a pool of their
 * own, so they never take the room of the monitor's records; a guest
 * holds at most ApplDataInstancesPerGuest of them. The last
 * ZVM_MAPPER_GUEST_RESERVE places of the pool go only to a guest holding
 * fewer than ZVM_MAPPER_GUEST_RESERVE_BELOW instances: guests at their
 * cap cannot leave a guest that logs on later without room for its
 * ordinary records. Such an instance not seen for ZVM_MAPPER_GUEST_EXPIRE_US
 * is forgotten (mount points and processes come and go). */
#define ZVM_MAPPER_MAX_GUEST_INSTANCES 65536
#define ZVM_MAPPER_GUEST_RESERVE 8192
#define ZVM_MAPPER_GUEST_RESERVE_BELOW 64
#define ZVM_MAPPER_GUEST_EXPIRE_US (UINT64_C(3600) * 1000000)

/* The type of a user's value list (the default; D4R10's main layout
 * type): its data sources, in this order, are "transactions" and then
 * every D4R10 value in record-table order, as in
 * contrib/zvm_monitor.types.db. */
#define ZVM_MAPPER_COMBINED_TYPE "zvm_useite"

/* The strings belong to the mapper (or are static) and stay valid until the
 * next zvm_mapper_add_set() or zvm_mapper_finish() call; each is shorter
 * than ZVM_ID_MAX, except the plugin instance of a list a hook names
 * (APPLDATA with ApplDataNaming zvm_monitor), which is shorter than 128
 * bytes (collectd's DATA_MAX_NAME_LEN; cdname.c). */
struct zvm_value {
  /* What was decoded, in no front end's terms (a second front end, e.g.
   * an exporter, needs nothing else): the record's descriptor (NULL for
   * the source's health), the layout of the instance (its data sources
   * name a list's items: zvm_layout_data_sources()), the instance's name
   * ("LINUX01", "ifl", "system"; "reader" for the health counters; every
   * part of its key, whatever GuestsAsHosts says), and for one value its
   * field's data source name (NULL for a list). The kind, time and
   * value(s) follow below. The lists a record's hooks name themselves
   * (APPLDATA: a guest's own measures) are named by list instead (value.h:
   * family, member, metric, label and the items' names; field NULL, the
   * layout's data sources do not name them); list is NULL for every other
   * value, and valid as items is. */
  const struct zvm_record_desc *record;
  const struct zvm_layout *layout;
  const char *instance;
  const char *field;
  const struct zvm_list_name *list;
  /* The same as collectd identifiers (the naming contract; made by the
   * mapper's naming module, plugin/mapper/cdname.c, from the above): */
  const char *host;   /* "" = the daemon's Hostname */
  const char *plugin; /* NULL = "zvm_monitor" */
  const char *plugin_instance;
  const char *type; /* a types.db type */
  const char *type_instance;
  enum zvm_value_kind kind;
  int64_t derive;   /* kind == ZVM_VALUE_DERIVE */
  double gauge;     /* kind == ZVM_VALUE_GAUGE */
  uint64_t time_us; /* microseconds since the epoch; 0 = now */
  /* nitems > 0: a value list of nitems values (one list per instance,
   * the default; kind, derive and gauge are then unused). items is
   * valid until the next zvm_mapper_next_value() call. */
  size_t nitems;
  const struct zvm_value_item *items;
};

struct zvm_notification {
  /* What happened, in no front end's terms: the record whose hooks sent
   * it, its kind (the option Notify<Kind> switches it), severity and time
   * (the record's TOD), the instance it is about ("system", "LINUX01": its
   * whole key, whatever GuestsAsHosts says) and the message. */
  const struct zvm_record_desc *record;
  enum zvm_notify_kind kind;
  enum zvm_notif_severity severity;
  uint64_t time_us;
  char instance[ZVM_ID_MAX];
  char message[ZVM_NOTIF_MSG_MAX];
  /* The same as collectd identifiers (the naming contract; plugin
   * "zvm_monitor"): */
  char host[ZVM_ID_MAX]; /* "" = the daemon's Hostname */
  char plugin_instance[ZVM_ID_MAX];
  const char *type;          /* a static string */
  const char *type_instance; /* a static string, "" for none */
};

/* Where the leap-second offset of the last pass came from. */
enum zvm_leap_method {
  ZVM_LEAP_CONFIGURED = 0, /* LeapSecondOffset N */
  ZVM_LEAP_CLOCKS,         /* auto: TOD clock against CLOCK_REALTIME */
  ZVM_LEAP_ARRIVAL,        /* auto: record times against arrival times */
};

/* A record instance dispatched at another time than its record's: the
 * first of a pass, for the glue's log line. */
struct zvm_restamp_note {
  char what[ZVM_ID_MAX]; /* "LINUX001", "ifl", "system" */
  uint64_t record_us;    /* its record's time (UTC) */
  uint64_t last_us;      /* the identifier's last dispatched time */
  uint64_t stamped_us;   /* the time dispatched */
  bool arrival;          /* stamped_us is its set's arrival time, else
                            last_us + ZVM_TIME_STEP_US */
};

/* A guest whose instances were refused (the first of a pass): its user
 * ID (escaped as in identifiers), how many it holds, and, if the pool was
 * full, the guest holding the most. */
struct zvm_guest_note {
  char guest[ZVM_NAME_MAX];
  uint64_t held;
  uint64_t limit;         /* ApplDataInstancesPerGuest */
  bool pool_full;         /* refused for the pool, not for the guest's cap */
  char top[ZVM_NAME_MAX]; /* pool_full: the guest holding the most */
  uint64_t top_held;
  const char *counter; /* the counter, "appldata_dropped" */
};

/* What the mapper itself counted since start (for the glue's log). */
struct zvm_mapper_stats {
  uint64_t users_tracked; /* user IDs currently in the table */
  uint64_t users_dropped; /* records dropped: table full or no memory */
  uint64_t users_expired; /* user IDs forgotten after ZVM_MAPPER_EXPIRE_US */
  uint64_t no_userid;     /* D4R10 records with a blank user ID */
  /* Instances guests name themselves (mapper.h, ZVM_MAPPER_MAX_GUEST_
   * INSTANCES): held now; records refused since start (in the hooks'
   * counter, total_objects-appldata_dropped) and in the last pass, with
   * the first refused guest of the pass. */
  uint64_t guest_tracked;
  uint64_t guest_dropped;
  uint64_t pass_guest_dropped;
  struct zvm_guest_note first_guest_drop; /* valid if pass_guest_dropped */
  /* total_objects-restamped: record instances (a guest, a CPU type, the
   * system part of D5R21) whose values of a pass were not stamped with
   * their record's time (the man page's time rule). */
  uint64_t restamped;
  /* total_objects-time_future: record instances whose record time was
   * more than ZVM_TIME_AHEAD_MAX_US after their set's arrival time (a
   * TOD glitch, a damaged record): stamped with the arrival time instead
   * (timerule.h), not counted in restamped. */
  uint64_t time_future;
  /* The last pass: instances dispatched with a record time and how many
   * of them were restamped, the first of those, and the offset used. */
  uint64_t pass_timed;
  uint64_t pass_restamped;
  struct zvm_restamp_note first_restamp; /* valid if pass_restamped > 0 */
  uint64_t pass_future;
  struct zvm_restamp_note first_future; /* valid if pass_future > 0 */
  uint64_t leap_us;
  enum zvm_leap_method leap_method;
};

struct zvm_mapper;

/* conf must outlive the mapper. NULL if out of memory. */
struct zvm_mapper *zvm_mapper_create(const struct zvm_conf *conf);
void zvm_mapper_destroy(struct zvm_mapper *m);
/* Back to the state zvm_mapper_create() left it in, its memory kept (the
 * entity table's buckets, the output's arrays and text): no instance
 * tracked, no pass under way, no notification, every counter, statistic,
 * hook state and the leap-second estimate at zero; a clock leap set with
 * zvm_mapper_set_clock_leap() is forgotten. For whoever maps independent
 * streams one after another (capture files, test inputs) with one
 * configuration. What create built from the configuration (the layouts of
 * the records: Records, OneValuePerList, UserField, ReportByVirtualCPU)
 * stays as built; the options a pass reads (Domain, UserID,
 * GuestsAsHosts, LeapSecondOffset, Notify*, ReportReaderStats) are read
 * afresh, as by a new mapper. */
void zvm_mapper_reset(struct zvm_mapper *m);

/* Decode a complete data set (bytes up to its 0-byte read) with the
 * configured Domain mask and remember what it contributes to this pass.
 * The bytes need not stay valid after the call. */
void zvm_mapper_add_set(struct zvm_mapper *m, const uint8_t *set, size_t len);
/* The same for a set that arrived at arrival_us (struct zvm_qset): the
 * time rules use it (man page, "AGGREGATION AND TIME STAMPS"); add_set is
 * arrival time 0 (unknown: no restamping with it, TODs taken in their first
 * epoch). */
void zvm_mapper_add_set_at(struct zvm_mapper *m, const uint8_t *set, size_t len,
                           uint64_t arrival_us);

/* LeapSecondOffset auto: the offset found from the clocks (the glue reads
 * the TOD clock where it can, on s390x); known false: none could be read,
 * the mapper estimates it from arrival times (timerule.h). */
void zvm_mapper_set_clock_leap(struct zvm_mapper *m, bool known,
                               uint64_t leap_us);

/* The value-list types of every record of the configuration (built-in
 * and <Record> blocks), for plugin_register_data_set at start-up: one
 * layout per type, in registry order. */
size_t zvm_mapper_type_count(const struct zvm_mapper *m);
const struct zvm_layout *zvm_mapper_type_at(const struct zvm_mapper *m,
                                            size_t i);

/* End the pass: build the values to dispatch. now_us is the wall clock
 * (user expiry); rs the source's counters (NULL: none). Returns 0, or -1
 * if out of memory (the pass's values are then lost, state is kept). */
int zvm_mapper_finish(struct zvm_mapper *m, uint64_t now_us,
                      const struct zvm_source_health *rs);

/* Iterating the pass's values: start with ZVM_VALUE_ITER_INIT; each call
 * fills *v with the next value and returns true, or returns false after
 * the last one. The output is valid until the next add_set or finish
 * call; iterating it again from the start yields the same values. */
struct zvm_value_iter {
  size_t fixed; /* next reader / D5R21 value */
  size_t user;  /* next user with values in this pass */
  size_t value; /* next value of that user */
};
#define ZVM_VALUE_ITER_INIT                                                    \
  { 0, 0, 0 }
bool zvm_mapper_next_value(struct zvm_mapper *m, struct zvm_value_iter *it,
                           struct zvm_value *v);

const struct zvm_notification *
zvm_mapper_notifications(const struct zvm_mapper *m, size_t *n);

const struct zvm_mapper_stats *zvm_mapper_get_stats(const struct zvm_mapper *m);

/* Decoder counts summed over all sets since start. */
const struct zvm_decode_stats *
zvm_mapper_decode_stats(const struct zvm_mapper *m);

#endif /* ZVM_MONITOR_MAPPER_H */
