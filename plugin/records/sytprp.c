/*
 * zvm_monitor - D0R2 MRSYTPRP Processor Data (per processor), a sample
 * record of the system domain.
 *
 * Source: IBM z/VM V6R4.0 monitor record page
 * https://www.vm.ibm.com/pubs/mon640/MRSYTPRP.HTML (352 bytes at 6.4),
 * as gathered in shared/reference/wave2-records.md section 4; the prolog
 * as at z/VM 7.5 (https://www.ibm.com/support/pages/zvm/pubs/mon750/
 * mrsytprp.html): "A separate record is generated for each online
 * processor. When multithreading is active a separate record is written
 * per-CPU (thread)." Only the four fields IBM's page confirms are in the
 * table; the rest of the record (known only from a third party's z/VM 5.3
 * structures) is not decoded.
 *
 * CPU-timer format: bit 51 = 1 microsecond, so the engine turns the two
 * times into microseconds. PFXPRBTM "starts at x'7FFFFFFF_00000000' and
 * advances down" (IBM): it is marked as decrementing, so its rate is the
 * emulation-mode CPU time used per second.
 */
#include "zvm_monitor/records.h"

#define SYTPRP_PFXCPUAD 0

static const struct zvm_field sytprp_fields[] = {
    [SYTPRP_PFXCPUAD] = {.ibm_name = "SYTPRP_PFXCPUAD",
                         .metric = "pfxcpuad",
                         .offset = 20,
                         .width = 2,
                         .count = 1,
                         .type = ZVM_TYPE_UNSIGNED,
                         .kind = ZVM_FIELD_ID},
    {.ibm_name = "SYTPRP_PLSCUHAF",
     .metric = "plscuhaf",
     .offset = 22,
     .width = 2,
     .count = 1,
     .type = ZVM_TYPE_UNSIGNED,
     .kind = ZVM_FIELD_COUNTER},
    {.ibm_name = "SYTPRP_PFXPRBTM",
     .metric = "pfxprbtm",
     .offset = 24,
     .width = 8,
     .count = 1,
     .type = ZVM_TYPE_CPU_TIMER,
     .kind = ZVM_FIELD_COUNTER,
     .flags = ZVM_FIELD_DECREMENTS},
    {.ibm_name = "SYTPRP_PFXUTIME",
     .metric = "pfxutime",
     .offset = 32,
     .width = 8,
     .count = 1,
     .type = ZVM_TYPE_CPU_TIMER,
     .kind = ZVM_FIELD_COUNTER},
};

const struct zvm_record_desc zvm_rec_sytprp = {
    .domain = ZVM_DOMAIN_SYSTEM,
    .number = 2,
    .ibm_name = "MRSYTPRP",
    .title = "Processor Data (Per Processor)",
    .zvm_level = "z/VM V6R4.0",
    .source = "IBM https://www.vm.ibm.com/pubs/mon640/MRSYTPRP.HTML",
    .length = 352,
    .main =
        {
            .type_name = "zvm_sytprp",
            .key = {.nparts = 1,
                    .part = {{.kind = ZVM_KEY_NUMBER,
                              .field = SYTPRP_PFXCPUAD,
                              .text = "cpu"}}},
            .fields = sytprp_fields,
            .nfields = sizeof(sytprp_fields) / sizeof(sytprp_fields[0]),
            .length = 352,
        },
};
