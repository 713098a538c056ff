/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - D1R13 MRMTREOF, End of Frame Indicator (domain 1 monitor,
 * record 13): the header only; the walk continues at the next 4 KB frame
 * (format/decode.c).
 *
 * Source: IBM, z/VM V7R3.0 monitor record MRMTREOF,
 * https://www.vm.ibm.com/pubs/mon730/MRMTREOF.HTML.
 */
#include "engine/table.h"
#include "records/catalog.h"
#include "zvm_monitor/decode.h"

const struct zvm_record_desc zvm_rec_mtreof = {
    .domain = ZVM_DOMAIN_MONITOR,
    .number = ZVM_MTR_END_OF_FRAME,
    .ibm_name = "MRMTREOF",
    .title = "End of Frame Indicator",
    .zvm_level = "z/VM V7R3.0",
    .source = "https://www.vm.ibm.com/pubs/mon730/MRMTREOF.HTML",
    .length = ZVM_MRHDR_LEN,
};
