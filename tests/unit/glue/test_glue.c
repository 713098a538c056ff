/* SPDX-License-Identifier: MIT */
/*
 * collectd glue (plugin/glue/zvm_monitor.c) against a fake daemon and a fake
 * reader: registration, configuration walking and errors, logging, value
 * lists and notifications as the daemon receives them, and the reader
 * thread: it drains without any read callback, hands sets over in order
 * through the bounded queue (the real one), waits when it is full, and
 * ends at shutdown.
 *
 * The fake daemon defines the few symbols the glue uses with collectd
 * 5.12's behaviour; check-plugin-symbols.sh proves the real daemon
 * exports them.
 */
#include "collectd/core/daemon/collectd.h"

#include "collectd/core/daemon/plugin.h"
#include "collectd/core/daemon/utils_complain.h"
#include "collectd/core/utils/common/common.h"

#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "builder.h"
#include "builtin_types.h"
#include "zvm_monitor/capture.h"
#include "zvm_monitor/reader.h"

#include <fcntl.h>
#include <unistd.h>

#define SEC 1700000000u
#define US(sec, micro) ((uint64_t)(sec)*1000000u + (micro))
/* Reader counters in every read callback (the man page lists them): the
 * reader's fourteen and APPLDATA's appldata_torn, _unknown, _dropped. */
#define READER_VALUES 17

/* ------------------------------------------------------------------------
 * Fake daemon.
 */
static char hostname_buf[] = "zvmhost";
char *hostname_g = hostname_buf;

static int (*cb_config)(oconfig_item_t *);
static plugin_init_cb cb_init;
static plugin_shutdown_cb cb_shutdown;
static plugin_read_cb cb_read;
static char reg_names[4][64];
static int read_registrations;
static int dispatch_status;

/* The reader thread logs too: logs are guarded by fake_lock. */
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fake_cond = PTHREAD_COND_INITIALIZER;

#define MAX_LOGS 64
static struct {
  int level;
  char msg[1024];
} logs[MAX_LOGS];
static size_t nlogs;

/* plugin_thread_create */
static int threads_created;
static char thread_name[64];
static bool thread_done;
static void *(*thread_fn)(void *);

#define MAX_VALUES 2048
static value_list_t vls[MAX_VALUES];
static value_t vl_values[MAX_VALUES][64];
static size_t nvls;

static notification_t notifs[8];
static size_t nnotifs;

/* plugin_register_data_set: the types the plugin registered (a copy, as
 * the daemon keeps one). */
#define MAX_SETS 16
static struct {
  char type[DATA_MAX_NAME_LEN];
  size_t ds_num;
  data_source_t ds[256];
} data_sets[MAX_SETS];
static size_t nsets;

int plugin_register_data_set(const data_set_t *ds) {
  assert_true(nsets < MAX_SETS);
  assert_true(ds->ds_num >= 1 && ds->ds_num <= 256);
  sstrncpy(data_sets[nsets].type, ds->type, sizeof(data_sets[nsets].type));
  data_sets[nsets].ds_num = ds->ds_num;
  memcpy(data_sets[nsets].ds, ds->ds, ds->ds_num * sizeof(*ds->ds));
  nsets++;
  return 0;
}

/* collectd's own types as far as these tests use them. */
const data_set_t *plugin_get_ds(const char *name) {
  static data_source_t value = {"value", DS_TYPE_DERIVE, 0, NAN};
  static data_set_t derive = {"derive", 1, &value};
  return strcmp(name, "derive") == 0 ? &derive : NULL;
}

static const data_source_t *registered(const char *type, size_t *n) {
  for (size_t i = 0; i < nsets; i++)
    if (strcmp(data_sets[i].type, type) == 0) {
      *n = data_sets[i].ds_num;
      return data_sets[i].ds;
    }
  *n = 0;
  return NULL;
}

int plugin_register_complex_config(const char *type,
                                   int (*callback)(oconfig_item_t *)) {
  sstrncpy(reg_names[0], type, sizeof(reg_names[0]));
  cb_config = callback;
  return 0;
}

int plugin_register_init(const char *name, plugin_init_cb callback) {
  sstrncpy(reg_names[1], name, sizeof(reg_names[1]));
  cb_init = callback;
  return 0;
}

int plugin_register_shutdown(const char *name, plugin_shutdown_cb callback) {
  sstrncpy(reg_names[2], name, sizeof(reg_names[2]));
  cb_shutdown = callback;
  return 0;
}

int plugin_register_complex_read(const char *group, const char *name,
                                 plugin_read_cb callback, cdtime_t interval,
                                 user_data_t const *user_data) {
  (void)group;
  (void)interval;
  (void)user_data;
  sstrncpy(reg_names[3], name, sizeof(reg_names[3]));
  cb_read = callback;
  read_registrations++;
  return 0;
}

void plugin_log(int level, const char *format, ...) {
  pthread_mutex_lock(&fake_lock);
  if (nlogs < MAX_LOGS) {
    va_list ap;
    va_start(ap, format);
    vsnprintf(logs[nlogs].msg, sizeof(logs[nlogs].msg), format, ap);
    va_end(ap);
    logs[nlogs++].level = level;
    pthread_cond_broadcast(&fake_cond);
  }
  pthread_mutex_unlock(&fake_lock);
}

static void *thread_start(void *arg) {
  void *ret = thread_fn(arg);
  pthread_mutex_lock(&fake_lock);
  thread_done = true;
  pthread_mutex_unlock(&fake_lock);
  return ret;
}

/* collectd 5.12: pthread_create with the caller's plugin context, and the
 * thread named. */
int plugin_thread_create(pthread_t *thread, void *(*start_routine)(void *),
                         void *arg, char const *name) {
  threads_created++;
  sstrncpy(thread_name, name != NULL ? name : "", sizeof(thread_name));
  thread_fn = start_routine;
  thread_done = false;
  return pthread_create(thread, NULL, thread_start, arg);
}

/* collectd 5.12 semantics, reduced: complain once until released. */
void c_complain(int level, c_complain_t *c, const char *format, ...) {
  if (c->interval != 0)
    return;
  c->interval = 1;
  char msg[1024];
  va_list ap;
  va_start(ap, format);
  vsnprintf(msg, sizeof(msg), format, ap);
  va_end(ap);
  plugin_log(level, "%s", msg);
}

void c_do_release(int level, c_complain_t *c, const char *format, ...) {
  c->interval = 0;
  char msg[1024];
  va_list ap;
  va_start(ap, format);
  vsnprintf(msg, sizeof(msg), format, ap);
  va_end(ap);
  plugin_log(level, "%s", msg);
}

int plugin_dispatch_values(value_list_t const *vl) {
  if (dispatch_status != 0)
    return dispatch_status;
  assert_true(nvls < MAX_VALUES);
  assert_true(vl->values_len >= 1 && vl->values_len <= 64);
  /* A list of a type the plugin registered has its data sources; any
   * other type is a standard one of one value. */
  size_t nds;
  if (registered(vl->type, &nds) != NULL)
    assert_int_equal(vl->values_len, nds);
  else
    assert_int_equal(vl->values_len, 1);
  vls[nvls] = *vl;
  memcpy(vl_values[nvls], vl->values, vl->values_len * sizeof(value_t));
  vls[nvls].values = vl_values[nvls];
  nvls++;
  return 0;
}

int plugin_dispatch_notification(const notification_t *notif) {
  assert_true(nnotifs < 8);
  notifs[nnotifs++] = *notif;
  return 0;
}

char *sstrncpy(char *dest, const char *src, size_t n) {
  snprintf(dest, n, "%s", src);
  return dest;
}

