/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - collectd read plugin for the z/VM *MONITOR stream read
 * through Linux's /dev/monreader.
 *
 * The only file that sees collectd: it walks the configuration, owns the
 * reader and the mapper, and turns the mapper's output into value lists
 * and notifications. Everything but module_register() is static.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_timedjoin_np() */
#endif
#include "collectd/core/daemon/collectd.h"

#include "collectd/core/daemon/plugin.h"
#include "collectd/core/daemon/utils_complain.h"
#include "collectd/core/utils/common/common.h"

#include "base/collectd.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/conf.h"
#include "zvm_monitor/events.h"
#include "zvm_monitor/mapper.h"
#include "zvm_monitor/reader.h"
#include "zvm_monitor/recconf.h"
#include "zvm_monitor/registry.h"
#include "zvm_monitor/replay.h"
#include "zvm_monitor/setqueue.h"
#include "zvm_monitor/timerule.h"
#include "zvm_monitor/typesdb.h"

#include <pthread.h>
#include <time.h>

#define PLUGIN_NAME "zvm_monitor"
#define LOG_PREFIX PLUGIN_NAME " plugin: "

/* The reader thread waits at most this long for the device, so it sees a
 * shutdown within about this time. */
#define READER_WAIT_MS 100
/* After a drain that could not go on (out of memory), try again after: */
#define READER_RETRY_MS 1000
/* Shutdown waits this long for the thread (it sees the stop between two
 * reads, a drain is bounded); a thread still inside a read() then is
 * blocked in a device that ignores O_NONBLOCK: it is left behind. */
#define SHUTDOWN_JOIN_MS 500

static struct zvm_conf conf;
static bool conf_ready;
static struct zvm_recconf user_records; /* <Record> blocks */
static struct zvm_mapper *mapper;
static uint64_t users_dropped_logged;
/* Device and data-loss episodes (read callback only). */
static struct zvm_events events;
/* An episode ends after this many read intervals without its trouble. */
#define EPISODE_SETTLE_INTERVALS 3

/*
 * The device is read by a thread of its own (started with collectd's
 * plugin_thread_create), not by the read callback: the driver holds at most
 * 255 messages, which event data fills within a fraction of a second, and
 * a read callback runs only every Interval. The thread blocks in
 * zvm_reader_wait() (READER_WAIT_MS at most), drains what is ready, and
 * copies every complete set into the queue; the read callback takes all
 * queued sets, decodes and dispatches them. Only the thread touches the
 * reader; the queue is the only shared state (see setqueue.h for what
 * happens when it is full). Shutdown closes the queue and joins the thread.
 */
static struct zvm_reader *reader;
static struct zvm_setq *queue;
static pthread_t reader_thread;
static bool reader_thread_running;
static bool queue_full_logged;  /* reader thread only */
static bool queue_nomem_logged; /* reader thread only */
static bool first_read_done;
/* The first read callback waits this long at most for the thread's first
 * drain (the open attempt and what was ready then). */
#define FIRST_DRAIN_WAIT_MS 2000

/* ReplayFile: a thread replays capture files into the queue instead of
 * reading the device (replay.h); the read callback is the same. */
static struct zvm_replay_options replay_opts;
static struct zvm_replay *replay;

static c_complain_t dispatch_complaint = C_COMPLAIN_INIT_STATIC;
static c_complain_t oom_complaint = C_COMPLAIN_INIT_STATIC;
static c_complain_t reader_complaint = C_COMPLAIN_INIT_STATIC;
static c_complain_t users_complaint = C_COMPLAIN_INIT_STATIC;
static c_complain_t restamp_complaint = C_COMPLAIN_INIT_STATIC;
static c_complain_t future_complaint = C_COMPLAIN_INIT_STATIC;
static c_complain_t guest_complaint = C_COMPLAIN_INIT_STATIC;
static uint64_t leap_logged_us = UINT64_MAX;

/* Configuration may come in several <Plugin> blocks, or not at all. */
static int conf_prepare(void) {
  if (conf_ready)
    return 0;
  if (zvm_conf_init(&conf, zvm_registry_builtin()) != 0)
    return -1;
  zvm_replay_options_init(&replay_opts);
  zvm_recconf_init(&user_records, conf.records);
  conf_ready = true;
  return 0;
}

/* <Record "D/R"> blocks: every value goes to the recconf builder, which
 * decides what is wrong with it (plugin/config/recconf.c); its tables
 * name the kind. */
