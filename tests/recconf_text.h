/*
 * Test support: <Record> blocks from collectd.conf text into the
 * zvm_recconf builder, the way the glue feeds it from collectd's oconfig
 * tree (one value per option; strings quoted, numbers and true/false bare;
 * '#' comments). A small subset of liboconfig's syntax, for unit tests and
 * the fuzz target, which both need configuration as text.
 */
#ifndef ZVM_TESTS_RECCONF_TEXT_H
#define ZVM_TESTS_RECCONF_TEXT_H

#include <stddef.h>

#include "zvm_monitor/recconf.h"

/* Parse len bytes (need not be NUL-terminated) and apply every <Record>
 * block to rc. 0, or -1 with a one-line reason in err: the builder's own
 * reason, or a syntax error with its line number. */
int recconf_parse_text(struct zvm_recconf *rc, const char *text, size_t len,
                       char *err, size_t err_size);

#endif
