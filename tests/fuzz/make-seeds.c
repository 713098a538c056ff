/* SPDX-License-Identifier: MIT */
/*
 * Writes the seed corpora of the fuzz targets from real record layouts,
 * built with the unit tests' builder (tests/rig/builder.h):
 *
 *   make-seeds DIR      writes DIR/{decode,names,reader,appldata,...}/<seed>
 *
 * 'make fuzz-seeds' regenerates tests/fuzz/corpus/ with it. The files are
 * committed; keep them small (the fuzzer finds the rest).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builder.h"

#define DCSS 0x09000000u
#define TOD UINT64_C(0xE39CE53726000000) /* 2026-11-21 00:00:00 UTC */
#define SAMPLE 0xE2
#define EVENT 0xC5
#define ALL 0xFFFF
#define ZVM_MCE_BYTES 12

static const char *outdir;

static void write_file(const char *target, const char *name, const void *p,
                       size_t n) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", outdir, target);
  if (mkdir(path, 0777) != 0 && errno != EEXIST) {
    perror(path);
    exit(1);
  }
  snprintf(path, sizeof(path), "%s/%s/%s", outdir, target, name);
  FILE *f = fopen(path, "wb");
  if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
}

/* fuzz_mapper input: 1 option byte, 1 Domain mask byte (0: all), then the
 * data set. */
static void mapper_seed(const char *name, uint8_t opt, const struct tb *set) {
  struct tb in;
  char file[256];
  tb_init(&in);
  tb_u8(&in, opt);
  tb_u8(&in, 0);
  tb_bytes(&in, set->data, set->len);
  snprintf(file, sizeof(file), "%s-o%02x", name, opt);
  write_file("mapper", file, in.data, in.len);
  tb_free(&in);
}

/* fuzz_decode input: 2-byte selection mask, then the data set; the same
 * set is a seed of fuzz_mapper with four option bytes (one value list per
 * type or per value, GuestsAsHosts, a second pass). */
static void decode_seed(const char *name, uint16_t mask, const struct tb *set) {
  struct tb in;
  tb_init(&in);
  tb_u16(&in, mask);
  tb_bytes(&in, set->data, set->len);
  write_file("decode", name, in.data, in.len);
  tb_free(&in);
  static const uint8_t opts[] = {0x00, 0x05, 0x0E, 0x0F};
  for (size_t i = 0; i < sizeof(opts); i++)
    mapper_seed(name, opts[i], set);
}

/* fuzz_names input: 1-byte output size, then the name bytes. */
static void names_seed(const char *name, uint8_t out_size, const void *p,
                       size_t n) {
  struct tb in;
  tb_init(&in);
  tb_u8(&in, out_size);
  tb_bytes(&in, p, n);
  write_file("names", name, in.data, in.len);
  tb_free(&in);
}

/* D4R10 MRUSEITE (IBM, z/VM V6R2.0): 200 bytes, a distinct value in every
 * field. */
static void useite(struct tb *b, const char *user, uint16_t len) {
  size_t r = tb_record(b, len, 4, 10, TOD);
  for (size_t off = 20; off < len; off++)
    tb_put_u8(b, r + off, (uint8_t)(off * 7 + 1));
  if (len >= 28)
    tb_put_ebcdic(b, r + 20, user, 8);
  if (len >= 44)
    tb_put_ebcdic(b, r + 36, "TCPIP", 8); /* VMDSVMID */
  if (len >= 200)
    tb_put_u8(b, r + 196, 3); /* VMDPUTYP: IFL */
}

/* D5R21 MRPRCSMT (IBM, z/VM V6R4.0): 36 bytes + cnt CPUTINFO entries. */
static void prcsmt(struct tb *b, uint8_t status, unsigned cnt, uint16_t aesz,
                   uint16_t aoff, uint16_t len) {
  size_t r = tb_record(b, len, 5, 21, TOD);
  tb_put_u32(b, r + 20, 7);     /* RCCSMTSQ */
  tb_put_u8(b, r + 24, status); /* CAL_STATUS */
  tb_put_u8(b, r + 25, 2);      /* CALMAXTC */
  tb_put_u8(b, r + 26, 0xFF);   /* RCCCOALL */
  tb_put_u8(b, r + 27, 1);      /* RCCSMALL */
  tb_put_u8(b, r + 28, 0x80);   /* RCCSMSET */
  tb_put_u8(b, r + 29, (uint8_t)cnt);
  tb_put_u16(b, r + 30, aesz);
  tb_put_u16(b, r + 32, aoff);
  static const uint8_t types[] = {0, 2, 3, 4, 5, 9};
  if (aoff < 20)
    return; /* a bad offset: leave the header alone */
  for (unsigned i = 0; i < cnt; i++) {
    size_t e = r + aoff + (size_t)i * aesz;
    for (unsigned k = 0; k < aesz && e + k < r + len; k++)
      tb_put_u8(b, e + k, k == 0 ? types[i % 6] : (uint8_t)(i * 16 + k));
  }
}

/* D4R10 of one VMDBK (IBM MRUSEITE, z/VM V6R2.0): 28 USEITE_VMDCPUAD
 * (Unsigned 2), 47 USEITE_CALFLAG1 (X'80' CALBASE: the base VMDBK's);
 * us: microseconds after TOD. */
static void useite_vmdbk(struct tb *b, const char *user, uint16_t cpuad,
                         int base, uint64_t us) {
  size_t r = b->len;
  useite(b, user, 200);
  tb_put_u64(b, r + 8, TOD + (us << 12)); /* MRHDRTOD */
  tb_put_u16(b, r + 28, cpuad);
  tb_put_u8(b, r + 47, base ? 0x80 : 0x00);
}

/* D4R1 MRUSELON (IBM, z/VM V7R3.0: 180 bytes) or D4R2 MRUSELOF (z/VM
 * V6R2.0: 496 bytes): 20 VMDUSER (Character 8), 28 VMDCPUAD (Unsigned 2),
 * the rest differs between levels and is not decoded. */
static void session(struct tb *b, int logon, const char *user, uint16_t cpuad,
                    uint64_t us) {
  uint16_t len = logon ? 180 : 496;
  size_t r = tb_record(b, len, 4, logon ? 1 : 2, TOD + (us << 12));
  tb_put_ebcdic(b, r + 20, user, 8);
  tb_put_u16(b, r + 28, cpuad);
  for (size_t off = 32; off + 4 <= len; off += 4)
    tb_put_u32(b, r + off, 0xC5000000u + (uint32_t)off);
}

static void one_set(const char *name, uint16_t mask, uint8_t type,
                    uint16_t domains, const struct tb *rs) {
  struct tb set;
  tb_init(&set);
  tb_record_set(&set, type, domains, DCSS + 0x40, rs);
  decode_seed(name, mask, &set);
  tb_free(&set);
}

