/* SPDX-License-Identifier: MIT */
/*
 * hypfs - collectd read plugin for the hypervisor figures the Linux kernel's
 * hypfs exports on IBM Z: per z/VM guest (DIAG X'2FC') or per LPAR and CPU
 * (DIAG X'204'). A companion of zvm_monitor; collectd-hypfs(5).
 *
 * The only file that sees collectd: options in, the core's lists out as
 * value lists of the types registered here, faults as rate-limited log
 * lines. Everything but module_register() is static.
 */
#include "collectd/core/daemon/collectd.h"

#include "collectd/core/daemon/plugin.h"
#include "collectd/core/daemon/utils_complain.h"
#include "collectd/core/utils/common/common.h"

#include "base/collectd.h"
#include "hypfs/core.h"

#define PLUGIN_NAME "hypfs"
#define LOG_PREFIX PLUGIN_NAME " plugin: "

static struct hypfs_conf conf;
static bool conf_ready;
static struct hypfs_ctx *ctx;
static c_complain_t complaints[HYPFS_F_KINDS];
static c_complain_t notices[HYPFS_N_KINDS];
static c_complain_t dispatch_complaint = C_COMPLAIN_INIT_STATIC;

static int conf_prepare(void) {
  if (conf_ready)
    return 0;
  if (hypfs_conf_init(&conf) != 0)
    return -1;
  for (size_t i = 0; i < HYPFS_F_KINDS; i++)
    C_COMPLAIN_INIT(&complaints[i]);
  for (size_t i = 0; i < HYPFS_N_KINDS; i++)
    C_COMPLAIN_INIT(&notices[i]);
  conf_ready = true;
  return 0;
}

static int hypfs_config(oconfig_item_t *ci) {
  char err[512] = "";
  if (conf_prepare() != 0) {
    ERROR(LOG_PREFIX "out of memory");
    return -1;
  }
  size_t n;
  const struct zvm_option *rows = hypfs_conf_options(&n);
  for (int i = 0; i < ci->children_num; i++) {
    if (zvm_glue_option(rows, n, &conf, ci->children + i,
                        HYPFS_UNKNOWN_OPTION_HINT, err, sizeof(err)) != 0) {
      ERROR(LOG_PREFIX "%s", err);
      return -1;
    }
  }
  return 0;
}

/* The plugin's types, so collectd.conf needs no TypesDB line; a type
 * already known (contrib/hypfs.types.db in TypesDB) must match. */
static int register_types(void) {
  for (size_t t = 0; t < hypfs_types_num; t++) {
    const struct hypfs_type *ht = &hypfs_types[t];
    struct zvm_ds ds[32];
    if (ht->ds_num > STATIC_ARRAY_SIZE(ds))
      return -1;
    for (size_t i = 0; i < ht->ds_num; i++) {
      memset(&ds[i], 0, sizeof(ds[i]));
      sstrncpy(ds[i].name, ht->ds[i].name, sizeof(ds[i].name));
      ds[i].type = ht->ds[i].gauge ? ZVM_DS_GAUGE : ZVM_DS_DERIVE;
      ds[i].min = ht->ds[i].gauge ? NAN : 0;
      ds[i].max = NAN;
    }
    switch (zvm_glue_type_known(ht->name, ds, ht->ds_num)) {
    case ZVM_GLUE_TYPE_SAME:
      continue;
    case ZVM_GLUE_TYPE_DIFFERENT:
      ERROR(LOG_PREFIX "type %s from a TypesDB file differs from the "
                       "plugin's; use contrib/hypfs.types.db of this "
                       "version",
            ht->name);
      return -1;
    case ZVM_GLUE_TYPE_NEW:
      break;
    }
    if (zvm_glue_type_register(ht->name, ds, ht->ds_num) != 0) {
      ERROR(LOG_PREFIX "cannot register type %s", ht->name);
      return -1;
    }
  }
  return 0;
}

static int hypfs_plugin_init(void) {
  if (ctx == NULL)
    INFO(LOG_PREFIX "version " ZVM_PACKAGE_VERSION);
  if (conf_prepare() != 0) {
    ERROR(LOG_PREFIX "out of memory");
    return -1;
  }
  if (register_types() != 0)
    return -1;
  if (ctx == NULL)
    ctx = hypfs_ctx_create(&conf);
  if (ctx == NULL) {
    ERROR(LOG_PREFIX "out of memory");
    return -1;
  }
  return 0;
}

static void dispatch(value_list_t *vl) {
  int status = plugin_dispatch_values(vl);
  if (status != 0)
    c_complain(LOG_WARNING, &dispatch_complaint,
               LOG_PREFIX "plugin_dispatch_values failed with status %i",
               status);
  else
    c_release(LOG_INFO, &dispatch_complaint,
              LOG_PREFIX "plugin_dispatch_values works again");
}

