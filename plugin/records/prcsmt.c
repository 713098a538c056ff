/*
 * zvm_monitor - D5R21 MRPRCSMT hook: a notification at the start and at
 * the end of each multithreading configuration change (seed 004: the
 * start record carries the counts from before the change, the end record
 * the new ones; both carry the change's RCCSMTSQ). The values themselves
 * are plain fields of the table (records.c).
 */
#include "engine/hooks.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
  /* Notifications are suppressed only as exact repeats: the RCCSMTSQ of
   * the last start and of the last end notified, never for their time. */
  bool have_start_seq, have_end_seq;
  uint32_t last_start_seq, last_end_seq;
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
  return zvm_field_u64(zvm_cputinfo_cputype, e, cpus->entry_size, 0, type) &&
         zvm_field_u64(zvm_cputinfo_rccacmnt, e, cpus->entry_size, 0, act);
}

static void notify_start(struct zvm_hook_ctx *ctx, struct prcsmt_state *st,
                         uint32_t seq, uint64_t us,
                         const struct zvm_array_view *cpus) {
  /* Remember the activated counts from before the change (seed 004: the
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
  zvm_hook_notify(ctx, ZVM_NOTIF_WARNING, us, "system", "threads", msg);
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
    zvm_hook_notify(ctx, ZVM_NOTIF_OKAY, us, "system", "threads", msg);
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
  if (!zvm_field_u64(zvm_prcsmt_rccsmtsq, view->data, view->len, 0, &seq))
    return true;
  (void)zvm_field_u64(zvm_prcsmt_cal_status, view->data, view->len, 0, &status);
  struct zvm_array_view cpus = {.count = 0};
  if (zvm_array_locate(&view->desc->arrays[0], view->data, view->len, &cpus) !=
      ZVM_ARRAY_OK)
    cpus.count = 0;
  if ((status & ZVM_PRCSMT_CAL_START) &&
      !(st->have_start_seq && st->last_start_seq == seq)) {
    st->have_start_seq = true;
    st->last_start_seq = (uint32_t)seq;
    notify_start(ctx, st, (uint32_t)seq, time_us, &cpus);
  }
  if ((status & ZVM_PRCSMT_CAL_END) &&
      !(st->have_end_seq && st->last_end_seq == seq)) {
    st->have_end_seq = true;
    st->last_end_seq = (uint32_t)seq;
    notify_end(ctx, st, (uint32_t)seq, time_us, &cpus);
  }
  return true;
}

const struct zvm_record_hooks zvm_prcsmt_hooks = {
    .record = prcsmt_record,
    .notify_kind = ZVM_NOTIFY_MULTITHREADING,
    .record_state_size = sizeof(struct prcsmt_state),
};
