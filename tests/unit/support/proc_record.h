/* SPDX-License-Identifier: MIT */
/*
 * A processor record as a <Record> block would describe it (test layout,
 * not IBM's), for the engine's tests (tests/unit/engine/test_engine.c)
 * and the same record through the mapper (tests/unit/mapper/
 * test_engine_map.c): 20 address (key), 22 dispatches (counter), 24 CPU
 * timer counting down, 32 CPU timer (counter), 40 TOD (gauge), 48 signed
 * level scaled by 1/2, 50 four 2-byte counters.
 */
#ifndef ZVM_TESTS_PROC_RECORD_H
#define ZVM_TESTS_PROC_RECORD_H

#include "zvm_monitor/field.h"
#include "zvm_monitor/records.h"

static const struct zvm_field proc_fields[] = {
    {.ibm_name = "T_CPUAD",
     .metric = "cpuad",
     .offset = 20,
     .width = 2,
     .count = 1,
     .kind = ZVM_FIELD_ID},
    {.ibm_name = "T_DISP",
     .metric = "dispatches",
     .offset = 22,
     .width = 2,
     .count = 1,
     .kind = ZVM_FIELD_COUNTER},
    {.ibm_name = "T_EMUL",
     .metric = "emulation",
     .offset = 24,
     .width = 8,
     .count = 1,
     .type = ZVM_TYPE_CPU_TIMER,
     .kind = ZVM_FIELD_COUNTER,
     .flags = ZVM_FIELD_DECREMENTS},
    {.ibm_name = "T_UTIME",
     .metric = "utime",
     .offset = 32,
     .width = 8,
     .count = 1,
     .type = ZVM_TYPE_CPU_TIMER,
     .kind = ZVM_FIELD_COUNTER},
    {.ibm_name = "T_STAMP",
     .metric = "stamp",
     .offset = 40,
     .width = 8,
     .count = 1,
     .type = ZVM_TYPE_TOD,
     .kind = ZVM_FIELD_GAUGE},
    {.ibm_name = "T_LEVEL",
     .metric = "level",
     .offset = 48,
     .width = 2,
     .count = 1,
     .type = ZVM_TYPE_SIGNED,
     .kind = ZVM_FIELD_GAUGE,
     .scale = 0.5},
    {.ibm_name = "T_QUEUE",
     .metric = "queue",
     .offset = 50,
     .width = 2,
     .count = 4,
     .kind = ZVM_FIELD_COUNTER,
     .elem_prefix = "_pos"},
};

static const struct zvm_record_desc proc_desc = {
    .domain = 0,
    .number = 99,
    .ibm_name = "TPROC",
    .title = "test processor record",
    .zvm_level = "test",
    .source = "tests/unit/support/proc_record.h",
    .length = 58,
    .main =
        {.type_name = "zvm_tproc",
         .key = {.nparts = 1,
                 .part = {{.kind = ZVM_KEY_NUMBER, .field = 0, .text = "cpu"}}},
         .fields = proc_fields,
         .nfields = sizeof(proc_fields) / sizeof(proc_fields[0]),
         .length = 58},
    .user_defined = true,
};

#endif /* ZVM_TESTS_PROC_RECORD_H */
