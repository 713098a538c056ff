/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the hypfs plugin's DIAG X'204' data (Linux kernel
 * arch/s390/include/asm/diag.h, arch/s390/hypfs/hypfs_diag.c).
 *
 * Input: 1 byte selecting the form (0: the debugfs file diag_204, header +
 * the format its subcode names: 4 simple, 6 or 7 extended, any other
 * rejected; 1: simple-format data; 2: extended-format data), then the
 * bytes. An accepted buffer is walked again here, block by block with
 * the kernel's sizes, and every partition, logical and physical CPU must
 * match; the mapping must emit lists of their type's size with safe names.
 */
#include "fuzz.h"

#include <stdbool.h>

#include "hypfs/core.h"
#include "hypfs/hypfs.h"

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
  for (const char *s = l->type_instance; *s; s++)
    FUZZ_CHECK((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
               *s == '-' || *s == '_');
  for (size_t i = 0; i < l->values_num; i++)
    FUZZ_CHECK(l->values[i].gauge || l->values[i].d >= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  uint8_t form = data[0] % 3;
  uint8_t *buf = fuzz_dup(data + 1, size - 1);
  size_t len = size - 1;
  struct hypfs_d204 d;
  memset(&d, 0, sizeof(d));
  enum hypfs_error e;
  const uint8_t *body = buf;
  size_t body_len = len;
  bool ext = form != 1;
  if (form == 0) {
    e = hypfs_decode_d204(buf, len, &d);
    if (len >= 64 && buf[10] != 4 && buf[10] != 6 && buf[10] != 7)
      FUZZ_CHECK(e != HYPFS_OK); /* a subcode of no known format */
    if (e == HYPFS_OK) {
      FUZZ_CHECK(len == 64 + fuzz_be(buf, 8));
      body = buf + 64;
      body_len = len - 64;
      ext = buf[10] != 4;
      FUZZ_CHECK(d.format == (ext ? HYPFS_D204_EXT : HYPFS_D204_SIMPLE));
    }
  } else {
    e = hypfs_decode_d204_data(buf, len,
                               ext ? HYPFS_D204_EXT : HYPFS_D204_SIMPLE, &d);
  }
  if (e == HYPFS_OK) {
    /* the kernel's walk (hypfs_diag_fs.c), sizes of asm/diag.h */
    size_t info = ext ? 64 : 16, part = ext ? 96 : 16, cpu = ext ? 96 : 24,
           phdr = ext ? 96 : 16, pcpu = ext ? 96 : 24;
    size_t off = info, c = 0;
    FUZZ_CHECK(body_len >= info);
    for (unsigned p = 0; p < body[0]; p++) {
      FUZZ_CHECK(off + part <= body_len);
      size_t n = ext ? body[off + 2] : body[off + 1];
      bool named = false;
      for (int j = 0; j < 8; j++)
        named = named || (body[off + 8 + j] != 0x40 && body[off + 8 + j] != 0);
      off += part;
      for (size_t i = 0; i < n; i++, off += cpu) {
        FUZZ_CHECK(off + cpu <= body_len);
        if (!named)
          continue; /* skipped and counted by the decoder */
        FUZZ_CHECK(c < d.cpus_num);
        FUZZ_CHECK(d.cpus[c].cpu_addr == fuzz_be(body + off, 2));
        FUZZ_CHECK(d.cpus[c].lp_time == fuzz_be(body + off + 16, 8));
        FUZZ_CHECK(d.cpus[c].acc_time == fuzz_be(body + off + 8, 8));
        FUZZ_CHECK(hypfs_lpar_cpu_mgm(&d.cpus[c]) <= d.cpus[c].acc_time);
        if (ext)
          FUZZ_CHECK(d.cpus[c].online_time == fuzz_be(body + off + 32, 8));
        c++;
      }
    }
    FUZZ_CHECK(c == d.cpus_num);
    FUZZ_CHECK(d.records == body[0]);
    FUZZ_CHECK(d.lpars_num + d.skipped_names == d.records);
    FUZZ_CHECK(d.has_phys == ((body[1] & 0x80) != 0));
    if (d.has_phys) {
      FUZZ_CHECK(off + phdr <= body_len);
      FUZZ_CHECK(d.phys_num == body[off + 1]);
      off += phdr;
      for (size_t i = 0; i < d.phys_num; i++, off += pcpu) {
        FUZZ_CHECK(off + pcpu <= body_len);
        FUZZ_CHECK(d.phys[i].mgm_time == fuzz_be(body + off + 8, 8));
      }
    }
    struct hypfs_conf conf;
    FUZZ_CHECK(hypfs_conf_init(&conf) == 0);
    conf.guests_as_hosts = len % 2 == 1;
    struct hypfs_ctx *ctx = hypfs_ctx_create(&conf);
    FUZZ_CHECK(ctx != NULL);
    hypfs_map_lpar(ctx, &d, check_list, NULL);
    for (size_t i = 0; i < d.cpus_num; i++)
      d.cpus[i].online_time /= 2;
    hypfs_map_lpar(ctx, &d, check_list, NULL);
    hypfs_ctx_destroy(ctx);
    hypfs_conf_free(&conf);
  }
  hypfs_d204_free(&d);
  free(buf);
  return 0;
}
