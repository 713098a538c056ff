/* SPDX-License-Identifier: MIT */
/*
 * hypfs - configuration, sources (debugfs files, the hypfs tree), per-guest
 * state and the values of one read pass. No collectd headers: the glue
 * (hypfs/hypfs.c) hands options in and turns emitted lists into value lists.
 */
#ifndef HYPFS_CORE_H
#define HYPFS_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/option.h"
#include "base/select.h"
#include "hypfs/hypfs.h"

#define HYPFS_DEFAULT_DEBUGFS_DIR "/sys/kernel/debug/s390_hypfs"
#define HYPFS_DEFAULT_TREE_DIR "/sys/hypervisor/s390"

enum hypfs_source {
  HYPFS_SOURCE_AUTO = 0, /* debugfs if its files exist, else the tree */
  HYPFS_SOURCE_DEBUGFS,
  HYPFS_SOURCE_TREE,
};

struct hypfs_conf {
  char *debugfs_dir; /* DebugfsPath */
  char *tree_dir;    /* HypfsPath */
  enum hypfs_source source;
  /* UserID (z/VM guests), Partition (LPARs): zvm_monitor's UserID
   * semantics (exact names, case-insensitive, trailing blanks ignored, or
   * /regex/), matched with the formatted name (zvm_name_format);
   * IgnoreSelected inverts both. */
  struct zvm_select userids;
  struct zvm_select partitions;
  bool guests_as_hosts;
  bool report_reader_stats;
  /* OneValuePerList: each data source its own value list (standard types
   * derive/gauge, type instance = the data source), for write_graphite,
   * which cannot format a guest's 18 values as one list. */
  bool one_value_per_list;
};

/* Defaults; -1 if out of memory. */
int hypfs_conf_init(struct hypfs_conf *c);
void hypfs_conf_free(struct hypfs_conf *c);
/* The plugin's option table (base/option.h): one row per option. */
const struct zvm_option *hypfs_conf_options(size_t *n);
/* What an unknown option's error adds. */
#define HYPFS_UNKNOWN_OPTION_HINT " (see collectd-hypfs(5) for the options)"
/* One option (case-insensitive key) through its row: 0, or -1 with a
 * one-line reason naming the option in err; unknown keys are errors. */
int hypfs_conf_set(struct hypfs_conf *c, const char *key,
                   const struct zvm_option_value *v, char *err,
                   size_t err_size);

/* ---- value lists -------------------------------------------------------- */

/* The value rows (hypfs/values.c): one row per dispatched value, in the
 * order of its value list, from which the mapping fills the lists, the
 * glue registers the types and contrib/hypfs.types.db is generated. As
 * s390-tools hyptop's sd_sys_item tables: name, source, kind, description. */

/* How a row's value is made from its source. */
enum hypfs_kind {
  HYPFS_GAUGE,   /* GAUGE: the source times the row's scale */
  HYPFS_COUNTER, /* DERIVE: the source, continued per entity across
                    restarts and 32-bit wraps (hypfs/map.c) */
  HYPFS_SUM,     /* DERIVE: a partition's sum of its logical CPUs' counter
                    of the same name (each CPU adds its increase) */
};

struct hypfs_ds {
  const char *name; /* the data source */
  bool gauge;       /* kind == HYPFS_GAUGE; else DERIVE, minimum 0 */
  enum hypfs_kind kind;
  /* The source: an unsigned member of the entity's struct (offset and
   * width in bytes), some bits of one (capped from flags), or a function
   * of the struct for a value the kernel derives (management time from
   * two times). */
  size_t off;
  unsigned width;
  uint32_t mask; /* a gauge of some bits of the member (flags): the member
                    and mask, shifted down by the mask's lowest bit; 0: all */
  double (*gauge_fn)(const void *src);
  uint64_t (*counter_fn)(const void *src);
  double scale;     /* a gauge's unit scale (KiB to bytes: 1024), else 1 */
  bool restart;     /* a counter whose going back means the entity restarted
                       (logoff and logon): every counter of it is continued */
  const char *desc; /* meaning and unit (contrib/hypfs.types.db) */
};

struct hypfs_type {
  const char *name;
  const struct hypfs_ds *ds;
  size_t ds_num;
  const char *desc; /* the entity and its identifiers */
};

/* Every type the plugin dispatches (registered at start-up, shipped in
 * contrib/hypfs.types.db), indexed by enum hypfs_type_id. */
