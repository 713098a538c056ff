/* SPDX-License-Identifier: MIT */
/*
 * zvm-stream-gen output through the project's decoder (libzvmdecode):
 * exact record counts, user IDs, counter values, D1R13/padding handling,
 * MCE masks and ranges, D5R21 pairs, frames, ring wrap, faults in the
 * scenario file. Runs the generator binary of the build tree.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above */

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "appldata/appldata.h"
#include "records/catalog.h"
#include "scenario.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/records.h"

/* A field of a built-in layout by its IBM name (the first of that name). */
static const struct zvm_field *layout_field(const struct zvm_layout *l,
                                            const char *ibm) {
  for (size_t i = 0; i < l->nfields; i++)
    if (l->fields[i].ibm_name != NULL &&
        strcmp(l->fields[i].ibm_name, ibm) == 0)
      return &l->fields[i];
  fail_msg("no %s", ibm);
  return NULL;
}
#define USEITE_FIELD(ibm) layout_field(&zvm_rec_useite.main, ibm)
#define PRCSMT_FIELD(ibm) layout_field(&zvm_rec_prcsmt.main, ibm)
#define CPUTINFO_FIELD(ibm) layout_field(&zvm_rec_prcsmt.arrays[0].entry, ibm)
/* PRCSMT_CAL_STATUS: start and end of a change (IBM MRPRCSMT). */
#define PRCSMT_CAL_START 0x80
#define PRCSMT_CAL_END 0x40

extern char **environ;

#define GEN EMU_BUILDDIR "/zvm-stream-gen"
#define TOD_EPOCH UINT64_C(0x7D91048BCA000000)

static char tmpdir[] = "/tmp/zvm-gen-test.XXXXXX";

/* ---- running the generator -------------------------------------------- */
/* Spawn the generator, through EMU_EXEC_WRAPPER if set (e.g. qemu-s390x
 * for a cross build on a host without binfmt_misc). Returns the status. */
static int spawn_gen(const char **argv) {
  const char *wrapper = getenv("EMU_EXEC_WRAPPER");
  const char *wargv[70];
  size_t n = 0;
  if (wrapper != NULL && wrapper[0] != '\0')
    wargv[n++] = wrapper;
  for (size_t i = 0; argv[i] != NULL && n < 69; i++)
    wargv[n++] = argv[i];
  wargv[n] = NULL;
  pid_t pid;
  int status;
  assert_int_equal(
      posix_spawnp(&pid, wargv[0], NULL, NULL, (char *const *)wargv, environ),
      0);
  assert_int_equal(waitpid(pid, &status, 0), pid);
  return status;
}

static void run_gen(const char *out, const char *const *args) {
  const char *argv[64];
  size_t n = 0;
  argv[n++] = GEN;
  for (; *args != NULL; args++)
    argv[n++] = *args;
  argv[n++] = "--force"; /* out is this test's own file, written again */
  argv[n++] = "-o";
  argv[n++] = out;
  argv[n] = NULL;
  assert_true(n < 64);
  int status = spawn_gen(argv);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  assert_non_null(fp);
  fseek(fp, 0, SEEK_END);
  long sz = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  uint8_t *buf = malloc(sz > 0 ? (size_t)sz : 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)sz, fp), (size_t)sz);
  fclose(fp);
  *len = (size_t)sz;
  return buf;
}

struct sets {
  uint8_t *file;
  size_t n;
  const uint8_t *data[4096];
  size_t len[4096];
};

/* Generate in "sets" format and split it. */
static void gen_sets(struct sets *s, const char *const *args) {
  char path[256];
  snprintf(path, sizeof(path), "%s/out.sets", tmpdir);
  const char *a[64];
  size_t n = 0;
  a[n++] = "-f";
  a[n++] = "sets";
  for (; *args != NULL; args++)
    a[n++] = *args;
  a[n] = NULL;
  run_gen(path, a);
  size_t len;
  s->file = slurp(path, &len);
  s->n = 0;
  for (size_t off = 0; off < len;) {
    assert_true(len - off >= 4);
    size_t l = mw_load_be32(s->file + off);
    assert_true(l <= len - off - 4);
    assert_true(s->n < 4096);
    s->data[s->n] = s->file + off + 4;
    s->len[s->n] = l;
    s->n++;
    off += 4 + l;
  }
}

/* ---- decoding --------------------------------------------------------- */
struct rec {
  uint8_t domain;
  uint16_t number;
  uint64_t tod;
  const uint8_t *data;
  uint16_t len;
  uint32_t addr;
  uint8_t mce_type;
  uint16_t mce_mask;
  size_t set;
};

struct decoded {
  struct rec *r;
  size_t n, cap;
  size_t cur_set;
  struct zvm_decode_stats stats;
};