static void decode_seeds(void) {
  struct tb rs, rs2, set;
  tb_init(&rs);
  tb_init(&rs2);
  tb_init(&set);

  useite(&rs, "LINUX07", 200);
  one_set("d4r10-one", ALL, EVENT, 0x0800, &rs);

  tb_reset(&rs);
  useite(&rs, "LINUX01", 200);
  useite(&rs, "A B", 200);
  useite(&rs, "TCP/IP", 200);
  useite(&rs, "@#$_-+9", 200);
  one_set("d4r10-users-user-mask", 0x0800, EVENT, 0x0800, &rs);

  tb_reset(&rs);
  useite(&rs, "OLDZVM", 121); /* shorter: only the fields it holds */
  useite(&rs, "NEWZVM", 256); /* longer: a newer z/VM level */
  one_set("d4r10-short-long", ALL, SAMPLE, 0x0800, &rs);

  tb_reset(&rs);
  prcsmt(&rs, 0x80, 5, 8, 36, 76);
  prcsmt(&rs, 0x40, 5, 8, 36, 76);
  one_set("d5r21-start-end", 0x0400, EVENT, 0x0400, &rs);

  tb_reset(&rs);
  prcsmt(&rs, 0x40, 5, 12, 40, 100); /* longer entries further out */
  prcsmt(&rs, 0x40, 0, 8, 36, 36);   /* no entries */
  prcsmt(&rs, 0x40, 2, 4, 36, 44);   /* entries shorter than the table */
  one_set("d5r21-layouts", ALL, EVENT, 0x0400, &rs);

  tb_reset(&rs);
  prcsmt(&rs, 0x40, 3, 8, 36, 52); /* 3 entries do not fit in 52 bytes */
  prcsmt(&rs, 0x40, 1, 8, 8, 44);  /* array inside the header */
  one_set("d5r21-bad-arrays", ALL, EVENT, 0x0400, &rs);

  /* 4 KB frames with D1R13 and padding, from mid-frame, then D1R11. */
  struct tb_frames f;
  struct tb rec;
  tb_init(&rec);
  tb_frames_init(&f, DCSS + 0xF00, 0xEE, TOD);
  for (int i = 0; i < 45; i++) {
    char user[9];
    snprintf(user, sizeof(user), "G%03d", i);
    tb_reset(&rec);
    if (i % 9 == 4)
      prcsmt(&rec, 0x40, 5, 8, 36, 76);
    else
      useite(&rec, user, 200);
    tb_frames_add(&f, &rec);
  }
  tb_reset(&rec);
  tb_record(&rec, 20, 1, 11, TOD);
  tb_frames_add(&f, &rec);
  tb_reset(&set);
  tb_record_set(&set, SAMPLE, 0x4C00, f.base, &f.rs);
  decode_seed("frames-d1r13", ALL, &set);
  tb_frames_free(&f);
  tb_free(&rec);

  /* Several record sets; records without a table; a domain > 15. */
  tb_reset(&rs);
  tb_reset(&rs2);
  tb_reset(&set);
  tb_record(&rs, 116, 0, 1, TOD);
  tb_record(&rs, 64, 4, 3, TOD);
  tb_record(&rs, 33, 200, 7, TOD);
  tb_record_set(&set, SAMPLE, 0x8800, DCSS + 0x1000, &rs);
  useite(&rs2, "LINUX07", 200);
  prcsmt(&rs2, 0x80, 2, 8, 36, 52);
  tb_record(&rs2, 20, 1, 11, TOD);
  tb_record_set(&set, EVENT, 0x4C00, DCSS + 0x8000, &rs2);
  decode_seed("mixed-sets", ALL, &set);

  /* Bad record headers: each ends its record set. */
  static const struct {
    const char *name;
    uint16_t len, put_len;
    size_t put_at; /* 0: MRHDRLEN, 2: MRHDRZER */
    int trailing;
  } bad[] = {
      {"bad-hdr-len19", 20, 19, 0, 0},     {"bad-hdr-len0", 20, 0, 0, 0},
      {"bad-hdr-overlong", 50, 200, 0, 0}, {"bad-hdr-zer", 20, 1, 2, 0},
      {"bad-hdr-trailing", 0, 0, 0, 10},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    tb_reset(&rs);
    tb_reset(&rs2);
    tb_reset(&set);
    useite(&rs, "GOOD1", 200);
    size_t at = rs.len;
    if (bad[i].trailing) {
      tb_fill(&rs, 0, (size_t)bad[i].trailing);
    } else {
      tb_record(&rs, bad[i].len, 4, 10, TOD);
      tb_put_u16(&rs, at + bad[i].put_at, bad[i].put_len);
    }
    useite(&rs2, "GOOD2", 200);
    tb_record_set(&set, EVENT, 0x0800, DCSS, &rs);
    tb_record_set(&set, EVENT, 0x0800, DCSS + 0x8000, &rs2);
    decode_seed(bad[i].name, ALL, &set);
  }

  /* Bad MCEs: each ends the data set. */
  static const struct {
    const char *name;
    uint8_t type;
    uint16_t domains;
    uint32_t start, end;
    size_t cut; /* bytes dropped from the end */
  } mce[] = {
      {"bad-mce-type0", 0x00, 0x0800, DCSS, DCSS + 199, 0},
      {"bad-mce-no-domains", EVENT, 0x0000, DCSS, DCSS + 199, 0},
      {"bad-mce-end-before-start", EVENT, 0x0800, DCSS + 199, DCSS, 0},
      {"bad-mce-short-data", EVENT, 0x0800, DCSS, DCSS + 199, 1},
      {"bad-mce-truncated", EVENT, 0x0800, DCSS, DCSS + 199, 205},
  };
  for (size_t i = 0; i < sizeof(mce) / sizeof(mce[0]); i++) {
    tb_reset(&rs);
    tb_reset(&set);
    useite(&rs, "FIRST", 200);
    tb_record_set(&set, EVENT, 0x0800, DCSS + 0x4000, &rs);
    tb_mce(&set, mce[i].type, mce[i].domains, mce[i].start, mce[i].end);
    tb_bytes(&set, rs.data, rs.len);
    set.len -= mce[i].cut;
    decode_seed(mce[i].name, ALL, &set);
  }

  /* Logon and logoff (D4R1, D4R2) as z/VM writes them in the user
   * domain's event data: a logon before the guest's D4R10; a logoff of a
   * 3-CPU guest, one D4R2 per VMDBK within microseconds; a guest whose
   * logon came before the reader started; a logon and logoff again. */
  tb_reset(&rs);
  session(&rs, 1, "LINUX07", 0, 1000000);
  useite_vmdbk(&rs, "LINUX07", 0, 1, 2000000);
  for (uint16_t v = 0; v < 3; v++)
    session(&rs, 0, "LINUX07", v, 3000000 + v);
  session(&rs, 0, "LINUX08", 1, 3500000);
  session(&rs, 1, "LINUX07", 0, 10000000);
  useite_vmdbk(&rs, "LINUX07", 0, 1, 11000000);
  session(&rs, 0, "LINUX07", 0, 20000000);
  one_set("d4r1-d4r2-logon-logoff", ALL, EVENT, TB_DOM(4), &rs);

  /* Two logoffs of one guest with no logon seen between them (the logon
   * was lost): 5 s apart, and a D4R2 stamped before the last logoff. */
  tb_reset(&rs);
  session(&rs, 0, "TCPIP", 0, 1000000);
  session(&rs, 0, "TCPIP", 0, 6000000);
  session(&rs, 0, "TCPIP", 0, 5000000);
  one_set("d4r2-logoffs-apart", ALL, EVENT, TB_DOM(4), &rs);

  /* A virtual MP guest (one D4R10 per VMDBK: the base one first, then two
   * more, then the base again), then its logoff in the same interval. */
  tb_reset(&rs);
  useite_vmdbk(&rs, "LINUXMP", 0, 1, 1000000);
  useite_vmdbk(&rs, "LINUXMP", 1, 0, 1000010);
  useite_vmdbk(&rs, "LINUXMP", 2, 0, 1000020);
  useite_vmdbk(&rs, "LINUXMP", 0, 1, 1000030);
  useite_vmdbk(&rs, "LINUX01", 0, 1, 1000040);
  one_set("d4r10-mp-guest", ALL, EVENT, TB_DOM(4), &rs);
  for (uint16_t v = 0; v < 3; v++)
    session(&rs, 0, "LINUXMP", v, 2000000 + v);
  one_set("d4r10-mp-guest-logoff", ALL, EVENT, TB_DOM(4), &rs);

  tb_reset(&set);
  decode_seed("empty", ALL, &set);
  tb_free(&rs);
  tb_free(&rs2);
  tb_free(&set);
}

