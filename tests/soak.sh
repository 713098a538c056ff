#!/bin/sh
# SPDX-License-Identifier: MIT
# make soak: zvm_monitor in the real collectd daemon against the emulated
# /dev/monreader with every fault for about SOAK_SECONDS (default 300), at
# SOAK_GUESTS guests (default 2,000) and 20 Linux guests writing APPLDATA
# (hostile strings, a torn record, an unknown product, a CPU hot-plug).
# Every pass of the scenario has an EIO and an EFAULT inside sets, an
# EOVERFLOW, a rejected MCA (an empty set), a malformed record, a set larger
# than MaxSetSize and a severed path (close, back-off, re-open).
# Passes when
#  - the memory collectd has allocated and not freed (counted by
#    tests/rig/libheapstat.so, sampled every 10 s) stays flat: the second half's
#    median is less than SOAK_RSS_SLACK_KIB above the first quarter's,
#  - its RSS, sampled every 10 s, levels off: the fourth quarter's median
#    is less than SOAK_RSS_SLACK_KIB above the second quarter's (RSS also
#    holds what the allocator keeps for reuse, so it may step up once);
#    quarters of the run after its first 60 s, judged from 180 s on,
#  - the reader's counters add up with what the device delivered:
#    delivered (completed + EIO) = sets + eio + efault, each fault count
#    equals the device's, and sets, records, bytes and malformed are the
#    passes times one pass's (tests/soak-check.py, from tests/e2e/oracle.py),
#  - no D4R10 value of a discarded set (EIO, EFAULT, oversize) reached the
#    csv writer (it writes the reader counters and a few guests: the
#    others are dispatched and dropped by a filter chain, to spare disk),
#  - collectd exits within 5 s of SIGTERM.
# Not part of tests/run (it takes minutes).
#
# In the s390x build (tests/run-s390x) the daemon is Debian's s390x collectd
# from the build's sysroot and it, the plugin, the emulated device and the
# generator run under qemu-s390x (E2E_EXEC_WRAPPER, set by make soak); RSS is
# then qemu's (the guest's memory and qemu's translation cache). The default
# there is 60 s; SOAK_SECONDS=1800 make soak runs it long.
set -eu

build=${abs_top_builddir:?run through 'make soak'}
daemon=${COLLECTD_DAEMON:-/usr/sbin/collectd}
usr=$(dirname "$(dirname "$daemon")")
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/e2e/lib.sh"
if [ -n "${E2E_EXEC_WRAPPER:-}" ]; then seconds=${SOAK_SECONDS:-60}; else seconds=${SOAK_SECONDS:-300}; fi
guests=${SOAK_GUESTS:-2000}
pace=${SOAK_PACE_MS:-20}
slack=${SOAK_RSS_SLACK_KIB:-1024}
emu=$build/tests/rig

tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT PIPE TERM

# One pass: 10 one-second intervals of $guests guests (three messages an
# interval at 2,000 guests); message 4 gets a malformed record, message 20
# (a sample) is repeated 16 times: 1.1 MB, over MaxSetSize.
faults="eio@3:100,efault@7:200,eoverflow@11,badmca@13,sever@16"
max_set=1048576
(e2e_exec "$emu/zvm-stream-gen" --seed 11 --guests "$guests" --intervals 10 \
  --interval 1 --smt-every 5 --linux-guests 20 --appldata all --appldata-faults \
  --fault "$faults" -o "$tmp/gen.scn")
check_py=$(dirname "$0")/soak-check.py
python3 "$check_py" patch "$tmp/gen.scn" "$tmp/soak.scn" --malformed 4 --oversize 20:16
eval "$(python3 "$check_py" expect "$tmp/soak.scn" --oversize 20)"
msgs=$( (e2e_exec "$emu/zvm-stream-gen" --describe "$tmp/soak.scn") | grep -c '^message' || true)
# A pass takes msgs * pace, plus about a second of re-open back-off.
pass_ms=$((msgs * pace + 1100))
passes=$((seconds * 1000 / pass_ms))
[ "$passes" -ge 1 ] || passes=1
echo "soak: $guests guests, $msgs messages a pass, $passes passes, pace $pace ms, faults $faults, malformed@4, oversize@20"
echo "soak: a pass: sets $exp_sets records $exp_records bytes $exp_read eio $exp_eio efault $exp_efault eoverflow $exp_eoverflow malformed $exp_malformed"

cat >"$tmp/collectd.conf" <<CONF
Hostname "soak"
FQDNLookup false
BaseDir "$tmp"
PIDFile "$tmp/collectd.pid"
Interval 1
TypesDB "$usr/share/collectd/types.db"
PluginDir "$usr/lib/collectd"
LoadPlugin csv
LoadPlugin match_regex
<Chain "PostCache">
  <Rule "watch">
    <Match "regex">
      Plugin "^zvm_monitor$"
      PluginInstance "^(reader|$watch)$"
    </Match>
    Target "write"
  </Rule>
  Target "stop"