enum hypfs_type_id {
  HYPFS_T_GUEST,           /* a z/VM guest, struct hypfs_guest */
  HYPFS_T_VM,              /* the z/VM hypervisor, struct hypfs_d2fc */
  HYPFS_T_LPAR,            /* a partition, struct hypfs_lpar (extended) */
  HYPFS_T_LPAR_SIMPLE,     /* the same, simple format */
  HYPFS_T_LPAR_CPU,        /* a logical CPU, struct hypfs_lpar_cpu */
  HYPFS_T_LPAR_CPU_SIMPLE, /* the same, simple format */
  HYPFS_T_PHYS_CPU,        /* a physical CPU, struct hypfs_phys_cpu */
  HYPFS_T_LPAR_SYS,        /* the LPAR hypervisor, struct hypfs_d204 */
  HYPFS_T_NUM
};
extern const struct hypfs_type hypfs_types[];
extern const size_t hypfs_types_num;

/* Bounds the rows keep (hypfs_rows_check()): data sources of one list,
 * counters of one entity, counters of a logical CPU (its partition keeps
 * a sum of each; the bound keeps every entity small). */
#define HYPFS_DS_MAX 32
#define HYPFS_COUNTERS_MAX 8
#define HYPFS_SUMS_MAX 4

/* A row's value from its source struct: the raw unsigned value (a member,
 * its bits of mask, or counter_fn), and a gauge's value (gauge_fn, or the
 * raw value times scale). Inline; the mapping reads the usual rows by its
 * plans (hypfs/map.c) and the others with them. */
__attribute__((always_inline)) static inline uint64_t
hypfs_ds_raw(const struct hypfs_ds *r, const void *src) {
  if (r->counter_fn != NULL)
    return r->counter_fn(src);
  const uint8_t *p = (const uint8_t *)src + r->off;
  uint64_t x;
  switch (r->width) {
  case 1:
    x = p[0];
    break;
  case 2: {
    uint16_t y;
    memcpy(&y, p, 2);
    x = y;
    break;
  }
  case 4: {
    uint32_t y;
    memcpy(&y, p, 4);
    x = y;
    break;
  }
  default:
    memcpy(&x, p, 8);
    break;
  }
  return r->mask != 0 ? (x & r->mask) >> __builtin_ctz(r->mask) : x;
}
__attribute__((always_inline)) static inline double
hypfs_ds_gauge(const struct hypfs_ds *r, const void *src) {
  if (r->gauge_fn != NULL)
    return r->gauge_fn(src);
  return (double)hypfs_ds_raw(r, src) * r->scale;
}
/* The counter slot of a logical CPU's counter named name (its place among
 * the counters of HYPFS_T_LPAR_CPU), which a partition's HYPFS_SUM row of
 * that name sums; -1 if there is none. */
int hypfs_cpu_counter_slot(const char *name);
/* Whether the rows keep their rules (names unique in a list, bounds, a
 * source per row, counters unscaled, sums with their CPU counter, the
 * hypervisors' lists gauges only); if not, false and the first broken
 * rule in err. */
bool hypfs_rows_check(char *err, size_t err_size);
/* contrib/hypfs.types.db: a header, then per type its description and
 * its rows' as comments and its types.db(5) line. 0, or -1 on a write
 * error. */
int hypfs_types_db_print(FILE *out);

struct hypfs_value {
  bool gauge;
  double g;
  int64_t d;
};

struct hypfs_list {
  const char *host; /* NULL: collectd's Hostname */
  const char *plugin_instance;
  const char *type;
  const char *type_instance;
  const struct hypfs_value *values;
  size_t values_num;
};

typedef void (*hypfs_emit_fn)(void *arg, const struct hypfs_list *l);

/* ---- faults ------------------------------------------------------------- */

enum hypfs_fault {
  HYPFS_F_NONE = 0,
  HYPFS_F_NO_SOURCE,   /* neither debugfs file nor the hypfs tree */
  HYPFS_F_ACCESS,      /* permission denied */
  HYPFS_F_READ,        /* read/open error */
  HYPFS_F_HYPERVISOR,  /* hyp/type neither z/VM nor LPAR */
  HYPFS_F_UPDATE,      /* writing the tree's update file failed */
  HYPFS_F_DATA,        /* a torn, short or malformed file (counted) */
  HYPFS_F_OWN_ONLY,    /* only the own guest visible: no class B */
  HYPFS_F_EMPTIED,     /* the tree holds only update: an update failed */
  HYPFS_F_NOT_REGULAR, /* a FIFO, device, directory or link at a file */
  HYPFS_F_KINDS
};

/* What a read pass noticed in a snapshot it dispatched: entries skipped,
 * or none at all (on a live system the own guest or partition is always
 * in it). hypfs_ctx_notice() says which and the line to log. */
enum hypfs_notice {
  HYPFS_N_NONE = 0,
  HYPFS_N_SKIPPED, /* entries without a usable name, or unreadable */
  HYPFS_N_EMPTY,   /* no guest or partition record at all */
  HYPFS_N_KINDS
};

