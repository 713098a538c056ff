/* SPDX-License-Identifier: MIT */
/*
 * Domain 10 (APPLDATA) decoder: records built byte by byte from the
 * published layouts (kernel arch/s390/appldata/appldata_*.c, s390-tools
 * mon_tools/mon_{fsstatd,procd}.h), decoded, and every value checked.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "appldata/appldata.h"
#include "builder.h"
#include "zvm_monitor/decode.h"

#define TOD0 UINT64_C(0xDC00000000000000)

/* A D10R2 record alone in b: APHDR then data at offset 52. */
static void apl_record(struct tb *b, uint16_t number, const char *userid,
                       const uint8_t product[16], const struct tb *data) {
  tb_reset(b);
  tb_appldata(b, number, TOD0, userid, product, data->data, data->len);
}

static void kernel_prefix(struct tb *d, uint64_t tod, uint32_t s1,
                          uint32_t s2) {
  tb_u64(d, tod);
  tb_u32(d, s1);
  tb_u32(d, s2);
}

static void test_mem(void **state) {
  (void)state;
  struct tb d, r;
  tb_init(&d);
  tb_init(&r);
  kernel_prefix(&d, TOD0 + 1, 7, 7);
  for (uint64_t i = 0; i < 16; i++)
    tb_u64(&d, 1000 + i); /* pgpgin 1000 .. pgmajfault 1015 */
  assert_int_equal(d.len, 144);
  uint8_t prod[16];
  tb_apl_kernel_product(prod, 1, "00");
  apl_record(&r, 2, "LNXWEB1", prod, &d);

  struct zvm_apl_record a;
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_OK);
  assert_int_equal(a.hdr.kind, ZVM_APL_MEM);
  assert_int_equal(a.hdr.record, 2);
  assert_int_equal(a.hdr.data_len, 144);
  assert_int_equal(a.u.mem.tod, TOD0 + 1);
  assert_int_equal(a.u.mem.pgpgin, 1000);
  assert_int_equal(a.u.mem.pswpout, 1003);
  assert_int_equal(a.u.mem.totalram, 1005);
  assert_int_equal(a.u.mem.freeram, 1006);
  assert_int_equal(a.u.mem.bufferram, 1009);
  assert_int_equal(a.u.mem.cached, 1010);
  assert_int_equal(a.u.mem.freeswap, 1012);
  assert_int_equal(a.u.mem.pgmajfault, 1015);

  /* Torn: the guest updated the buffer while CP copied it. */
  tb_put_u32(&r, 52 + 12, 8);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_TORN);
  /* One byte short of the layout. */
  tb_put_u32(&r, 52 + 12, 7);
  tb_put_u16(&r, 22, 143);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_BAD_DATA);
  /* Never filled. */
  tb_put_u16(&r, 22, 144);
  tb_put_u64(&r, 52, 0);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_EMPTY);
  tb_free(&d);
  tb_free(&r);
}

static void os_record(struct tb *d, uint32_t ncpu, uint32_t entry,
                      const uint32_t *ids) {
  tb_reset(d);
  kernel_prefix(d, TOD0 + 2, 3, 3);
  tb_u32(d, ncpu);
  tb_u32(d, entry);
  tb_u32(d, 52);
  tb_u32(d, 4);                 /* nr_running */
  tb_u32(d, 250);               /* nr_threads */
  tb_u32(d, (1u << 11) + 10);   /* 1.00 (+FIXED_1/200 = 10) */
  tb_u32(d, (2u << 11) + 1024); /* 2.50 */
  tb_u32(d, 3u << 11);          /* 3.00 */
  tb_u32(d, 2);                 /* nr_iowait */
  for (uint32_t c = 0; c < ncpu; c++) {
    for (uint32_t f = 0; f < 7; f++)
      tb_u32(d, 100 * (c + 1) + f);
    if (entry >= 36) {
      tb_u32(d, 100 * (c + 1) + 7);
      tb_u32(d, ids[c]);
    }
  }
}