static void on_record(const struct zvm_record *rec,
                      const struct zvm_record_desc *desc, void *ctx) {
  (void)desc;
  struct decoded *d = ctx;
  if (d->n == d->cap) {
    d->cap = d->cap ? 2 * d->cap : 1024;
    d->r = realloc(d->r, d->cap * sizeof(*d->r));
    assert_non_null(d->r);
  }
  d->r[d->n++] = (struct rec){
      .domain = rec->domain,
      .number = rec->number,
      .tod = rec->tod,
      .data = rec->data,
      .len = rec->len,
      .addr = rec->addr,
      .mce_type = rec->mce.type,
      .mce_mask = rec->mce.domains,
      .set = d->cur_set,
  };
}

static void decode_all(const struct sets *s, struct decoded *d) {
  memset(d, 0, sizeof(*d));
  for (size_t i = 0; i < s->n; i++) {
    d->cur_set = i;
    zvm_decode_set(s->data[i], s->len[i], ZVM_DOMAINS_ALL, on_record, d,
                   &d->stats);
  }
}

static size_t count(const struct decoded *d, uint8_t dom, uint16_t num) {
  size_t c = 0;
  for (size_t i = 0; i < d->n; i++)
    if (d->r[i].domain == dom && d->r[i].number == num)
      c++;
  return c;
}

static void free_all(struct sets *s, struct decoded *d) {
  free(s->file);
  free(d->r);
}

/* ---- the documented value model, recomputed here ------------------------ */
static uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + UINT64_C(0x9E3779B97F4A7C15);
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static uint64_t expect_counter(uint64_t seed, unsigned g, unsigned off,
                               unsigned width, uint64_t k, uint64_t coff) {
  uint64_t h = splitmix64((seed << 32) ^ ((uint64_t)g << 8) ^ off);
  uint64_t v = h % 1000000 + coff + k * (1 + (h >> 40) % 1000);
  return width >= 8 ? v : v & ((UINT64_C(1) << (8 * width)) - 1);
}

static uint64_t tod_us(uint64_t unix_us) { return TOD_EPOCH + (unix_us << 12); }

static void user_of(const struct rec *r, char *out) {
  assert_true(zvm_name_format(r->data + 20, 8, out, ZVM_NAME_MAX) > 0);
}

static int setup(void **state) {
  (void)state;
  return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
  return system(cmd) == 0 ? 0 : -1;
}

/* ---- tests -------------------------------------------------------------- */

/* 40 guests, one interval, frame-aligned: hand-computed layout. Frame 0
 * holds 20 D4R10 (4000 bytes); 96 bytes are left, too few for a 200-byte
 * record plus the 20-byte D1R13, so D1R13 + 76 padding bytes end it;
 * frame 1 holds the other 20 records. */
