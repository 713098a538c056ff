#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/e2e/compare.py on small hand-made runs: what legitimately differs
# between two runs (callback partition, reader counters' wall-clock lines,
# errors-open while the device is busy) passes; a different value, a
# missing identifier, a different last line, notification or stream, a
# missing scenario fails.
set -eu

src=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (python3)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# run DIR: one scenario "sc" whose files the cases then change
run() {
  d=$1/sc/csv/zvmtest
  mkdir -p "$d/zvm_monitor-LINUX001" "$d/zvm_monitor-reader" "$1/other"
  printf 'epoch,value\n100.000,5\n200.000,7\n' >"$d/zvm_monitor-LINUX001/derive-x-2026-01-01"
  printf 'epoch,value\n5000.100,1\n5001.100,2\n' >"$d/zvm_monitor-reader/total_objects-sets-2026-01-01"
  printf 'epoch,value\n5000.100,1\n' >"$d/zvm_monitor-reader/errors-open-2026-01-01"
  printf '[2023-11-14 22:13:21] [info] Notification: severity = OKAY, message = m\n' >"$1/sc/collectd.log"
  printf 'stream' >"$1/sc/s.scn"
}

# expect WANT-STATUS WHAT: compare $tmp/a with $tmp/b
expect() {
  st=0
  python3 "$src/tests/e2e/compare.py" "$tmp/a" "$tmp/b" >"$tmp/out" 2>&1 || st=$?
  if [ "$st" -eq "$1" ]; then
    echo "ok - $2"
  else
    sed 's/^/    /' "$tmp/out"
    echo "FAIL - $2 (exit $st, want $1)"
    failures=$((failures + 1))
  fi
}

case_() { # case_: fresh identical runs a and b
  rm -rf "$tmp/a" "$tmp/b"
  run "$tmp/a"
  run "$tmp/b"
}
b=$tmp/b/sc/csv/zvmtest

case_
expect 0 "identical runs"

case_
printf 'epoch,value\n200.000,7\n' >"$b/zvm_monitor-LINUX001/derive-x-2026-01-02"
rm "$b/zvm_monitor-LINUX001/derive-x-2026-01-01"
printf 'epoch,value\n7000.300,2\n' >"$b/zvm_monitor-reader/total_objects-sets-2026-01-01"
expect 0 "other callbacks, other dates, other reader lines with the same final values"

case_
printf 'epoch,value\n100.000,6\n200.000,7\n' >"$b/zvm_monitor-LINUX001/derive-x-2026-01-01"
expect 1 "a different value at a time both runs wrote"

case_
printf 'epoch,value\n100.000,5\n300.000,7\n' >"$b/zvm_monitor-LINUX001/derive-x-2026-01-01"
expect 1 "a different last line"

case_
printf 'epoch,value\n5000.100,1\n5001.100,3\n' >"$b/zvm_monitor-reader/total_objects-sets-2026-01-01"
expect 1 "a different final reader counter"

case_
mkdir -p "$b/zvm_monitor-LINUX002"
cp "$b/zvm_monitor-LINUX001/derive-x-2026-01-01" "$b/zvm_monitor-LINUX002/"
expect 1 "an identifier in one run only"

case_
printf 'epoch,value\n5000.100,4\n' >"$b/zvm_monitor-reader/errors-open-2026-01-01"
expect 1 "errors-open differs"
echo "zvm_monitor plugin: /dev/monreader is busy" >>"$tmp/a/sc/collectd.log"
expect 0 "errors-open differs while the device was busy"

case_
sed -i 's/OKAY/WARNING/' "$tmp/b/sc/collectd.log"
expect 1 "a different notification"

# the reader's notifications: wall-clock time, durations, the run's directory
note() { # note DIR TIME TYPE-INSTANCE MESSAGE
  printf '[%s] [info] Notification: severity = WARNING, host = zvmtest, plugin = zvm_monitor, plugin_instance = reader, type = errors, type_instance = %s, message = %s\n' \
    "$2" "$3" "$4" >>"$1/sc/collectd.log"
}
case_
note "$tmp/a" "2026-01-01 10:00:00" discard "$tmp/a/sc/monreader: lost (EIO 1, EFAULT 0) for 4 s"
note "$tmp/b" "2026-01-01 10:02:00" discard "$tmp/b/sc/monreader: lost (EIO 1, EFAULT 0) for 3 s"
note "$tmp/a" "2026-01-01 10:00:00" device "$tmp/a/sc/monreader is open again (3 failed opens)"
note "$tmp/b" "2026-01-01 10:02:00" device "$tmp/b/sc/monreader is open again (2 failed opens)"
expect 0 "reader notifications at other times, other durations, device retries, run directories"
case_
note "$tmp/a" "2026-01-01 10:00:00" discard "$tmp/a/sc/monreader: lost (EIO 1, EFAULT 0) for 4 s"
note "$tmp/b" "2026-01-01 10:00:00" discard "$tmp/b/sc/monreader: lost (EIO 0, EFAULT 1) for 4 s"
expect 1 "a reader notification counting other losses"

case_
note "$tmp/a" "2026-01-01 10:00:00" device "device busy"
note "$tmp/b" "2026-01-01 10:00:00" device "device busy"
sed 's/WARNING/OKAY/' "$tmp/b/sc/collectd.log" | tail -n 1 >>"$tmp/b/sc/collectd.log"
expect 0 "an episode's end after the other run's daemon stopped"
note "$tmp/b" "2026-01-01 10:00:00" device "device busy again"
expect 0 "a later episode of the same kind in one run only"
note "$tmp/b" "2026-01-01 10:00:00" overflow "records were lost"
expect 1 "an episode of another kind in one run only"

# values restamped with the arrival time (the daemon's wall clock)
wall() { # wall DIR FIRST-LOG-TIME LAST-LOG-TIME: the daemon's log span
  printf '[%s] [info] zvm_monitor plugin: opened\n[%s] [info] Exiting normally.\n' "$2" "$3" >>"$1/sc/collectd.log"
}
case_
wall "$tmp/a" "2026-01-01 10:00:00" "2026-01-01 10:00:10"
wall "$tmp/b" "2026-01-01 10:05:00" "2026-01-01 10:05:10"
f=zvm_monitor-LINUX001/derive-x-2026-01-01
printf '1767261605.500,9\n' >>"$tmp/a/sc/csv/zvmtest/$f"
printf '1767261904.250,8\n1767261905.500,9\n' >>"$b/$f"
expect 0 "arrival-stamped lines at other times, the last with the same values"
printf '1767261906.000,10\n' >>"$b/$f"
expect 1 "arrival-stamped lines whose last values differ"

case_
printf 'streaM' >"$tmp/b/sc/s.scn"
expect 1 "a stream not byte-identical"

case_
mkdir -p "$tmp/b/sc/direct/csv/zvmtest/zvm_monitor-LINUX001"
cp "$b/zvm_monitor-LINUX001/derive-x-2026-01-01" "$tmp/b/sc/direct/csv/zvmtest/zvm_monitor-LINUX001/"
expect 1 "a second daemon's csv directory in one run only"

case_
rm -rf "$tmp/b/sc"
expect 1 "a scenario in one run only"

[ "$failures" -eq 0 ] || exit 1
echo "PASS: compare.py accepts what legitimately differs and finds the rest"
