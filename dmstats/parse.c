/* SPDX-License-Identifier: MIT */
/*
 * dmstats - the counters of a plain @stats_print response.
 *
 * Only for regions of other programs (see dms_parse_print in dmstats.h for
 * why the library's populate cannot be used on them). Format, one line per
 * area (Linux Documentation/admin-guide/device-mapper/statistics.rst,
 * "@stats_print"): "<start_sector>+<length>" then 13 counters; the 14th
 * field, a histogram "a:b:c", is present only for regions created with
 * one. Strict: anything else fails the whole read.
 */
#include "dmstats/dmstats.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#define NS_PER_MS UINT64_C(1000000)

static bool is_time_field(int c) {
  return c == DM_STATS_READ_NSECS || c == DM_STATS_WRITE_NSECS ||
         c == DM_STATS_IO_NSECS || c == DM_STATS_WEIGHTED_IO_NSECS ||
         c == DM_STATS_TOTAL_READ_NSECS || c == DM_STATS_TOTAL_WRITE_NSECS;
}

/* A decimal number of at most 20 digits; *p moves past it. */
static bool number(const char **p, uint64_t *out) {
  const char *s = *p;
  if (!isdigit((unsigned char)*s))
    return false;
  uint64_t v = 0;
  for (; isdigit((unsigned char)*s); s++) {
    uint64_t d = (uint64_t)(*s - '0');
    if (v > (UINT64_MAX - d) / 10)
      return false;
    v = v * 10 + d;
  }
  *p = s;
  *out = v;
  return true;
}

int dms_parse_print(const char *text, bool precise, uint64_t *counters,
                    int nr_bins, uint64_t *bins, size_t max_areas) {
  const char *p = text;
  size_t areas = 0;
  while (*p != '\0') {
    if (areas == max_areas)
      return -1;
    uint64_t start, len, *row = counters + areas * DM_STATS_NR_COUNTERS;
    if (!number(&p, &start) || *p++ != '+' || !number(&p, &len))
      return -1;
    for (int c = 0; c < DM_STATS_NR_COUNTERS; c++) {
      if (*p++ != ' ')
        return -1;
      uint64_t v;
      /* in-flight is printed signed ("%d"); a transient negative is 0 */
      if (c == DM_STATS_IO_IN_PROGRESS_COUNT && *p == '-') {
        p++;
        if (!number(&p, &v))
          return -1;
        v = 0;
      } else if (!number(&p, &v)) {
        return -1;
      }
      if (is_time_field(c) && !precise) {
        if (v > UINT64_MAX / NS_PER_MS)
          return -1;
        v *= NS_PER_MS;
      }
      row[c] = v;
    }
    if (nr_bins > 0) {
      uint64_t *hist = bins + areas * (size_t)nr_bins;
      for (int b = 0; b < nr_bins; b++)
        if (*p++ != (b == 0 ? ' ' : ':') || !number(&p, &hist[b]))
          return -1;
    } else if (*p == ' ') { /* a histogram nobody asked for */
      p++;
      while (isdigit((unsigned char)*p) || *p == ':')
        p++;
    }
    if (*p == '\n')
      p++;
    else if (*p != '\0')
      return -1;
    areas++;
  }
  return (int)areas;
}
