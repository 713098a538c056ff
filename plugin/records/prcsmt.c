/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - D5R21 MRPRCSMT, Multithreading Configuration Change Event
 * (event record, domain 5 processor, record 21).
 *
 * Source: IBM, z/VM V6R4.0 monitor record MRPRCSMT, page last updated
 * 5 Oct 2016: https://www.vm.ibm.com/pubs/mon640/MRPRCSMT.HTML (36 bytes
 * and the PRCSMT_CPUTINFO array, one 8-byte entry per CPU type).
 *
 * Values: plugin instance "system" (type zvm_prcsmt: the configuration
 * sequence, the maximum, the counts for ALL) and one per CPU type ("cp",
 * "zaap", "ifl", "icf", "ziip", else "type<N>"; type zvm_prcsmt_cpu). A
 * thread count is "0 to the configured max threads value (PRCSMT_CALMAXTC)
 * or the value 255 (X'FF') to indicate that MAX was specified" (IBM):
 * X'FF' is dispatched as NaN, never as 255, with a flag <name>_is_max.
 *
 * Hooks: a notification at the start and at the end of each change (the
 * start record carries the counts from before the change, the end record
 * the new ones; both carry the change's RCCSMTSQ). They read the record
 * with this file's fields only, so a <Record> block that replaces D5R21
 * keeps them (kept_by_replacement).
 */
#include "engine/hooks.h"
#include "engine/table.h"
#include "records/catalog.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/field.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum {
  PRCSMT_RCCSMTSQ,
  PRCSMT_CAL_STATUS,
  PRCSMT_CALMAXTC,
  PRCSMT_RCCCOALL,
  PRCSMT_RCCSMALL,
  PRCSMT_RCCSMSET,
  PRCSMT_CAL_CPUTACNT,
  PRCSMT_CAL_CPUTAESZ,
  PRCSMT_CAL_CPUTAOFF,
  PRCSMT_RCCCOALL_MAX,
  PRCSMT_RCCSMALL_MAX,
};

/* PRCSMT_CAL_STATUS flags. */
#define PRCSMT_CAL_START 0x80
#define PRCSMT_CAL_END 0x40

/* A thread count is a gauge of type "threads" with OneValuePerList,
 * X'FF' dispatched as NaN (ZVM_FIELD_FF_IS_MAX); its flag, data source
 * <name>_is_max of type "bool", is 1 when the count is X'FF', MAX
 * (ZVM_FIELD_MAX_FLAG). */

static const struct zvm_field prcsmt_fields[] = {
    /* Dispatched under the names of the first release (type "gauge" with
     * OneValuePerList). */
    ZVM_FIELD(PRCSMT_RCCSMTSQ, "PRCSMT_RCCSMTSQ", "mt_config_seq", 20, 4, 1,
              UNSIGNED, GAUGE, .single_type = "gauge"),
    ZVM_FIELD(PRCSMT_CAL_STATUS, "PRCSMT_CAL_STATUS", "cal_status", 24, 1, 1,
              UNSIGNED, FLAGS),
    ZVM_FIELD(PRCSMT_CALMAXTC, "PRCSMT_CALMAXTC", "mt_max_threads", 25, 1, 1,
              UNSIGNED, GAUGE, .single_type = "gauge"),
    /* Thread counts for ALL on the MULTITHREADING statement and the SET
     * MULTITHREAD command (X'FF' = MAX: NaN, and a flag below). */
    ZVM_FIELD(PRCSMT_RCCCOALL, "PRCSMT_RCCCOALL", "statement_all", 26, 1, 1,
              UNSIGNED, GAUGE, .flags = ZVM_FIELD_FF_IS_MAX,
              .single_type = "threads"),
    ZVM_FIELD(PRCSMT_RCCSMALL, "PRCSMT_RCCSMALL", "set_all", 27, 1, 1, UNSIGNED,
              GAUGE, .flags = ZVM_FIELD_FF_IS_MAX, .single_type = "threads"),
    /* RCCSMSET: its one defined bit, RCCSMINI (X'80', SET MULTITHREAD
     * INITIAL), as bool-set_initial. */
    ZVM_FIELD(PRCSMT_RCCSMSET, "PRCSMT_RCCSMSET", "set_initial", 28, 1, 1,
              UNSIGNED, GAUGE, .flags = ZVM_FIELD_TOP_BIT,
              .single_type = "bool"),
    ZVM_FIELD(PRCSMT_CAL_CPUTACNT, "PRCSMT_CAL_CPUTACNT", "cal_cputacnt", 29, 1,
              1, UNSIGNED, LAYOUT),
    ZVM_FIELD(PRCSMT_CAL_CPUTAESZ, "PRCSMT_CAL_CPUTAESZ", "cal_cputaesz", 30, 2,
              1, UNSIGNED, LAYOUT),
    ZVM_FIELD(PRCSMT_CAL_CPUTAOFF, "PRCSMT_CAL_CPUTAOFF", "cal_cputaoff", 32, 2,
              1, UNSIGNED, LAYOUT),
    ZVM_FIELD(PRCSMT_RCCCOALL_MAX, "PRCSMT_RCCCOALL", "statement_all_is_max",
              26, 1, 1, UNSIGNED, GAUGE, .flags = ZVM_FIELD_MAX_FLAG,
              .single_type = "bool"),
    ZVM_FIELD(PRCSMT_RCCSMALL_MAX, "PRCSMT_RCCSMALL", "set_all_is_max", 27, 1,
              1, UNSIGNED, GAUGE, .flags = ZVM_FIELD_MAX_FLAG,
              .single_type = "bool"),
};

