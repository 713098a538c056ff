/* SPDX-License-Identifier: MIT */
/*
 * hypfs-gen - writes what the Linux kernel's hypfs shows on IBM Z: the
 * debugfs files s390_hypfs/diag_2fc (z/VM) or diag_204 (LPAR) and the
 * hypfs tree (/sys/hypervisor/s390), from known values, so tests can check
 * the plugin's output exactly.
 *
 * Written from the kernel's structures alone, independently of the
 * plugin's decoder: Linux kernel arch/s390/hypfs/hypfs_vm.c (struct
 * dbfs_d2fc_hdr, struct diag2fc_data, hypfs_vm_create_guest() for the
 * tree), arch/s390/hypfs/hypfs_diag.c (struct dbfs_d204_hdr,
 * dbfs_d204_create()), arch/s390/hypfs/hypfs_diag_fs.c (the LPAR tree) and
 * arch/s390/include/asm/diag.h (struct diag204_x_*, diag204_*).
 *
 * Values are functions of the guest or CPU number and the step (one step
 * per collectd interval in the tests), printed by --expect as
 * "name field value" lines.
 */
#include "zvm_config.h"

#include "base/cli.h"
#include "base/outfile.h"
#include "mcewrite.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* OUTDIR is limited to 1024 bytes (main()), every path built from it to
 * below 2048: the fixed buffers below never truncate. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

/* ASCII -> EBCDIC code page 037 (the rig's table), '?' for a character
 * outside it. */
static uint8_t to_ebcdic(char c) {
  int e = mw_ebcdic(c);
  return e < 0 ? 0x6F : (uint8_t)e;
}

/* The name as the plugin's identifiers show it (collectd-hypfs(5)): A-Z
 * 0-9 @ # $ _ - + kept, any other character as %XX, its EBCDIC code. */
static void ident(const char *ascii, char *out, size_t size) {
  size_t n = 0;
  for (; *ascii != '\0' && n + 4 < size; ascii++) {
    char c = *ascii;
    if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("@#$_-+", c))
      out[n++] = c;
    else
      n += (size_t)snprintf(out + n, size - n, "%%%02X", to_ebcdic(c));
  }
  out[n] = '\0';
}

static void put_name(uint8_t *p, const char *ascii) {
  for (int i = 0; i < 8; i++)
    p[i] = 0x40;
  for (int i = 0; i < 8 && ascii[i] != '\0'; i++)
    p[i] = to_ebcdic(ascii[i]);
}

/* ---- the scenario ------------------------------------------------------- */

static unsigned opt_guests = 3, opt_lpars = 2, opt_lcpus = 2, opt_phys = 4;
static unsigned opt_step = 1;
static int opt_lpar, opt_simple, opt_odd_names, opt_wrap, opt_mgm_wrap;
static int opt_torn, opt_no_tree, opt_simple_debugfs;
static int opt_blank_name = -1, opt_slash_name = -1, opt_tree_missing = -1;
static const char *opt_restart = "", *opt_vanish = "";
static const char *opt_expect;

/* "i:R,i:R": guest/partition i restarted (logged on again) at step R. */
static unsigned restart_step(unsigned i) {
  const char *p = opt_restart;
  while (*p) {
    char *end;
    unsigned long g = strtoul(p, &end, 10);
    unsigned long r = 0;
    if (*end == ':')
      r = strtoul(end + 1, &end, 10);
    if (g == i && r <= opt_step)
      return (unsigned)r;
    p = *end == ',' ? end + 1 : end;
    if (*end != ',')
      break;
  }
  return 0;
}

static int vanished(unsigned i) {
  const char *p = opt_vanish;
  while (*p) {
    char *end;
    unsigned long g = strtoul(p, &end, 10);
    if (end == p)
      break;
    if (g == i)
      return 1;
    p = *end == ',' ? end + 1 : end;
  }
  return 0;
}

