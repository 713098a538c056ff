/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the dmstats plugin's @stats_print parser (dms_parse_print).
 *
 * Input: 1 flags byte (bit 0: the region has precise_timestamps; bits 1-5:
 * the number of bins of its histogram, 0 for none), 1 byte: the number of
 * areas of the region, then the answer to @stats_print, which ends at the
 * first NUL byte (libdevmapper hands it over as a C string).
 *
 * The kernel prints one line per area (Linux drivers/md/dm-stats.c,
 * dm_stats_print(): "<start>+<length>", 13 counters, the 9th with "%d",
 * " n:n:...:n" for a histogram, "\n"), but the parser must survive any
 * text. Its output arrays are heap blocks of exactly the documented size
 * (counters[areas][13], bins[areas][bins]), so ASan sees a write past
 * them; its answer is checked against an independent reading of the
 * documented format (Documentation/admin-guide/device-mapper/
 * statistics.rst, "@stats_print": the 13 counters and their units), and
 * areas it did not read are left alone.
 */
#include "fuzz.h"

#include <stdbool.h>

#include "dmstats/dmstats.h"

#define COUNTERS 13
#define IN_FLIGHT 8 /* counter 9, "I/Os currently in progress" */
#define MS_NS UINT64_C(1000000)
#define UNTOUCHED UINT64_C(0xA5A5A5A5A5A5A5A5)

/* Counters 4, 8, 10, 11, 12 and 13 (1-based) of statistics.rst are times:
 * milliseconds, or nanoseconds with precise_timestamps. */
static bool is_time(int i) {
  return i == 3 || i == 7 || i == 9 || i == 10 || i == 11 || i == 12;
}

/* The decimal digits [s, e): at least one, the value in 64 bits. */
static bool digits(const char *s, const char *e, uint64_t *out) {
  if (s == e)
    return false;
  uint64_t v = 0;
  for (; s < e; s++) {
    if (*s < '0' || *s > '9')
      return false;
    uint64_t d = (uint64_t)(*s - '0');
    if (v > UINT64_MAX / 10 || v * 10 > UINT64_MAX - d)
      return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

/* One line [s, e) without its newline: 14 fields separated by single
 * blanks, or 15 with the histogram (with nr_bins 0 any digits and colons:
 * a histogram the region was not thought to have). */
static bool line(const char *s, const char *e, bool precise, int nr_bins,
                 uint64_t *row, uint64_t *hist) {
  const char *field[16];
  const char *end[16];
  int n = 0;
  for (const char *f = s;; f++) {
    const char *b = memchr(f, ' ', (size_t)(e - f));
    if (n == 16)
      return false;
    field[n] = f;
    end[n++] = b != NULL ? b : e;
    if (b == NULL)
      break;
    f = b;
  }
  if (n != 14 && n != 15)
    return false;
  const char *plus = memchr(field[0], '+', (size_t)(end[0] - field[0]));
  uint64_t start, len;
  if (plus == NULL || !digits(field[0], plus, &start) ||
      !digits(plus + 1, end[0], &len))
    return false;
  for (int i = 0; i < COUNTERS; i++) {
    const char *f = field[1 + i];
    uint64_t v;
    if (i == IN_FLIGHT && f < end[1 + i] && *f == '-') {
      if (!digits(f + 1, end[1 + i], &v))
        return false;
      v = 0; /* a transient negative count of I/Os in flight */
    } else if (!digits(f, end[1 + i], &v)) {
      return false;
    }
    if (is_time(i) && !precise) {
      if (v > UINT64_MAX / MS_NS)
        return false;
      v *= MS_NS;
    }
    row[i] = v;
  }
  if (nr_bins == 0) {
    for (const char *c = n == 15 ? field[14] : e; c < e; c++)
      if ((*c < '0' || *c > '9') && *c != ':')
        return false;
    return true;
  }
  if (n != 15)
    return false;
  const char *c = field[14];
  for (int b = 0; b < nr_bins; b++) {
    const char *colon = memchr(c, ':', (size_t)(e - c));
    const char *stop = b + 1 < nr_bins ? colon : e;
    if (stop == NULL || !digits(c, stop, &hist[b]))
      return false;
    c = stop + 1;
  }
  return true;
}

/* The whole answer: lines ended by "\n", the last one possibly not. */
static int expect(const char *text, bool precise, int nr_bins, uint64_t *rows,
                  uint64_t *hists, size_t max_areas) {
  size_t areas = 0;
  const char *p = text;
  while (*p != '\0') {
    if (areas == max_areas)
      return -1;
    const char *nl = strchr(p, '\n');
    const char *e = nl != NULL ? nl : p + strlen(p);
    if (!line(p, e, precise, nr_bins, rows + areas * COUNTERS,
              hists + areas * (size_t)nr_bins))
      return -1;
    areas++;
    p = nl != NULL ? nl + 1 : e;
  }
  return (int)areas;
}

static uint64_t *block(size_t n) {
  uint64_t *p = malloc(n > 0 ? n * sizeof(*p) : 1);
  FUZZ_CHECK(p != NULL);
  for (size_t i = 0; i < n; i++)
    p[i] = UNTOUCHED;
  return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  FUZZ_CHECK(DM_STATS_NR_COUNTERS == COUNTERS);
  bool precise = (data[0] & 1) != 0;
  int nr_bins = (data[0] >> 1) & 0x1f;
  size_t max_areas = data[1];
  const char *body = (const char *)data + 2;
  size_t len = strnlen(body, size - 2);
  char *text = calloc(len + 1, 1); /* exactly the string and its NUL */
  FUZZ_CHECK(text != NULL);
  memcpy(text, body, len);

  size_t nc = max_areas * COUNTERS, nb = max_areas * (size_t)nr_bins;
  uint64_t *counters = block(nc), *bins = block(nb);
  int got = dms_parse_print(text, precise, counters, nr_bins,
                            nr_bins > 0 ? bins : NULL, max_areas);

  /* the oracle gets room for one area more than the region has */
  uint64_t *rows = block(nc + COUNTERS), *hists = block(nb + (size_t)nr_bins);
  int want = expect(text, precise, nr_bins, rows, hists, max_areas);
  if (got != want)
    fprintf(stderr, "dms_parse_print: %d areas, the format says %d\n", got,
            want);
  FUZZ_CHECK(got == want);
  if (got >= 0) {
    size_t areas = (size_t)got;
    FUZZ_CHECK(areas <= max_areas);
    for (size_t i = 0; i < nc; i++)
      FUZZ_CHECK(counters[i] == (i < areas * COUNTERS ? rows[i] : UNTOUCHED));
    for (size_t i = 0; i < nb; i++)
      FUZZ_CHECK(bins[i] ==
                 (i < areas * (size_t)nr_bins ? hists[i] : UNTOUCHED));
  }
  free(rows);
  free(hists);
  free(counters);
  free(bins);
  free(text);
  return 0;
}
