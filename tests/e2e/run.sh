#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end suite: the built zvm_monitor.so in the real collectd daemon,
# fed by the emulated /dev/monreader (tests/rig), its csv output
# compared exactly with an independent oracle (tests/e2e/oracle.py); then
# the same kind of stream into a real carbon-cache (write_graphite) and a
# real InfluxDB 1.x (network plugin -> [[collectd]] listener), both started
# here on 127.0.0.1 only.
#
#   tests/e2e/run.sh BUILD_DIR [SCENARIO...]     (default: every scenario)
#
# A scenario NAME is the file tests/e2e/scenarios/NAME.sh (see the end).
#
# One line per scenario (PASS/FAIL/SKIP), then "N passed, N failed, N
# skipped". A scenario that cannot run for want of a package says
# "SKIP: ... (PACKAGE)" and returns 77: under CI (tests/lib.sh, "Skipped
# tests") that is a FAIL, elsewhere a loud SKIP; one that cannot apply on
# this machine says "SKIP(not-applicable): REASON" and returns 77.
# E2E_KEEP=1 keeps the temporary directory; E2E_VERBOSE=1 prints every
# scenario's log; E2E_DIR=DIR writes into DIR instead (tests/e2e/compare.py
# compares two such runs). The s390x run: E2E_EXEC_WRAPPER=qemu-s390x and
# COLLECTD_DAEMON=SYSROOT/usr/sbin/collectd (tests/run-s390x; lib.sh).
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [SCENARIO...]" >&2; exit 2; }
E2E_BUILD=$(cd "$1" && pwd) || exit 2
shift
# shellcheck source=tests/e2e/lib.sh
. "$top/tests/e2e/lib.sh"
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
PY=${PYTHON:-python3}
ORACLE="$top/tests/e2e/oracle.py"

