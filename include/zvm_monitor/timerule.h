/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - time rules of the mapping layer: a record's TOD as UTC and
 * the time a value is dispatched at. Pure functions over integers: no
 * clock is read here, no collectd header (the glue reads the clocks).
 *
 * Times are microseconds since the Unix epoch, as everywhere in the mapper.
 */
#ifndef ZVM_MONITOR_TIMERULE_H
#define ZVM_MONITOR_TIMERULE_H

#include <stdbool.h>
#include <stdint.h>

#include "zvm_monitor/decode.h" /* ZVM_LEAP_MAX_S */

/* The 64-bit TOD clock counts 2^-12 us from 1900-01-01 00:00 (bit 51 = 1
 * us; Principles of Operation, "TOD Clock"; Linux arch/s390/include/asm/
 * timex.h TOD_UNIX_EPOCH), so it wraps after 2^52 us, on 2042-09-17
 * 23:53:47.370496 UTC. */
#define ZVM_TOD_PERIOD_US (UINT64_C(1) << 52)
/* 1970-01-01 in microseconds of the TOD clock: 0x7D91048BCA000000 >> 12. */
#define ZVM_TOD_UNIX_EPOCH_US UINT64_C(2208988800000000)

/* The step added to an identifier's last time when neither its record
 * time nor its set's arrival time is later: 1 us, the smallest step of
 * the mapper's microsecond times (collectd's cdtime_t resolves 2^-30 s, so
 * a 1 us step stays a strictly later cdtime_t). */
#define ZVM_TIME_STEP_US UINT64_C(1)

/* How far a record's time (UTC) may lie after its set's arrival time and
 * still be trusted: 1 h (clocks of z/VM and the guest apart, a set held
 * up), plus the largest leap-second offset (the TOD may run ahead of UTC
 * by it when the offset is not known). Later: a TOD glitch, a damaged
 * record; its values take the arrival time (ZVM_STAMP_FUTURE). */
#define ZVM_TIME_AHEAD_MAX_US                                                  \
  ((UINT64_C(3600) + (uint64_t)ZVM_LEAP_MAX_S) * UINT64_C(1000000))

/* zvm_tod_unix_us() with every epoch tried (its general case). */
bool zvm_tod_unix_us_epochs(uint64_t tod, uint64_t ref_us, uint64_t *us);

/*
 * A TOD clock value as microseconds since the Unix epoch, before the
 * leap-second offset is taken off. Of the TOD epochs 1900 + k * 2^52 us
 * (k = 0, 1, 2) the one is chosen that puts the record nearest ref_us (the
 * local clock when the record arrived), so records after 2042-09-17 keep
 * their time; ref_us 0 (unknown) takes the first epoch (k = 0). False if
 * the result is not after 1970-01-01.
 */
static inline bool zvm_tod_unix_us(uint64_t tod, uint64_t ref_us,
                                   uint64_t *us) {
  /* Inline, the common case (it runs for every record): the epoch
   * 1900-2042, the record within half a period (71 years) of ref_us, so no
   * other epoch is nearer. The general choice otherwise. */
  uint64_t tod_us = tod >> 12; /* bits 0-51: microseconds */
  if (tod_us > ZVM_TOD_UNIX_EPOCH_US) {
    uint64_t cand = tod_us - ZVM_TOD_UNIX_EPOCH_US;
    if (ref_us == 0 || (cand > ref_us ? cand - ref_us : ref_us - cand) <
                           ZVM_TOD_PERIOD_US / 2) {
      *us = cand;
      return true;
    }
  }
  return zvm_tod_unix_us_epochs(tod, ref_us, us);
}

/* unix_us (from zvm_tod_unix_us) minus the TOD clock's leap-second offset
 * (leap_us, >= 0; the TOD then runs ahead of UTC by it). False if the
 * result would not be after 1970. */
static inline bool zvm_unix_to_utc(uint64_t unix_us, uint64_t leap_us,
                                   uint64_t *utc_us) {
  if (unix_us <= leap_us)
    return false;
  *utc_us = unix_us - leap_us;
  return true;
}

