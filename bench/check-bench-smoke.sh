#!/bin/sh
# SPDX-License-Identifier: MIT
# The benchmark program works (tiny input, no timing is checked).
set -eu
top=${abs_top_builddir:-$(pwd)}
exec "$top/bench/zvm-bench" --smoke --gen "$top/tests/rig/zvm-stream-gen"