/* Reader health (plugin instance "reader"), counted since start. */
struct hypfs_stats {
  uint64_t reads; /* read passes that got a complete file/tree */
  uint64_t bytes; /* bytes read from debugfs files and the tree */
  uint64_t errors[HYPFS_ERROR_KINDS]; /* rejected files, by kind */
  uint64_t errors_read;               /* failing open/read/update */
  uint64_t retries;                   /* re-reads because the file grew */
  uint64_t stale;    /* the kernel's cached snapshot, not dispatched */
  uint64_t skipped;  /* entries skipped: blank or duplicate name */
  uint64_t restarts; /* counters that went back (logoff/logon) */
};

struct hypfs_ctx;

struct hypfs_ctx *hypfs_ctx_create(const struct hypfs_conf *conf);
void hypfs_ctx_destroy(struct hypfs_ctx *ctx);

/* One read pass: reads the source, decodes, selects and emits one list per
 * guest (or partition, logical and physical CPU), then the reader health.
 * Returns the fault of this pass (HYPFS_F_NONE if values were emitted or
 * the snapshot was unchanged); hypfs_ctx_message() says what to do. */
enum hypfs_fault hypfs_read(struct hypfs_ctx *ctx, hypfs_emit_fn emit,
                            void *arg);
const char *hypfs_ctx_message(const struct hypfs_ctx *ctx);
/* The notice of the last snapshot dispatched, and its line in *text.
 * *fresh: whether this pass dispatched a snapshot (a pass that did not,
 * for a fault or the kernel's cached copy, leaves the notice as it was). */
enum hypfs_notice hypfs_ctx_notice(const struct hypfs_ctx *ctx,
                                   const char **text, bool *fresh);
const struct hypfs_stats *hypfs_ctx_stats(const struct hypfs_ctx *ctx);

/* Mapping entry points (what hypfs_read() calls after reading), for tests
 * and the benchmark: emit the lists of one decoded snapshot. */
void hypfs_map_vm(struct hypfs_ctx *ctx, const struct hypfs_d2fc *d,
                  hypfs_emit_fn emit, void *arg);
void hypfs_map_lpar(struct hypfs_ctx *ctx, const struct hypfs_d204 *d,
                    hypfs_emit_fn emit, void *arg);
void hypfs_emit_stats(struct hypfs_ctx *ctx, hypfs_emit_fn emit, void *arg);

/* ---- sources (I/O) ------------------------------------------------------ */

/* Every file is opened with O_NONBLOCK | O_NOFOLLOW and must be a regular
 * file: otherwise (a FIFO, a device, a symbolic link) the functions below
 * return HYPFS_NOT_REGULAR, not touching it further. */
#define HYPFS_NOT_REGULAR (-100000)

/* Reads a debugfs file in one read() per open, as the kernel requires
 * (a second read returns end of file, stat gives no size): grows *buf and
 * re-reads while the header's length says the file is larger than what
 * arrived. Returns 0 and *len, or -errno. *retries counts re-reads. */
int hypfs_read_debugfs(const char *path, uint8_t **buf, size_t *cap,
                       size_t *len, uint64_t *retries);

enum hypfs_tree_kind { HYPFS_TREE_UNKNOWN, HYPFS_TREE_VM, HYPFS_TREE_LPAR };

enum hypfs_tree_state {
  HYPFS_TREE_ABSENT,  /* no directory, or an empty one: nothing mounted */
  HYPFS_TREE_EMPTIED, /* only the update file: the kernel's update failed */
  HYPFS_TREE_OTHER,   /* anything else */
};
/* What the directory holds (for a tree without hyp/type). */
enum hypfs_tree_state hypfs_tree_state(const char *dir);

/* Reads hyp/type. -errno if absent. */
int hypfs_tree_kind(const char *dir, enum hypfs_tree_kind *kind);
/* Writes "1" to the update file: 0, or -errno (EBUSY: updated within the
 * last second, the tree is current). */
int hypfs_tree_update(const char *dir);
/* Reads the z/VM tree (cpus/count, systems/<guest>/...) into d. Returns 0,
 * or -errno; *bytes counts what was read; a guest directory with a name
 * that does not convert or a missing or unreadable file is skipped and
 * counted in d->skipped_names (the first in d->skipped_first). */
int hypfs_tree_read_vm(const char *dir, struct hypfs_d2fc *d, uint64_t *bytes);
/* Reads the LPAR tree (systems/<lpar>/cpus/<addr>/..., cpus/<addr>/...).
 * Partitions skipped as in hypfs_tree_read_vm(); a CPU with a missing time
 * file is skipped and counted in *skipped.
 * Without onlinetime files the simple format is assumed. CPU types come
 * from the type files (the DIAG X'224' names: "CP" -> cp, "IFL" -> ifl,
 * others lower case, unsafe bytes dropped). */
int hypfs_tree_read_lpar(const char *dir, struct hypfs_d204 *d, uint64_t *bytes,
                         uint64_t *skipped);

#endif /* HYPFS_CORE_H */
