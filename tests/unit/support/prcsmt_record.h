/* SPDX-License-Identifier: MIT */
/*
 * D5R21 MRPRCSMT records in bytes, as IBM's page lays them out (z/VM
 * V6R4.0): the record tests of D5R21 (tests/unit/records/test_prcsmt.c)
 * and of the catalogue's decoding of a set (test_catalog.c) build them
 * here. Include after <cmocka.h>.
 */
#ifndef ZVM_TESTS_PRCSMT_RECORD_H
#define ZVM_TESTS_PRCSMT_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "builder.h"
#include "record_fields.h"

/* PRCSMT_CAL_STATUS: the start of a change (IBM MRPRCSMT). */
#define PRCSMT_CAL_START 0x80

struct cputinfo {
  uint8_t type, co, hw, sy, ac, sm, cr;
};

/* D5R21 as in IBM MRPRCSMT (z/VM V6R4.0); entries placed at aoff with stride
 * aesz. */
static inline size_t build_prcsmt(struct tb *b, uint8_t status,
                                  const struct cputinfo *e, unsigned cnt,
                                  uint16_t aesz, uint16_t aoff, uint16_t len) {
  size_t r = tb_record(b, len, 5, 21, TOD);
  tb_put_u32(b, r + 20, 0x00000007); /* RCCSMTSQ */
  tb_put_u8(b, r + 24, status);      /* CAL_STATUS */
  tb_put_u8(b, r + 25, 2);           /* CALMAXTC */
  tb_put_u8(b, r + 26, 0xFF);        /* RCCCOALL: MAX */
  tb_put_u8(b, r + 27, 1);           /* RCCSMALL */
  tb_put_u8(b, r + 28, 0x80);        /* RCCSMSET: INITIAL */
  tb_put_u8(b, r + 29, (uint8_t)cnt);
  tb_put_u16(b, r + 30, aesz);
  tb_put_u16(b, r + 32, aoff);
  tb_put_u16(b, r + 34, 0xBEEF); /* reserved */
  for (unsigned i = 0; e != NULL && i < cnt; i++) {
    size_t p = r + aoff + (size_t)i * aesz;
    const uint8_t bytes[8] = {e[i].type, e[i].co, e[i].hw, e[i].sy,
                              e[i].ac,   e[i].sm, e[i].cr, 0x5A};
    for (size_t k = 0; k < 8 && k < aesz; k++)
      tb_put_u8(b, p + k, bytes[k]);
  }
  return r;
}

/* Five processor types' entries: CP, zAAP, IFL (one count MAX), ICF, zIIP. */
static const struct cputinfo five[] = {
    {0x00, 1, 2, 1, 1, 0, 1},       {0x02, 3, 4, 5, 6, 7, 8},
    {0x03, 2, 2, 2, 2, 0xFF, 2},    {0x04, 9, 10, 11, 12, 13, 14},
    {0x05, 15, 16, 17, 18, 19, 20},
};

#endif /* ZVM_TESTS_PRCSMT_RECORD_H */
