/* SPDX-License-Identifier: MIT */
#include "builder.h"

#include <stdlib.h>
#include <string.h>

static void grow(struct tb *b, size_t extra) {
  if (b->len + extra <= b->cap)
    return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra)
    cap *= 2;
  uint8_t *p = realloc(b->data, cap);
  if (p == NULL)
    abort();
  b->data = p;
  b->cap = cap;
}

void tb_init(struct tb *b) { memset(b, 0, sizeof(*b)); }
void tb_free(struct tb *b) {
  free(b->data);
  tb_init(b);
}
void tb_reset(struct tb *b) { b->len = 0; }

void tb_u8(struct tb *b, uint8_t v) {
  grow(b, 1);
  b->data[b->len++] = v;
}
void tb_u16(struct tb *b, uint16_t v) {
  tb_u8(b, (uint8_t)(v >> 8));
  tb_u8(b, (uint8_t)v);
}
void tb_u32(struct tb *b, uint32_t v) {
  tb_u16(b, (uint16_t)(v >> 16));
  tb_u16(b, (uint16_t)v);
}
void tb_u64(struct tb *b, uint64_t v) {
  tb_u32(b, (uint32_t)(v >> 32));
  tb_u32(b, (uint32_t)v);
}
void tb_bytes(struct tb *b, const void *p, size_t n) {
  grow(b, n);
  memcpy(b->data + b->len, p, n);
  b->len += n;
}
void tb_fill(struct tb *b, uint8_t v, size_t n) {
  grow(b, n);
  memset(b->data + b->len, v, n);
  b->len += n;
}

uint8_t tb_ascii_to_ebcdic(char c) {
  /* Code page 037, written out by hand for what the tests use. */
  if (c >= 'A' && c <= 'I')
    return (uint8_t)(0xC1 + (c - 'A'));
  if (c >= 'J' && c <= 'R')
    return (uint8_t)(0xD1 + (c - 'J'));
  if (c >= 'S' && c <= 'Z')
    return (uint8_t)(0xE2 + (c - 'S'));
  if (c >= 'a' && c <= 'i')
    return (uint8_t)(0x81 + (c - 'a'));
  if (c >= 'j' && c <= 'r')
    return (uint8_t)(0x91 + (c - 'j'));
  if (c >= 's' && c <= 'z')
    return (uint8_t)(0xA2 + (c - 's'));
  if (c >= '0' && c <= '9')
    return (uint8_t)(0xF0 + (c - '0'));
  switch (c) {
  case ' ':
    return 0x40;
  case '.':
    return 0x4B;
  case '+':
    return 0x4E;
  case '$':
    return 0x5B;
  case '-':
    return 0x60;
  case '/':
    return 0x61;
  case '_':
    return 0x6D;
  case ':':
    return 0x7A;
  case '#':
    return 0x7B;
  case '@':
    return 0x7C;
  default:
    abort(); /* extend the table before using another character */
  }
}

void tb_ebcdic(struct tb *b, const char *ascii, size_t width) {
  size_t n = strlen(ascii);
  for (size_t i = 0; i < width; i++)
    tb_u8(b, i < n ? tb_ascii_to_ebcdic(ascii[i]) : 0x40);
}

static void check_put(const struct tb *b, size_t off, size_t n) {
  if (off + n > b->len)
    abort();
}
void tb_put_u8(struct tb *b, size_t off, uint8_t v) {
  check_put(b, off, 1);
  b->data[off] = v;
}
void tb_put_u16(struct tb *b, size_t off, uint16_t v) {
  tb_put_u8(b, off, (uint8_t)(v >> 8));
  tb_put_u8(b, off + 1, (uint8_t)v);
}
void tb_put_u32(struct tb *b, size_t off, uint32_t v) {
  tb_put_u16(b, off, (uint16_t)(v >> 16));
  tb_put_u16(b, off + 2, (uint16_t)v);
}
void tb_put_u64(struct tb *b, size_t off, uint64_t v) {
  tb_put_u32(b, off, (uint32_t)(v >> 32));
  tb_put_u32(b, off + 4, (uint32_t)v);
}
void tb_put_ebcdic(struct tb *b, size_t off, const char *ascii, size_t width) {
  size_t n = strlen(ascii);
  for (size_t i = 0; i < width; i++)
    tb_put_u8(b, off + i, i < n ? tb_ascii_to_ebcdic(ascii[i]) : 0x40);
}

