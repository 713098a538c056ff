/* SPDX-License-Identifier: MIT */
/*
 * hypfs - the value rows: one row per dispatched value, in its value
 * list's order (name, source member, kind, unit scale, description), as
 * s390-tools hyptop's sd_sys_item tables (hyptop/sd_sys_items.c) and the
 * kernel's ATTRIBUTE() lines (arch/s390/hypfs/hypfs_vm_fs.c) keep one row
 * per value. hypfs/map.c fills the lists from them, the glue registers the
 * types, contrib/hypfs.types.db is printed from them ('make types-db') and
 * the unit tests check the man page's metric list against them.
 *
 * Adding a DIAG field: its struct member (include/hypfs/hypfs.h), its
 * decode row (hypfs/decode.c), its tree row (hypfs/source.c), its value
 * row here; then 'make types-db', the man page and the tests.
 */
#include "hypfs/core.h"

#include <math.h>
#include <string.h>

/* Rows. A member's offset and width come from the struct; counters are
 * never scaled (a rate of microseconds stays one of microseconds). */
#define GAUGE(n, type, m, sc, d)                                               \
  {                                                                            \
    .name = (n), .gauge = true, .kind = HYPFS_GAUGE, .off = offsetof(type, m), \
    .width = sizeof(((type *)0)->m), .scale = (sc), .desc = (d)                \
  }
/* A gauge of the bits mk of a flags member, shifted down (hypfs_ds_raw()). */
#define GAUGE_BITS(n, type, m, mk, d)                                          \
  {                                                                            \
    .name = (n), .gauge = true, .kind = HYPFS_GAUGE, .off = offsetof(type, m), \
    .width = sizeof(((type *)0)->m), .mask = (mk), .scale = 1, .desc = (d)     \
  }
#define GAUGE_FN(n, fn, d)                                                     \
  {                                                                            \
    .name = (n), .gauge = true, .kind = HYPFS_GAUGE, .gauge_fn = (fn),         \
    .scale = 1, .desc = (d)                                                    \
  }
#define COUNTER(n, type, m, d)                                                 \
  {                                                                            \
    .name = (n), .kind = HYPFS_COUNTER, .off = offsetof(type, m),              \
    .width = sizeof(((type *)0)->m), .scale = 1, .desc = (d)                   \
  }
#define COUNTER_FN(n, fn, d)                                                   \
  {                                                                            \
    .name = (n), .kind = HYPFS_COUNTER, .counter_fn = (fn), .width = 8,        \
    .scale = 1, .desc = (d)                                                    \
  }
/* A counter whose going back means a logoff and logon (a restart). */
#define ONLINE(n, type, m, d)                                                  \
  {                                                                            \
    .name = (n), .kind = HYPFS_COUNTER, .off = offsetof(type, m),              \
    .width = sizeof(((type *)0)->m), .scale = 1, .restart = true, .desc = (d)  \
  }
#define SUM(n, d)                                                              \
  { .name = (n), .kind = HYPFS_SUM, .scale = 1, .desc = (d) }
/* In a row list of both DIAG X'204' formats: a row of both (BOTH) or of
 * the extended format only (EXT), as its list is expanded. */
#define KEEP(...) __VA_ARGS__,
#define DROP(...)

/* Values the kernel derives from fields (hypfs_vm_fs.c, hypfs_diag_fs.c). */
static uint64_t lpar_cpu_mgm(const void *c) {
  return hypfs_lpar_cpu_mgm((const struct hypfs_lpar_cpu *)c);
}
/* cpus is the first record's: without one, unknown (NaN) */
static double vm_cpus(const void *d) {
  const struct hypfs_d2fc *s = d;
  return s->records > 0 ? (double)s->lcpus : NAN;
}
static double lpar_sys_phys_cpus(const void *d) {
  const struct hypfs_d204 *s = d;
  return s->has_phys ? (double)s->phys_num : (double)s->phys_cpus;
}

/* ---- z/VM: DIAG X'2FC', struct diag2fc_data (hypfs_vm.c) ------------- */

