#!/bin/sh
# SPDX-License-Identifier: MIT
# Smoke test in the real daemon: zvm_monitor.so loads from the build's
# .libs, a configuration error stops collectd with a message naming the
# option, a running daemon dispatches the reader counters through the csv
# writer (the device is missing, so errors-open grows), and with the
# emulated /dev/monreader (tests/rig, LD_PRELOAD) a generated
# stream arrives as D4R10 and D5R21 values. Daemons are stopped by their
# PID and must exit promptly. (The full end-to-end suite lives elsewhere.)
# Every daemon run has its own directory (BaseDir, csv DataDir, log), so no
# run sees another's files. The daemon and the generator run behind
# E2E_EXEC_WRAPPER (qemu-s390x in the s390x build, with the s390x daemon).
set -eu

daemon=${COLLECTD_DAEMON:-/usr/sbin/collectd}
# its stock plugins and types.db: from the same tree (a sysroot's for s390x)
usr=$(dirname "$(dirname "$daemon")")
stock=${COLLECTD_PLUGIN_DIR:-$usr/lib/collectd}
typesdb=${COLLECTD_TYPESDB:-$usr/share/collectd/types.db}
top=${abs_top_builddir:-$(pwd)}
libs=$top/.libs
emu=$top/tests/rig

for f in "$daemon" "$stock/csv.so" "$typesdb"; do
  [ -e "$f" ] || { echo "SKIP: $f not found"; exit 77; }
done
[ -f "$libs/zvm_monitor.so" ] || { echo "FAIL: $libs/zvm_monitor.so not built"; exit 1; }

# In tests/run's sanitizer stage the plugin and the shim are ASan-built but
# the stock collectd is not: the ASan runtime must be preloaded first, and
# the daemon's own exit-time allocations are not ours to report.
asan_preload=${ZVM_ASAN_RUNTIME:+$ZVM_ASAN_RUNTIME }
if [ -n "$asan_preload" ]; then
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  export ASAN_OPTIONS
fi

# Shared with the end-to-end suite: a temporary directory and an exit trap
# that stops every daemon started with e2e_bg by its PID, also on signals.
# shellcheck source=tests/e2e/lib.sh
. "${abs_top_srcdir:-$top/..}/tests/e2e/lib.sh"
E2E_BUILD=$top
E2E_DIR=
e2e_init
tmp=$E2E_TMP
pid=

# The daemon must run here (a cross build's needs a sysroot's daemon).
if ! (e2e_exec "$daemon" -h) >"$tmp/h.out" 2>&1; then
  cat "$tmp/h.out"
  echo "SKIP: cannot run $daemon${E2E_EXEC_WRAPPER:+ behind $E2E_EXEC_WRAPPER} (cross build: configure --with-collectd-daemon=SYSROOT/usr/sbin/collectd, see tests/run-s390x)"
  exit 77
fi

# run_T CONF: "collectd -T -C CONF" (configuration and one read pass) behind
# the exec wrapper, killed after 20 s.
run_T() { (e2e_exec -t 20 LD_PRELOAD="$asan_preload" "$daemon" -T -C "$1"); }

# conf FILE PLUGIN-BLOCK-LINES...: a configuration whose daemon keeps its
# files (csv, PID) in its own directory FILE.d
conf() {
  out=$1
  shift
  mkdir -p "$out.d"
  cat >"$out" <<CONF
Hostname "zvmtest"
FQDNLookup false
BaseDir "$out.d"
PIDFile "$out.d/collectd.pid"
Interval 1
TypesDB "$typesdb"
PluginDir "$stock"
LoadPlugin csv
<Plugin csv>
  DataDir "$out.d/csv"
  StoreRates false
</Plugin>
PluginDir "$libs"
LoadPlugin zvm_monitor
<Plugin zvm_monitor>
CONF
  for line in "$@"; do echo "  $line" >>"$out"; done
  echo "</Plugin>" >>"$out"
}

# 1. A configuration error is fatal and names the option.
conf "$tmp/bad.conf" "Device \"$tmp/monreader\"" "Domain \"users\""
if run_T "$tmp/bad.conf" >"$tmp/bad.out" 2>&1; then
  cat "$tmp/bad.out"
  echo "FAIL: collectd accepted Domain \"users\""
  exit 1
fi
grep -q 'zvm_monitor plugin: Domain "users": unknown domain' "$tmp/bad.out" || {
  cat "$tmp/bad.out"
  echo "FAIL: no error naming the Domain option"
  exit 1
}
echo "ok - configuration error is fatal and names the option"