static void ebcdic_seed(const char *name, uint8_t out_size, const char *ascii,
                        size_t width) {
  struct tb b;
  tb_init(&b);
  tb_ebcdic(&b, ascii, width);
  names_seed(name, out_size, b.data, b.len);
  tb_free(&b);
}

static void names_seeds(void) {
  ebcdic_seed("userid-linux07", 25, "LINUX07", 8);
  ebcdic_seed("userid-tight", 8, "LINUX07", 8);
  ebcdic_seed("userid-safe", 25, "A@#$_-+9", 8);
  ebcdic_seed("userid-escaped", 25, "a/b.c:", 8);
  ebcdic_seed("userid-blank", 25, "", 8);
  static const uint8_t raw[] = {0xD3, 0x00, 0x15, 0xFF, 0x40, 0x40, 0x00, 0x00};
  names_seed("userid-raw", 11, raw, sizeof(raw));
  static const char *const domains[] = {
      "user", "i/o", "virtual_network", "PROCESSOR", "15", "16", "004"};
  for (size_t i = 0; i < sizeof(domains) / sizeof(domains[0]); i++) {
    char name[64];
    snprintf(name, sizeof(name), "domain-%zu", i);
    names_seed(name, (uint8_t)i, domains[i], strlen(domains[i]));
  }
}

/* fuzz_reader input: 2-byte max_set_size, then fake device ops (see
 * tests/fuzz/fuzz_reader.c). */
enum {
  DATA,
  END,
  AGAIN,
  EIO_,
  EFAULT_,
  EOVERFLOW_,
  EINTR_,
  SEVER,
  OPENFAIL,
  CLOCK
};

static void op(struct tb *b, int code, int arg) {
  tb_u8(b, (uint8_t)(arg << 4 | code));
}

/* One read()'s worth of bytes per DATA op (at most 256). */
static void data(struct tb *b, const uint8_t *p, size_t n) {
  while (n > 0) {
    size_t k = n > 256 ? 256 : n;
    op(b, DATA, 0);
    tb_u8(b, (uint8_t)(k - 1));
    tb_bytes(b, p, k);
    p += k;
    n -= k;
  }
}

/* A data set as the driver hands it out: the MCE, then the records. */
static void data_set(struct tb *b, const struct tb *set) {
  data(b, set->data, ZVM_MCE_BYTES);
  data(b, set->data + ZVM_MCE_BYTES, set->len - ZVM_MCE_BYTES);
}

static void reader_seeds(void) {
  struct tb rs, set, small, in;
  tb_init(&rs);
  tb_init(&set);
  tb_init(&small);
  tb_init(&in);
  useite(&rs, "LINUX07", 200);
  tb_record_set(&set, EVENT, 0x0800, DCSS + 0x40, &rs);
  tb_reset(&rs);
  tb_record(&rs, 20, 1, 11, TOD);
  tb_record_set(&small, SAMPLE, 0x4000, DCSS, &rs);

  tb_u16(&in, 0);
  data_set(&in, &set);
  op(&in, END, 0);
  op(&in, AGAIN, 0);
  write_file("reader", "one-set", in.data, in.len);

  tb_reset(&in);
  tb_u16(&in, 0);
  data(&in, set.data, 100);
  op(&in, AGAIN, 0); /* the rest comes in the next read callback */
  data(&in, set.data + 100, set.len - 100);
  op(&in, END, 0);
  data_set(&in, &small);
  op(&in, END, 0);
  op(&in, AGAIN, 0);
  write_file("reader", "split-across-callbacks", in.data, in.len);

  tb_reset(&in);
  tb_u16(&in, 0);
  data(&in, set.data, 50);
  op(&in, EIO_, 0);
  data_set(&in, &set);
  op(&in, END, 0);
  data(&in, set.data, 30);
  op(&in, EFAULT_, 0);
  op(&in, END, 0);
  data_set(&in, &small);
  op(&in, EOVERFLOW_, 0);
  data_set(&in, &small);
  op(&in, END, 0);
  op(&in, EINTR_, 0);
  data_set(&in, &small);
  op(&in, END, 0);
  write_file("reader", "errors", in.data, in.len);

  tb_reset(&in);
  tb_u16(&in, 0);
  data(&in, set.data, 12);
  op(&in, SEVER, 0);
  op(&in, AGAIN, 0);
  op(&in, OPENFAIL, 1); /* EBUSY */
  op(&in, CLOCK, 3);
  op(&in, AGAIN, 0);
  data_set(&in, &set);
  op(&in, END, 0);
  write_file("reader", "sever-reopen", in.data, in.len);

  tb_reset(&in);
  tb_u16(&in, 100); /* max_set_size */
  data_set(&in, &set);
  op(&in, END, 0);
  data_set(&in, &small);
  op(&in, END, 0);
  op(&in, END, 0); /* an empty set */
  write_file("reader", "oversize-and-empty", in.data, in.len);

  tb_free(&rs);
  tb_free(&set);
  tb_free(&small);
  tb_free(&in);
}

