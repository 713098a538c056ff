#!/bin/sh
# SPDX-License-Identifier: MIT
# zvm_monitor in the real collectd daemon, fed by the emulated /dev/monreader
# (tests/rig): the figures P2, P3 and P4 of bench/README.md.
#
#   bench/run-daemon-bench.sh [p2] [p3] [p4] [p2a]   (default: all four)
#
# Run from a build directory ('make bench-daemon' does). Takes minutes.
# Nothing here asserts a time; it prints the figures, each with the exact
# command and the machine it ran on.
#
# Environment: COLLECTD_DAEMON, COLLECTD_PLUGIN_DIR, COLLECTD_TYPESDB (as in
# tests/check-daemon-load.sh); P2_GUESTS (2000), P2_SECONDS (60), P2_WRITER
# (network: values go to a UDP sink on 127.0.0.1, or none), P3_GUESTS
# ("100 2000 10000"), P3_VARIANTS ("default one-value-per-list userfield"),
# P3_SECONDS (35), P4_RATE (1000 sets/s), P4_SECONDS (60),
# ZVM_PLUGIN_CONF (extra lines for the <Plugin zvm_monitor> block),
# P2A_GUESTS (500), P2A_SECONDS (30).
set -eu

daemon=${COLLECTD_DAEMON:-/usr/sbin/collectd}
stock=${COLLECTD_PLUGIN_DIR:-/usr/lib/collectd}
typesdb=${COLLECTD_TYPESDB:-/usr/share/collectd/types.db}
top=${abs_top_builddir:-$(pwd)}
libs=$top/.libs
gen=$top/tests/rig/zvm-stream-gen
shim=$top/tests/rig/.libs/libmonreader-emu.so
tck=$(getconf CLK_TCK)
# No TypesDB line for the plugin's own types: it registers them (the
# default configuration).

for f in "$daemon" "$stock/csv.so" "$stock/network.so" "$typesdb" \
  "$libs/zvm_monitor.so" "$gen" "$shim"; do
  [ -e "$f" ] || { echo "run-daemon-bench: $f not found (build first: make)" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "run-daemon-bench: python3 is needed (UDP sink)" >&2; exit 1; }

tmp=$(mktemp -d)
pid=
sinkpid=
cleanup() {
  for p in $pid $sinkpid; do
    if kill -0 "$p" 2>/dev/null; then kill -KILL "$p"; fi
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT PIPE TERM

echo "# run-daemon-bench: $(nproc) online cores, CPU \"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)\", $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "# collectd: $("$daemon" -h 2>&1 | sed -n 's/^collectd \([0-9][0-9.]*[0-9]\).*/\1/p' | head -n 1), plugin: $libs/zvm_monitor.so"

# conf FILE INTERVAL PLUGIN(yes|no) WRITER(none|network|csv) [PLUGIN-LINES...]
conf() {
  out=$1 interval=$2 plugin=$3 writer=$4
  shift 4
  cat >"$out" <<CONF
Hostname "zvmbench"
BaseDir "$tmp"
PIDFile "$tmp/collectd.pid"
Interval $interval
TypesDB "$typesdb"
PluginDir "$stock"
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File stdout
</Plugin>
CONF
  case $writer in
  network)
    cat >>"$out" <<CONF
LoadPlugin network
<Plugin network>
  Server "127.0.0.1" "$sinkport"
</Plugin>
CONF
    ;;
  csv)
    cat >>"$out" <<CONF
LoadPlugin csv
<Plugin csv>
  DataDir "$tmp/csv"
  StoreRates false
</Plugin>
CONF
    ;;
  esac
  if [ "$plugin" = yes ]; then
    {
      echo "PluginDir \"$libs\""
      echo "LoadPlugin zvm_monitor"
      echo "<Plugin zvm_monitor>"
      echo "  Device \"$tmp/monreader\""
      for line in "$@"; do echo "  $line"; done
      [ -z "${ZVM_PLUGIN_CONF:-}" ] || echo "  $ZVM_PLUGIN_CONF"
      echo "</Plugin>"
    } >>"$out"
  fi
}

# start CONF SCENARIO PACE_MS LOOP: the daemon under the emulated device
start() {
  env LD_PRELOAD="$shim" MONREADER_EMU_DEVICE="$tmp/monreader" \
    MONREADER_EMU_SCENARIO="$2" MONREADER_EMU_PACE_MS="$3" \
    MONREADER_EMU_LOOP="$4" MONREADER_EMU_RETIME=1 \
    MONREADER_EMU_PRELOAD="${emu_preload:-0}" \
    "$daemon" -f -C "$1" >"$1.out" 2>&1 &
  pid=$!
  sleep 1
  kill -0 "$pid" 2>/dev/null || { cat "$1.out"; echo "collectd did not start" >&2; exit 1; }
}