char *sstrerror(int errnum, char *buf, size_t buflen) {
  snprintf(buf, buflen, "error %d", errnum);
  return buf;
}

static cdtime_t fake_now = TIME_T_TO_CDTIME_T(SEC + 1000);
cdtime_t cdtime(void) { return fake_now; }

/* collectd's default interval. */
cdtime_t plugin_get_interval(void) { return TIME_T_TO_CDTIME_T(10); }

static int get_value(const oconfig_item_t *ci, int type) {
  if (ci->values_num != 1 || ci->values[0].type != type) {
    plugin_log(LOG_ERR, "The %s option requires exactly one argument.",
               ci->key);
    return -1;
  }
  return 0;
}

int cf_util_get_string(const oconfig_item_t *ci, char **ret_string) {
  if (get_value(ci, OCONFIG_TYPE_STRING) != 0)
    return -1;
  *ret_string = strdup(ci->values[0].value.string);
  return *ret_string == NULL ? -1 : 0;
}

int cf_util_get_boolean(const oconfig_item_t *ci, bool *ret_bool) {
  if (get_value(ci, OCONFIG_TYPE_BOOLEAN) != 0)
    return -1;
  *ret_bool = ci->values[0].value.boolean != 0;
  return 0;
}

int cf_util_get_double(const oconfig_item_t *ci, double *ret_value) {
  if (get_value(ci, OCONFIG_TYPE_NUMBER) != 0)
    return -1;
  *ret_value = ci->values[0].value.number;
  return 0;
}

/* ------------------------------------------------------------------------
 * Fake reader, driven by the glue's reader thread: each drain hands over
 * the scripted sets (in order), logs the scripted message and returns the
 * scripted status. The test scripts under fake_lock and waits for drains
 * with sync_reader(). The reader's counters are only touched by the
 * thread (drain copies the scripted ones), as with the real reader.
 */
static struct zvm_reader { int dummy; } the_reader;
static struct zvm_reader_config reader_cfg;
static char reader_device[256];
static int reader_created, reader_destroyed;
static struct zvm_reader_stats reader_stats;
#define MAX_SCRIPT 8
static struct tb script_sets[MAX_SCRIPT];
static size_t script_nsets;
static const char *script_log;
static int script_status;
static struct zvm_reader_stats script_stats;
static unsigned long drains, waits;
static long first_drain_delay_ms; /* a slow first drain (device open) */
static bool draining_after_shutdown;
static int reader_stops;   /* zvm_reader_stop() calls */
static bool drain_blocks;  /* a drain waits until this is false again */
static bool drain_blocked; /* ... and is waiting now */

struct zvm_reader *zvm_reader_create(const struct zvm_reader_config *cfg) {
  reader_cfg = *cfg;
  sstrncpy(reader_device, cfg->device, sizeof(reader_device));
  reader_created++;
  return &the_reader;
}

void zvm_reader_destroy(struct zvm_reader *r) {
  assert_ptr_equal(r, &the_reader);
  pthread_mutex_lock(&fake_lock);
  /* The thread must be gone before the reader is. */
  if (!thread_done && threads_created > 0)
    draining_after_shutdown = true;
  reader_destroyed++;
  pthread_mutex_unlock(&fake_lock);
}

void zvm_reader_stop(struct zvm_reader *r) {
  assert_ptr_equal(r, &the_reader);
  pthread_mutex_lock(&fake_lock);
  reader_stops++;
  pthread_mutex_unlock(&fake_lock);
}

int zvm_reader_wait(struct zvm_reader *r, int timeout_ms) {
  assert_ptr_equal(r, &the_reader);
  (void)timeout_ms;
  pthread_mutex_lock(&fake_lock);
  waits++;
  pthread_mutex_unlock(&fake_lock);
  struct timespec ts = {0, 1000000}; /* 1 ms: the test's "device" */
  nanosleep(&ts, NULL);
  return 1;
}

int zvm_reader_drain(struct zvm_reader *r, zvm_set_fn fn, void *ctx) {
  assert_ptr_equal(r, &the_reader);
  struct tb sets[MAX_SCRIPT];
  pthread_mutex_lock(&fake_lock);
  long delay = drains == 0 ? first_drain_delay_ms : 0;
  pthread_mutex_unlock(&fake_lock);
  if (delay > 0) {
    struct timespec ts = {delay / 1000, (delay % 1000) * 1000000L};
    nanosleep(&ts, NULL);
  }
  pthread_mutex_lock(&fake_lock);
  /* A read() that blocks although the device is non-blocking. */
  while (drain_blocks) {
    drain_blocked = true;
    pthread_cond_broadcast(&fake_cond);
    pthread_cond_wait(&fake_cond, &fake_lock);
  }
  drain_blocked = false;
  if (reader_destroyed > 0 && reader_destroyed >= reader_created)
    draining_after_shutdown = true;
  size_t n = script_nsets;
  memcpy(sets, script_sets, n * sizeof(sets[0]));
  script_nsets = 0;
  const char *msg = script_log;
  int status = script_status;
  reader_stats = script_stats;
  pthread_mutex_unlock(&fake_lock);

  if (msg != NULL)
    reader_cfg.log(ZVM_LOG_ERR, msg, reader_cfg.log_ctx);
  for (size_t i = 0; i < n; i++) {
    fn(sets[i].data, sets[i].len, ctx);
    tb_free(&sets[i]);
  }

  pthread_mutex_lock(&fake_lock);
  drains++;
  pthread_cond_broadcast(&fake_cond);
  pthread_mutex_unlock(&fake_lock);
  return status;
}

const struct zvm_reader_stats *
zvm_reader_get_stats(const struct zvm_reader *r) {
  assert_ptr_equal(r, &the_reader);
  return &reader_stats;
}

/* Hand a set (moved out of *set) to the next drain. */
static void script_set_add(struct tb *set) {
  pthread_mutex_lock(&fake_lock);
  assert_true(script_nsets < MAX_SCRIPT);
  script_sets[script_nsets++] = *set;
  pthread_mutex_unlock(&fake_lock);
  tb_init(set);
}

static void script(const char *log, int status,
                   const struct zvm_reader_stats *stats) {
  pthread_mutex_lock(&fake_lock);
  script_log = log;
  script_status = status;
  if (stats != NULL)
    script_stats = *stats;
  pthread_mutex_unlock(&fake_lock);
}

static bool wait_cond(bool (*pred)(void *), void *arg) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 10;
  pthread_mutex_lock(&fake_lock);
  bool ok = true;
  while (!pred(arg) && ok)
    ok = pthread_cond_timedwait(&fake_cond, &fake_lock, &until) == 0;
  ok = pred(arg);
  pthread_mutex_unlock(&fake_lock);
  return ok;
}

static bool drains_reached(void *arg) {
  return drains >= *(unsigned long *)arg;
}

/* Until two more drains have ended: everything scripted before was handed
 * over by a complete drain, and its counters were published. */
static void sync_reader(void) {
  pthread_mutex_lock(&fake_lock);
  unsigned long target = drains + 2;
  pthread_mutex_unlock(&fake_lock);
  if (!wait_cond(drains_reached, &target))
    fail_msg("the reader thread did not drain within 10 s");
}

/* ------------------------------------------------------------------------
 * Helpers.
 */
