/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the hypfs plugin's core: the decoder on big-endian byte
 * arrays built here from the kernel's structures (offsets of Linux kernel
 * arch/s390/hypfs/hypfs_vm.c, hypfs_diag.c and arch/s390/include/asm/diag.h),
 * the mapping (continuation, selection, naming), the sources on files.
 */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/types.h"
#include "hypfs/core.h"
#include "hypfs/hypfs.h"

/* One option by name, as collectd.conf gives it, through the plugin's
 * option rows. */
static int hypfs_conf_set_string(struct hypfs_conf *c, const char *key,
                                 const char *value, char *err,
                                 size_t err_size) {
  const struct zvm_option_value v = {.type = ZVM_OPTION_STRING,
                                     .string = value};
  return hypfs_conf_set(c, key, &v, err, err_size);
}

static int hypfs_conf_set_boolean(struct hypfs_conf *c, const char *key,
                                  bool value, char *err, size_t err_size) {
  const struct zvm_option_value v = {.type = ZVM_OPTION_BOOLEAN,
                                     .boolean = value};
  return hypfs_conf_set(c, key, &v, err, err_size);
}

/* The kind of value an option takes (ZVM_OPTION_UNKNOWN: no such option). */
static enum zvm_option_kind hypfs_conf_option_kind(const char *key) {
  size_t n;
  const struct zvm_option *rows = hypfs_conf_options(&n);
  const struct zvm_option *o = zvm_option_find(rows, n, key);
  return o != NULL ? o->kind : ZVM_OPTION_UNKNOWN;
}

/* ---- byte builders (independent of the decoder's tables) -------------- */

static void be16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}
static void be32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (24 - 8 * i));
}
static void be64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (56 - 8 * i));
}
/* EBCDIC cp037: A-I C1-C9, J-R D1-D9, S-Z E2-E9, 0-9 F0-F9, blank 40. */
static void ebcdic_name(uint8_t *p, const char *s) {
  memset(p, 0x40, 8);
  for (int i = 0; i < 8 && s[i]; i++) {
    char c = s[i];
    if (c >= 'A' && c <= 'I')
      p[i] = (uint8_t)(0xC1 + c - 'A');
    else if (c >= 'J' && c <= 'R')
      p[i] = (uint8_t)(0xD1 + c - 'J');
    else if (c >= 'S' && c <= 'Z')
      p[i] = (uint8_t)(0xE2 + c - 'S');
    else if (c >= '0' && c <= '9')
      p[i] = (uint8_t)(0xF0 + c - '0');
    else if (c == '.')
      p[i] = 0x4B;
    else if (c == '#')
      p[i] = 0x7B;
  }
}

struct g {
  const char *name;
  uint32_t flags;
  uint64_t cpu, el, mmin, mmax, mshare, mused;
  uint32_t lcpus, vcpus, ocpus, cmax, cshares, samp[6];
};

/* struct diag2fc_data at e (112 bytes). */
static void put_guest(uint8_t *e, const struct g *g) {
  memset(e, 0, 112);
  be32(e + 0, 2);
  be32(e + 4, g->flags);
  be64(e + 8, g->cpu);
  be64(e + 16, g->el);
  be64(e + 24, g->mmin);
  be64(e + 32, g->mmax);
  be64(e + 40, g->mshare);
  be64(e + 48, g->mused);
  be32(e + 56, 8);
  be32(e + 60, g->lcpus);
  be32(e + 64, g->vcpus);
  be32(e + 68, g->ocpus);
  be32(e + 72, g->cmax);
  be32(e + 76, g->cshares);
  for (int i = 0; i < 6; i++)
    be32(e + 80 + 4 * i, g->samp[i]);
  ebcdic_name(e + 104, g->name);
}

/* A diag_2fc file: struct dbfs_d2fc_hdr + n entries. Returns its size. */
static size_t d2fc_file(uint8_t *buf, const struct g *gs, size_t n,
                        uint64_t tod) {
  memset(buf, 0, 64);
  be64(buf + 0, n * 112);
  be16(buf + 8, 0);
  be64(buf + 10, tod);
  be64(buf + 26, n);
  for (size_t i = 0; i < n; i++)
    put_guest(buf + 64 + 112 * i, &gs[i]);
  return 64 + 112 * n;
}

static const struct g guest_a = {
    .name = "LINUX07",
    .flags = 0x0000000C, /* capped 2, dedicated 1 */
    .cpu = 0x0000000123456789ull,
    .el = 86400000000ull,
    .mmin = 1024,
    .mmax = 4194304,
    .mshare = 2048,
    .mused = 3000000,
    .lcpus = 6,
    .vcpus = 4,
    .ocpus = 3,
    .cmax = 200,
    .cshares = 100,
    .samp = {10, 20, 30, 40, 50, 0xFFFFFFFEu},
};

static void test_d2fc_fields(void **state) {
  (void)state;
  assert_true(hypfs_field_widths_match());
  uint8_t buf[64 + 112];
  size_t len = d2fc_file(buf, &guest_a, 1, 0x1122334455667788ull);
  struct hypfs_d2fc d = {0};
  assert_int_equal(hypfs_decode_d2fc(buf, len, &d), HYPFS_OK);
  assert_int_equal(d.guests_num, 1);
  const struct hypfs_guest *g = &d.guests[0];
  assert_string_equal(g->name, "LINUX07");
  assert_int_equal(g->version, 2);
  assert_int_equal(hypfs_guest_capped(g), 2);
  assert_int_equal(hypfs_guest_dedicated(g), 1);
  assert_true(g->used_cpu_us == 0x0000000123456789ull);
  assert_true(g->el_time_us == 86400000000ull);
  assert_int_equal(g->mem_min_kib, 1024);
  assert_int_equal(g->mem_max_kib, 4194304);
  assert_int_equal(g->mem_share_kib, 2048);
  assert_int_equal(g->mem_used_kib, 3000000);
  assert_int_equal(g->pcpus, 8);
  assert_int_equal(g->lcpus, 6);
  assert_int_equal(d.lcpus, 6);
  assert_int_equal(g->vcpus, 4);
  assert_int_equal(g->ocpus, 3);
  assert_int_equal(g->cpu_max, 200);
  assert_int_equal(g->cpu_shares, 100);
  assert_int_equal(g->cpu_use_samp, 10);
  assert_int_equal(g->cpu_delay_samp, 20);
  assert_int_equal(g->page_wait_samp, 30);
  assert_int_equal(g->idle_samp, 40);
  assert_int_equal(g->other_samp, 50);
  assert_true(g->total_samp == 0xFFFFFFFEu);
  assert_true(d.tod_ext_hi == 0x1122334455667788ull);
  hypfs_d2fc_free(&d);
}