static void test_os(void **state) {
  (void)state;
  struct tb d, r;
  tb_init(&d);
  tb_init(&r);
  uint8_t prod[16];
  tb_apl_kernel_product(prod, 2, "01");
  const uint32_t ids[] = {0, 5};
  os_record(&d, 2, 36, ids);
  apl_record(&r, 2, "LNXDB2", prod, &d);

  struct zvm_apl_record a;
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_OK);
  assert_int_equal(a.hdr.kind, ZVM_APL_OS);
  assert_int_equal(a.u.os.nr_cpus, 2);
  assert_int_equal(a.u.os.nr_running, 4);
  assert_int_equal(a.u.os.nr_threads, 250);
  assert_int_equal(a.u.os.nr_iowait, 2);
  assert_true(fabs(zvm_apl_load(a.u.os.avenrun[0]) - 1.0) < 1e-9);
  assert_true(fabs(zvm_apl_load(a.u.os.avenrun[1]) - 2.5) < 1e-9);
  assert_true(fabs(zvm_apl_load(a.u.os.avenrun[2]) - 3.0) < 1e-9);
  struct zvm_apl_cpu c;
  zvm_apl_os_cpu(&a.u.os, 1, &c);
  assert_true(c.has_steal);
  assert_int_equal(c.cpu_id, 5);
  assert_int_equal(c.user, 200);
  assert_int_equal(c.iowait, 206);
  assert_int_equal(c.steal, 207);

  /* Old kernels: mod "00", 28-byte entries, CPU number = index. */
  tb_apl_kernel_product(prod, 2, "00");
  os_record(&d, 3, 28, NULL);
  apl_record(&r, 2, "LNXOLD", prod, &d);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_OK);
  zvm_apl_os_cpu(&a.u.os, 2, &c);
  assert_false(c.has_steal);
  assert_int_equal(c.cpu_id, 2);
  assert_int_equal(c.softirq, 305);

  /* nr_cpus claiming more entries than CALDATLN holds. */
  tb_put_u32(&r, 52 + 16, 4);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_BAD_DATA);
  /* A huge count must not wrap the bounds check. */
  tb_put_u32(&r, 52 + 16, 0xFFFFFFFFu);
  tb_put_u32(&r, 52 + 20, 0xFFFFFFFFu);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_BAD_DATA);
  /* Entries smaller than the fields we read. */
  tb_put_u32(&r, 52 + 16, 1);
  tb_put_u32(&r, 52 + 20, 27);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_BAD_DATA);
  /* cpu_offset inside the fixed part. */
  tb_put_u32(&r, 52 + 20, 28);
  tb_put_u32(&r, 52 + 24, 48);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_BAD_DATA);

  /* The same CPU twice would name one series twice. */
  tb_apl_kernel_product(prod, 2, "01");
  const uint32_t dup[] = {3, 3};
  os_record(&d, 2, 36, dup);
  apl_record(&r, 2, "LNXDUP", prod, &d);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_BAD_DATA);
  tb_free(&d);
  tb_free(&r);
}

static void test_net_sum(void **state) {
  (void)state;
  struct tb d, r;
  tb_init(&d);
  tb_init(&r);
  kernel_prefix(&d, TOD0 + 3, 1, 1);
  tb_u32(&d, 3);
  tb_u32(&d, 0);
  for (uint64_t i = 0; i < 9; i++)
    tb_u64(&d, (i + 1) << 40);
  assert_int_equal(d.len, 96);
  uint8_t prod[16];
  tb_apl_kernel_product(prod, 3, "00");
  apl_record(&r, 2, "LNXWEB1", prod, &d);
  struct zvm_apl_record a;
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_OK);
  assert_int_equal(a.hdr.kind, ZVM_APL_NET_SUM);
  assert_int_equal(a.u.net.nr_interfaces, 3);
  assert_int_equal(a.u.net.rx_packets, UINT64_C(1) << 40);
  assert_int_equal(a.u.net.tx_bytes, UINT64_C(4) << 40);
  assert_int_equal(a.u.net.collisions, UINT64_C(9) << 40);
  tb_free(&d);
  tb_free(&r);
}

static void str16(struct tb *d, const char *s) {
  tb_u16(d, (uint16_t)strlen(s));
  tb_bytes(d, s, strlen(s));
}

/* A mon_fsstatd record's data: fsstatd_hdr, device "rfs", dir, type "ext4",
 * then the 9 statvfs figures. */