e2e_init
for f in "$E2E_DAEMON" "$E2E_STOCK/csv.so" "$E2E_STOCK/logfile.so" "$E2E_TYPESDB" \
  "$E2E_LIBS/zvm_monitor.so" "$E2E_SHIM" "$E2E_GEN" "$E2E_CAT"; do
  [ -e "$f" ] || { echo "e2e: $f not found (build first: make)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
done
command -v "$PY" >/dev/null 2>&1 || { echo "e2e: $PY not found (python3)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

# run_case DIR SCENARIO-FILE "ORACLE-ARGS" [PLUGIN-LINE...]
# The daemon plays SCENARIO-FILE once; waits (bounded) until every reader
# counter has its final value in two successive read callbacks (or none
# changed in 8 callbacks: then the comparison fails fast), stops the
# daemon by its PID, and compares all csv output and the notifications in
# the log with the oracle. $CASE_ENV: extra environment for the daemon;
# $CASE_TIMEOUT: seconds to wait (default 40); $CASE_CHECK: extra oracle
# check options.
run_case() {
  rc_dir=$1
  rc_scn=$2
  rc_oargs=$3
  shift 3
  if ! run_plain "$rc_dir" "$rc_scn" "$rc_oargs" "$@"; then
    # shellcheck disable=SC2086
    [ "$rp_stage" != ready ] ||
      "$PY" "$ORACLE" check "$rc_scn" --csv "$rc_dir/csv" --log "$rc_dir/collectd.log" $rc_oargs >>"$SC_LOG" 2>&1
    return 1
  fi
  # the window in which every set arrived (the time rule's arrival times)
  rc_oargs="$rc_oargs --wall $rp_from:$rp_to"
  # shellcheck disable=SC2086
  "$PY" "$ORACLE" check "$rc_scn" --csv "$rc_dir/csv" --log "$rc_dir/collectd.log" \
    $rc_oargs ${CASE_CHECK:-} >>"$SC_LOG" 2>&1 || { fail "output differs from the oracle"; return 1; }
}

# Target programs (the generator, monreader-cat, the daemon) run through
# e2e_exec: behind E2E_EXEC_WRAPPER (qemu-s390x) when the build is s390x's.
gen() { (e2e_exec "$E2E_GEN" "$@"); }

# csv_col FILE NAME: the column number of data source NAME in a csv file
csv_col() {
  _cc=$(head -n 1 "$1" | tr ',' '\n' | grep -n -x "$2" | cut -d: -f1)
  [ -n "$_cc" ] && echo "$_cc"
}

# ---------------------------------------------------------------------------
# What several scenarios share. The scenarios themselves are at the end.

# ---------------------------------------------------------------------------
# Real back ends. Each is started once, on 127.0.0.1 ports picked free,
# with everything under the temporary directory.

have_pkgs() {
  for c in "$@"; do command -v "$c" >/dev/null 2>&1 || return 1; done
}

# Stream for the back ends: record times in the last hour (carbon keeps
# 1 s points for an hour), 3 guests, one multithreading change.
backend_stream() {
  now=$(e2e_now)
  gen -g 3 -i 2 --smt-every 2 --interval 60 --start $((now - 600)) \
    --counter-offset 2147483000 --sytprp 2 --linux-guests 2 --appldata os,mem,fsstat \
    -o "$1"
}

# oracle_value SCENARIO IDENT: "UNIXSECONDS VALUE" of the last value
oracle_value() { "$PY" "$ORACLE" value "$@"; }

# What the back-end scenarios read back: data sources of the default value
# lists (one per record instance) and reader counters.
BACKEND_IDS="zvmtest/zvm_monitor-LINUX001/zvm_useite/hfcpurn
zvmtest/zvm_monitor-LINUX002/zvm_useite/hfdsvm
zvmtest/zvm_monitor-LINUX003/zvm_useite/vmdcprmd_q2
zvmtest/zvm_monitor-LINUX001/zvm_useite/transactions
zvmtest/zvm_monitor-LINUX002/zvm_useite/vmdslcnt
zvmtest/zvm_monitor-ifl/zvm_prcsmt_cpu/activated
zvmtest/zvm_monitor-system/zvm_prcsmt/mt_config_seq
zvmtest/zvm_monitor-cpu1/zvm_sytprp/pfxutime
zvmtest/zvm_monitor-cpu0/zvm_sytprp/pfxprbtm
zvmtest/zvm_monitor-reader/total_objects-sets
zvmtest/zvm_monitor-reader/total_objects-records"
# Linux guests' values (APPLDATA), named as collectd's own plugins.
APPLDATA_BACKEND_IDS="lnx001/cpu-1/cpu-steal
lnx002/memory/memory-free
lnx001/df-var-log/df_complex-used
zvmtest/zvm_monitor-reader/total_objects-appldata_torn"

# run_plain DIR SCENARIO-FILE "READY-ARGS" [PLUGIN-LINE...]: the daemon
# plays the scenario once with these lines and stops when the reader
# counters are final (the oracle's "ready" with READY-ARGS), run_case's
# first half: for a run whose output another run's is compared with.
# $rp_from and $rp_to: the wall-clock window of the run; $rp_stage: where
# it failed.
run_plain() {
  rp_dir=$1
  rp_scn=$2
  rp_ready=$3
  shift 3
  rp_stage=start
  mkdir -p "$rp_dir" || return 1
  e2e_conf "$rp_dir" "$@"
  rp_from=$(date +%s)
  # shellcheck disable=SC2086
  e2e_collectd "$rp_dir" "$rp_scn" ${CASE_ENV:-}
  rp_pid=$E2E_PID
  # shellcheck disable=SC2086
  if ! e2e_wait "${CASE_TIMEOUT:-40}" "$PY" "$ORACLE" ready --settle 8 "$rp_scn" --csv "$rp_dir/csv" $rp_ready; then
    e2e_stop "$rp_pid" || true
    tail -n 20 "$rp_dir/collectd.log" >>"$SC_LOG" 2>/dev/null
    rp_stage=ready
    fail "reader counters not final within ${CASE_TIMEOUT:-40} s"
    return 1
  fi
  rp_stage=stop
  e2e_stop "$rp_pid" || { fail "collectd still running 10 s after SIGTERM"; return 1; }
  rp_to=$(date +%s)
  grep -q "Exiting normally" "$rp_dir/collectd.log" || {
    tail -n 20 "$rp_dir/collectd.log" >>"$SC_LOG"
    fail "collectd did not exit normally"
    return 1
  }
}

# run_block DIR SCENARIO-FILE BLOCK-FILE: run_plain with the lines of
# BLOCK-FILE (what zvm-monitor-record wrote) inside <Plugin zvm_monitor>.
run_block() {
  rb_dir=$1
  rb_scn=$2
  rb_file=$3
  set --
  while IFS= read -r line; do
    set -- "$@" "$line"
  done <"$rb_file"
  run_plain "$rb_dir" "$rb_scn" "" "$@"
}

# same_csv A B PATTERN: every csv file under A whose path matches PATTERN
# (find -path) has the same name and the same lines under B, and B has no
# others.
same_csv() {
  (cd "$1/csv" && find . -path "$3" -type f | sort) >"$1.files"
  (cd "$2/csv" && find . -path "$3" -type f | sort) >"$2.files"
  [ -s "$1.files" ] || fail "$1: no lists $3" || return 1
  cmp -s "$1.files" "$2.files" ||
    fail "the lists differ: $(diff "$1.files" "$2.files" | head -n 6 | tr '\n' ' ')" || return 1
  while IFS= read -r f; do
    cmp -s "$1/csv/$f" "$2/csv/$f" ||
      fail "$f differs: $(diff "$1/csv/$f" "$2/csv/$f" | head -n 4 | tr '\n' ' ')" || return 1
  done <"$1.files"
}

# ---------------------------------------------------------------------------
# Capture and replay: zvm-monitor-capture reads the emulated
# device, the plugin replays the capture (ReplayFile) through the real
# daemon, and its csv output is compared with the device read directly.

CAPTURE_TOOL=$E2E_BUILD/tools/zvm-monitor-capture

# capture SCENARIO FILE [OPTION...]: capture SCENARIO from the emulated
# device into FILE until 2 s without data.
capture() {
  cp_scn=$1
  cp_file=$2
  shift 2
  e2e_run LD_PRELOAD="$(e2e_preload)" ASAN_OPTIONS=detect_leaks=0 \
    MONREADER_EMU_DEVICE="$D/monreader" MONREADER_EMU_SCENARIO="$cp_scn" \
    MONREADER_EMU_LOOP=1 "$CAPTURE_TOOL" -d "$D/monreader" -w "$cp_file" \
    -i 2 -q "$@" 2>>"$D/capture.err" || {
    cat "$D/capture.err" >>"$SC_LOG"
    fail "zvm-monitor-capture failed"
  }
}

# last_value CSVFILE-GLOB: the value of its last line
last_value() { cat $1 2>/dev/null | tail -n 1 | cut -d, -f2; }

# replay_run DIR WANT-SETS PLUGIN-LINE...: the daemon replays; stops once
# total_objects-sets has reached WANT-SETS in two callbacks.
replay_run() {
  rr_dir=$1
  rr_want=$2
  shift 2
  e2e_conf "$rr_dir" "$@"
  rr_pre=
  [ -z "${ZVM_ASAN_RUNTIME:-}" ] || rr_pre="LD_PRELOAD=$ZVM_ASAN_RUNTIME"
  # shellcheck disable=SC2086
  e2e_bg "$rr_dir/collectd.out" e2e_exec TZ=UTC ASAN_OPTIONS=detect_leaks=0 $rr_pre \
    "$E2E_DAEMON" -f -C "$rr_dir/collectd.conf"
  rr_pid=$E2E_PID
  rr_sets="$rr_dir/csv/zvmtest/zvm_monitor-reader/total_objects-sets-*"
  if ! e2e_wait 30 sh -c "[ \"\$(cat $rr_sets 2>/dev/null | grep -c ',$rr_want\$')\" -ge 2 ]"; then
    e2e_stop "$rr_pid" || true
    tail -n 20 "$rr_dir/collectd.log" >>"$SC_LOG" 2>/dev/null
    fail "replay: total_objects-sets did not reach $rr_want"
    return 1
  fi
  e2e_stop "$rr_pid" || { fail "collectd still running 10 s after SIGTERM"; return 1; }
  grep -q "Exiting normally" "$rr_dir/collectd.log" || {
    tail -n 20 "$rr_dir/collectd.log" >>"$SC_LOG"
    fail "collectd did not exit normally"
  }
}

# same_values DIRECT REPLAY: every value the direct run dispatched from a
# record is in the replay's csv with the same time (exactly the same lines
# when every set of the direct run had a read callback of its own), and the
# final reader counters agree.
same_values() {
  sv_a=$1/csv/zvmtest
  sv_b=$2/csv/zvmtest
  sv_exact=yes
  cut -d, -f2 "$sv_a"/zvm_monitor-reader/total_objects-sets-* | sed 1d |
    awk 'NR > 1 && $1 - prev > 1 { bad = 1 } { prev = $1 } END { exit bad }' ||
    sv_exact=no
  say "direct run: one set per read callback: $sv_exact"
  sv_n=0
  for f in "$sv_a"/*/*; do
    case $f in */zvm_monitor-reader/*) continue ;; esac
    rel=${f#"$sv_a"/}
    g=$(ls "$sv_b/${rel%-????-??-??}"-????-??-?? 2>/dev/null | head -n 1)
    [ -n "$g" ] || { fail "replay lacks $rel"; return 1; }
    if [ $sv_exact = yes ]; then
      cmp -s "$f" "$g" || { diff "$f" "$g" >>"$SC_LOG"; fail "replay differs: $rel"; return 1; }
    else
      sed 1d "$f" | while read -r line; do grep -qxF "$line" "$g" || { echo "missing $line" >>"$SC_LOG"; exit 1; }; done ||
        { fail "replay lacks values of $rel"; return 1; }
    fi
    sv_n=$((sv_n + 1))
  done
  [ $sv_n -gt 0 ] || { fail "the direct run wrote no values"; return 1; }
  for c in errors-eio errors-efault errors-eoverflow errors-malformed errors-open \
    total_objects-sets total_objects-records total_objects-skipped total_bytes-read; do
    va=$(last_value "$sv_a/zvm_monitor-reader/$c-*")
    vb=$(last_value "$sv_b/zvm_monitor-reader/$c-*")
    [ "$va" = "$vb" ] || { fail "reader $c: direct $va, replay $vb"; return 1; }
  done
  say "ok - $sv_n value files identical, reader counters equal"
}

# ---------------------------------------------------------------------------
# Stopping within a bound, and output that depends on the wall clock
# (wrong_device, fifo_inputs, shutdown).

# stop_within PID NAME: SIGTERM; fail unless gone within 2 s.
stop_within() {
  _sw_t0=$(date +%s%N)
  e2e_stop "$1" 2 || fail "$2: still running 2 s after SIGTERM" || return 1
  say "  $2: gone $((($(date +%s%N) - _sw_t0) / 1000000)) ms after SIGTERM"
}

# Logs and csv files whose contents depend on the wall clock (retries,
# back-off, how fast a stream was read) are kept, but not under the names
# tests/e2e/compare.py compares between the amd64 and s390x runs.
set_aside() {
  for _d in "$@"; do
    [ ! -d "$_d/csv" ] || mv "$_d/csv" "$_d/csv.wallclock"
    [ ! -f "$_d/collectd.log" ] || mv "$_d/collectd.log" "$_d/collectd.log.wallclock"
  done
}

# ---------------------------------------------------------------------------
# The scenarios: one file each, tests/e2e/scenarios/NAME.sh, which defines
# sc_NAME (run with its own directory $D; tests/e2e/lib.sh, e2e_scenarios)
# under a comment that says what it proves. Lines of the form "# e2e: WORD
# ..." in it declare what the runner needs to know:
#   # e2e: alone           it measures CPU time against an idle daemon or
#                          times a stop: it runs after the others, one at a
#                          time (E2E_ALONE)
#   # e2e: packages PKG... the Debian packages it needs beyond the build's
#                          (each in ZVM_PACKAGES_E2E, tests/lib.sh); it
#                          skips, naming them, where they are missing
# Every scenario runs, in the order of their names; adding one is adding
# its file (and its line in tests/local.am: tests/e2e/check-scenarios.sh).
SCENARIOS=$top/tests/e2e/scenarios
ALL=
for name in $(cd "$SCENARIOS" && printf '%s\n' *.sh | LC_ALL=C sort | sed 's/\.sh$//'); do
  f=$SCENARIOS/$name.sh
  bad=$(sed -n 's/^# e2e: *//p' "$f" | grep -v -E '^(alone|packages( [a-z0-9.+:-]+)+)$')
  [ -z "$bad" ] || { echo "e2e: $f: unknown declaration \"# e2e: $bad\" (alone, packages PKG...)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
  # shellcheck disable=SC1090
  . "$f"
  ALL="$ALL $name"
  ! grep -q '^# e2e: alone$' "$f" || E2E_ALONE="$E2E_ALONE $name"
done
[ $# -gt 0 ] && ALL="$*"

# shellcheck disable=SC2086
e2e_scenarios "" $ALL
rc=$?
# Whatever the scenarios ran as root, /dev/null is still the device 1:3.
zvm_assert_dev_null "the end-to-end scenarios" || rc=1
exit $rc
