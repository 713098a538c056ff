/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - <Record> blocks from collectd.conf text into the
 * zvm_recconf builder, the way the glue feeds it from collectd's oconfig
 * tree (one value per option; strings quoted, numbers and true/false bare;
 * '#' comments). A small subset of liboconfig's syntax, for what reads a
 * configuration without the daemon: zvm-monitor-dump -C, the unit tests
 * and the fuzz target. Not part of the plugin (the glue has oconfig).
 */
#ifndef ZVM_MONITOR_RECCONF_TEXT_H
#define ZVM_MONITOR_RECCONF_TEXT_H

#include <stddef.h>

#include "zvm_monitor/recconf.h"

/* Parse len bytes (need not be NUL-terminated) and apply every <Record>
 * block to rc. 0, or -1 with a one-line reason in err: the builder's own
 * reason, or a syntax error with its line number. */
int zvm_recconf_parse_text(struct zvm_recconf *rc, const char *text, size_t len,
                           char *err, size_t err_size);

#endif