# The example configuration's plugin block, uncommented, is accepted.
example=${abs_top_srcdir:-$top/..}/contrib/collectd.conf.example
[ -f "$example" ] || { echo "FAIL: $example not found"; exit 1; }
conf "$tmp/example.conf"
sed '$d' "$tmp/example.conf" >"$tmp/example.tmp" # without "</Plugin>"
sed -n '/^#<Plugin zvm_monitor>/,/^#<\/Plugin>/p' "$example" | sed 's/^#//' |
  sed '1d' >>"$tmp/example.tmp"
grep -q "MaxSetSize" "$tmp/example.tmp" || { echo "FAIL: no plugin block in $example"; exit 1; }
if ! run_T "$tmp/example.tmp" >"$tmp/example.out" 2>&1 ||
  grep -q "zvm_monitor plugin: .*option" "$tmp/example.out"; then
  cat "$tmp/example.out"
  echo "FAIL: the example's <Plugin zvm_monitor> block is not accepted"
  exit 1
fi
echo "ok - the example configuration's plugin block is accepted"

# start CONF [ENV=VALUE...]: collectd -f in the background, output in CONF.out
start() {
  cfg=$1
  shift
  e2e_bg "$cfg.out" e2e_exec LD_PRELOAD="$asan_preload" "$@" "$daemon" -f -C "$cfg"
  pid=$E2E_PID
}

# wait_value GLOB [N]: until a csv file matching GLOB holds N values
# (default 1); prints its name. 15 s at most.
wait_value() {
  i=0
  while [ $i -lt 150 ]; do
    for wv_file in $1; do
      if [ -f "$wv_file" ] && [ "$(wc -l <"$wv_file")" -gt "${2:-1}" ]; then
        echo "$wv_file"
        return 0
      fi
    done
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}

# stop CONF: SIGTERM; the daemon (and the plugin's shutdown) must return
# within 10 s and exit normally.
stop() {
  kill -TERM "$pid"
  i=0
  while kill -0 "$pid" 2>/dev/null; do
    [ $i -lt 100 ] || { echo "FAIL: collectd still running 10 s after SIGTERM"; exit 1; }
    sleep 0.1
    i=$((i + 1))
  done
  wait "$pid" || true
  e2e_forget "$pid"
  pid=
  grep -q "Exiting normally" "$1.out" || {
    cat "$1.out"
    echo "FAIL: collectd did not exit normally"
    exit 1
  }
  echo "ok - collectd stops within $((i / 10)).$((i % 10)) s of SIGTERM"
}

# last_value FILE: the value column of a csv file's last line
last_value() { tail -n 1 "$1" | cut -d, -f2; }
# last_col FILE NAME: the column named NAME (csv header) of the last line
last_col() {
  lc_n=$(head -n 1 "$1" | tr ',' '\n' | grep -n -x "$2" | cut -d: -f1)
  [ -n "$lc_n" ] || { echo "no column $2 in $1" >&2; return 1; }
  tail -n 1 "$1" | cut -d, -f"$lc_n"
}

fail_with() {
  cat "$1.out"
  echo "FAIL: $2"
  exit 1
}

# 2. No device: loaded, initialised, read callback running, values written.
good=$tmp/good.conf
conf "$good" "Device \"$tmp/monreader\"" "Domain \"user\"" \
  "Domain 5" "UserID \"/^LINUX/\"" "ReportReaderStats true"
start "$good"
rdir="$good.d/csv/zvmtest/zvm_monitor-reader"
f=$(wait_value "$rdir/errors-open-*") ||
  fail_with "$good" "no zvm_monitor-reader/errors-open values within 15 s"
[ "$(last_value "$f")" -ge 1 ] || fail_with "$good" "errors-open should count the failed open"
echo "ok - reader counters arrive (errors-open $(last_value "$f"))"
for t in errors-eoverflow errors-eio errors-efault errors-malformed errors-stream \
  total_objects-sets total_objects-sets_dropped total_objects-records total_objects-skipped \
  total_bytes-read total_objects-restamped total_objects-time_future \
  total_objects-short_records \
  total_objects-appldata_torn total_objects-appldata_unknown \
  total_objects-appldata_dropped; do
  # the daemon's writer threads may write them in any order: wait for each
  wait_value "$rdir/$t-*" >/dev/null || fail_with "$good" "no $t"
done
echo "ok - all seventeen reader counters are written"
grep -q "zvm_monitor plugin: reading $tmp/monreader; domains: user,processor; 1 UserID rule(s)" "$good.out" ||
  fail_with "$good" "no start-up line"