static void fsstat_data(struct tb *d, const char *dir, const uint64_t fs[9]) {
  tb_reset(d);
  tb_u64(d, 1700000000);
  tb_u16(d, (uint16_t)(6 + 3 + strlen(dir) + 4 + 72));
  tb_u16(d, 12);
  str16(d, "rfs");
  str16(d, dir);
  str16(d, "ext4");
  for (int i = 0; i < 9; i++)
    tb_u64(d, fs[i]);
}

static void test_fsstat(void **state) {
  (void)state;
  struct tb d, r;
  tb_init(&d);
  tb_init(&r);
  tb_u64(&d, 1700000000);
  size_t len_at = d.len;
  tb_u16(&d, 0);
  tb_u16(&d, 12);
  str16(&d, "/dev/dasda1");
  str16(&d, "/var/log");
  str16(&d, "ext4");
  for (uint64_t i = 0; i < 9; i++)
    tb_u64(&d, 4096 * (i + 1));
  tb_put_u16(&d, len_at, (uint16_t)(d.len - 12));
  tb_fill(&d, 0, 589 - d.len); /* the small buffer, zero padded */
  uint8_t prod[16];
  tb_apl_tool_product(prod, 1, 0, 2);
  apl_record(&r, 2, "LNXWEB1", prod, &d);

  struct zvm_apl_record a;
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_OK);
  assert_int_equal(a.hdr.kind, ZVM_APL_FSSTAT);
  assert_int_equal(a.hdr.mod_level, 2);
  assert_int_equal(a.u.fs.time_s, 1700000000);
  assert_int_equal(a.u.fs.dir.len, 8);
  assert_memory_equal(a.u.fs.dir.p, "/var/log", 8);
  assert_memory_equal(a.u.fs.type.p, "ext4", 4);
  assert_int_equal(a.u.fs.bsize, 4096);
  assert_int_equal(a.u.fs.frsize, 8192);
  assert_int_equal(a.u.fs.flag, 4096 * 9);

  /* A string length running past fsstat_data_len. */
  tb_put_u16(&r, 52 + 12 + 2 + 11, 500);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_BAD_DATA);
  tb_put_u16(&r, 52 + 12 + 2 + 11, 8);
  /* fsstat_data_len past CALDATLN. */
  tb_put_u16(&r, 52 + 8, 600);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_BAD_DATA);
  tb_free(&d);
  tb_free(&r);
}

