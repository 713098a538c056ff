/* SPDX-License-Identifier: MIT */
/*
 * dmstats - configuration values: the option table (base/option.h) and its
 * handlers. Devices are selected with the base's name selector
 * (base/select.h): exact names compared as device-mapper spells them, or
 * POSIX extended regexes written "/regex/", inverted by IgnoreSelected.
 */
#include "dmstats/dmstats.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>

void dms_conf_init(struct dms_conf *conf) {
  memset(conf, 0, sizeof(*conf));
  zvm_select_init(&conf->devices, false, 0, "name");
  conf->areas = 1;
}

void dms_conf_free(struct dms_conf *conf) {
  zvm_select_free(&conf->devices);
  for (size_t i = 0; i < conf->programs_num; i++)
    free(conf->programs[i]);
  free(conf->programs);
  free(conf->own_program_id);
  free(conf->histogram);
  dms_conf_init(conf);
}

/* The kernel takes a program_id as one word of a message; a number would
 * be read as the count of optional arguments (statistics.rst). */
static bool valid_program_id(const char *id) {
  if (*id == '\0' || strlen(id) > 127)
    return false;
  bool all_digits = true;
  for (const char *p = id; *p; p++) {
    if (*p <= ' ' || *p >= 0x7f)
      return false;
    if (*p < '0' || *p > '9')
      all_digits = false;
  }
  return !all_digits;
}

static int opt_program(void *t, const struct zvm_option *o,
                       const struct zvm_option_value *v, char *err,
                       size_t errlen) {
  (void)o;
  struct dms_conf *conf = t;
  if (!valid_program_id(v->string))
    return zvm_format_error(err, errlen,
                            "ProgramID \"%s\": must be one word of printable "
                            "characters, not a number",
                            v->string);
  if (!zvm_grow(&conf->programs, &conf->programs_cap, conf->programs_num,
                sizeof(*conf->programs), 4))
    return zvm_format_error(err, errlen, "ProgramID: out of memory");
  if ((conf->programs[conf->programs_num] = strdup(v->string)) == NULL)
    return zvm_format_error(err, errlen, "ProgramID: out of memory");
  conf->programs_num++;
  return 0;
}

/* A string member: not empty; RegionProgramID a valid program_id. */
static int set_string(char **dst, const char *option, const char *value,
                      char *err, size_t errlen) {
  if (*value == '\0')
    return zvm_format_error(err, errlen, "%s: empty value", option);
  if (strcmp(option, "RegionProgramID") == 0 && !valid_program_id(value))
    return zvm_format_error(err, errlen,
                            "RegionProgramID \"%s\": must be one word of "
                            "printable characters, not a number",
                            value);
  char *copy = strdup(value);
  if (copy == NULL)
    return zvm_format_error(err, errlen, "%s: out of memory", option);
  free(*dst);
  *dst = copy;
  return 0;
}

/* RegionProgramID, Histogram: a char * member at o->arg. */
static int opt_string(void *t, const struct zvm_option *o,
                      const struct zvm_option_value *v, char *err,
                      size_t errlen) {
  return set_string((char **)((char *)t + o->arg), o->key, v->string, err,
                    errlen);
}

/* Areas: a number, its fraction dropped (as collectd's cf_util_get_int). */
static int opt_areas(void *t, const struct zvm_option *o,
                     const struct zvm_option_value *v, char *err,
                     size_t errlen) {
  (void)o;
  /* Range first: NaN fails it, and the cast is then defined. */
  if (!(v->number > 0 && v->number < 1000001))
    return zvm_format_error(
        err, errlen, "Areas %g: must be between 1 and 1000000", v->number);
  int areas = (int)v->number;
  if (areas < 1)
    return zvm_format_error(err, errlen,
                            "Areas %d: must be between 1 and 1000000", areas);
  ((struct dms_conf *)t)->areas = areas;
  return 0;
}

#define MEMBER(m) offsetof(struct dms_conf, m)
#define FLAG(m) ZVM_OPTION_BOOLEAN, zvm_option_set_flag, MEMBER(m), NULL

static const struct zvm_option options[] = {
    {"Device", ZVM_OPTION_STRING, zvm_option_add_select, MEMBER(devices), NULL},
    {"IgnoreSelected", ZVM_OPTION_BOOLEAN, zvm_option_invert_select,
     MEMBER(devices), NULL},
    {"ProgramID", ZVM_OPTION_STRING, opt_program, 0, NULL},
    {"RegionProgramID", ZVM_OPTION_STRING, opt_string, MEMBER(own_program_id),
     NULL},
    {"Histogram", ZVM_OPTION_STRING, opt_string, MEMBER(histogram), NULL},
    {"CreateRegions", FLAG(create_regions)},
    {"PreciseTimestamps", FLAG(precise_timestamps)},
    {"PerArea", FLAG(per_area)},
    {"Areas", ZVM_OPTION_NUMBER, opt_areas, 0, NULL},
};

const struct zvm_option *dms_conf_options(size_t *n) {
  *n = sizeof(options) / sizeof(options[0]);
  return options;
}

int dms_conf_set(struct dms_conf *conf, const char *key,
                 const struct zvm_option_value *v, char *err, size_t errlen) {
  return zvm_option_apply(options, sizeof(options) / sizeof(options[0]), conf,
                          key, v, DMS_UNKNOWN_OPTION_HINT, err, errlen);
}

int dms_conf_finish(struct dms_conf *conf, char *err, size_t errlen) {
  if (conf->own_program_id == NULL &&
      set_string(&conf->own_program_id, "RegionProgramID",
                 DMS_DEFAULT_PROGRAM_ID, err, errlen) != 0)
    return -1;
  if (!conf->create_regions) {
    if (conf->histogram != NULL)
      return zvm_format_error(err, errlen,
                              "Histogram needs CreateRegions true (the plugin "
                              "only sets up histograms of regions it creates)");
    if (conf->precise_timestamps)
      return zvm_format_error(err, errlen,
                              "PreciseTimestamps needs CreateRegions true");
    if (conf->areas != 1)
      return zvm_format_error(err, errlen, "Areas needs CreateRegions true");
  }
  return 0;
}

bool dms_program_selected(const struct dms_conf *conf, const char *program_id) {
  if (program_id != NULL && conf->own_program_id != NULL &&
      strcmp(program_id, conf->own_program_id) == 0)
    return true; /* the plugin's own regions */
  if (conf->programs_num == 0)
    return true;
  for (size_t i = 0; i < conf->programs_num; i++)
    if (program_id != NULL && strcmp(conf->programs[i], program_id) == 0)
      return true;
  return false;
}
