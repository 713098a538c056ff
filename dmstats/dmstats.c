/* SPDX-License-Identifier: MIT */
/*
 * dmstats - collectd read plugin for device-mapper I/O statistics
 * (dm-stats regions), a companion of zvm_monitor.
 *
 * The only file that sees collectd: it walks the configuration, runs the
 * core's read pass with the real libdevmapper, and dispatches what the
 * core emits. Everything but module_register() is static.
 */
#include "collectd/core/daemon/collectd.h"

#include "collectd/core/daemon/plugin.h"
#include "collectd/core/utils/common/common.h"

#include "base/collectd.h"
#include "dmstats/dmstats.h"
#include "dmstats/libdm.h"

#define PLUGIN_NAME "dmstats"
#define LOG_PREFIX PLUGIN_NAME " plugin: "

static struct dms_conf conf;
static bool conf_initialised;
static bool conf_finished;
static struct dms_ctx *ctx;

static void conf_prepare(void) {
  if (!conf_initialised) {
    dms_conf_init(&conf);
    conf_initialised = true;
  }
}

/* Every failing option leaves its one-line reason in err. */
static int dmstats_config(oconfig_item_t *ci) {
  char err[512] = "";
  conf_prepare();
  size_t n;
  const struct zvm_option *rows = dms_conf_options(&n);
  int rc = 0;
  for (int i = 0; i < ci->children_num && rc == 0; i++)
    rc = zvm_glue_option(rows, n, &conf, ci->children + i,
                         DMS_UNKNOWN_OPTION_HINT, err, sizeof(err));
  if (rc == 0)
    rc = dms_conf_finish(&conf, err, sizeof(err));
  if (rc != 0) {
    ERROR(LOG_PREFIX "%s", err);
    return -1;
  }
  conf_finished = true;
  return 0;
}

/* The core logs problems once when they start and once when they end. */
static void log_line(void *arg, enum dms_log_level level, const char *message) {
  (void)arg;
  switch (level) {
  case DMS_LOG_ERR:
    ERROR(LOG_PREFIX "%s", message);
    break;
  case DMS_LOG_WARNING:
    WARNING(LOG_PREFIX "%s", message);
    break;
  case DMS_LOG_INFO:
    INFO(LOG_PREFIX "%s", message);
    break;
  }
}

static int dmstats_init(void) {
  if (ctx == NULL)
    INFO(LOG_PREFIX "version " ZVM_PACKAGE_VERSION);
  conf_prepare();
  if (!conf_finished) {
    char err[512] = "";
    if (dms_conf_finish(&conf, err, sizeof(err)) != 0) {
      ERROR(LOG_PREFIX "%s", err);
      return -1;
    }
    conf_finished = true;
  }
  if (ctx != NULL)
    return 0;
  dms_libdm_quiet_begin();
  ctx = dms_ctx_create(&conf, dms_libdm(), log_line, NULL);
  dms_libdm_quiet_end();
  if (ctx == NULL) {
    ERROR(LOG_PREFIX "cannot start (see the message above, or out of "
                     "memory)");
    return -1;
  }
  return 0;
}

static void emit(void *arg, const char *plugin_instance, const char *type,
                 const char *type_instance, const struct dms_value *values,
                 size_t values_num) {
  (void)arg;
  value_t v[2];
  value_list_t vl = VALUE_LIST_INIT;
  if (values_num > STATIC_ARRAY_SIZE(v))
    return;
  for (size_t i = 0; i < values_num; i++) {
    if (values[i].is_gauge)
      v[i].gauge = values[i].gauge;
    else
      v[i].derive = values[i].derive;
  }
  vl.values = v;
  vl.values_len = values_num;
  sstrncpy(vl.plugin, PLUGIN_NAME, sizeof(vl.plugin));
  sstrncpy(vl.plugin_instance, plugin_instance, sizeof(vl.plugin_instance));
  sstrncpy(vl.type, type, sizeof(vl.type));
  sstrncpy(vl.type_instance, type_instance, sizeof(vl.type_instance));
  plugin_dispatch_values(&vl);
}

static int dmstats_read(void) {
  if (ctx == NULL)
    return -1;
  dms_libdm_quiet_begin();
  dms_read(ctx, CDTIME_T_TO_DOUBLE(plugin_get_interval()), emit, NULL);
  dms_libdm_quiet_end();
  return 0; /* problems are logged; nothing to read is not an error */
}

static int dmstats_shutdown(void) {
  dms_libdm_quiet_begin();
  dms_ctx_destroy(ctx); /* deletes the regions the plugin created */
  dms_libdm_quiet_end();
  ctx = NULL;
  if (conf_initialised)
    dms_conf_free(&conf);
  conf_initialised = conf_finished = false;
  return 0;
}

void module_register(void) {
  plugin_register_complex_config(PLUGIN_NAME, dmstats_config);
  plugin_register_init(PLUGIN_NAME, dmstats_init);
  plugin_register_read(PLUGIN_NAME, dmstats_read);
  plugin_register_shutdown(PLUGIN_NAME, dmstats_shutdown);
}