/* fuzz_appldata input: 1-byte name buffer size, then one D10R2 record:
 * APHDR (52 bytes: 20 CALDATOF, 22 CALDATLN, 24 USERID, 32 product ID)
 * and a data area shaped like each published layout. */
static void apl_seed(const char *name, uint8_t out_size, const uint8_t *prod,
                     const struct tb *data) {
  struct tb in;
  tb_init(&in);
  tb_u8(&in, out_size);
  tb_appldata(&in, 2, TOD, "LNXWEB1", prod, data->data, data->len);
  write_file("appldata", name, in.data, in.len);
  tb_free(&in);
}

static void apl_str(struct tb *d, const char *s) {
  tb_u16(d, (uint16_t)strlen(s));
  tb_bytes(d, s, strlen(s));
}

static void appldata_seeds(void) {
  uint8_t prod[16];
  struct tb d;
  tb_init(&d);
  /* kernel mem (144 bytes), net_sum (96), os with 2 x 36-byte CPUs */
  tb_u64(&d, TOD);
  tb_u32(&d, 5);
  tb_u32(&d, 5);
  for (int i = 0; i < 16; i++)
    tb_u64(&d, 1000u * (unsigned)(i + 1));
  tb_apl_kernel_product(prod, 1, "00");
  apl_seed("mem", 64, prod, &d);
  tb_put_u32(&d, 12, 6);
  apl_seed("mem-torn", 64, prod, &d);
  tb_apl_kernel_product(prod, 4, "00");
  apl_seed("unknown-record", 64, prod, &d);
  d.len = 96;
  tb_put_u32(&d, 12, 5);
  tb_apl_kernel_product(prod, 3, "00");
  apl_seed("net_sum", 64, prod, &d);
  d.len = 16;
  tb_u32(&d, 2);  /* nr_cpus */
  tb_u32(&d, 36); /* per_cpu_size */
  tb_u32(&d, 52); /* cpu_offset */
  for (int i = 0; i < 6; i++)
    tb_u32(&d, 2048u * (unsigned)(i + 1));
  for (uint32_t c = 0; c < 2; c++) {
    for (int f = 0; f < 8; f++)
      tb_u32(&d, 100u * c + (unsigned)f);
    tb_u32(&d, c);
  }
  tb_apl_kernel_product(prod, 2, "01");
  apl_seed("os", 64, prod, &d);
  /* mon_fsstatd: header, three strings, statvfs */
  tb_reset(&d);
  tb_u64(&d, 1700000000);
  tb_u16(&d, 6 + 9 + 9 + 4 + 72);
  tb_u16(&d, 12);
  apl_str(&d, "/dev/dasd");
  apl_str(&d, "/var/a b/");
  apl_str(&d, "ext4");
  for (int i = 0; i < 9; i++)
    tb_u64(&d, 4096u * (unsigned)(9 - i));
  tb_apl_tool_product(prod, 1, 0, 0);
  apl_seed("fsstat", 0x80 | 20, prod, &d);
  apl_seed("fsstat-all-kinds", 0x40 | 20, prod, &d);
  /* mon_procd summary (166 bytes) and one task */
  tb_reset(&d);
  tb_u64(&d, 1700000000);
  tb_u16(&d, 166);
  tb_u16(&d, 12);
  tb_u64(&d, 3600);
  tb_u32(&d, 2);
  tb_bytes(&d,
           "0.15\0\0"
           "1.00\0\0"
           "12.34\0",
           18);
  for (int i = 0; i < 136; i++)
    tb_u8(&d, (uint8_t)i);
  tb_apl_tool_product(prod, 2, 0, 0);
  apl_seed("procd-sum", 64, prod, &d);
  tb_reset(&d);
  tb_u64(&d, 1700000000);
  /* task_t, then six strings (a 2-byte length each): "root" three times,
   * "-", "httpd", "httpd -X" */
  tb_u16(&d, 111 + 6 * 2 + 4 + 4 + 4 + 1 + 5 + 8);
  tb_u16(&d, 12);
  for (int i = 0; i < 111; i++)
    tb_u8(&d, (uint8_t)(i * 7));
  apl_str(&d, "root");
  apl_str(&d, "root");
  apl_str(&d, "root");
  apl_str(&d, "-");
  apl_str(&d, "httpd");
  apl_str(&d, "httpd -X");
  tb_apl_tool_product(prod, 2, 1, 0);
  apl_seed("procd-task", 40, prod, &d);
  /* X'40': through the mapper with every kind (procd_task is not
   * dispatched by default) and ApplDataNaming zvm_monitor */
  apl_seed("procd-task-all-kinds", 0x40 | 40, prod, &d);
  tb_free(&d);
}

/* fuzz_records input: 2-byte text length, collectd.conf text, data set. */
static void records_seed(const char *name, const char *text,
                         const struct tb *set) {
  struct tb in;
  tb_init(&in);
  tb_u16(&in, (uint16_t)strlen(text));
  tb_bytes(&in, text, strlen(text));
  if (set != NULL)
    tb_bytes(&in, set->data, set->len);
  write_file("records", name, in.data, in.len);
  tb_free(&in);
}

