/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - types.db lines and the check of a shipped types.db
 * (types.h).
 */
#include "base/types.h"

#include "base/util.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int zvm_types_db_line(const char *type, const struct zvm_ds *ds, size_t n,
                      char *buf, size_t size) {
  if (type == NULL || size == 0 || n == 0)
    return -1;
  int w = snprintf(buf, size, "%s\t", type);
  bool ok = w >= 0 && (size_t)w < size;
  size_t len = ok ? (size_t)w : 0;
  for (size_t i = 0; ok && i < n; i++) {
    char min[32] = "U", max[32] = "U";
    if (!isnan(ds[i].min))
      snprintf(min, sizeof(min), "%g", ds[i].min);
    if (!isnan(ds[i].max))
      snprintf(max, sizeof(max), "%g", ds[i].max);
    w = snprintf(buf + len, size - len, "%s%s:%s:%s:%s", i ? ", " : "",
                 ds[i].name, ds[i].type == ZVM_DS_DERIVE ? "DERIVE" : "GAUGE",
                 min, max);
    ok = w >= 0 && (size_t)w < size - len;
    if (ok)
      len += (size_t)w;
  }
  return ok ? (int)len : -1;
}

/* Room for the longest line a plugin registers (256 data sources). */
#define LINE_MAX_LEN (256 * 96)

int zvm_types_db_compare(const char *path, size_t n,
                         int (*line_of)(size_t i, char *buf, size_t size,
                                        void *ctx),
                         void *ctx, char *err, size_t err_size) {
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return zvm_format_error(err, err_size, "%s: cannot open", path);
  char *line = malloc(LINE_MAX_LEN), *want = malloc(LINE_MAX_LEN);
  int status = line != NULL && want != NULL
                   ? 0
                   : zvm_format_error(err, err_size, "out of memory");
  size_t i = 0;
  while (status == 0 && fgets(line, LINE_MAX_LEN, f) != NULL) {
    if (line[0] == '#' || line[0] == '\n')
      continue;
    line[strcspn(line, "\n")] = '\0';
    if (i >= n)
      status = zvm_format_error(err, err_size,
                                "%s has a type the plugin does not register: "
                                "%.40s",
                                path, line);
    else if (line_of(i, want, LINE_MAX_LEN, ctx) < 0)
      status = zvm_format_error(err, err_size, "type %zu has no line", i);
    else if (strcmp(line, want) != 0)
      status = zvm_format_error(
          err, err_size,
          "%s: type %zu differs (regenerate it): %.200s; want %.200s", path,
          i + 1, line, want);
    i++;
  }
  if (status == 0 && i != n)
    status = zvm_format_error(err, err_size,
                              "%s holds %zu types, the plugin registers %zu",
                              path, i, n);
  free(line);
  free(want);
  fclose(f);
  return status;
}