static void test_d2fc_rejects(void **state) {
  (void)state;
  struct g gs[2] = {guest_a, guest_a};
  gs[1].name = "OTHER";
  uint8_t buf[64 + 2 * 112 + 16];
  size_t len = d2fc_file(buf, gs, 2, 1);
  struct hypfs_d2fc d = {0};
  /* torn: every length shorter than the file is rejected */
  for (size_t cut = 0; cut < len; cut += 7)
    assert_int_not_equal(hypfs_decode_d2fc(buf, cut, &d), HYPFS_OK);
  assert_int_equal(hypfs_decode_d2fc(buf, len - 1, &d), HYPFS_E_SHORT);
  assert_int_equal(hypfs_decode_d2fc(buf, 10, &d), HYPFS_E_SHORT);
  assert_int_equal(d.guests_num, 0);
  /* trailing bytes */
  assert_int_equal(hypfs_decode_d2fc(buf, len + 8, &d), HYPFS_E_LONG);
  /* len and count disagree */
  be64(buf + 26, 3);
  assert_int_equal(hypfs_decode_d2fc(buf, len, &d), HYPFS_E_HEADER);
  be64(buf + 26, 2);
  /* unknown header version */
  be16(buf + 8, 1);
  assert_int_equal(hypfs_decode_d2fc(buf, len, &d), HYPFS_E_HEADER);
  be16(buf + 8, 0);
  /* a hostile count */
  be64(buf + 26, 0x0100000000000000ull);
  be64(buf + 0, 0x0100000000000000ull * 112);
  assert_int_equal(hypfs_decode_d2fc(buf, len, &d), HYPFS_E_TOO_MANY);
  len = d2fc_file(buf, gs, 2, 1);
  /* a blank name: skipped and counted, the other guest stays */
  memset(buf + 64 + 104, 0x40, 8);
  assert_int_equal(hypfs_decode_d2fc(buf, len, &d), HYPFS_OK);
  assert_int_equal(d.guests_num, 1);
  assert_int_equal(d.skipped_names, 1);
  assert_string_equal(d.guests[0].name, "OTHER");
  /* an unsafe name byte is escaped as zvm_monitor does */
  gs[0].name = "A.B";
  len = d2fc_file(buf, gs, 1, 1);
  assert_int_equal(hypfs_decode_d2fc(buf, len, &d), HYPFS_OK);
  assert_string_equal(d.guests[0].name, "A%4BB");
  hypfs_d2fc_free(&d);
}

/* ---- DIAG 204 --------------------------------------------------------- */

/* Extended format: x_info_blk_hdr (64), per partition x_part_hdr (96) +
 * rcpus x_cpu_info (96), x_phys_hdr (96) + x_phys_cpu (96) each. */
static size_t d204_ext(uint8_t *d, bool phys) {
  memset(d, 0, 4096);
  d[0] = 2;               /* npar */
  d[1] = phys ? 0x80 : 0; /* flags */
  be16(d + 4, 2);         /* phys_cpus */
  be16(d + 6, 1);         /* this_part */
  be64(d + 8, 0xABCDull); /* curtod1 */
  size_t off = 64;
  for (int p = 0; p < 2; p++) {
    uint8_t *h = d + off;
    h[0] = (uint8_t)(p + 1);
    h[1] = 2;
    h[2] = (uint8_t)(p == 0 ? 2 : 1); /* rcpus */
    ebcdic_name(h + 8, p == 0 ? "PROD1" : "TEST2");
    off += 96;
    for (int c = 0; c < h[2]; c++) {
      uint8_t *ci = d + off;
      be16(ci + 0, (uint16_t)(c + 4));
      ci[4] = c == 0 ? 0 : 3;
      be16(ci + 6, 50);
      be64(ci + 8, 5000 + 100 * c);  /* acc_time */
      be64(ci + 16, 4000 + 100 * c); /* lp_time */
      be64(ci + 32, 9000000 + c);    /* online_time */
      if (p == 1) {
        be64(ci + 8, 100); /* acc < lp: wraps in the kernel */
        be64(ci + 16, 200);
      }
      off += 96;
    }
  }
  if (phys) {
    d[off + 1] = 2;
    off += 96;
    for (int c = 0; c < 2; c++) {
      be16(d + off, (uint16_t)c);
      d[off + 4] = c == 0 ? 0 : 5;
      be64(d + off + 8, 777 + c);
      off += 96;
    }
  }
  return off;
}

static void test_d204_ext(void **state) {
  (void)state;
  static uint8_t file[64 + 4096];
  memset(file, 0, sizeof(file));
  size_t used = d204_ext(file + 64, true);
  assert_true(used < 4096);
  be64(file, 4096);
  file[10] = 7;
  struct hypfs_d204 d = {0};
  assert_int_equal(hypfs_decode_d204(file, sizeof(file), &d), HYPFS_OK);
  assert_int_equal(d.format, HYPFS_D204_EXT);
  assert_int_equal(d.sc, 7);
  assert_int_equal(d.lpars_num, 2);
  assert_string_equal(d.lpars[0].name, "PROD1");
  assert_string_equal(d.lpars[1].name, "TEST2");
  assert_int_equal(d.lpars[0].cpu_num, 2);
  assert_int_equal(d.lpars[1].cpu_num, 1);
  assert_int_equal(d.cpus_num, 3);
  assert_int_equal(d.cpus[1].cpu_addr, 5);
  assert_string_equal(d.cpus[0].type, "cp");
  assert_string_equal(d.cpus[1].type, "ifl");
  assert_int_equal(d.cpus[1].lp_time, 4100);
  assert_int_equal(d.cpus[1].acc_time, 5100);
  assert_int_equal(hypfs_lpar_cpu_mgm(&d.cpus[1]), 1000);
  assert_int_equal(d.cpus[1].online_time, 9000001);
  assert_int_equal(hypfs_lpar_cpu_mgm(&d.cpus[2]), 0); /* clamped */
  assert_true(d.has_phys);
  assert_int_equal(d.phys_num, 2);
  assert_int_equal(d.phys[1].mgm_time, 778);
  assert_string_equal(d.phys[1].type, "type5");
  assert_int_equal(d.tod, 0xABCD);
  /* torn or inconsistent */
  assert_int_equal(hypfs_decode_d204(file, sizeof(file) - 1, &d),
                   HYPFS_E_SHORT);
  assert_int_equal(hypfs_decode_d204(file, 30, &d), HYPFS_E_SHORT);
  be64(file, 64);
  assert_int_equal(hypfs_decode_d204(file, 64 + 64, &d), HYPFS_E_TRUNC);
  assert_int_equal(
      hypfs_decode_d204_data(file + 64, used - 1, HYPFS_D204_EXT, &d),
      HYPFS_E_TRUNC);
  hypfs_d204_free(&d);
}