static void test_procd(void **state) {
  (void)state;
  struct tb d, r;
  tb_init(&d);
  tb_init(&r);
  tb_u64(&d, 1700000001);
  tb_u16(&d, 166);
  tb_u16(&d, 12);
  tb_u64(&d, 86400); /* uptime */
  tb_u32(&d, 3);     /* users */
  tb_bytes(&d, "0.15\0\0", 6);
  tb_bytes(&d, "12.50\0", 6);
  tb_bytes(&d, "x.1\0\0\0", 6); /* not a number */
  for (uint32_t i = 0; i < 5; i++)
    tb_u32(&d, 10 + i);
  tb_u32(&d, 2);
  for (uint16_t i = 0; i < 8; i++)
    tb_u16(&d, (uint16_t)(100 * (i + 1)));
  for (uint64_t i = 0; i < 12; i++)
    tb_u64(&d, 5000 + i);
  assert_int_equal(d.len, 12 + 166);
  uint8_t prod[16];
  tb_apl_tool_product(prod, 2, 0, 0);
  apl_record(&r, 2, "LNXWEB1", prod, &d);
  struct zvm_apl_record a;
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_OK);
  assert_int_equal(a.hdr.kind, ZVM_APL_PROCD_SUM);
  assert_int_equal(a.u.psum.uptime, 86400);
  assert_int_equal(a.u.psum.users, 3);
  assert_true(fabs(a.u.psum.load[0] - 0.15) < 1e-9);
  assert_true(fabs(a.u.psum.load[1] - 12.5) < 1e-9);
  assert_true(isnan(a.u.psum.load[2]));
  assert_int_equal(a.u.psum.tasks_total, 10);
  assert_int_equal(a.u.psum.tasks_zombie, 14);
  assert_int_equal(a.u.psum.num_cpus, 2);
  assert_int_equal(a.u.psum.puser, 100);
  assert_int_equal(a.u.psum.psteal, 800);
  assert_int_equal(a.u.psum.mem_total, 5000);
  assert_int_equal(a.u.psum.pgpgout, 5005);
  assert_int_equal(a.u.psum.swap_cached, 5009);
  assert_int_equal(a.u.psum.pswpout, 5011);

  /* A task record: task_t then six strings. */
  tb_reset(&d);
  tb_u64(&d, 1700000001);
  size_t len_at = d.len;
  tb_u16(&d, 0);
  tb_u16(&d, 12);
  tb_u32(&d, 4242); /* pid */
  tb_u32(&d, 1);
  tb_u32(&d, 1000);
  tb_u16(&d, 0);
  tb_u16(&d, 0xFFEC); /* priority -20 */
  tb_u16(&d, 0xFFFB); /* nice -5 */
  tb_u32(&d, 1);
  tb_u16(&d, 2500);
  tb_u16(&d, 120);
  for (uint64_t i = 0; i < 10; i++)
    tb_u64(&d, 700 + i);
  tb_u8(&d, 'R');
  tb_u32(&d, 0x400100);
  str16(&d, "root");
  str16(&d, "root");
  str16(&d, "root");
  str16(&d, "-");
  str16(&d, "httpd");
  str16(&d, "/usr/sbin/httpd -DFOREGROUND");
  size_t task_len = d.len - 12;
  tb_put_u16(&d, len_at, (uint16_t)task_len);
  tb_fill(&d, 0, 499 - d.len);
  tb_apl_tool_product(prod, 2, 1, 4);
  apl_record(&r, 2, "LNXWEB1", prod, &d);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_OK);
  assert_int_equal(a.hdr.kind, ZVM_APL_PROCD_TASK);
  assert_int_equal(a.u.task.pid, 4242);
  assert_int_equal(a.u.task.priority, -20);
  assert_int_equal(a.u.task.nice, -5);
  assert_int_equal(a.u.task.pcpu, 2500);
  assert_int_equal(a.u.task.total_time, 700);
  assert_int_equal(a.u.task.resident, 704);
  assert_int_equal(a.u.task.maj_flt, 709);
  assert_int_equal(a.u.task.state, 'R');
  assert_int_equal(a.u.task.flags, 0x400100);
  assert_int_equal(a.u.task.cmd.len, 5);
  assert_memory_equal(a.u.task.cmd.p, "httpd", 5);
  assert_int_equal(a.u.task.cmdline.len, 28);
  /* The last string cut by data_len. */
  tb_put_u16(&r, 52 + 8, (uint16_t)(task_len - 1));
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_BAD_DATA);
  tb_free(&d);
  tb_free(&r);
}

static void test_header(void **state) {
  (void)state;
  struct tb d, r;
  tb_init(&d);
  tb_init(&r);
  kernel_prefix(&d, TOD0, 1, 1);
  tb_fill(&d, 0, 128);
  uint8_t prod[16];
  tb_apl_kernel_product(prod, 1, "00");
  apl_record(&r, 2, "LNXWEB1", prod, &d);
  struct zvm_apl_record a;
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_OK);
  assert_memory_equal(a.hdr.userid, "\xD3\xD5\xE7\xE6\xC5\xC2\xF1\x40", 8);

  /* CALDATOF/CALDATLN outside the record, negative, or overlapping the
   * APHDR. */
  tb_put_u16(&r, 22, 145);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_BAD_HEADER);
  tb_put_u16(&r, 22, 0x8000);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_BAD_HEADER);
  tb_put_u16(&r, 22, 144);
  tb_put_u16(&r, 20, 0xFFFF);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_BAD_HEADER);
  tb_put_u16(&r, 20, 40);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_BAD_HEADER);
  /* The data may start later (CALDATOF is authoritative). */
  tb_put_u16(&r, 20, 52);
  tb_put_u16(&r, 22, 100);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_BAD_DATA);
  assert_int_equal(zvm_apl_decode(r.data, 51, &a), ZVM_APL_BAD_HEADER);

  /* Unknown products: another version, another record, another tool. */
  tb_put_u16(&r, 22, 144);
  r.data[32 + 11] = tb_ascii_to_ebcdic('4');
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_UNKNOWN_PRODUCT);
  tb_apl_kernel_product(prod, 4, "00");
  memcpy(r.data + 32, prod, 16);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_UNKNOWN_PRODUCT);
  tb_apl_kernel_product(prod, 1, "02");
  memcpy(r.data + 32, prod, 16);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_UNKNOWN_PRODUCT);
  tb_apl_tool_product(prod, 3, 0, 0);
  memcpy(r.data + 32, prod, 16);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_UNKNOWN_PRODUCT);
  /* "LNXAPPL" in EBCDIC is not the monwriter's (ASCII) ID. */
  for (int i = 0; i < 7; i++)
    r.data[32 + i] = tb_ascii_to_ebcdic("LNXAPPL"[i]);
  r.data[32 + 8] = 1;
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_UNKNOWN_PRODUCT);
  tb_free(&d);
  tb_free(&r);
}