static int setup(void **state) {
  (void)state;
  cb_config = NULL;
  cb_init = NULL;
  cb_shutdown = NULL;
  cb_read = NULL;
  memset(reg_names, 0, sizeof(reg_names));
  read_registrations = 0;
  dispatch_status = 0;
  nlogs = nvls = nnotifs = nsets = 0;
  reader_created = reader_destroyed = 0;
  memset(&reader_stats, 0, sizeof(reader_stats));
  memset(&script_stats, 0, sizeof(script_stats));
  script_nsets = 0;
  script_log = NULL;
  script_status = 0;
  drains = waits = 0;
  first_drain_delay_ms = 0;
  threads_created = 0;
  thread_done = false;
  draining_after_shutdown = false;
  reader_stops = 0;
  drain_blocks = drain_blocked = false;
  fake_now = TIME_T_TO_CDTIME_T(SEC + 1000);
  module_register();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  assert_non_null(cb_shutdown);
  assert_int_equal(cb_shutdown(), 0);
  assert_int_equal(reader_destroyed, reader_created);
  /* Shutdown joined the thread before the reader went away. */
  if (threads_created > 0)
    assert_true(thread_done);
  assert_false(draining_after_shutdown);
  for (size_t i = 0; i < script_nsets; i++)
    tb_free(&script_sets[i]);
  /* Whatever was logged carries the plugin's prefix. */
  for (size_t i = 0; i < nlogs; i++)
    if (strncmp(logs[i].msg, "zvm_monitor plugin: ", 20) != 0 &&
        strncmp(logs[i].msg, "The ", 4) != 0) /* the fake cf_util's own */
      fail_msg("log line without prefix: %s", logs[i].msg);
  return 0;
}

/* A config block built by hand, as liboconfig would. */
struct cfg {
  oconfig_item_t root;
  oconfig_item_t items[16];
  oconfig_value_t values[16][2];
};

static void cfg_init(struct cfg *c) {
  memset(c, 0, sizeof(*c));
  c->root.key = "Plugin";
  c->root.children = c->items;
}

static oconfig_item_t *cfg_item(struct cfg *c, const char *key) {
  int i = c->root.children_num++;
  c->items[i].key = (char *)key;
  c->items[i].values = c->values[i];
  c->items[i].values_num = 1;
  c->items[i].parent = &c->root;
  return &c->items[i];
}

static void cfg_string(struct cfg *c, const char *key, const char *v) {
  oconfig_item_t *it = cfg_item(c, key);
  it->values[0].type = OCONFIG_TYPE_STRING;
  it->values[0].value.string = (char *)v;
}

static void cfg_number(struct cfg *c, const char *key, double v) {
  oconfig_item_t *it = cfg_item(c, key);
  it->values[0].type = OCONFIG_TYPE_NUMBER;
  it->values[0].value.number = v;
}

static void cfg_bool(struct cfg *c, const char *key, bool v) {
  oconfig_item_t *it = cfg_item(c, key);
  it->values[0].type = OCONFIG_TYPE_BOOLEAN;
  it->values[0].value.boolean = v;
}

static const value_list_t *find_vl(const char *host, const char *pi,
                                   const char *type, const char *ti) {
  const value_list_t *hit = NULL;
  for (size_t i = 0; i < nvls; i++)
    if (strcmp(vls[i].host, host) == 0 &&
        strcmp(vls[i].plugin_instance, pi) == 0 &&
        strcmp(vls[i].type, type) == 0 &&
        strcmp(vls[i].type_instance, ti) == 0) {
      assert_null(hit);
      hit = &vls[i];
    }
  if (hit == NULL)
    fail_msg("no value list %s/%s/%s-%s", host, pi, type, ti);
  assert_string_equal(hit->plugin, "zvm_monitor");
  return hit;
}

static bool logged(int level, const char *text) {
  bool found = false;
  pthread_mutex_lock(&fake_lock);
  for (size_t i = 0; i < nlogs && !found; i++)
    found = logs[i].level == level && strstr(logs[i].msg, text) != NULL;
  pthread_mutex_unlock(&fake_lock);
  return found;
}

static size_t count_vls(const char *pi, const char *type, const char *ti) {
  size_t n = 0;
  for (size_t i = 0; i < nvls; i++)
    if (strcmp(vls[i].plugin_instance, pi) == 0 &&
        strcmp(vls[i].type, type) == 0 && strcmp(vls[i].type_instance, ti) == 0)
      n++;
  return n;
}

/* A data set with one D4R10 record per user and one D5R21 start record. */
static void script_users(const char *const *users, size_t n, uint64_t tod) {
  struct tb rs;
  tb_init(&rs);
  for (size_t i = 0; i < n; i++) {
    size_t rec = tb_record(&rs, 200, 4, 10, tod);
    tb_put_ebcdic(&rs, rec + 20, users[i], 8);
    tb_put_u32(&rs, rec + 116, 0x80000000u + (uint32_t)i); /* HFCPURN */
    tb_put_u16(&rs, rec + 30, 0xFFFF);                     /* VMDSLCNT */
    tb_put_u8(&rs, rec + 47, 0x80); /* CALFLAG1: CALBASE */
  }
  size_t rec = tb_record(&rs, 44, 5, 21, tod + (UINT64_C(5) << 12));
  tb_put_u32(&rs, rec + 20, 7);   /* RCCSMTSQ */
  tb_put_u8(&rs, rec + 24, 0x80); /* start */
  tb_put_u8(&rs, rec + 25, 2);    /* CALMAXTC */
  tb_put_u8(&rs, rec + 29, 1);    /* one CPUTINFO entry */
  tb_put_u16(&rs, rec + 30, 8);
  tb_put_u16(&rs, rec + 32, 36);
  tb_put_u8(&rs, rec + 36 + 0, 3); /* ifl */
  tb_put_u8(&rs, rec + 36 + 2, 2); /* hardware max */
  tb_put_u8(&rs, rec + 36 + 3, 2); /* z/VM max */
  tb_put_u8(&rs, rec + 36 + 4, 1); /* activated */
  tb_put_u8(&rs, rec + 36 + 6, 1); /* requested */
  struct tb set;
  tb_init(&set);
  tb_record_set(&set, 0xC5, TB_DOM(4) | TB_DOM(5), 0x00200000, &rs);
  script_set_add(&set);
  tb_free(&rs);
}

/* ------------------------------------------------------------------------
 * Tests.
 */
static void test_registration(void **state) {
  (void)state;
  assert_non_null(cb_config);
  assert_non_null(cb_init);
  assert_non_null(cb_shutdown);
  assert_string_equal(reg_names[0], "zvm_monitor");
  assert_string_equal(reg_names[1], "zvm_monitor");
  assert_string_equal(reg_names[2], "zvm_monitor");
  /* The read callback exists only once init succeeded. */
  assert_null(cb_read);
  assert_int_equal(cb_init(), 0);
  assert_int_equal(read_registrations, 1);
  assert_string_equal(reg_names[3], "zvm_monitor");
  assert_int_equal(reader_created, 1);
}

