/* SPDX-License-Identifier: MIT */
/*
 * The platform the tests run on. The plugin's real host is big-endian s390x;
 * the s390x stage of tests/run cross compiles and runs every test under
 * qemu-s390x. This test proves that run really is big-endian s390x (and
 * prints what it runs on in every stage's log), so a passing suite there
 * means the decoder was exercised with the target's byte order.
 */
#include "zvm_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/utsname.h>

#include <cmocka.h>

#include "zvm_monitor/be.h"

static bool runtime_big_endian(void) {
  const uint32_t v = 0x01020304;
  uint8_t b[sizeof(v)];
  memcpy(b, &v, sizeof(v));
  return b[0] == 0x01;
}

/* The compiler, configure and the running machine agree on byte order. */
static void test_byte_order(void **state) {
  (void)state;
  bool big = runtime_big_endian();
  struct utsname u;
  assert_int_equal(uname(&u), 0);
  print_message("platform: built for %s, running on %s, %s-endian\n",
                ZVM_HOST_CPU, u.machine, big ? "big" : "little");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  assert_true(big);
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  assert_false(big);
#endif
#ifdef WORDS_BIGENDIAN
  assert_true(big); /* configure's AC_C_BIGENDIAN */
#else
  assert_false(big);
#endif
}

/* Built for s390x: it runs on s390x (qemu-user reports the guest's machine)
 * and is big-endian. */
static void test_s390x_is_big_endian(void **state) {
  (void)state;
  if (strncmp(ZVM_HOST_CPU, "s390", 4) != 0) {
    print_message("SKIP(not-applicable): test_s390x_is_big_endian: "
                  "a build for %s (the s390x build runs it)\n",
                  ZVM_HOST_CPU);
    skip();
  }
  struct utsname u;
  assert_int_equal(uname(&u), 0);
  assert_string_equal(u.machine, "s390x");
  assert_true(runtime_big_endian());
}

/* Monitor data is big-endian: the accessors give the same values on every
 * host, and only on a big-endian host do they match the native layout. */
static void test_accessors_are_byte_order_neutral(void **state) {
  (void)state;
  const uint8_t wire[8] = {0xDE, 0xAD, 0xBE, 0xEF, 0x01, 0x02, 0x03, 0x04};
  assert_int_equal(zvm_load_be16(wire), 0xDEAD);
  assert_int_equal(zvm_load_be32(wire), 0xDEADBEEF);
  assert_true(zvm_load_be64(wire) == UINT64_C(0xDEADBEEF01020304));

  uint32_t native;
  memcpy(&native, wire, sizeof(native));
  if (runtime_big_endian())
    assert_int_equal(native, 0xDEADBEEF);
  else
    assert_int_equal(native, 0xEFBEADDE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_byte_order),
      cmocka_unit_test(test_s390x_is_big_endian),
      cmocka_unit_test(test_accessors_are_byte_order_neutral),
  };
  return cmocka_run_group_tests_name("platform", tests, NULL, NULL);
}