static void test_names(void **state) {
  (void)state;
  char out[64];
  assert_int_equal(zvm_apl_mount_name((const uint8_t *)"/", 1, out, 64), 4);
  assert_string_equal(out, "root");
  zvm_apl_mount_name((const uint8_t *)"/var/log", 8, out, 64);
  assert_string_equal(out, "var-log");
  zvm_apl_mount_name((const uint8_t *)"/boot/efi.d", 11, out, 64);
  assert_string_equal(out, "boot-efi.d");
  /* Hostile bytes are escaped, '%' included: injective. */
  zvm_apl_mount_name((const uint8_t *)"/a b/%/\n\xff", 9, out, 64);
  assert_string_equal(out, "a%20b-%25-%0a%ff");
  zvm_apl_name((const uint8_t *)"eth0:1", 6, false, out, 64);
  assert_string_equal(out, "eth0%3a1");
  /* Too long: a prefix, '~' and the hash of the whole. */
  uint8_t longdir[300];
  memset(longdir, 'a', sizeof(longdir));
  size_t n = zvm_apl_name(longdir, sizeof(longdir), true, out, 64);
  assert_int_equal(n, 63);
  assert_int_equal(out[54], '~');
  char other[64];
  longdir[299] = 'b';
  zvm_apl_name(longdir, sizeof(longdir), true, other, 64);
  assert_int_equal(strlen(other), 63);
  assert_string_not_equal(out, other);
  assert_memory_equal(out, other, 54);
  /* The prefix never ends inside an escape. */
  memset(longdir, ' ', sizeof(longdir));
  n = zvm_apl_name(longdir, sizeof(longdir), true, out, 64);
  assert_int_equal(out[n - 9], '~');
  assert_int_equal((n - 9) % 3, 0);
  /* FNV-1a of 300 blanks, fixed so the oracle can mirror it. */
  assert_int_equal(zvm_apl_kind_from_name("OS"), ZVM_APL_OS);
  assert_int_equal(zvm_apl_kind_from_name("procd_task"), ZVM_APL_PROCD_TASK);
  assert_int_equal(zvm_apl_kind_from_name("disk"), ZVM_APL_UNKNOWN);
}

/* Values as text lines "plugin[-inst]/type[-inst] v1 v2 ..." (d: DERIVE,
 * g: GAUGE with %.17g). */
struct lines {
  char text[64][128];
  size_t n;
};

static void collect(void *ctx, const struct zvm_apl_value *v) {
  struct lines *l = ctx;
  /* every list of a type collectd knows, with its data sources */
  assert_int_equal(zvm_apl_type_ds_count(v->type), v->n);
  assert_true(l->n < 64);
  char *t = l->text[l->n++];
  int w = snprintf(t, 128, "%s%s%s/%s%s%s", v->plugin,
                   v->plugin_instance[0] ? "-" : "", v->plugin_instance,
                   v->type, v->type_instance[0] ? "-" : "", v->type_instance);
  for (size_t i = 0; i < v->n; i++)
    w += v->items[i].derive
             ? snprintf(t + w, 128 - (size_t)w, " d%lld",
                        (long long)v->items[i].d)
             : snprintf(t + w, 128 - (size_t)w, " g%.17g", v->items[i].g);
}

