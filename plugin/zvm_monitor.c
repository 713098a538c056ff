/*
 * zvm_monitor - collectd read plugin for the z/VM *MONITOR stream read
 * through Linux's /dev/monreader.
 *
 * The only file that sees collectd: it walks the configuration, owns the
 * reader and the mapper, and turns the mapper's output into value lists
 * and notifications. Everything but module_register() is static.
 */
#include "collectd/core/daemon/collectd.h"

#include "collectd/core/daemon/plugin.h"
#include "collectd/core/daemon/utils_complain.h"
#include "collectd/core/utils/common/common.h"

#include "zvm_monitor/conf.h"
#include "zvm_monitor/mapper.h"
#include "zvm_monitor/reader.h"

#define PLUGIN_NAME "zvm_monitor"
#define LOG_PREFIX PLUGIN_NAME " plugin: "

static struct zvm_conf conf;
static bool conf_ready;
static struct zvm_reader *reader;
static struct zvm_mapper *mapper;
static uint64_t users_dropped_logged;

static c_complain_t dispatch_complaint = C_COMPLAIN_INIT_STATIC;
static c_complain_t oom_complaint = C_COMPLAIN_INIT_STATIC;
static c_complain_t users_complaint = C_COMPLAIN_INIT_STATIC;

/* Configuration may come in several <Plugin> blocks, or not at all. */
static int conf_prepare(void) {
  if (conf_ready)
    return 0;
  if (zvm_conf_init(&conf) != 0)
    return -1;
  conf_ready = true;
  return 0;
}

static const char *kind_name(enum zvm_conf_kind kind) {
  switch (kind) {
  case ZVM_CONF_BOOLEAN:
    return "boolean";
  case ZVM_CONF_NUMBER:
    return "numeric";
  case ZVM_CONF_STRING_OR_NUMBER:
    return "string or numeric";
  default:
    return "string";
  }
}

static int config_option(oconfig_item_t *child, char *err, size_t err_size) {
  enum zvm_conf_kind kind = zvm_conf_option_kind(child->key);

  if (kind == ZVM_CONF_STRING_OR_NUMBER && child->values_num == 1 &&
      child->values[0].type == OCONFIG_TYPE_NUMBER)
    return zvm_conf_set_number(&conf, child->key, child->values[0].value.number,
                               err, err_size);

  switch (kind) {
  case ZVM_CONF_STRING:
  case ZVM_CONF_STRING_OR_NUMBER: {
    char *value = NULL;
    if (cf_util_get_string(child, &value) != 0)
      break;
    int status = zvm_conf_set_string(&conf, child->key, value, err, err_size);
    sfree(value);
    return status;
  }
  case ZVM_CONF_BOOLEAN: {
    bool value;
    if (cf_util_get_boolean(child, &value) != 0)
      break;
    return zvm_conf_set_boolean(&conf, child->key, value, err, err_size);
  }
  case ZVM_CONF_NUMBER: {
    double value;
    if (cf_util_get_double(child, &value) != 0)
      break;
    return zvm_conf_set_number(&conf, child->key, value, err, err_size);
  }
  case ZVM_CONF_UNKNOWN:
  default:
    snprintf(err, err_size, "unknown option \"%s\"", child->key);
    return -1;
  }
  snprintf(err, err_size, "%s: exactly one %s value is required", child->key,
           kind_name(kind));
  return -1;
}

