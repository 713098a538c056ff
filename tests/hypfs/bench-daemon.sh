#!/bin/sh
# SPDX-License-Identifier: MIT
# hypfs.so in the real collectd daemon: CPU per interval at 2,000 and
# 10,000 guests (Interval 1, values sent by the network plugin to a UDP
# sink), with the plugin minus without it, and the same figure for
# zvm_monitor's D4R10 (bench/run-daemon-bench.sh p2, default
# configuration) at the same guest count, as a ratio.
#
#   tests/hypfs/bench-daemon.sh          ('make bench-hypfs-daemon')
#
# Environment: HB_GUESTS ("2000 10000"), HB_SECONDS (30), HB_ZVM (1: also
# run zvm_monitor's P2 for the ratio; 0: skip), COLLECTD_DAEMON,
# COLLECTD_PLUGIN_DIR, COLLECTD_TYPESDB. Prints figures; asserts nothing.
set -eu

daemon=${COLLECTD_DAEMON:-/usr/sbin/collectd}
stock=${COLLECTD_PLUGIN_DIR:-/usr/lib/collectd}
typesdb=${COLLECTD_TYPESDB:-/usr/share/collectd/types.db}
top=${abs_top_builddir:-$(pwd)}
src=${abs_top_srcdir:-$top/..}
gen=$top/tests/rig/hypfs-gen
secs=${HB_SECONDS:-30}
tck=$(getconf CLK_TCK)
for f in "$daemon" "$stock/network.so" "$typesdb" "$top/.libs/hypfs.so" "$gen"; do
  [ -e "$f" ] || { echo "bench-daemon: $f not found (build first: make)" >&2; exit 1; }
done

tmp=$(mktemp -d)
pids=
cleanup() {
  for p in $pids; do kill -KILL "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT PIPE TERM

echo "# hypfs bench-daemon: $(nproc) online cores, CPU \"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)\", $(date -u '+%Y-%m-%d %H:%M:%S UTC')"

python3 - "$tmp/sink" <<'PY' &
import signal, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
s.bind(("127.0.0.1", 0))
open(sys.argv[1] + ".port", "w").write(str(s.getsockname()[1]))
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
while True:
    s.recv(65536)
PY
pids="$pids $!"
i=0
while [ ! -s "$tmp/sink.port" ]; do
  i=$((i + 1))
  [ $i -lt 100 ] || { echo "UDP sink did not start" >&2; exit 1; }
  sleep 0.1
done
port=$(cat "$tmp/sink.port")

conf() { # conf FILE WITH-PLUGIN
  cat >"$1" <<CONF
Hostname "hypfsbench"
BaseDir "$tmp"
PIDFile "$tmp/collectd.pid"
Interval 1
TypesDB "$typesdb"
PluginDir "$stock"
LoadPlugin network
<Plugin network>
  Server "127.0.0.1" "$port"
</Plugin>
CONF
  if [ "$2" = yes ]; then
    cat >>"$1" <<CONF
PluginDir "$top/.libs"
LoadPlugin hypfs
<Plugin hypfs>
  DebugfsPath "$tmp/cur/debugfs"
  HypfsPath "$tmp/cur/hypfs"
</Plugin>
CONF
  fi
}

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# run LABEL WITH-PLUGIN: sets ms (daemon CPU per 1 s interval)
run() {
  conf "$tmp/$1.conf" "$2"
  "$daemon" -f -C "$tmp/$1.conf" >"$tmp/$1.out" 2>&1 &
  pid=$!
  pids="$pids $pid"
  sleep 5
  kill -0 "$pid" || { cat "$tmp/$1.out"; exit 1; }
  t0=$(ticks "$pid")
  sleep "$secs"
  t1=$(ticks "$pid")
  kill -TERM "$pid"
  wait "$pid" || true
  ms=$(awk -v d=$((t1 - t0)) -v s="$secs" -v t="$tck" 'BEGIN { printf "%.2f", d * 1000 / t / s }')
  echo "  $1: daemon CPU $((t1 - t0)) ticks in $secs s = $ms ms per interval"
}

for g in ${HB_GUESTS:-2000 10000}; do
  echo
  echo "## $g guests, Interval 1, network writer, $secs s per run"
  # a new snapshot every second (a new DIAG X'2FC' clock each time), in a
  # process of its own: its CPU is not the daemon's
  (k=1
  while :; do
    "$gen" --guests "$g" --no-tree --step $k "$tmp/data.$((k % 2))" >/dev/null
    ln -sfn "data.$((k % 2))" "$tmp/cur.new" && mv -T "$tmp/cur.new" "$tmp/cur"
    k=$((k + 1))
    sleep 1
  done) &
  genpid=$!
  pids="$pids $genpid"
  sleep 2
  run without-plugin no
  base=$ms
  run hypfs yes
  hyp=$ms
  kill "$genpid" 2>/dev/null || true
  share=$(awk -v a="$hyp" -v b="$base" 'BEGIN { printf "%.2f", a - b }')
  echo "hypfs at $g guests: $share ms daemon CPU per interval (with $hyp minus without $base)"
  if [ "${HB_ZVM:-1}" = 1 ]; then
    out=$(P2_GUESTS=$g P2_SECONDS=$secs abs_top_builddir=$top COLLECTD_DAEMON=$daemon \
      sh "$src/bench/run-daemon-bench.sh" p2 2>&1) || { echo "$out"; exit 1; }
    zvm=$(echo "$out" | sed -n 's/^P2 plugin share[^:]*: \([0-9.]*\) ms by default.*/\1/p')
    echo "zvm_monitor D4R10 at $g guests (bench/run-daemon-bench.sh p2, default): $zvm ms"
    awk -v h="$share" -v z="$zvm" -v g="$g" 'BEGIN {
      if (z > 0) printf "ratio hypfs / zvm_monitor D4R10 at %d guests: %.2f\n", g, h / z }'
  fi
done