static bool has_line(const struct lines *l, const char *want) {
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->text[i], want) == 0)
      return true;
  print_message("missing: %s\n", want);
  for (size_t i = 0; i < l->n; i++)
    print_message("  have: %s\n", l->text[i]);
  return false;
}

static void test_values(void **state) {
  (void)state;
  struct tb d, r;
  tb_init(&d);
  tb_init(&r);
  uint8_t prod[16];
  struct zvm_apl_record a;
  struct lines l = {.n = 0};

  /* os: two CPUs (ids 0 and 5) */
  const uint32_t ids[] = {0, 5};
  os_record(&d, 2, 36, ids);
  tb_apl_kernel_product(prod, 2, "01");
  apl_record(&r, 2, "LNXWEB1", prod, &d);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_OK);
  zvm_apl_values(&a, collect, &l);
  assert_int_equal(l.n, 2 * 8 + 5);
  assert_true(has_line(&l, "cpu-5/cpu-user d200"));
  assert_true(has_line(&l, "cpu-5/cpu-wait d206"));
  assert_true(has_line(&l, "cpu-5/cpu-interrupt d204"));
  assert_true(has_line(&l, "cpu-0/cpu-steal d107"));
  assert_true(has_line(&l, "cpu/count g2"));
  assert_true(has_line(&l, "load/load g1 g2.5 g3"));
  assert_true(has_line(&l, "processes/ps_state-running g4"));
  assert_true(has_line(&l, "processes/ps_state-blocked g2"));
  assert_true(has_line(&l, "processes/threads g250"));

  /* mem: KB -> bytes; used = total - free - buffers - cached */
  tb_reset(&d);
  kernel_prefix(&d, TOD0 + 1, 1, 1);
  const uint64_t mem[16] = {11, 12, 13,  14,  0,   1000, 100, 0,
                            0,  50, 300, 400, 150, 21,   22,  23};
  for (int i = 0; i < 16; i++)
    tb_u64(&d, mem[i]);
  tb_apl_kernel_product(prod, 1, "00");
  apl_record(&r, 2, "LNXWEB1", prod, &d);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_OK);
  l.n = 0;
  zvm_apl_values(&a, collect, &l);
  assert_true(has_line(&l, "memory/memory-used g563200"));
  assert_true(has_line(&l, "memory/memory-free g102400"));
  assert_true(has_line(&l, "memory/memory-buffered g51200"));
  assert_true(has_line(&l, "memory/memory-cached g307200"));
  assert_true(has_line(&l, "swap/swap-used g256000"));
  assert_true(has_line(&l, "swap/swap-free g153600"));
  assert_true(has_line(&l, "swap/swap_io-in d13"));
  assert_true(has_line(&l, "vmem/vmpage_io-memory d11 d12"));
  assert_true(has_line(&l, "vmem/vmpage_io-swap d13 d14"));
  assert_true(has_line(&l, "vmem/vmpage_faults d22 d23"));
  assert_true(has_line(&l, "vmem/vmpage_action-alloc d21"));

  /* fsstat: df's names and clamps */
  const uint64_t fs[9] = {4096, 1024, 1000, 300, 200, 50, 20, 10, 0};
  fsstat_data(&d, "/srv/a b/c", fs);
  tb_apl_tool_product(prod, 1, 0, 0);
  apl_record(&r, 2, "LNXWEB1", prod, &d);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_OK);
  l.n = 0;
  zvm_apl_values(&a, collect, &l);
  assert_int_equal(l.n, 6);
  assert_true(has_line(&l, "df-srv-a%20b-c/df_complex-free g204800"));
  assert_true(has_line(&l, "df-srv-a%20b-c/df_complex-reserved g102400"));
  assert_true(has_line(&l, "df-srv-a%20b-c/df_complex-used g716800"));
  assert_true(has_line(&l, "df-srv-a%20b-c/df_inodes-free g10"));
  assert_true(has_line(&l, "df-srv-a%20b-c/df_inodes-reserved g10"));
  assert_true(has_line(&l, "df-srv-a%20b-c/df_inodes-used g30"));
  tb_free(&d);
  tb_free(&r);
}