static void test_exact_layout(void **state) {
  (void)state;
  struct sets s;
  struct decoded d;
  gen_sets(&s, (const char *const[]){"-g", "40", "-i", "1", "--unknown-events",
                                     "0", "--smt-every", "0", "--set-frames",
                                     "0", "--align-sets", NULL});
  assert_int_equal(s.n, 2);
  /* Event set: MCE C5, user domain only, 0x09000000..+8095. */
  assert_int_equal(s.len[0], 12 + 4096 + 4000);
  const uint8_t mce0[12] = {0xC5, 0x08, 0x00, 0x00, 0x09, 0x00,
                            0x00, 0x00, 0x09, 0x00, 0x1F, 0x9F};
  assert_memory_equal(s.data[0], mce0, 12);
  /* Sample set: E2, domains 0,1,3 and 8; 4*116 + 72 + 2*316 + 20 bytes in
   * the second half of the 64 MB DCSS. */
  assert_int_equal(s.len[1], 12 + 1188);
  const uint8_t mce1[12] = {0xE2, 0xD0, 0x80, 0x00, 0x0B, 0x00,
                            0x00, 0x00, 0x0B, 0x00, 0x04, 0xA3};
  assert_memory_equal(s.data[1], mce1, 12);

  decode_all(&s, &d);
  assert_int_equal(count(&d, 4, 10), 40);
  assert_int_equal(count(&d, 1, 13), 1);
  assert_int_equal(count(&d, 1, 11), 1);
  assert_int_equal(d.stats.walk.end_of_frame, 1);
  assert_int_equal(d.stats.walk.interval_end, 1);
  assert_int_equal(d.stats.walk.padding_bytes, 76);
  assert_int_equal(d.stats.walk.malformed, 0);
  assert_int_equal(d.stats.walk.mce_rejected, 0);
  assert_int_equal(d.stats.walk.record_sets, 2);
  assert_int_equal(d.stats.unknown, 4 + 1 + 2); /* D0R1, D3R2, D8R1 */
  assert_int_equal(d.stats.walk.records, 40 + 1 + 7 + 1);

  /* User IDs in order, EBCDIC blank padded. */
  size_t g = 0;
  for (size_t i = 0; i < d.n; i++) {
    if (d.r[i].domain != 4)
      continue;
    char name[ZVM_NAME_MAX], want[16];
    user_of(&d.r[i], name);
    snprintf(want, sizeof(want), "LINUX%03zu", ++g);
    assert_string_equal(name, want);
    assert_int_equal(d.r[i].len, 200);
    assert_int_equal(d.r[i].mce_type, ZVM_MCE_EVENT);
  }
  const uint8_t linux001[8] = {0xD3, 0xC9, 0xD5, 0xE4, 0xE7, 0xF0, 0xF0, 0xF1};
  assert_memory_equal(s.data[0] + 12 + 20, linux001, 8);

  /* The padding is non-zero garbage: read as a header it is malformed
   * (MRHDRZER != 0), so a parser ignoring D1R13 fails. */
  const uint8_t *eof = s.data[0] + 12 + 4000;
  assert_int_equal(mw_load_be16(eof), 20);
  assert_int_equal(eof[4], 1);
  assert_int_equal(mw_load_be16(eof + 6), 13);
  for (size_t i = 20; i < 96; i++)
    assert_int_not_equal(eof[i], 0);
  assert_int_not_equal(mw_load_be16(eof + 20 + 2), 0);
  struct zvm_walk w;
  struct zvm_record rec;
  /* A walk started at the padding, as a D1R13-ignoring parser would. */
  uint8_t fake[12 + 76];
  memcpy(fake, mce0, 12);
  mw_put_be(fake, sizeof(fake), 4, 4, 0x09000FB4);
  mw_put_be(fake, sizeof(fake), 8, 4, 0x09000FB4 + 75);
  memcpy(fake + 12, eof + 20, 76);
  zvm_walk_init(&w, fake, sizeof(fake), ZVM_DOMAINS_ALL);
  assert_false(zvm_walk_next(&w, &rec));
  assert_int_equal(w.stats.malformed, 1);

  /* TODs: events spread over the interval, samples at its end. */
  uint64_t t0 = UINT64_C(1700000000) * 1000000;
  assert_int_equal(d.r[0].tod, tod_us(t0 + 1 * 60000000 / 41));
  const struct rec *last = &d.r[d.n - 1];
  assert_int_equal(last->domain, 1);
  assert_int_equal(last->number, 11);
  assert_int_equal(last->tod, tod_us(t0 + 60000000 + 7));
  for (size_t i = 1; i < d.n; i++)
    assert_true(d.r[i].tod >= d.r[i - 1].tod);
  free_all(&s, &d);
}

/* Every counter of every D4R10, through the decoder's own table, equals
 * the documented formula; counters grow by events*step per interval. */
static void test_counters(void **state) {
  (void)state;
  struct sets s;
  struct decoded d;
  gen_sets(&s,
           (const char *const[]){"-g", "7", "-i", "4", "-e", "3", "-s", "42",
                                 "--counter-offset", "2147483000", NULL});
  decode_all(&s, &d);
  assert_int_equal(count(&d, 4, 10), 7 * 4 * 3);
  unsigned seen[7] = {0};
  size_t checked = 0;
  bool above_2g = false;
  for (size_t i = 0; i < d.n; i++) {
    const struct rec *r = &d.r[i];
    if (r->domain != 4)
      continue;
    char name[ZVM_NAME_MAX];
    user_of(r, name);
    assert_memory_equal(name, "LINUX00", 7);
    unsigned g = (unsigned)(name[7] - '1');
    assert_true(g < 7);
    uint64_t k = ++seen[g];
    for (size_t f = 0; f < zvm_rec_useite.main.nfields; f++) {
      const struct zvm_field *fd = &zvm_rec_useite.main.fields[f];
      if (fd->kind != ZVM_FIELD_COUNTER || fd->type == ZVM_TYPE_RECORD_COUNT)
        continue;
      for (unsigned e = 0; e < fd->count; e++) {
        uint64_t got;
        assert_true(zvm_field_u64(fd, r->data, r->len, e, &got));
        unsigned off = fd->offset + e * fd->width;
        unsigned key = off == 84 ? 48 : off; /* HFSTCT == HFQUCT */
        assert_int_equal(got,
                         expect_counter(42, g, key, fd->width, k, 2147483000));
        if (fd->width == 4 && got > UINT64_C(0x80000000))
          above_2g = true;
        checked++;
      }
    }
    /* Non-counter fields. */
    uint64_t v;
    assert_true(
        zvm_field_u64(USEITE_FIELD("USEITE_VMDPUTYP"), r->data, r->len, 0, &v));
    assert_int_equal(v, ZVM_CPU_IFL);
  }
  for (unsigned g = 0; g < 7; g++)
    assert_int_equal(seen[g], 12);
  /* 29 scalar counters + 4 arrays of 4 per record. */
  assert_int_equal(checked, (size_t)84 * (29 + 16));
  assert_true(above_2g);
  /* A hand-checked value: guest 0, HFCPURN (offset 116), 1st record. */
  uint64_t h = splitmix64((UINT64_C(42) << 32) ^ 116);
  assert_int_equal(expect_counter(42, 0, 116, 4, 1, 0),
                   h % 1000000 + 1 + (h >> 40) % 1000);
  free_all(&s, &d);
}

