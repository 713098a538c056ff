#!/bin/sh
# SPDX-License-Identifier: MIT
# check-collectd-incdir.sh [HEADERS]: configure --with-collectd=DIR takes
# collectd's headers from DIR only. A copy of HEADERS (default
# /usr/include/collectd) goes to a temporary DIR/collectd; the plugin is
# built against it, and the compiler's own dependency list for the glue must
# name the copy's headers and none under /usr/include/collectd (the headers
# include each other as "collectd/core/...": without -I DIR they silently
# came from /usr/include).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
headers=${1:-/usr/include/collectd}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/zvm-incdir.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/inc" "$tmp/build"
cp -R "$headers" "$tmp/inc/collectd"
cd "$tmp/build"
"$top/configure" --quiet --with-collectd="$tmp/inc" >configure.out 2>&1 || {
  cat configure.out
  echo "FAIL: configure --with-collectd=$tmp/inc"
  exit 1
}
grep -q "^COLLECTD_CPPFLAGS = .*-I$tmp/inc " Makefile || {
  grep '^COLLECTD_CPPFLAGS' Makefile
  echo "FAIL: COLLECTD_CPPFLAGS lacks -I$tmp/inc"
  exit 1
}
nice make -j2 zvm_monitor.la >make.out 2>&1 || {
  tail -n 40 make.out
  echo "FAIL: the plugin does not build against the copied headers"
  exit 1
}
deps=plugin/glue/.deps/zvm_monitor_la-zvm_monitor.Plo
[ -s "$deps" ] || { echo "FAIL: no dependency list $deps"; exit 1; }
copied=$(grep -c "$tmp/inc/collectd/" "$deps" || true)
system=$(grep -c '/usr/include/collectd/' "$deps" || true)
if [ "$copied" -eq 0 ] || [ "$system" -ne 0 ]; then
  grep collectd/ "$deps" | head -n 20
  echo "FAIL: plugin/glue/zvm_monitor.c used $copied copied and $system /usr/include/collectd headers"
  exit 1
fi
echo "ok - --with-collectd=DIR: the glue includes $copied headers from DIR, none from /usr/include/collectd"
