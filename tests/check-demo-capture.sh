#!/bin/sh
# SPDX-License-Identifier: MIT
# The bundled capture (contrib/demo-capture.pcapng) is what
# tools/gen/make-demo-capture produces: capture the demo's stream again and
# compare both as text without arrival times (zvm-monitor-dump -t -x -v:
# every set, event and record byte).
set -u
: "${abs_top_builddir:?}" "${abs_top_srcdir:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-demo-capture.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dump=$abs_top_builddir/tools/zvm-monitor-dump
"$abs_top_srcdir/tools/gen/make-demo-capture" "$abs_top_builddir" "$tmp/new.pcapng" 2>"$tmp/err" || {
  cat "$tmp/err"
  echo "FAIL: tools/gen/make-demo-capture failed"
  exit 1
}
"$dump" -t -x -v -s -r "$abs_top_srcdir/contrib/demo-capture.pcapng" >"$tmp/bundled.txt" || exit 1
"$dump" -t -x -v -s -r "$tmp/new.pcapng" >"$tmp/new.txt" || exit 1
if ! cmp -s "$tmp/bundled.txt" "$tmp/new.txt"; then
  diff "$tmp/bundled.txt" "$tmp/new.txt" | head -n 20
  echo "FAIL: contrib/demo-capture.pcapng differs from a fresh capture: run tools/gen/make-demo-capture BUILD_DIR"
  exit 1
fi
sets=$(sed -n 's/^\([0-9]*\) data sets.*/\1/p' "$tmp/new.txt")
[ "${sets:-0}" -ge 10 ] || { echo "FAIL: only ${sets:-0} data sets"; exit 1; }
echo "PASS: the bundled capture is reproducible ($sets data sets)"