static void test_d204_simple(void **state) {
  (void)state;
  uint8_t d[16 + 16 + 24 + 16 + 24] = {0};
  d[0] = 1;
  d[1] = 0x80;
  be64(d + 8, 42);
  d[16 + 1] = 1; /* cpus */
  ebcdic_name(d + 16 + 8, "LP1");
  uint8_t *ci = d + 32;
  be16(ci, 9);
  ci[4] = 3;
  be64(ci + 8, 700);
  be64(ci + 16, 600);
  uint8_t *ph = d + 56;
  ph[1] = 1;
  be16(ph + 16, 1);
  be64(ph + 16 + 8, 55);
  struct hypfs_d204 out = {0};
  assert_int_equal(
      hypfs_decode_d204_data(d, sizeof(d), HYPFS_D204_SIMPLE, &out), HYPFS_OK);
  assert_int_equal(out.lpars_num, 1);
  assert_string_equal(out.lpars[0].name, "LP1");
  assert_int_equal(out.cpus_num, 1);
  assert_int_equal(out.cpus[0].cpu_addr, 9);
  assert_int_equal(out.cpus[0].lp_time, 600);
  assert_int_equal(hypfs_lpar_cpu_mgm(&out.cpus[0]), 100);
  assert_int_equal(out.phys_num, 1);
  assert_int_equal(out.phys[0].cpu_addr, 1);
  assert_int_equal(out.phys[0].mgm_time, 55);
  assert_int_equal(
      hypfs_decode_d204_data(d, sizeof(d) - 1, HYPFS_D204_SIMPLE, &out),
      HYPFS_E_TRUNC);
  hypfs_d204_free(&out);
}

/* A diag_204 file whose header names subcode 4 (DIAG204_SUBC_STIB4, the
 * simple format): decoded in that format, not as the extended one. */
static void test_d204_debugfs_simple(void **state) {
  (void)state;
  static uint8_t file[64 + 4096];
  memset(file, 0, sizeof(file));
  uint8_t *d = file + 64;
  d[0] = 1;        /* npar */
  d[1] = 0x80;     /* physical CPUs follow */
  be64(d + 8, 42); /* curtod */
  d[16 + 0] = 3;   /* pn */
  d[16 + 1] = 1;   /* cpus */
  ebcdic_name(d + 16 + 8, "LP1");
  uint8_t *ci = d + 32; /* diag204_cpu_info, 24 bytes */
  be16(ci, 9);
  ci[4] = 3;
  be64(ci + 8, 700);
  be64(ci + 16, 600);
  uint8_t *ph = d + 56; /* diag204_phys_hdr, 16 bytes */
  ph[1] = 1;
  be16(ph + 16, 1);
  be64(ph + 16 + 8, 55);
  be64(file, 4096);
  file[10] = 4;
  struct hypfs_d204 out = {0};
  assert_int_equal(hypfs_decode_d204(file, sizeof(file), &out), HYPFS_OK);
  assert_int_equal(out.format, HYPFS_D204_SIMPLE);
  assert_int_equal(out.sc, 4);
  assert_int_equal(out.lpars_num, 1);
  assert_string_equal(out.lpars[0].name, "LP1");
  assert_int_equal(out.cpus_num, 1);
  assert_int_equal(out.cpus[0].cpu_addr, 9);
  assert_string_equal(out.cpus[0].type, "ifl");
  assert_int_equal(out.cpus[0].lp_time, 600);
  assert_int_equal(hypfs_lpar_cpu_mgm(&out.cpus[0]), 100);
  assert_int_equal(out.phys_num, 1);
  assert_int_equal(out.phys[0].mgm_time, 55);
  assert_int_equal(out.tod, 42);
  /* extended subcodes */
  file[10] = 6;
  assert_int_equal(hypfs_decode_d204(file, sizeof(file), &out), HYPFS_OK);
  assert_int_equal(out.format, HYPFS_D204_EXT);
  /* a subcode of no known format (5 returns a size, no data): rejected */
  for (unsigned sc = 0; sc < 256; sc++) {
    if (sc == 4 || sc == 6 || sc == 7)
      continue;
    file[10] = (uint8_t)sc;
    assert_int_equal(hypfs_decode_d204(file, sizeof(file), &out),
                     HYPFS_E_HEADER);
    assert_int_equal(out.lpars_num, 0);
  }
  hypfs_d204_free(&out);
}

/* ---- mapping ----------------------------------------------------------- */

#define MAX_LISTS 64
struct captured {
  char host[64], pi[64], type[64], ti[64];
  struct hypfs_value v[32];
  size_t n;
};
static struct captured lists[MAX_LISTS];
static size_t lists_num;

static void capture(void *arg, const struct hypfs_list *l) {
  (void)arg;
  assert_true(lists_num < MAX_LISTS);
  struct captured *c = &lists[lists_num++];
  snprintf(c->host, sizeof(c->host), "%s", l->host ? l->host : "");
  snprintf(c->pi, sizeof(c->pi), "%s", l->plugin_instance);
  snprintf(c->type, sizeof(c->type), "%s", l->type);
  snprintf(c->ti, sizeof(c->ti), "%s", l->type_instance);
  memcpy(c->v, l->values, l->values_num * sizeof(*l->values));
  c->n = l->values_num;
}

static const struct captured *find(const char *pi, const char *type,
                                   const char *ti) {
  for (size_t i = 0; i < lists_num; i++)
    if (strcmp(lists[i].pi, pi) == 0 && strcmp(lists[i].type, type) == 0 &&
        strcmp(lists[i].ti, ti) == 0)
      return &lists[i];
  return NULL;
}

/* A context of the default configuration (conf filled in), and its end. */
static struct hypfs_ctx *ctx_new(struct hypfs_conf *conf) {
  assert_int_equal(hypfs_conf_init(conf), 0);
  struct hypfs_ctx *ctx = hypfs_ctx_create(conf);
  assert_non_null(ctx);
  return ctx;
}

static void ctx_free(struct hypfs_ctx *ctx, struct hypfs_conf *conf) {
  hypfs_ctx_destroy(ctx);
  hypfs_conf_free(conf);
}

static void map_one(struct hypfs_ctx *ctx, const struct g *gs, size_t n) {
  static uint8_t buf[64 + 8 * 112];
  size_t len = d2fc_file(buf, gs, n, 1);
  struct hypfs_d2fc d = {0};
  assert_int_equal(hypfs_decode_d2fc(buf, len, &d), HYPFS_OK);
  lists_num = 0;
  hypfs_map_vm(ctx, &d, capture, NULL);
  hypfs_d2fc_free(&d);
}