size_t tb_record(struct tb *b, uint16_t len, uint8_t domain, uint16_t number,
                 uint64_t tod) {
  size_t off = b->len;
  tb_u16(b, len);    /* MRHDRLEN */
  tb_u16(b, 0);      /* MRHDRZER */
  tb_u8(b, domain);  /* MRHDRDM */
  tb_u8(b, 0);       /* reserved */
  tb_u16(b, number); /* MRHDRRC */
  tb_u64(b, tod);    /* MRHDRTOD */
  tb_u32(b, 0);      /* reserved */
  if (len > 20)
    tb_fill(b, 0, (size_t)len - 20);
  return off;
}

size_t tb_appldata(struct tb *b, uint16_t number, uint64_t tod,
                   const char *userid, const uint8_t product[16],
                   const void *data, size_t dlen) {
  size_t r = tb_record(b, (uint16_t)(52 + dlen), 10, number, tod);
  tb_put_u16(b, r + 20, 52);             /* CALDATOF */
  tb_put_u16(b, r + 22, (uint16_t)dlen); /* CALDATLN */
  tb_put_ebcdic(b, r + 24, userid, 8);   /* USERID */
  memcpy(b->data + r + 32, product, 16); /* product ID */
  if (dlen > 0)
    memcpy(b->data + r + 52, data, dlen);
  return r;
}

void tb_apl_kernel_product(uint8_t p[16], uint8_t record, const char *mod) {
  static const char id[] = "LINUXKRNL";
  for (int i = 0; i < 9; i++)
    p[i] = tb_ascii_to_ebcdic(id[i]);
  p[9] = record;
  static const char ver[] = "2601";
  for (int i = 0; i < 4; i++)
    p[10 + i] = tb_ascii_to_ebcdic(ver[i]);
  p[14] = tb_ascii_to_ebcdic(mod[0]);
  p[15] = tb_ascii_to_ebcdic(mod[1]);
}

void tb_apl_tool_product(uint8_t p[16], uint16_t applid, uint8_t record,
                         uint16_t slot) {
  memcpy(p, "LNXAPPL", 7);
  p[7] = (uint8_t)(applid >> 8);
  p[8] = (uint8_t)applid;
  p[9] = record;
  memset(p + 10, 0, 4);
  p[14] = (uint8_t)(slot >> 8);
  p[15] = (uint8_t)slot;
}

void tb_mce(struct tb *b, uint8_t type, uint16_t domains, uint32_t start,
            uint32_t end) {
  tb_u8(b, type);
  tb_u16(b, domains);
  tb_u8(b, 0);
  tb_u32(b, start);
  tb_u32(b, end);
}

void tb_record_set(struct tb *set, uint8_t type, uint16_t domains,
                   uint32_t addr, const struct tb *rs) {
  tb_mce(set, type, domains, addr, addr + (uint32_t)rs->len - 1);
  tb_bytes(set, rs->data, rs->len);
}

void tb_frames_init(struct tb_frames *f, uint32_t base, uint8_t pad_byte,
                    uint64_t tod) {
  tb_init(&f->rs);
  f->base = base;
  f->pad_byte = pad_byte;
  f->tod = tod;
}

size_t tb_frames_add(struct tb_frames *f, const struct tb *record) {
  uint32_t addr = f->base + (uint32_t)f->rs.len;
  size_t frame_left = 4096 - (addr & 0xFFF);
  /* Keep room for the end-of-frame record CP writes when a frame fills. */
  if (record->len + 20 > frame_left) {
    tb_record(&f->rs, 20, 1, 13, f->tod);
    tb_fill(&f->rs, f->pad_byte, frame_left - 20);
  }
  size_t off = f->rs.len;
  tb_bytes(&f->rs, record->data, record->len);
  return off;
}

void tb_frames_free(struct tb_frames *f) { tb_free(&f->rs); }

uint64_t tb_tod(uint64_t unix_seconds, uint32_t micros) {
  return UINT64_C(0x7D91048BCA000000) +
         ((unix_seconds * 1000000u + micros) << 12);
}
