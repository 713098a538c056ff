/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - APPLDATA records named as collectd's own plugins name their
 * values on a Linux guest, in no front end's terms (appldata.h: family,
 * member, metric, label, item names; collectd's identifiers are made at
 * the edge, plugin/mapper/cdname.c) (collectd 5.12.0, src/cpu.c, memory.c,
 * swap.c, vmem.c, load.c, processes.c, interface.c, df.c, users.c, uptime.c).
 * Units as those plugins dispatch them: memory and swap in bytes, CPU time
 * in jiffies (DERIVE), swap_io in pages, vmpage_io in KB, df in bytes.
 * What the guest data has that collectd has not is named the collectd way
 * and listed in the man page (section APPLDATA).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "appldata/appldata.h"

struct out {
  zvm_apl_emit_fn emit;
  void *ctx;
};

/* The items' names: the data sources of their types in collectd 5.12's
 * types.db. (The helpers below are inlined: they run for every value of
 * every guest.) */
static const char *const one_value[] = {"value"};
static const char *const rx_tx[] = {"rx", "tx"};
static const char *const in_out[] = {"in", "out"};
static const char *const faults[] = {"minflt", "majflt"};
static const char *const load_terms[] = {"shortterm", "midterm", "longterm"};

static inline __attribute__((always_inline)) void
emit(const struct out *o, const char *family, const char *member,
     const char *metric, const char *label, const char *const *item_names,
     size_t n, const struct zvm_apl_item *items) {
  struct zvm_apl_value v = {.name = {.family = family,
                                     .member = member,
                                     .metric = metric,
                                     .label = label,
                                     .item_names = item_names},
                            .n = n};
  memcpy(v.items, items, n * sizeof(*items));
  o->emit(o->ctx, &v);
}

static inline __attribute__((always_inline)) void
gauge(const struct out *o, const char *family, const char *member,
      const char *metric, const char *label, double g) {
  struct zvm_apl_item it = {.derive = false, .g = g};
  emit(o, family, member, metric, label, one_value, 1, &it);
}

static inline __attribute__((always_inline)) void
derive(const struct out *o, const char *family, const char *member,
       const char *metric, const char *label, uint64_t d) {
  struct zvm_apl_item it = {.derive = true, .d = (int64_t)d};
  emit(o, family, member, metric, label, one_value, 1, &it);
}

static inline __attribute__((always_inline)) void
derive2(const struct out *o, const char *family, const char *member,
        const char *metric, const char *label, const char *const *item_names,
        uint64_t a, uint64_t b) {
  struct zvm_apl_item it[2] = {{.derive = true, .d = (int64_t)a},
                               {.derive = true, .d = (int64_t)b}};
  emit(o, family, member, metric, label, item_names, 2, it);
}

#define KB 1024.0

/* memory.c (Linux): used = total - (free + buffers + cached + slab); the
 * appldata record has no slab figure, so used includes slab. swap.c
 * without SwapCached: used = total - free. */
static void mem_values(const struct out *o, const struct zvm_apl_mem *m) {
  uint64_t busy = m->freeram + m->bufferram + m->cached;
  if (m->totalram >= busy && busy >= m->freeram)
    gauge(o, "memory", "", "memory", "used", (double)(m->totalram - busy) * KB);
  gauge(o, "memory", "", "memory", "buffered", (double)m->bufferram * KB);
  gauge(o, "memory", "", "memory", "cached", (double)m->cached * KB);
  gauge(o, "memory", "", "memory", "free", (double)m->freeram * KB);
  if (m->totalswap >= m->freeswap)
    gauge(o, "swap", "", "swap", "used",
          (double)(m->totalswap - m->freeswap) * KB);
  gauge(o, "swap", "", "swap", "free", (double)m->freeswap * KB);
  derive(o, "swap", "", "swap_io", "in", m->pswpin);
  derive(o, "swap", "", "swap_io", "out", m->pswpout);
  derive2(o, "vmem", "", "vmpage_io", "memory", in_out, m->pgpgin, m->pgpgout);
  derive2(o, "vmem", "", "vmpage_io", "swap", in_out, m->pswpin, m->pswpout);
  derive2(o, "vmem", "", "vmpage_faults", "", faults, m->pgfault,
          m->pgmajfault);
  derive(o, "vmem", "", "vmpage_action", "alloc", m->pgalloc);
}