#define G struct hypfs_guest
static const struct hypfs_ds guest_ds[] = {
    COUNTER("cpu_time_us", G, used_cpu_us,
            "CPU time used since logon (used_cpu), microseconds"),
    ONLINE("online_time_us", G, el_time_us,
           "time since logon (el_time), microseconds"),
    GAUGE("vcpus", G, vcpus, 1, "virtual CPUs defined"),
    GAUGE("ocpus", G, ocpus, 1,
          "operating (not stopped) virtual CPUs (tree: cpus/weight_min)"),
    GAUGE_BITS("capped", G, flags, 0x6, "capping, bits 1-2 of flags"),
    GAUGE_BITS("dedicated", G, flags, 0x8, "dedicated CPUs, bit 3 of flags"),
    GAUGE("weight_max", G, cpu_max, 1, "maximum share weight (cpu_max)"),
    GAUGE("weight_cur", G, cpu_shares, 1, "relative share weight (cpu_shares)"),
    GAUGE("mem_min_bytes", G, mem_min_kib, 1024, "minimum memory, bytes"),
    GAUGE("mem_max_bytes", G, mem_max_kib, 1024, "maximum memory, bytes"),
    GAUGE("mem_share_bytes", G, mem_share_kib, 1024, "memory share, bytes"),
    GAUGE("mem_used_bytes", G, mem_used_kib, 1024, "memory used, bytes"),
    COUNTER("samples_cpu_using", G, cpu_use_samp, "state samples: using a CPU"),
    COUNTER("samples_cpu_delay", G, cpu_delay_samp,
            "state samples: waiting for a CPU"),
    COUNTER("samples_mem_delay", G, page_wait_samp,
            "state samples: waiting for a page"),
    COUNTER("samples_idle", G, idle_samp, "state samples: idle"),
    COUNTER("samples_other", G, other_samp, "state samples: other states"),
    COUNTER("samples_total", G, total_samp, "state samples: all"),
};
#undef G

static const struct hypfs_ds vm_ds[] = {
    GAUGE_FN("cpus", vm_cpus,
             "the hypervisor's logical CPUs (lcpus of the first record)"),
    GAUGE("guests", struct hypfs_d2fc, records, 1,
          "guest records of the snapshot, before selection"),
};

/* ---- LPAR: DIAG X'204' (asm/diag.h) ----------------------------------- */

#define C struct hypfs_lpar_cpu
#define LPAR_CPU_ROWS(BOTH, EXT)                                               \
  BOTH(COUNTER("cpu_time_us", C, lp_time,                                      \
               "the partition's CPU time (lp_time), microseconds"))            \
  BOTH(COUNTER_FN("mgm_time_us", lpar_cpu_mgm,                                 \
                  "management time (acc_time - lp_time, 0 if negative), "      \
                  "microseconds"))                                             \
  EXT(ONLINE("online_time_us", C, online_time,                                 \
             "online time (online_time), microseconds"))
static const struct hypfs_ds lpar_cpu_ds[] = {LPAR_CPU_ROWS(KEEP, KEEP)};
static const struct hypfs_ds lpar_cpu_simple_ds[] = {LPAR_CPU_ROWS(KEEP, DROP)};
#undef C

#define LPAR_ROWS(BOTH, EXT)                                                   \
  BOTH(SUM("cpu_time_us", "its logical CPUs' cpu_time_us, summed"))            \
  BOTH(SUM("mgm_time_us", "its logical CPUs' mgm_time_us, summed"))            \
  EXT(SUM("online_time_us", "its logical CPUs' online_time_us, summed"))       \
  BOTH(GAUGE("cpus", struct hypfs_lpar, rcpus, 1,                              \
             "logical CPUs (rcpus of the partition header)"))
static const struct hypfs_ds lpar_ds[] = {LPAR_ROWS(KEEP, KEEP)};
static const struct hypfs_ds lpar_simple_ds[] = {LPAR_ROWS(KEEP, DROP)};

static const struct hypfs_ds phys_cpu_ds[] = {
    COUNTER("mgm_time_us", struct hypfs_phys_cpu, mgm_time,
            "the hypervisor's management time on it (mgm_time), "
            "microseconds"),
};

