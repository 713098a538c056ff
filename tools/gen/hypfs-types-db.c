/* SPDX-License-Identifier: MIT */
/*
 * hypfs-types-db - print the types.db(5) lines of the hypfs plugin's value
 * lists, generated from its value rows (hypfs/values.c: the same rows the
 * plugin registers with plugin_register_data_set at start-up).
 *
 *   hypfs-types-db > contrib/hypfs.types.db     ('make types-db')
 *
 * tests/unit/hypfs/test_hypfs checks that the shipped file is this output.
 */
#include "hypfs/core.h"

#include <stdio.h>

int main(void) {
  if (hypfs_types_db_print(stdout) != 0 || fflush(stdout) != 0) {
    fprintf(stderr, "hypfs-types-db: writing the types to standard output "
                    "failed\n");
    return 1;
  }
  return 0;
}
