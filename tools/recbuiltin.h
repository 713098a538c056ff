/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the plugin's own table of a record it decodes itself, as
 * zvm-monitor-record's mapping (recpage.h, struct rp_builtin) takes its
 * names, kinds and types: a block made from IBM's page for that record
 * then gives the built-in's values under the built-in's names. The one
 * part of the tool that sees the record engine's descriptors (the mapping
 * itself is libc only).
 */
#ifndef ZVM_TOOLS_RECBUILTIN_H
#define ZVM_TOOLS_RECBUILTIN_H

#include "recpage.h"
#include "zvm_monitor/records.h"

#define RP_BUILTIN_FIELDS_MAX 128
/* The names of one record: bt points into f and the strings. */
struct rp_builtin_names {
  struct rp_builtin bt;
  struct rp_builtin_field f[RP_BUILTIN_FIELDS_MAX];
  char name[32], array_name[32];
};

/* The names of built-in record d (its main layout and first array) into
 * bn (kept until bn goes). */
void rp_builtin_names(const struct zvm_record_desc *d,
                      struct rp_builtin_names *bn);

#endif