static int zvm_config(oconfig_item_t *ci) {
  if (conf_prepare() != 0) {
    ERROR(LOG_PREFIX "out of memory");
    return -1;
  }
  for (int i = 0; i < ci->children_num; i++) {
    char err[512] = "";
    if (config_option(ci->children + i, err, sizeof(err)) != 0) {
      ERROR(LOG_PREFIX "%s", err);
      return -1;
    }
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

static void set_ready(const uint8_t *set, size_t len, void *ctx) {
  zvm_mapper_add_set(ctx, set, len);
}

/* One value list, reused for every value of a pass: the identifier parts a
 * value shares with the previous one (same pointer from the mapper) are
 * not copied again. */
struct dispatcher {
  value_list_t vl;
  value_t value;
  const char *host, *plugin_instance, *type;
};

static void dispatcher_init(struct dispatcher *d) {
  memset(d, 0, sizeof(*d));
  d->vl.values = &d->value;
  d->vl.values_len = 1;
  sstrncpy(d->vl.plugin, PLUGIN_NAME, sizeof(d->vl.plugin));
}

static void dispatch_value(struct dispatcher *d, const struct zvm_value *v) {
  value_list_t *vl = &d->vl;

  if (v->kind == ZVM_VALUE_DERIVE)
    d->value.derive = (derive_t)v->derive;
  else
    d->value.gauge = (gauge_t)v->gauge;
  /* 0 lets the daemon stamp "now" (reader counters). */
  vl->time = v->time_us != 0 ? US_TO_CDTIME_T(v->time_us) : 0;
  /* An empty host is filled in with the daemon's Hostname. */
  if (v->host != d->host) {
    sstrncpy(vl->host, v->host, sizeof(vl->host));
    d->host = v->host;
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
  sstrncpy(vl->type_instance, v->type_instance, sizeof(vl->type_instance));

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
  sstrncpy(n.host, hostname_g, sizeof(n.host));
  sstrncpy(n.plugin, PLUGIN_NAME, sizeof(n.plugin));
  sstrncpy(n.plugin_instance, zn->plugin_instance, sizeof(n.plugin_instance));
  sstrncpy(n.type, zn->type, sizeof(n.type));
  plugin_dispatch_notification(&n);
  /* Rare and important: also in the log, where admins look first. */
  NOTICE(LOG_PREFIX "%s", zn->message);
}

static int zvm_read(user_data_t *ud) {
  (void)ud;
  int status = zvm_reader_drain(reader, set_ready, mapper);

  /* Sets handed over before a failure are complete and valid. */
  if (zvm_mapper_finish(mapper, CDTIME_T_TO_US(cdtime()),
                        zvm_reader_get_stats(reader)) != 0)
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
  if (ms->users_dropped > users_dropped_logged) {
    users_dropped_logged = ms->users_dropped;
    c_complain(LOG_WARNING, &users_complaint,
               LOG_PREFIX "more than %d user IDs at once: records of further "
                          "users are dropped (%" PRIu64 " so far)",
               ZVM_MAPPER_MAX_USERS, ms->users_dropped);
  }

  if (status != 0) {
    ERROR(LOG_PREFIX "the reader of %s cannot continue (out of memory)",
          conf.device);
    return -1;
  }
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

static int zvm_init(void) {
  if (conf_prepare() != 0) {
    ERROR(LOG_PREFIX "out of memory");
    return -1;
  }
  mapper = zvm_mapper_create(&conf);
  struct zvm_reader_config rc = {
      .device = conf.device,
      .max_set_size = conf.max_set_size,
      .io = NULL,
      .log = reader_log,
  };
  if (mapper != NULL)
    reader = zvm_reader_create(&rc);
  if (mapper == NULL || reader == NULL) {
    ERROR(LOG_PREFIX "out of memory while starting");
    zvm_shutdown();
    return -1;
  }

  /* The device is opened by the first read, and re-opened with back-off;
   * a missing device is therefore not fatal here. */
  int status = plugin_register_complex_read(/* group = */ NULL, PLUGIN_NAME,
                                            zvm_read, /* interval = */ 0,
                                            /* user_data = */ NULL);
  if (status != 0) {
    ERROR(LOG_PREFIX "plugin_register_complex_read failed (%i)", status);
    zvm_shutdown();
    return -1;
  }

  char domains[256];
  domains_text(conf.domains, domains, sizeof(domains));
  INFO(LOG_PREFIX "reading %s; domains: %s; %zu UserID rule(s)%s; "
                  "GuestsAsHosts %s",
       conf.device, domains, conf.userids_num,
       conf.ignore_selected ? " ignored" : "",
       conf.guests_as_hosts ? "true" : "false");
  return 0;
}

static int zvm_shutdown(void) {
  /* Closing the device severs the IUCV path at once; nothing blocks. */
  if (reader != NULL)
    zvm_reader_destroy(reader);
  reader = NULL;
  zvm_mapper_destroy(mapper);
  mapper = NULL;
  if (conf_ready)
    zvm_conf_free(&conf);
  conf_ready = false;
  users_dropped_logged = 0;
  return 0;
}

void module_register(void) {
  plugin_register_complex_config(PLUGIN_NAME, zvm_config);
  plugin_register_init(PLUGIN_NAME, zvm_init);
  plugin_register_shutdown(PLUGIN_NAME, zvm_shutdown);
}