/* cpu.c: plugin instance = the CPU number, type "cpu", one DERIVE per
 * state (cpu_state_names: iowait is "wait", irq "interrupt"); ReportNumCpu
 * gives cpu/count. load.c: load/load, three gauges. processes.c (Linux):
 * ps_state-running is /proc/stat procs_running = nr_running. */
static void os_values(const struct out *o, const struct zvm_apl_os *os) {
  for (uint32_t i = 0; i < os->nr_cpus; i++) {
    struct zvm_apl_cpu c;
    zvm_apl_os_cpu(os, i, &c);
    char pinst[16];
    snprintf(pinst, sizeof(pinst), "%u", (unsigned)c.cpu_id);
    derive(o, "cpu", pinst, "cpu", "user", c.user);
    derive(o, "cpu", pinst, "cpu", "nice", c.nice);
    derive(o, "cpu", pinst, "cpu", "system", c.system);
    derive(o, "cpu", pinst, "cpu", "idle", c.idle);
    derive(o, "cpu", pinst, "cpu", "wait", c.iowait);
    derive(o, "cpu", pinst, "cpu", "interrupt", c.irq);
    derive(o, "cpu", pinst, "cpu", "softirq", c.softirq);
    if (c.has_steal)
      derive(o, "cpu", pinst, "cpu", "steal", c.steal);
  }
  gauge(o, "cpu", "", "count", "", os->nr_cpus);
  struct zvm_apl_item load[3];
  for (int i = 0; i < 3; i++)
    load[i] = (struct zvm_apl_item){.g = zvm_apl_load(os->avenrun[i])};
  emit(o, "load", "", "load", "", load_terms, 3, load);
  gauge(o, "processes", "", "ps_state", "running", os->nr_running);
  /* /proc/stat procs_blocked: tasks in I/O wait (collectd counts D). */
  gauge(o, "processes", "", "ps_state", "blocked", os->nr_iowait);
  gauge(o, "processes", "", "threads", "", os->nr_threads);
}

/* interface.c: interface-<dev>/if_*; net_sum is the sum over all devices
 * (loopback included), named "sum" like collectd's aggregation plugin. */
static void net_values(const struct out *o, const struct zvm_apl_net_sum *n) {
  derive2(o, "interface", "sum", "if_octets", "", rx_tx, n->rx_bytes,
          n->tx_bytes);
  derive2(o, "interface", "sum", "if_packets", "", rx_tx, n->rx_packets,
          n->tx_packets);
  derive2(o, "interface", "sum", "if_errors", "", rx_tx, n->rx_errors,
          n->tx_errors);
  derive2(o, "interface", "sum", "if_dropped", "", rx_tx, n->rx_dropped,
          n->tx_dropped);
  derive(o, "interface", "sum", "if_collisions", "", n->collisions);
  gauge(o, "interface", "sum", "count", "", n->nr_interfaces);
}

/* df.c (statvfs, ValuesAbsolute, ReportInodes): blocks in f_frsize
 * units, with df's own sanity clamps. */
static void fs_values(const struct out *o, const struct zvm_apl_fsstat *f) {
  char pinst[ZVM_APL_NAME_MAX];
  zvm_apl_mount_name(f->dir.p, f->dir.len, pinst, sizeof(pinst));
  if (pinst[0] == '\0' || f->blocks == 0)
    return;
  uint64_t bavail = (int64_t)f->bavail < 0 ? 0 : f->bavail;
  uint64_t bfree = f->bfree < bavail ? bavail : f->bfree;
  uint64_t blocks = f->blocks < bfree ? bfree : f->blocks;
  double bs = (double)f->frsize;
  gauge(o, "df", pinst, "df_complex", "free", (double)bavail * bs);
  gauge(o, "df", pinst, "df_complex", "reserved",
        (double)(bfree - bavail) * bs);
  gauge(o, "df", pinst, "df_complex", "used", (double)(blocks - bfree) * bs);
  if (f->files != 0 && f->ffree != 0) {
    uint64_t ffree = f->ffree < f->favail ? f->favail : f->ffree;
    uint64_t files = f->files < ffree ? ffree : f->files;
    gauge(o, "df", pinst, "df_inodes", "free", (double)f->favail);
    gauge(o, "df", pinst, "df_inodes", "reserved", (double)(ffree - f->favail));
    gauge(o, "df", pinst, "df_inodes", "used", (double)(files - ffree));
  }
}

