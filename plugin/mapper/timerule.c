/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - time rules: TOD -> UTC (epoch after the 2042 wrap,
 * leap-second offset) and the time a value is dispatched at. See
 * timerule.h; the rules are the man page's "Time" section.
 */
#include "zvm_monitor/timerule.h"

#define US_PER_S INT64_C(1000000)
#define TOD_EPOCHS 3 /* 1900, 2042, 2185: far past any clock this runs on */

/* zvm_tod_unix_us() (timerule.h) when its common case does not apply:
 * every epoch tried. */
bool zvm_tod_unix_us_epochs(uint64_t tod, uint64_t ref_us, uint64_t *us) {
  /* Bits 0-51 count microseconds; the 12 bits below them are dropped. */
  uint64_t tod_us = tod >> 12;
  bool found = false;
  uint64_t best = 0, best_dist = 0;
  for (unsigned k = 0; k < TOD_EPOCHS; k++) {
    uint64_t since_1900 = tod_us + k * ZVM_TOD_PERIOD_US; /* < 2^54 */
    if (since_1900 <= ZVM_TOD_UNIX_EPOCH_US)
      continue;
    uint64_t cand = since_1900 - ZVM_TOD_UNIX_EPOCH_US;
    if (ref_us == 0) {
      if (k == 0) {
        *us = cand;
        return true;
      }
      return false;
    }
    uint64_t dist = cand > ref_us ? cand - ref_us : ref_us - cand;
    if (!found || dist < best_dist) {
      found = true;
      best = cand;
      best_dist = dist;
    }
  }
  if (found)
    *us = best;
  return found;
}

bool zvm_leap_from_clocks(uint64_t tod_unix_us, uint64_t realtime_us,
                          uint64_t *leap_us) {
  /* Both clocks are read within microseconds of each other: round. */
  int64_t diff = (int64_t)(tod_unix_us - realtime_us);
  if (diff < -US_PER_S / 2 || diff >= ZVM_LEAP_MAX_S * US_PER_S + US_PER_S / 2)
    return false;
  int64_t s = (diff + US_PER_S / 2) / US_PER_S;
  *leap_us = s > 0 ? (uint64_t)s * US_PER_S : 0;
  return true;
}

void zvm_leap_observe(struct zvm_leap_est *e, uint64_t newest_unix_us,
                      uint64_t arrival_us) {
  if (arrival_us == 0 || newest_unix_us == 0)
    return;
  if (e->window_start_us == 0 || arrival_us < e->window_start_us ||
      arrival_us - e->window_start_us >= ZVM_LEAP_WINDOW_US) {
    /* A new window; a clock set back also starts one. */
    e->prev_max_us = e->cur_max_us;
    e->have_prev = e->have_cur;
    e->have_cur = false;
    e->window_start_us = arrival_us;
  }
  int64_t lead = (int64_t)(newest_unix_us - arrival_us);
  if (!e->have_cur || lead > e->cur_max_us) {
    e->cur_max_us = lead;
    e->have_cur = true;
  }
}

uint64_t zvm_leap_estimate_us(const struct zvm_leap_est *e) {
  if (!e->have_cur && !e->have_prev)
    return 0;
  int64_t lead = e->have_cur ? e->cur_max_us : e->prev_max_us;
  if (e->have_cur && e->have_prev && e->prev_max_us > lead)
    lead = e->prev_max_us;
  lead -= (int64_t)ZVM_LEAP_TOLERANCE_US;
  if (lead <= 0 || lead > ZVM_LEAP_MAX_S * US_PER_S)
    return 0;
  /* Round up: the newest record was built before its set arrived. */
  return (uint64_t)((lead + US_PER_S - 1) / US_PER_S) * US_PER_S;
}