static void guest_name(unsigned i, char *out, size_t size) {
  if ((int)i == opt_blank_name)
    snprintf(out, size, "%s", "");
  else if ((int)i == opt_slash_name)
    snprintf(out, size, "LNX/%u", i);
  else if (opt_odd_names && i == 1)
    snprintf(out, size, "LNX#@$1");
  else if (opt_odd_names && i == 2)
    snprintf(out, size, "A.B");
  else
    snprintf(out, size, "LNX%05u", i);
}

struct guest_vals {
  char name[16];
  uint32_t version, flags;
  uint64_t used_cpu, el_time, mem_min, mem_max, mem_share, mem_used;
  uint32_t pcpus, lcpus, vcpus, ocpus, cpu_max, cpu_shares;
  uint32_t samp[6];
};

static void guest_vals(unsigned i, struct guest_vals *g) {
  uint64_t t = opt_step - restart_step(i); /* steps since logon */
  memset(g, 0, sizeof(*g));
  guest_name(i, g->name, sizeof(g->name));
  g->version = 2;
  g->flags = ((i % 3) << 1) | ((i % 2) << 3);
  g->used_cpu = (uint64_t)(i + 1) * 100000 * t + i;
  g->el_time = 1000000 * t + 5000 * (uint64_t)i;
  g->mem_min = 1024 * (uint64_t)(i + 1);
  g->mem_max = 4194304;
  g->mem_share = 2048 * (uint64_t)(i + 1);
  g->mem_used = 65536 * (uint64_t)(i + 1) + 1024 * t;
  g->pcpus = 8;
  g->lcpus = 6;
  g->vcpus = 1 + i % 4;
  g->ocpus = g->vcpus - (i % 2);
  g->cpu_max = 100 * (i % 5);
  g->cpu_shares = 100 + i;
  uint32_t base = opt_wrap ? 0xFFFFFFF0u : 0;
  g->samp[0] = (uint32_t)(10 * t + i);
  g->samp[1] = (uint32_t)(3 * t);
  g->samp[2] = (uint32_t)t;
  g->samp[3] = (uint32_t)(20 * t);
  g->samp[4] = (uint32_t)(2 * t);
  g->samp[5] = base + (uint32_t)(36 * t + i);
}

/* ---- output helpers ----------------------------------------------------- */

static char outdir[2048];

static void die(const char *what) {
  fprintf(stderr, "hypfs-gen: %s: %s\n", what, strerror(errno));
  exit(1);
}

static void mkdirs(const char *path) {
  char tmp[4096];
  snprintf(tmp, sizeof(tmp), "%s", path);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        die(tmp);
      *p = '/';
    }
  if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
    die(tmp);
}

static void write_file(const char *path, const void *data, size_t len) {
  char tmp[4200];
  snprintf(tmp, sizeof(tmp), "%s.tmp", path);
  FILE *f = fopen(tmp, "wb");
  if (f == NULL)
    die(tmp);
  if (len > 0 && fwrite(data, 1, len, f) != len)
    die(tmp);
  if (fclose(f) != 0)
    die(tmp);
  if (rename(tmp, path) != 0) /* readers never see half a file */
    die(path);
}

/* hypfs_create_u64(): "%llu\n"; hypfs_create_str(): "%s\n". */
static void tree_u64(const char *dir, const char *name, uint64_t v) {
  char path[4096], s[32];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  int n = snprintf(s, sizeof(s), "%llu\n", (unsigned long long)v);
  write_file(path, s, (size_t)n);
}
static void tree_str(const char *dir, const char *name, const char *v) {
  char path[4096], s[128];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  int n = snprintf(s, sizeof(s), "%s\n", v);
  write_file(path, s, (size_t)n);
}

static FILE *expect;

static void rm_tree(const char *path) {
  char cmd[4200];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
  if (system(cmd) != 0)
    die(path);
}

/* What the kernel leaves when an update of the tree fails (inode.c,
 * hypfs_write_iter(): hypfs_delete_tree(), the update file kept): a name
 * that cannot be a directory name (lookup_one_len() refuses "/" and an
 * empty name, what EBCDIC blanks trim to) or no guest at all (diag2fc_store()
 * of nothing). */