enum {
  CPUTINFO_CPUTYPE,
  CPUTINFO_RCCCOMNT,
  CPUTINFO_RCCHWMNT,
  CPUTINFO_RCCSYMNT,
  CPUTINFO_RCCACMNT,
  CPUTINFO_RCCSMMNT,
  CPUTINFO_RCCCRMNT,
  CPUTINFO_RCCCOMNT_MAX,
  CPUTINFO_RCCSMMNT_MAX,
  CPUTINFO_RCCCRMNT_MAX,
};

/* Thread counts per CPU type (type "threads" with OneValuePerList; the
 * first release's names for four of them). Every count is X'FF'-safe
 * (NaN); the three MAX can be given for (MULTITHREADING statement, SET
 * MULTITHREAD command, the resulting request) also have a flag. Offsets
 * from the entry's start. */
static const struct zvm_field cputinfo_fields[] = {
    ZVM_FIELD(CPUTINFO_CPUTYPE, "PRCSMT_CAL_CPUTYPE", "cputype", 0, 1, 1,
              UNSIGNED, ID),
    ZVM_FIELD(CPUTINFO_RCCCOMNT, "PRCSMT_CAL_RCCCOMNT", "statement", 1, 1, 1,
              UNSIGNED, GAUGE, .flags = ZVM_FIELD_FF_IS_MAX,
              .single_type = "threads"),
    ZVM_FIELD(CPUTINFO_RCCHWMNT, "PRCSMT_CAL_RCCHWMNT", "hardware_max", 2, 1, 1,
              UNSIGNED, GAUGE, .flags = ZVM_FIELD_FF_IS_MAX,
              .single_type = "threads"),
    ZVM_FIELD(CPUTINFO_RCCSYMNT, "PRCSMT_CAL_RCCSYMNT", "zvm_max", 3, 1, 1,
              UNSIGNED, GAUGE, .flags = ZVM_FIELD_FF_IS_MAX,
              .single_type = "threads"),
    ZVM_FIELD(CPUTINFO_RCCACMNT, "PRCSMT_CAL_RCCACMNT", "activated", 4, 1, 1,
              UNSIGNED, GAUGE, .flags = ZVM_FIELD_FF_IS_MAX,
              .single_type = "threads"),
    ZVM_FIELD(CPUTINFO_RCCSMMNT, "PRCSMT_CAL_RCCSMMNT", "set_command", 5, 1, 1,
              UNSIGNED, GAUGE, .flags = ZVM_FIELD_FF_IS_MAX,
              .single_type = "threads"),
    ZVM_FIELD(CPUTINFO_RCCCRMNT, "PRCSMT_CAL_RCCCRMNT", "requested", 6, 1, 1,
              UNSIGNED, GAUGE, .flags = ZVM_FIELD_FF_IS_MAX,
              .single_type = "threads"),
    ZVM_FIELD(CPUTINFO_RCCCOMNT_MAX, "PRCSMT_CAL_RCCCOMNT", "statement_is_max",
              1, 1, 1, UNSIGNED, GAUGE, .flags = ZVM_FIELD_MAX_FLAG,
              .single_type = "bool"),
    ZVM_FIELD(CPUTINFO_RCCSMMNT_MAX, "PRCSMT_CAL_RCCSMMNT",
              "set_command_is_max", 5, 1, 1, UNSIGNED, GAUGE,
              .flags = ZVM_FIELD_MAX_FLAG, .single_type = "bool"),
    ZVM_FIELD(CPUTINFO_RCCCRMNT_MAX, "PRCSMT_CAL_RCCCRMNT", "requested_is_max",
              6, 1, 1, UNSIGNED, GAUGE, .flags = ZVM_FIELD_MAX_FLAG,
              .single_type = "bool"),
};

