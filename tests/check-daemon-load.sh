#!/bin/sh
# Smoke test in the real daemon: zvm_monitor.so loads from the build's
# .libs, a configuration error stops collectd with a message naming the
# option, and a running daemon dispatches the reader counters through the
# csv writer (the device is missing here, so errors-open grows). The daemon
# is stopped by its PID and must exit promptly.
set -eu

daemon=${COLLECTD_DAEMON:-/usr/sbin/collectd}
stock=${COLLECTD_PLUGIN_DIR:-/usr/lib/collectd}
typesdb=${COLLECTD_TYPESDB:-/usr/share/collectd/types.db}
libs=${abs_top_builddir:-$(pwd)}/.libs

for f in "$daemon" "$stock/csv.so" "$typesdb"; do
  [ -e "$f" ] || { echo "SKIP: $f not found"; exit 77; }
done
[ -f "$libs/zvm_monitor.so" ] || { echo "FAIL: $libs/zvm_monitor.so not built"; exit 1; }

tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# conf FILE PLUGIN-BLOCK-LINES...
conf() {
  out=$1
  shift
  cat >"$out" <<CONF
Hostname "zvmtest"
BaseDir "$tmp"
PIDFile "$tmp/collectd.pid"
Interval 1
TypesDB "$typesdb"
PluginDir "$stock"
LoadPlugin csv
<Plugin csv>
  DataDir "$tmp/csv"
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
if timeout 20 "$daemon" -T -C "$tmp/bad.conf" >"$tmp/bad.out" 2>&1; then
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

# 2. Loaded, initialised, read callback running, values written.
conf "$tmp/good.conf" "Device \"$tmp/monreader\"" "Domain \"user\"" \
  "Domain 5" "UserID \"/^LINUX/\"" "ReportReaderStats true"
"$daemon" -f -C "$tmp/good.conf" >"$tmp/good.out" 2>&1 &
pid=$!

csvdir="$tmp/csv/zvmtest/zvm_monitor-reader"
found=
i=0
while [ $i -lt 150 ]; do
  # The second line holds a value once a read callback ran.
  if f=$(ls "$csvdir"/errors-open-* 2>/dev/null) && [ "$(wc -l <"$f")" -ge 2 ]; then
    found=$f
    break
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
  i=$((i + 1))
done
if [ -z "$found" ]; then
  cat "$tmp/good.out"
  echo "FAIL: no zvm_monitor-reader/errors-open values within 15 s"
  exit 1
fi
echo "ok - reader counters arrive: $(tail -n 1 "$found")"
tail -n 1 "$found" | awk -F, '$2 >= 1 { ok = 1 } END { exit !ok }' || {
  echo "FAIL: errors-open should count the failed open"
  exit 1
}
for t in errors-eoverflow errors-eio errors-efault errors-malformed \
  total_objects-sets total_objects-records total_objects-skipped \
  total_bytes-read; do
  ls "$csvdir/$t"-* >/dev/null 2>&1 || { echo "FAIL: no $t"; exit 1; }
done
echo "ok - all nine reader counters are written"

grep -q "zvm_monitor plugin: reading $tmp/monreader; domains: user,processor; 1 UserID rule(s)" "$tmp/good.out" || {
  cat "$tmp/good.out"
  echo "FAIL: no start-up line"
  exit 1
}
grep "zvm_monitor plugin: " "$tmp/good.out" | grep -v "reading " | grep -q "$tmp/monreader" || {
  cat "$tmp/good.out"
  echo "FAIL: the reader did not log why it cannot open the device"
  exit 1
}
echo "ok - the reader's message is logged with the plugin's prefix"

# 3. SIGTERM: the daemon (and the plugin's shutdown) return promptly.
kill -TERM "$pid"
i=0
while kill -0 "$pid" 2>/dev/null; do
  [ $i -lt 100 ] || { echo "FAIL: collectd still running 10 s after SIGTERM"; exit 1; }
  sleep 0.1
  i=$((i + 1))
done
wait "$pid" || true
pid=
grep -q "Exiting normally" "$tmp/good.out" || {
  cat "$tmp/good.out"
  echo "FAIL: collectd did not exit normally"
  exit 1
}
echo "ok - collectd stops within $((i / 10)).$((i % 10)) s of SIGTERM"
