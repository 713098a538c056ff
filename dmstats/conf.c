/* SPDX-License-Identifier: MIT */
/*
 * dmstats - configuration values and device/program selection.
 *
 * collectd's ignorelist is not exported by the daemon (plugins that use it
 * link it statically), so the selection is our own: exact names, or POSIX
 * extended regexes written "/regex/", inverted by IgnoreSelected.
 */
#include "dmstats/dmstats.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

void dms_conf_init(struct dms_conf *conf) {
  memset(conf, 0, sizeof(*conf));
  conf->areas = 1;
}

void dms_conf_free(struct dms_conf *conf) {
  for (size_t i = 0; i < conf->devices_num; i++) {
    if (conf->devices[i].is_regex)
      regfree(&conf->devices[i].re);
    free(conf->devices[i].text);
  }
  free(conf->devices);
  for (size_t i = 0; i < conf->programs_num; i++)
    free(conf->programs[i]);
  free(conf->programs);
  free(conf->own_program_id);
  free(conf->histogram);
  dms_conf_init(conf);
}

int dms_conf_add_device(struct dms_conf *conf, const char *spec, char *err,
                        size_t errlen) {
  size_t len = strlen(spec);
  if (len == 0)
    return fail(err, errlen, "Device: empty name");
  struct dms_name_rule rule = {0};
  if (len >= 2 && spec[0] == '/' && spec[len - 1] == '/') {
    rule.is_regex = true;
    rule.text = strndup(spec + 1, len - 2);
    if (rule.text == NULL)
      return fail(err, errlen, "Device: out of memory");
    int rc = regcomp(&rule.re, rule.text, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char why[128];
      regerror(rc, &rule.re, why, sizeof(why));
      free(rule.text);
      return fail(err, errlen, "Device \"%s\": bad regular expression: %s",
                  spec, why);
    }
  } else {
    rule.text = strdup(spec);
    if (rule.text == NULL)
      return fail(err, errlen, "Device: out of memory");
  }
  struct dms_name_rule *grown =
      realloc(conf->devices, (conf->devices_num + 1) * sizeof(*grown));
  if (grown == NULL) {
    if (rule.is_regex)
      regfree(&rule.re);
    free(rule.text);
    return fail(err, errlen, "Device: out of memory");
  }
  conf->devices = grown;
  conf->devices[conf->devices_num++] = rule;
  return 0;
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

int dms_conf_add_program(struct dms_conf *conf, const char *program_id,
                         char *err, size_t errlen) {
  if (!valid_program_id(program_id))
    return fail(err, errlen,
                "ProgramID \"%s\": must be one word of printable characters, "
                "not a number",
                program_id);
  char **grown =
      realloc(conf->programs, (conf->programs_num + 1) * sizeof(*grown));
  if (grown == NULL)
    return fail(err, errlen, "ProgramID: out of memory");
  conf->programs = grown;
  if ((conf->programs[conf->programs_num] = strdup(program_id)) == NULL)
    return fail(err, errlen, "ProgramID: out of memory");
  conf->programs_num++;
  return 0;
}

int dms_conf_set_string(char **dst, const char *option, const char *value,
                        char *err, size_t errlen) {
  if (*value == '\0')
    return fail(err, errlen, "%s: empty value", option);
  if (strcmp(option, "RegionProgramID") == 0 && !valid_program_id(value))
    return fail(err, errlen,
                "RegionProgramID \"%s\": must be one word of printable "
                "characters, not a number",
                value);
  char *copy = strdup(value);
  if (copy == NULL)
    return fail(err, errlen, "%s: out of memory", option);
  free(*dst);
  *dst = copy;
  return 0;
}

int dms_conf_set_areas(struct dms_conf *conf, int areas, char *err,
                       size_t errlen) {
  if (areas < 1 || areas > 1000000)
    return fail(err, errlen, "Areas %d: must be between 1 and 1000000", areas);
  conf->areas = areas;
  return 0;
}

int dms_conf_finish(struct dms_conf *conf, char *err, size_t errlen) {
  if (conf->own_program_id == NULL &&
      dms_conf_set_string(&conf->own_program_id, "RegionProgramID",
                          DMS_DEFAULT_PROGRAM_ID, err, errlen) != 0)
    return -1;
  if (!conf->create_regions) {
    if (conf->histogram != NULL)
      return fail(err, errlen,
                  "Histogram needs CreateRegions true (the plugin only sets "
                  "up histograms of regions it creates)");
    if (conf->precise_timestamps)
      return fail(err, errlen, "PreciseTimestamps needs CreateRegions true");
    if (conf->areas != 1)
      return fail(err, errlen, "Areas needs CreateRegions true");
  }
  return 0;
}

bool dms_device_selected(const struct dms_conf *conf, const char *name) {
  if (conf->devices_num == 0)
    return true;
  bool match = false;
  for (size_t i = 0; i < conf->devices_num && !match; i++) {
    const struct dms_name_rule *r = &conf->devices[i];
    match = r->is_regex ? regexec(&r->re, name, 0, NULL, 0) == 0
                        : strcmp(r->text, name) == 0;
  }
  return match != conf->ignore_selected;
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