/* How a value's time was chosen (the rule in the man page, "AGGREGATION AND
 * TIME STAMPS"). */
enum zvm_stamp {
  ZVM_STAMP_RECORD = 0, /* the record's time: later than the last time */
  ZVM_STAMP_ARRIVAL,    /* not later: its set's arrival time, which is */
  ZVM_STAMP_STEP,       /* neither: the last time + ZVM_TIME_STEP_US */
  ZVM_STAMP_FUTURE,     /* the record's time is more than
                           ZVM_TIME_AHEAD_MAX_US after the arrival time:
                           the arrival time if it is after the last time,
                           else the last time + ZVM_TIME_STEP_US */
};

/* Whether a record's time (UTC) lies too far after its set's arrival
 * time (0: unknown, never too far) to be trusted. */
static inline bool zvm_time_too_far(uint64_t record_us, uint64_t arrival_us) {
  return arrival_us != 0 && record_us > arrival_us &&
         record_us - arrival_us > ZVM_TIME_AHEAD_MAX_US;
}

/* The time to dispatch a value at, given its identifier's last dispatched
 * time (0: none), its record's UTC time and its set's arrival time (0:
 * unknown). The result is always after last_us. A record time too far
 * ahead of the arrival time is not used, and not kept as the last time
 * beyond that value: the next plausible record time is used again. */
static inline enum zvm_stamp zvm_time_stamp(uint64_t last_us,
                                            uint64_t record_us,
                                            uint64_t arrival_us,
                                            uint64_t *out_us) {
  if (zvm_time_too_far(record_us, arrival_us)) {
    *out_us = arrival_us > last_us ? arrival_us : last_us + ZVM_TIME_STEP_US;
    return ZVM_STAMP_FUTURE;
  }
  if (record_us > last_us) {
    *out_us = record_us;
    return ZVM_STAMP_RECORD;
  }
  if (arrival_us > last_us) {
    *out_us = arrival_us;
    return ZVM_STAMP_ARRIVAL;
  }
  *out_us = last_us + ZVM_TIME_STEP_US;
  return ZVM_STAMP_STEP;
}

/*
 * Leap-second offset from two clocks read at the same moment: the TOD
 * clock (STCKF) and CLOCK_REALTIME (the kernel takes STP's offset off the
 * TOD for it). Whole seconds, rounded; false if the difference is not
 * between -0.5 s and ZVM_LEAP_MAX_S + 0.5 s (a guest TOD epoch of its own,
 * or a clock not set): then no offset can be told.
 */
bool zvm_leap_from_clocks(uint64_t tod_unix_us, uint64_t realtime_us,
                          uint64_t *leap_us);

/*
 * Leap-second offset estimated from data sets: the newest record of a set
 * was built shortly before the set arrived, so record time - arrival time
 * is at most the offset, and close to it for sets read at once. The
 * estimate is the largest such lead over the last two windows of
 * ZVM_LEAP_WINDOW_US, less ZVM_LEAP_TOLERANCE_US (clock skew), rounded up
 * to whole seconds (offsets are whole seconds, a lead is never above
 * one); a lead above ZVM_LEAP_MAX_S + 1 s or below 0 gives offset 0.
 */
#define ZVM_LEAP_WINDOW_US (UINT64_C(600) * 1000000)
#define ZVM_LEAP_TOLERANCE_US UINT64_C(200000)

struct zvm_leap_est {
  bool have_cur, have_prev;
  int64_t cur_max_us, prev_max_us; /* largest lead per window */
  uint64_t window_start_us;
};

/* One set: the UTC-without-offset time of its newest record and its
 * arrival time (0: unknown, ignored). */
void zvm_leap_observe(struct zvm_leap_est *e, uint64_t newest_unix_us,
                      uint64_t arrival_us);
/* The estimate in microseconds (whole seconds); 0 before any set. */
uint64_t zvm_leap_estimate_us(const struct zvm_leap_est *e);

#endif /* ZVM_MONITOR_TIMERULE_H */