/* D5R21 start/end pairs per IBM MRPRCSMT (z/VM V6R4.0), with the right domain
 * masks. */
static void test_prcsmt(void **state) {
  (void)state;
  struct sets s;
  struct decoded d;
  gen_sets(&s, (const char *const[]){"-g", "3", "-i", "4", "--smt-every", "2",
                                     NULL});
  decode_all(&s, &d);
  assert_int_equal(count(&d, 5, 21), 4);
  assert_int_equal(d.stats.array_rejected, 0);
  unsigned seen = 0;
  for (size_t i = 0; i < d.n; i++) {
    const struct rec *r = &d.r[i];
    if (r->domain != 5)
      continue;
    unsigned change = seen / 2;
    bool start = seen % 2 == 0;
    seen++;
    assert_int_equal(r->len, 36 + 2 * 8);
    assert_int_equal(r->mce_type, ZVM_MCE_EVENT);
    /* scheduler (D2R1), user, processor */
    assert_int_equal(r->mce_mask, 0x2000 | 0x0800 | 0x0400);
    uint64_t v;
    assert_true(
        zvm_field_u64(PRCSMT_FIELD("PRCSMT_RCCSMTSQ"), r->data, r->len, 0, &v));
    assert_int_equal(v, 2 * change + 1);
    assert_true(zvm_field_u64(PRCSMT_FIELD("PRCSMT_CAL_STATUS"), r->data,
                              r->len, 0, &v));
    assert_int_equal(v, start ? PRCSMT_CAL_START : PRCSMT_CAL_END);
    assert_true(
        zvm_field_u64(PRCSMT_FIELD("PRCSMT_CALMAXTC"), r->data, r->len, 0, &v));
    assert_int_equal(v, 2);
    assert_int_equal(r->data[29], 2);                 /* CAL_CPUTACNT */
    assert_int_equal(mw_load_be16(r->data + 30), 8);  /* CAL_CPUTAESZ */
    assert_int_equal(mw_load_be16(r->data + 32), 36); /* CAL_CPUTAOFF */
    struct zvm_array_view view;
    assert_int_equal(
        zvm_array_locate(&zvm_rec_prcsmt.arrays[0], r->data, r->len, &view),
        ZVM_ARRAY_OK);
    assert_int_equal(view.count, 2);
    const uint8_t *cp = zvm_array_entry(&view, 0);
    const uint8_t *ifl = zvm_array_entry(&view, 1);
    assert_true(
        zvm_field_u64(CPUTINFO_FIELD("PRCSMT_CAL_CPUTYPE"), cp, 8, 0, &v));
    assert_int_equal(v, ZVM_CPU_CP);
    assert_true(
        zvm_field_u64(CPUTINFO_FIELD("PRCSMT_CAL_CPUTYPE"), ifl, 8, 0, &v));
    assert_int_equal(v, ZVM_CPU_IFL);
    /* Activated/requested: old values in start, new in end. Change 0
     * goes 1 -> 2 threads, change 1 back to 1. */
    unsigned old_t = change % 2 == 0 ? 1 : 2, new_t = 3 - old_t;
    assert_true(
        zvm_field_u64(CPUTINFO_FIELD("PRCSMT_CAL_RCCACMNT"), ifl, 8, 0, &v));
    assert_int_equal(v, start ? old_t : new_t);
    assert_true(
        zvm_field_u64(CPUTINFO_FIELD("PRCSMT_CAL_RCCCRMNT"), ifl, 8, 0, &v));
    assert_int_equal(v, start ? old_t : new_t);
    assert_true(
        zvm_field_u64(CPUTINFO_FIELD("PRCSMT_CAL_RCCHWMNT"), ifl, 8, 0, &v));
    assert_int_equal(v, 2);
    assert_true(
        zvm_field_u64(CPUTINFO_FIELD("PRCSMT_CAL_RCCSYMNT"), cp, 8, 0, &v));
    assert_int_equal(v, 1);
    assert_true(
        zvm_field_u64(CPUTINFO_FIELD("PRCSMT_CAL_RCCACMNT"), cp, 8, 0, &v));
    assert_int_equal(v, 1);
  }
  /* Intervals without a change: event sets hold D2R1 and D4R10 only. */
  for (size_t i = 0; i < d.n; i++)
    if (d.r[i].domain == 4 && (d.r[i].set == 0 || d.r[i].set == 4))
      assert_int_equal(d.r[i].mce_mask, 0x2000 | 0x0800);
  free_all(&s, &d);
}