</Chain>
<Plugin csv>
  DataDir "$tmp/csv"
  StoreRates false
</Plugin>
PluginDir "$build/.libs"
LoadPlugin zvm_monitor
<Plugin zvm_monitor>
  Device "/dev/monreader"
  MaxSetSize $max_set
</Plugin>
CONF

# The count of memory allocated and not freed wraps malloc; ASan's own
# allocator comes first and cannot be wrapped.
heapstat=" $emu/libheapstat.so"
[ -z "${ZVM_ASAN_RUNTIME:-}" ] || heapstat=

e2e_exec MONREADER_EMU_SCENARIO="$tmp/soak.scn" MONREADER_EMU_PACE_MS="$pace" \
  MONREADER_EMU_LOOP="$passes" \
  MONREADER_EMU_STATS="$tmp/emu.stats" \
  HEAPSTAT_FILE="$tmp/heap" HEAPSTAT_SECONDS=10 \
  LD_PRELOAD="${ZVM_ASAN_RUNTIME:+$ZVM_ASAN_RUNTIME }$emu/libmonreader-emu.so$heapstat" \
  "$daemon" -f -C "$tmp/collectd.conf" >"$tmp/collectd.out" 2>&1 &
pid=$!

counter() { # counter TYPE-INSTANCE: last value the csv writer holds
  f=$(ls "$tmp"/csv/soak/zvm_monitor-reader/"$1"-* 2>/dev/null | tail -n 1)
  if [ -n "$f" ]; then tail -n 1 "$f" | cut -d, -f2 | cut -d. -f1; else echo 0; fi
}
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }
# Bytes allocated and not freed (libheapstat.so's latest line), in KiB.
heap_kib() { tail -n 1 "$tmp/heap" 2>/dev/null | awk '{ print int($2 / 1024) }'; }

start=$(date +%s)
last_sets=-1
still=0
: >"$tmp/rss"
echo "   time   RSS KiB in use KiB      sets       eio    efault malformed  (device: last close)"
while :; do
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/collectd.out"; echo "FAIL: collectd died"; exit 1; }
  now=$(($(date +%s) - start))
  rss=$(rss_kib)
  sets=$(counter total_objects-sets)
  echo "$now $rss" >>"$tmp/rss"
  printf '%7ss %9s %9s %9s %9s %9s %9s  (%s)\n' "$now" "$rss" "$(heap_kib)" "$sets" "$(counter errors-eio)" \
    "$(counter errors-efault)" "$(counter errors-malformed)" "$(tail -n 1 "$tmp/emu.stats" 2>/dev/null)"
  # Done when the stream has ended and the counters have settled.
  if [ "$sets" = "$last_sets" ]; then still=$((still + 1)); else still=0; fi
  last_sets=$sets
  [ "$still" -ge 2 ] && [ "$now" -ge $((passes * pass_ms / 1000)) ] && break
  [ "$now" -gt $((seconds * 3 + 120)) ] && { echo "FAIL: the stream did not end"; exit 1; }
  sleep 10
done

eio=$(counter errors-eio)
efault=$(counter errors-efault)
eoverflow=$(counter errors-eoverflow)
malformed=$(counter errors-malformed)
sets=$(counter total_objects-sets)
records=$(counter total_objects-records)
bytes=$(counter total_bytes-read)

t0=$(date +%s%N)
kill -TERM "$pid"
wait "$pid" 2>/dev/null || true
pid=
stop_ms=$((($(date +%s%N) - t0) / 1000000))

