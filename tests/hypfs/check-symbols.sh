#!/bin/sh
# SPDX-License-Identifier: MIT
# hypfs.so loads into the daemon (every symbol it needs is the daemon's or
# the C library's) and exports module_register only.
set -eu
top=${abs_top_builddir:-$(pwd)}
src=${abs_top_srcdir:-$top/..}
ZVM_PLUGIN_SO=$top/.libs/hypfs.so exec sh "$src/tests/check-plugin-symbols.sh"