static const struct hypfs_ds lpar_sys_ds[] = {
    GAUGE("partitions", struct hypfs_d204, records, 1,
          "partition records of the snapshot, before selection"),
    GAUGE_FN("phys_cpus", lpar_sys_phys_cpus, "physical CPUs"),
};

#define T(n, a, d)                                                             \
  { n, a, sizeof(a) / sizeof((a)[0]), d }
const struct hypfs_type hypfs_types[] = {
    [HYPFS_T_GUEST] = T("hypfs_guest", guest_ds,
                        "a z/VM guest (DIAG X'2FC'); plugin instance = user "
                        "ID"),
    [HYPFS_T_VM] =
        T("hypfs_vm", vm_ds, "the z/VM hypervisor; plugin instance hypervisor"),
    [HYPFS_T_LPAR] = T("hypfs_lpar", lpar_ds,
                       "an LPAR (DIAG X'204', extended format); plugin "
                       "instance = partition"),
    [HYPFS_T_LPAR_SIMPLE] = T("hypfs_lpar_simple", lpar_simple_ds,
                              "an LPAR (DIAG X'204', simple format)"),
    [HYPFS_T_LPAR_CPU] = T("hypfs_lpar_cpu", lpar_cpu_ds,
                           "a logical CPU of an LPAR (extended format); "
                           "type instance = type-address"),
    [HYPFS_T_LPAR_CPU_SIMPLE] = T("hypfs_lpar_cpu_simple", lpar_cpu_simple_ds,
                                  "a logical CPU of an LPAR (simple format)"),
    [HYPFS_T_PHYS_CPU] = T("hypfs_phys_cpu", phys_cpu_ds,
                           "a physical CPU; plugin instance physical, type "
                           "instance = type-address"),
    [HYPFS_T_LPAR_SYS] = T("hypfs_lpar_sys", lpar_sys_ds,
                           "the LPAR hypervisor; plugin instance hypervisor"),
};
const size_t hypfs_types_num = sizeof(hypfs_types) / sizeof(hypfs_types[0]);

/* ---- the counter a partition sums ------------------------------------ */

int hypfs_cpu_counter_slot(const char *name) {
  const struct hypfs_type *t = &hypfs_types[HYPFS_T_LPAR_CPU];
  int slot = 0;
  for (size_t i = 0; i < t->ds_num; i++) {
    if (t->ds[i].kind != HYPFS_COUNTER)
      continue;
    if (strcmp(t->ds[i].name, name) == 0)
      return slot;
    slot++;
  }
  return -1;
}

/* ---- the rules the mapping relies on ------------------------------------ */

static bool row_broken(const struct hypfs_type *t, size_t i, char *err,
                       size_t err_size) {
  const struct hypfs_ds *r = &t->ds[i];
  const char *why = NULL;
  for (size_t j = 0; j < i; j++)
    if (strcmp(t->ds[j].name, r->name) == 0)
      why = "a name twice in one list";
  bool fn = r->gauge_fn != NULL || r->counter_fn != NULL;
  if (r->name == NULL || r->name[0] == '\0' || r->desc == NULL)
    why = "no name or description";
  else if (r->gauge != (r->kind == HYPFS_GAUGE))
    why = "gauge and kind disagree";
  else if (r->kind == HYPFS_SUM ? fn || r->width != 0
                                : !fn && r->width != 1 && r->width != 2 &&
                                      r->width != 4 && r->width != 8)
    why = "no source member of width 1, 2, 4 or 8 bytes, nor function";
  else if (r->kind != HYPFS_GAUGE && (r->scale != 1 || r->gauge_fn != NULL))
    why = "a counter scaled or read as a gauge";
  else if (r->kind == HYPFS_GAUGE && (r->counter_fn != NULL || r->restart))
    why = "a gauge read as a counter";
  else if (r->mask != 0 &&
           (r->kind != HYPFS_GAUGE || fn || r->width > 4 || r->scale != 1))
    why = "bits of a member other than an unscaled gauge of up to 4 bytes";
  else if (r->kind == HYPFS_SUM && hypfs_cpu_counter_slot(r->name) < 0)
    why = "a sum without a logical CPU counter of its name";
  if (why == NULL)
    return false;
  snprintf(err, err_size, "%s %s: %s", t->name, r->name ? r->name : "?", why);
  return true;
}

