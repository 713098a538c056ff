#!/bin/sh
# SPDX-License-Identifier: MIT
# hypfs.so end to end: the real collectd daemon reads files that
# tests/rig/hypfs-gen writes as the kernel's hypfs would (debugfs
# diag_2fc / diag_204 and the /sys/hypervisor/s390 tree), and every value
# the csv plugin stores is checked against the generator's known inputs by
# tests/hypfs/check.py (the man page's rules, computed independently).
#
# usage: tests/hypfs/e2e.sh BUILD-DIR [SCENARIO...]
# One line per scenario (PASS/FAIL/SKIP), its time, then "N passed, N
# failed, N skipped" (e2e_scenarios, tests/e2e/lib.sh). Under CI=true a
# scenario skipped for want of a package fails (tests/lib.sh, "Skipped
# tests").
# Environment as tests/e2e/lib.sh (COLLECTD_DAEMON, E2E_EXEC_WRAPPER for
# the s390x build, E2E_KEEP, ZVM_ASAN_RUNTIME).
set -u

[ $# -ge 1 ] || { echo "usage: $0 BUILD-DIR [SCENARIO...]"; exit 2; }
E2E_BUILD=$(cd "$1" && pwd) || exit 2
shift
src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib.sh
. "$src/tests/lib.sh"
# shellcheck source=tests/e2e/lib.sh
. "$src/tests/e2e/lib.sh"
e2e_init
GEN=$E2E_BUILD/tests/rig/hypfs-gen
CHECK="python3 $src/tests/hypfs/check.py"
HOST=hypfstest

# conf DIR [PLUGIN-BLOCK-LINE...]: DIR/collectd.conf, the plugin reading
# DIR/cur (the generated snapshot the test switches atomically).
conf() {
  d=$1
  shift
  e2e_collectd_conf "$d" "$HOST" hypfs "DebugfsPath \"$d/cur/debugfs\"" \
    "HypfsPath \"$d/cur/hypfs\"" "$@"
}

start() {
  e2e_bg "$1/collectd.out" e2e_exec TZ=UTC ASAN_OPTIONS=detect_leaks=0 \
    ${ZVM_ASAN_RUNTIME:+LD_PRELOAD=$ZVM_ASAN_RUNTIME} \
    "$E2E_DAEMON" -f -C "$1/collectd.conf"
  DAEMON=$E2E_PID
}

# snapshot DIR STEP [GEN-ARGS...]: generate, then switch DIR/cur to it.
snapshot() {
  d=$1
  k=$2
  shift 2
  e2e_run "$GEN" "$@" --step "$k" --expect "$d/exp.$k" "$d/data.$k" >>"$SC_LOG" 2>&1 ||
    fail "hypfs-gen $* --step $k failed" || return 1
  ln -sfn "data.$k" "$d/cur.new" && mv -T "$d/cur.new" "$d/cur"
  EXPS="$EXPS $d/exp.$k"
}

# seen MODE [CHECK-FLAGS...]: wait until collectd stored what check.py
# expects after the snapshots in $EXPS; its differences into the log.
seen() {
  mode=$1
  shift
  # shellcheck disable=SC2086
  if e2e_wait 20 sh -c "$CHECK $* $mode '$D/csv' '$HOST' $EXPS >'$D/check.out'"; then
    return 0
  fi
  cat "$D/check.out" >>"$SC_LOG"
  fail "collectd did not store the expected values of $(basename "${EXPS##* }")"
}

reader() { # reader NAME: latest value of hypfs-reader/NAME in csv
  tail -n 1 "$D"/csv/$HOST/hypfs-reader/"$1"-????-??-?? 2>/dev/null | cut -d, -f2
}

stop_daemon() {
  e2e_stop "$DAEMON" 15 || fail "collectd did not stop on SIGTERM"
}

no_errors_logged() {
  if grep -q '\[error\]' "$D/collectd.log"; then
    grep '\[error\]' "$D/collectd.log" >>"$SC_LOG"
    fail "errors logged"
  fi
}

# --- scenarios -----------------------------------------------------------

# z/VM through debugfs: every field of every guest exactly; a guest logs
# off and on (counters continued, no decrease); a guest vanishes (nothing
# invented for it) and comes back logged on again.
sc_vm_debugfs() {
  EXPS=
  snapshot "$D" 1 --guests 4 --odd-names || return 1
  conf "$D" && start "$D"
  seen vm || return 1
  snapshot "$D" 2 --guests 4 --odd-names && seen vm || return 1
  say "ok - steps 1 and 2: every field exact"
  snapshot "$D" 3 --guests 4 --odd-names --restart 0:3 && seen vm || return 1
  say "ok - logoff/logon of LNX00000: counters continued"
  snapshot "$D" 4 --guests 4 --odd-names --restart 0:3 --vanish 2 && seen vm || return 1
  say "ok - A.B vanished: its last values stay, nothing new"
  snapshot "$D" 5 --guests 4 --odd-names --restart 0:3,2:5 && seen vm || return 1
  say "ok - A.B back, logged on again: counters continued"
  [ "$(reader total_objects-restarts)" = 2 ] ||
    fail "total_objects-restarts: want 2, got $(reader total_objects-restarts)" || return 1
  stop_daemon || return 1
  no_errors_logged
}

# The same guests through the hypfs tree (Source "hypfs"), GuestsAsHosts:
# the same names and values as through debugfs.
sc_vm_tree() {
  EXPS=
  snapshot "$D" 1 --guests 4 --odd-names || return 1
  conf "$D" 'Source "hypfs"' 'GuestsAsHosts true' && start "$D"
  seen vm --gah || return 1
  snapshot "$D" 2 --guests 4 --odd-names --wrap && seen vm --gah || return 1
  snapshot "$D" 3 --guests 4 --odd-names --wrap && seen vm --gah || return 1
  say "ok - tree, GuestsAsHosts, a samples_total wrapping past 2^32"
  stop_daemon || return 1
  no_errors_logged
}

# UserID selection with zvm_monitor's semantics.
sc_vm_selection() {
  EXPS=
  snapshot "$D" 1 --guests 5 || return 1
  conf "$D" 'UserID "/^LNX0000[13]$/"' 'UserID "lnx00004"' && start "$D"
  e2e_wait 15 test -d "$D/csv/$HOST/hypfs-LNX00004" || fail "LNX00004 not stored" || return 1
  sleep 2
  got=$(cd "$D/csv/$HOST" && ls -d hypfs-LNX* | tr '\n' ' ')
  [ "$got" = "hypfs-LNX00001 hypfs-LNX00003 hypfs-LNX00004 " ] ||
    fail "selected guests: $got" || return 1
  stop_daemon
}

# OneValuePerList (for write_graphite): each data source a list of type
# derive or gauge, the data source as type instance.
sc_one_value_per_list() {
  EXPS=
  snapshot "$D" 1 --guests 2 || return 1
  conf "$D" 'OneValuePerList true' && start "$D"
  g=$D/csv/$HOST/hypfs-LNX00001
  for pair in derive-cpu_time_us:200001 gauge-mem_used_bytes:135266304.000000 \
    derive-samples_total:37 gauge-capped:1.000000; do
    f=${pair%%:*}
    want=${pair#*:}
    e2e_wait 15 sh -c "tail -n 1 $g/$f-????-??-?? 2>/dev/null | grep -q ',$want\$'" ||
      fail "$f: want $want, got $(tail -n 1 "$g"/"$f"-* 2>/dev/null)" || return 1
  done
  n=$(ls "$g" | wc -l)
  [ "$n" -eq 18 ] || fail "LNX00001: want 18 value lists, got $n" || return 1
  say "ok - 18 lists per guest, values exact"
  stop_daemon || return 1
  no_errors_logged
}

# An LPAR through debugfs (extended format): partitions, logical CPUs with
# a management time the kernel would wrap, physical CPUs; a partition whose
# CPUs restart.
sc_lpar_debugfs() {
  EXPS=
  snapshot "$D" 1 --lpar --lpars 3 --cpus 3 --phys 4 --mgm-wrap || return 1
  conf "$D" && start "$D"
  seen lpar || return 1
  snapshot "$D" 2 --lpar --lpars 3 --cpus 3 --phys 4 --mgm-wrap && seen lpar || return 1
  snapshot "$D" 3 --lpar --lpars 3 --cpus 3 --phys 4 --mgm-wrap --restart 1:3 &&
    seen lpar || return 1
  say "ok - partitions, CPUs, physical CPUs exact; restart continued"
  stop_daemon || return 1
  no_errors_logged
}

# An old machine's LPAR: the simple format, only through the tree (Source
# auto falls back to it: no diag_204 in debugfs).
sc_lpar_tree_simple() {
  EXPS=
  snapshot "$D" 1 --lpar --simple --lpars 2 --cpus 2 --phys 2 || return 1
  conf "$D" && start "$D"
  seen lpar --simple || return 1
  snapshot "$D" 2 --lpar --simple --lpars 2 --cpus 2 --phys 2 && seen lpar --simple || return 1
  stop_daemon || return 1
  no_errors_logged
}

# A torn debugfs file: counted in errors-short, nothing dispatched from it,
# the next good file read as usual.
sc_torn() {
  EXPS=
  snapshot "$D" 1 --guests 3 || return 1
  conf "$D" && start "$D"
  seen vm || return 1
  e2e_run "$GEN" --guests 3 --step 2 --torn "$D/data.2" >>"$SC_LOG" 2>&1 &&
    ln -sfn data.2 "$D/cur.new" && mv -T "$D/cur.new" "$D/cur" || return 1
  e2e_wait 15 sh -c "[ \"\$(tail -n 1 '$D'/csv/$HOST/hypfs-reader/errors-short-????-??-?? | cut -d, -f2)\" -ge 1 ]" ||
    fail "errors-short not counted" || return 1
  # step 2's CPU time of LNX00000 (200000) never reached collectd
  if grep -q ',200000,' "$D"/csv/$HOST/hypfs-LNX00000/hypfs_guest-*; then
    fail "a value of the torn file was dispatched"
    return 1
  fi
  grep -q 'hypfs plugin: .*rejected a short file' "$D/collectd.log" ||
    fail "no log line for the torn file" || return 1
  snapshot "$D" 3 --guests 3 && seen vm || return 1
  say "ok - torn file counted and skipped; next file read"
  stop_daemon
}

# Faults: nothing mounted (one clear line, rate-limited, the daemon runs
# on); only the own guest visible (class B); unknown options fatal.
sc_faults() {
  mkdir -p "$D/a" "$D/b" "$D/c"
  conf "$D/a" 'Source "debugfs"' && start "$D/a"
  sleep 4
  kill -0 "$DAEMON" || fail "the daemon stopped" || return 1
  stop_daemon || return 1
  n=$(grep -c 'hypfs plugin: .*no diag_2fc or diag_204: mount debugfs' "$D/a/collectd.log")
  [ "$n" -ge 1 ] && [ "$n" -le 3 ] || fail "not mounted: want 1-3 lines in 4 s, got $n" || return 1
  say "ok - not mounted: $n rate-limited lines"
  EXPS=
  e2e_run "$GEN" --guests 1 --step 1 "$D/b/data.1" >/dev/null && ln -sfn data.1 "$D/b/cur" || return 1
  conf "$D/b" && start "$D/b"
  e2e_wait 15 grep -q 'hypfs plugin: only one guest (LNX00000) is visible: .*class B' "$D/b/collectd.log" 2>/dev/null ||
    fail "no privilege class B warning" || return 1
  stop_daemon || return 1
  say "ok - own guest only: class B named"
  conf "$D/c" 'Bogus 1'
  if e2e_run -t 20 ASAN_OPTIONS=detect_leaks=0 ${ZVM_ASAN_RUNTIME:+LD_PRELOAD=$ZVM_ASAN_RUNTIME} \
    "$E2E_DAEMON" -T -C "$D/c/collectd.conf" >"$D/c/out" 2>&1; then
    fail "collectd accepted an unknown option"
    return 1
  fi
  grep -q 'hypfs plugin: unknown option "Bogus"' "$D/c/out" "$D/c/collectd.log" 2>/dev/null ||
    fail "no error naming the unknown option" || return 1
  say "ok - unknown option is fatal"
}

# logged LINE-PATTERN [SECONDS]: wait until collectd.log has a hypfs line
# matching the extended regular expression.
logged() {
  e2e_wait "${2:-15}" grep -Eq "hypfs plugin: .*$1" "$D/collectd.log" 2>/dev/null ||
    fail "no log line matching: hypfs plugin: $1"
}

# count_logged LINE-PATTERN: how many hypfs lines match.
count_logged() { grep -Ec "hypfs plugin: .*$1" "$D/collectd.log"; }

# The tree emptied by a failing update of the kernel (a guest name that
# cannot be a directory, no guest at all): said once as such, not "not
# mounted"; update written every interval; read again once the kernel
# rebuilds the tree. Then a guest the tree reads partly, named.
sc_vm_tree_emptied() {
  EXPS=
  snapshot "$D" 1 --guests 3 || return 1
  conf "$D" 'Source "hypfs"' && start "$D"
  seen vm || return 1
  EXPS=
  snapshot "$D" 2 --guests 3 --slash-name 1 || return 1
  logged "$D/cur/hypfs holds only its update file: hypfs is mounted, but the kernel's last update of the tree failed" ||
    return 1
  upd=$D/data.2/hypfs/update
  e2e_wait 10 grep -qx 1 "$upd" || fail "update not written in the emptied tree" || return 1
  m1=$(stat -c %Y "$upd")
  sleep 3
  m2=$(stat -c %Y "$upd")
  [ "$m2" -gt "$m1" ] || fail "update not written again while the tree stays empty ($m1, $m2)" ||
    return 1
  sleep 1
  n=$(count_logged 'holds only its update file')
  [ "$n" -eq 1 ] || fail "emptied tree: want 1 line, got $n" || return 1
  [ "$(count_logged 'not mounted')" -eq 0 ] || fail "an emptied tree called not mounted" || return 1
  say "ok - emptied tree said once, update written every interval ($m1 -> $m2)"
  EXPS=
  snapshot "$D" 3 --guests 3 && seen vm || return 1
  logged "reading works again" || return 1
  say "ok - the bad guest logged off: the tree read again"
  snapshot "$D" 4 --guests 0 || return 1
  e2e_wait 10 grep -qx 1 "$D/data.4/hypfs/update" || fail "update not written for 0 guests" || return 1
  EXPS=
  snapshot "$D" 5 --guests 3 && seen vm || return 1
  say "ok - no guests (the kernel cannot build the tree): emptied, then read again"
  EXPS=
  snapshot "$D" 6 --guests 4 --tree-missing 2 && seen vm || return 1
  logged "skipped 1 of the 4 guests of the DIAG X'2FC' snapshot, the first named LNX00002 for a file missing or unreadable in its directory" ||
    return 1
  say "ok - tree: a guest read partly named in the log, guests 4 (every record)"
  stop_daemon
}

# What debugfs gives for the same snapshots: a guest with a blank name
# skipped and named, every record counted in guests; a name the tree
# cannot hold read as any other; a snapshot of no guest: guests 0, no
# cpus (nothing to take it from), said in the log.
sc_vm_debugfs_names() {
  EXPS=
  snapshot "$D" 1 --guests 4 --blank-name 1 --slash-name 2 || return 1
  conf "$D" 'Source "debugfs"' && start "$D"
  seen vm || return 1
  logged "skipped 1 of the 4 guests of the DIAG X'2FC' snapshot, the first named X'4040404040404040' for a blank name: no values for them, counted in total_objects-skipped" ||
    return 1
  [ "$(reader total_objects-skipped)" -ge 1 ] || fail "skipped not counted" || return 1
  say "ok - a blank name skipped and named; LNX/2 read as LNX%612; guests 4"
  EXPS=
  snapshot "$D" 2 --guests 0 && seen vm || return 1
  logged "the DIAG X'2FC' snapshot holds no guest at all, although the own one is always there" ||
    return 1
  say "ok - count 0: guests 0, cpus unknown, said in the log"
  EXPS=
  snapshot "$D" 3 --guests 2 && seen vm || return 1
  logged "the snapshot holds entries again" || return 1
  stop_daemon || return 1
  no_errors_logged
}

# A diag_204 in the simple format (subcode 4 in its header): decoded as
# the tree gives it, not as the extended format; no partition at all:
# said in the log, for both sources.
sc_lpar_debugfs_simple() {
  EXPS=
  snapshot "$D" 1 --lpar --simple --simple-debugfs --lpars 2 --cpus 2 --phys 2 || return 1
  conf "$D" 'Source "debugfs"' && start "$D"
  seen lpar --simple || return 1
  snapshot "$D" 2 --lpar --simple --simple-debugfs --lpars 2 --cpus 2 --phys 2 &&
    seen lpar --simple || return 1
  got=$(cd "$D/csv/$HOST" && ls -d hypfs-* | tr '\n' ' ')
  [ "$got" = "hypfs-LPAR00 hypfs-LPAR01 hypfs-hypervisor hypfs-physical hypfs-reader " ] ||
    fail "partitions stored: $got" || return 1
  say "ok - simple-format debugfs file: the partitions and CPUs of the tree"
  snapshot "$D" 3 --lpar --simple --simple-debugfs --lpars 0 --phys 2 || return 1
  logged "the DIAG X'204' snapshot holds no partition at all" || return 1
  stop_daemon || return 1
  no_errors_logged || return 1
  say "ok - no partition (debugfs): said"
  D=$D/tree
  mkdir -p "$D"
  EXPS=
  snapshot "$D" 1 --lpar --lpars 0 --phys 2 || return 1
  conf "$D" 'Source "hypfs"' && start "$D"
  logged "the DIAG X'204' snapshot holds no partition at all" || return 1
  stop_daemon || return 1
  say "ok - no partition (tree): said"
}

# fifo_case NAME SOURCE SETUP...: a FIFO where the plugin expects a
# regular file or directory; the daemon goes on reading (its reader
# values, the load plugin), says it once per fault, stops within 2 s.
fifo_case() {
  name=$1
  source=$2
  shift 2
  d=$D/$name
  mkdir -p "$d" || return 1
  e2e_run "$GEN" --guests 2 --step 1 "$d/data.1" >/dev/null && ln -sfn data.1 "$d/cur" || return 1
  (cd "$d/cur" && "$@") || { fail "$name: setting up the FIFO failed"; return 1; }
  E2E_EXTRA_PLUGINS='LoadPlugin load' conf "$d" "Source \"$source\"" || return 1
  start "$d"
  ok=0
  e2e_wait 10 sh -c "[ \$(cat '$d'/csv/$HOST/hypfs-reader/errors-read-????-??-?? 2>/dev/null | wc -l) -ge 4 ]" &&
    e2e_wait 5 sh -c "ls '$d'/csv/$HOST/load/load-????-??-?? >/dev/null 2>&1" &&
    grep -q 'hypfs plugin: .*not a regular file' "$d/collectd.log" || ok=1
  if ! e2e_stop "$DAEMON" 2; then
    fail "$name: collectd did not stop within 2 s"
    return 1
  fi
  [ $ok -eq 0 ] || { fail "$name: reads blocked or no refusal logged"; return 1; }
  say "ok - FIFO $name: refused, other values read, stopped in 2 s"
}

# A FIFO (or any blocking file) at each path the plugin opens.
sc_fifo() {
  fifo_case diag_2fc debugfs sh -c 'rm debugfs/diag_2fc && mkfifo debugfs/diag_2fc' || return 1
  fifo_case hyp_type hypfs sh -c 'rm hypfs/hyp/type && mkfifo hypfs/hyp/type' || return 1
  fifo_case update hypfs sh -c 'rm hypfs/update && mkfifo hypfs/update' || return 1
  fifo_case symlink debugfs sh -c 'mv debugfs/diag_2fc debugfs/real && ln -s real debugfs/diag_2fc' ||
    return 1
}

# 10,000 guests: one value list each per read, every one stored.
sc_many_guests() {
  EXPS=
  snapshot "$D" 1 --guests 10000 --no-tree || return 1
  conf "$D" && start "$D"
  e2e_wait 60 sh -c "[ \$(ls '$D/csv/$HOST' 2>/dev/null | grep -c '^hypfs-LNX') -eq 10000 ]" ||
    fail "not 10000 guests stored: $(ls "$D/csv/$HOST" | grep -c '^hypfs-LNX')" || return 1
  seen vm || return 1
  stop_daemon || return 1
  no_errors_logged
}

# Through InfluxDB (collectd's network plugin, the shipped types.db): a
# guest's values arrive under the plugin's data source names.
sc_influxdb() {
  idir=$D/influx
  e2e_scenario_influxdb "$idir" "$src/contrib/hypfs.types.db" || return $?
  influx=$E2E_INFLUX_PID
  EXPS=
  snapshot "$D" 1 --guests 3 || return 1
  E2E_EXTRA_PLUGINS=$(e2e_network_conf "$E2E_INFLUX_UDP") conf "$D" && start "$D"
  seen vm || return 1
  st=0
  for pair in cpu_time_us:200001 mem_used_bytes:135266304 samples_total:37; do
    ds=${pair%%:*}
    want=${pair#*:}
    q="SELECT value FROM hypfs_$ds WHERE host='$HOST' AND instance='LNX00001' AND type='hypfs_guest' ORDER BY time DESC LIMIT 1"
    e2e_wait 20 sh -c 'curl -sf -G "$1" --data-urlencode db=collectd --data-urlencode "q=$2" >"$3" && grep -q "\"values\"" "$3"' sh \
      "http://127.0.0.1:$E2E_INFLUX_HTTP/query" "$q" "$idir/q.json" ||
      { fail "influxdb: no hypfs_$ds"; st=1; continue; }
    got=$(python3 -c "import json; r = json.load(open('$idir/q.json'))['results'][0]; print(r['series'][0]['values'][0][1])")
    if python3 -c "import sys; sys.exit(0 if float('$got') == float('$want') else 1)"; then
      say "ok - influxdb: hypfs_$ds of LNX00001 = $want"
    else
      fail "influxdb: hypfs_$ds of LNX00001: want $want, got $got"
      st=1
    fi
  done
  stop_daemon || st=1
  e2e_stop "$influx" 30 || { fail "influxd did not stop in 30 s"; st=1; }
  return $st
}

# Every scenario is a function sc_NAME above, run in the order it is
# defined: adding one is adding its function (no list to keep).
ALL=$(sed -n 's/^sc_\([a-z0-9_]*\)() {$/\1/p' "$0" | tr '\n' ' ')
if [ $# -gt 0 ]; then
  for name in "$@"; do
    case " $ALL " in
      *" $name "*) ;;
      *) echo "tests/hypfs/e2e.sh: no scenario $name (have: $ALL)" >&2; exit 2 ;;
    esac
  done
  ALL="$*"
fi

for f in "$E2E_DAEMON" "$E2E_STOCK/csv.so" "$E2E_TYPESDB" "$E2E_LIBS/hypfs.so" "$GEN"; do
  if [ ! -e "$f" ]; then
    for name in $ALL; do echo "SKIP: hypfs $name ($f not found)"; done
    n=$(echo $ALL | wc -w)
    echo "0 passed, 0 failed, $n skipped"
    zvm_ci && exit 1
    exit 77
  fi
done

# shellcheck disable=SC2086
e2e_scenarios hypfs $ALL