static void test_map_guest_values(void **state) {
  (void)state;
  struct hypfs_conf conf;
  struct hypfs_ctx *ctx = ctx_new(&conf);
  map_one(ctx, &guest_a, 1);
  const struct captured *c = find("LINUX07", "hypfs_guest", "");
  assert_non_null(c);
  assert_string_equal(c->host, "");
  assert_int_equal(c->n, 18);
  assert_true(c->v[0].d == 0x0000000123456789ll);
  assert_true(c->v[1].d == 86400000000ll);
  assert_true(c->v[2].g == 4.0 && c->v[3].g == 3.0);
  assert_true(c->v[4].g == 2.0 && c->v[5].g == 1.0);
  assert_true(c->v[6].g == 200.0 && c->v[7].g == 100.0);
  assert_true(c->v[8].g == 1024.0 * 1024);
  assert_true(c->v[9].g == 4194304.0 * 1024);
  assert_true(c->v[10].g == 2048.0 * 1024);
  assert_true(c->v[11].g == 3000000.0 * 1024);
  assert_true(c->v[12].d == 10 && c->v[16].d == 50);
  assert_true(c->v[17].d == 0xFFFFFFFEll);
  const struct captured *h = find("hypervisor", "hypfs_vm", "");
  assert_non_null(h);
  assert_true(h->v[0].g == 6.0 && h->v[1].g == 1.0);
  ctx_free(ctx, &conf);
}

static void test_map_restart_and_wrap(void **state) {
  (void)state;
  struct hypfs_conf conf;
  struct hypfs_ctx *ctx = ctx_new(&conf);
  struct g g = guest_a;
  g.cpu = 1000;
  g.el = 5000000;
  g.samp[0] = 100;
  map_one(ctx, &g, 1);
  /* samples_total wraps (online time grows): modulo 2^32 */
  g.cpu = 1500;
  g.el = 6000000;
  g.samp[5] = 3;
  map_one(ctx, &g, 1);
  const struct captured *c = find("LINUX07", "hypfs_guest", "");
  assert_true(c->v[0].d == 1500);
  assert_true(c->v[17].d == 0x100000003ll);
  /* logoff and logon: online time and CPU time went back */
  g.cpu = 200;
  g.el = 1000000;
  g.samp[0] = 7;
  g.samp[5] = 9;
  map_one(ctx, &g, 1);
  c = find("LINUX07", "hypfs_guest", "");
  assert_true(c->v[0].d == 1500 + 200);
  assert_true(c->v[1].d == 6000000 + 1000000);
  assert_true(c->v[12].d == 100 + 7);
  assert_true(c->v[17].d == 0x100000003ll + 9);
  assert_int_equal(hypfs_ctx_stats(ctx)->restarts, 1);
  /* and it keeps counting from there */
  g.cpu = 300;
  g.el = 2000000;
  map_one(ctx, &g, 1);
  c = find("LINUX07", "hypfs_guest", "");
  assert_true(c->v[0].d == 1500 + 300);
  /* vanishes for two reads, comes back logged on again: continued */
  struct g other = guest_a;
  other.name = "OTHER";
  map_one(ctx, &other, 1);
  assert_null(find("LINUX07", "hypfs_guest", ""));
  map_one(ctx, &other, 1);
  g.cpu = 50;
  g.el = 100;
  map_one(ctx, &g, 1);
  c = find("LINUX07", "hypfs_guest", "");
  assert_true(c->v[0].d == 1800 + 50);
  ctx_free(ctx, &conf);
}

/* One snapshot mapped twice (the tree's update answering EBUSY within a
 * second gives the same figures again): no logoff and logon, no counter
 * moves, for guests and for logical CPUs. */
static void test_map_same_snapshot_twice(void **state) {
  (void)state;
  struct hypfs_conf conf;
  struct hypfs_ctx *ctx = ctx_new(&conf);
  map_one(ctx, &guest_a, 1);
  struct captured first = *find("LINUX07", "hypfs_guest", "");
  map_one(ctx, &guest_a, 1);
  const struct captured *c = find("LINUX07", "hypfs_guest", "");
  assert_non_null(c);
  for (size_t i = 0; i < c->n; i++) {
    if (c->v[i].gauge)
      assert_true(c->v[i].g == first.v[i].g);
    else
      assert_true(c->v[i].d == first.v[i].d);
  }
  assert_int_equal(hypfs_ctx_stats(ctx)->restarts, 0);
  hypfs_ctx_destroy(ctx);

  ctx = hypfs_ctx_create(&conf);
  static uint8_t d[4096];
  size_t used = d204_ext(d, true);
  struct hypfs_d204 out = {0};
  assert_int_equal(hypfs_decode_d204_data(d, used, HYPFS_D204_EXT, &out),
                   HYPFS_OK);
  lists_num = 0;
  hypfs_map_lpar(ctx, &out, capture, NULL);
  struct captured cpu = *find("PROD1", "hypfs_lpar_cpu", "ifl-5");
  struct captured part = *find("PROD1", "hypfs_lpar", "");
  lists_num = 0;
  hypfs_map_lpar(ctx, &out, capture, NULL);
  c = find("PROD1", "hypfs_lpar_cpu", "ifl-5");
  for (size_t i = 0; i < 3; i++)
    assert_true(c->v[i].d == cpu.v[i].d);
  c = find("PROD1", "hypfs_lpar", "");
  for (size_t i = 0; i < 3; i++)
    assert_true(c->v[i].d == part.v[i].d);
  assert_int_equal(hypfs_ctx_stats(ctx)->restarts, 0);
  hypfs_d204_free(&out);
  ctx_free(ctx, &conf);
}

/* A snapshot of no guest: guests 0, and no cpus (the hypervisor's CPU
 * count is a record's; NaN is collectd's unknown). Every record counts in
 * guests, the one skipped for its blank name too. */
static void test_map_counts(void **state) {
  (void)state;
  struct hypfs_conf conf;
  struct hypfs_ctx *ctx = ctx_new(&conf);
  map_one(ctx, &guest_a, 0);
  const struct captured *h = find("hypervisor", "hypfs_vm", "");
  assert_non_null(h);
  assert_true(isnan(h->v[0].g));
  assert_true(h->v[1].g == 0.0);
  struct g gs[3] = {guest_a, guest_a, guest_a};
  gs[1].name = "";
  gs[2].name = "OTHER";
  map_one(ctx, gs, 3);
  h = find("hypervisor", "hypfs_vm", "");
  assert_true(h->v[0].g == 6.0);
  assert_true(h->v[1].g == 3.0);
  assert_int_equal(hypfs_ctx_stats(ctx)->skipped, 1);
  ctx_free(ctx, &conf);
}

/* What a snapshot lacked, as the log line says it: the first skipped
 * entry named (escaped), none at all said; a snapshot not mapped leaves
 * the notice as it was (not fresh). */
