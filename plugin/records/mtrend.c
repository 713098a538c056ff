/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - D1R11 MRMTREND, Interval End (domain 1 monitor, record
 * 11): the header only; it closes a sample interval's records.
 *
 * Source: IBM, z/VM V7R3.0 monitor record MRMTREND,
 * https://www.vm.ibm.com/pubs/mon730/MRMTREND.HTML.
 */
#include "engine/table.h"
#include "records/catalog.h"
#include "zvm_monitor/decode.h"

const struct zvm_record_desc zvm_rec_mtrend = {
    .domain = ZVM_DOMAIN_MONITOR,
    .number = ZVM_MTR_INTERVAL_END,
    .ibm_name = "MRMTREND",
    .title = "Interval End",
    .zvm_level = "z/VM V7R3.0",
    .source = "https://www.vm.ibm.com/pubs/mon730/MRMTREND.HTML",
    .length = ZVM_MRHDR_LEN,
};