/* D0R2 (README "D0R2"): processor c at the end of interval i, every
 * confirmed field through the built-in table, against the documented
 * model recomputed here; a short --sytprp-len leaves out what does not
 * fit. */
static uint64_t sytprp_h(uint64_t seed, unsigned c, unsigned off) {
  return splitmix64((seed << 32) ^ (UINT64_C(0xD02) << 20) ^
                    ((uint64_t)c << 8) ^ off);
}

static const struct zvm_field *sytprp_field(const char *ibm) {
  for (size_t i = 0; i < zvm_rec_sytprp.main.nfields; i++)
    if (strcmp(zvm_rec_sytprp.main.fields[i].ibm_name, ibm) == 0)
      return &zvm_rec_sytprp.main.fields[i];
  fail_msg("no %s", ibm);
  return NULL;
}

static void test_sytprp(void **state) {
  (void)state;
  struct sets s;
  struct decoded d;
  gen_sets(&s,
           (const char *const[]){"-s", "5", "-g", "1", "-i", "3", "--cpus", "2",
                                 "--sytprp", "3", "--interval", "30", NULL});
  decode_all(&s, &d);
  assert_int_equal(count(&d, 0, 2), 3 * 3);
  const struct zvm_field *haf = sytprp_field("SYTPRP_PLSCUHAF"),
                         *prb = sytprp_field("SYTPRP_PFXPRBTM"),
                         *ut = sytprp_field("SYTPRP_PFXUTIME");
  unsigned seen = 0;
  for (size_t i = 0; i < d.n; i++) {
    const struct rec *r = &d.r[i];
    if (r->domain != 0 || r->number != 2)
      continue;
    unsigned c = seen % 3, k = seen / 3 + 1;
    seen++;
    assert_int_equal(r->len, 352);
    assert_int_equal(r->mce_type, ZVM_MCE_SAMPLE);
    assert_true(r->mce_mask & 0x8000);
    assert_int_equal(mw_load_be16(r->data + 20), c); /* PFXCPUAD */
    uint64_t pct = 10 + 7 * (c % 12), interval_us = 30000000;
    uint64_t h22 = sytprp_h(5, c, 22), h24 = sytprp_h(5, c, 24),
             h32 = sytprp_h(5, c, 32);
    uint64_t emul_us = h24 % 1000000 + k * interval_us * pct * 3 / 400;
    uint64_t user_us = h32 % 1000000 + k * interval_us * pct / 100;
    uint64_t raw =
        UINT64_C(0x7FFFFFFF00000000) - (emul_us << 12) - (h24 & 0xFFF);
    int64_t v;
    double g;
    assert_true(zvm_field_value(haf, r->data, r->len, 0, &v, &g));
    assert_int_equal(v, (h22 % 1000 + k * (1 + (h22 >> 40) % 100)) & 0xFFFF);
    assert_true(zvm_field_value(prb, r->data, r->len, 0, &v, &g));
    assert_int_equal(v, (UINT64_C(0x7FFFFFFFFFFFFFFF) - raw) >> 12);
    assert_true(zvm_field_value(ut, r->data, r->len, 0, &v, &g));
    assert_int_equal(v, user_us); /* the sub-microsecond bits dropped */
  }
  assert_int_equal(seen, 9);
  free_all(&s, &d);

  /* 30 bytes: address and PLSCUHAF, not the timers. */
  gen_sets(&s, (const char *const[]){"-g", "1", "-i", "1", "--sytprp", "2",
                                     "--sytprp-len", "30", NULL});
  decode_all(&s, &d);
  assert_int_equal(count(&d, 0, 2), 2);
  for (size_t i = 0; i < d.n; i++) {
    const struct rec *r = &d.r[i];
    if (r->domain != 0 || r->number != 2)
      continue;
    int64_t v;
    double g;
    assert_int_equal(r->len, 30);
    assert_true(zvm_field_value(haf, r->data, r->len, 0, &v, &g));
    assert_false(zvm_field_value(prb, r->data, r->len, 0, &v, &g));
    assert_false(zvm_field_value(ut, r->data, r->len, 0, &v, &g));
  }
  free_all(&s, &d);
}