static const struct zvm_array prcsmt_cputinfo = {
    .ibm_name = "PRCSMT_CPUTINFO",
    .count_field = &prcsmt_fields[PRCSMT_CAL_CPUTACNT],
    .size_field = &prcsmt_fields[PRCSMT_CAL_CPUTAESZ],
    .offset_field = &prcsmt_fields[PRCSMT_CAL_CPUTAOFF],
    .entry =
        {
            .type_name = "zvm_prcsmt_cpu",
            .key = {.nparts = 1,
                    .part = {{.kind = ZVM_KEY_CPU_TYPE,
                              .field = CPUTINFO_CPUTYPE}}},
            .fields = cputinfo_fields,
            .nfields = ZVM_COUNT_OF(cputinfo_fields),
            .length = 8,
        },
};

static const struct zvm_record_hooks prcsmt_hooks;

const struct zvm_record_desc zvm_rec_prcsmt = {
    .domain = ZVM_DOMAIN_PROCESSOR,
    .number = 21,
    .ibm_name = "MRPRCSMT",
    .title = "Multithreading config change event",
    .zvm_level = "z/VM V6R4.0",
    .source = "https://www.vm.ibm.com/pubs/mon640/MRPRCSMT.HTML "
              "(updated 5 Oct 2016)",
    .length = 36,
    .main =
        {
            .type_name = "zvm_prcsmt",
            .key = {.nparts = 1,
                    .part = {{.kind = ZVM_KEY_FIXED,
                              .field = -1,
                              .text = "system"}}},
            .fields = prcsmt_fields,
            .nfields = ZVM_COUNT_OF(prcsmt_fields),
            .length = 36,
        },
    .arrays = &prcsmt_cputinfo,
    .narrays = 1,
    .hooks = &prcsmt_hooks, /* start/end notifications */
};

#define MT_STARTS_KEPT 4  /* pending changes remembered by RCCSMTSQ */
#define MT_TYPES_KEPT 16  /* CPU types remembered per pending change */
#define MT_VALUE_MAX 0xFF /* thread count X'FF' = MAX was specified */

struct mt_start {
  bool used;
  uint32_t seq;
  size_t n;
  struct {
    uint8_t type;
    uint8_t activated;
  } e[MT_TYPES_KEPT];
};

/* Per mapper (ctx->record_state). */
struct prcsmt_state {
  struct mt_start starts[MT_STARTS_KEPT];
  size_t next_start;
  /* Notifications are suppressed only as exact repeats: the RCCSMTSQ and
   * MRHDRTOD of the last start and of the last end notified (a change
   * numbered as an earlier one, after z/VM restarts its numbering, is
   * new), never for their time stamps' age. */
  bool have_start_seq, have_end_seq;
  uint32_t last_start_seq, last_end_seq;
  uint64_t last_start_tod, last_end_tod;
};

/* snprintf that appends and never overflows; a cut message ends in "...". */
__attribute__((format(printf, 3, 4))) static void
msg_append(char *buf, size_t size, const char *fmt, ...) {
  size_t len = strlen(buf);
  if (len + 1 >= size)
    return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + len, size - len, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n >= size - len && size >= 4)
    memcpy(buf + size - 4, "...", 4);
}

static const char *cpu_name(uint8_t type, char *buf, size_t size) {
  const char *name = zvm_cpu_type_name(type);
  if (name != NULL)
    return name;
  snprintf(buf, size, "type%u", (unsigned)type);
  return buf;
}

static void thread_count(char *buf, size_t size, uint8_t v) {
  if (v == MT_VALUE_MAX)
    snprintf(buf, size, "MAX");
  else
    snprintf(buf, size, "%u", (unsigned)v);
}

static struct mt_start *start_find(struct prcsmt_state *st, uint32_t seq) {
  for (size_t i = 0; i < MT_STARTS_KEPT; i++)
    if (st->starts[i].used && st->starts[i].seq == seq)
      return &st->starts[i];
  return NULL;
}

/* CPU type and activated count of entry i; false if the entry is short. */
static bool entry_activated(const struct zvm_array_view *cpus, size_t i,
                            uint64_t *type, uint64_t *act) {
  const uint8_t *e = zvm_array_entry(cpus, i);
  return zvm_field_u64(&cputinfo_fields[CPUTINFO_CPUTYPE], e, cpus->entry_size,
                       0, type) &&
         zvm_field_u64(&cputinfo_fields[CPUTINFO_RCCACMNT], e, cpus->entry_size,
                       0, act);
}