# stop CONF: SIGTERM; prints the seconds until the daemon was gone
stop() {
  kill -TERM "$pid"
  i=0
  while kill -0 "$pid" 2>/dev/null; do
    [ $i -lt 300 ] || { echo "collectd still running 30 s after SIGTERM" >&2; exit 1; }
    sleep 0.1
    i=$((i + 1))
  done
  wait "$pid" || true
  pid=
  stop_s="$((i / 10)).$((i % 10))"
}

# ticks PID: utime + stime of the whole process
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# threads PID: "comm ticks" per thread, summed by name
threads() {
  for t in /proc/"$1"/task/*; do
    printf '%s %s\n' "$(cat "$t/comm" | tr ' ' _)" "$(awk '{ print $14 + $15 }' "$t/stat")"
  done | awk '{ s[$1] += $2 } END { for (n in s) print n, s[n] }' | sort
}

# hwm PID: peak resident set (VmHWM) in KiB
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }

# UDP sink for the network writer: counts datagrams, bytes and the values
# of one D4R10 field (each value carries its type instance "hfcpurn"), and
# the combined lists (values parts of 48 values).
sink_start() {
  python3 - "$tmp/sink" <<'PY' &
import signal, socket, sys
out = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
s.bind(("127.0.0.1", 0))
with open(out + ".port", "w") as f:
    f.write(str(s.getsockname()[1]))
n = b = hf = cu = 0
def done(*_):
    with open(out + ".stats", "w") as f:
        f.write(f"{n} {b} {hf} {cu}\n")
    sys.exit(0)
signal.signal(signal.SIGTERM, done)
while True:
    d = s.recv(65536)
    n += 1
    b += len(d)
    hf += d.count(b"hfcpurn\0")
    # a values part (type 6) of 48 values: length 4 + 2 + 48 * 9 = 438
    cu += d.count(b"\x00\x06\x01\xb6\x00\x30")
PY
  sinkpid=$!
  i=0
  while [ ! -s "$tmp/sink.port" ]; do
    i=$((i + 1))
    [ $i -lt 100 ] || { echo "UDP sink did not start" >&2; exit 1; }
    sleep 0.1
  done
  sinkport=$(cat "$tmp/sink.port")
}

sink_stop() {
  kill -TERM "$sinkpid"
  wait "$sinkpid" || true
  sinkpid=
  read -r sink_n sink_b sink_hf sink_cu <"$tmp/sink.stats"
  rm -f "$tmp/sink.port" "$tmp/sink.stats"
}

# ---------------------------------------------------------------------------
# P2: CPU per read pass, 2,000 guests, collectd Interval 1 s, one z/VM
# interval (1 s) of data per collectd interval, with and without the plugin.
# p2_run LABEL PLUGIN(yes|no) [PLUGIN-LINES...]: one measured run; sets ms
p2_run() {
  label=$1 with=$2
  shift 2
  [ "$writer" = network ] && sink_start
  conf "$tmp/p2-$label.conf" 1 "$with" "$writer" "$@"
  start "$tmp/p2-$label.conf" "$scn" "$pace" 0
  sleep 5 # the device is open, the first passes are done
  t0=$(ticks "$pid")
  threads "$pid" >"$tmp/th0"
  sleep "$secs"
  t1=$(ticks "$pid")
  threads "$pid" >"$tmp/th1"
  mem=$(hwm "$pid")
  stop "$tmp/p2-$label.conf"
  extra=
  if [ "$writer" = network ]; then
    sink_stop
    extra="; sink: $sink_n datagrams, hfcpurn values $sink_hf, 48-value lists $sink_cu"
  fi
  ms=$(awk -v d=$((t1 - t0)) -v s="$secs" -v t="$tck" 'BEGIN { printf "%.1f", d * 1000 / t / s }')
  echo "$label: daemon CPU $((t1 - t0)) ticks in $secs s = $ms ms per interval; VmHWM ${mem} KiB; stopped ${stop_s} s after SIGTERM$extra"
  echo "  per thread, ms per interval: $(join "$tmp/th0" "$tmp/th1" | awk -v s="$secs" -v t="$tck" '$3 > $2 { printf "%s %.1f  ", $1, ($3 - $2) * 1000 / t / s }')"
}

# P2: CPU per read pass, 2,000 guests, collectd Interval 1 s, one z/VM
# interval (1 s) of data per collectd interval: without the plugin, with
# it (default: one list of 48 values per guest), with OneValuePerList true
# (48 lists per guest), and with that and UserField (P2_USERFIELDS).
p2() {
  guests=${P2_GUESTS:-2000}
  secs=${P2_SECONDS:-60}
  writer=${P2_WRITER:-network}
  fields=${P2_USERFIELDS:-transactions hfcpurn hfcpuwt}
  scn=$tmp/p2.scn
  cmd="$gen -g $guests -i 10 --interval 1 -o $scn"
  $cmd
  msgs=$("$gen" --describe "$scn" | sed -n '1s/.*messages=\([0-9]*\).*/\1/p')
  pace=$((10000 / msgs))
  echo
  echo "## P2: CPU per interval, $guests guests, Interval 1, writer $writer, $secs s per run"
  echo "# data: $cmd  ($msgs messages per 10 s, MONREADER_EMU_PACE_MS=$pace, LOOP=0, RETIME=1)"
  p2_run without-plugin no
  base=$ms
  p2_run default yes
  all=$ms
  p2_run one-value-per-list yes "OneValuePerList true"
  one=$ms
  set -- "OneValuePerList true"
  for f in $fields; do set -- "$@" "UserField \"$f\""; done
  p2_run "userfield-$(echo $fields | tr " " +)" yes "$@"
  some=$ms
  awk -v a="$all" -v s="$some" -v o="$one" -v b="$base" -v n="$(echo $fields | wc -w)" 'BEGIN {
    printf "P2 plugin share (target < 20 ms CPU per interval): %.1f ms by default (one list of 48 values per guest), %.1f ms with OneValuePerList true (48 lists per guest), %.1f ms with OneValuePerList true and %d UserFields\n", a - b, o - b, s - b, n }'
}

