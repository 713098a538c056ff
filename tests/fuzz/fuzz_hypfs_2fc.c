/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the hypfs plugin's diag_2fc debugfs file (Linux kernel
 * arch/s390/hypfs/hypfs_vm.c: struct dbfs_d2fc_hdr, struct diag2fc_data).
 *
 * Input: the file. An accepted file must be exactly header + count
 * entries, every field equal to the big-endian bytes at its kernel offset
 * (loaded here independently), every name made of safe characters; then
 * two mapping passes (the second sees every counter go back) must emit
 * lists of exactly their type's size with safe, bounded names.
 */
#include "fuzz.h"

#include <stdbool.h>

#include "hypfs/core.h"
#include "hypfs/hypfs.h"

static bool safe_name(const char *s) {
  if (*s == '\0')
    return false;
  for (; *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          strchr("@#$_+-%", *s) != NULL))
      return false;
  return true;
}

static size_t type_size(const char *type) {
  for (size_t i = 0; i < hypfs_types_num; i++)
    if (strcmp(hypfs_types[i].name, type) == 0)
      return hypfs_types[i].ds_num;
  return 0;
}

static void check_list(void *arg, const struct hypfs_list *l) {
  (void)arg;
  if (strcmp(l->plugin_instance, "reader") != 0)
    FUZZ_CHECK(l->values_num == type_size(l->type));
  FUZZ_CHECK(strlen(l->plugin_instance) < 64);
  if (strcmp(l->type, "hypfs_guest") == 0) {
    FUZZ_CHECK(safe_name(l->plugin_instance));
    FUZZ_CHECK(l->values[0].d >= 0 && l->values[1].d >= 0);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *buf = fuzz_dup(data, size);
  struct hypfs_d2fc d;
  memset(&d, 0, sizeof(d));
  enum hypfs_error e = hypfs_decode_d2fc(buf, size, &d);
  if (e == HYPFS_OK) {
    FUZZ_CHECK(size >= 64);
    uint64_t count = fuzz_be(buf + 26, 8);
    FUZZ_CHECK(fuzz_be(buf, 8) == count * 112);
    FUZZ_CHECK(size == 64 + count * 112);
    FUZZ_CHECK(d.guests_num + d.skipped_names == count);
    FUZZ_CHECK(d.records == count);
    if (d.skipped_names > 0)
      FUZZ_CHECK(strncmp(d.skipped_first.name, "X'", 2) == 0 &&
                 d.skipped_first.why != NULL);
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
      const uint8_t *p = buf + 64 + 112 * i;
      bool blank = true;
      for (int j = 0; j < 8; j++)
        blank = blank && (p[104 + j] == 0x40 || p[104 + j] == 0x00);
      if (blank)
        continue;
      const struct hypfs_guest *g = &d.guests[k++];
      FUZZ_CHECK(g->flags == fuzz_be(p + 4, 4));
      FUZZ_CHECK(g->used_cpu_us == fuzz_be(p + 8, 8));
      FUZZ_CHECK(g->el_time_us == fuzz_be(p + 16, 8));
      FUZZ_CHECK(g->mem_used_kib == fuzz_be(p + 48, 8));
      FUZZ_CHECK(g->ocpus == fuzz_be(p + 68, 4));
      FUZZ_CHECK(g->total_samp == fuzz_be(p + 100, 4));
      FUZZ_CHECK(memcmp(g->name_ebcdic, p + 104, 8) == 0);
      FUZZ_CHECK(safe_name(g->name));
    }
    FUZZ_CHECK(k == d.guests_num);
    struct hypfs_conf conf;
    FUZZ_CHECK(hypfs_conf_init(&conf) == 0);
    conf.guests_as_hosts = size % 2 == 1;
    struct hypfs_ctx *ctx = hypfs_ctx_create(&conf);
    FUZZ_CHECK(ctx != NULL);
    hypfs_map_vm(ctx, &d, check_list, NULL);
    for (size_t i = 0; i < d.guests_num; i++) {
      d.guests[i].used_cpu_us /= 2;
      d.guests[i].total_samp /= 3;
    }
    hypfs_map_vm(ctx, &d, check_list, NULL);
    hypfs_emit_stats(ctx, check_list, NULL);
    hypfs_ctx_destroy(ctx);
    hypfs_conf_free(&conf);
  } else {
    FUZZ_CHECK(d.guests_num == 0);
  }
  hypfs_d2fc_free(&d);
  free(buf);
  return 0;
}