static void test_map_notice(void **state) {
  (void)state;
  struct hypfs_conf conf;
  struct hypfs_ctx *ctx = ctx_new(&conf);
  const char *text;
  bool fresh;
  struct g gs[3] = {guest_a, guest_a, guest_a};
  gs[0].name = "";
  gs[1].name = "";
  gs[2].name = "OTHER";
  map_one(ctx, gs, 3);
  assert_int_equal(hypfs_ctx_notice(ctx, &text, &fresh), HYPFS_N_SKIPPED);
  assert_true(fresh);
  assert_string_equal(text,
                      "skipped 2 of the 3 guests of the DIAG X'2FC' snapshot, "
                      "the first named X'4040404040404040' for a blank name: "
                      "no values for them, counted in total_objects-skipped");
  map_one(ctx, gs + 2, 1);
  assert_int_equal(hypfs_ctx_notice(ctx, &text, &fresh), HYPFS_N_NONE);
  map_one(ctx, gs, 0);
  assert_int_equal(hypfs_ctx_notice(ctx, &text, &fresh), HYPFS_N_EMPTY);
  assert_non_null(strstr(text, "holds no guest at all"));
  /* the partitions' snapshot alike */
  static uint8_t d[4096];
  size_t used = d204_ext(d, false);
  d[0] = 0; /* npar */
  struct hypfs_d204 out = {0};
  assert_int_equal(hypfs_decode_d204_data(d, used, HYPFS_D204_EXT, &out),
                   HYPFS_OK);
  lists_num = 0;
  hypfs_map_lpar(ctx, &out, capture, NULL);
  assert_int_equal(hypfs_ctx_notice(ctx, &text, &fresh), HYPFS_N_EMPTY);
  assert_non_null(strstr(text, "DIAG X'204' snapshot holds no partition"));
  hypfs_d204_free(&out);
  ctx_free(ctx, &conf);
  /* names for the log: every byte visible, bounded */
  char name[HYPFS_SKIP_NAME_MAX];
  hypfs_escape_name((const uint8_t *)"A/B c%", 6, false, name, sizeof(name));
  assert_string_equal(name, "A%2FB%20c%25");
  static const uint8_t e[3] = {0x40, 0x00, 0xC1};
  hypfs_escape_name(e, 3, true, name, sizeof(name));
  assert_string_equal(name, "X'4000C1'");
  static uint8_t longname[64];
  memset(longname, 0xFF, sizeof(longname));
  hypfs_escape_name(longname, sizeof(longname), false, name, sizeof(name));
  assert_true(strlen(name) < sizeof(name));
  assert_non_null(strstr(name, "..."));
}

static void test_map_selection_naming(void **state) {
  (void)state;
  char err[256];
  struct hypfs_conf conf;
  assert_int_equal(hypfs_conf_init(&conf), 0);
  assert_int_equal(
      hypfs_conf_set_string(&conf, "UserID", "/^LIN/", err, sizeof(err)), 0);
  assert_int_equal(
      hypfs_conf_set_string(&conf, "userid", "other  ", err, sizeof(err)), 0);
  struct g gs[3] = {guest_a, guest_a, guest_a};
  gs[1].name = "OTHER";
  gs[2].name = "TCPIP";
  struct hypfs_ctx *ctx = hypfs_ctx_create(&conf);
  map_one(ctx, gs, 3);
  assert_non_null(find("LINUX07", "hypfs_guest", ""));
  assert_non_null(find("OTHER", "hypfs_guest", ""));
  assert_null(find("TCPIP", "hypfs_guest", ""));
  hypfs_ctx_destroy(ctx);
  assert_int_equal(
      hypfs_conf_set_boolean(&conf, "IgnoreSelected", true, err, sizeof(err)),
      0);
  assert_int_equal(
      hypfs_conf_set_boolean(&conf, "GuestsAsHosts", true, err, sizeof(err)),
      0);
  ctx = hypfs_ctx_create(&conf);
  map_one(ctx, gs, 3);
  size_t guests = 0;
  for (size_t i = 0; i < lists_num; i++)
    if (strcmp(lists[i].type, "hypfs_guest") == 0) {
      guests++;
      assert_string_equal(lists[i].host, "tcpip");
      assert_string_equal(lists[i].pi, "");
    }
  assert_int_equal(guests, 1);
  /* the same name twice in one snapshot: the second is skipped */
  gs[1].name = "TCPIP";
  map_one(ctx, gs, 3);
  guests = 0;
  for (size_t i = 0; i < lists_num; i++)
    guests += strcmp(lists[i].type, "hypfs_guest") == 0;
  assert_int_equal(guests, 1);
  assert_int_equal(hypfs_ctx_stats(ctx)->skipped, 1);
  ctx_free(ctx, &conf);
}

static void test_map_lpar(void **state) {
  (void)state;
  struct hypfs_conf conf;
  struct hypfs_ctx *ctx = ctx_new(&conf);
  static uint8_t d[4096];
  size_t used = d204_ext(d, true);
  struct hypfs_d204 out = {0};
  assert_int_equal(hypfs_decode_d204_data(d, used, HYPFS_D204_EXT, &out),
                   HYPFS_OK);
  lists_num = 0;
  hypfs_map_lpar(ctx, &out, capture, NULL);
  const struct captured *c = find("PROD1", "hypfs_lpar_cpu", "ifl-5");
  assert_non_null(c);
  assert_true(c->v[0].d == 4100 && c->v[1].d == 1000 && c->v[2].d == 9000001);
  c = find("PROD1", "hypfs_lpar", "");
  assert_non_null(c);
  assert_true(c->v[0].d == 4000 + 4100);
  assert_true(c->v[1].d == 1000 + 1000);
  assert_true(c->v[2].d == 9000000 + 9000001);
  assert_true(c->v[3].g == 2.0);
  c = find("physical", "hypfs_phys_cpu", "type5-1");
  assert_non_null(c);
  assert_true(c->v[0].d == 778);
  c = find("hypervisor", "hypfs_lpar_sys", "");
  assert_true(c->v[0].g == 2.0 && c->v[1].g == 2.0);
  /* next snapshot: one CPU of PROD1 vanished; the sum still grows */
  be64(d + 64 + 96 + 16, 4500); /* lp_time of CPU 4 */
  be64(d + 64 + 96 + 8, 5500);
  d[64 + 2] = 1; /* rcpus: CPU 5 gone */
  memmove(d + 64 + 96 + 96, d + 64 + 96 + 2 * 96, used - (64 + 96 + 2 * 96));
  assert_int_equal(hypfs_decode_d204_data(d, used - 96, HYPFS_D204_EXT, &out),
                   HYPFS_OK);
  lists_num = 0;
  hypfs_map_lpar(ctx, &out, capture, NULL);
  c = find("PROD1", "hypfs_lpar", "");
  assert_true(c->v[0].d == 8100 + 500);
  assert_null(find("PROD1", "hypfs_lpar_cpu", "ifl-5"));
  hypfs_d204_free(&out);
  ctx_free(ctx, &conf);
}