static void test_defaults_without_config(void **state) {
  (void)state;
  assert_int_equal(cb_init(), 0);
  assert_string_equal(reader_device, "/dev/monreader");
  assert_int_equal(reader_cfg.max_set_size, 64 * 1024 * 1024);
  assert_null(reader_cfg.io);
  assert_non_null(reader_cfg.log);
  assert_true(logged(LOG_INFO, "zvm_monitor plugin: reading /dev/monreader; "
                               "domains: all; 0 UserID rule(s); "
                               "GuestsAsHosts false"));

  /* The record types are registered: collectd.conf needs no TypesDB. */
  size_t nds;
  const data_source_t *ds = registered("zvm_useite", &nds);
  assert_non_null(ds);
  assert_int_equal(nds, 48);
  assert_string_equal(ds[0].name, "transactions");
  assert_int_equal(ds[0].type, DS_TYPE_DERIVE);
  assert_true(ds[0].min == 0.0 && isnan(ds[0].max));
  assert_string_equal(ds[1].name, "vmdslcnt");
  assert_int_equal(ds[1].type, DS_TYPE_GAUGE);
  assert_true(isnan(ds[1].min));
  assert_string_equal(ds[20].name, "hfcpurn");
  assert_string_equal(ds[47].name, "hfpgact");
  /* Every field of IBM MRPRCSMT (z/VM V6R4.0), thread counts with MAX flags. */
  ds = registered("zvm_prcsmt", &nds);
  assert_int_equal(nds, 7);
  assert_string_equal(ds[0].name, "mt_config_seq");
  assert_string_equal(ds[1].name, "mt_max_threads");
  assert_string_equal(ds[2].name, "statement_all");
  assert_string_equal(ds[4].name, "set_initial");
  assert_string_equal(ds[6].name, "set_all_is_max");
  ds = registered("zvm_prcsmt_cpu", &nds);
  assert_int_equal(nds, 9);
  assert_string_equal(ds[0].name, "statement");
  assert_string_equal(ds[3].name, "activated");
  assert_string_equal(ds[8].name, "requested_is_max");
  ds = registered("zvm_sytprp", &nds);
  assert_int_equal(nds, 3);
  assert_string_equal(ds[0].name, "plscuhaf");
  assert_string_equal(ds[1].name, "pfxprbtm");
  assert_string_equal(ds[2].name, "pfxutime");
  assert_int_equal(nsets, builtin_types());

  static const char *const users[] = {"LINUX07"};
  script_users(users, 1, tb_tod(SEC, 250));
  script(
      NULL, 0,
      &(struct zvm_reader_stats){.health.bytes_read = 4242, .health.sets = 1});
  sync_reader();
  assert_int_equal(cb_read(NULL), 0);

  /* One value list per record instance. */
  const value_list_t *vl = find_vl("", "LINUX07", "zvm_useite", "");
  assert_int_equal(vl->values_len, 48);
  assert_int_equal(vl->values[0].derive, 1);           /* transactions */
  assert_true(vl->values[1].gauge == -1.0);            /* vmdslcnt */
  assert_int_equal(vl->values[20].derive, 2147483648); /* hfcpurn */
  assert_int_equal(vl->time, US_TO_CDTIME_T(US(SEC, 250)));
  assert_int_equal(vl->interval, 0); /* the plugin's interval */
  assert_int_equal(count_vls("LINUX07", "derive", "hfcpurn"), 0);
  vl = find_vl("", "ifl", "zvm_prcsmt_cpu", "");
  assert_int_equal(vl->values_len, 9);
  assert_true(vl->values[1].gauge == 2.0); /* hardware_max */
  assert_true(vl->values[2].gauge == 2.0); /* zvm_max */
  assert_true(vl->values[3].gauge == 1.0); /* activated */
  assert_true(vl->values[5].gauge == 1.0); /* requested */
  assert_true(vl->values[8].gauge == 0.0); /* requested_is_max */
  assert_int_equal(vl->time, US_TO_CDTIME_T(US(SEC, 255)));
  vl = find_vl("", "system", "zvm_prcsmt", "");
  assert_true(vl->values[0].gauge == 7.0);
  assert_true(vl->values[1].gauge == 2.0);
  /* Reader counters: stamped by the daemon (time 0). */
  vl = find_vl("", "reader", "total_bytes", "read");
  assert_int_equal(vl->values[0].derive, 4242);
  assert_int_equal(vl->time, 0);
  vl = find_vl("", "reader", "total_objects", "records");
  assert_int_equal(vl->values[0].derive, 2);

  assert_int_equal(nnotifs, 1);
  assert_int_equal(notifs[0].severity, NOTIF_WARNING);
  assert_int_equal(notifs[0].time, US_TO_CDTIME_T(US(SEC, 255)));
  assert_string_equal(notifs[0].host, "zvmhost");
  assert_string_equal(notifs[0].plugin, "zvm_monitor");
  assert_string_equal(notifs[0].plugin_instance, "system");
  assert_string_equal(notifs[0].type, "threads");
  assert_string_equal(notifs[0].message,
                      "multithreading configuration change 4 started "
                      "(RCCSMTSQ 7); activated threads per core before the "
                      "change: ifl 1; data until the change ends spans two "
                      "configurations");
  assert_true(logged(LOG_NOTICE, "zvm_monitor plugin: multithreading "
                                 "configuration change 4 started"));

  /* The next interval without data: reader counters only. */
  nvls = 0;
  assert_int_equal(cb_read(NULL), 0);
  assert_int_equal(nvls, READER_VALUES);
}

static void test_every_option(void **state) {
  (void)state;
  struct cfg c;
  cfg_init(&c);
  cfg_string(&c, "Device", "/run/monreader");
  cfg_string(&c, "Domain", "user");
  cfg_number(&c, "domain", 5);
  cfg_string(&c, "UserID", "LINUX07");
  cfg_string(&c, "UserID", "/^WEB/");
  cfg_bool(&c, "IgnoreSelected", false);
  cfg_bool(&c, "GuestsAsHosts", true);
  cfg_bool(&c, "ReportReaderStats", false);
  cfg_number(&c, "MaxSetSize", 1048576);
  cfg_number(&c, "MaxQueueSize", 2097152);
  cfg_string(&c, "UserField", "hfcpurn");
  cfg_number(&c, "LeapSecondOffset", 27);
  cfg_bool(&c, "OneValuePerList", true);
  assert_int_equal(cb_config(&c.root), 0);
  assert_int_equal(cb_init(), 0);
  assert_string_equal(reader_device, "/run/monreader");
  assert_int_equal(reader_cfg.max_set_size, 1048576);
  assert_true(logged(LOG_INFO, "reading /run/monreader; domains: "
                               "user,processor; 2 UserID rule(s); "
                               "GuestsAsHosts true"));

  static const char *const users[] = {"LINUX07", "WEB1", "DB2"};
  script_users(users, 3, tb_tod(SEC, 1));
  sync_reader();
  assert_int_equal(cb_read(NULL), 0);
  const value_list_t *vl = find_vl("linux07", "", "derive", "hfcpurn");
  assert_int_equal(vl->values[0].derive, 2147483648);
  /* LeapSecondOffset 27: the TOD runs 27 s ahead of UTC. */
  assert_int_equal(vl->time, US_TO_CDTIME_T(US(SEC - 27, 1)));
  assert_true(logged(LOG_INFO, "record times: the TOD clock is 27 s ahead of "
                               "UTC (from LeapSecondOffset)"));
  vl = find_vl("web1", "", "derive", "hfcpurn");
  assert_int_equal(vl->values[0].derive, 2147483649);
  for (size_t i = 0; i < nvls; i++) {
    assert_string_not_equal(vls[i].host, "db2");
    assert_string_not_equal(vls[i].plugin_instance, "reader");
    /* UserField "hfcpurn": the only per-user value */
    if (vls[i].host[0] != '\0')
      assert_string_equal(vls[i].type_instance, "hfcpurn");
  }
  find_vl("", "ifl", "threads", "zvm_max");
}

/* One value per list, as in the first release: CombinedUserValues false
 * is the older spelling of OneValuePerList true. */