static void empty_tree(void) {
  static const char *parts[] = {"hyp", "cpus", "systems"};
  char path[4096];
  for (size_t i = 0; i < 3; i++) {
    snprintf(path, sizeof(path), "%s/hypfs/%s", outdir, parts[i]);
    rm_tree(path);
  }
}

/* ---- z/VM --------------------------------------------------------------- */

#define D2FC_SIZE 112 /* sizeof(struct diag2fc_data) */

static void gen_vm(void) {
  size_t n = 0;
  unsigned *live = calloc(opt_guests + 1, sizeof(*live));
  for (unsigned i = 0; i < opt_guests; i++)
    if (!vanished(i))
      live[n++] = i;
  size_t len = 64 + n * D2FC_SIZE;
  uint8_t *buf = calloc(1, len);
  if (buf == NULL || live == NULL)
    die("calloc");
  /* struct dbfs_d2fc_hdr: len, version, tod_ext[16], count, reserved */
  mw_store_be(buf + 0, 8, n * D2FC_SIZE);
  mw_store_be(buf + 8, 2, 0);
  mw_store_be(buf + 10, 1, 0); /* epoch index */
  mw_store_be(buf + 11, 8, ((uint64_t)opt_step + 1) << 32);
  mw_store_be(buf + 26, 8, n);
  char sys[4096], dir[4096];
  snprintf(sys, sizeof(sys), "%s/hypfs/systems", outdir);
  rm_tree(sys);
  mkdirs(sys);
  for (size_t k = 0; k < n; k++) {
    struct guest_vals g;
    guest_vals(live[k], &g);
    uint8_t *e = buf + 64 + k * D2FC_SIZE;
    mw_store_be(e + 0, 4, g.version);
    mw_store_be(e + 4, 4, g.flags);
    mw_store_be(e + 8, 8, g.used_cpu);
    mw_store_be(e + 16, 8, g.el_time);
    mw_store_be(e + 24, 8, g.mem_min);
    mw_store_be(e + 32, 8, g.mem_max);
    mw_store_be(e + 40, 8, g.mem_share);
    mw_store_be(e + 48, 8, g.mem_used);
    mw_store_be(e + 56, 4, g.pcpus);
    mw_store_be(e + 60, 4, g.lcpus);
    mw_store_be(e + 64, 4, g.vcpus);
    mw_store_be(e + 68, 4, g.ocpus);
    mw_store_be(e + 72, 4, g.cpu_max);
    mw_store_be(e + 76, 4, g.cpu_shares);
    for (int s = 0; s < 6; s++)
      mw_store_be(e + 80 + 4 * s, 4, g.samp[s]);
    put_name(e + 104, g.name);
    /* the tree, as hypfs_vm_create_guest() builds it */
    snprintf(dir, sizeof(dir), "%s/%s", sys, g.name);
    char sub[4200];
    bool tree_ok = g.name[0] != '\0' && strchr(g.name, '/') == NULL;
    if (!opt_no_tree && tree_ok) {
      mkdirs(dir);
      tree_u64(dir, "onlinetime_us", g.el_time);
      snprintf(sub, sizeof(sub), "%s/cpus", dir);
      mkdirs(sub);
      tree_u64(sub, "cputime_us", g.used_cpu);
      tree_u64(sub, "capped", (g.flags & 6) >> 1);
      tree_u64(sub, "dedicated", (g.flags & 8) >> 3);
      tree_u64(sub, "count", g.vcpus);
      tree_u64(sub, "weight_min", g.ocpus);
      tree_u64(sub, "weight_max", g.cpu_max);
      tree_u64(sub, "weight_cur", g.cpu_shares);
      snprintf(sub, sizeof(sub), "%s/mem", dir);
      mkdirs(sub);
      tree_u64(sub, "min_KiB", g.mem_min);
      tree_u64(sub, "max_KiB", g.mem_max);
      tree_u64(sub, "used_KiB", g.mem_used);
      tree_u64(sub, "share_KiB", g.mem_share);
      snprintf(sub, sizeof(sub), "%s/samples", dir);
      mkdirs(sub);
      static const char *sn[6] = {"cpu_using", "cpu_delay", "mem_delay",
                                  "idle",      "other",     "total"};
      for (int s = 0; s < 6; s++)
        tree_u64(sub, sn[s], g.samp[s]);
      if ((int)live[k] == opt_tree_missing) { /* vanished while read */
        snprintf(sub, sizeof(sub), "%s/samples/total", dir);
        if (unlink(sub) != 0)
          die(sub);
      }
    }
    /* the plugin skips a blank name and a guest the tree reads partly */
    if (expect != NULL && g.name[0] != '\0' &&
        (int)live[k] != opt_tree_missing) {
      char id[40];
      ident(g.name, id, sizeof(id));
      snprintf(g.name, sizeof(g.name), "%s", id);
      fprintf(expect, "%s cpu_time_us %llu\n", g.name,
              (unsigned long long)g.used_cpu);
      fprintf(expect, "%s online_time_us %llu\n", g.name,
              (unsigned long long)g.el_time);
      fprintf(expect, "%s vcpus %u\n%s ocpus %u\n", g.name, g.vcpus, g.name,
              g.ocpus);
      fprintf(expect, "%s capped %u\n%s dedicated %u\n", g.name,
              (g.flags & 6) >> 1, g.name, (g.flags & 8) >> 3);
      fprintf(expect, "%s weight_max %u\n%s weight_cur %u\n", g.name, g.cpu_max,
              g.name, g.cpu_shares);
      fprintf(expect, "%s mem_min_bytes %llu\n", g.name,
              (unsigned long long)g.mem_min * 1024);
      fprintf(expect, "%s mem_max_bytes %llu\n", g.name,
              (unsigned long long)g.mem_max * 1024);
      fprintf(expect, "%s mem_share_bytes %llu\n", g.name,
              (unsigned long long)g.mem_share * 1024);
      fprintf(expect, "%s mem_used_bytes %llu\n", g.name,
              (unsigned long long)g.mem_used * 1024);
      static const char *en[6] = {"samples_cpu_using", "samples_cpu_delay",
                                  "samples_mem_delay", "samples_idle",
                                  "samples_other",     "samples_total"};
      for (int s = 0; s < 6; s++)
        fprintf(expect, "%s %s %u\n", g.name, en[s], g.samp[s]);
    }
  }
  char path[4096];
  snprintf(path, sizeof(path), "%s/debugfs", outdir);
  mkdirs(path);
  snprintf(path, sizeof(path), "%s/debugfs/diag_2fc", outdir);
  write_file(path, buf, opt_torn ? len - D2FC_SIZE / 2 : len);
  snprintf(dir, sizeof(dir), "%s/hypfs", outdir);
  tree_u64(dir, "update", 0);
  snprintf(path, sizeof(path), "%s/hypfs/hyp", outdir);
  mkdirs(path);
  tree_str(path, "type", "z/VM Hypervisor");
  snprintf(path, sizeof(path), "%s/hypfs/cpus", outdir);
  mkdirs(path);
  tree_u64(path, "count", 6);
  bool emptied = n == 0;
  for (size_t k = 0; k < n; k++) {
    char name[16];
    guest_name(live[k], name, sizeof(name));
    emptied = emptied || name[0] == '\0' || strchr(name, '/') != NULL;
  }
  if (emptied)
    empty_tree();
  /* cpus: the first record's lcpus, none without a record */
  if (expect != NULL && n > 0)
    fprintf(expect, "hypervisor cpus 6\nhypervisor guests %zu\n", n);
  else if (expect != NULL)
    fprintf(expect, "hypervisor cpus nan\nhypervisor guests 0\n");
  free(buf);
  free(live);
}