static int config_record_item(oconfig_item_t *item, char *err,
                              size_t err_size) {
  const struct zvm_option *o = zvm_recconf_option(&user_records, item->key);
  struct zvm_option_value v = {.type = ZVM_OPTION_STRING, .string = ""};
  if (o == NULL) /* the builder names the options it knows */
    return zvm_recconf_set(&user_records, item->key, &v, err, err_size);
  char *str;
  if (zvm_glue_option_value(item, o->kind, &v, &str, err, err_size) != 0)
    return -1;
  int status;
  if (o->kind == ZVM_OPTION_BLOCK) { /* <Field "name">, <Array "name"> */
    status = zvm_recconf_block_begin(&user_records, item->key, v.string, err,
                                     err_size);
    for (int i = 0; status == 0 && i < item->children_num; i++)
      status = config_record_item(item->children + i, err, err_size);
    if (status == 0)
      status = zvm_recconf_block_end(&user_records, err, err_size);
  } else {
    status = zvm_recconf_set(&user_records, item->key, &v, err, err_size);
  }
  sfree(str);
  return status;
}

static int config_record(oconfig_item_t *ci, char *err, size_t err_size) {
  char *id = NULL;
  if (cf_util_get_string(ci, &id) != 0) {
    snprintf(err, err_size,
             "Record: give the record as <Record \"D/R\">, "
             "e.g. <Record \"0/2\">");
    return -1;
  }
  int status = zvm_recconf_record_begin(&user_records, id, err, err_size);
  sfree(id);
  for (int i = 0; status == 0 && i < ci->children_num; i++)
    status = config_record_item(ci->children + i, err, err_size);
  return status == 0 ? zvm_recconf_record_end(&user_records, err, err_size)
                     : status;
}

/* An option of the plugin's block: a row of the configuration's or of a
 * record's (conf.h: zvm_conf_option). */
static int config_option(oconfig_item_t *child, char *err, size_t err_size) {
  void *target = NULL;
  const struct zvm_option *o = zvm_conf_option(&conf, child->key, &target);
  return zvm_glue_option(o, o != NULL ? 1 : 0, target, child, NULL, err,
                         err_size);
}

static int zvm_config(oconfig_item_t *ci) {
  if (conf_prepare() != 0) {
    ERROR(LOG_PREFIX "out of memory");
    return -1;
  }
  for (int i = 0; i < ci->children_num; i++) {
    char err[512] = "";
    oconfig_item_t *child = ci->children + i;
    size_t nreplay;
    const struct zvm_option *replay_rows = zvm_replay_options_table(&nreplay);
    int status = strcasecmp(child->key, "Record") == 0
                     ? config_record(child, err, sizeof(err))
                 : zvm_replay_option_is(child->key)
                     ? zvm_glue_option(replay_rows, nreplay, &replay_opts,
                                       child, NULL, err, sizeof(err))
                     : config_option(child, err, sizeof(err));
    if (status != 0) {
      ERROR(LOG_PREFIX "%s", err);
      return -1;
    }
  }
  char err[512] = "";
  if (zvm_conf_check(&conf, err, sizeof(err)) != 0 ||
      zvm_recconf_check_domains(&user_records, conf.domains, err,
                                sizeof(err)) != 0) {
    ERROR(LOG_PREFIX "%s", err);
    return -1;
  }
  return 0;
}

static void reader_log(enum zvm_log_level level, const char *msg, void *ctx) {
  (void)ctx;
  static const int levels[] = {
      [ZVM_LOG_ERR] = LOG_ERR,
      [ZVM_LOG_WARNING] = LOG_WARNING,
      [ZVM_LOG_NOTICE] = LOG_NOTICE,
      [ZVM_LOG_INFO] = LOG_INFO,
  };
  int severity =
      (unsigned)level < STATIC_ARRAY_SIZE(levels) ? levels[level] : LOG_ERR;
  plugin_log(severity, LOG_PREFIX "%s", msg);
}

