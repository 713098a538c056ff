/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - device and data-loss episodes (see events.h).
 */
#include "zvm_monitor/events.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define US_PER_S UINT64_C(1000000)

void zvm_events_init(struct zvm_events *ev, const char *device,
                     uint64_t settle_us) {
  memset(ev, 0, sizeof(*ev));
  snprintf(ev->device, sizeof(ev->device), "%s", device);
  ev->settle_us = settle_us;
  for (int k = 0; k < ZVM_EVENT_KINDS; k++)
    ev->enabled[k] = true;
}

const char *zvm_event_kind_name(enum zvm_event_kind kind) {
  switch (kind) {
  case ZVM_EVENT_OVERFLOW:
    return "overflow";
  case ZVM_EVENT_DISCARD:
    return "discard";
  case ZVM_EVENT_DEVICE:
    return "device";
  default:
    return "unknown";
  }
}

/* Counter growth since the previous pass; a counter never goes back, but
 * a reader created anew would start at 0 again: no growth then. */
static uint64_t grew(uint64_t now, uint64_t before) {
  return now > before ? now - before : 0;
}

static unsigned secs(uint64_t us) { return (unsigned)(us / US_PER_S); }

/* A message is at most a notification's length (buf, size): with a long
 * device path its end is cut, which is what a notification can hold. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

static void start_message(const struct zvm_events *ev, enum zvm_event_kind k,
                          const struct zvm_reader_stats *rs,
                          const struct zvm_reader_stats *d, char *buf,
                          size_t size) {
  switch (k) {
  case ZVM_EVENT_OVERFLOW:
    snprintf(buf, size,
             "%s: z/VM's IUCV message limit was reached (EOVERFLOW): monitor "
             "records were lost; if this repeats, collectd does not read the "
             "device fast enough (see the log for a full queue)",
             ev->device);
    break;
  case ZVM_EVENT_DISCARD:
    snprintf(buf, size,
             "%s: monitor data was discarded (EIO %" PRIu64 ", EFAULT %" PRIu64
             ", incomplete sets %" PRIu64 ", oversize sets %" PRIu64
             "): the records of those data sets are lost",
             ev->device, d->health.eio, d->health.efault, d->discarded,
             d->health.oversize);
    break;
  case ZVM_EVENT_DEVICE:
  default:
    /* What started the episode: a fault (sever) always comes before the
     * re-opens that may fail in the same pass, so it is named first and
     * the message does not depend on how the pass fell. */
    if (d->faults == 0 && rs->open_errno != 0)
      zvm_reader_open_advice(rs->open_errno, ev->device, buf, size);
    else if (d->health.stream_errors > 0)
      snprintf(buf, size,
               "%s returned data /dev/monreader never returns (see the log): "
               "check that Device names the z/VM monitor device; no monitor "
               "data until it is re-opened",
               ev->device);
    else
      snprintf(buf, size,
               "the *MONITOR path of %s was severed or failed (see syslog for "
               "the IPUSER SEVER code): no monitor data until it is re-opened",
               ev->device);
    break;
  }
}

static void end_message(const struct zvm_events *ev, enum zvm_event_kind k,
                        const struct zvm_event_episode *e, uint64_t now_us,
                        char *buf, size_t size) {
  unsigned lasted = secs(now_us > e->since_us ? now_us - e->since_us : 0);
  switch (k) {
  case ZVM_EVENT_OVERFLOW:
    snprintf(buf, size,
             "%s: reading keeps up again: no EOVERFLOW for %u s (%" PRIu64
             " in this episode of %u s)",
             ev->device, secs(now_us - e->last_us), e->occurrences, lasted);
    break;
  case ZVM_EVENT_DISCARD:
    snprintf(buf, size,
             "%s: complete data sets again: nothing discarded for %u s "
             "(%" PRIu64 " read errors or lost sets in this episode of %u s)",
             ev->device, secs(now_us - e->last_us), e->occurrences, lasted);
    break;
  case ZVM_EVENT_DEVICE:
  default:
    snprintf(buf, size,
             "%s is open and read again (the trouble lasted %u s, %" PRIu64
             " failed opens or severed paths)",
             ev->device, lasted, e->occurrences);
    break;
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

size_t zvm_events_update(struct zvm_events *ev,
                         const struct zvm_reader_stats *rs, uint64_t now_us,
                         struct zvm_event_notif *out) {
  static const struct zvm_reader_stats zero;
  const struct zvm_reader_stats *before = ev->have_last ? &ev->last : &zero;
  struct zvm_reader_stats d = {
      .health.sets = grew(rs->health.sets, before->health.sets),
      .health.eio = grew(rs->health.eio, before->health.eio),
      .health.efault = grew(rs->health.efault, before->health.efault),
      .health.eoverflow = grew(rs->health.eoverflow, before->health.eoverflow),
      .health.open_errors =
          grew(rs->health.open_errors, before->health.open_errors),
      .health.oversize = grew(rs->health.oversize, before->health.oversize),
      .discarded = grew(rs->discarded, before->discarded),
      .faults = grew(rs->faults, before->faults),
      .health.stream_errors =
          grew(rs->health.stream_errors, before->health.stream_errors),
  };
  uint64_t trouble[ZVM_EVENT_KINDS] = {
      [ZVM_EVENT_OVERFLOW] = d.health.eoverflow,
      [ZVM_EVENT_DISCARD] =
          d.health.eio + d.health.efault + d.discarded + d.health.oversize,
      [ZVM_EVENT_DEVICE] = d.health.open_errors + d.faults,
  };
  bool resumed[ZVM_EVENT_KINDS] = {
      [ZVM_EVENT_OVERFLOW] = d.health.sets > 0,
      [ZVM_EVENT_DISCARD] = d.health.sets > 0,
      [ZVM_EVENT_DEVICE] = rs->open != 0,
  };

  size_t n = 0;
  for (int k = 0; k < ZVM_EVENT_KINDS; k++) {
    struct zvm_event_episode *e = &ev->ep[k];
    struct zvm_event_notif *note = &out[n];
    if (trouble[k] > 0) {
      bool starts = !e->active;
      if (starts)
        *e = (struct zvm_event_episode){.active = true, .since_us = now_us};
      e->last_us = now_us;
      e->resumed = false;
      e->occurrences += trouble[k];
      if (starts && ev->enabled[k]) {
        *note =
            (struct zvm_event_notif){.kind = k, .severity = ZVM_EVENT_WARNING};
        start_message(ev, k, rs, &d, note->message, sizeof(note->message));
        n++;
      }
      continue;
    }
    if (!e->active)
      continue;
    if (resumed[k])
      e->resumed = true;
    if (!e->resumed || now_us < e->last_us ||
        now_us - e->last_us < ev->settle_us)
      continue;
    if (ev->enabled[k]) {
      *note = (struct zvm_event_notif){.kind = k, .severity = ZVM_EVENT_OKAY};
      end_message(ev, k, e, now_us, note->message, sizeof(note->message));
      n++;
    }
    e->active = false;
  }
  ev->last = *rs;
  ev->have_last = true;
  return n;
}