grep "zvm_monitor plugin: " "$good.out" | grep -v "reading " | grep -q "$tmp/monreader" ||
  fail_with "$good" "the reader did not log why it cannot open the device"
echo "ok - the reader's message is logged with the plugin's prefix"
stop "$good"

# 3. The emulated device delivers a generated stream: 3 guests, 2 intervals,
# one multithreading change (IFL 1 -> 2), counters crossing 2^31. With no
# pace every message is ready at the first read callback, so each guest's
# two D4R10 records meet in one pass: one dispatch, transactions 2. Every
# record instance is one value list of the type the plugin registers (the
# configuration has only the stock TypesDB).
for f in "$emu/zvm-stream-gen" "$emu/.libs/libmonreader-emu.so"; do
  [ -e "$f" ] || { echo "FAIL: $f not built"; exit 1; }
done
(e2e_exec "$emu/zvm-stream-gen" -g 3 -i 2 --smt-every 2 --counter-offset 2147483000 \
  -o "$tmp/stream.scn")
emuconf=$tmp/emu.conf
conf "$emuconf" "Device \"$tmp/emu-monreader\"" "UserID \"/^LINUX00[12]$/\""
start "$emuconf" LD_PRELOAD="$asan_preload$emu/.libs/libmonreader-emu.so" \
  MONREADER_EMU_DEVICE="$tmp/emu-monreader" \
  MONREADER_EMU_SCENARIO="$tmp/stream.scn" MONREADER_EMU_LOOP=1
host="$emuconf.d/csv/zvmtest"
f=$(wait_value "$host/zvm_monitor-LINUX001/zvm_useite-*") ||
  fail_with "$emuconf" "no D4R10 values from the emulated device within 15 s"
# Three more read callbacks: the values must not come again.
wait_value "$host/zvm_monitor-reader/total_objects-sets-*" 4 >/dev/null ||
  fail_with "$emuconf" "fewer than 4 read callbacks within 15 s"
if [ "$(wc -l <"$f")" -ne 2 ] || [ "$(last_col "$f" transactions)" -ne 2 ]; then
  fail_with "$emuconf" "LINUX001 transactions: want one line with 2, got: $(cat "$f")"
fi
[ "$(head -n 1 "$f" | tr ',' '\n' | wc -l)" -eq 49 ] ||
  fail_with "$emuconf" "zvm_useite: want epoch + 48 columns, got $(head -n 1 "$f")"
echo "ok - D4R10: LINUX001 zvm_useite (48 values) transactions 2, dispatched once"
# zvm-stream-gen --seed 1, guest 0, offset 116, record 2 (tests/rig/README.md):
# (h mod 10^6 + 2147483000 + 2 * (1 + (h >> 40) mod 1000)) mod 2^32
v=$(last_col "$f" hfcpurn)
[ "$v" = 2147561364 ] || fail_with "$emuconf" "LINUX001 hfcpurn: want 2147561364, got $v"
echo "ok - D4R10: LINUX001 zvm_useite hfcpurn 2147561364 (unsigned, above 2^31)"
ls "$host/zvm_monitor-LINUX002/zvm_useite-"* >/dev/null 2>&1 ||
  fail_with "$emuconf" "no values for LINUX002"
[ ! -e "$host/zvm_monitor-LINUX003" ] || fail_with "$emuconf" "LINUX003 is not selected by UserID"
echo "ok - UserID selects LINUX001 and LINUX002, not LINUX003"
f=$(wait_value "$host/zvm_monitor-ifl/zvm_prcsmt_cpu-*") ||
  fail_with "$emuconf" "no D5R21 values"
[ "$(last_col "$f" activated)" = 2.000000 ] || fail_with "$emuconf" "ifl zvm_prcsmt_cpu activated: want 2, got $(last_col "$f" activated)"
grep -q "zvm_monitor plugin: multithreading configuration change 1 ended (RCCSMTSQ 1); activated threads per core: cp 1 -> 1, ifl 1 -> 2" "$emuconf.out" ||
  fail_with "$emuconf" "no end-of-change notification text in the log"
echo "ok - D5R21: ifl zvm_prcsmt_cpu activated 2, change 1 ended: ifl 1 -> 2"
f=$(wait_value "$host/zvm_monitor-reader/total_objects-sets-*") ||
  fail_with "$emuconf" "no reader counters"
[ "$(last_value "$f")" -eq 4 ] || fail_with "$emuconf" "total_objects-sets: want 4, got $(last_value "$f")"
echo "ok - reader: total_objects-sets 4"
stop "$emuconf"