/* mon_procd summary: only what the kernel records do not already give
 * (collectd names: processes.c ps_state, users.c, uptime.c, and cpu.c
 * with ReportByCpu false and ValuesPercentage true). */
static void psum_values(const struct out *o,
                        const struct zvm_apl_procd_sum *s) {
  gauge(o, "processes", "", "ps_state", "sleeping", s->tasks_sleeping);
  gauge(o, "processes", "", "ps_state", "stopped", s->tasks_stopped);
  gauge(o, "processes", "", "ps_state", "zombies", s->tasks_zombie);
  gauge(o, "users", "", "users", "", s->users);
  gauge(o, "uptime", "", "uptime", "", (double)s->uptime);
  const struct {
    const char *name;
    uint16_t v;
  } pct[] = {{"user", s->puser},       {"nice", s->pnice},
             {"system", s->psystem},   {"idle", s->pidle},
             {"wait", s->piowait},     {"interrupt", s->pirq},
             {"softirq", s->psoftirq}, {"steal", s->psteal}};
  for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
    gauge(o, "cpu", "", "percent", pct[i].name, pct[i].v / 100.0);
}

/* mon_procd task (opt-in): processes-<cmd>_<pid> with processes.c's
 * per-process types where the data fits. */
static void task_values(const struct out *o,
                        const struct zvm_apl_procd_task *t) {
  char name[ZVM_APL_NAME_MAX - 11], pinst[ZVM_APL_NAME_MAX];
  zvm_apl_name(t->cmd.p, t->cmd.len, false, name, sizeof(name));
  snprintf(pinst, sizeof(pinst), "%s_%u", name, (unsigned)t->pid);
  gauge(o, "processes", pinst, "ps_rss", "", (double)t->resident * KB);
  gauge(o, "processes", pinst, "ps_vm", "", (double)t->size * KB);
  gauge(o, "processes", pinst, "ps_code", "", (double)t->trs * KB);
  gauge(o, "processes", pinst, "ps_data", "", (double)t->drs * KB);
  gauge(o, "processes", pinst, "percent", "cpu", t->pcpu / 100.0);
  gauge(o, "processes", pinst, "percent", "memory", t->pmem / 100.0);
}

size_t zvm_apl_type_ds_count(const char *type) {
  /* collectd 5.12 types.db lines of the types used above. */
  static const struct {
    const char *type;
    size_t n;
  } types[] = {
      {"cpu", 1},           {"count", 1},         {"load", 3},
      {"ps_state", 1},      {"threads", 1},       {"memory", 1},
      {"swap", 1},          {"swap_io", 1},       {"vmpage_io", 2},
      {"vmpage_faults", 2}, {"vmpage_action", 1}, {"if_octets", 2},
      {"if_packets", 2},    {"if_errors", 2},     {"if_dropped", 2},
      {"if_collisions", 1}, {"df_complex", 1},    {"df_inodes", 1},
      {"users", 1},         {"uptime", 1},        {"percent", 1},
      {"ps_rss", 1},        {"ps_vm", 1},         {"ps_code", 1},
      {"ps_data", 1},
  };
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
    if (strcmp(types[i].type, type) == 0)
      return types[i].n;
  return 0;
}

void zvm_apl_values(const struct zvm_apl_record *r, zvm_apl_emit_fn fn,
                    void *ctx) {
  struct out o = {fn, ctx};
  switch (r->hdr.kind) {
  case ZVM_APL_MEM:
    mem_values(&o, &r->u.mem);
    break;
  case ZVM_APL_OS:
    os_values(&o, &r->u.os);
    break;
  case ZVM_APL_NET_SUM:
    net_values(&o, &r->u.net);
    break;
  case ZVM_APL_FSSTAT:
    fs_values(&o, &r->u.fs);
    break;
  case ZVM_APL_PROCD_SUM:
    psum_values(&o, &r->u.psum);
    break;
  case ZVM_APL_PROCD_TASK:
    task_values(&o, &r->u.task);
    break;
  default:
    break;
  }
}