/* ---- LPAR --------------------------------------------------------------- */

static void gen_lpar(void) {
  const int ext = !opt_simple;
  const size_t info = ext ? 64 : 16, part = ext ? 96 : 16, cpu = ext ? 96 : 24,
               phdr = ext ? 96 : 16, pcpu = ext ? 96 : 24;
  size_t len =
      info + opt_lpars * (part + opt_lcpus * cpu) + phdr + opt_phys * pcpu;
  size_t pages = (len + 4095) / 4096;
  uint8_t *buf = calloc(1, 64 + pages * 4096);
  if (buf == NULL)
    die("calloc");
  /* struct dbfs_d204_hdr: len, version, sc */
  mw_store_be(buf + 0, 8, pages * 4096);
  mw_store_be(buf + 8, 2, 0);
  mw_store_be(buf + 10, 1,
              ext ? 7 : 4); /* DIAG204_SUBC_STIB7, or STIB4 (simple) */
  uint8_t *d = buf + 64;
  unsigned npar = 0;
  for (unsigned p = 0; p < opt_lpars; p++)
    if (!vanished(p))
      npar++;
  /* diag204_(x_)info_blk_hdr: npar, flags, tslice, phys_cpus, this_part,
   * curtod(1) */
  mw_store_be(d + 0, 1, (uint8_t)npar);
  mw_store_be(d + 1, 1, opt_phys > 0 ? 0x80 : 0);
  mw_store_be(d + 2, 2, 0);
  mw_store_be(d + 4, 2, (uint16_t)opt_phys);
  mw_store_be(d + 6, 2, 1);
  mw_store_be(d + 8, 8, ((uint64_t)opt_step + 1) << 32);
  size_t off = info;
  char sys[4096], dir[4200], one[4400];
  snprintf(sys, sizeof(sys), "%s/hypfs/systems", outdir);
  rm_tree(sys);
  mkdirs(sys);
  for (unsigned p = 0; p < opt_lpars; p++) {
    if (vanished(p))
      continue;
    uint64_t t = opt_step - restart_step(p);
    char name[16];
    snprintf(name, sizeof(name), "LPAR%02u", p);
    uint8_t *h = d + off;
    mw_store_be(h + 0, 1, (uint8_t)(p + 1));
    mw_store_be(h + 1, 1, (uint8_t)opt_lcpus);
    if (ext)
      mw_store_be(h + 2, 1, (uint8_t)opt_lcpus); /* rcpus */
    put_name(h + 8, name);
    off += part;
    snprintf(dir, sizeof(dir), "%s/%s/cpus", sys, name);
    mkdirs(dir);
    for (unsigned c = 0; c < opt_lcpus; c++) {
      uint8_t *ci = d + off;
      uint8_t ctidx = c % 2 == 0 ? 0 : 3;
      uint64_t lp = (uint64_t)(p + 1) * (c + 1) * 1000 * t + c;
      uint64_t mgm = 10 * t * (c + 1);
      uint64_t acc = lp + mgm;
      if (opt_mgm_wrap && p == 0 && c == 0)
        acc = lp - 5; /* acc_time < lp_time: no sign check in the kernel */
      uint64_t online = 1000000 * t + c;
      mw_store_be(ci + 0, 2, (uint16_t)c);
      mw_store_be(ci + 4, 1, ctidx);
      mw_store_be(ci + 6, 2, 100);
      mw_store_be(ci + 8, 8, acc);
      mw_store_be(ci + 16, 8, lp);
      if (ext)
        mw_store_be(ci + 32, 8, online);
      off += cpu;
      snprintf(one, sizeof(one), "%s/%u", dir, c);
      mkdirs(one);
      tree_u64(one, "mgmtime", acc - lp); /* unsigned, as the kernel */
      tree_u64(one, "cputime", lp);
      if (ext)
        tree_u64(one, "onlinetime", online);
      tree_str(one, "type", ctidx == 0 ? "CP" : "IFL");
      if (expect != NULL)
        fprintf(expect, "%s/%s-%u cpu %llu mgm %llu online %llu\n", name,
                ctidx == 0 ? "cp" : "ifl", c, (unsigned long long)lp,
                (unsigned long long)(acc >= lp ? acc - lp : 0),
                (unsigned long long)online);
    }
  }
  snprintf(dir, sizeof(dir), "%s/hypfs/cpus", outdir);
  rm_tree(dir);
  if (opt_phys > 0) {
    uint8_t *ph = d + off;
    mw_store_be(ph + 1, 1, (uint8_t)opt_phys);
    put_name(ph + 8, "PHYSICAL");
    off += phdr;
    for (unsigned c = 0; c < opt_phys; c++) {
      uint8_t *pc = d + off;
      uint8_t ctidx = c % 2 == 0 ? 0 : 3;
      uint64_t mgm = 7 * (uint64_t)opt_step * (c + 1);
      mw_store_be(pc + 0, 2, (uint16_t)c);
      mw_store_be(pc + 4, 1, ctidx);
      mw_store_be(pc + 8, 8, mgm);
      off += pcpu;
      snprintf(one, sizeof(one), "%s/%u", dir, c);
      mkdirs(one);
      tree_u64(one, "mgmtime", mgm);
      tree_str(one, "type", ctidx == 0 ? "CP" : "IFL");
      if (expect != NULL)
        fprintf(expect, "physical/%s-%u mgm %llu\n", ctidx == 0 ? "cp" : "ifl",
                c, (unsigned long long)mgm);
    }
  }
  char path[4096];
  snprintf(path, sizeof(path), "%s/debugfs", outdir);
  mkdirs(path);
  snprintf(path, sizeof(path), "%s/debugfs/diag_204", outdir);
  if (ext || opt_simple_debugfs) {
    size_t total = 64 + pages * 4096;
    write_file(path, buf, opt_torn ? total - 100 : total);
  }
  snprintf(dir, sizeof(dir), "%s/hypfs", outdir);
  tree_u64(dir, "update", 0);
  snprintf(path, sizeof(path), "%s/hypfs/hyp", outdir);
  mkdirs(path);
  tree_str(path, "type", "LPAR Hypervisor");
  free(buf);
}

