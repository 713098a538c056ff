#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "zvm_monitor/decode.h"
static void t(void **s) { (void)s; assert_int_equal(zvm_domain_from_name("user"), 4); }
int main(void) { const struct CMUnitTest tests[] = {cmocka_unit_test(t)}; return cmocka_run_group_tests_name("decode", tests, NULL, NULL); }
