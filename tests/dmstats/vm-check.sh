#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs inside the dmstats test VM (busybox sh, as root), once before dm-mod
# is loaded (DMSTATS_PHASE=no-dm) and once after (DMSTATS_PHASE=dm, with
# /dev/mapper/dmtest = 64 MiB linear over /dev/ram0). Prints one "ok" or
# "not ok" line per assertion; vm-run.sh counts them.
. /paths
# shellcheck disable=SC2154
collectd=$daemon

ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; }
check() { # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then
    ok "$1 ($3)"
  else
    nok "$1: expected $2, got $3"
    return 1
  fi
}
show() { sed 's/^/# /' "$@" 2>&1; } # a log, on the console

# write_conf FILE OUTDIR then the lines of the <Plugin dmstats> block.
write_conf() {
  file=$1
  out=$2
  shift 2
  {
    echo "Hostname \"vm\""
    echo "Interval 1"
    echo "BaseDir \"/tmp\""
    echo "PIDFile \"$file.pid\""
    echo "TypesDB \"/usr/share/collectd/types.db\""
    echo "PluginDir \"$stock\""
    echo "LoadPlugin csv"
    echo "<Plugin csv>"
    echo "  DataDir \"$out\""
    echo "  StoreRates false"
    echo "</Plugin>"
    echo "PluginDir \"/plugins\""
    echo "LoadPlugin dmstats"
    echo "<Plugin dmstats>"
    for line in "$@"; do echo "  $line"; done
    echo "</Plugin>"
  } >"$file"
}

# Last value (column N, 2 = first value) of a csv file of collectd's.
last() { tail -n 1 "$1" 2>/dev/null | cut -d, -f"$2"; }
csv() { ls /out/vm/"dmstats-$1"/"$2"-* 2>/dev/null | head -n 1; }
# wait_writes INSTANCE N: until the plugin has dispatched N writes for it
# (20 s at most; a slow machine makes TCG slow, the checks say the rest).
wait_writes() {
  i=0
  while [ "$(last "$(csv "$1" disk_ops)" 3)" != "$2" ] && [ "$i" -lt 200 ]; do
    sleep 0.1
    i=$((i + 1))
  done
}

# Field N (1-based counter number) of a @stats_print, summed over areas.
printed() {
  dmsetup message dmtest 0 @stats_print "$1" |
    awk -v f="$(($2 + 1))" '{ s += $f } END { print s + 0 }'
}

run_for() { # run_for SECONDS CONF LOG: the daemon in the foreground
  "$collectd" -f -C "$2" >"$3" 2>&1 &
  pid=$!
  sleep "$1"
  kill "$pid"
  wait "$pid"
}

if [ "$DMSTATS_PHASE" = no-dm ]; then
  write_conf /tmp/nodm.conf /tmp/nodm-out 'CreateRegions true'
  run_for 3 /tmp/nodm.conf /tmp/nodm.log
  n=$(grep -c 'dmstats plugin: .*load the dm_mod module' /tmp/nodm.log)
  check "no device-mapper: one clear error in 3 s of reads (rate-limited)" 1 "$n" ||
    show /tmp/nodm.log
  exit 0
fi

# ---- with device-mapper --------------------------------------------------
# Regions of other programs: otherprog (2 areas) is read, ignoredprog not.
dmsetup message dmtest 0 @stats_create - /2 otherprog
dmsetup message dmtest 0 @stats_create - /1 ignoredprog
# histprog: a histogram in ms (jiffies), 2 areas.
dmsetup message dmtest 0 @stats_create - /2 1 histogram:1,10 histprog

write_conf /tmp/dm.conf /out \
  'Device "/^dm/"' \
  'ProgramID "otherprog"' \
  'ProgramID "histprog"' \
  'CreateRegions true' \
  'PreciseTimestamps true' \
  'Histogram "20us,1ms"'
"$collectd" -f -C /tmp/dm.conf >/tmp/dm.log 2>&1 &
pid=$!
i=0
while ! dmsetup message dmtest 0 @stats_list | grep -q ' collectd '; do
  i=$((i + 1))
  [ "$i" -lt 100 ] || break
  sleep 0.1
done
own=$(dmsetup message dmtest 0 @stats_list | awk '$4 == "collectd" { sub(":", "", $1); print $1 }')
check "the plugin created one region of program id collectd" 3 "${own:-none}"
dmsetup message dmtest 0 @stats_list | grep -q 'collectd .*precise_timestamps histogram:20000,1000000' &&
  ok "its region has precise_timestamps and the histogram" ||
  nok "its region lacks precise_timestamps/histogram: $(dmsetup message dmtest 0 @stats_list)"