static void test_conf(void **state) {
  (void)state;
  char err[256];
  struct hypfs_conf conf;
  assert_int_equal(hypfs_conf_init(&conf), 0);
  assert_string_equal(conf.debugfs_dir, "/sys/kernel/debug/s390_hypfs");
  assert_int_equal(conf.source, HYPFS_SOURCE_AUTO);
  assert_int_equal(
      hypfs_conf_set_string(&conf, "Source", "sysfs", err, sizeof(err)), -1);
  assert_non_null(strstr(err, "Source"));
  assert_int_equal(
      hypfs_conf_set_string(&conf, "HypfsPath", "rel", err, sizeof(err)), -1);
  assert_int_equal(hypfs_conf_set_string(&conf, "Bogus", "x", err, sizeof(err)),
                   -1);
  assert_non_null(strstr(err, "unknown option \"Bogus\""));
  assert_int_equal(hypfs_conf_option_kind("bogus"), ZVM_OPTION_UNKNOWN);
  assert_int_equal(hypfs_conf_option_kind("guestsashosts"), ZVM_OPTION_BOOLEAN);
  /* A key of the wrong kind is refused, naming the kind it takes. */
  assert_int_equal(
      hypfs_conf_set_boolean(&conf, "Source", true, err, sizeof(err)), -1);
  assert_string_equal(err, "Source: exactly one string value is required");
  /* A reason quotes the configuration's text: control characters in it do
   * not break the log line (a rule shows them as \xNN). */
  assert_int_equal(
      hypfs_conf_set_string(&conf, "Source", "a\nb", err, sizeof(err)), -1);
  assert_string_equal(
      err, "unknown Source \"a\\x0Ab\" (use auto, debugfs or hypfs)");
  assert_int_equal(
      hypfs_conf_set_string(&conf, "UserID", "/[/", err, sizeof(err)), -1);
  assert_int_equal(
      hypfs_conf_set_string(&conf, "Source", "HYPFS", err, sizeof(err)), 0);
  assert_int_equal(conf.source, HYPFS_SOURCE_TREE);
  hypfs_conf_free(&conf);
}

/* The types.db line of hypfs_types[i], as the glue registers it. */
static int hypfs_type_line(size_t i, char *buf, size_t size, void *ctx) {
  (void)ctx;
  const struct hypfs_type *t = &hypfs_types[i];
  struct zvm_ds ds[32];
  assert_true(t->ds_num <= 32);
  for (size_t k = 0; k < t->ds_num; k++) {
    snprintf(ds[k].name, sizeof(ds[k].name), "%s", t->ds[k].name);
    ds[k].type = t->ds[k].gauge ? ZVM_DS_GAUGE : ZVM_DS_DERIVE;
    ds[k].min = t->ds[k].gauge ? NAN : 0;
    ds[k].max = NAN;
  }
  return zvm_types_db_line(t->name, ds, t->ds_num, buf, size);
}

/* The shipped types.db says what the plugin registers. */
static void test_types_db(void **state) {
  (void)state;
  char err[512] = "";
  if (zvm_types_db_compare(TOP_SRCDIR "/contrib/hypfs.types.db",
                           hypfs_types_num, hypfs_type_line, NULL, err,
                           sizeof(err)) != 0)
    fail_msg("%s", err);
}

/* The value rows keep the rules the mapping relies on (bounds, a source
 * per row, unscaled counters, every sum with its CPU counter). */
static void test_rows(void **state) {
  (void)state;
  char err[256] = "";
  if (!hypfs_rows_check(err, sizeof(err)))
    fail_msg("value rows: %s", err);
  assert_int_equal(hypfs_types_num, HYPFS_T_NUM);
  assert_int_equal(hypfs_cpu_counter_slot("online_time_us"), 2);
  assert_int_equal(hypfs_cpu_counter_slot("cpus"), -1);
}

/* A whole file into a string (NUL-terminated; fails the test if absent). */
static char *slurp(FILE *f) {
  assert_non_null(f);
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  assert_non_null(buf);
  size_t got;
  while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (n + 1 == cap) {
      cap *= 2;
      buf = realloc(buf, cap);
      assert_non_null(buf);
    }
  }
  buf[n] = '\0';
  return buf;
}

/* The shipped types.db is what hypfs-types-db prints from the rows
 * (regenerate it with 'make types-db'). */
static void test_types_db_generated(void **state) {
  (void)state;
  FILE *f = fopen(TOP_SRCDIR "/contrib/hypfs.types.db", "r");
  char *shipped = slurp(f);
  fclose(f);
  FILE *t = tmpfile();
  assert_non_null(t);
  assert_int_equal(hypfs_types_db_print(t), 0);
  rewind(t);
  char *generated = slurp(t);
  fclose(t);
  if (strcmp(shipped, generated) != 0)
    fail_msg("contrib/hypfs.types.db is not what the value rows give: run "
             "'make types-db'");
  free(shipped);
  free(generated);
}

/* Every type and every value row's name is in the man page's metric list
 * (its METRICS section, as B<name>). */
static void test_pod_metrics(void **state) {
  (void)state;
  FILE *f = fopen(TOP_SRCDIR "/contrib/hypfs.pod", "r");
  char *pod = slurp(f);
  fclose(f);
  char *metrics = strstr(pod, "\n=head1 METRICS\n");
  assert_non_null(metrics);
  char *end = strstr(metrics + 1, "\n=head1 ");
  if (end != NULL)
    *end = '\0';
  char want[128];
  for (size_t t = 0; t < hypfs_types_num; t++) {
    snprintf(want, sizeof(want), "B<%s>", hypfs_types[t].name);
    if (strstr(metrics, want) == NULL)
      fail_msg("contrib/hypfs.pod, METRICS: no %s", want);
    for (size_t i = 0; i < hypfs_types[t].ds_num; i++) {
      snprintf(want, sizeof(want), "B<%s>", hypfs_types[t].ds[i].name);
      if (strstr(metrics, want) == NULL)
        fail_msg("contrib/hypfs.pod, METRICS: no %s (type %s)", want,
                 hypfs_types[t].name);
    }
  }
  free(pod);
}

/* ---- sources on real files --------------------------------------------- */

static char tmpdir[256];
static size_t counted, counted_guests;

static void count_lists(void *arg, const struct hypfs_list *l) {
  (void)arg;
  if (counted++ == 0)
    counted_guests = 0;
  if (strcmp(l->type, "hypfs_guest") == 0)
    counted_guests++;
}

static void write_file(const char *rel, const void *data, size_t len) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  fclose(f);
}

static void mk(const char *rel) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
  assert_int_equal(mkdir(path, 0755), 0);
}