static void usage(FILE *f) {
  fprintf(f, "usage: hypfs-gen [options] OUTDIR\n"
             "Writes OUTDIR/debugfs/diag_2fc (or diag_204) and the hypfs tree\n"
             "OUTDIR/hypfs as the Linux kernel builds them on IBM Z.\n"
             "  --guests N       z/VM guests (default 3)\n"
             "  --lpar           an LPAR (DIAG 204) instead of z/VM\n"
             "  --simple         LPAR: the simple format (tree only)\n"
             "  --simple-debugfs with --simple: diag_204 too, subcode 4\n"
             "  --lpars N        partitions (default 2)\n"
             "  --cpus N         logical CPUs per partition (default 2)\n"
             "  --phys N         physical CPUs (default 4)\n"
             "  --step S         interval number (default 1)\n"
             "  --restart I:R,.. guest/partition I logged on again at step R\n"
             "  --vanish I,..    guests/partitions absent at this step\n"
             "  --odd-names      guests 1 and 2 named LNX#@$1 and A.B\n"
             "  --wrap           samples_total starts near 2^32\n"
             "  --mgm-wrap       LPAR00's CPU 0 with acc_time < lp_time\n"
             "  --torn           write a truncated debugfs file\n"
             "  --no-tree        z/VM: no systems/ directory (large counts)\n"
             "  --blank-name I   z/VM: guest I's name all blanks\n"
             "  --slash-name I   z/VM: guest I named LNX/I\n"
             "                   (either empties the tree, as the kernel's\n"
             "                   failing update does; so do 0 guests)\n"
             "  --tree-missing I z/VM: guest I's samples/total missing from\n"
             "                   the tree (the expect file is the tree's)\n"
             "  --expect FILE    write the expected values to FILE\n"
             "  -h, --help       this help\n"
             "      --version    the program's version\n");
}

