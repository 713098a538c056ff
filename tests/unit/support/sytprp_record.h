/* SPDX-License-Identifier: MIT */
/*
 * D0R2 MRSYTPRP records in bytes, at IBM's offsets (z/VM 6.4 page
 * mon640/MRSYTPRP.HTML: 20 PFXCPUAD U2, 22 PLSCUHAF U2, 24 PFXPRBTM CPU
 * timer counting down, 32 PFXUTIME CPU timer), and what the plugin makes
 * of PFXPRBTM: the record test of D0R2 (tests/unit/records/test_sytprp.c)
 * and its mapping (tests/unit/mapper/test_sytprp_map.c) build them here.
 */
#ifndef ZVM_TESTS_SYTPRP_RECORD_H
#define ZVM_TESTS_SYTPRP_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "builder.h"

#define TIMER_START UINT64_C(0x7FFFFFFF00000000) /* IBM: PFXPRBTM's start */

/* A D0R2 record of len bytes: processor cpu, PLSCUHAF haf, emulation
 * time emul_us (PFXPRBTM counts it down from TIMER_START) and user time
 * user_us, each CPU timer with some sub-microsecond bits. */
static inline void sytprp(struct tb *rs, uint16_t len, uint64_t tod,
                          uint16_t cpu, uint16_t haf, uint64_t emul_us,
                          uint64_t user_us) {
  size_t r = tb_record(rs, len, 0, 2, tod);
  for (size_t off = 20; off < len; off++)
    tb_put_u8(rs, r + off, 0xEE); /* what is not written must not show */
  if (len >= 22)
    tb_put_u16(rs, r + 20, cpu);
  if (len >= 24)
    tb_put_u16(rs, r + 22, haf);
  if (len >= 32)
    tb_put_u64(rs, r + 24, TIMER_START - (emul_us << 12) - 0x123);
  if (len >= 40)
    tb_put_u64(rs, r + 32, (user_us << 12) | 0xABC);
}

/* What the plugin dispatches for PFXPRBTM: X'7FFFFFFFFFFFFFFF' minus the
 * timer, in microseconds (written here from the man page's rule). */
static inline int64_t down_us(uint64_t emul_us) {
  uint64_t raw = TIMER_START - (emul_us << 12) - 0x123;
  return (int64_t)((UINT64_C(0x7FFFFFFFFFFFFFFF) - raw) >> 12);
}

#endif /* ZVM_TESTS_SYTPRP_RECORD_H */