/* Many record sets per message, a small DCSS that wraps, frames. */
static void test_sets_messages_wrap(void **state) {
  (void)state;
  struct sets s;
  struct decoded d;
  gen_sets(&s, (const char *const[]){"-g", "300", "-i", "3", "--set-frames",
                                     "2", "--mces", "3", "--dcss-size",
                                     "0x10000", "--cpus", "40", NULL});
  decode_all(&s, &d);
  assert_int_equal(count(&d, 4, 10), 900);
  assert_int_equal(count(&d, 1, 11), 3);
  assert_int_equal(d.stats.walk.malformed, 0);
  assert_int_equal(d.stats.walk.mce_rejected, 0);
  assert_int_equal(d.stats.unknown, 3 * (40 + 1 + 2 + 2));

  bool wrapped = false, multi = false;
  uint32_t prev_start = 0;
  size_t nsets = 0;
  for (size_t i = 0; i < s.n; i++) {
    unsigned mces = 0;
    for (size_t off = 0; off < s.len[i];) {
      struct zvm_mce mce;
      assert_int_equal(zvm_mce_parse(s.data[i] + off, s.len[i] - off, &mce),
                       ZVM_MCE_OK);
      uint32_t lo = mce.type == ZVM_MCE_EVENT ? 0x09000000 : 0x09008000;
      assert_true(mce.start >= lo && mce.end <= lo + 0x7FFF);
      assert_true(zvm_mce_records_len(&mce) <= 2 * 4096);
      if (mce.type == ZVM_MCE_EVENT) {
        if (nsets > 0 && mce.start < prev_start)
          wrapped = true;
        prev_start = mce.start;
        nsets++;
      }
      mces++;
      off += 12 + (size_t)zvm_mce_records_len(&mce);
    }
    assert_true(mces <= 3);
    if (mces == 3)
      multi = true;
  }
  assert_true(wrapped);
  assert_true(multi);
  /* No record crosses a 4 KB frame. */
  for (size_t i = 0; i < s.n; i++) {
    struct zvm_walk w;
    struct zvm_record rec;
    zvm_walk_init(&w, s.data[i], s.len[i], ZVM_DOMAINS_ALL);
    while (zvm_walk_next(&w, &rec))
      assert_true((rec.addr & 0xFFF) + rec.len <= 4096);
  }
  free_all(&s, &d);
}

