/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - D0R2 MRSYTPRP, Processor Data (Per Processor) (sample
 * record, domain 0 system, record 2).
 *
 * Source: IBM z/VM V6R4.0 monitor record page
 * https://www.vm.ibm.com/pubs/mon640/MRSYTPRP.HTML (352 bytes at 6.4); the
 * prolog as at z/VM 7.5 (https://www.ibm.com/support/pages/zvm/pubs/mon750/
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
#include "engine/table.h"
#include "records/catalog.h"
#include "zvm_monitor/decode.h"

enum {
  SYTPRP_PFXCPUAD,
  SYTPRP_PLSCUHAF,
  SYTPRP_PFXPRBTM,
  SYTPRP_PFXUTIME,
};

static const struct zvm_field sytprp_fields[] = {
    ZVM_FIELD(SYTPRP_PFXCPUAD, "SYTPRP_PFXCPUAD", "pfxcpuad", 20, 2, 1,
              UNSIGNED, ID),
    ZVM_FIELD(SYTPRP_PLSCUHAF, "SYTPRP_PLSCUHAF", "plscuhaf", 22, 2, 1,
              UNSIGNED, COUNTER),
    ZVM_FIELD(SYTPRP_PFXPRBTM, "SYTPRP_PFXPRBTM", "pfxprbtm", 24, 8, 1,
              CPU_TIMER, COUNTER, .flags = ZVM_FIELD_DECREMENTS),
    ZVM_FIELD(SYTPRP_PFXUTIME, "SYTPRP_PFXUTIME", "pfxutime", 32, 8, 1,
              CPU_TIMER, COUNTER),
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
            .nfields = ZVM_COUNT_OF(sytprp_fields),
            .length = 352,
        },
};
