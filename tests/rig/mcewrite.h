/* SPDX-License-Identifier: MIT */
/*
 * mcewrite - the test rig's one writer of z/VM monitor bytes, shared by
 * the stream generator (zvm-stream-gen, the emulated device's scenarios),
 * the unit tests' byte builder (builder.h) and the hypfs generator:
 * big-endian fields, ASCII names as EBCDIC (code page 037, blank padded),
 * the 20-byte record header MRHDR, the 12-byte monitor control element
 * (MCE) that /dev/monreader puts before each record set, TOD clock values,
 * the APPLDATA header and its product IDs, 4 KB frames with their
 * end-of-frame record (D1R13).
 *
 * Layouts: IBM, z/VM Performance, "Monitor Records" (MRHDR,
 * https://www.vm.ibm.com/pubs/mon730/MRHDR.HTML; D1R13 MTREOF; D10R1/R2
 * APPLDATA, with the kernel's arch/s390/appldata/appldata.h for the product
 * ID); the MCE: the kernel's drivers/s390/char/monreader.c (struct mon_msg,
 * mon_check_mca()).
 *
 * Deliberately independent of the decoder (plugin/format): its own table,
 * its own shifts, so that what it writes tests the decoder rather than
 * agreeing with it. A write outside the buffer, or a character outside the
 * table, is a bug in the caller: it aborts.
 */
#ifndef ZVM_TESTS_RIG_MCEWRITE_H
#define ZVM_TESTS_RIG_MCEWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MW_MRHDR_LEN 20
#define MW_MCE_LEN 12
#define MW_FRAME 4096u
#define MW_APHDR_LEN 52 /* APPLDATA header: CALDATOF of the writers */

/* MCE type byte: a sample or an event record set. */
#define MW_MCE_SAMPLE 0xE2
#define MW_MCE_EVENT 0xC5

/* An MCE's domain mask: bit 0 (X'8000') is domain 0. */
#define MW_DOM(d) ((uint16_t)(0x8000u >> (d)))

/* TOD clock value of 1970-01-01 00:00:00 UTC. */
#define MW_TOD_UNIX_EPOCH UINT64_C(0x7D91048BCA000000)

/* ---- big-endian fields ------------------------------------------------- */
/* Bounds-checked: false (and nothing read or written) when width bytes at
 * off do not fit in len. */
static inline bool mw_get_be(const uint8_t *buf, size_t len, size_t off,
                             unsigned width, uint64_t *out) {
  if (off > len || width > len - off)
    return false;
  uint64_t v = 0;
  for (unsigned i = 0; i < width; i++)
    v = (v << 8) | buf[off + i];
  *out = v;
  return true;
}

/* Unchecked store for callers that proved the bounds. */
static inline void mw_store_be(uint8_t *p, unsigned width, uint64_t v) {
  for (unsigned i = width; i > 0; i--) {
    p[i - 1] = (uint8_t)v;
    v >>= 8;
  }
}

static inline bool mw_put_be(uint8_t *buf, size_t len, size_t off,
                             unsigned width, uint64_t v) {
  if (off > len || width > len - off)
    return false;
  mw_store_be(buf + off, width, v);
  return true;
}

/* Unchecked loads for callers that proved the bounds. */
static inline uint32_t mw_load_be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
         ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}
static inline uint16_t mw_load_be16(const uint8_t *p) {
  return (uint16_t)(((unsigned)p[0] << 8) | p[1]);
}

/* Store width bytes of v at off of a buffer of len bytes; aborts outside. */
void mw_put(uint8_t *buf, size_t len, size_t off, unsigned width, uint64_t v);

/* ---- EBCDIC ------------------------------------------------------------ */
/* Code page 037 of c, for A-Z a-z 0-9 and blank . + $ - / _ : # @ % ?;
 * -1 for any other character. */
int mw_ebcdic(char c);
/* ASCII text as EBCDIC at off, blank (X'40') padded to width; aborts
 * outside the buffer or on a character outside the table. */
void mw_put_ebcdic(uint8_t *buf, size_t len, size_t off, const char *ascii,
                   size_t width);

/* ---- headers ----------------------------------------------------------- */
/* The MRHDR at rec (len bytes there): MRHDRLEN reclen, MRHDRZER 0,
 * MRHDRDM domain, MRHDRRC number, MRHDRTOD tod, the reserved bytes 0. */
void mw_mrhdr(uint8_t *rec, size_t len, uint16_t reclen, uint8_t domain,
              uint16_t number, uint64_t tod);
/* An MCE: type, domain mask (byte 1 << 8 | byte 2), a zero byte, the
 * record set's first and last DCSS address. */
void mw_mce(uint8_t mce[MW_MCE_LEN], uint8_t type, uint16_t domains,
            uint32_t start, uint32_t end);

/* TOD clock value of a Unix time in microseconds (modulo 2^64). */
uint64_t mw_tod(uint64_t unix_us);

/* ---- APPLDATA (domain 10) ---------------------------------------------- */
/* The APPLDATA header of a record of len bytes whose MRHDR is written: 20
 * CALDATOF (MW_APHDR_LEN), 22 CALDATLN dlen, 24 USERID (EBCDIC), 32 the
 * 16-byte product ID. */
void mw_aphdr(uint8_t *rec, size_t len, size_t dlen, const char *userid,
              const uint8_t product[16]);
/* Product IDs: the kernel's (EBCDIC "LINUXKRNL", record byte, EBCDIC
 * "2601", EBCDIC modification level mod[0] mod[1]: "00" or "01") and
 * /dev/monwriter's (ASCII "LNXAPPL", applid u16, record, version 0,
 * release 0, slot u16). */
void mw_apl_kernel_product(uint8_t p[16], uint8_t record, const char *mod);
void mw_apl_tool_product(uint8_t p[16], uint16_t applid, uint8_t record,
                         uint16_t slot);

/* ---- 4 KB frames ------------------------------------------------------- */
/* Records never cross a frame, and CP keeps room for the end-of-frame
 * record: bytes left in the frame of DCSS address addr, and whether a
 * record of reclen bytes still fits there. */
static inline uint32_t mw_frame_left(uint32_t addr) {
  return MW_FRAME - (addr & (MW_FRAME - 1));
}
static inline bool mw_frame_fits(uint32_t addr, size_t reclen) {
  return reclen + MW_MRHDR_LEN <= mw_frame_left(addr);
}
/* The end-of-frame record D1R13 (its MRHDR, 20 bytes) at p (len bytes
 * there); the rest of the frame is the caller's padding. */
void mw_end_of_frame(uint8_t *p, size_t len, uint64_t tod);

#endif