/* What hypfs_vm_fs.c builds for one guest (guest_a), below tmpdir/tree. */
static void make_vm_tree(void) {
  mk("tree/cpus");
  write_file("tree/cpus/count", "6\n", 2);
  mk("tree/systems");
  mk("tree/systems/LINUX07");
  mk("tree/systems/LINUX07/cpus");
  mk("tree/systems/LINUX07/mem");
  mk("tree/systems/LINUX07/samples");
  static const struct {
    const char *f, *v;
  } files[] = {
      {"onlinetime_us", "86400000000\n"},
      {"cpus/cputime_us", "4886718345\n"},
      {"cpus/capped", "2\n"},
      {"cpus/dedicated", "1\n"},
      {"cpus/count", "4\n"},
      {"cpus/weight_min", "3\n"},
      {"cpus/weight_max", "200\n"},
      {"cpus/weight_cur", "100\n"},
      {"mem/min_KiB", "1024\n"},
      {"mem/max_KiB", "4194304\n"},
      {"mem/used_KiB", "3000000\n"},
      {"mem/share_KiB", "2048\n"},
      {"samples/cpu_using", "10\n"},
      {"samples/cpu_delay", "20\n"},
      {"samples/mem_delay", "30\n"},
      {"samples/idle", "40\n"},
      {"samples/other", "50\n"},
      {"samples/total", "4294967294\n"},
  };
  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    char rel[256];
    snprintf(rel, sizeof(rel), "tree/systems/LINUX07/%s", files[i].f);
    write_file(rel, files[i].v, strlen(files[i].v));
  }
}

static void test_read_pass(void **state) {
  (void)state;
  snprintf(tmpdir, sizeof(tmpdir), "/tmp/hypfs-test-XXXXXX");
  assert_non_null(mkdtemp(tmpdir));
  char err[256], path[512];
  struct hypfs_conf conf;
  assert_int_equal(hypfs_conf_init(&conf), 0);
  snprintf(path, sizeof(path), "%s/dbg", tmpdir);
  assert_int_equal(
      hypfs_conf_set_string(&conf, "DebugfsPath", path, err, sizeof(err)), 0);
  snprintf(path, sizeof(path), "%s/tree", tmpdir);
  assert_int_equal(
      hypfs_conf_set_string(&conf, "HypfsPath", path, err, sizeof(err)), 0);
  struct hypfs_ctx *ctx = hypfs_ctx_create(&conf);
  /* nothing there */
  lists_num = 0;
  assert_int_equal(hypfs_read(ctx, capture, NULL), HYPFS_F_NO_SOURCE);
  assert_non_null(strstr(hypfs_ctx_message(ctx), "mount"));
  /* a diag_2fc file larger than the first buffer: read whole */
  mk("dbg");
  static struct g gs[700];
  for (size_t i = 0; i < 700; i++) {
    gs[i] = guest_a;
    gs[i].name = i == 0 ? "LINUX07" : "OTHER";
  }
  static uint8_t buf[64 + 700 * 112];
  size_t len = d2fc_file(buf, gs, 700, 5);
  /* distinct names: OTHER repeated would be skipped as duplicates */
  for (size_t i = 1; i < 700; i++) {
    char name[9];
    snprintf(name, sizeof(name), "G%04zu", i);
    ebcdic_name(buf + 64 + 112 * i + 104, name);
  }
  write_file("dbg/diag_2fc", buf, len);
  counted = 0;
  assert_int_equal(hypfs_read(ctx, count_lists, NULL), HYPFS_F_NONE);
  const struct hypfs_stats *st = hypfs_ctx_stats(ctx);
  assert_int_equal(st->reads, 1);
  assert_true(st->retries >= 1); /* 78,464 bytes > the first 64 KiB */
  assert_int_equal(st->bytes, len);
  assert_int_equal(counted_guests, 700);
  /* the kernel's cached snapshot (same clock): nothing dispatched */
  counted = 0;
  assert_int_equal(hypfs_read(ctx, count_lists, NULL), HYPFS_F_NONE);
  assert_int_equal(counted_guests, 0);
  assert_int_equal(st->stale, 1);
  /* a torn file: rejected, counted, nothing dispatched */
  write_file("dbg/diag_2fc", buf, len - 50);
  counted = 0;
  assert_int_equal(hypfs_read(ctx, count_lists, NULL), HYPFS_F_DATA);
  assert_int_equal(counted_guests, 0);
  assert_int_equal(st->errors[HYPFS_E_SHORT], 1);
  /* only the own guest visible */
  len = d2fc_file(buf, gs, 1, 6);
  write_file("dbg/diag_2fc", buf, len);
  assert_int_equal(hypfs_read(ctx, count_lists, NULL), HYPFS_F_OWN_ONLY);
  assert_non_null(strstr(hypfs_ctx_message(ctx), "class B"));
  hypfs_ctx_destroy(ctx);

  /* the tree (Source hypfs): one guest, as hypfs_vm_fs.c builds it */
  assert_int_equal(
      hypfs_conf_set_string(&conf, "Source", "hypfs", err, sizeof(err)), 0);
  ctx = hypfs_ctx_create(&conf);
  assert_int_equal(hypfs_read(ctx, count_lists, NULL), HYPFS_F_NO_SOURCE);
  mk("tree");
  mk("tree/hyp");
  write_file("tree/hyp/type", "KVM Hypervisor\n", 15);
  assert_int_equal(hypfs_read(ctx, count_lists, NULL), HYPFS_F_HYPERVISOR);
  write_file("tree/hyp/type", "z/VM Hypervisor\n", 16);
  write_file("tree/update", "", 0);
  make_vm_tree();
  lists_num = 0;
  assert_int_equal(hypfs_read(ctx, capture, NULL), HYPFS_F_OWN_ONLY);
  const struct captured *c = find("LINUX07", "hypfs_guest", "");
  assert_non_null(c);
  /* the same values as from the debugfs file of guest_a */
  assert_true(c->v[0].d == 0x0000000123456789ll);
  assert_true(c->v[1].d == 86400000000ll);
  assert_true(c->v[4].g == 2.0 && c->v[5].g == 1.0);
  assert_true(c->v[3].g == 3.0);
  assert_true(c->v[11].g == 3000000.0 * 1024);
  assert_true(c->v[17].d == 0xFFFFFFFEll);
  ctx_free(ctx, &conf);
  char cmd[300];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
  assert_int_equal(system(cmd), 0);
}

static void set_string(struct hypfs_conf *conf, const char *key,
                       const char *rel) {
  char err[256], path[512];
  snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
  assert_int_equal(hypfs_conf_set_string(conf, key, path, err, sizeof(err)), 0);
}

static void read_text(const char *rel, char *out, size_t size) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(out, 1, size - 1, f);
  out[n] = '\0';
  fclose(f);
}

static void rm_tmpdir(void) {
  char cmd[300];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
  assert_int_equal(system(cmd), 0);
}