static const struct hypfs_type *type_of(const char *name) {
  for (size_t t = 0; t < hypfs_types_num; t++)
    if (strcmp(hypfs_types[t].name, name) == 0)
      return &hypfs_types[t];
  return NULL;
}

/* OneValuePerList: each value as type derive or gauge, type instance the
 * data source (after the list's own type instance, if any). */
static void emit_one_per_list(const struct hypfs_list *l,
                              const struct hypfs_type *t, value_list_t *vl) {
  for (size_t i = 0; i < l->values_num && i < t->ds_num; i++) {
    value_t v;
    if (l->values[i].gauge)
      v.gauge = l->values[i].g;
    else
      v.derive = l->values[i].d;
    vl->values = &v;
    vl->values_len = 1;
    sstrncpy(vl->type, l->values[i].gauge ? "gauge" : "derive",
             sizeof(vl->type));
    if (l->type_instance[0] != '\0')
      snprintf(vl->type_instance, sizeof(vl->type_instance), "%s-%s",
               l->type_instance, t->ds[i].name);
    else
      sstrncpy(vl->type_instance, t->ds[i].name, sizeof(vl->type_instance));
    dispatch(vl);
  }
}

static void emit(void *arg, const struct hypfs_list *l) {
  (void)arg;
  value_t v[32];
  value_list_t vl = VALUE_LIST_INIT;
  if (l->values_num > STATIC_ARRAY_SIZE(v))
    return;
  for (size_t i = 0; i < l->values_num; i++) {
    if (l->values[i].gauge)
      v[i].gauge = l->values[i].g;
    else
      v[i].derive = l->values[i].d;
  }
  vl.values = v;
  vl.values_len = l->values_num;
  if (l->host != NULL)
    sstrncpy(vl.host, l->host, sizeof(vl.host));
  sstrncpy(vl.plugin, PLUGIN_NAME, sizeof(vl.plugin));
  sstrncpy(vl.plugin_instance, l->plugin_instance, sizeof(vl.plugin_instance));
  const struct hypfs_type *t;
  if (conf.one_value_per_list && (t = type_of(l->type)) != NULL) {
    emit_one_per_list(l, t, &vl);
    return;
  }
  sstrncpy(vl.type, l->type, sizeof(vl.type));
  sstrncpy(vl.type_instance, l->type_instance, sizeof(vl.type_instance));
  dispatch(&vl);
}

/* What a dispatched snapshot lacked (entries skipped, none at all): a
 * rate-limited warning while it lasts, a line when it is over. */
static void log_notice(void) {
  const char *text;
  bool fresh;
  enum hypfs_notice n = hypfs_ctx_notice(ctx, &text, &fresh);
  if (!fresh)
    return;
  for (size_t i = 1; i < HYPFS_N_KINDS; i++)
    if (i != (size_t)n)
      c_release(LOG_INFO, &notices[i], LOG_PREFIX "%s",
                i == HYPFS_N_EMPTY
                    ? "the snapshot holds entries again"
                    : "no entry of the snapshot skipped any more");
  if (n != HYPFS_N_NONE)
    c_complain(LOG_WARNING, &notices[n], LOG_PREFIX "%s", text);
}

static int hypfs_plugin_read(void) {
  if (ctx == NULL)
    return -1;
  enum hypfs_fault f = hypfs_read(ctx, emit, NULL);
  for (size_t i = 1; i < HYPFS_F_KINDS; i++)
    if (i != (size_t)f)
      c_release(LOG_INFO, &complaints[i],
                LOG_PREFIX "reading works again (fault cleared)");
  if (f == HYPFS_F_EMPTIED) /* once: it names what to do, and it may last */
    c_complain_once(LOG_ERR, &complaints[f], LOG_PREFIX "%s",
                    hypfs_ctx_message(ctx));
  else if (f != HYPFS_F_NONE)
    c_complain(f == HYPFS_F_OWN_ONLY || f == HYPFS_F_DATA ? LOG_WARNING
                                                          : LOG_ERR,
               &complaints[f], LOG_PREFIX "%s", hypfs_ctx_message(ctx));
  log_notice();
  return 0; /* faults are logged; returning an error would only back off */
}

static int hypfs_shutdown(void) {
  hypfs_ctx_destroy(ctx);
  ctx = NULL;
  if (conf_ready)
    hypfs_conf_free(&conf);
  conf_ready = false;
  return 0;
}

void module_register(void) {
  plugin_register_complex_config(PLUGIN_NAME, hypfs_config);
  plugin_register_init(PLUGIN_NAME, hypfs_plugin_init);
  plugin_register_read(PLUGIN_NAME, hypfs_plugin_read);
  plugin_register_shutdown(PLUGIN_NAME, hypfs_shutdown);
}
