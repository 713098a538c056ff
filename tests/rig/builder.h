/* SPDX-License-Identifier: MIT */
/*
 * Test-data builder: writes monitor data field by field in big-endian, the
 * way IBM's layouts print them, so tests read like IBM's pages. Its bytes
 * come from the rig's one writer (mcewrite.h: EBCDIC, big-endian fields,
 * MRHDR, MCE, frames), deliberately independent of the decoder (its own
 * EBCDIC table, its own shifts).
 */
#ifndef ZVM_TESTS_BUILDER_H
#define ZVM_TESTS_BUILDER_H

#include "mcewrite.h"

#include <stddef.h>
#include <stdint.h>

struct tb {
  uint8_t *data;
  size_t len;
  size_t cap;
};

void tb_init(struct tb *b);
void tb_free(struct tb *b);
void tb_reset(struct tb *b);

/* Append. */
void tb_u8(struct tb *b, uint8_t v);
void tb_u16(struct tb *b, uint16_t v);
void tb_u32(struct tb *b, uint32_t v);
void tb_u64(struct tb *b, uint64_t v);
void tb_bytes(struct tb *b, const void *p, size_t n);
void tb_fill(struct tb *b, uint8_t v, size_t n);
/* ASCII text as EBCDIC, blank (X'40') padded to width. */
void tb_ebcdic(struct tb *b, const char *ascii, size_t width);

/* Patch at an absolute offset (which must already exist). */
void tb_put_u8(struct tb *b, size_t off, uint8_t v);
void tb_put_u16(struct tb *b, size_t off, uint16_t v);
void tb_put_u32(struct tb *b, size_t off, uint32_t v);
void tb_put_u64(struct tb *b, size_t off, uint64_t v);
void tb_put_ebcdic(struct tb *b, size_t off, const char *ascii, size_t width);

uint8_t tb_ascii_to_ebcdic(char c);

/* A zero-filled record of len bytes with its MRHDR written; returns the
 * offset of the record so fields can be put at rec + IBM offset. */
size_t tb_record(struct tb *b, uint16_t len, uint8_t domain, uint16_t number,
                 uint64_t tod);

/* APPLDATA (domain 10): a D10R1/D10R2 record appended to b: the 52-byte
 * APHDR (20 CALDATOF = 52, 22 CALDATLN, 24 USERID EBCDIC, 32 product ID)
 * then dlen bytes of data. Returns the record's offset in b. */
size_t tb_appldata(struct tb *b, uint16_t number, uint64_t tod,
                   const char *userid, const uint8_t product[16],
                   const void *data, size_t dlen);
/* Product IDs: the kernel's (EBCDIC "LINUXKRNL", record byte, EBCDIC
 * "2601", EBCDIC modification level "00"/"01") and /dev/monwriter's (ASCII
 * "LNXAPPL", applid u16, record, version 0, release 0, slot u16). */
void tb_apl_kernel_product(uint8_t p[16], uint8_t record, const char *mod);
void tb_apl_tool_product(uint8_t p[16], uint16_t applid, uint8_t record,
                         uint16_t slot);

/* A 12-byte MCE. domains: byte 1 << 8 | byte 2 (X'8000' = domain 0). */
void tb_mce(struct tb *b, uint8_t type, uint16_t domains, uint32_t start,
            uint32_t end);

/* Append a record set (the bytes of rs, placed at DCSS address addr) with
 * its MCE to a data set. */
void tb_record_set(struct tb *set, uint8_t type, uint16_t domains,
                   uint32_t addr, const struct tb *rs);

/*
 * Frame-aware record-set writer: records are placed as CP places them in
 * the DCSS, never across a 4 KB frame. When a record does not fit in what
 * is left of the frame, a D1R13 end-of-frame record is written and the
 * rest of the frame is filled with pad_byte.
 */
struct tb_frames {
  struct tb rs;
  uint32_t base; /* DCSS address of rs.data[0] */
  uint8_t pad_byte;
  uint64_t tod;
};
void tb_frames_init(struct tb_frames *f, uint32_t base, uint8_t pad_byte,
                    uint64_t tod);
/* Returns the offset of the placed record inside f->rs. */
size_t tb_frames_add(struct tb_frames *f, const struct tb *record);
void tb_frames_free(struct tb_frames *f);

/* TOD clock value for Unix seconds + microseconds. */
uint64_t tb_tod(uint64_t unix_seconds, uint32_t micros);

#define TB_DOM(d) MW_DOM(d)

#endif