static void records_seeds(void) {
  /* D0R2 as IBM's z/VM 6.4 page lays it out, and records of it: a full
   * one, one that ends inside PFXUTIME, one that ends inside the key. */
  static const char d0r2[] =
      "<Record \"0/2\">\n Name \"prp\"\n Replace true\n"
      " InstancePrefix \"cpu\"\n"
      " <Field \"pfxcpuad\">\n  Offset 20\n  Length 2\n"
      "  Type \"unsigned\"\n  Kind \"instance\"\n </Field>\n"
      " <Field \"plscuhaf\">\n  Offset 22\n  Length 2\n"
      "  Type \"unsigned\"\n  Kind \"counter\"\n </Field>\n"
      " <Field \"pfxprbtm\">\n  Offset 24\n  Length 8\n"
      "  Type \"cputimer\"\n  Kind \"counter\"\n  CountsDown true\n"
      " </Field>\n"
      " <Field \"pfxutime\">\n  Offset 32\n  Length 8\n"
      "  Type \"cputimer\"\n  Kind \"counter\"\n </Field>\n"
      "</Record>\n";
  /* Arrays, gauges, TOD, two keys (EBCDIC and number), scale, a signed
   * field; replaces D4R10. */
  static const char d4r10[] =
      "# comment\n<Record \"4/10\">\n Name \"use\"\n Replace true\n"
      " <Field \"user\">\n  Offset 20\n  Length 8\n"
      "  Type \"ebcdic\"\n  Kind \"instance\"\n </Field>\n"
      " <Field \"cpu\">\n  Offset 28\n  Length 2\n"
      "  Type \"unsigned\"\n  Kind \"instance\"\n </Field>\n"
      " <Field \"slcnt\">\n  Offset 30\n  Length 2\n"
      "  Type \"signed\"\n  Kind \"gauge\"\n  Scale 0.5\n </Field>\n"
      " <Field \"hf\">\n  Offset 48\n  Length 4\n  Count 23\n"
      "  Type \"unsigned\"\n  Kind \"counter\"\n </Field>\n"
      " <Field \"q\">\n  Offset 152\n  Length 2\n  Count 16\n"
      "  Type \"unsigned\"\n  Kind \"counter\"\n </Field>\n"
      " <Field \"stamp\">\n  Offset 184\n  Length 8\n"
      "  Type \"tod\"\n  Kind \"gauge\"\n </Field>\n"
      "</Record>\n";
  struct tb rs, set;
  tb_init(&rs);
  static const uint16_t lens[] = {352, 36, 21};
  for (unsigned i = 0; i < 3; i++) {
    size_t r = tb_record(&rs, lens[i], 0, 2, TOD);
    for (size_t off = 20; off < lens[i]; off++)
      tb_put_u8(&rs, r + off, (uint8_t)(off * 5 + 3));
    if (lens[i] >= 22)
      tb_put_u16(&rs, r + 20, (uint16_t)i);
    if (lens[i] >= 32)
      tb_put_u64(&rs, r + 24, UINT64_C(0x7FFFFFFF00000000) - (i << 20));
  }
  tb_init(&set);
  tb_record_set(&set, SAMPLE, TB_DOM(0), DCSS + 0x40, &rs);
  records_seed("d0r2", d0r2, &set);
  tb_free(&set);
  tb_free(&rs);

  tb_init(&rs);
  useite(&rs, "LINUX001", 200);
  useite(&rs, "LINUX002", 100);
  useite(&rs, "LIN X003", 200); /* a blank inside: %40 */
  tb_init(&set);
  tb_record_set(&set, EVENT, TB_DOM(4), DCSS + 0x40, &rs);
  records_seed("d4r10-arrays-keys", d4r10, &set);
  records_seed("d4r10-userid",
               "<Record \"4/10\">\n Name \"use\"\n Replace true\n"
               " <Field \"user\">\n  Offset 20\n  Length 8\n"
               "  Type \"userid\"\n  Kind \"instance\"\n </Field>\n"
               " <Field \"hfcpurn\">\n  Offset 116\n  Length 4\n"
               "  Type \"unsigned\"\n  Kind \"counter\"\n </Field>\n"
               "</Record>\n",
               &set);
  tb_free(&set);
  tb_free(&rs);

  /* Logon and logoff with the built-in tables, and with D4R10 replaced by
   * a <Record> block (a logon restarts the guest's D4R10 state). */
  tb_init(&rs);
  session(&rs, 1, "LINUX001", 0, 1000000);
  useite(&rs, "LINUX001", 200);
  session(&rs, 0, "LINUX001", 0, 3000000);
  session(&rs, 0, "LINUX001", 1, 3000001);
  session(&rs, 1, "LINUX002", 0, 4000000);
  tb_init(&set);
  tb_record_set(&set, EVENT, TB_DOM(4), DCSS + 0x40, &rs);
  records_seed("d4r1-d4r2-builtin", "", &set);
  records_seed("d4r1-d4r2-user-d4r10", d4r10, &set);
  tb_free(&set);
  tb_free(&rs);

  /* D4R10 summed per guest by a <Record> block (Kind processor and base,
   * the record count, ElementPrefix, named bits), a guest of two VMDBKs
   * (one skipping a transaction) and a logon that restarts it; then
   * a record of more data sources than a value list holds (one value
   * per list) with a hexadecimal instance. */
  tb_init(&rs);
  useite_vmdbk(&rs, "LINUX001", 0, 1, 1);
  useite_vmdbk(&rs, "LINUX001", 1, 0, 2);
  useite_vmdbk(&rs, "LINUX001", 0, 1, 3);
  session(&rs, 1, "LINUX001", 0, 4);
  useite_vmdbk(&rs, "LINUX001", 1, 0, 5);
  tb_init(&set);
  tb_record_set(&set, EVENT, TB_DOM(4), DCSS + 0x40, &rs);
  records_seed("d4r10-per-vmdbk",
               "<Record \"4/10\">\n Name \"use\"\n Replace true\n"
               " <Field \"n\">\n  Type \"records\"\n  Kind \"counter\"\n"
               " </Field>\n"
               " <Field \"user\">\n  Offset 20\n  Length 8\n"
               "  Type \"userid\"\n  Kind \"instance\"\n </Field>\n"
               " <Field \"cpu\">\n  Offset 28\n  Length 2\n"
               "  Type \"unsigned\"\n  Kind \"processor\"\n </Field>\n"
               " <Field \"base\">\n  Offset 47\n  Length 1\n  Mask 128\n"
               "  Type \"unsigned\"\n  Kind \"base\"\n </Field>\n"
               " <Field \"disc\">\n  Offset 149\n  Length 1\n  Mask 8\n"
               "  Type \"unsigned\"\n  Kind \"gauge\"\n </Field>\n"
               " <Field \"sys\">\n  Offset 149\n  Length 1\n  Mask 128\n"
               "  Type \"unsigned\"\n  Kind \"gauge\"\n </Field>\n"
               " <Field \"q\">\n  Offset 152\n  Length 2\n  Count 4\n"
               "  ElementPrefix \"_q\"\n"
               "  Type \"unsigned\"\n  Kind \"counter\"\n </Field>\n"
               "</Record>\n",
               &set);
  tb_free(&set);
  {
    static char many[16384];
    size_t n = (size_t)snprintf(many, sizeof(many),
                                "<Record \"4/10\">\n Name \"use\"\n"
                                " Replace true\n InstancePrefix \"cpu\"\n"
                                " <Field \"cpu\">\n  Offset 28\n  Length 2\n"
                                "  Format \"hex\"\n"
                                "  Type \"unsigned\"\n  Kind \"instance\"\n"
                                " </Field>\n");
    for (unsigned i = 0; i < 70; i++)
      n += (size_t)snprintf(many + n, sizeof(many) - n,
                            " <Field \"b%u\">\n  Offset %u\n  Length 1\n"
                            "  Type \"unsigned\"\n  Kind \"counter\"\n"
                            " </Field>\n",
                            i, 48 + i);
    snprintf(many + n, sizeof(many) - n, "</Record>\n");
    tb_init(&set);
    tb_record_set(&set, EVENT, TB_DOM(4), DCSS + 0x40, &rs);
    records_seed("d4r10-one-value-per-list-hex", many, &set);
    tb_free(&set);
  }
  tb_free(&rs);

  /* Mistakes a user makes in <Record> blocks (each refused with its own
   * one-line reason), around IBM's D0R2 layout as above. */
#define PFXCPUAD_KEY                                                           \
  " <Field \"pfxcpuad\">\n  Offset 20\n  Length 2\n  Type \"unsigned\"\n"      \
  "  Kind \"instance\"\n </Field>\n"
#define PLSCUHAF                                                               \
  " <Field \"plscuhaf\">\n  Offset 22\n  Length 2\n  Type \"unsigned\"\n"      \
  "  Kind \"counter\"\n </Field>\n"
  static const struct {
    const char *name, *text;
  } mistakes[] = {
      {"error-defined-twice",
       "<Record \"0/2\">\n Name \"prp\"\n Replace true\n" PLSCUHAF
       "</Record>\n<Record \"0/2\">\n Name \"prp2\"\n Replace true\n" PLSCUHAF
       "</Record>\n"},
      {"error-builtin-without-replace",
       "<Record \"0/2\">\n Name \"prp\"\n" PLSCUHAF "</Record>\n"},
      {"error-replace-not-builtin",
       "<Record \"0/9\">\n Name \"x\"\n Replace true\n" PLSCUHAF "</Record>\n"},
      {"error-record-the-plugin-needs",
       "<Record \"1/13\">\n Name \"eof\"\n Replace true\n" PLSCUHAF
       "</Record>\n"},
      {"error-builtin-type-name",
       "<Record \"0/9\">\n Name \"useite\"\n" PLSCUHAF "</Record>\n"},
      {"error-same-name-twice",
       "<Record \"0/8\">\n Name \"x\"\n" PLSCUHAF
       "</Record>\n<Record \"0/9\">\n Name \"x\"\n" PLSCUHAF "</Record>\n"},
      {"error-no-name", "<Record \"0/9\">\n" PLSCUHAF "</Record>\n"},
      {"error-nothing-to-dispatch",
       "<Record \"0/9\">\n Name \"x\"\n" PFXCPUAD_KEY "</Record>\n"},
      {"error-prefix-without-instance",
       "<Record \"0/9\">\n Name \"x\"\n InstancePrefix \"cpu\"\n" PLSCUHAF
       "</Record>\n"},
      {"error-fields-overlap",
       "<Record \"0/9\">\n Name \"x\"\n" PLSCUHAF
       " <Field \"pfxprbtm\">\n  Offset 21\n  Length 8\n"
       "  Type \"cputimer\"\n  Kind \"counter\"\n </Field>\n</Record>\n"},
      {"error-tod-as-counter",
       "<Record \"0/9\">\n Name \"x\"\n <Field \"stamp\">\n  Offset 24\n"
       "  Length 8\n  Type \"tod\"\n  Kind \"counter\"\n </Field>\n"
       "</Record>\n"},
      {"error-text-as-gauge",
       "<Record \"0/9\">\n Name \"x\"\n <Field \"user\">\n  Offset 20\n"
       "  Length 8\n  Type \"ebcdic\"\n  Kind \"gauge\"\n </Field>\n"
       "</Record>\n"},
      {"error-countsdown-4-bytes",
       "<Record \"0/9\">\n Name \"x\"\n <Field \"down\">\n  Offset 24\n"
       "  Length 4\n  Type \"unsigned\"\n  Kind \"counter\"\n"
       "  CountsDown true\n </Field>\n</Record>\n"},
      {"error-countsdown-gauge",
       "<Record \"0/9\">\n Name \"x\"\n <Field \"down\">\n  Offset 24\n"
       "  Length 8\n  Type \"cputimer\"\n  Kind \"gauge\"\n"
       "  CountsDown true\n </Field>\n</Record>\n"},
      {"error-instance-with-count",
       "<Record \"0/9\">\n Name \"x\"\n" PLSCUHAF
       " <Field \"cpu\">\n  Offset 24\n  Length 2\n  Count 4\n"
       "  Type \"unsigned\"\n  Kind \"instance\"\n </Field>\n</Record>\n"},
      {"error-userid-and-another-key",
       "<Record \"4/9\">\n Name \"x\"\n" PFXCPUAD_KEY
       " <Field \"user\">\n  Offset 24\n  Length 8\n  Type \"userid\"\n"
       "  Kind \"instance\"\n </Field>\n" PLSCUHAF "</Record>\n"},
      {"error-past-largest-record",
       "<Record \"0/9\">\n Name \"x\"\n <Field \"q\">\n  Offset 4000\n"
       "  Length 4\n  Count 30\n  Type \"unsigned\"\n  Kind \"counter\"\n"
       " </Field>\n</Record>\n"},
      {"error-scale-zero",
       "<Record \"0/9\">\n Name \"x\"\n <Field \"g\">\n  Offset 24\n"
       "  Length 4\n  Type \"unsigned\"\n  Kind \"gauge\"\n  Scale 0\n"
       " </Field>\n</Record>\n"},
      {"error-field-outside-record",
       PLSCUHAF "<Record \"0/9\">\n Name \"x\"\n</Record>\n"},
      {"error-field-in-field",
       "<Record \"0/9\">\n Name \"x\"\n <Field \"a\">\n" PLSCUHAF
       " </Field>\n</Record>\n"},
      {"error-bad-field-name",
       "<Record \"0/9\">\n Name \"x\"\n <Field \"9lives\">\n  Offset 24\n"
       "  Length 4\n  Type \"unsigned\"\n  Kind \"counter\"\n </Field>\n"
       "</Record>\n"},
      {"error-array-name-too-long",
       "<Record \"0/9\">\n Name \"x\"\n"
       " <Field \"abcdefghijklmnopq\">\n  Offset 24\n  Length 4\n"
       "  Count 12\n  Type \"unsigned\"\n  Kind \"counter\"\n </Field>\n"
       "</Record>\n"},
      {"error-array-meets-field",
       "<Record \"0/9\">\n Name \"x\"\n <Field \"q_1\">\n  Offset 20\n"
       "  Length 4\n  Type \"unsigned\"\n  Kind \"counter\"\n </Field>\n"
       " <Field \"q\">\n  Offset 24\n  Length 4\n  Count 3\n"
       "  Type \"unsigned\"\n  Kind \"counter\"\n </Field>\n</Record>\n"},
      {"error-record-id",
       "<Record \"16/1\">\n Name \"x\"\n" PLSCUHAF "</Record>\n"},
  };
#undef PFXCPUAD_KEY
#undef PLSCUHAF
  for (size_t i = 0; i < sizeof(mistakes) / sizeof(mistakes[0]); i++)
    records_seed(mistakes[i].name, mistakes[i].text, NULL);

  records_seed("error-offset-in-header",
               "<Record \"0/9\">\nName \"x\"\n<Field \"a\">\nOffset 8\n"
               "</Field>\n</Record>\n",
               NULL);
  records_seed("error-unclosed", "<Record \"0/9\">\nName \"x\"\n", NULL);

  /* D5R21 replaced by the block zvm-monitor-record writes from IBM's
   * z/VM V6R4.0 MRPRCSMT page (the built-in's names): InstanceName, the
   * PRCSMT_CPUTINFO <Array> per CPU type, X'FF' as MAX and its flags, the
   * INITIAL bit; records with good, short and bad arrays. */
#define F1(name, off, len, more)                                               \
  " <Field \"" name "\">\n  Offset " #off "\n  Length " #len                   \
  "\n  Type \"unsigned\"\n" more " </Field>\n"
#define NAN_THREADS                                                            \
  "  Kind \"gauge\"\n  AllOnes \"nan\"\n  OneValueType \"threads\"\n"
#define MAX_FLAG                                                               \
  "  Kind \"gauge\"\n  AllOnes \"flag\"\n  OneValueType \"bool\"\n"
#define LAYOUT "  Kind \"layout\"\n"
  static const char d5r21[] =
      "<Record \"5/21\">\n Name \"prcsmt\"\n Replace true\n"
      " InstanceName \"system\"\n" F1(
          "mt_config_seq", 20, 4,
          "  Kind \"gauge\"\n") F1("mt_max_threads", 25, 1,
                                   "  Kind \"gauge\"\n") F1("statement_all", 26,
                                                            1, NAN_THREADS)
          F1("set_all", 27, 1, NAN_THREADS) F1(
              "set_initial", 28, 1,
              "  Kind \"gauge\"\n  Mask 128\n  OneValueType \"bool\"\n")
              F1("cal_cputacnt", 29, 1, LAYOUT) F1("cal_cputaesz", 30, 2,
                                                   LAYOUT) F1("cal_cputaoff",
                                                              32, 2, LAYOUT)
                  F1("statement_all_is_max", 26, 1, MAX_FLAG) F1(
                      "set_all_is_max", 27, 1,
                      MAX_FLAG) " <Array \"cputinfo\">\n Name \"prcsmt_cpu\"\n"
                                " CountField \"cal_cputacnt\"\n SizeField "
                                "\"cal_cputaesz\"\n"
                                " OffsetField \"cal_cputaoff\"\n" F1(
                                    "cputype", 0, 1,
                                    "  Kind \"instance\"\n"
                                    "  Format \"cputype\"\n") F1("statement", 1,
                                                                 1, NAN_THREADS)
                                    F1("activated", 4, 1, NAN_THREADS)
                                        F1("requested", 6, 1, NAN_THREADS) F1(
                                            "requested_is_max", 6, 1,
                                            MAX_FLAG) " </Array>\n</Record>\n";
  tb_init(&rs);
  prcsmt(&rs, 0x80, 5, 8, 36, 76);
  prcsmt(&rs, 0x40, 5, 12, 40, 100); /* longer entries further out */
  prcsmt(&rs, 0x40, 2, 4, 36, 44);   /* entries shorter than the fields */
  prcsmt(&rs, 0x40, 3, 8, 36, 52);   /* 3 entries do not fit in 52 bytes */
  prcsmt(&rs, 0x40, 1, 8, 8, 44);    /* array inside the header */
  tb_init(&set);
  tb_record_set(&set, EVENT, TB_DOM(5), DCSS + 0x40, &rs);
  records_seed("d5r21-array-max-flags", d5r21, &set);
  tb_free(&set);
  tb_free(&rs);
  records_seed(
      "error-array-without-key",
      "<Record \"0/9\">\n Name \"x\"\n" F1("c", 24, 4, "  Kind \"counter\"\n")
          F1("n", 28, 1, LAYOUT) F1("s", 30, 2, LAYOUT)
              F1("o", 32, 2,
                 LAYOUT) " <Array \"a\">\n Name \"y\"\n CountField \"n\"\n"
                         " SizeField \"s\"\n OffsetField \"o\"\n" F1(
                             "g", 1, 1,
                             "  Kind \"gauge\"\n") " </Array>\n</Record>\n",
      NULL);
  records_seed(
      "error-layout-unused",
      "<Record \"0/9\">\n Name \"x\"\n" F1("c", 24, 4, "  Kind \"counter\"\n")
          F1("n", 28, 1, LAYOUT) "</Record>\n",
      NULL);
  records_seed(
      "error-allones-counter",
      "<Record \"0/9\">\n Name \"x\"\n" F1("c", 24, 1,
                                           "  Kind \"counter\"\n"
                                           "  AllOnes \"nan\"\n") "</Record>\n",
      NULL);
#undef F1
#undef NAN_THREADS
#undef MAX_FLAG
#undef LAYOUT
}