# P3 in the daemon: peak RSS (VmHWM) of collectd with the plugin minus
# without it, same configuration (network writer), Interval 10, P3_SECONDS
# per run, one z/VM interval per 10 s. This includes what the daemon keeps
# per dispatched identifier (its value cache, the write queue); the
# plugin's own data path is measured by 'zvm-bench --memory'. The emulated
# device lives in the daemon's process and holds the whole scenario (about
# 2 KiB per guest and interval): both runs load it at start-up
# (MONREADER_EMU_PRELOAD), so the difference is the plugin's and what
# collectd keeps for its values, not the emulator's.
p3() {
  secs=${P3_SECONDS:-35}
  writer=network
  emu_preload=1
  echo
  echo "## P3 (daemon): VmHWM with the plugin minus without (both with the emulator's scenario loaded), Interval 10, writer $writer, $secs s per run"
  for g in ${P3_GUESTS:-100 2000 10000}; do
    scn=$tmp/p3.scn
    cmd="$gen -g $g -i 10 --interval 10 --force -o $scn" # the last run's file
    $cmd
    msgs=$("$gen" --describe "$scn" | sed -n '1s/.*messages=\([0-9]*\).*/\1/p')
    pace=$((100000 / msgs))
    sink_start
    conf "$tmp/p3-no.conf" 10 no "$writer"
    start "$tmp/p3-no.conf" "$scn" "$pace" 0
    sleep "$secs"
    base=$(hwm "$pid")
    stop "$tmp/p3-no.conf"
    sink_stop
    echo "guests $g, without plugin: VmHWM $base KiB (scenario $(($(wc -c <"$scn") / 1024)) KiB)"
    for variant in ${P3_VARIANTS:-default one-value-per-list userfield}; do
      case $variant in
      default) set -- ;;
      one-value-per-list) set -- 'OneValuePerList true' ;;
      userfield) set -- 'OneValuePerList true' 'UserField "transactions"' 'UserField "hfcpurn"' 'UserField "hfcpuwt"' ;;
      esac
      sink_start
      conf "$tmp/p3-$g.conf" 10 yes "$writer" "$@"
      start "$tmp/p3-$g.conf" "$scn" "$pace" 0
      sleep "$secs"
      mem=$(hwm "$pid")
      stop "$tmp/p3-$g.conf"
      sink_stop
      echo "guests $g, $variant: VmHWM $mem KiB, growth $((mem - base)) KiB = $(((mem - base) * 1024 / g)) bytes per guest  ($cmd; PACE_MS=$pace)"
    done
  done
  emu_preload=0
}