# Known I/O: 256 writes and 128 reads of 4 KiB, O_DIRECT.
dd if=/dev/urandom of=/dev/mapper/dmtest bs=4096 count=256 oflag=direct 2>/dev/null
dd if=/dev/mapper/dmtest of=/dev/null bs=4096 count=128 iflag=direct 2>/dev/null
wait_writes dmtest_r0 256 # the plugin has read otherprog's last counters

# Re-create otherprog's region: its counters restart from zero.
before_r=$(printed 0 1)
before_w=$(printed 0 5)
before_ws=$(printed 0 7)
dmsetup message dmtest 0 @stats_delete 0
dmsetup message dmtest 0 @stats_create - /2 otherprog >/dev/null
dd if=/dev/zero of=/dev/mapper/dmtest bs=4096 count=64 oflag=direct 2>/dev/null
for instance in dmtest_r0 "dmtest_r$own" dmtest_r2; do
  wait_writes "$instance" 320
done
sleep 1.5 # a read with nothing new: the totals stay
kill "$pid"
wait "$pid"

after_r=$(printed 0 1)
after_w=$(printed 0 5)
after_ws=$(printed 0 7)

# The plugin's own region: counters of the I/O done.
ops=$(csv "dmtest_r$own" disk_ops)
check "own region: reads" 128 "$(last "$ops" 2)"
check "own region: writes" 320 "$(last "$ops" 3)"
oct=$(csv "dmtest_r$own" disk_octets)
check "own region: bytes read" 524288 "$(last "$oct" 2)"
check "own region: bytes written" 1310720 "$(last "$oct" 3)"
check "own region: pending operations" 0 "$(last "$(csv "dmtest_r$own" pending_operations)" 2 | cut -d. -f1)"
sum=0
names=
for f in /out/vm/dmstats-dmtest_r"$own"/derive-latency-*; do
  sum=$((sum + $(last "$f" 2)))
  b=${f##*/derive-latency-}
  names="$names ${b%-*-*-*}"
done
check "own region: histogram buckets named with their bounds in ns" \
  " 0ns-20000ns 1000000ns-inf 20000ns-1000000ns" "$names"
check "own region: histogram buckets add up to reads + writes" 448 "$sum"

# otherprog's region: kernel counters, never cleared, carried over the
# re-creation without a drop, equal to what @stats_print showed.
ops=$(csv dmtest_r0 disk_ops)
check "otherprog region: reads = @stats_print before + after re-creation" \
  "$((before_r + after_r))" "$(last "$ops" 2)"
check "otherprog region: writes = @stats_print before + after re-creation" \
  "$((before_w + after_w))" "$(last "$ops" 3)"
check "otherprog region: writes = the I/O done" 320 "$(last "$ops" 3)"
check "otherprog region: bytes written = 512 x @stats_print sectors" \
  "$((512 * (before_ws + after_ws)))" "$(last "$(csv dmtest_r0 disk_octets)" 3)"
drops=$(awk -F, 'NR > 1 && ($2 < r || $3 < w) { n++ } NR > 1 { r = $2; w = $3 } END { print n + 0 }' "$ops")
check "otherprog region: counters never went down" 0 "$drops"
check "ignoredprog region (not a configured ProgramID) not reported" \
  "" "$(ls -d /out/vm/dmstats-dmtest_r1 2>/dev/null)"
check "ignoredprog region never cleared by the plugin: its writes" 320 "$(printed 1 5)"
check "total_time_in_ms written for otherprog" yes \
  "$([ -n "$(last "$(ls /out/vm/dmstats-dmtest_r0/total_time_in_ms-write-* | head -n 1)" 2)" ] && echo yes)"

# histprog's histogram: buckets named in ms, equal to @stats_print's.
names=
for f in /out/vm/dmstats-dmtest_r2/derive-latency-*; do
  b=${f##*/derive-latency-}
  names="$names ${b%-*-*-*}"
done
check "histprog region: histogram buckets named with their bounds in ms" \
  " 0ms-1ms 10ms-inf 1ms-10ms" "$names"
hist=$(dmsetup message dmtest 0 @stats_print 2 |
  awk '{ split($15, h, ":"); for (i = 1; i <= 3; i++) s[i] += h[i] }
       END { printf "%d %d %d", s[1], s[2], s[3] }')
got="$(last "$(csv dmtest_r2 derive-latency-0ms-1ms)" 2) $(last "$(csv dmtest_r2 derive-latency-1ms-10ms)" 2) $(last "$(csv dmtest_r2 derive-latency-10ms-inf)" 2)"
check "histprog region: buckets = @stats_print histogram (summed over areas)" "$hist" "$got"
check "histprog region: buckets add up to reads + writes" 448 \
  "$(echo "$got" | awk '{ print $1 + $2 + $3 }')"

# Shutdown removed the plugin's region and nothing else.
check "after shutdown: regions left" "0 1 2" \
  "$(dmsetup message dmtest 0 @stats_list | awk '{ sub(":", "", $1); printf "%s%s", s, $1; s = " " }')" ||
  show /tmp/dm.log
check "no errors logged" 0 "$(grep -c -i 'error' /tmp/dm.log)" || show /tmp/dm.log

# PerArea: each area of histprog's region on its own, as @stats_print's
# lines (16 writes into the second half of the device first).
dd if=/dev/zero of=/dev/mapper/dmtest bs=4096 count=16 seek=10240 oflag=direct 2>/dev/null
write_conf /tmp/area.conf /tmp/area-out 'Device "dmtest"' 'ProgramID "histprog"' \
  'PerArea true'
run_for 3 /tmp/area.conf /tmp/area.log
for a in 0 1; do
  want=$(dmsetup message dmtest 0 @stats_print 2 | awk -v l=$((a + 1)) 'NR == l { print $2 " " $6 }')
  f=$(ls /tmp/area-out/vm/dmstats-dmtest_r2_a$a/disk_ops-* 2>/dev/null | head -n 1)
  check "PerArea: area $a reads and writes = its @stats_print line" "$want" \
    "$(last "$f" 2) $(last "$f" 3)"
done

# A daemon killed outright leaves its region behind; the next run takes it
# over instead of adding one, and its clean shutdown deletes it.
own_list() { dmsetup message dmtest 0 @stats_list | awk '$4 == "collectd" { sub(":", "", $1); printf "%s%s", s, $1; s = " " }'; }
write_conf /tmp/crash.conf /tmp/crash-out 'Device "dmtest"' 'ProgramID "none"' \
  'CreateRegions true'
"$collectd" -f -C /tmp/crash.conf >/tmp/crash.log 2>&1 &
pid=$!
sleep 2
kill -9 "$pid"
wait "$pid" 2>/dev/null
left=$(own_list)
check "after kill -9: one region of the plugin left" 1 "$(echo "$left" | wc -w)"
run_for 2 /tmp/crash.conf /tmp/crash2.log
check "the next run took it over (no second region)" 1 \
  "$(grep -c "using the existing region $left of program id collectd" /tmp/crash2.log)" ||
  show /tmp/crash2.log
check "and deleted it at shutdown" "" "$(own_list)"

# The kernel's dm-stats memory limit (1/4 of RAM) refuses a region of a
# million areas with a histogram on a 1 TiB error device.
echo "0 2147483648 error" | dmsetup create --noudevsync dmbig
write_conf /tmp/big.conf /tmp/big-out 'Device "dmbig"' 'CreateRegions true' \
  'Areas 1000000' 'Histogram "1ms,2ms,3ms,4ms,5ms,6ms,7ms,8ms,9ms,10ms,11ms,12ms,13ms,14ms,15ms,16ms"'
"$collectd" -f -C /tmp/big.conf >/tmp/big.log 2>&1 &
pid=$!
sleep 3
kill "$pid"
wait "$pid"
check "memory limit: one clear error naming stats_current_allocated_bytes" 1 \
  "$(grep -c 'dmstats plugin: device dmbig: .*stats_current_allocated_bytes' /tmp/big.log)" ||
  { show /tmp/big.log; dmsetup message dmbig 0 @stats_list | show; }
dmsetup remove dmbig

# Not root: a clear error about privileges.
write_conf /tmp/user.conf /tmp/user-out 'CreateRegions true'
sed -i 's|^PIDFile .*|PIDFile "/tmp/user/pid"|; s|^BaseDir .*|BaseDir "/tmp/user"|' /tmp/user.conf
mkdir -p /tmp/user && chown 65534 /tmp/user
"$setpriv" --reuid=65534 --regid=65534 --clear-groups "$collectd" -f -C /tmp/user.conf >/tmp/user/log 2>&1 &
pid=$!
sleep 3
kill "$pid"
wait "$pid"
sleep 1
check "not root: one clear error naming CAP_SYS_ADMIN" 1 \
  "$(grep -c 'dmstats plugin: .*CAP_SYS_ADMIN' /tmp/user/log)" ||
  show /tmp/user/log
