#!/bin/sh
# SPDX-License-Identifier: MIT
# collectd dlopen()s plugins with RTLD_NOW: every symbol zvm_monitor.so
# needs must be exported by the daemon itself or by the C library family.
# (collectd links e.g. ignorelist_* statically into its own plugins; a
# plugin calling them fails to load with "undefined symbol".) Also checks
# that module_register is the only symbol the plugin exports.
set -eu

so=${ZVM_PLUGIN_SO:-${abs_top_builddir:-.}/.libs/zvm_monitor.so}
daemon=${COLLECTD_DAEMON:-/usr/sbin/collectd}
nm=${NM:-nm}

if [ ! -x "$daemon" ]; then
  echo "SKIP: no collectd daemon at $daemon"
  exit 77
fi
[ -f "$so" ] || { echo "FAIL: $so was not built"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Names only, without symbol versions ("malloc@GLIBC_2.2.5" -> "malloc").
defined() { $nm -D --defined-only "$1" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }'; }

defined "$daemon" >"$tmp/provided"
for lib in libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2; do
  path=$(ldd "$daemon" 2>/dev/null | awk -v l="$lib" '$1 == l { print $3 }')
  [ -n "$path" ] || path=$(${CC:-cc} -print-file-name="$lib")
  [ -f "$path" ] && defined "$path" >>"$tmp/provided"
done
# Libraries the plugin links itself (dmstats.so: libdevmapper) provide too:
# those ldd finds; a cross build's (ldd cannot tell) from the daemon's
# tree, the sysroot tests/run-s390x unpacks the s390x libdevmapper into.
for path in $(ldd "$so" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'); do
  defined "$path" >>"$tmp/provided"
done
if ! ldd "$so" >/dev/null 2>&1; then
  root=$(dirname "$(dirname "$(dirname "$daemon")")")
  for lib in $(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
    path=$(find "$root/lib" "$root/usr/lib" -name "$lib" 2>/dev/null | head -n 1)
    [ -z "$path" ] || defined "$path" >>"$tmp/provided"
  done
fi
sort -u -o "$tmp/provided" "$tmp/provided"

# The method itself: the daemon's API is found, its private helpers not.
for s in plugin_dispatch_values plugin_register_complex_read malloc; do
  grep -qx "$s" "$tmp/provided" || { echo "FAIL: $s not among the providers"; exit 1; }
done
if grep -qx ignorelist_add "$tmp/provided"; then
  echo "FAIL: ignorelist_add looks exported; the check would prove nothing"
  exit 1
fi

# Weak undefined symbols (w/v) may stay unresolved.
$nm -D --undefined-only "$so" |
  awk '$1 == "U" { sub(/@.*/, "", $2); print $2 }' | sort -u >"$tmp/needed"
# An ASan/UBSan build (tests/run's sanitizer stage) also needs the
# sanitizer runtime, which that stage preloads into the daemon.
if [ -n "${ZVM_SANITIZER:-}" ]; then
  grep -v -E '^__(asan|ubsan|lsan|sanitizer)_' "$tmp/needed" >"$tmp/needed.plain" || true
  mv "$tmp/needed.plain" "$tmp/needed"
fi
comm -23 "$tmp/needed" "$tmp/provided" >"$tmp/missing"
echo "$(basename "$so") needs $(wc -l <"$tmp/needed") symbols"
if [ -s "$tmp/missing" ]; then
  echo "FAIL: not exported by $daemon or libc/libm/libpthread/libdl:"
  sed 's/^/  /' "$tmp/missing"
  exit 1
fi

$nm -D --defined-only "$so" | awk 'NF >= 3 { print $3 }' >"$tmp/exported"
if [ "$(cat "$tmp/exported")" != "module_register" ]; then
  echo "FAIL: the plugin must export module_register only, it exports:"
  sed 's/^/  /' "$tmp/exported"
  exit 1
fi
echo "PASS: every needed symbol is provided; only module_register is exported"