/* fuzz_dmstats_print input: flags (bit 0 precise_timestamps, bits 1-5 the
 * histogram's bins), the region's number of areas, then the answer to
 * @stats_print as Linux drivers/md/dm-stats.c, dm_stats_print(), prints it:
 * the same format string, per area. */
struct dm_area {
  unsigned long long start, len, c[13];
  int in_flight; /* counter 9, printed "%d" */
  unsigned long long hist[4];
};

static void dmstats_print_seed(const char *name, int precise, int nr_bins,
                               unsigned areas, const struct dm_area *a,
                               unsigned lines) {
  char text[2048];
  size_t used = 0;
  text[0] = (char)((precise ? 1 : 0) | nr_bins << 1);
  text[1] = (char)areas;
  used = 2;
  for (unsigned i = 0; i < lines; i++, a++) {
    used += (size_t)snprintf(
        text + used, sizeof(text) - used,
        "%llu+%llu %llu %llu %llu %llu %llu %llu %llu %llu %d %llu %llu %llu "
        "%llu",
        a->start, a->len, a->c[0], a->c[1], a->c[2], a->c[3], a->c[4], a->c[5],
        a->c[6], a->c[7], a->in_flight, a->c[9], a->c[10], a->c[11], a->c[12]);
    for (int b = 0; b < nr_bins; b++)
      used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%llu",
                               b == 0 ? " " : ":", a->hist[b]);
    used += (size_t)snprintf(text + used, sizeof(text) - used, "\n");
  }
  write_file("dmstats_print", name, text, used);
}

