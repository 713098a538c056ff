/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - device and data-loss episodes, for notifications.
 *
 * The read callback sees the reader's counters and device state once per
 * pass (zvm_setq_take()). This module turns their changes into episodes,
 * one notification when an episode starts (WARNING) and one when it ends
 * (OKAY), never more: an admin is told once that data is being lost or
 * that the device is in trouble, and once that it is over.
 *
 * Kinds, each with its own episode:
 *   overflow  z/VM's IUCV message limit was reached (EOVERFLOW): records
 *             that z/VM could not deliver are lost;
 *   discard   data sets were discarded after EIO/EFAULT;
 *   device    the device could not be opened (EBUSY, EIO, EACCES, ENOENT,
 *             ...: the same one-line advice as the log) or its *MONITOR
 *             path was severed.
 * An episode starts in a pass that sees new trouble of its kind. It ends
 * in a pass when reading has resumed since the last trouble (a complete
 * data set arrived; for "device": the device is open) and no new trouble
 * was seen for at least settle_us. A condition that comes and goes faster
 * than that is one episode, so the notifications stay few however the
 * device flaps.
 *
 * No collectd, no I/O: the glue dispatches what zvm_events_update() gives.
 */
#ifndef ZVM_MONITOR_EVENTS_H
#define ZVM_MONITOR_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/reader.h"

enum zvm_event_kind {
  ZVM_EVENT_OVERFLOW,
  ZVM_EVENT_DISCARD,
  ZVM_EVENT_DEVICE,
  ZVM_EVENT_KINDS
};

enum zvm_event_severity { ZVM_EVENT_WARNING, ZVM_EVENT_OKAY };

#define ZVM_EVENT_MSG_MAX 256 /* collectd's NOTIF_MAX_MSG_LEN */

struct zvm_event_notif {
  enum zvm_event_kind kind;
  enum zvm_event_severity severity;
  char message[ZVM_EVENT_MSG_MAX];
};

struct zvm_event_episode {
  bool active;
  uint64_t since_us;    /* start of the episode */
  uint64_t last_us;     /* last pass with trouble of this kind */
  bool resumed;         /* reading resumed after the last trouble */
  uint64_t occurrences; /* trouble seen in this episode (counter deltas) */
};

struct zvm_events {
  char device[256]; /* for messages: a path as long as a notification */
  uint64_t settle_us;
  bool enabled[ZVM_EVENT_KINDS];
  bool have_last;
  struct zvm_reader_stats last;
  struct zvm_event_episode ep[ZVM_EVENT_KINDS];
};

/* Every kind enabled; device names the device in messages. */
void zvm_events_init(struct zvm_events *ev, const char *device,
                     uint64_t settle_us);

/* The name of a kind: "overflow", "discard", "device" (type instances of
 * the notifications, and the option names' suffixes). */
const char *zvm_event_kind_name(enum zvm_event_kind kind);

/* One pass: rs holds the reader's counters and device state now, now_us
 * the wall clock. Fills out (room for ZVM_EVENT_KINDS entries) and returns
 * how many notifications to send. A disabled kind still tracks its
 * episodes but sends nothing. */
size_t zvm_events_update(struct zvm_events *ev,
                         const struct zvm_reader_stats *rs, uint64_t now_us,
                         struct zvm_event_notif *out);

#endif /* ZVM_MONITOR_EVENTS_H */