stats=$(tail -n 1 "$tmp/emu.stats")
get() { echo "$stats" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
completed=$(get completed)
dev_eio=$(get eio)
dev_efault=$(get efault)
dev_eoverflow=$(get eoverflow)

fails=0
check() { # check WHAT GOT WANT
  if [ "$2" = "$3" ]; then echo "ok - $1: $2"; else echo "FAIL - $1: $2, want $3"; fails=$((fails + 1)); fi
}
echo "device: $stats"
echo "plugin: sets=$sets records=$records eio=$eio efault=$efault eoverflow=$eoverflow malformed=$malformed"
check "device messages delivered = sets + eio + efault" \
  "$((completed + dev_eio))" "$((sets + eio + efault))"
check "errors-eio = EIOs injected" "$eio" "$dev_eio"
check "errors-efault = EFAULTs injected" "$efault" "$dev_efault"
check "errors-eoverflow = EOVERFLOWs" "$eoverflow" "$dev_eoverflow"
check "passes played (one EIO each)" "$dev_eio" "$passes"
check "total_objects-sets = passes x $exp_sets" "$sets" "$((passes * exp_sets))"
check "total_objects-records = passes x $exp_records" "$records" "$((passes * exp_records))"
check "total_bytes-read = passes x $exp_read" "$bytes" "$((passes * exp_read))"
check "errors-malformed = passes x $exp_malformed (rejected MCA, malformed record, oversize set)" \
  "$malformed" "$((passes * exp_malformed))"
if python3 "$check_py" forbidden "$tmp/soak.scn" --oversize 20 --passes "$passes" --csv "$tmp/csv"; then
  echo "ok - no value from a discarded set"
else
  echo "FAIL - values from discarded sets"
  fails=$((fails + 1))
fi

# Memory. Medians of 10-s samples, not peaks: a sample taken while sets
# wait in the queue (or the oversize set is being read) is a few MB above
# the next one. The run after start-up (60 s) in quarters Q1-Q4; a run
# too short for quarters of 30 s is not judged.
end_s=$(tail -n 1 "$tmp/rss" | cut -d' ' -f1)
span=$((end_s - 60))
b1=$((60 + span / 4))
b2=$((60 + span / 2))
b3=$((60 + span * 3 / 4))
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }
window() { # window FILE FROM TO: the median of column 2 in FROM < s <= TO
  awk -v a="$2" -v b="$3" '$1 > a && $1 <= b { print $2 }' "$1" | median
}
unjudged=0
awk '{ print $1, int($2 / 1024) }' "$tmp/heap" >"$tmp/heap.kib" 2>/dev/null || :
heap_q1=$(window "$tmp/heap.kib" 59 "$b1")
heap_late=$(window "$tmp/heap.kib" "$b2" "$end_s")
rss_q1=$(window "$tmp/rss" 59 "$b1")
rss_q2=$(window "$tmp/rss" "$b1" "$b2")
rss_q3=$(window "$tmp/rss" "$b2" "$b3")
rss_q4=$(window "$tmp/rss" "$b3" "$end_s")
peak=$(awk 'm < $2 { m = $2 } END { print m }' "$tmp/rss")
echo "memory in use (allocated, not freed): median $heap_q1 KiB in Q1 (60-$b1 s), $heap_late KiB in the second half"
echo "RSS: medians by quarter $rss_q1, $rss_q2, $rss_q3, $rss_q4 KiB; peak $peak KiB ($(wc -l <"$tmp/rss") samples)"
# A leak is memory allocated and never freed (libheapstat.so counts it):
# the second half's median against Q1's.
if [ "$span" -lt 120 ]; then
  echo "not judged - memory: the run is too short for quarters of 30 s"
  unjudged=2
elif [ -z "$heapstat" ]; then
  echo "not judged - memory in use: not counted under ASan"
  unjudged=1
elif [ "$heap_q1" -eq 0 ]; then
  echo "FAIL - memory in use not measured (no samples from libheapstat.so)"
  fails=$((fails + 1))
elif [ "$heap_late" -gt $((heap_q1 + slack)) ]; then
  echo "FAIL - memory in use grew by $((heap_late - heap_q1)) KiB (slack $slack KiB)"
  fails=$((fails + 1))
else
  echo "ok - memory in use flat within $slack KiB (growth $((heap_late - heap_q1)) KiB)"
fi
# RSS also holds what the allocator keeps for reuse: each thread's arena
# keeps the largest working set it has had (collectd's read threads take
# turns with the read callback), so RSS may step up while the memory in
# use stays flat. It must level off: Q4's median no more than the slack
# above Q2's (a leak grows on).
if [ "$span" -ge 120 ]; then
  if [ "$rss_q4" -gt $((rss_q2 + slack)) ]; then
    echo "FAIL - RSS still growing: $((rss_q4 - rss_q2)) KiB from Q2 to Q4 (slack $slack KiB)"
    fails=$((fails + 1))
  else
    echo "ok - RSS levels off within $slack KiB (Q2 to Q4 $((rss_q4 - rss_q2)) KiB; Q4 is $((rss_q4 - rss_q1)) KiB above Q1)"
  fi
fi
if [ "$stop_ms" -gt 5000 ]; then
  echo "FAIL - collectd took $stop_ms ms to stop"
  fails=$((fails + 1))
else
  echo "ok - collectd stopped $stop_ms ms after SIGTERM"
fi
note=
[ "$unjudged" -eq 0 ] || note=", $unjudged not judged"
echo "soak: $((13 - unjudged - fails)) passed, $fails failed$note"
[ "$fails" -eq 0 ]
