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
static void append_be(struct tb *b, unsigned width, uint64_t v) {
  size_t off = b->len;
  tb_fill(b, 0, width);
  mw_put(b->data, b->len, off, width, v);
}
void tb_u16(struct tb *b, uint16_t v) { append_be(b, 2, v); }
void tb_u32(struct tb *b, uint32_t v) { append_be(b, 4, v); }
void tb_u64(struct tb *b, uint64_t v) { append_be(b, 8, v); }
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
  int e = mw_ebcdic(c);
  if (e < 0)
    abort(); /* extend the table (mcewrite.c) before using another character */
  return (uint8_t)e;
}

void tb_ebcdic(struct tb *b, const char *ascii, size_t width) {
  size_t off = b->len;
  tb_fill(b, 0, width);
  tb_put_ebcdic(b, off, ascii, width);
}

void tb_put_u8(struct tb *b, size_t off, uint8_t v) {
  mw_put(b->data, b->len, off, 1, v);
}
void tb_put_u16(struct tb *b, size_t off, uint16_t v) {
  mw_put(b->data, b->len, off, 2, v);
}
void tb_put_u32(struct tb *b, size_t off, uint32_t v) {
  mw_put(b->data, b->len, off, 4, v);
}
void tb_put_u64(struct tb *b, size_t off, uint64_t v) {
  mw_put(b->data, b->len, off, 8, v);
}
void tb_put_ebcdic(struct tb *b, size_t off, const char *ascii, size_t width) {
  mw_put_ebcdic(b->data, b->len, off, ascii, width);
}

size_t tb_record(struct tb *b, uint16_t len, uint8_t domain, uint16_t number,
                 uint64_t tod) {
  size_t off = b->len;
  /* The header even when len is shorter (a damaged record), then the body. */
  tb_fill(b, 0, len > MW_MRHDR_LEN ? len : MW_MRHDR_LEN);
  mw_mrhdr(b->data + off, MW_MRHDR_LEN, len, domain, number, tod);
  return off;
}

size_t tb_appldata(struct tb *b, uint16_t number, uint64_t tod,
                   const char *userid, const uint8_t product[16],
                   const void *data, size_t dlen) {
  size_t r = tb_record(b, (uint16_t)(MW_APHDR_LEN + dlen), 10, number, tod);
  mw_aphdr(b->data + r, b->len - r, dlen, userid, product);
  if (dlen > 0)
    memcpy(b->data + r + MW_APHDR_LEN, data, dlen);
  return r;
}

void tb_apl_kernel_product(uint8_t p[16], uint8_t record, const char *mod) {
  mw_apl_kernel_product(p, record, mod);
}

void tb_apl_tool_product(uint8_t p[16], uint16_t applid, uint8_t record,
                         uint16_t slot) {
  mw_apl_tool_product(p, applid, record, slot);
}

void tb_mce(struct tb *b, uint8_t type, uint16_t domains, uint32_t start,
            uint32_t end) {
  size_t off = b->len;
  tb_fill(b, 0, MW_MCE_LEN);
  mw_mce(b->data + off, type, domains, start, end);
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
  if (!mw_frame_fits(addr, record->len)) {
    size_t off = f->rs.len, left = mw_frame_left(addr);
    tb_fill(&f->rs, f->pad_byte, left);
    mw_end_of_frame(f->rs.data + off, left, f->tod);
  }
  size_t off = f->rs.len;
  tb_bytes(&f->rs, record->data, record->len);
  return off;
}

void tb_frames_free(struct tb_frames *f) { tb_free(&f->rs); }

uint64_t tb_tod(uint64_t unix_seconds, uint32_t micros) {
  return mw_tod(unix_seconds * 1000000u + micros);
}