static void test_one_value_per_list(void **state) {
  (void)state;
  struct cfg c;
  cfg_init(&c);
  cfg_bool(&c, "CombinedUserValues", false);
  assert_int_equal(cb_config(&c.root), 0);
  assert_int_equal(cb_init(), 0);
  assert_true(logged(LOG_INFO, "OneValuePerList true; 0 types registered"));
  assert_int_equal(nsets, 0);
  static const char *const users[] = {"LINUX07", "WEB1"};
  script_users(users, 2, tb_tod(SEC, 9));
  sync_reader();
  assert_int_equal(cb_read(NULL), 0);
  const value_list_t *vl = find_vl("", "LINUX07", "derive", "hfcpurn");
  assert_int_equal(vl->values[0].derive, 2147483648);
  assert_int_equal(vl->time, US_TO_CDTIME_T(US(SEC, 9)));
  vl = find_vl("", "LINUX07", "gauge", "vmdslcnt");
  assert_true(vl->values[0].gauge == -1.0);
  vl = find_vl("", "LINUX07", "total_events", "transactions");
  assert_int_equal(vl->values[0].derive, 1);
  vl = find_vl("", "WEB1", "derive", "hfcpurn");
  assert_int_equal(vl->values[0].derive, 2147483649);
  assert_int_equal(count_vls("LINUX07", "zvm_useite", ""), 0);
  vl = find_vl("", "ifl", "threads", "activated");
  assert_true(vl->values[0].gauge == 1.0);
  assert_int_equal(vl->time, US_TO_CDTIME_T(US(SEC, 9) + 5));
  vl = find_vl("", "system", "gauge", "mt_max_threads");
  assert_true(vl->values[0].gauge == 2.0);
  find_vl("", "reader", "total_objects", "sets");

  /* UserField without one value per list: a clear error. */
  cfg_init(&c);
  cfg_string(&c, "UserField", "hfcpurn");
  cfg_bool(&c, "CombinedUserValues", true);
  assert_int_equal(cb_config(&c.root), -1);
  assert_true(logged(LOG_ERR, "zvm_monitor plugin: UserField selects values "
                              "only with \"OneValuePerList true\""));
}

