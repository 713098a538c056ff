/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - plugin configuration as a plain struct.
 *
 * No collectd headers: the glue walks collectd's oconfig tree, extracts each
 * option's value with cf_util_get_*, and hands it here. Everything that can
 * be wrong with a value is decided here, so it can be unit-tested without a
 * daemon. Error texts name the option and are meant for the admin's log.
 */
#ifndef ZVM_MONITOR_CONF_H
#define ZVM_MONITOR_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/option.h"
#include "base/select.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/records.h"
#include "zvm_monitor/value.h"

#define ZVM_CONF_DEFAULT_DEVICE "/dev/monreader"
#define ZVM_CONF_DEFAULT_MAX_SET_SIZE ((size_t)64 * 1024 * 1024)
/* Bytes of complete data sets waiting for the read callback (the hand-over
 * from the reader thread, zvm_monitor/setqueue.h); same allowed range. */
#define ZVM_CONF_DEFAULT_MAX_QUEUE_SIZE ((size_t)64 * 1024 * 1024)
/* A set holds at least one 4 KB frame's worth of DCSS; the monitor DCSS is
 * far below 2 GiB in practice, and a larger buffer would only hide bugs. */
#define ZVM_CONF_MIN_SET_SIZE ((size_t)4096)
#define ZVM_CONF_MAX_SET_SIZE ((size_t)2048 * 1024 * 1024)

/* ApplDataInstancesPerGuest: instances (record kinds, mount points,
 * processes) one guest's APPLDATA may hold in the mapper at once. */
#define ZVM_CONF_DEFAULT_GUEST_INSTANCES ((size_t)4096)
#define ZVM_CONF_MAX_GUEST_INSTANCES ((size_t)65536)

struct zvm_conf {
  char *device;
  zvm_domain_mask_t domains; /* handed to the decoder */
  bool domains_given;        /* first Domain option replaces "all" */
  /* UserID entries; IgnoreSelected inverts them (base/select.h). */
  struct zvm_select userids;
  bool guests_as_hosts;
  bool report_reader_stats;
  /* OneValuePerList: one value per value list (types derive/gauge/...,
   * type instance = field) instead of one list per record instance.
   * CombinedUserValues false is accepted as its older spelling. */
  bool one_value_per_list;
  /* LeapSecondOffset: "auto" (leap_auto) or seconds the TOD clock runs
   * ahead of UTC (leap_us); see timerule.h. */
  bool leap_auto;
  uint64_t leap_us;
  bool report_by_virtual_cpu; /* ReportByVirtualCPU: D4R10 per VMDBK too */
  size_t max_set_size;
  size_t max_queue_size;
  /* UserField: D4R10 values to dispatch (lower case); none = all. */
  char **userfields;
  size_t userfields_num, userfields_cap;
  /* ApplDataInstancesPerGuest (1-ZVM_CONF_MAX_GUEST_INSTANCES). */
  size_t guest_instances_max;
  bool guest_instances_given;
  bool notify[ZVM_NOTIFY_KINDS]; /* Notify<Kind>: all true by default */
  /* Record descriptors: the built-in ones, then <Record> blocks. Owned
   * (zvm_conf_init).
   * A record's own options (ApplDataKinds, ApplDataNaming of D10R2) are
   * its descriptor's (records.h: its option rows and struct). */
  struct zvm_registry *records;
};

/* The plugin's option table (option.h): one row per option of the
 * <Plugin zvm_monitor> block besides <Record> and the replay options. */
const struct zvm_option *zvm_conf_options(size_t *n);

/* The row of key: one of zvm_conf_options(), or else one of the option
 * rows of the records c holds (records.h); *target is the struct it sets
 * (c, or the record's options). NULL: an unknown option. */
const struct zvm_option *zvm_conf_option(struct zvm_conf *c, const char *key,
                                         void **target);

/* Defaults, with records: the registry of the records the configuration
 * knows, composed by the caller (the built-in ones:
 * zvm_registry_builtin(), builtin.h), which c owns from here on (also
 * when this fails); <Record> blocks add to it (recconf.h). Returns 0, or
 * -1 if out of memory (records NULL too). */
int zvm_conf_init(struct zvm_conf *c, struct zvm_registry *records);
void zvm_conf_free(struct zvm_conf *c);

/* Checks between options, once a configuration block is complete: 0, or -1
 * with a reason in err. */
int zvm_conf_check(const struct zvm_conf *c, char *err, size_t err_size);

/* Selection of a user ID as it appears in identifiers (zvm_name_format()):
 * zvm_select_match() of the UserID entries (no entries select all;
 * otherwise a user matching any entry is selected, or with IgnoreSelected
 * every user matching none). */
bool zvm_conf_user_selected(const struct zvm_conf *c, const char *userid);

/* Whether a D4R10 value with this type instance ("transactions",
 * "hfcpurn", "vmdcprmd_q0") of field metric ("vmdcprmd"; NULL for
 * transactions) is dispatched: every one without UserField entries,
 * otherwise those named by an entry, by type instance or by field. */
bool zvm_conf_userfield_selected(const struct zvm_conf *c,
                                 const char *type_instance, const char *field);

#endif /* ZVM_MONITOR_CONF_H */