/* Reader thread: a complete set from the device goes into the queue. */
static void set_ready(const uint8_t *set, size_t len, void *ctx) {
  struct zvm_reader *r = ctx;
  cdtime_t t0 = cdtime();
  switch (zvm_setq_push(queue, set, len, zvm_reader_get_stats(r))) {
  case ZVM_SETQ_WAITED:
    if (!queue_full_logged) {
      struct zvm_setq_stats qs;
      zvm_setq_get_stats(queue, &qs);
      WARNING(LOG_PREFIX "the queue of data sets was full (MaxQueueSize %zu "
                         "bytes): the read callback does not keep up, so "
                         "reading %s paused for %.3f s until it took the "
                         "queued sets; z/VM data may have been lost (see "
                         "errors-eoverflow; %" PRIu64 " waits so far)",
              conf.max_queue_size, conf.device,
              CDTIME_T_TO_DOUBLE(cdtime() - t0), qs.full_waits);
      queue_full_logged = true;
    }
    break;
  case ZVM_SETQ_QUEUED:
    if (queue_full_logged)
      INFO(LOG_PREFIX "the queue of data sets has room again");
    queue_full_logged = false;
    queue_nomem_logged = false;
    break;
  case ZVM_SETQ_NOMEM:
    if (!queue_nomem_logged)
      ERROR(LOG_PREFIX "out of memory: a data set of %zu bytes from %s was "
                       "dropped (counted in total_objects-sets_dropped)",
            len, conf.device);
    queue_nomem_logged = true;
    break;
  case ZVM_SETQ_CLOSED:
  default:
    break; /* shutting down */
  }
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = {.tv_sec = ms / 1000,
                        .tv_nsec = (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

static void *reader_main(void *arg) {
  struct zvm_reader *r = arg;
  struct zvm_reader_stats before = {0};

  while (!zvm_setq_is_closed(queue)) {
    int ready = zvm_reader_wait(r, READER_WAIT_MS);
    int status = zvm_reader_drain(r, set_ready, r);
    const struct zvm_reader_stats *rs = zvm_reader_get_stats(r);
    zvm_setq_publish(queue, rs, status);
    if (status != 0) {
      /* Out of memory: the read callback reports it; retry later, still
       * seeing a shutdown within READER_WAIT_MS. */
      for (unsigned t = 0; t < READER_RETRY_MS && !zvm_setq_is_closed(queue);
           t += READER_WAIT_MS)
        sleep_ms(READER_WAIT_MS);
    } else if (ready > 0 && memcmp(rs, &before, sizeof(before)) == 0) {
      /* Ready, yet nothing happened: never spin on such a device. */
      sleep_ms(10);
    }
    before = *rs;
  }
  return NULL;
}

static void *replay_main(void *arg) {
  zvm_replay_run(arg, queue);
  return NULL;
}

/* One value list, reused for every value of a pass: the identifier parts a
 * value shares with the previous one (same pointer from the mapper) are
 * not copied again. */
#define MAX_ITEMS ZVM_LAYOUT_DS_MAX /* the longest value list */
struct dispatcher {
  value_list_t vl;
  value_t values[MAX_ITEMS];
  const char *host, *plugin, *plugin_instance, *type;
};

static void dispatcher_init(struct dispatcher *d) {
  memset(d, 0, sizeof(*d));
  d->vl.values = d->values;
  d->vl.values_len = 1;
  sstrncpy(d->vl.plugin, PLUGIN_NAME, sizeof(d->vl.plugin));
}

static void dispatch_value(struct dispatcher *d, const struct zvm_value *v) {
  value_list_t *vl = &d->vl;

  if (v->nitems == 0) {
    if (v->kind == ZVM_VALUE_DERIVE)
      d->values[0].derive = (derive_t)v->derive;
    else
      d->values[0].gauge = (gauge_t)v->gauge;
    vl->values_len = 1;
  } else {
    /* A record instance's list: one value per data source. */
    size_t n = v->nitems < MAX_ITEMS ? v->nitems : MAX_ITEMS;
    for (size_t i = 0; i < n; i++) {
      if (v->items[i].kind == ZVM_VALUE_DERIVE)
        d->values[i].derive = (derive_t)v->items[i].derive;
      else
        d->values[i].gauge = (gauge_t)v->items[i].gauge;
    }
    vl->values_len = n;
  }
  /* 0 lets the daemon stamp "now" (reader counters). */
  vl->time = v->time_us != 0 ? US_TO_CDTIME_T(v->time_us) : 0;
  /* An empty host is filled in with the daemon's Hostname. */
  if (v->host != d->host) {
    sstrncpy(vl->host, v->host, sizeof(vl->host));
    d->host = v->host;
  }
  if (v->plugin != d->plugin || d->vl.plugin[0] == '\0') {
    sstrncpy(vl->plugin, v->plugin != NULL ? v->plugin : PLUGIN_NAME,
             sizeof(vl->plugin));
    d->plugin = v->plugin;
  }
  if (v->plugin_instance != d->plugin_instance) {
    sstrncpy(vl->plugin_instance, v->plugin_instance,
             sizeof(vl->plugin_instance));
    d->plugin_instance = v->plugin_instance;
  }
  if (v->type != d->type) {
    sstrncpy(vl->type, v->type, sizeof(vl->type));
    d->type = v->type;
  }
  /* The mapper's strings are shorter than ZVM_ID_MAX (< 128): a copy with
   * its NUL, not sstrncpy(), which pads all 128 bytes for every value. */
  size_t ti_len = strlen(v->type_instance);
  if (ti_len >= sizeof(vl->type_instance))
    ti_len = sizeof(vl->type_instance) - 1;
  memcpy(vl->type_instance, v->type_instance, ti_len);
  vl->type_instance[ti_len] = '\0';

  int status = plugin_dispatch_values(vl);
  if (status != 0)
    c_complain(LOG_WARNING, &dispatch_complaint,
               LOG_PREFIX "plugin_dispatch_values failed with status %i "
                          "(first seen for %s/%s-%s)",
               status, v->plugin_instance, v->type, v->type_instance);
  else
    c_release(LOG_INFO, &dispatch_complaint,
              LOG_PREFIX "plugin_dispatch_values works again");
}

static void dispatch_notification(const struct zvm_notification *zn) {
  notification_t n = {
      .severity =
          zn->severity == ZVM_NOTIF_WARNING ? NOTIF_WARNING : NOTIF_OKAY,
      .time = US_TO_CDTIME_T(zn->time_us),
  };
  sstrncpy(n.message, zn->message, sizeof(n.message));
  sstrncpy(n.host, zn->host[0] != '\0' ? zn->host : hostname_g, sizeof(n.host));
  sstrncpy(n.plugin, PLUGIN_NAME, sizeof(n.plugin));
  sstrncpy(n.plugin_instance, zn->plugin_instance, sizeof(n.plugin_instance));
  sstrncpy(n.type, zn->type, sizeof(n.type));
  sstrncpy(n.type_instance, zn->type_instance, sizeof(n.type_instance));
  plugin_dispatch_notification(&n);
  /* Rare and important: also in the log, where admins look first. */
  NOTICE(LOG_PREFIX "%s", zn->message);
}

/* LeapSecondOffset auto on s390x: the TOD clock (STCKF) against
 * CLOCK_REALTIME, from which the kernel keeps STP's leap-second offset
 * out. Elsewhere the TOD clock cannot be read: the mapper estimates the
 * offset from arrival times. */
static void clock_leap_update(void) {
#if defined(__s390x__)
  uint64_t tod;
  struct timespec ts;
  __asm__ volatile("stckf %0" : "=Q"(tod) : : "cc");
  if (clock_gettime(CLOCK_REALTIME, &ts) == 0) {
    uint64_t tod_us, leap_us;
    uint64_t now_us =
        (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
    if (zvm_tod_unix_us(tod, now_us, &tod_us) &&
        zvm_leap_from_clocks(tod_us, now_us, &leap_us)) {
      zvm_mapper_set_clock_leap(mapper, true, leap_us);
      return;
    }
  }
#endif
  zvm_mapper_set_clock_leap(mapper, false, 0);
}

static const char *leap_method_name(enum zvm_leap_method m) {
  switch (m) {
  case ZVM_LEAP_CONFIGURED:
    return "LeapSecondOffset";
  case ZVM_LEAP_CLOCKS:
    return "the TOD clock against CLOCK_REALTIME";
  default:
    return "record times against arrival times";
  }
}

/* The time rule's log: the first restamped value of an episode (passes in
 * a row with restamped values), then rate limited; an offset change once. */
static void log_times(const struct zvm_mapper_stats *ms) {
  if (ms->leap_us != leap_logged_us) {
    if (ms->leap_us != 0 || leap_logged_us != UINT64_MAX)
      INFO(LOG_PREFIX "record times: the TOD clock is %" PRIu64
                      " s ahead of UTC (from %s)",
           ms->leap_us / 1000000, leap_method_name(ms->leap_method));
    leap_logged_us = ms->leap_us;
  }
  if (ms->pass_future > 0) {
    const struct zvm_restamp_note *n = &ms->first_future;
    c_complain(LOG_WARNING, &future_complaint,
               LOG_PREFIX "record time %.6f of %s is more than %" PRIu64
                          " s after its set arrived (a TOD glitch or a "
                          "damaged record): its values are stamped %.6f and "
                          "counted in total_objects-time_future (%" PRIu64
                          " this pass)",
               (double)n->record_us / 1e6, n->what,
               ZVM_TIME_AHEAD_MAX_US / 1000000, (double)n->stamped_us / 1e6,
               ms->pass_future);
  } else if (ms->pass_timed > 0) {
    c_release(LOG_INFO, &future_complaint,
              LOG_PREFIX "record times are near their arrival again");
  }
  if (ms->pass_restamped > 0) {
    const struct zvm_restamp_note *n = &ms->first_restamp;
    c_complain(
        LOG_NOTICE, &restamp_complaint,
        LOG_PREFIX "record time %.6f of %s is not after its last "
                   "time %.6f (equal TODs, or the z/VM clock was "
                   "set back): its values are stamped %.6f (%s) and "
                   "counted in total_objects-restamped (%" PRIu64 " this pass)",
        (double)n->record_us / 1e6, n->what, (double)n->last_us / 1e6,
        (double)n->stamped_us / 1e6,
        n->arrival ? "the arrival time of its set" : "its last time + 1 us",
        ms->pass_restamped);
  } else if (ms->pass_timed > 0) {
    c_release(LOG_INFO, &restamp_complaint,
              LOG_PREFIX "record times increase again");
  }
}

/* Notifications of device and data-loss episodes: plugin_instance
 * "reader", type "errors", type_instance the kind (see the man page). */
static void dispatch_events(const struct zvm_reader_stats *rs) {
  struct zvm_event_notif out[ZVM_EVENT_KINDS];
  cdtime_t now = cdtime();
  size_t n = zvm_events_update(&events, rs, CDTIME_T_TO_US(now), out);
  for (size_t i = 0; i < n; i++) {
    notification_t note = {
        .severity =
            out[i].severity == ZVM_EVENT_WARNING ? NOTIF_WARNING : NOTIF_OKAY,
        .time = now,
    };
    sstrncpy(note.message, out[i].message, sizeof(note.message));
    sstrncpy(note.host, hostname_g, sizeof(note.host));
    sstrncpy(note.plugin, PLUGIN_NAME, sizeof(note.plugin));
    sstrncpy(note.plugin_instance, "reader", sizeof(note.plugin_instance));
    sstrncpy(note.type, "errors", sizeof(note.type));
    sstrncpy(note.type_instance, zvm_event_kind_name(out[i].kind),
             sizeof(note.type_instance));
    plugin_dispatch_notification(&note);
  }
}

static int zvm_read(user_data_t *ud) {
  (void)ud;
  struct zvm_reader_stats rs;
  int status;
  if (!first_read_done) {
    (void)zvm_setq_wait_published(queue, FIRST_DRAIN_WAIT_MS);
    first_read_done = true;
  }
  struct zvm_qset *sets = zvm_setq_take(queue, &rs, &status);

  /* Sets handed over before a failure are complete and valid. */
  if (conf.leap_auto)
    clock_leap_update();
  for (const struct zvm_qset *s = sets; s != NULL; s = s->next)
    zvm_mapper_add_set_at(mapper, s->data, s->len, s->arrival_us);
  zvm_qset_free(sets);
  dispatch_events(&rs);
  if (zvm_mapper_finish(mapper, CDTIME_T_TO_US(cdtime()), &rs.health) != 0)
    c_complain(LOG_ERR, &oom_complaint,
               LOG_PREFIX "out of memory: values were lost");
  else
    c_release(LOG_INFO, &oom_complaint, LOG_PREFIX "memory available again");

  struct dispatcher d;
  struct zvm_value_iter it = ZVM_VALUE_ITER_INIT;
  struct zvm_value v;
  dispatcher_init(&d);
  while (zvm_mapper_next_value(mapper, &it, &v))
    dispatch_value(&d, &v);
  size_t n;
  const struct zvm_notification *notifs = zvm_mapper_notifications(mapper, &n);
  for (size_t i = 0; i < n; i++)
    dispatch_notification(&notifs[i]);

  const struct zvm_mapper_stats *ms = zvm_mapper_get_stats(mapper);
  log_times(ms);
  if (ms->users_dropped > users_dropped_logged) {
    users_dropped_logged = ms->users_dropped;
    c_complain(LOG_WARNING, &users_complaint,
               LOG_PREFIX "more than %d instances of z/VM's records at once "
                          "(user IDs, CPU types, <Record> instances): records "
                          "of further ones are dropped (%" PRIu64 " so far)",
               ZVM_MAPPER_MAX_USERS, ms->users_dropped);
  }
  if (ms->pass_guest_dropped > 0) {
    const struct zvm_guest_note *g = &ms->first_guest_drop;
    if (g->pool_full)
      c_complain(LOG_WARNING, &guest_complaint,
                 LOG_PREFIX "APPLDATA instances of guest %s refused: the "
                            "guests hold %d instances (%s the most, %" PRIu64
                            "); counted in total_objects-%s (%" PRIu64
                            " this pass); lower ApplDataInstancesPerGuest",
                 g->guest, ZVM_MAPPER_MAX_GUEST_INSTANCES, g->top, g->top_held,
                 g->counter, ms->pass_guest_dropped);
    else
      c_complain(LOG_WARNING, &guest_complaint,
                 LOG_PREFIX "guest %s writes APPLDATA for more than %" PRIu64
                            " instances (mount points, processes): records "
                            "of further ones are dropped and counted in "
                            "total_objects-%s (%" PRIu64 " this pass); raise "
                            "ApplDataInstancesPerGuest if that is expected",
                 g->guest, g->limit, g->counter, ms->pass_guest_dropped);
  } else if (ms->pass_timed > 0) {
    c_release(LOG_INFO, &guest_complaint,
              LOG_PREFIX "no APPLDATA instances refused any more");
  }

  /* The reader thread retries a failed drain (out of memory) every
   * READER_RETRY_MS. -1 here would not help it: collectd would back this
   * callback off, doubling its interval up to a day, while the queue
   * filled and z/VM dropped messages. So: logged (rate-limited), 0. */
  if (status != 0)
    c_complain(LOG_ERR, &reader_complaint,
               LOG_PREFIX "the reader of %s is out of memory: data may be "
                          "lost (see errors-eoverflow and "
                          "total_objects-sets_dropped); it tries again every "
                          "%d ms",
               conf.device, READER_RETRY_MS);
  else
    c_release(LOG_INFO, &reader_complaint,
              LOG_PREFIX "the reader of %s works again", conf.device);
  return 0;
}

static void domains_text(zvm_domain_mask_t mask, char *buf, size_t size) {
  if (mask == ZVM_DOMAINS_ALL) {
    sstrncpy(buf, "all", size);
    return;
  }
  buf[0] = '\0';
  for (unsigned d = 0; d < ZVM_DOMAIN_COUNT; d++) {
    if (!(mask & ZVM_DOMAIN_BIT(d)))
      continue;
    const char *name = zvm_domain_name(d);
    size_t len = strlen(buf);
    if (name != NULL)
      snprintf(buf + len, size - len, "%s%s", len ? "," : "", name);
    else
      snprintf(buf + len, size - len, "%s%u", len ? "," : "", d);
  }
}

static int zvm_shutdown(void);

/* Start the thread that feeds the queue (the device reader, or a replay),
 * then the read callback. what: "reader" or "replay". */
static int start_feeder(void *(*fn)(void *), void *arg, const char *what) {
  int status = plugin_thread_create(&reader_thread, fn, arg, PLUGIN_NAME);
  if (status != 0) {
    ERROR(LOG_PREFIX "cannot start the %s thread: %s", what, STRERROR(status));
    zvm_shutdown();
    return -1;
  }
  reader_thread_running = true;
  status = plugin_register_complex_read(/* group = */ NULL, PLUGIN_NAME,
                                        zvm_read, /* interval = */ 0,
                                        /* user_data = */ NULL);
  if (status != 0) {
    ERROR(LOG_PREFIX "plugin_register_complex_read failed (%i)", status);
    zvm_shutdown();
    return -1;
  }
  return 0;
}

/* Every record's value-list type, so that collectd.conf needs no TypesDB
 * line for them (the daemon keeps a copy of each). */
static int register_types(void) {
  for (size_t t = 0; t < zvm_mapper_type_count(mapper); t++) {
    const struct zvm_layout *l = zvm_mapper_type_at(mapper, t);
    struct zvm_ds ds[ZVM_LAYOUT_DS_MAX];
    size_t n = zvm_layout_data_sources(l, ds, STATIC_ARRAY_SIZE(ds));
    if (n > STATIC_ARRAY_SIZE(ds))
      n = STATIC_ARRAY_SIZE(ds);
    /* A record's type must not replace one of collectd's own types (a
     * <Record> block naming its type "derive" would break every plugin
     * using it); the plugin's own zvm_ types may replace an older
     * definition from a TypesDB line. */
    if (zvm_glue_type_known(l->type_name, ds, n) != ZVM_GLUE_TYPE_NEW &&
        strncmp(l->type_name, "zvm_", 4) != 0) {
      ERROR(LOG_PREFIX "the type %s is already defined (TypesDB): name the "
                       "record's type differently",
            l->type_name);
      return -1;
    }
    int status = zvm_glue_type_register(l->type_name, ds, n);
    if (status != 0) {
      ERROR(LOG_PREFIX "cannot register the type %s (status %i)", l->type_name,
            status);
      return -1;
    }
  }
  return 0;
}

/* ReplayFile given: capture files feed the queue instead of the device.
 * 0, or -1 after logging why. */
static int replay_create(void) {
  char err[512] = "";
  struct zvm_replay_config rc = {
      .patterns = (const char *const *)replay_opts.patterns,
      .npatterns = replay_opts.npatterns,
      .speed = replay_opts.speed,
      .loop = replay_opts.loop,
      .max_set_size = conf.max_set_size,
      .log = reader_log,
  };
  replay = zvm_replay_create(&rc, err, sizeof(err));
  if (replay == NULL)
    ERROR(LOG_PREFIX "%s", err);
  return replay != NULL ? 0 : -1;
}

static int replay_start(void) {
  if (start_feeder(replay_main, replay, "replay") != 0)
    return -1;
  const char *const *files;
  size_t nfiles = zvm_replay_files(replay, &files);
  char speed[64];
  if (replay_opts.speed > 0)
    snprintf(speed, sizeof(speed), "%g x the recorded pace", replay_opts.speed);
  else
    sstrncpy(speed, "as fast as possible", sizeof(speed));
  INFO(LOG_PREFIX "replaying %zu capture file(s) instead of %s, first %s; %s%s",
       nfiles, conf.device, files[0], speed,
       replay_opts.loop ? "; in a loop" : "");
  return 0;
}

/* A <Record> block's type is registered like the built-in ones; programs
 * that read collectd's network packets themselves (InfluxDB's collectd
 * listener) need its types.db line: it goes to the log. */
static void log_user_layout(const struct zvm_record_desc *d,
                            const struct zvm_layout *l, const char *what) {
  if (zvm_layout_data_sources(l, NULL, 0) == 0) {
    INFO(LOG_PREFIX "record %u/%u from its <Record> block%s: no values of "
                    "its own, its arrays' only (no type %s)",
         (unsigned)d->domain, (unsigned)d->number, what,
         l->type_name != NULL ? l->type_name : "");
    return;
  }
  if (l->one_value_per_list) {
    INFO(LOG_PREFIX "record %u/%u from its <Record> block%s: more data "
                    "sources than one value list holds, so one value per "
                    "list (types derive and gauge, type instance the data "
                    "source)",
         (unsigned)d->domain, (unsigned)d->number, what);
    return;
  }
  char line[900];
  if (zvm_layout_types_db_line(l, line, sizeof(line)) < 0)
    sstrncpy(line,
             "(too long for the log: list the data sources in field "
             "order, counters as DERIVE:0:U, gauges as GAUGE:U:U)",
             sizeof(line));
  INFO(LOG_PREFIX "record %u/%u from its <Record> block%s, type %s; "
                  "types.db line: %s",
       (unsigned)d->domain, (unsigned)d->number, what, l->type_name, line);
}

static void log_user_records(void) {
  for (size_t i = 0; i < zvm_registry_count(conf.records); i++) {
    const struct zvm_record_desc *d = zvm_registry_at(conf.records, i);
    if (!d->user_defined)
      continue;
    log_user_layout(d, &d->main, "");
    for (size_t a = 0; a < d->narrays; a++) {
      char what[64];
      snprintf(what, sizeof(what), ", array %s", d->arrays[a].ibm_name);
      log_user_layout(d, &d->arrays[a].entry, what);
    }
  }
}

/* A <Record> field's OneValueType must be a type of collectd's types.db of
 * one value of the field's kind (value:GAUGE or value:DERIVE), or its
 * values would be refused at every dispatch. 0, or -1 after logging. */
static int check_user_single_types(void) {
  for (size_t i = 0; i < zvm_registry_count(conf.records); i++) {
    const struct zvm_record_desc *d = zvm_registry_at(conf.records, i);
    for (size_t a = 0; d->user_defined && a <= d->narrays; a++) {
      const struct zvm_layout *l = a == 0 ? &d->main : &d->arrays[a - 1].entry;
      for (size_t f = 0; f < l->nfields; f++) {
        const struct zvm_field *fl = &l->fields[f];
        if (fl->single_type == NULL)
          continue;
        struct zvm_ds ds = {.name = "value",
                            .type = fl->kind == ZVM_FIELD_COUNTER
                                        ? ZVM_DS_DERIVE
                                        : ZVM_DS_GAUGE};
        if (zvm_glue_type_known(fl->single_type, &ds, 1) !=
            ZVM_GLUE_TYPE_SAME) {
          ERROR(LOG_PREFIX "Record \"%u/%u\" Field \"%s\": OneValueType "
                           "\"%s\" is not a type of one %s value in collectd's "
                           "types.db; name one that is (e.g. %s)",
                (unsigned)d->domain, (unsigned)d->number, fl->metric,
                fl->single_type,
                fl->kind == ZVM_FIELD_COUNTER ? "DERIVE" : "GAUGE",
                fl->kind == ZVM_FIELD_COUNTER ? "derive" : "gauge");
          return -1;
        }
      }
    }
  }
  return 0;
}

static int zvm_init(void) {
  INFO(LOG_PREFIX "version " ZVM_PACKAGE_VERSION);
  if (conf_prepare() != 0) {
    ERROR(LOG_PREFIX "out of memory");
    return -1;
  }
  mapper = zvm_mapper_create(&conf);
  if (mapper != NULL && replay_opts.npatterns > 0 && replay_create() != 0) {
    zvm_shutdown();
    return -1;
  }
  struct zvm_reader_config rc = {
      .device = conf.device,
      .max_set_size = conf.max_set_size,
      .io = NULL,
      .log = reader_log,
  };
  zvm_events_init(&events, conf.device,
                  EPISODE_SETTLE_INTERVALS *
                      CDTIME_T_TO_US(plugin_get_interval()));
  events.enabled[ZVM_EVENT_OVERFLOW] = conf.notify[ZVM_NOTIFY_OVERFLOW];
  events.enabled[ZVM_EVENT_DISCARD] = conf.notify[ZVM_NOTIFY_DISCARD];
  events.enabled[ZVM_EVENT_DEVICE] = conf.notify[ZVM_NOTIFY_DEVICE];
  if (mapper != NULL && replay == NULL)
    reader = zvm_reader_create(&rc);
  if (reader != NULL || replay != NULL)
    queue = zvm_setq_create(conf.max_queue_size);
  if (mapper == NULL || (reader == NULL && replay == NULL) || queue == NULL) {
    ERROR(LOG_PREFIX "out of memory while starting");
    zvm_shutdown();
    return -1;
  }
  if (register_types() != 0 || check_user_single_types() != 0) {
    zvm_shutdown();
    return -1;
  }
  log_user_records();
  if (replay != NULL)
    return replay_start();

  /* The thread opens the device, and re-opens it with back-off; a missing
   * device is therefore not fatal here. */
  if (start_feeder(reader_main, reader, "reader") != 0)
    return -1;

  char domains[256];
  domains_text(conf.domains, domains, sizeof(domains));
  INFO(LOG_PREFIX "reading %s; domains: %s; %zu UserID rule(s)%s; "
                  "GuestsAsHosts %s; OneValuePerList %s; %zu types registered",
       conf.device, domains, conf.userids.num,
       conf.userids.invert ? " ignored" : "",
       conf.guests_as_hosts ? "true" : "false",
       conf.one_value_per_list ? "true" : "false",
       zvm_mapper_type_count(mapper));
  return 0;
}

/* Join the feeder thread within SHUTDOWN_JOIN_MS. false: it is still
 * running (detached now; what it uses must not be freed). */
static bool join_feeder(void) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += (long)(SHUTDOWN_JOIN_MS % 1000) * 1000000L;
  until.tv_sec += SHUTDOWN_JOIN_MS / 1000 + until.tv_nsec / 1000000000L;
  until.tv_nsec %= 1000000000L;
  int status = pthread_timedjoin_np(reader_thread, NULL, &until);
  if (status == 0)
    return true;
  WARNING(LOG_PREFIX "the %s thread did not stop within %d ms (a read() of "
                     "%s that blocks although the device was opened "
                     "O_NONBLOCK?): leaving it behind",
          replay != NULL ? "replay" : "reader", SHUTDOWN_JOIN_MS, conf.device);
  pthread_detach(reader_thread);
  return false;
}

static int zvm_shutdown(void) {
  /* The thread sees the stop between two reads and the closed queue
   * within READER_WAIT_MS (a push waiting for room returns at once).
   * Closing the device then severs the IUCV path at once. */
  bool joined = true;
  if (reader != NULL)
    zvm_reader_stop(reader);
  if (queue != NULL)
    zvm_setq_close(queue);
  if (reader_thread_running)
    joined = join_feeder();
  reader_thread_running = false;
  queue_full_logged = queue_nomem_logged = false;
  first_read_done = false;
  /* A thread left behind still uses the reader (or replay) and the queue
   * (closed: it takes nothing more); the process is about to exit. */
  if (joined) {
    if (reader != NULL)
      zvm_reader_destroy(reader);
    reader = NULL;
    zvm_replay_destroy(replay);
    replay = NULL;
    zvm_setq_destroy(queue);
    queue = NULL;
  }
  zvm_replay_options_free(&replay_opts);
  zvm_mapper_destroy(mapper);
  mapper = NULL;
  if (conf_ready) {
    zvm_conf_free(&conf);
    zvm_recconf_free(&user_records);
  }
  conf_ready = false;
  users_dropped_logged = 0;
  leap_logged_us = UINT64_MAX;
  return 0;
}

void module_register(void) {
  plugin_register_complex_config(PLUGIN_NAME, zvm_config);
  plugin_register_init(PLUGIN_NAME, zvm_init);
  plugin_register_shutdown(PLUGIN_NAME, zvm_shutdown);
}