int main(int argc, char **argv) {
  static const struct option opts[] = {
      {"guests", 1, NULL, 'g'},         {"lpar", 0, NULL, 'L'},
      {"simple", 0, NULL, 'S'},         {"lpars", 1, NULL, 'p'},
      {"cpus", 1, NULL, 'c'},           {"phys", 1, NULL, 'P'},
      {"step", 1, NULL, 's'},           {"restart", 1, NULL, 'r'},
      {"vanish", 1, NULL, 'v'},         {"odd-names", 0, NULL, 'o'},
      {"wrap", 0, NULL, 'w'},           {"mgm-wrap", 0, NULL, 'm'},
      {"torn", 0, NULL, 't'},           {"expect", 1, NULL, 'e'},
      {"no-tree", 0, NULL, 'n'},        {"help", 0, NULL, 'h'},
      {"simple-debugfs", 0, NULL, 'D'}, {"blank-name", 1, NULL, 'B'},
      {"slash-name", 1, NULL, 'Z'},     {"tree-missing", 1, NULL, 'M'},
      {"version", 0, NULL, 'V'},        {NULL, 0, NULL, 0}};
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
    switch (c) {
    case 'g':
      opt_guests = (unsigned)strtoul(optarg, NULL, 10);
      break;
    case 'L':
      opt_lpar = 1;
      break;
    case 'S':
      opt_simple = 1;
      break;
    case 'p':
      opt_lpars = (unsigned)strtoul(optarg, NULL, 10);
      break;
    case 'c':
      opt_lcpus = (unsigned)strtoul(optarg, NULL, 10);
      break;
    case 'P':
      opt_phys = (unsigned)strtoul(optarg, NULL, 10);
      break;
    case 's':
      opt_step = (unsigned)strtoul(optarg, NULL, 10);
      break;
    case 'r':
      opt_restart = optarg;
      break;
    case 'v':
      opt_vanish = optarg;
      break;
    case 'o':
      opt_odd_names = 1;
      break;
    case 'w':
      opt_wrap = 1;
      break;
    case 'm':
      opt_mgm_wrap = 1;
      break;
    case 't':
      opt_torn = 1;
      break;
    case 'n':
      opt_no_tree = 1;
      break;
    case 'D':
      opt_simple_debugfs = 1;
      break;
    case 'B':
      opt_blank_name = atoi(optarg);
      break;
    case 'Z':
      opt_slash_name = atoi(optarg);
      break;
    case 'M':
      opt_tree_missing = atoi(optarg);
      break;
    case 'e':
      opt_expect = optarg;
      break;
    case 'h':
      usage(stdout);
      return 0;
    case 'V':
      return zvm_cli_version("hypfs-gen", PACKAGE_VERSION);
    default:
      return zvm_cli_bad_option("hypfs-gen", c, argv);
    }
  }
  if (optind + 1 != argc)
    return zvm_cli_usage_error("hypfs-gen", "one OUTDIR is needed");
  if (strlen(argv[optind]) > 1024)
    return zvm_cli_usage_error("hypfs-gen", "OUTDIR is longer than 1024 bytes");
  if (opt_lpars > 255 || opt_lcpus > 255 || opt_phys > 255)
    return zvm_cli_usage_error("hypfs-gen",
                               "--lpars, --cpus and --phys take at most 255");
  snprintf(outdir, sizeof(outdir), "%s", argv[optind]);
  mkdirs(outdir);
  if (opt_expect != NULL) { /* a new file, never an existing one or a link */
    struct zvm_outfile out;
    char err[512];
    if (zvm_outfile_open(&out, opt_expect, 0, err, sizeof(err)) != 0) {
      fprintf(stderr, "hypfs-gen: %s\n", err);
      return 1;
    }
    expect = out.is_stdout ? stdout : fdopen(out.fd, "w");
    if (expect == NULL)
      die(opt_expect);
  }
  if (opt_lpar)
    gen_lpar();
  else
    gen_vm();
  if (expect != NULL && fclose(expect) != 0)
    die(opt_expect);
  return 0;
}
