/* SPDX-License-Identifier: MIT */
/*
 * dmstats - device-mapper I/O statistics for collectd: the core.
 *
 * Device selection, region bookkeeping and the mapping of dm-stats counters
 * (Documentation/admin-guide/device-mapper/statistics.rst) to collectd-style
 * values. No collectd headers: the glue (dmstats/dmstats.c) hands in the
 * configuration and takes the values. libdevmapper is reached only through
 * struct dms_lib, a table of function pointers: dmstats/libdm.c fills it with
 * the real library, the unit tests with a fake one.
 */
#ifndef DMSTATS_DMSTATS_H
#define DMSTATS_DMSTATS_H

#include <libdevmapper.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/option.h"
#include "base/select.h"

#define DMS_DEFAULT_PROGRAM_ID "collectd"
/* aux_data of the regions the plugin creates (a marker for admins). */
#define DMS_AUX_DATA "collectd-dmstats"
/* Upper bound on histogram bins a region can have that we report. */
#define DMS_MAX_BINS 64
/* A series (region or area) unseen for this many reads is forgotten. */
#define DMS_FORGET_AFTER_READS 100

/* ---- the library seam ------------------------------------------------ */
struct dms_lib {
  /* Calls fn for every device-mapper device (DM_DEVICE_LIST); 0 on
   * success, else an errno value (ENOENT: no device-mapper, EACCES: not
   * privileged). */
  int (*list_devices)(void (*fn)(const char *name, void *arg), void *arg);
  struct dm_stats *(*stats_create)(const char *program_id);
  void (*stats_destroy)(struct dm_stats *dms);
  int (*stats_bind_name)(struct dm_stats *dms, const char *name);
  int (*stats_list)(struct dm_stats *dms, const char *program_id);
  int (*stats_populate)(struct dm_stats *dms, const char *program_id,
                        uint64_t region_id);
  uint64_t (*stats_get_nr_regions)(const struct dm_stats *dms);
  int (*stats_region_present)(const struct dm_stats *dms, uint64_t region_id);
  uint64_t (*stats_get_region_nr_areas)(const struct dm_stats *dms,
                                        uint64_t region_id);
  const char *(*stats_get_region_program_id)(const struct dm_stats *dms,
                                             uint64_t region_id);
  int (*stats_get_region_precise_timestamps)(const struct dm_stats *dms,
                                             uint64_t region_id);
  uint64_t (*stats_get_counter)(const struct dm_stats *dms,
                                dm_stats_counter_t counter, uint64_t region_id,
                                uint64_t area_id);
  struct dm_histogram *(*stats_get_histogram)(const struct dm_stats *dms,
                                              uint64_t region_id,
                                              uint64_t area_id);
  int (*histogram_get_nr_bins)(const struct dm_histogram *dmh);
  uint64_t (*histogram_get_bin_upper)(const struct dm_histogram *dmh, int bin);
  uint64_t (*histogram_get_bin_count)(const struct dm_histogram *dmh, int bin);
  int (*stats_create_region)(struct dm_stats *dms, uint64_t *region_id,
                             uint64_t start, uint64_t len, int64_t step,
                             int precise, struct dm_histogram *bounds,
                             const char *program_id, const char *user_data);
  int (*stats_delete_region)(struct dm_stats *dms, uint64_t region_id);
  /* clear is always 0 here: @stats_print_clear would steal other readers'
   * counts. */
  char *(*stats_print_region)(struct dm_stats *dms, uint64_t region_id,
                              unsigned start_line, unsigned num_lines,
                              unsigned clear);
  void (*stats_buffer_destroy)(struct dm_stats *dms, char *buffer);
  struct dm_histogram *(*histogram_bounds_from_string)(const char *bounds);
  void (*histogram_bounds_destroy)(struct dm_histogram *bounds);
  /* errno of the library's last failed ioctl (0 if none), and reset. */
  int (*take_last_errno)(void);
  /* /sys/module/dm_mod/parameters/stats_current_allocated_bytes, or -1. */
  long long (*stats_allocated_bytes)(void);
};

/* ---- configuration ---------------------------------------------------- */
struct dms_conf {
  /* Device: exact names (as device-mapper spells them) or /regex/; none:
   * every device; IgnoreSelected inverts (base/select.h). */
  struct zvm_select devices;
  char **programs; /* ProgramID: regions of these programs; none = all */
  size_t programs_num, programs_cap;
  char *own_program_id; /* RegionProgramID; the plugin's regions */
  bool create_regions;
  char *histogram; /* "1ms,5ms,..." as libdevmapper parses it, or NULL */
  bool precise_timestamps;
  int areas; /* areas of each created region (>= 1) */
  bool per_area;
};

void dms_conf_init(struct dms_conf *conf);
void dms_conf_free(struct dms_conf *conf);
/* The plugin's option table (base/option.h): one row per option. */
const struct zvm_option *dms_conf_options(size_t *n);
/* What an unknown option's error adds. */
#define DMS_UNKNOWN_OPTION_HINT " (see collectd-dmstats(5) for the options)"
/* One option (case-insensitive key) through its row: 0, or -1 with a
 * one-line reason naming the option in err; unknown keys are errors. */
int dms_conf_set(struct dms_conf *conf, const char *key,
                 const struct zvm_option_value *v, char *err, size_t errlen);
/* Checks the options together (e.g. Histogram without CreateRegions). */
int dms_conf_finish(struct dms_conf *conf, char *err, size_t errlen);
bool dms_program_selected(const struct dms_conf *conf, const char *program_id);

/* ---- values ------------------------------------------------------------ */
struct dms_value {
  bool is_gauge;
  int64_t derive;
  double gauge;
};

/* One value list: plugin "dmstats", the instance, type and type instance
 * as in collectd's types.db; values_num is 1 or 2. */
typedef void (*dms_emit_fn)(void *arg, const char *plugin_instance,
                            const char *type, const char *type_instance,
                            const struct dms_value *values, size_t values_num);

enum dms_log_level { DMS_LOG_ERR, DMS_LOG_WARNING, DMS_LOG_INFO };
typedef void (*dms_log_fn)(void *arg, enum dms_log_level level,
                           const char *message);

struct dms_ctx;

/* conf must outlive the context. */
struct dms_ctx *dms_ctx_create(const struct dms_conf *conf,
                               const struct dms_lib *lib, dms_log_fn log,
                               void *log_arg);
/* One read pass. interval_s: collectd's interval (for disk_time). Returns
 * the number of value lists emitted (0 when there was nothing to read). */
size_t dms_read(struct dms_ctx *ctx, double interval_s, dms_emit_fn emit,
                void *emit_arg);
/* Deletes the regions this context created (and only those), frees all. */
void dms_ctx_destroy(struct dms_ctx *ctx);

/* ---- @stats_print of other programs' regions --------------------------- */
/* dm_stats_populate() reads with @stats_print_clear, which resets the
 * counters for every reader; regions of other programs are therefore read
 * with a plain @stats_print (dm_stats_print_region(..., clear=0)) and its
 * documented line format parsed here: "<start>+<len>", 13 counters, and
 * for a region with a histogram of nr_bins bins a 14th field "n:n:...:n"
 * of exactly nr_bins counts (with nr_bins 0 such a field is skipped).
 * Times are converted to ns (x 1000000 unless precise). Fills
 * counters[max_areas][DM_STATS_NR_COUNTERS] and bins[max_areas][nr_bins];
 * returns the number of areas, or -1 if anything is malformed. */
int dms_parse_print(const char *text, bool precise, uint64_t *counters,
                    int nr_bins, uint64_t *bins, size_t max_areas);

#endif