/* 10,000 guests: every user ID distinct and decodable, fast. */
static void test_10000_guests(void **state) {
  (void)state;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  struct sets s;
  struct decoded d;
  gen_sets(&s, (const char *const[]){"-g", "10000", "-i", "1", NULL});
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
              (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
  print_message("10000 guests, 1 interval: %zu sets generated in %.1f ms "
                "(incl. process start)\n",
                s.n, ms);
  assert_true(ms < 2000);
  decode_all(&s, &d);
  assert_int_equal(count(&d, 4, 10), 10000);
  assert_int_equal(d.stats.walk.malformed, 0);
  size_t g = 0;
  for (size_t i = 0; i < d.n; i++) {
    if (d.r[i].domain != 4)
      continue;
    char name[ZVM_NAME_MAX], want[16];
    user_of(&d.r[i], name);
    snprintf(want, sizeof(want), "LIN%05zu", ++g);
    assert_string_equal(name, want);
  }
  assert_int_equal(g, 10000);
  free_all(&s, &d);
}

/* Same seed, same bytes; another seed changes counters and padding. */
static void test_deterministic(void **state) {
  (void)state;
  struct sets a, b, c;
  gen_sets(&a, (const char *const[]){"-g", "50", "-s", "7", NULL});
  gen_sets(&b, (const char *const[]){"-g", "50", "-s", "7", NULL});
  gen_sets(&c, (const char *const[]){"-g", "50", "-s", "8", NULL});
  assert_int_equal(a.n, b.n);
  assert_int_equal(a.n, c.n);
  bool differs = false;
  for (size_t i = 0; i < a.n; i++) {
    assert_int_equal(a.len[i], b.len[i]);
    assert_memory_equal(a.data[i], b.data[i], a.len[i]);
    assert_int_equal(a.len[i], c.len[i]);
    if (memcmp(a.data[i], c.data[i], a.len[i]) != 0)
      differs = true;
  }
  assert_true(differs);
  free(a.file);
  free(b.file);
  free(c.file);
}

/* badmca: the MCE fails the driver's check, the decoder rejects it. */
static void test_badmca(void **state) {
  (void)state;
  struct sets s;
  struct decoded d;
  gen_sets(&s, (const char *const[]){"-g", "5", "-i", "1", "--fault",
                                     "badmca@0", NULL});
  assert_int_equal(s.data[0][0], 0);
  decode_all(&s, &d);
  assert_int_equal(d.stats.walk.mce_rejected, 1);
  assert_int_equal(count(&d, 4, 10), 0);
  assert_int_equal(count(&d, 1, 11), 1);
  free_all(&s, &d);
}

/* Scenario file: same data as the sets format, directives in place. */
static void test_scenario_file(void **state) {
  (void)state;
  const char *const common[] = {"-g", "20", "-i", "2", NULL};
  struct sets s;
  gen_sets(&s, common);
  char path[256];
  snprintf(path, sizeof(path), "%s/t.scn", tmpdir);
  run_gen(path, (const char *const[]){
                    "-g", "20", "-i", "2", "--gap-ms", "25", "--fault",
                    "eio@0:100,efault@1:12", "--fault",
                    "eoverflow@1 sever@2 open@3:EBUSY:2 delay@3:500", "--fault",
                    "open@4:EIO", NULL});
  struct scenario scn;
  char err[256] = "";
  assert_int_equal(scn_load(path, &scn, err, sizeof(err)), 0);
  assert_int_equal(scn.nmsgs, s.n);
  assert_int_equal(scn.nmsgs, 4);
  assert_int_equal(scn.dcss_start, 0x09000000);
  assert_int_equal(scn.dcss_end, 0x0CFFFFFF);
  assert_int_equal(scn.span_us, UINT64_C(120000000));
  for (size_t i = 0; i < s.n; i++) {
    assert_int_equal(scn.msgs[i].len, s.len[i]);
    assert_memory_equal(scn.msgs[i].data, s.data[i], s.len[i]);
    assert_int_equal(scn.msgs[i].deliver_len, s.len[i]);
    assert_int_equal(scn.msgs[i].nmce, 1);
  }
  assert_int_equal(scn.msgs[0].eio_at, 100);
  assert_int_equal(scn.msgs[0].delay_ms, SCN_NONE);
  assert_int_equal(scn.msgs[1].efault_at, 12);
  assert_int_equal(scn.msgs[1].delay_ms, 25);
  assert_true(scn.msgs[1].eoverflow);
  assert_false(scn.msgs[0].eoverflow);
  assert_true(scn.msgs[2].sever);
  assert_int_equal(scn.msgs[3].open_errno, EBUSY);
  assert_int_equal(scn.msgs[3].open_count, 2);
  assert_int_equal(scn.msgs[3].delay_ms, 500);
  assert_int_equal(scn.msgs[4].open_errno, EIO); /* after the last */
  assert_int_equal(scn.msgs[4].open_count, 1);
  scn_free(&scn);
  free(s.file);

  /* Faults naming a message that does not exist are refused. */
  const char *argv[] = {GEN,       "-g",      "2",  "-i", "1",
                        "--fault", "sever@9", "-o", path, NULL};
  int status = spawn_gen(argv);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
}

/* The fault-spec parser used by the generator and MONREADER_EMU_FAULTS. */
static void test_fault_specs(void **state) {
  (void)state;
  struct scn_fault *f;
  size_t n;
  char err[256];
  assert_int_equal(scn_faults_parse("eio@3:100, efault@2 ,open@0:EBUSY:4 "
                                    "delay@1:30\tbadmca@5:1,sever@7,"
                                    "eoverflow@8,open@9:5",
                                    &f, &n, err, sizeof(err)),
                   0);
  assert_int_equal(n, 8);
  assert_int_equal(f[0].kind, SCN_F_EIO);
  assert_int_equal(f[0].msg, 3);
  assert_int_equal(f[0].arg, 100);
  assert_int_equal(f[1].kind, SCN_F_EFAULT);
  assert_int_equal(f[1].arg, SCN_NONE);
  assert_int_equal(f[2].kind, SCN_F_OPEN);
  assert_int_equal(f[2].arg, EBUSY);
  assert_int_equal(f[2].arg2, 4);
  assert_int_equal(f[3].kind, SCN_F_DELAY);
  assert_int_equal(f[3].arg, 30);
  assert_int_equal(f[4].kind, SCN_F_BADMCA);
  assert_int_equal(f[4].arg, 1);
  assert_int_equal(f[5].kind, SCN_F_SEVER);
  assert_int_equal(f[6].kind, SCN_F_EOVERFLOW);
  assert_int_equal(f[7].arg, 5);
  assert_int_equal(f[7].arg2, 1);
  free(f);
  const char *bad[] = {"eio",       "eio@x",       "nope@1",
                       "delay@1",   "sever@1:2",   "open@1:EWHAT",
                       "eio@1:2:3", "open@1:EIO:0"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    assert_int_equal(scn_faults_parse(bad[i], &f, &n, err, sizeof(err)), -1);
    assert_null(f);
  }
}

/* Domain 10 (APPLDATA): every kind for 3 Linux guests over 4 intervals,
 * with the faults: what the decoder finds in the generated bytes. */
static void test_appldata(void **state) {
  (void)state;
  struct sets s;
  struct decoded d;
  gen_sets(&s, (const char *const[]){"-g", "0", "-i", "4", "--smt-every", "0",
                                     "--linux-guests", "3", "--appldata", "all",
                                     "--appldata-faults", NULL});
  decode_all(&s, &d);
  size_t st[ZVM_APL_STATUS_COUNT] = {0}, kind[ZVM_APL_KIND_COUNT] = {0};
  unsigned lnx002_cpus[4] = {0}, hostile = 0, cut = 0;
  for (size_t i = 0; i < d.n; i++) {
    const struct rec *r = &d.r[i];
    if (r->domain != 10)
      continue;
    assert_int_equal(r->number, 2); /* D10R1 has no table */
    assert_int_equal(r->mce_type, ZVM_MCE_SAMPLE);
    struct zvm_apl_record a;
    enum zvm_apl_status status = zvm_apl_decode(r->data, r->len, &a);
    st[status]++;
    if (status != ZVM_APL_OK)
      continue;
    kind[a.hdr.kind]++;
    char guest[16];
    assert_true(zvm_name_format(a.hdr.userid, 8, guest, sizeof(guest)) > 0);
    /* sample records of interval i are stamped 1700000000 + 60 (i + 1) */
    uint64_t sec = ((r->tod - TOD_EPOCH) >> 12) / 1000000;
    unsigned interval = (unsigned)((sec - 1700000000) / 60 - 1);
    if (a.hdr.kind == ZVM_APL_OS && strcmp(guest, "LNX002") == 0) {
      assert_true(interval < 4);
      lnx002_cpus[interval] = a.u.os.nr_cpus;
    }
    if (a.hdr.kind == ZVM_APL_FSSTAT) {
      char name[ZVM_APL_NAME_MAX];
      zvm_apl_mount_name(a.u.fs.dir.p, a.u.fs.dir.len, name, sizeof(name));
      if (strcmp(name, "mnt-a%20b-%25x%0a-..-%ff") == 0)
        hostile++;
      if (strlen(name) == 63 && name[54] == '~')
        cut++;
    }
  }
  /* per interval: 3 x (os, mem, net_sum, 2 fs, procd summary, 2 tasks) +
   * guest 1's 2 extra fs and extra task + 1 unknown product */
  assert_int_equal(st[ZVM_APL_TORN], 1); /* guest 1's os, interval 2 */
  assert_int_equal(st[ZVM_APL_UNKNOWN_PRODUCT], 4);
  assert_int_equal(st[ZVM_APL_BAD_HEADER] + st[ZVM_APL_BAD_DATA], 0);
  assert_int_equal(kind[ZVM_APL_OS], 3 * 4 - 1);
  assert_int_equal(kind[ZVM_APL_MEM], 3 * 4);
  assert_int_equal(kind[ZVM_APL_NET_SUM], 3 * 4);
  assert_int_equal(kind[ZVM_APL_FSSTAT], (3 * 2 + 2) * 4);
  assert_int_equal(kind[ZVM_APL_PROCD_SUM], 3 * 4);
  assert_int_equal(kind[ZVM_APL_PROCD_TASK], (3 * 2 + 1) * 4);
  assert_int_equal(hostile, 4);
  assert_int_equal(cut, 4);
  /* CPU hot-plug of the second guest from the middle interval on */
  assert_int_equal(lnx002_cpus[0], 2);
  assert_int_equal(lnx002_cpus[1], 2);
  assert_int_equal(lnx002_cpus[2], 3);
  assert_int_equal(lnx002_cpus[3], 3);
  free_all(&s, &d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exact_layout),
      cmocka_unit_test(test_counters),
      cmocka_unit_test(test_prcsmt),
      cmocka_unit_test(test_sytprp),
      cmocka_unit_test(test_sets_messages_wrap),
      cmocka_unit_test(test_10000_guests),
      cmocka_unit_test(test_deterministic),
      cmocka_unit_test(test_badmca),
      cmocka_unit_test(test_scenario_file),
      cmocka_unit_test(test_fault_specs),
      cmocka_unit_test(test_appldata),
  };
  return cmocka_run_group_tests_name("zvm-stream-gen", tests, setup, teardown);
}