static void dmstats_print_seeds(void) {
  /* "@stats_create - /4" on a 8192-sector device: 4 areas of 2048 sectors;
   * reads and writes in the first two, one I/O in flight. */
  static const struct dm_area whole[] = {
      {0, 2048, {1, 0, 8, 4, 36, 12, 4096, 120, 0, 128, 124, 4, 120}, 1, {0}},
      {2048, 2048, {310, 2, 2480, 52, 3, 0, 24, 8, 0, 60, 60, 52, 8}, 0, {0}},
      {4096, 2048, {0}, 0, {0}},
      {6144, 2048, {0}, 0, {0}},
  };
  dmstats_print_seed("whole-device-4-areas", 0, 0, 4, whole, 4);
  /* "@stats_print 0 2 1": the third line only */
  dmstats_print_seed("one-line", 0, 0, 4, whole + 2, 1);
  /* "@stats_print 0 9 1" (past the last area): an empty answer */
  dmstats_print_seed("empty", 0, 0, 4, whole, 0);
  /* a step that does not divide the range: the last area is shorter */
  static const struct dm_area ragged[] = {
      {0, 4096, {17, 1, 136, 9, 2, 0, 16, 1, 0, 10, 10, 9, 1}, 0, {0}},
      {4096, 4096, {5, 0, 40, 2, 0, 0, 0, 0, 0, 2, 2, 2, 0}, 0, {0}},
      {8192, 1808, {1, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, {0}},
  };
  dmstats_print_seed("last-area-shorter", 0, 0, 3, ragged, 3);
  /* "histogram:1,5": boundaries 1 ms and 5 ms, 3 bins */
  static const struct dm_area hist[] = {
      {0, 1024, {9, 0, 72, 3, 2, 0, 16, 7, 0, 9, 10, 3, 7}, 0, {8, 2, 1}},
      {1024, 1024, {0}, 0, {0, 0, 0}},
  };
  dmstats_print_seed("histogram-3-bins", 0, 3, 2, hist, 2);
  /* the same answer for a caller that asked for no histogram */
  dmstats_print_seed("histogram-not-asked-for", 0, 0, 2, hist, 2);
  /* precise_timestamps: times in ns, large */
  static const struct dm_area precise[] = {
      {0,
       65536,
       {123456, 789, 987648, 40123456789ULL, 23456, 12, 187648, 9876543210ULL,
        0, 51234567890ULL, 50000000000ULL, 40123456789ULL, 9876543210ULL},
       4,
       {0}},
  };
  dmstats_print_seed("precise-timestamps", 1, 0, 1, precise, 1);
  /* counters at the top of their range */
  static const struct dm_area top[] = {
      {18446744073709549568ULL,
       2048,
       {18446744073709551615ULL, 18446744073709551615ULL,
        18446744073709551615ULL, 18446744073709, 0, 0, 0, 0, 0, 0, 0, 0, 0},
       2147483647,
       {0}},
  };
  dmstats_print_seed("largest-values", 0, 0, 1, top, 1);
}

/* fuzz_uevent input: flags (bits 0-2 the file type, 0 a character device,
 * 1 a regular file, 5 a block device; bit 3 no uevent, bit 4 no misc dev
 * text), major and minor (4 bytes each), the reason buffer's size - 1, the
 * uevent text's length (2 bytes), the uevent text as Linux
 * drivers/base/core.c dev_uevent() writes it, then the text of
 * /sys/class/misc/monreader/dev (print_dev_t(): "MAJOR:MINOR\n"). */
static void uevent_seed(const char *name, uint8_t flags, uint32_t maj,
                        uint32_t min, uint8_t why_size, const char *uevent,
                        const char *misc) {
  struct tb in;
  tb_init(&in);
  tb_u8(&in, flags);
  tb_u32(&in, maj);
  tb_u32(&in, min);
  tb_u8(&in, (uint8_t)(why_size - 1));
  tb_u16(&in, (uint16_t)strlen(uevent));
  tb_bytes(&in, uevent, strlen(uevent));
  tb_bytes(&in, misc, strlen(misc));
  write_file("uevent", name, in.data, in.len);
  tb_free(&in);
}

static void uevent_seeds(void) {
  enum { CHR = 0, REG = 1, BLK = 5, NO_UEVENT = 8, NO_MISC = 16 };
  /* monreader is a misc device (major 10) with a dynamic minor */
  uevent_seed("monreader", CHR, 10, 61, 160,
              "MAJOR=10\nMINOR=61\nDEVNAME=monreader\n", "10:61\n");
  uevent_seed("dev-null", CHR, 1, 3, 160,
              "MAJOR=1\nMINOR=3\nDEVNAME=null\nDEVMODE=0666\n", "10:61\n");
  uevent_seed("tty1-short-reason", CHR, 4, 1, 24,
              "MAJOR=4\nMINOR=1\nDEVNAME=tty1\n", "10:61\n");
  uevent_seed("other-misc-device", CHR, 10, 229, 160,
              "MAJOR=10\nMINOR=229\nDEVNAME=fuse\n", "10:61\n");
  uevent_seed("input-subdirectory", CHR, 13, 64, 160,
              "MAJOR=13\nMINOR=64\nDEVNAME=input/event0\n", "");
  uevent_seed("no-devname", CHR, 10, 61, 160, "MAJOR=10\nMINOR=61\n", "");
  uevent_seed("misc-dev-same", CHR | NO_UEVENT, 10, 61, 160, "", "10:61\n");
  uevent_seed("misc-dev-other", CHR | NO_UEVENT, 1, 5, 160, "", "10:61\n");
  uevent_seed("sysfs-unreadable", CHR | NO_UEVENT | NO_MISC, 10, 61, 160, "",
              "");
  uevent_seed("regular-file", REG | NO_UEVENT | NO_MISC, 0, 0, 160, "", "");
  uevent_seed("block-device", BLK, 8, 0, 160,
              "MAJOR=8\nMINOR=0\nDEVNAME=sda\nDEVTYPE=disk\nDISKSEQ=9\n",
              "10:61\n");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  outdir = argv[1];
  decode_seeds();
  names_seeds();
  reader_seeds();
  records_seeds();
  appldata_seeds();
  dmstats_print_seeds();
  uevent_seeds();
  return 0;
}
