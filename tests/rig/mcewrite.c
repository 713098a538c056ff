/* SPDX-License-Identifier: MIT */
/* The test rig's writer of monitor bytes (mcewrite.h). */
#include "mcewrite.h"

#include <stdlib.h>
#include <string.h>

void mw_put(uint8_t *buf, size_t len, size_t off, unsigned width, uint64_t v) {
  if (!mw_put_be(buf, len, off, width, v))
    abort();
}

int mw_ebcdic(char c) {
  /* Code page 037, written out by hand for what the rig writes. */
  if (c >= 'A' && c <= 'I')
    return 0xC1 + (c - 'A');
  if (c >= 'J' && c <= 'R')
    return 0xD1 + (c - 'J');
  if (c >= 'S' && c <= 'Z')
    return 0xE2 + (c - 'S');
  if (c >= 'a' && c <= 'i')
    return 0x81 + (c - 'a');
  if (c >= 'j' && c <= 'r')
    return 0x91 + (c - 'j');
  if (c >= 's' && c <= 'z')
    return 0xA2 + (c - 's');
  if (c >= '0' && c <= '9')
    return 0xF0 + (c - '0');
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
  case '%':
    return 0x6C;
  case '_':
    return 0x6D;
  case '?':
    return 0x6F;
  case ':':
    return 0x7A;
  case '#':
    return 0x7B;
  case '@':
    return 0x7C;
  default:
    return -1;
  }
}

void mw_put_ebcdic(uint8_t *buf, size_t len, size_t off, const char *ascii,
                   size_t width) {
  if (off > len || width > len - off)
    abort();
  size_t n = strlen(ascii);
  for (size_t i = 0; i < width; i++) {
    int e = i < n ? mw_ebcdic(ascii[i]) : 0x40;
    if (e < 0)
      abort(); /* extend the table before using another character */
    buf[off + i] = (uint8_t)e;
  }
}

void mw_mrhdr(uint8_t *rec, size_t len, uint16_t reclen, uint8_t domain,
              uint16_t number, uint64_t tod) {
  mw_put(rec, len, 0, 2, reclen); /* MRHDRLEN */
  mw_put(rec, len, 2, 2, 0);      /* MRHDRZER */
  mw_put(rec, len, 4, 1, domain); /* MRHDRDM */
  mw_put(rec, len, 5, 1, 0);
  mw_put(rec, len, 6, 2, number); /* MRHDRRC */
  mw_put(rec, len, 8, 8, tod);    /* MRHDRTOD */
  mw_put(rec, len, 16, 4, 0);
}

void mw_mce(uint8_t mce[MW_MCE_LEN], uint8_t type, uint16_t domains,
            uint32_t start, uint32_t end) {
  mw_put(mce, MW_MCE_LEN, 0, 1, type);
  mw_put(mce, MW_MCE_LEN, 1, 2, domains);
  mw_put(mce, MW_MCE_LEN, 3, 1, 0);
  mw_put(mce, MW_MCE_LEN, 4, 4, start);
  mw_put(mce, MW_MCE_LEN, 8, 4, end);
}

uint64_t mw_tod(uint64_t unix_us) {
  return MW_TOD_UNIX_EPOCH + (unix_us << 12);
}

void mw_aphdr(uint8_t *rec, size_t len, size_t dlen, const char *userid,
              const uint8_t product[16]) {
  mw_put(rec, len, 20, 2, MW_APHDR_LEN);  /* CALDATOF */
  mw_put(rec, len, 22, 2, dlen);          /* CALDATLN */
  mw_put_ebcdic(rec, len, 24, userid, 8); /* USERID */
  if (len < 48)
    abort();
  memcpy(rec + 32, product, 16); /* product ID (MDGPROD) */
}

static uint8_t ebcdic_or_abort(char c) {
  int e = mw_ebcdic(c);
  if (e < 0)
    abort();
  return (uint8_t)e;
}

void mw_apl_kernel_product(uint8_t p[16], uint8_t record, const char *mod) {
  static const char id[] = "LINUXKRNL";
  for (int i = 0; i < 9; i++)
    p[i] = ebcdic_or_abort(id[i]);
  p[9] = record;
  static const char ver[] = "2601";
  for (int i = 0; i < 4; i++)
    p[10 + i] = ebcdic_or_abort(ver[i]);
  p[14] = ebcdic_or_abort(mod[0]);
  p[15] = ebcdic_or_abort(mod[1]);
}

void mw_apl_tool_product(uint8_t p[16], uint16_t applid, uint8_t record,
                         uint16_t slot) {
  memcpy(p, "LNXAPPL", 7);
  p[7] = (uint8_t)(applid >> 8);
  p[8] = (uint8_t)applid;
  p[9] = record;
  memset(p + 10, 0, 4);
  p[14] = (uint8_t)(slot >> 8);
  p[15] = (uint8_t)slot;
}

void mw_end_of_frame(uint8_t *p, size_t len, uint64_t tod) {
  mw_mrhdr(p, len, MW_MRHDR_LEN, 1, 13, tod); /* D1R13 MTREOF */
}