static void test_config_errors(void **state) {
  (void)state;
  static const struct {
    const char *key;
    int type;
    const char *s;
    double n;
    const char *want;
  } cases[] = {
      {"Foo", OCONFIG_TYPE_STRING, "x", 0, "unknown option \"Foo\""},
      {"Domain", OCONFIG_TYPE_STRING, "bogus", 0,
       "Domain \"bogus\": unknown domain"},
      {"Domain", OCONFIG_TYPE_NUMBER, NULL, 12.5, "Domain 12.5"},
      {"Domain", OCONFIG_TYPE_BOOLEAN, NULL, 1,
       "Domain: exactly one string or numeric value is required"},
      {"UserID", OCONFIG_TYPE_STRING, "/(/", 0,
       "UserID \"/(/\": bad regular expression: "},
      {"MaxSetSize", OCONFIG_TYPE_NUMBER, NULL, 0, "MaxSetSize 0"},
      {"MaxSetSize", OCONFIG_TYPE_NUMBER, NULL, -5, "MaxSetSize -5"},
      {"MaxSetSize", OCONFIG_TYPE_STRING, "64M", 0,
       "MaxSetSize: exactly one numeric value is required"},
      {"MaxQueueSize", OCONFIG_TYPE_NUMBER, NULL, 100, "MaxQueueSize 100"},
      {"UserField", OCONFIG_TYPE_STRING, "vmduser", 0,
       "UserField \"vmduser\": not a value of a guest's record"},
      {"GuestsAsHosts", OCONFIG_TYPE_NUMBER, NULL, 1,
       "GuestsAsHosts: exactly one boolean value is required"},
      {"Device", OCONFIG_TYPE_BOOLEAN, NULL, 1,
       "Device: exactly one string value is required"},
      {"Device", OCONFIG_TYPE_STRING, "monreader", 0,
       "Device \"monreader\": an absolute path is required"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct cfg c;
    cfg_init(&c);
    oconfig_item_t *it = cfg_item(&c, cases[i].key);
    it->values[0].type = cases[i].type;
    if (cases[i].type == OCONFIG_TYPE_STRING)
      it->values[0].value.string = (char *)cases[i].s;
    else if (cases[i].type == OCONFIG_TYPE_NUMBER)
      it->values[0].value.number = cases[i].n;
    else
      it->values[0].value.boolean = (int)cases[i].n;
    nlogs = 0;
    assert_int_equal(cb_config(&c.root), -1);
    char want[256];
    snprintf(want, sizeof(want), "zvm_monitor plugin: %s", cases[i].want);
    if (!logged(LOG_ERR, want))
      fail_msg("case %zu: no error \"%s\" (got \"%s\")", i, want,
               nlogs ? logs[nlogs - 1].msg : "");
  }

  /* Two values for a single-valued option. */
  struct cfg c;
  cfg_init(&c);
  oconfig_item_t *it = cfg_item(&c, "Device");
  it->values_num = 2;
  it->values[0].type = it->values[1].type = OCONFIG_TYPE_STRING;
  it->values[0].value.string = it->values[1].value.string = "/dev/x";
  assert_int_equal(cb_config(&c.root), -1);
  assert_true(logged(LOG_ERR, "zvm_monitor plugin: Device: exactly one"));
}

/* <Record> blocks as liboconfig nests them: the glue hands every value to
 * the recconf builder; a mistake deep inside is one error line naming it,
 * values of the wrong kind are refused by the glue itself. */
static oconfig_value_t ostr(const char *s) {
  oconfig_value_t v = {.type = OCONFIG_TYPE_STRING};
  v.value.string = (char *)s;
  return v;
}
static oconfig_value_t onum(double n) {
  oconfig_value_t v = {.type = OCONFIG_TYPE_NUMBER};
  v.value.number = n;
  return v;
}
static oconfig_value_t obool(bool b) {
  oconfig_value_t v = {.type = OCONFIG_TYPE_BOOLEAN};
  v.value.boolean = b;
  return v;
}

struct record_cfg {
  oconfig_value_t id, name, field, offset, length, type, kind, more;
  oconfig_item_t field_items[5], record_items[2], record, root;
};

static void record_cfg_init(struct record_cfg *c) {
  *c = (struct record_cfg){
      .id = ostr("0/9"),
      .name = ostr("myrec"),
      .field = ostr("hits"),
      .offset = onum(24),
      .length = onum(4),
      .type = ostr("unsigned"),
      .kind = ostr("counter"),
  };
  oconfig_value_t *fv[] = {&c->offset, &c->length, &c->type, &c->kind};
  const char *fk[] = {"Offset", "Length", "Type", "Kind"};
  for (int i = 0; i < 4; i++)
    c->field_items[i] = (oconfig_item_t){
        .key = (char *)fk[i], .values = fv[i], .values_num = 1};
  c->record_items[0] =
      (oconfig_item_t){.key = "Name", .values = &c->name, .values_num = 1};
  c->record_items[1] = (oconfig_item_t){.key = "Field",
                                        .values = &c->field,
                                        .values_num = 1,
                                        .children = c->field_items,
                                        .children_num = 4};
  c->record = (oconfig_item_t){.key = "Record",
                               .values = &c->id,
                               .values_num = 1,
                               .children = c->record_items,
                               .children_num = 2};
  c->root = (oconfig_item_t){
      .key = "Plugin", .children = &c->record, .children_num = 1};
}

static void test_record_blocks(void **state) {
  (void)state;
  struct record_cfg c;
  record_cfg_init(&c);
  assert_int_equal(cb_config(&c.root), 0);
  assert_int_equal(nlogs, 0);
  /* The same record again (configuration may come in several blocks). */
  assert_int_equal(cb_config(&c.root), -1);
  assert_true(logged(LOG_ERR, "zvm_monitor plugin: Record \"0/9\" is "
                              "defined twice"));

  struct {
    oconfig_value_t *v;
    oconfig_value_t to;
    const char *key; /* of the item to rename, or NULL */
    const char *want;
  } bad[] = {
      {&c.offset, onum(12), NULL,
       "Record \"0/8\" Field \"hits\": Offset 12 lies in the 20-byte record "
       "header"},
      {&c.type, ostr("float"), NULL,
       "Record \"0/8\" Field \"hits\": unknown Type \"float\""},
      {&c.length, ostr("4"), NULL,
       "Length: exactly one numeric value is "
       "required"},
      {&c.kind, obool(true), NULL,
       "Kind: exactly one string value is "
       "required"},
      {&c.field, onum(1), NULL,
       "Field: exactly one string (the field name) "
       "value is required"},
      {&c.id, onum(2), NULL, "Record: give the record as <Record \"D/R\">"},
      {NULL, onum(0), "Width",
       "Record \"0/8\" Field \"hits\": unknown option "
       "\"Width\""},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    assert_int_equal(cb_shutdown(), 0); /* forget the configuration */
    record_cfg_init(&c);
    c.id = ostr("0/8");
    if (bad[i].key != NULL)
      c.field_items[3].key = (char *)bad[i].key;
    else
      *bad[i].v = bad[i].to;
    nlogs = 0;
    assert_int_equal(cb_config(&c.root), -1);
    char want[300];
    snprintf(want, sizeof(want), "zvm_monitor plugin: %s", bad[i].want);
    bool found = false;
    for (size_t l = 0; l < nlogs && !found; l++)
      found = strstr(logs[l].msg, bad[i].want) != NULL &&
              strncmp(logs[l].msg, "zvm_monitor plugin: ", 20) == 0;
    if (!found)
      fail_msg("case %zu: no error \"%s\" (got \"%s\")", i, want,
               nlogs ? logs[nlogs - 1].msg : "");
  }
  /* After a refused block, a later <Plugin> block configures afresh. */
  record_cfg_init(&c);
  assert_int_equal(cb_config(&c.root), 0);
}

/* OneValueType: a type of collectd's of one value of the field's kind, or
 * the plugin does not start (one line naming the field). */
static void test_record_one_value_type(void **state) {
  (void)state;
  static const struct {
    const char *type;
    int init;
  } cases[] = {{"derive", 0}, {"threads", -1}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    assert_int_equal(cb_shutdown(), 0);
    struct record_cfg c;
    record_cfg_init(&c);
    c.more = ostr(cases[i].type);
    c.field_items[4] = (oconfig_item_t){
        .key = "OneValueType", .values = &c.more, .values_num = 1};
    c.record_items[1].children_num = 5;
    nlogs = 0;
    assert_int_equal(cb_config(&c.root), 0);
    assert_int_equal(cb_init(), cases[i].init);
    if (cases[i].init != 0)
      assert_true(logged(LOG_ERR,
                         "zvm_monitor plugin: Record \"0/9\" Field \"hits\": "
                         "OneValueType \"threads\" is not a type of one DERIVE "
                         "value in collectd's types.db; name one that is "
                         "(e.g. derive)"));
  }
  assert_int_equal(cb_shutdown(), 0);
}

/* A <Record> block's type is registered like a built-in one, its
 * types.db line logged, and its records dispatched as its value lists. */
static void test_record_block_dispatch(void **state) {
  (void)state;
  struct record_cfg c;
  record_cfg_init(&c);
  assert_int_equal(cb_config(&c.root), 0);
  assert_int_equal(cb_init(), 0);
  size_t nds;
  const data_source_t *ds = registered("zvm_myrec", &nds);
  assert_non_null(ds);
  assert_int_equal(nds, 1);
  assert_string_equal(ds[0].name, "hits");
  assert_int_equal(ds[0].type, DS_TYPE_DERIVE);
  assert_true(ds[0].min == 0.0);
  assert_true(logged(LOG_INFO, "zvm_monitor plugin: record 0/9 from its "
                               "<Record> block, type zvm_myrec; types.db "
                               "line: zvm_myrec\thits:DERIVE:0:U"));

  struct tb rs, set;
  tb_init(&rs);
  size_t rec = tb_record(&rs, 28, 0, 9, tb_tod(SEC, 30));
  tb_put_u32(&rs, rec + 24, 0xC0000001u);
  tb_init(&set);
  tb_record_set(&set, 0xE2, TB_DOM(0), 0x00200000, &rs);
  script_set_add(&set);
  tb_free(&rs);
  sync_reader();
  nvls = 0;
  assert_int_equal(cb_read(NULL), 0);
  const value_list_t *vl = find_vl("", "", "zvm_myrec", "");
  assert_int_equal(vl->values_len, 1);
  assert_int_equal(vl->values[0].derive, 0xC0000001u);
  assert_int_equal(vl->time, US_TO_CDTIME_T(US(SEC, 30)));
}

static void test_reader_log_and_failure(void **state) {
  (void)state;
  assert_int_equal(cb_init(), 0);
  script("another process holds /dev/monreader (only one reader is allowed)", 0,
         NULL);
  sync_reader();
  assert_int_equal(cb_read(NULL), 0);
  assert_true(logged(LOG_ERR, "zvm_monitor plugin: another process holds "
                              "/dev/monreader (only one reader is allowed)"));
  /* The reader is out of memory: the read callback says so once and
   * returns 0, so that collectd does not back it off (doubling its
   * interval up to a day) while the thread tries again. */
  script(NULL, -1, NULL);
  sync_reader();
  size_t before = nlogs;
  assert_int_equal(cb_read(NULL), 0);
  assert_int_equal(cb_read(NULL), 0);
  assert_true(logged(LOG_ERR, "zvm_monitor plugin: the reader of "
                              "/dev/monreader is out of memory: data may be "
                              "lost"));
  size_t said = 0;
  pthread_mutex_lock(&fake_lock);
  for (size_t i = before; i < nlogs; i++)
    said += strstr(logs[i].msg, "is out of memory") != NULL;
  pthread_mutex_unlock(&fake_lock);
  assert_int_equal(said, 1);
  /* It recovers: the thread kept trying. */
  script(NULL, 0, NULL);
  sync_reader();
  assert_int_equal(cb_read(NULL), 0);
  assert_true(logged(LOG_INFO, "zvm_monitor plugin: the reader of "
                               "/dev/monreader works again"));
}

static void test_dispatch_failure_rate_limited(void **state) {
  (void)state;
  assert_int_equal(cb_init(), 0);
  dispatch_status = -1;
  nlogs = 0;
  for (int i = 0; i < 5; i++)
    assert_int_equal(cb_read(NULL), 0); /* 45 failed dispatches */
  size_t complaints = 0;
  for (size_t i = 0; i < nlogs; i++)
    if (strstr(logs[i].msg, "plugin_dispatch_values failed") != NULL)
      complaints++;
  assert_int_equal(complaints, 1);
  dispatch_status = 0;
  assert_int_equal(cb_read(NULL), 0);
  assert_true(logged(LOG_INFO, "plugin_dispatch_values works again"));
}

/* The thread drains on its own; sets from several drains reach one read
 * callback in order, each exactly once. */
static void test_reader_thread(void **state) {
  (void)state;
  assert_int_equal(cb_init(), 0);
  assert_int_equal(threads_created, 1);
  assert_string_equal(thread_name, "zvm_monitor");
  sync_reader(); /* no read callback needed */
  assert_int_equal(nvls, 0);

  static const char *const users[] = {"LINUX07", "LINUX08"};
  script_users(users, 2, tb_tod(SEC, 10));
  sync_reader();
  script_users(users, 1, tb_tod(SEC, 20)); /* LINUX07 again, later */
  script(NULL, 0, &(struct zvm_reader_stats){.health.sets = 2});
  sync_reader();
  assert_int_equal(cb_read(NULL), 0);
  /* Latest record wins; every transaction counted; nothing twice. */
  const value_list_t *vl = find_vl("", "LINUX07", "zvm_useite", "");
  assert_int_equal(vl->values[0].derive, 2);
  assert_int_equal(vl->time, US_TO_CDTIME_T(US(SEC, 20)));
  vl = find_vl("", "LINUX08", "zvm_useite", "");
  assert_int_equal(vl->values[0].derive, 1);
  vl = find_vl("", "reader", "total_objects", "sets");
  assert_int_equal(vl->values[0].derive, 2);
  vl = find_vl("", "reader", "total_objects", "records");
  assert_int_equal(vl->values[0].derive, 5);
  /* every set reached the queue */
  vl = find_vl("", "reader", "total_objects", "sets_dropped");
  assert_int_equal(vl->values[0].derive, 0);

  /* Nothing new: the next callback has the reader counters only. */
  nvls = 0;
  assert_int_equal(cb_read(NULL), 0);
  assert_int_equal(nvls, READER_VALUES);

  /* LINUX07's TOD again (the z/VM clock repeats itself): its values still
   * come, stamped with its set's arrival time (now, far after 2023),
   * counted, and the episode is logged once with the plugin's prefix. */
  script_users(users, 1, tb_tod(SEC, 20));
  sync_reader();
  nvls = 0;
  assert_int_equal(cb_read(NULL), 0);
  vl = find_vl("", "LINUX07", "zvm_useite", "");
  assert_int_equal(vl->values[0].derive, 3);
  assert_true(vl->time > US_TO_CDTIME_T(US(SEC, 20)));
  vl = find_vl("", "reader", "total_objects", "restamped");
  assert_int_equal(vl->values[0].derive, 3); /* LINUX07, ifl, system */
  assert_true(logged(LOG_NOTICE, "zvm_monitor plugin: record time "));
  assert_true(logged(LOG_NOTICE, "is not after its last time"));
  assert_true(logged(LOG_NOTICE, "(the arrival time of its set) and counted "
                                 "in total_objects-restamped (3 this pass)"));
}

/* The first read callback sees what the first drain read, even if the
 * thread was slow to get there (data ready when the device was opened). */
static void test_first_read_waits_for_first_drain(void **state) {
  (void)state;
  static const char *const users[] = {"LINUX07"};
  script_users(users, 1, tb_tod(SEC, 5));
  first_drain_delay_ms = 200;
  assert_int_equal(cb_init(), 0);
  assert_int_equal(cb_read(NULL), 0); /* at once: no sync_reader() */
  find_vl("", "LINUX07", "zvm_useite", "");
}

/* A full queue makes the thread wait (nothing is dropped); the read
 * callback makes room; the wait is logged. */
static void test_queue_full_waits(void **state) {
  (void)state;
  struct cfg c;
  cfg_init(&c);
  cfg_number(&c, "MaxQueueSize", 4096);
  assert_int_equal(cb_config(&c.root), 0);
  assert_int_equal(cb_init(), 0);

  /* Two sets of about 4 KB: the first fills the queue. */
  const char *a[20], *b[20];
  char names[40][9];
  for (int i = 0; i < 20; i++) {
    snprintf(names[i], sizeof(names[i]), "A%02d", i);
    snprintf(names[20 + i], sizeof(names[20 + i]), "B%02d", i);
    a[i] = names[i];
    b[i] = names[20 + i];
  }
  script_users(a, 20, tb_tod(SEC, 1));
  script_users(b, 20, tb_tod(SEC, 2));
  pthread_mutex_lock(&fake_lock);
  unsigned long before = drains;
  pthread_mutex_unlock(&fake_lock);
  /* The drain handing them over cannot end while the second waits. */
  struct timespec ts = {0, 100 * 1000000};
  nanosleep(&ts, NULL);
  pthread_mutex_lock(&fake_lock);
  unsigned long during = drains;
  pthread_mutex_unlock(&fake_lock);
  assert_true(during <= before + 1);
  assert_false(logged(LOG_WARNING, "queue of data sets was full"));

  assert_int_equal(cb_read(NULL), 0); /* takes the first, makes room */
  assert_int_equal(count_vls("A00", "zvm_useite", ""), 1);
  assert_int_equal(count_vls("A19", "zvm_useite", ""), 1);
  assert_int_equal(count_vls("B00", "zvm_useite", ""), 0);
  sync_reader();
  assert_true(logged(LOG_WARNING, "zvm_monitor plugin: the queue of data "
                                  "sets was full (MaxQueueSize 4096 bytes)"));
  nvls = 0;
  assert_int_equal(cb_read(NULL), 0);
  assert_int_equal(count_vls("B00", "zvm_useite", ""), 1);
  assert_int_equal(count_vls("B19", "zvm_useite", ""), 1);
  assert_int_equal(count_vls("A00", "zvm_useite", ""), 0);
}

/* Shutdown while the thread waits for room: it returns, the thread ends
 * (teardown checks it was joined before the reader went away). */
static void test_shutdown_while_queue_full(void **state) {
  (void)state;
  struct cfg c;
  cfg_init(&c);
  cfg_number(&c, "MaxQueueSize", 4096);
  assert_int_equal(cb_config(&c.root), 0);
  assert_int_equal(cb_init(), 0);
  static const char *const users[] = {"A", "B", "C", "D", "E", "F", "G",
                                      "H", "I", "J", "K", "L", "M", "N",
                                      "O", "P", "Q", "R", "S", "T"};
  script_users(users, 20, tb_tod(SEC, 1));
  script_users(users, 20, tb_tod(SEC, 2));
  script_users(users, 20, tb_tod(SEC, 3));
  struct timespec ts = {0, 50 * 1000000};
  nanosleep(&ts, NULL);
  assert_int_equal(cb_shutdown(), 0);
  assert_true(thread_done);
}

static void test_shutdown_and_restart(void **state) {
  (void)state;
  struct cfg c;
  cfg_init(&c);
  cfg_string(&c, "Device", "/run/other");
  assert_int_equal(cb_config(&c.root), 0);
  assert_int_equal(cb_init(), 0);
  assert_int_equal(cb_shutdown(), 0);
  assert_int_equal(reader_destroyed, 1);
  /* Shutdown freed the configuration: defaults again. */
  assert_int_equal(cb_init(), 0);
  assert_string_equal(reader_device, "/dev/monreader");
  /* Shutdown twice is harmless (teardown calls it again). */
}

static bool is_blocked(void *arg) {
  (void)arg;
  return drain_blocked;
}

static bool is_done(void *arg) {
  (void)arg;
  return thread_done;
}

/* Shutdown stops the reader between reads; a thread blocked in a read()
 * of a device that ignores O_NONBLOCK is left behind (with the reader and
 * the queue it uses), so the daemon can still exit. */
static void test_shutdown_leaves_blocked_thread(void **state) {
  (void)state;
  struct cfg c;
  cfg_init(&c);
  cfg_string(&c, "Device", "/run/stuck");
  assert_int_equal(cb_config(&c.root), 0);
  pthread_mutex_lock(&fake_lock);
  drain_blocks = true;
  pthread_mutex_unlock(&fake_lock);
  assert_int_equal(cb_init(), 0);
  if (!wait_cond(is_blocked, NULL))
    fail_msg("the reader thread did not reach its drain");

  assert_int_equal(cb_shutdown(), 0); /* returns although it is blocked */
  pthread_mutex_lock(&fake_lock);
  assert_false(thread_done);
  assert_int_equal(reader_stops, 1);
  assert_int_equal(reader_destroyed, 0); /* the thread still has it */
  pthread_mutex_unlock(&fake_lock);
  assert_true(logged(LOG_WARNING, "zvm_monitor plugin: the reader thread did "
                                  "not stop within 500 ms (a read() of "
                                  "/run/stuck that blocks"));

  /* The read returns at last: the thread sees the stop and ends. */
  pthread_mutex_lock(&fake_lock);
  drain_blocks = false;
  pthread_cond_broadcast(&fake_cond);
  pthread_mutex_unlock(&fake_lock);
  if (!wait_cond(is_done, NULL))
    fail_msg("the reader thread did not end");
  /* teardown's shutdown frees what was left */
}

/* ReplayFile: a capture feeds the read callback instead of the device (no
 * reader is created); "fast" hands over one set per read callback, so both
 * of LINUX01's values are dispatched; the counters come from the capture. */
static void test_replay_fast(void **state) {
  (void)state;
  char path[] = "/tmp/test_glue_replay.XXXXXX";
  int fd = mkstemp(path), err = 0;
  assert_true(fd >= 0);
  struct zvm_cap_writer *w = zvm_cap_writer_start(fd, "t", "d", &err);
  assert_non_null(w);
  for (unsigned i = 0; i < 2; i++) {
    struct tb rs, set;
    tb_init(&rs);
    tb_init(&set);
    size_t rec = tb_record(&rs, 200, 4, 10, tb_tod(SEC + 60 * i, 0));
    tb_put_ebcdic(&rs, rec + 20, "LINUX01", 8);
    tb_put_u32(&rs, rec + 116, 1000 + i); /* HFCPURN */
    tb_record_set(&set, 0xC5, TB_DOM(4), 0x00200000, &rs);
    assert_int_equal(zvm_cap_write_set(w, set.data, set.len, US(SEC, 0)), 0);
    tb_free(&rs);
    tb_free(&set);
  }
  struct zvm_reader_event ev = {.type = ZVM_READER_EV_EOVERFLOW};
  assert_int_equal(zvm_cap_write_event(w, &ev, US(SEC, 1)), 0);
  zvm_cap_writer_free(w);
  close(fd);

  struct cfg c;
  cfg_init(&c);
  cfg_string(&c, "ReplayFile", path);
  cfg_string(&c, "replayspeed", "fast");
  cfg_bool(&c, "ReplayLoop", false);
  assert_int_equal(cb_config(&c.root), 0);
  assert_int_equal(cb_init(), 0);
  assert_int_equal(reader_created, 0);
  assert_true(logged(LOG_INFO, "replaying 1 capture file(s) instead of "
                               "/dev/monreader"));
  for (int i = 0; i < 100 && count_vls("LINUX01", "zvm_useite", "") < 2; i++) {
    assert_int_equal(cb_read(NULL), 0);
    usleep(20000);
  }
  assert_int_equal(count_vls("LINUX01", "zvm_useite", ""), 2);
  assert_int_equal(cb_read(NULL), 0);
  const value_list_t *eo = NULL;
  for (size_t i = 0; i < nvls; i++)
    if (strcmp(vls[i].type_instance, "eoverflow") == 0)
      eo = &vls[i];
  assert_non_null(eo);
  assert_int_equal(eo->values[0].derive, 1);
  unlink(path);
}

static void test_replay_config_errors(void **state) {
  (void)state;
  struct cfg c;
  cfg_init(&c);
  cfg_string(&c, "ReplaySpeed", "slow");
  assert_int_equal(cb_config(&c.root), -1);
  assert_true(logged(LOG_ERR, "zvm_monitor plugin: ReplaySpeed \"slow\""));
  cfg_init(&c);
  cfg_number(&c, "ReplaySpeed", 0);
  assert_int_equal(cb_config(&c.root), -1);
  cfg_init(&c);
  cfg_string(&c, "ReplayFile", "/nonexistent/zvm-*.pcapng");
  assert_int_equal(cb_config(&c.root), 0);
  assert_int_equal(cb_init(), -1);
  assert_true(logged(LOG_ERR, "zvm_monitor plugin: ReplayFile "
                              "\"/nonexistent/zvm-*.pcapng\": no such file"));
  assert_null(cb_read);
}

static const notification_t *find_note(const char *type_instance,
                                       int severity) {
  const notification_t *hit = NULL;
  for (size_t i = 0; i < nnotifs; i++)
    if (strcmp(notifs[i].type_instance, type_instance) == 0 &&
        notifs[i].severity == severity) {
      assert_null(hit);
      hit = &notifs[i];
    }
  return hit;
}

/* Device and data-loss episodes reach the daemon as notifications of
 * zvm_monitor-reader/errors-<kind>: one WARNING when an episode starts,
 * one OKAY when reading resumed for three intervals, and a kind switched
 * off with Notify<Kind> false sends nothing. */
static void test_episode_notifications(void **state) {
  (void)state;
  struct cfg c;
  cfg_init(&c);
  cfg_bool(&c, "NotifyDiscard", false);
  assert_int_equal(cb_config(&c.root), 0);
  assert_int_equal(cb_init(), 0);

  struct zvm_reader_stats rs = {
      .open = 0, .health.open_errors = 1, .open_errno = EBUSY};
  script(NULL, 0, &rs);
  sync_reader();
  assert_int_equal(cb_read(NULL), 0);
  assert_int_equal(nnotifs, 1);
  const notification_t *n = find_note("device", NOTIF_WARNING);
  assert_non_null(n);
  assert_string_equal(n->plugin, "zvm_monitor");
  assert_string_equal(n->plugin_instance, "reader");
  assert_string_equal(n->type, "errors");
  assert_string_equal(n->host, "zvmhost");
  assert_string_equal(n->message, "another process holds /dev/monreader "
                                  "(only one reader is allowed); retrying");
  assert_int_equal(n->time, fake_now);

  /* Opened; then an overflow and an EFAULT in the same pass. */
  rs = (struct zvm_reader_stats){.open = 1,
                                 .health.open_errors = 1,
                                 .health.sets = 3,
                                 .health.eoverflow = 1,
                                 .health.efault = 1,
                                 .discarded = 1};
  script(NULL, 0, &rs);
  sync_reader();
  nnotifs = 0;
  fake_now += TIME_T_TO_CDTIME_T(10);
  assert_int_equal(cb_read(NULL), 0);
  assert_int_equal(nnotifs, 1); /* discard is switched off */
  n = find_note("overflow", NOTIF_WARNING);
  assert_non_null(n);
  assert_non_null(strstr(n->message, "EOVERFLOW"));

  /* Reading goes on: the device episode ends 30 s after its last failure,
   * the overflow episode 30 s after the overflow; nothing else. */
  nnotifs = 0;
  for (int t = 2; t <= 4; t++) {
    rs.health.sets++;
    script(NULL, 0, &rs);
    sync_reader();
    fake_now += TIME_T_TO_CDTIME_T(10);
    assert_int_equal(cb_read(NULL), 0);
  }
  assert_int_equal(nnotifs, 2);
  assert_non_null(find_note("device", NOTIF_OKAY));
  assert_non_null(find_note("overflow", NOTIF_OKAY));
  assert_null(find_note("discard", NOTIF_OKAY));
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_registration),
      T(test_defaults_without_config),
      T(test_every_option),
      T(test_config_errors),
      T(test_reader_log_and_failure),
      T(test_dispatch_failure_rate_limited),
      T(test_shutdown_leaves_blocked_thread),
      T(test_shutdown_and_restart),
      T(test_reader_thread),
      T(test_queue_full_waits),
      T(test_shutdown_while_queue_full),
      T(test_first_read_waits_for_first_drain),
      T(test_one_value_per_list),
      T(test_replay_fast),
      T(test_replay_config_errors),
      T(test_record_blocks),
      T(test_record_one_value_type),
      T(test_record_block_dispatch),
      T(test_episode_notifications),
#undef T
  };
  return cmocka_run_group_tests_name("glue", tests, NULL, NULL);
}