static void notify_start(struct zvm_hook_ctx *ctx, struct prcsmt_state *st,
                         uint32_t seq, uint64_t us,
                         const struct zvm_array_view *cpus) {
  /* Remember the activated counts from before the change (IBM: the
   * start record holds the old RCCACMNT) to name old -> new at the end. */
  struct mt_start *s = start_find(st, seq);
  if (s == NULL) {
    s = &st->starts[st->next_start];
    st->next_start = (st->next_start + 1) % MT_STARTS_KEPT;
  }
  *s = (struct mt_start){.used = true, .seq = seq};
  for (size_t i = 0; i < cpus->count && s->n < MT_TYPES_KEPT; i++) {
    uint64_t type, act;
    if (entry_activated(cpus, i, &type, &act)) {
      s->e[s->n].type = (uint8_t)type;
      s->e[s->n].activated = (uint8_t)act;
      s->n++;
    }
  }

  char msg[ZVM_NOTIF_MSG_MAX];
  snprintf(msg, sizeof(msg),
           "multithreading configuration change %u started (RCCSMTSQ %u); "
           "activated threads per core before the change:",
           (unsigned)((seq + 1) / 2), (unsigned)seq);
  for (size_t i = 0; i < s->n; i++) {
    char name[16], act[8];
    thread_count(act, sizeof(act), s->e[i].activated);
    msg_append(msg, sizeof(msg), "%s %s %s", i ? "," : "",
               cpu_name(s->e[i].type, name, sizeof(name)), act);
  }
  if (s->n == 0)
    msg_append(msg, sizeof(msg), " none listed");
  msg_append(msg, sizeof(msg),
             "; data until the change ends spans two configurations");
  zvm_hook_notify(ctx, ZVM_NOTIF_WARNING, us, "system", msg);
}

static void notify_end(struct zvm_hook_ctx *ctx, struct prcsmt_state *st,
                       uint32_t seq, uint64_t us,
                       const struct zvm_array_view *cpus) {
  struct mt_start *s = start_find(st, seq);
  {
    char msg[ZVM_NOTIF_MSG_MAX];
    snprintf(msg, sizeof(msg),
             "multithreading configuration change %u ended (RCCSMTSQ %u); "
             "activated threads per core:",
             (unsigned)((seq + 1) / 2), (unsigned)seq);
    size_t listed = 0;
    for (size_t i = 0; i < cpus->count; i++) {
      uint64_t type, act;
      if (!entry_activated(cpus, i, &type, &act))
        continue;
      char name[16], before[8] = "?", after[8];
      for (size_t j = 0; s != NULL && j < s->n; j++)
        if (s->e[j].type == type)
          thread_count(before, sizeof(before), s->e[j].activated);
      thread_count(after, sizeof(after), (uint8_t)act);
      msg_append(msg, sizeof(msg), "%s %s %s -> %s", listed++ ? "," : "",
                 cpu_name((uint8_t)type, name, sizeof(name)), before, after);
    }
    if (listed == 0)
      msg_append(msg, sizeof(msg), " none listed");
    if (s == NULL)
      msg_append(msg, sizeof(msg), "; the start of this change was not seen");
    zvm_hook_notify(ctx, ZVM_NOTIF_OKAY, us, "system", msg);
  }
  if (s != NULL)
    s->used = false;
}

static bool prcsmt_record(struct zvm_hook_ctx *ctx,
                          const struct zvm_record_view *view,
                          uint64_t time_us) {
  if (time_us == 0)
    return false; /* no usable time: neither values nor notifications */
  struct prcsmt_state *st = ctx->record_state;
  uint64_t seq, status = 0;
  if (!zvm_field_u64(&prcsmt_fields[PRCSMT_RCCSMTSQ], view->data, view->len, 0,
                     &seq))
    return true;
  (void)zvm_field_u64(&prcsmt_fields[PRCSMT_CAL_STATUS], view->data, view->len,
                      0, &status);
  struct zvm_array_view cpus = {.count = 0};
  /* The built-in's own array, also under a <Record> block that replaces
   * D5R21 (kept_by_replacement). */
  if (zvm_array_locate(&prcsmt_cputinfo, view->data, view->len, &cpus) !=
      ZVM_ARRAY_OK)
    cpus.count = 0;
  uint64_t tod = view->rec != NULL ? view->rec->tod : 0;
  if ((status & PRCSMT_CAL_START) &&
      !(st->have_start_seq && st->last_start_seq == seq &&
        st->last_start_tod == tod)) {
    st->have_start_seq = true;
    st->last_start_seq = (uint32_t)seq;
    st->last_start_tod = tod;
    notify_start(ctx, st, (uint32_t)seq, time_us, &cpus);
  }
  if ((status & PRCSMT_CAL_END) &&
      !(st->have_end_seq && st->last_end_seq == seq &&
        st->last_end_tod == tod)) {
    st->have_end_seq = true;
    st->last_end_seq = (uint32_t)seq;
    st->last_end_tod = tod;
    notify_end(ctx, st, (uint32_t)seq, time_us, &cpus);
  }
  return true;
}

static const struct zvm_record_hooks prcsmt_hooks = {
    .record = prcsmt_record,
    .notify_kind = ZVM_NOTIFY_MULTITHREADING,
    .record_state_size = sizeof(struct prcsmt_state),
    .kept_by_replacement = true,
};