/* A padded buffer's record compacted: same values, only the used bytes. */
static void test_compact(void **state) {
  (void)state;
  struct tb d, r;
  tb_init(&d);
  tb_init(&r);
  const uint64_t fs[9] = {4096, 1024, 1000, 300, 200, 50, 20, 10, 0};
  fsstat_data(&d, "/srv", fs);
  tb_fill(&d, 0, 3997 - d.len); /* the large buffer */
  uint8_t prod[16];
  tb_apl_tool_product(prod, 1, 0, 1);
  apl_record(&r, 2, "LNXWEB1", prod, &d);
  struct zvm_apl_record a, b;
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_OK);
  assert_int_equal(a.hdr.used_len, 12 + 6 + 3 + 4 + 4 + 72);
  uint8_t small[256];
  size_t n = zvm_apl_compact(&a, r.data, small, sizeof(small));
  assert_int_equal(n, 52 + a.hdr.used_len);
  assert_int_equal(zvm_apl_compact(&a, r.data, small, n - 1), 0);
  assert_int_equal(zvm_apl_decode(small, n, &b), ZVM_APL_OK);
  struct lines la = {.n = 0}, lb = {.n = 0};
  zvm_apl_values(&a, collect, &la);
  zvm_apl_values(&b, collect, &lb);
  assert_int_equal(la.n, lb.n);
  for (size_t i = 0; i < la.n; i++)
    assert_string_equal(la.text[i], lb.text[i]);
  assert_int_equal((small[0] << 8) | small[1], n);  /* MRHDRLEN */
  assert_memory_equal(small + 2, r.data + 2, 18);   /* rest of the MRHDR */
  assert_memory_equal(small + 24, r.data + 24, 28); /* user, product */

  /* os: the per-CPU array ends the used part */
  const uint32_t ids[] = {0, 1, 2};
  os_record(&d, 3, 36, ids);
  tb_fill(&d, 0, 100);
  tb_apl_kernel_product(prod, 2, "01");
  apl_record(&r, 2, "LNXWEB1", prod, &d);
  assert_int_equal(zvm_apl_decode(r.data, r.len, &a), ZVM_APL_OK);
  assert_int_equal(a.hdr.used_len, 52 + 3 * 36);
  tb_free(&d);
  tb_free(&r);
}

/* User IDs as instance keys: trailing NULs and blanks alike, inner NULs
 * not (zvm_name_format() names them %00), blank is no key. */
static void test_name_key(void **state) {
  (void)state;
  const uint8_t a[8] = {0xD3, 0xD5, 0xE7, 0xF1, 0x40, 0x40, 0x40, 0x40};
  const uint8_t b[8] = {0xD3, 0xD5, 0xE7, 0xF1, 0x00, 0x00, 0x40, 0x00};
  const uint8_t c[8] = {0xD3, 0xD5, 0x00, 0xF1, 0x40, 0x40, 0x40, 0x40};
  const uint8_t d[8] = {0xD3, 0xD5, 0x40, 0xF1, 0x40, 0x40, 0x40, 0x40};
  const uint8_t blank[8] = {0x40, 0x00, 0x40, 0x40, 0x40, 0x40, 0x00, 0x40};
  uint64_t ka, kb, kc, kd, k;
  assert_true(zvm_name_key(a, 8, &ka));
  assert_int_equal(ka, UINT64_C(0xD3D5E7F140404040));
  assert_true(zvm_name_key(b, 8, &kb));
  assert_int_equal(ka, kb);
  assert_true(zvm_name_key(a, 4, &k)); /* short: blank padded */
  assert_int_equal(ka, k);
  assert_true(zvm_name_key(c, 8, &kc));
  assert_true(zvm_name_key(d, 8, &kd));
  assert_int_not_equal(kc, kd);
  assert_false(zvm_name_key(blank, 8, &k));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_header),  cmocka_unit_test(test_mem),
      cmocka_unit_test(test_os),      cmocka_unit_test(test_net_sum),
      cmocka_unit_test(test_fsstat),  cmocka_unit_test(test_procd),
      cmocka_unit_test(test_names),   cmocka_unit_test(test_values),
      cmocka_unit_test(test_compact), cmocka_unit_test(test_name_key),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
