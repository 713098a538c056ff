/* SPDX-License-Identifier: MIT */
/*
 * zvm-types-db - print the types.db(5) lines of the zvm_monitor plugin's
 * own value-list types, generated from the record descriptors (the same
 * data the plugin registers with plugin_register_data_set at start-up).
 *
 *   zvm-types-db > contrib/zvm_monitor.types.db     ('make types-db')
 *
 * collectd itself needs no TypesDB line for these types; the file is for
 * InfluxDB's collectd listener (its typesdb directory) and other readers
 * of the network protocol. A unit test (tests/unit/mapper/test_mapper.c)
 * checks that the shipped file's types equal what the plugin registers.
 */
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/conf.h"
#include "zvm_monitor/mapper.h"
#include "zvm_monitor/typesdb.h"

#include <stdio.h>
#include <stdlib.h>

static const char header[] =
    "# zvm_monitor custom types (collectd types.db(5) format), one per\n"
    "# monitor record instance: generated from the plugin's record tables\n"
    "# by zvm-types-db ('make types-db'); do not edit.\n"
    "#\n"
    "# The plugin registers these types itself at start-up: collectd.conf\n"
    "# needs no TypesDB line for them. Put this file into InfluxDB's\n"
    "# collectd listener typesdb directory (next to collectd's types.db),\n"
    "# and into the TypesDB of any other daemon that receives the values\n"
    "# over the network plugin. Data sources are the former type instances,\n"
    "# in record-table order (see zvm_monitor(5), VALUE LISTS AND TYPES).\n";

int main(void) {
  struct zvm_conf conf;
  if (zvm_conf_init(&conf, zvm_registry_builtin()) != 0) {
    fprintf(stderr, "zvm-types-db: out of memory\n");
    return 1;
  }
  struct zvm_mapper *m = zvm_mapper_create(&conf);
  if (m == NULL) {
    fprintf(stderr, "zvm-types-db: out of memory\n");
    zvm_conf_free(&conf);
    return 1;
  }
  fputs(header, stdout);
  int status = 0;
  for (size_t i = 0; i < zvm_mapper_type_count(m); i++) {
    char line[ZVM_LAYOUT_DS_MAX * 96];
    if (zvm_layout_types_db_line(zvm_mapper_type_at(m, i), line, sizeof(line)) <
        0) {
      fprintf(stderr, "zvm-types-db: cannot format type %s\n",
              zvm_mapper_type_at(m, i)->type_name);
      status = 1;
      continue;
    }
    printf("%s\n", line);
  }
  zvm_mapper_destroy(m);
  zvm_conf_free(&conf);
  return status != 0 || fflush(stdout) != 0 ? 1 : 0;
}