bool hypfs_rows_check(char *err, size_t err_size) {
  for (size_t t = 0; t < hypfs_types_num; t++) {
    const struct hypfs_type *ty = &hypfs_types[t];
    size_t counters = 0, sums = 0;
    if (ty->ds_num > HYPFS_DS_MAX) {
      snprintf(err, err_size, "%s: more than %d data sources", ty->name,
               HYPFS_DS_MAX);
      return false;
    }
    for (size_t i = 0; i < ty->ds_num; i++) {
      if (row_broken(ty, i, err, err_size))
        return false;
      counters += ty->ds[i].kind == HYPFS_COUNTER;
      sums += ty->ds[i].kind == HYPFS_SUM;
    }
    bool system = t == HYPFS_T_VM || t == HYPFS_T_LPAR_SYS;
    bool partition = t == HYPFS_T_LPAR || t == HYPFS_T_LPAR_SIMPLE;
    const char *why = NULL;
    if (counters > HYPFS_COUNTERS_MAX)
      why = "more counters than an entity keeps";
    else if (t == HYPFS_T_LPAR_CPU && counters > HYPFS_SUMS_MAX)
      why = "more counters than a partition keeps sums of";
    else if (system && counters + sums > 0)
      why = "a hypervisor's list holds only gauges (it has no entity)";
    else if (partition ? counters > 0 : sums > 0)
      why = "sums are a partition's, its counters its CPUs'";
    if (why != NULL) {
      snprintf(err, err_size, "%s: %s", ty->name, why);
      return false;
    }
  }
  return true;
}

/* ---- contrib/hypfs.types.db ------------------------------------------- */

static const char types_db_header[] =
    "# hypfs plugin custom types (collectd types.db(5) format), one per value\n"
    "# list: a z/VM guest, the z/VM hypervisor, an LPAR, a logical CPU, a\n"
    "# physical CPU, the LPAR hypervisor. Generated from the plugin's value\n"
    "# rows (hypfs/values.c) by hypfs-types-db ('make types-db'); do not\n"
    "# edit (tests/unit/hypfs/test_hypfs checks it).\n"
    "#\n"
    "# The plugin registers these types itself at start-up: collectd.conf\n"
    "# needs no TypesDB line for them. Put this file into InfluxDB's collectd\n"
    "# listener typesdb directory (next to collectd's types.db), and into the\n"
    "# TypesDB of any daemon that receives the values over the network "
    "plugin.\n"
    "# Units: *_us microseconds (CPU time counters: rate / 1e6 = CPUs in "
    "use),\n"
    "# *_bytes bytes, samples_* counts of DIAG X'2FC' state samples; see\n"
    "# collectd-hypfs(5).\n";

int hypfs_types_db_print(FILE *out) {
  if (fputs(types_db_header, out) < 0)
    return -1;
  for (size_t t = 0; t < hypfs_types_num; t++) {
    const struct hypfs_type *ty = &hypfs_types[t];
    if (fprintf(out, "#\n# %s: %s\n", ty->name, ty->desc) < 0)
      return -1;
    for (size_t i = 0; i < ty->ds_num; i++)
      if (fprintf(out, "#   %s: %s\n", ty->ds[i].name, ty->ds[i].desc) < 0)
        return -1;
    if (fprintf(out, "%s\t", ty->name) < 0)
      return -1;
    for (size_t i = 0; i < ty->ds_num; i++)
      if (fprintf(out, "%s%s:%s", i ? ", " : "", ty->ds[i].name,
                  ty->ds[i].gauge ? "GAUGE:U:U" : "DERIVE:0:U") < 0)
        return -1;
    if (fputs("\n", out) < 0)
      return -1;
  }
  return 0;
}