# last_csv DIR TYPE-INSTANCE: the value column of the last line
last_csv() {
  f=$(ls "$1/$2"-* 2>/dev/null | tail -n 1)
  [ -n "$f" ] || { echo "?"; return; }
  tail -n 1 "$f" | cut -d, -f2
}

# ---------------------------------------------------------------------------
# P4: sustained event rate. One interval of 1,000 guests cut into one-frame
# messages (about 50 event sets and 1 sample set), played in a loop at one
# message per millisecond for P4_SECONDS, collectd's default Interval 10.
# Lost sets = messages the device delivered minus total_objects-sets.
p4() {
  rate=${P4_RATE:-1000}
  secs=${P4_SECONDS:-60}
  scn=$tmp/p4.scn
  cmd="$gen -g 1000 -i 1 --set-frames 1 --mces 1 -o $scn"
  $cmd
  msgs=$("$gen" --describe "$scn" | sed -n '1s/.*messages=\([0-9]*\).*/\1/p')
  events=$("$gen" --describe "$scn" | grep -c ' E:' || true)
  pace=$((1000 / rate))
  loops=$((secs * rate / msgs))
  total=$((loops * msgs))
  echo
  echo "## P4: $rate sets/s for $secs s, Interval 10"
  echo "# data: $cmd  ($msgs messages per pass, $events of them event sets; MONREADER_EMU_PACE_MS=$pace, MONREADER_EMU_LOOP=$loops: $total messages, $((loops * events)) event sets)"
  rm -rf "$tmp/csv"
  conf "$tmp/p4.conf" 10 yes csv 'UserID "NOBODY"'
  start "$tmp/p4.conf" "$scn" "$pace" "$loops"
  t0=$(ticks "$pid")
  # all messages have arrived after secs; one more read callback after that
  sleep $((secs + 12))
  t1=$(ticks "$pid")
  mem=$(hwm "$pid")
  stop "$tmp/p4.conf"
  dir=$tmp/csv/zvmbench/zvm_monitor-reader
  sets=$(last_csv "$dir" total_objects-sets)
  eov=$(last_csv "$dir" errors-eoverflow)
  echo "P4: sets read $sets of $total, lost $((total - ${sets%.*})), errors-eoverflow $eov (target 0 and 0); daemon CPU $((t1 - t0)) ticks; VmHWM $mem KiB; stopped ${stop_s} s after SIGTERM"
  grep -E "zvm_monitor plugin: .*(EOVERFLOW|queue)" "$tmp/p4.conf.out" | head -n 3 || true
}

# P2 for APPLDATA: CPU per interval with P2A_GUESTS (500) Linux
# guests of 2 CPUs sending os, mem and net_sum (39 value lists each), as a
# ratio to the same number of D4R10 guests (one value list each, the
# default), Interval 1, one z/VM interval per second, P2A_SECONDS (30).
p2a() {
  guests=${P2A_GUESTS:-500}
  secs=${P2A_SECONDS:-30}
  writer=${P2_WRITER:-network}
  echo
  echo "## P2 APPLDATA: CPU per interval, $guests guests, Interval 1, writer $writer, $secs s per run"
  for kind in without-plugin d4r10 appldata; do
    scn=$tmp/p2a.scn
    case $kind in
    appldata) cmd="$gen -g 0 --smt-every 0 --linux-guests $guests --linux-cpus 2 --appldata os,mem,net_sum -i 10 --interval 1 --force -o $scn" ;;
    *) cmd="$gen -g $guests --smt-every 0 -i 10 --interval 1 --force -o $scn" ;;
    esac
    $cmd
    msgs=$("$gen" --describe "$scn" | sed -n '1s/.*messages=\([0-9]*\).*/\1/p')
    pace=$((10000 / msgs))
    echo "# data: $cmd  ($msgs messages per 10 s, MONREADER_EMU_PACE_MS=$pace)"
    if [ $kind = without-plugin ]; then p2_run $kind no; else p2_run $kind yes; fi
    eval "ms_$(echo $kind | tr - _)=\$ms"
  done
  awk -v b="$ms_without_plugin" -v d="$ms_d4r10" -v a="$ms_appldata" -v g="$guests" 'BEGIN {
    printf "P2 APPLDATA plugin share: %.1f ms per interval for %d Linux guests (os, mem, net_sum), %.1f ms for %d D4R10 guests: ratio %.2f\n", a - b, g, d - b, g, (a - b) / (d - b) }'
}

# ---------------------------------------------------------------------------
case ${1:-all} in
all) set -- p2 p3 p4 p2a ;;
esac
for what in "$@"; do
  "$what"
done