/* Removes a file this test made below its own tmpdir. */
static void rm_file(const char *rel) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
  assert_int_equal(unlink(path), 0);
}

/* The mounted tree after a failed update (inode.c, hypfs_write_iter():
 * every file deleted but update): not "not mounted", update written every
 * pass, the tree read as soon as it is back. An empty directory (an unused
 * mount point) is not mounted. */
static void test_tree_emptied(void **state) {
  (void)state;
  snprintf(tmpdir, sizeof(tmpdir), "/tmp/hypfs-test-XXXXXX");
  assert_non_null(mkdtemp(tmpdir));
  struct hypfs_conf conf;
  char err[256], text[64];
  assert_int_equal(hypfs_conf_init(&conf), 0);
  set_string(&conf, "HypfsPath", "tree");
  assert_int_equal(
      hypfs_conf_set_string(&conf, "Source", "hypfs", err, sizeof(err)), 0);
  struct hypfs_ctx *ctx = hypfs_ctx_create(&conf);
  assert_int_equal(hypfs_read(ctx, count_lists, NULL), HYPFS_F_NO_SOURCE);
  mk("tree");
  assert_int_equal(hypfs_read(ctx, count_lists, NULL), HYPFS_F_NO_SOURCE);
  assert_non_null(strstr(hypfs_ctx_message(ctx), "not mounted"));
  /* something else there, no hyp/type: not called emptied */
  write_file("tree/other", "", 0);
  assert_int_equal(hypfs_read(ctx, count_lists, NULL), HYPFS_F_NO_SOURCE);
  assert_non_null(strstr(hypfs_ctx_message(ctx), "has no hyp/type"));
  rm_file("tree/other");
  write_file("tree/update", "0\n", 2);
  for (int pass = 0; pass < 2; pass++) {
    enum hypfs_fault f = hypfs_read(ctx, count_lists, NULL);
    assert_int_not_equal(f, HYPFS_F_NO_SOURCE);
    assert_int_not_equal(f, HYPFS_F_NONE);
    assert_non_null(strstr(hypfs_ctx_message(ctx), "holds only its update"));
    assert_null(strstr(hypfs_ctx_message(ctx), "not mounted"));
    read_text("tree/update", text, sizeof(text));
    assert_string_equal(text, "1\n"); /* written again in every pass */
    write_file("tree/update", "0\n", 2);
  }
  /* the kernel could build it again */
  mk("tree/hyp");
  write_file("tree/hyp/type", "z/VM Hypervisor\n", 16);
  make_vm_tree();
  lists_num = 0;
  assert_int_equal(hypfs_read(ctx, capture, NULL), HYPFS_F_OWN_ONLY);
  assert_non_null(find("LINUX07", "hypfs_guest", ""));
  ctx_free(ctx, &conf);
  rm_tmpdir();
}

/* A FIFO at rel (below tmpdir), replacing the file the test put there. */
static void make_fifo(const char *rel, bool replace) {
  char path[512];
  if (replace)
    rm_file(rel);
  snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
  assert_int_equal(mkfifo(path, 0600), 0);
}

/* read the source once: refused as not a regular file, without blocking */
static void refused(struct hypfs_ctx *ctx) {
  enum hypfs_fault f = hypfs_read(ctx, count_lists, NULL);
  assert_int_not_equal(f, HYPFS_F_NONE);
  assert_non_null(strstr(hypfs_ctx_message(ctx), "not a regular file"));
}

/* A FIFO (or a symbolic link) where the kernel has a regular file: no
 * open() that blocks the read thread, one line refusing it. SIGALRM ends
 * the test if an open blocks. */
static void test_not_regular(void **state) {
  (void)state;
  snprintf(tmpdir, sizeof(tmpdir), "/tmp/hypfs-test-XXXXXX");
  assert_non_null(mkdtemp(tmpdir));
  alarm(20);
  struct hypfs_conf conf;
  char err[256];
  assert_int_equal(hypfs_conf_init(&conf), 0);
  set_string(&conf, "DebugfsPath", "dbg");
  set_string(&conf, "HypfsPath", "tree");
  struct hypfs_ctx *ctx = hypfs_ctx_create(&conf);
  mk("dbg");
  make_fifo("dbg/diag_2fc", false);
  refused(ctx);
  /* diag_204, read when there is no diag_2fc */
  make_fifo("dbg/diag_204", false);
  rm_file("dbg/diag_2fc");
  refused(ctx);
  /* a symbolic link to a good file */
  static uint8_t buf[64 + 112];
  size_t len = d2fc_file(buf, &guest_a, 1, 5);
  write_file("dbg/real", buf, len);
  rm_file("dbg/diag_204");
  {
    char path[512];
    snprintf(path, sizeof(path), "%s/dbg/diag_2fc", tmpdir);
    assert_int_equal(symlink("real", path), 0);
  }
  refused(ctx);
  hypfs_ctx_destroy(ctx);
  /* the tree: hyp/type, then update */
  assert_int_equal(
      hypfs_conf_set_string(&conf, "Source", "hypfs", err, sizeof(err)), 0);
  ctx = hypfs_ctx_create(&conf);
  mk("tree");
  write_file("tree/update", "", 0);
  mk("tree/hyp");
  write_file("tree/hyp/type", "z/VM Hypervisor\n", 16);
  make_vm_tree();
  make_fifo("tree/hyp/type", true);
  refused(ctx);
  rm_file("tree/hyp/type");
  write_file("tree/hyp/type", "z/VM Hypervisor\n", 16);
  make_fifo("tree/update", true);
  refused(ctx);
  alarm(0);
  ctx_free(ctx, &conf);
  rm_tmpdir();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_d2fc_fields),
      cmocka_unit_test(test_d2fc_rejects),
      cmocka_unit_test(test_d204_ext),
      cmocka_unit_test(test_d204_simple),
      cmocka_unit_test(test_d204_debugfs_simple),
      cmocka_unit_test(test_map_guest_values),
      cmocka_unit_test(test_map_restart_and_wrap),
      cmocka_unit_test(test_map_same_snapshot_twice),
      cmocka_unit_test(test_map_counts),
      cmocka_unit_test(test_map_notice),
      cmocka_unit_test(test_map_selection_naming),
      cmocka_unit_test(test_map_lpar),
      cmocka_unit_test(test_conf),
      cmocka_unit_test(test_types_db),
      cmocka_unit_test(test_rows),
      cmocka_unit_test(test_types_db_generated),
      cmocka_unit_test(test_pod_metrics),
      cmocka_unit_test(test_read_pass),
      cmocka_unit_test(test_tree_emptied),
      cmocka_unit_test(test_not_regular),
  };
  return cmocka_run_group_tests_name("hypfs", tests, NULL, NULL);
}
