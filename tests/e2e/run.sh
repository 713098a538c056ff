#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end suite: the built zvm_monitor.so in the real collectd daemon,
# fed by the emulated /dev/monreader (contrib/monreader-emu), its csv output
# compared exactly with an independent oracle (tests/e2e/oracle.py); then
# the same kind of stream into a real carbon-cache (write_graphite) and a
# real InfluxDB 1.x (network plugin -> [[collectd]] listener), both started
# here on 127.0.0.1 only.
#
#   tests/e2e/run.sh BUILD_DIR [SCENARIO...]     (default: every scenario)
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
# Scenarios. Each is a function sc_NAME run with its own directory $D.

# 1. D4R10 and D5R21 decoded: 24 guests, two D4R10 per guest and interval,
# two intervals, a multithreading change in each (IFL 1 -> 2 -> 1); record
# sets of up to two 4 KB frames and one record set per message, so a D1R13
# and padding end the first frame in the middle of a set, and the change's
# start and end records are in different messages; a message every 1.1 s,
# so the sets arrive in several read callbacks (intermediate values must
# all be dispatched). Counters cross 2^31 (unsigned stays positive, HFDSVM
# is signed).
sc_decode() {
  gen -g 24 -e 2 -i 2 --smt-every 1 --set-frames 2 --mces 1 \
    --counter-offset 2147483000 --gap-ms 1100 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 4" run_case "$D" "$D/s.scn" "" || return 1
  # a few facts that must hold whatever the oracle says: one list per
  # guest of type zvm_useite (registered by the plugin: the configuration
  # has only collectd's own TypesDB), data sources as the csv header names
  f=$(ls "$D"/csv/zvmtest/zvm_monitor-LINUX001/zvm_useite-*) || return 1
  [ "$(sed 1d "$f" | wc -l)" -ge 2 ] || fail "LINUX001 zvm_useite: want a list per interval" || return 1
  c=$(csv_col "$f" hfcpurn) || fail "LINUX001 zvm_useite: no hfcpurn column" || return 1
  sed 1d "$f" | cut -d, -f"$c" | awk '$1 <= 2147483648 { exit 1 }' ||
    fail "LINUX001 hfcpurn not above 2^31" || return 1
  csv_col "$(ls "$D"/csv/zvmtest/zvm_monitor-LINUX024/zvm_useite-*)" vmdcidld_q3 >/dev/null ||
    fail "no LINUX024 zvm_useite vmdcidld_q3" || return 1
  f=$(ls "$D"/csv/zvmtest/zvm_monitor-ifl/zvm_prcsmt_cpu-*) || return 1
  [ "$(sed 1d "$f" | cut -d, -f"$(csv_col "$f" activated)" | tr '\n' ' ')" = \
    "1.000000 2.000000 2.000000 1.000000 " ] ||
    fail "ifl zvm_prcsmt_cpu activated: want 1 2 2 1 (start/end of two changes)" || return 1
  grep -q "Notification: severity = OKAY, .* message = multithreading configuration change 1 ended (RCCSMTSQ 1); activated threads per core: cp 1 -> 1, ifl 1 -> 2$" "$D/collectd.log" ||
    fail "no end-of-change notification ifl 1 -> 2" || return 1
}

# 2+3. Discarded sets: EFAULT exactly on the second MCE of a 2-MCE message
# (the rest of the message is well formed, yet part of the faulted set),
# EIO in the middle of a record set, EFAULT in the middle of a record, EIO
# instead of a 0-byte read. Each lost set held a multithreading change's
# start record and the first records of 19-20 guests: none of their values
# may appear (asserted absent by their record times), and each change's
# end notification must say its start was not seen.
sc_discarded() {
  gen -g 45 -e 1 -i 3 --smt-every 1 --set-frames 1 --mces 2 --gap-ms 1100 \
    --fault efault@0:4108,eio@3:2000,efault@6:1000,eio@8 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-forbidden 3000 --min-callbacks 3" run_case "$D" "$D/s.scn" "" || return 1
  [ "$(grep -c 'Notification: severity = OKAY.*cp ? -> 1, ifl ? -> .*the start of this change was not seen' "$D/collectd.log")" -eq 3 ] ||
    fail "want three end notifications with an unseen start" || return 1
  if grep -q 'Notification: severity = WARNING.*plugin_instance = system' "$D/collectd.log"; then
    fail "a start notification from a discarded set"
    return 1
  fi
}

# 2. EOVERFLOW after a set (the set is valid), a rejected MCA (the driver
# answers it with an empty data set: a set, and errors-malformed), and an
# EFAULT on the first read of a set (nothing read yet: nothing lost, the
# whole set follows and is used).
sc_read_errors() {
  gen -g 5 -i 3 --smt-every 2 --fault eoverflow@1,badmca@2,efault@4 -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" ""
}

# 2. The path is severed after message 1; the first two re-opens fail with
# EIO; then the rest of the stream arrives.
sc_sever_reopen() {
  gen -g 5 -i 3 --smt-every 2 --fault sever@1,open@2:EIO:2 -o "$D/s.scn" || return 1
  CASE_TIMEOUT=60 run_case "$D" "$D/s.scn" "" || return 1
  grep -q "zvm_monitor plugin: .*opened" "$D/collectd.log" || fail "no re-open logged"
}

# 2. EBUSY: the first two opens fail (injected), then data flows.
sc_ebusy_injected() {
  gen -g 4 -i 2 --fault open@0:EBUSY:2 -o "$D/s.scn" || return 1
  CASE_TIMEOUT=60 run_case "$D" "$D/s.scn" ""
}

# 2. EBUSY for real: another process (monreader-cat) holds the emulated
# device (MONREADER_EMU_LOCK) for 3 s; the plugin's opens fail meanwhile,
# then it opens and the whole stream arrives.
sc_ebusy_holder() {
  gen -g 4 -i 2 --smt-every 2 -o "$D/s.scn" || return 1
  e2e_bg "$D/holder.out" e2e_exec LD_PRELOAD="$(e2e_preload)" MONREADER_EMU_LOCK="$D/lock" \
    MONREADER_EMU_DEVICE="$D/monreader" MONREADER_EMU_SCENARIO="$D/s.scn" \
    "$E2E_CAT" -n -w 3000 -t 200 -q "$D/monreader"
  hpid=$E2E_PID
  e2e_wait 10 grep -q '^open ok' "$D/holder.out" || fail "monreader-cat did not open" || return 1
  CASE_ENV="MONREADER_EMU_LOCK=$D/lock" CASE_TIMEOUT=60 \
    run_case "$D" "$D/s.scn" "--open-errors-min 1" || return 1
  e2e_stop "$hpid" || true
  grep -qi 'zvm_monitor plugin: .*busy' "$D/collectd.log" ||
    fail "the plugin did not log that the device is busy"
}

# 4. UserID: an exact name (case-insensitive) and a regular expression.
sc_userid() {
  gen -g 6 -i 2 --smt-every 2 -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "--userid linux002 --userid /^LINUX00(4|5)\$/" \
    'UserID "linux002"' 'UserID "/^LINUX00(4|5)$/"' || return 1
  [ "$(ls "$D/csv/zvmtest" | grep -c '^zvm_monitor-LINUX')" -eq 3 ] || fail "want 3 users"
}

# 4. The same rules with IgnoreSelected true: every other user.
sc_userid_ignore() {
  gen -g 6 -i 2 --smt-every 2 -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "--userid linux002 --userid /^LINUX00(4|5)\$/ --ignore-selected" \
    'UserID "linux002"' 'UserID "/^LINUX00(4|5)$/"' 'IgnoreSelected true' || return 1
  [ "$(ls "$D/csv/zvmtest" | grep -c '^zvm_monitor-LINUX')" -eq 3 ] || fail "want 3 users"
}

# 5. Domain "processor" only: no per-user values, D4R10 counted as skipped;
# framed record sets, so record sets whose MCE names only the user domain
# are skipped whole (their D1R13 too) while D1R13 in the others frame the
# D5R21 records.
sc_domain_processor() {
  gen -g 24 -i 2 --smt-every 1 --set-frames 1 --mces 2 -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "--domain processor" 'Domain "processor"' || return 1
  if ls "$D/csv/zvmtest" | grep -q '^zvm_monitor-LINUX'; then
    fail "per-user values with Domain processor"
    return 1
  fi
}

# 5. Domain 4 (by number) only: no multithreading values, no notifications.
sc_domain_user() {
  gen -g 6 -i 2 --smt-every 2 -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "--domain 4" 'Domain 4' || return 1
  [ ! -e "$D/csv/zvmtest/zvm_monitor-ifl" ] || fail "D5R21 values with Domain 4"
}

# 6. GuestsAsHosts: host = user ID in lower case, empty plugin instance.
sc_guests_as_hosts() {
  gen -g 4 -i 2 --smt-every 2 -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "--guests-as-hosts" 'GuestsAsHosts true' || return 1
  ls "$D"/csv/linux003/zvm_monitor/zvm_useite-* >/dev/null 2>&1 ||
    fail "no linux003/zvm_monitor/zvm_useite"
}

# 7. OneValuePerList: the first release's layout, one value per list
# (derive-hfcpurn, total_events-transactions, threads-activated, ...);
# CombinedUserValues false is the same. Framed sets and a multithreading
# change in every interval.
sc_one_value_per_list() {
  gen -g 6 -e 2 -i 2 --smt-every 1 --set-frames 1 --mces 2 \
    --counter-offset 2147483000 -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "--one-value-per-list" 'OneValuePerList true' || return 1
  ls "$D"/csv/zvmtest/zvm_monitor-LINUX001/derive-hfcpurn-* >/dev/null 2>&1 ||
    fail "no LINUX001 derive-hfcpurn" || return 1
  ls "$D"/csv/zvmtest/zvm_monitor-ifl/threads-activated-* >/dev/null 2>&1 ||
    fail "no ifl threads-activated" || return 1
  if ls "$D"/csv/zvmtest/zvm_monitor-LINUX001/zvm_useite-* >/dev/null 2>&1; then
    fail "zvm_useite lists with OneValuePerList true"
    return 1
  fi
}

# 7. Virtual MP guests: three VMDBKs per guest (VMDCPUAD 0-2,
# CALBASE on 0), VMDBKs 1 and 2 skipping every other transaction, two
# transactions per interval. A guest's counters are the sum over its
# VMDBKs of each one's latest value (never going back), transactions
# counts base records, the levels are the base VMDBK's.
sc_mp_guests() {
  gen -g 5 -e 2 -i 3 --vcpus 3 --vmdbk-skip 2 --smt-every 2 --mces 1 \
    --gap-ms 600 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 3" run_case "$D" "$D/s.scn" "" || return 1
  f=$(ls "$D"/csv/zvmtest/zvm_monitor-LINUX001/zvm_useite-*) || return 1
  c=$(csv_col "$f" hfcpurn) || return 1
  sed 1d "$f" | cut -d, -f"$c" | awk 'NR > 1 && $1 < last { exit 1 } { last = $1 }' ||
    fail "LINUX001 hfcpurn goes back: $(sed 1d "$f" | cut -d, -f"$c" | tr '\n' ' ')" || return 1
  [ "$(tail -n 1 "$f" | cut -d, -f"$(csv_col "$f" transactions)")" -eq 6 ] ||
    fail "LINUX001 transactions: want 6 (base records only)" || return 1
}

# 7. The same guests with ReportByVirtualCPU: each VMDBK also on its own
# (plugin instance LINUX001-vcpu2: its own latest values, its records).
sc_mp_guests_vcpu() {
  gen -g 3 -e 2 -i 2 --vcpus 3 --vmdbk-skip 2 --smt-every 0 --mces 1 \
    --gap-ms 600 -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "--report-by-vcpu" 'ReportByVirtualCPU true' || return 1
  ls "$D"/csv/zvmtest/zvm_monitor-LINUX003-vcpu2/zvm_useite-* >/dev/null 2>&1 ||
    fail "no LINUX003-vcpu2 values" || return 1
  # and one value per list too
  gen -g 2 -e 1 -i 2 --vcpus 2 --smt-every 0 -o "$D/t.scn" || return 1
  run_case "$D/t" "$D/t.scn" "--report-by-vcpu --one-value-per-list" \
    'ReportByVirtualCPU true' 'OneValuePerList true' || return 1
  ls "$D"/t/csv/zvmtest/zvm_monitor-LINUX002-vcpu1/derive-hfcpurn-* >/dev/null 2>&1 ||
    fail "no LINUX002-vcpu1 derive-hfcpurn" || return 1
}

# 7. A virtual MP guest logs off (one D4R2 per VMDBK) and on again: its
# VMDBKs are summed afresh in the new session, its transactions restart.
sc_mp_logoff() {
  gen -g 3 -e 2 -i 4 --vcpus 3 --vmdbk-skip 2 --smt-every 0 --mces 1 \
    --logoff 2@1 --logon 2@2 --gap-ms 600 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 3" run_case "$D" "$D/s.scn" "" || return 1
  grep -q "z/VM guest LINUX002 logged off" "$D/collectd.log" ||
    fail "no logoff notification for LINUX002" || return 1
  # the same with each VMDBK on its own: their views start afresh too
  CASE_CHECK="--min-callbacks 3" run_case "$D/vcpu" "$D/s.scn" \
    "--report-by-vcpu" 'ReportByVirtualCPU true' || return 1
}

# 7. Record times. Interval 1 repeats interval 0's TODs exactly
# (equal TODs), interval 2 on is one hour earlier still (the z/VM clock set
# back); a record set per message, 1.1 s apart, so the intervals meet in
# different read callbacks. Every value reaches collectd: the repeated and
# earlier ones stamped with their set's arrival time (the records are from
# 2023, the sets arrive now) and counted in total_objects-restamped; every
# multithreading notification still comes (none is a repeat).
sc_time_rules() {
  gen -g 4 -i 4 --smt-every 1 --mces 1 --time-jump 1:-60 --time-jump 2:-3600 \
    --gap-ms 1100 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 4" run_case "$D" "$D/s.scn" "" || return 1
  f=$(ls "$D"/csv/zvmtest/zvm_monitor-reader/total_objects-restamped-*) || return 1
  [ "$(tail -n 1 "$f" | cut -d, -f2)" -ge 21 ] ||
    fail "want at least 21 restamped instances (3 intervals x 7)" || return 1
  [ "$(sed 1d "$D"/csv/zvmtest/zvm_monitor-LINUX001/zvm_useite-* | wc -l)" -eq 4 ] ||
    fail "LINUX001: want one list per interval" || return 1
  [ "$(grep -c 'Notification: severity = OKAY' "$D/collectd.log")" -eq 4 ] ||
    fail "want four end-of-change notifications" || return 1
  grep -q "zvm_monitor plugin: record time .* of .* is not after its last time" "$D/collectd.log" ||
    fail "the first restamped value is not logged" || return 1
}

# 7. Records dated past the TOD clock's wrap on 2042-09-17 (and 27 s ahead
# of UTC, LeapSecondOffset 27), read now: more than 1 h + 60 s after their
# sets arrived, so their times are not trusted (a TOD glitch, a damaged
# record): every value takes its set's arrival time, counted in
# total_objects-time_future and logged once, never in 2042. The wrap itself
# (such records read after 2042-09-17) is in tests/test_timerule.c and
# tests/test_mapper.c.
sc_leap_wrap() {
  gen -g 4 -i 3 --smt-every 1 --mces 1 --start 2295734400 --tod-offset 27 \
    --time-jump 1:-60 --gap-ms 1100 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 3" run_case "$D" "$D/s.scn" "--leap-seconds 27" \
    'LeapSecondOffset 27' || return 1
  f=$(ls "$D"/csv/zvmtest/zvm_monitor-LINUX001/zvm_useite-*) || return 1
  now=$(date +%s)
  sed 1d "$f" | cut -d, -f1 | awk -v now="$now" '$1 > now + 5 { exit 1 }' ||
    fail "LINUX001: a value stamped after the wall clock" || return 1
  f=$(ls "$D"/csv/zvmtest/zvm_monitor-reader/total_objects-time_future-*) || return 1
  [ "$(tail -n 1 "$f" | cut -d, -f2)" -ge 7 ] ||
    fail "want at least 7 instances counted in time_future" || return 1
  grep -q "zvm_monitor plugin: record time .* of .* is more than 3660 s after its set arrived" "$D/collectd.log" ||
    fail "the first future record time is not logged" || return 1
  grep -q "record times: the TOD clock is 27 s ahead of UTC (from LeapSecondOffset)" "$D/collectd.log" ||
    fail "the offset is not logged" || return 1
}

# 8. D5R21 completely: every field of IBM MRPRCSMT (z/VM V6R4.0) set, in three
# kinds of change: distinct values; X'FF' (MAX) in every count MAX can be
# given for (NaN and bool-*_is_max 1, never 255); an unusable CPUTINFO
# array (entry size 0 in the start record, offset 8 in the end record):
# the fixed part and both notifications are kept, the records counted in
# errors-malformed.
sc_d5r21_complete() {
  gen -g 2 -i 3 --smt-every 1 --smt-fields --mces 1 --gap-ms 1100 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 3" run_case "$D" "$D/s.scn" "" || return 1
  c=$D/csv/zvmtest
  f=$(ls "$c"/zvm_monitor-ifl/zvm_prcsmt_cpu-*) || return 1
  sed 1d "$f" | cut -d, -f"$(csv_col "$f" requested)" | grep -q '^nan$' ||
    fail "ifl requested MAX is not NaN" || return 1
  sed 1d "$f" | cut -d, -f"$(csv_col "$f" requested_is_max)" | grep -q '^1.000000$' ||
    fail "no ifl requested_is_max 1" || return 1
  if grep -q ',255\.' "$c"/zvm_monitor-*/zvm_prcsmt*; then
    fail "a thread count of 255 was dispatched"
    return 1
  fi
  f=$(ls "$c"/zvm_monitor-system/zvm_prcsmt-*) || return 1
  [ "$(sed 1d "$f" | cut -d, -f"$(csv_col "$f" mt_config_seq)" | tr '\n' ' ')" = \
    "1.000000 3.000000 5.000000 " ] || fail "system mt_config_seq: want 1 3 5" || return 1
  # and one value per list: threads-requested as NaN, bool-*_is_max
  run_case "$D/one" "$D/s.scn" "--one-value-per-list" 'OneValuePerList true' || return 1
  grep -q ',nan$' "$D"/one/csv/zvmtest/zvm_monitor-ifl/threads-requested-* ||
    fail "OneValuePerList: ifl threads-requested MAX is not NaN" || return 1
  grep -q ',1.000000$' "$D"/one/csv/zvmtest/zvm_monitor-system/bool-set_all_is_max-* ||
    fail "OneValuePerList: no system bool-set_all_is_max 1" || return 1
  grep -q "change 3 started (RCCSMTSQ 5); activated threads per core before the change: none listed" "$D/collectd.log" ||
    fail "no start notification for the change with the unusable array" || return 1
  [ "$(tail -n 1 "$c"/zvm_monitor-reader/errors-malformed-* | cut -d, -f2)" -eq 2 ] ||
    fail "want errors-malformed 2 (the two unusable arrays)" || return 1
}

# 7. APPLDATA (domain 10): three Linux guests with every kind of record
# (kernel os/mem/net_sum, mon_fsstatd, mon_procd), a torn os record, a CPU
# hot-plug (a D10R1 event, then os records one CPU larger), an unknown
# product ID, hostile mount points and commands; messages 1.1 s apart, so
# the intervals arrive in several read callbacks. Named as collectd's own
# plugins on each guest (host = guest).
sc_appldata() {
  gen -g 2 -i 4 --smt-every 0 --linux-guests 3 --appldata all --appldata-faults \
    --set-frames 2 --mces 1 --gap-ms 1100 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 3" run_case "$D" "$D/s.scn" "" || return 1
  c=$D/csv
  [ "$(sed 1d "$c"/zvmtest/zvm_monitor-reader/total_objects-appldata_torn-* | tail -n 1 | cut -d, -f2)" = 1 ] ||
    fail "appldata_torn: want 1" || return 1
  [ "$(sed 1d "$c"/lnx002/cpu-2/cpu-steal-* | wc -l)" -eq 2 ] ||
    fail "lnx002 cpu-2 (hot-plugged in the third interval): want 2 values" || return 1
  [ "$(sed 1d "$c"/lnx001/load/load-* | tail -n 1 | tr ',' '\n' | wc -l)" -eq 4 ] ||
    fail "load/load: want time + shortterm, midterm, longterm" || return 1
  ls -d "$c/lnx001/df-mnt-a%20b-%25x%0a-..-%ff" >/dev/null 2>&1 ||
    fail "hostile mount point not escaped as df-mnt-a%20b-%25x%0a-..-%ff" || return 1
  # nothing outside the three guests' and the reader's directories
  [ "$(ls "$c" | tr '\n' ' ')" = "lnx001 lnx002 lnx003 zvmtest " ] ||
    fail "unexpected hosts: $(ls "$c")" || return 1
  ! ls "$c"/lnx001 | grep -q '^processes-' || fail "per-process values without ApplDataKinds procd_task"
}

# 8. APPLDATA under zvm_monitor (ApplDataNaming), every kind including the
# opt-in per-process records, and guest selection by UserID.
sc_appldata_naming() {
  gen -g 0 -i 2 --smt-every 0 --linux-guests 3 --appldata all --appldata-faults \
    -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "--appldata-naming zvm_monitor --userid /LNX00[12]/ \
--appldata-kind os --appldata-kind fsstat --appldata-kind procd_task" \
    'ApplDataNaming "zvm_monitor"' 'UserID "/LNX00[12]/"' 'ApplDataKinds "os"' \
    'ApplDataKinds "fsstat"' 'ApplDataKinds "procd_task"' || return 1
  ls -d "$D/csv/zvmtest/zvm_monitor-LNX001-processes-x%2f..%2fy%20z%3b%22rm%22_666" >/dev/null 2>&1 ||
    fail "no per-process values for the hostile command" || return 1
  ! ls "$D/csv/zvmtest" | grep -q LNX003 || fail "LNX003 not selected, yet dispatched"
}

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

# carbon_check CARBON-DIR SCENARIO IDS ORACLE-ARGS: every identifier of
# IDS (HOST/PLUGIN-INSTANCE/TYPE-INSTANCE, or HOST/PLUGIN-INSTANCE/TYPE/DS
# for a data source of a list, stored by write_graphite as ...TYPE.DS)
# holds the oracle's last value in its whisper file.
carbon_check() {
  cc_w=$1/storage/whisper/collectd
  cc_scn=$2
  cc_ids=$3
  cc_oargs=$4
  cc_st=0
  for id in $cc_ids; do
    # shellcheck disable=SC2086
    set -- $(oracle_value "$cc_scn" "$id" $cc_oargs)
    f=$cc_w/$id.wsp
    e2e_wait 20 test -s "$f" || { fail "no whisper file $f"; cc_st=1; continue; }
    if [ "$1" = - ]; then
      # reader counter: the newest point holds the final count
      got=$(whisper-fetch --from=$(($(date +%s) - 300)) "$f" | awk '$2 != "None" { v = $2 } END { print v }')
      want=$2
      ok=$("$PY" -c "import sys; print(float('$got' or 'nan') == float('$want'))")
    else
      # points are stored at the whole second write_graphite sends
      got=$(whisper-fetch --from=$(($1 - 2)) --until=$(($1 + 2)) "$f" | awk '$2 != "None" { print $1 "=" $2 }' | tr '\n' ' ')
      want=$2
      ok=$("$PY" -c "import sys
pts = [p.split('=') for p in '$got'.split()]
print(any(abs(int(t) - $1) <= 1 and float(v) == float('$want') for t, v in pts) and len(pts) == 1)")
    fi
    if [ "$ok" = True ]; then
      say "ok - carbon: $id = $want"
    else
      fail "carbon: $id: got '$got', want $want at $1"
      cc_st=1
    fi
  done
  return $cc_st
}

sc_graphite() {
  if ! have_pkgs carbon-cache whisper-fetch; then
    say "SKIP: carbon-cache/whisper-fetch not installed (graphite-carbon python3-whisper)"
    return 77
  fi
  c=$D/carbon
  e2e_start_carbon "$c" ||
    { cat "$c/carbon.out" >>"$SC_LOG"; fail "carbon-cache not listening on 127.0.0.1:$E2E_CARBON_PORT"; return 1; }
  carbon=$E2E_CARBON_PID
  lport=$E2E_CARBON_PORT
  graphite_plugin=$(e2e_write_graphite_conf "$lport")
  st=0
  # The default: one value list per record instance. write_graphite
  # formats a value list into one 1428-byte buffer, too small for the 48
  # data sources of zvm_useite: collectd logs "format_graphite: target
  # buffer too small" and drops those lists (contrib/zvm_monitor.pod,
  # GRAPHITE). The lists that fit arrive exactly.
  backend_stream "$D/s.scn" || return 1
  E2E_EXTRA_PLUGINS=$graphite_plugin run_case "$D" "$D/s.scn" "" || { e2e_stop "$carbon"; return 1; }
  carbon_check "$c" "$D/s.scn" "$(echo "$BACKEND_IDS" | grep -v zvm_useite)" "" || st=1
  carbon_check "$c" "$D/s.scn" "$APPLDATA_BACKEND_IDS" "" || st=1
  grep -q "write_graphite plugin: format_graphite: target buffer too small" "$D/collectd.log" ||
    { fail "write_graphite took the 48-value zvm_useite lists: update the pod's GRAPHITE section"; st=1; }
  # OneValuePerList true, what the pod advises for Graphite: every D4R10
  # value arrives (other whisper files than the lists').
  mkdir -p "$D/one"
  backend_stream "$D/one/s.scn" || return 1
  E2E_EXTRA_PLUGINS=$graphite_plugin run_case "$D/one" "$D/one/s.scn" "--one-value-per-list" \
    'OneValuePerList true' || { e2e_stop "$carbon"; return 1; }
  carbon_check "$c" "$D/one/s.scn" "zvmtest/zvm_monitor-LINUX001/derive-hfcpurn
zvmtest/zvm_monitor-LINUX002/derive-hfdsvm
zvmtest/zvm_monitor-LINUX003/derive-vmdcprmd_q2
zvmtest/zvm_monitor-LINUX001/total_events-transactions
zvmtest/zvm_monitor-LINUX002/gauge-vmdslcnt
zvmtest/zvm_monitor-ifl/threads-activated" "--one-value-per-list" || st=1
  e2e_stop "$carbon" 15 || { fail "carbon-cache did not stop"; st=1; }
  return $st
}

sc_influxdb() {
  idir=$D/influx
  # the listener needs collectd's types and the plugin's shipped ones
  e2e_scenario_influxdb "$idir" "$top/contrib/zvm_monitor.types.db" || return $?
  influx=$E2E_INFLUX_PID
  hport=$E2E_INFLUX_HTTP
  uport=$E2E_INFLUX_UDP
  backend_stream "$D/s.scn" || return 1
  E2E_EXTRA_PLUGINS=$(e2e_network_conf "$uport") run_case "$D" "$D/s.scn" "" || { e2e_stop "$influx"; return 1; }
  st=0
  for id in $BACKEND_IDS $APPLDATA_BACKEND_IDS; do
    set -- $(oracle_value "$D/s.scn" "$id")
    host=${id%%/*}
    # measurement <plugin>_<data source>; tag instance = the plugin instance
    pd=$(echo "$id" | cut -d/ -f2)
    pl=${pd%%-*}
    pi=${pd#"$pl"}
    pi=${pi#-}
    [ -n "$pi" ] && wpi="instance='$pi'" || wpi="instance=''"
    if [ "$(echo "$id" | tr -cd / | wc -c)" -eq 3 ]; then
      # a list's data source: measurement zvm_monitor_<ds>, no type instance
      ty=$(echo "$id" | cut -d/ -f3)
      ds=$(echo "$id" | cut -d/ -f4)
      q="SELECT value FROM ${pl}_$ds WHERE host='$host' AND $wpi AND type='$ty'"
    else
      ty=$(echo "$id" | cut -d/ -f3 | cut -d- -f1)
      ti=$(echo "$id" | cut -d/ -f3 | cut -d- -f2-)
      q="SELECT value FROM ${pl}_value WHERE host='$host' AND $wpi AND type='$ty' AND type_instance='$ti'"
    fi
    [ "$1" = - ] && q="$q ORDER BY time DESC LIMIT 1"
    # the listener writes in batches: wait (bounded) for the point
    e2e_wait 20 sh -c 'curl -sf -G "$1" --data-urlencode db=collectd --data-urlencode epoch=ms \
        --data-urlencode "q=$2" >"$3" && grep -q "\"values\"" "$3"' sh \
      "http://127.0.0.1:$hport/query" "$q" "$idir/q.json"
    res=$("$PY" -c "import json, sys
r = json.load(open('$idir/q.json'))['results'][0]
pts = r['series'][0]['values'] if 'series' in r else []
t, want = '$1', float('$2')
if t == '-':
    print('True' if pts and pts[0][1] == want else 'False %s' % pts)
else:
    hit = [p for p in pts if abs(p[0] / 1000.0 - int(t)) < 1.0]
    print('True' if len(hit) == 1 and hit[0][1] == want else 'False %s' % pts)")
    if [ "$res" = True ]; then
      say "ok - influxdb: $id = $2"
    else
      fail "influxdb: $id: want $2 at $1, got: $res"
      st=1
    fi
  done
  e2e_stop "$influx" 15 || { fail "influxd did not stop"; st=1; }
  return $st
}

# Prometheus: collectd's write_prometheus scraped by a real Prometheus
# server (honor_labels: collectd's host stays the "instance" label). A data
# source DS of a list host/zvm_monitor-PI/TYPE becomes the metric
# collectd_zvm_monitor_TYPE_DS, a single value host/zvm_monitor-PI/TYPE-TI
# collectd_zvm_monitor_TYPE with the label type=TI; "_total" is appended
# for DERIVE/COUNTER data sources; labels instance=host, zvm_monitor=PI,
# job (from the scrape), and nothing else; the newest sample has the
# oracle's value and record time.
sc_prometheus() {
  if [ -n "${E2E_EXEC_WRAPPER:-}" ]; then
    # the s390x stage's daemon: its write_prometheus.so needs
    # libmicrohttpd12:s390x and libprotobuf-c1:s390x, not installed there.
    # The same stream without it, so the runs stay comparable.
    backend_stream "$D/s.scn" || return 1
    run_case "$D" "$D/s.scn" "" || return 1
    say "ok - values as the oracle says; Prometheus itself not run in an emulated daemon"
    return 0
  fi
  if ! have_pkgs "$E2E_PROMETHEUS" curl || [ ! -e "$E2E_STOCK/write_prometheus.so" ] ||
    ldd "$E2E_STOCK/write_prometheus.so" | grep -q 'not found'; then
    say "SKIP: prometheus/curl/write_prometheus.so and its libraries not available (prometheus curl libmicrohttpd12 libprotobuf-c1)"
    return 77
  fi
  wport=$(e2e_free_port) || return 1
  e2e_start_prometheus "$D/prom" "127.0.0.1:$wport" ||
    { tail -n 20 "$D/prom/prometheus.out" >>"$SC_LOG"; fail "prometheus not ready on 127.0.0.1:$E2E_PROM_PORT"; return 1; }
  prom=$E2E_PROM_PID
  api=http://127.0.0.1:$E2E_PROM_PORT/api/v1
  backend_stream "$D/s.scn" || return 1
  E2E_EXTRA_PLUGINS="LoadPlugin write_prometheus
<Plugin write_prometheus>
  Host \"127.0.0.1\"
  Port \"$wport\"
</Plugin>" CASE_CHECK="" run_case "$D" "$D/s.scn" "" || { e2e_stop "$prom"; return 1; }
  st=0
  for id in $BACKEND_IDS zvmtest/zvm_monitor-reader/errors-eio; do
    set -- $(oracle_value "$D/s.scn" "$id")
    pi=$(echo "$id" | cut -d/ -f2 | sed 's/^zvm_monitor-//')
    if [ "$(echo "$id" | tr -cd / | wc -c)" -eq 3 ]; then
      # a list's data source: its own metric, no "type" label
      ty=$(echo "$id" | cut -d/ -f3)
      ds=$(echo "$id" | cut -d/ -f4)
      ti=
      pname=collectd_zvm_monitor_${ty}_$ds
    else
      ty=$(echo "$id" | cut -d/ -f3 | cut -d- -f1)
      ds=value
      ti=$(echo "$id" | cut -d/ -f3 | cut -d- -f2-)
      pname=collectd_zvm_monitor_$ty
    fi
    # the DS type decides the "_total" suffix: collectd's or the plugin's types.db
    dstype=$(cat "$E2E_TYPESDB" "$top/contrib/zvm_monitor.types.db" | awk -v t="$ty" -v d="$ds" '
      $1 == t { for (i = 2; i <= NF; i++) { split($i, a, ":"); if (a[1] == d) print a[2] } }')
    [ "$dstype" = GAUGE ] || pname=${pname}_total
    sel="$pname{instance=\"zvmtest\",zvm_monitor=\"$pi\"${ti:+,type=\"$ti\"}}"
    # every raw sample of the last 15 minutes, with its time stamp
    e2e_wait 20 sh -c 'curl -sf -G "$1/query" --data-urlencode "query=$2[15m]" >"$3" &&
        grep -q "\"values\"" "$3"' sh "$api" "$sel" "$D/q.json"
    curl -sf -G "$api/metadata" --data-urlencode "metric=$pname" >"$D/meta.json" || true
    res=$("$PY" -c "import json
r = json.load(open('$D/q.json'))['data']['result']
meta = json.load(open('$D/meta.json')).get('data', {}).get('$pname', [{}])[0]
want_type = 'gauge' if '$dstype' == 'GAUGE' else 'counter'
if len(r) != 1:
    print('False: %d series: %s' % (len(r), [s['metric'] for s in r]))
else:
    labels, pts = r[0]['metric'], r[0]['values']
    t, v = pts[-1][0], float(pts[-1][1])
    want_labels = {'__name__': '$pname', 'instance': 'zvmtest', 'job': 'collectd',
                   'zvm_monitor': '$pi'}
    if '$ti':
        want_labels['type'] = '$ti'
    ok_time = '$1' == '-' or abs(t - int('$1')) < 1.0
    if labels != want_labels:
        print('False: labels %s' % labels)
    elif v != float('$2') or not ok_time:
        print('False: newest sample %s at %s, want $2 at $1' % (v, t))
    elif meta.get('type') != want_type:
        print('False: metadata %s, want type %s' % (meta, want_type))
    else:
        print('True')")
    if [ "$res" = True ]; then
      say "ok - prometheus: $sel = $2 ($dstype)"
    else
      fail "prometheus: $id ($sel): $res"
      st=1
    fi
  done
  e2e_stop "$prom" 15 || { fail "prometheus did not stop"; st=1; }
  return $st
}

# D0R2 processor data (sample records, built-in table): four processors,
# three intervals, one message per interval 1.1 s apart; one zvm_sytprp
# value list per processor (the default shape), checked by the oracle, and
# the documented rates: processor 1 is charged 17 % of 60 s to users, and
# three quarters of that in emulation mode (PFXPRBTM counts down).
sc_d0r2() {
  gen -g 0 -i 3 --sytprp 4 --smt-every 0 --unknown-events 0 --gap-ms 1100 \
    -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 3" run_case "$D" "$D/s.scn" "" || return 1
  f=$(ls "$D"/csv/zvmtest/zvm_monitor-cpu1/zvm_sytprp-*) || return 1
  [ "$(head -n 1 "$f")" = "epoch,plscuhaf,pfxprbtm,pfxutime" ] ||
    fail "cpu1: csv header $(head -n 1 "$f")" || return 1
  sed 1d "$f" | awk -F, 'NR > 1 && ($4 - u != 10200000 || $3 - e != 7650000) { exit 1 }
    { u = $4; e = $3 } END { if (NR != 3) exit 1 }' ||
    fail "cpu1: want 3 lists, +10200000 us user and +7650000 us emulation time per interval" || return 1
}

# D0R2 records too short for PFXUTIME (36 bytes), one value per list: the
# fields they hold are dispatched, PFXUTIME never, and each record counts
# in total_objects-short_records.
sc_d0r2_short() {
  gen -g 0 -i 2 --sytprp 3 --sytprp-len 36 --smt-every 0 --unknown-events 0 \
    -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "--one-value-per-list" "OneValuePerList true" || return 1
  ls "$D"/csv/zvmtest/zvm_monitor-cpu2/derive-pfxprbtm-* >/dev/null 2>&1 ||
    fail "no cpu2 derive-pfxprbtm" || return 1
  if ls "$D"/csv/zvmtest/zvm_monitor-cpu*/derive-pfxutime-* >/dev/null 2>&1; then
    fail "a pfxutime value from a record that ends before it"
    return 1
  fi
  [ "$(tail -n 1 "$D"/csv/zvmtest/zvm_monitor-reader/total_objects-short_records-* | cut -d, -f2)" = 6 ] ||
    fail "total_objects-short_records: want 6" || return 1
}

# Records defined in collectd.conf, decoded by the same engine: D0R1 with
# a processor key, an array and a scaled gauge; D8R1 with two keys (EBCDIC
# owner and device number) and a field past its 316 bytes (so its values
# go one per list and each record counts as short); D3R2 without a key.
# The oracle reads the definitions from the daemon's collectd.conf.
sc_user_records() {
  gen -g 0 -i 3 --cpus 2 --nics 2 --smt-every 0 --unknown-events 0 --gap-ms 1100 \
    -o "$D/s.scn" || return 1
  set -- '<Record "0/1">' 'Name "sys"' 'InstancePrefix "cpu"' \
    '<Field "addr">' 'Offset 20' 'Length 2' 'Type "unsigned"' 'Kind "instance"' '</Field>' \
    '<Field "a">' 'Offset 24' 'Length 4' 'Type "unsigned"' 'Kind "counter"' '</Field>' \
    '<Field "b">' 'Offset 28' 'Length 4' 'Count 2' 'Type "unsigned"' 'Kind "gauge"' 'Scale 0.001' '</Field>' \
    '<Field "c">' 'Offset 40' 'Length 8' 'Type "cputimer"' 'Kind "counter"' '</Field>' \
    '</Record>' \
    '<Record "8/1">' 'Name "vnd"' \
    '<Field "owner">' 'Offset 24' 'Length 8' 'Type "ebcdic"' 'Kind "instance"' '</Field>' \
    '<Field "dev">' 'Offset 32' 'Length 2' 'Type "unsigned"' 'Kind "instance"' '</Field>' \
    '<Field "x">' 'Offset 96' 'Length 4' 'Count 3' 'Type "unsigned"' 'Kind "counter"' '</Field>' \
    '<Field "late">' 'Offset 320' 'Length 4' 'Type "unsigned"' 'Kind "gauge"' '</Field>' \
    '</Record>' \
    '<Record "3/2">' 'Name "stor"' \
    '<Field "w">' 'Offset 20' 'Length 4' 'Type "unsigned"' 'Kind "counter"' '</Field>' \
    '<Field "s">' 'Offset 26' 'Length 2' 'Type "signed"' 'Kind "gauge"' '</Field>' \
    '</Record>'
  CASE_CHECK="--min-callbacks 3" run_case "$D" "$D/s.scn" "--conf $D/collectd.conf" "$@" || return 1
  ls "$D"/csv/zvmtest/zvm_monitor-cpu1/zvm_sys-* >/dev/null 2>&1 || fail "no cpu1 zvm_sys list" || return 1
  ls "$D"/csv/zvmtest/zvm_monitor/zvm_stor-* >/dev/null 2>&1 || fail "no zvm_stor list" || return 1
  ls "$D"/csv/zvmtest/zvm_monitor-TCPIP_1539/derive-x_2-* >/dev/null 2>&1 ||
    fail "no TCPIP_1539 derive-x_2" || return 1
  grep -q 'record 8/1 from its <Record> block, type zvm_vnd; types.db line: zvm_vnd.x_0:DERIVE:0:U, x_1:DERIVE:0:U, x_2:DERIVE:0:U, late:GAUGE:U:U' "$D/collectd.log" ||
    fail "no types.db line for zvm_vnd in the log" || return 1
}

# The <Record> options for what IBM's pages describe beyond plain numbers,
# through the oracle (which models each from the man page): D8R1 with the
# device number as its instance in hex (Format hex: TCPIP_0603), an array
# named x_q0..x_q2 (ElementPrefix) and two named bits of one 4-byte field
# as 0/1 gauges (Mask).
sc_user_records_bits() {
  gen -g 0 -i 3 --cpus 0 --nics 2 --smt-every 0 --unknown-events 0 --gap-ms 1100 \
    -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 3" run_case "$D" "$D/s.scn" "--conf $D/collectd.conf" \
    '<Record "8/1">' 'Name "vnd"' \
    '<Field "owner">' 'Offset 24' 'Length 8' 'Type "ebcdic"' 'Kind "instance"' '</Field>' \
    '<Field "dev">' 'Offset 32' 'Length 2' 'Type "unsigned"' 'Kind "instance"' 'Format "hex"' '</Field>' \
    '<Field "x">' 'Offset 96' 'Length 4' 'Count 3' 'ElementPrefix "_q"' 'Type "unsigned"' 'Kind "counter"' '</Field>' \
    '<Field "b7">' 'Offset 108' 'Length 4' 'Mask 128' 'Type "unsigned"' 'Kind "gauge"' '</Field>' \
    '<Field "b4">' 'Offset 108' 'Length 4' 'Mask 16' 'Type "unsigned"' 'Kind "gauge"' '</Field>' \
    '</Record>' || return 1
  f=$(ls "$D"/csv/zvmtest/zvm_monitor-TCPIP_0603/zvm_vnd-*) ||
    fail "no TCPIP_0603 zvm_vnd list (device number in hex)" || return 1
  [ "$(head -n 1 "$f")" = "epoch,x_q0,x_q1,x_q2,b7,b4" ] ||
    fail "TCPIP_0603: csv header $(head -n 1 "$f")" || return 1
  # the bits differ between the two devices in the last interval
  [ "$(tail -q -n 1 "$D"/csv/zvmtest/zvm_monitor-TCPIP_06*/zvm_vnd-* | cut -d, -f6 | sort -u | wc -l)" -eq 2 ] ||
    fail "b4 the same on both devices" || return 1
}

# A record per guest defined in collectd.conf (D2R1 of the generator: the
# user ID at 20, a pattern from 28), its instance of Type userid: UserID
# selects the guests and GuestsAsHosts makes each its own host, as for
# D4R10.
sc_user_records_guests() {
  gen -g 3 -i 2 --unknown-events 3 --smt-every 0 --gap-ms 1100 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 2" run_case "$D" "$D/s.scn" \
    "--conf $D/collectd.conf --guests-as-hosts --userid /^LINUX00[12]$/" \
    'GuestsAsHosts true' 'UserID "/^LINUX00[12]$/"' \
    '<Record "2/1">' 'Name "scl"' \
    '<Field "user">' 'Offset 20' 'Length 8' 'Type "userid"' 'Kind "instance"' '</Field>' \
    '<Field "p">' 'Offset 28' 'Length 4' 'Count 2' 'Type "unsigned"' 'Kind "counter"' '</Field>' \
    '</Record>' || return 1
  ls "$D"/csv/linux002/zvm_monitor/zvm_scl-* >/dev/null 2>&1 || fail "no linux002 zvm_scl list" || return 1
  if ls "$D"/csv/linux003/zvm_monitor/zvm_scl-* >/dev/null 2>&1; then
    fail "LINUX003 is not selected, yet has a zvm_scl list"
    return 1
  fi
}

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

# The block zvm-monitor-record makes from IBM's D4R10 page (the test copy
# in tests/data/recpages, the built-in table's layout), loaded with Replace
# true, gives exactly the built-in table's values on the same stream:
# guests of three virtual processors summed per guest (one VMDBK skipping
# transactions), a logoff and logon, counters past 2^31; the same files,
# the same lines. The block takes the built-in list's fields (its csv
# header) and the record count as "transactions".
sc_record_tool_d4r10() {
  gen -g 4 -e 2 -i 4 --vcpus 3 --vmdbk-skip 2 --smt-every 0 --mces 1 \
    --logoff 2@1 --logon 2@2 --counter-offset 2147483000 --gap-ms 600 \
    -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 3" run_case "$D/builtin" "$D/s.scn" "" || return 1
  f=$(ls "$D"/builtin/csv/zvmtest/zvm_monitor-LINUX001/zvm_useite-*) || return 1
  fields=$(head -n 1 "$f" | tr ',' '\n' | sed '1d; /^transactions$/d; s/_q[0-3]$//' |
    awk '!seen[$0]++' | paste -s -d, -)
  e2e_run "$E2E_BUILD/tools/zvm-monitor-record" -q -c transactions -f "$fields" \
    "$top/tests/data/recpages/useite-v6r2.txt" >"$D/useite.conf" ||
    fail "zvm-monitor-record failed on the D4R10 page" || return 1
  run_block "$D/block" "$D/s.scn" "$D/useite.conf" || return 1
  grep -q 'record 4/10 from its <Record> block, type zvm_useite' "$D/block/collectd.log" ||
    fail "the block did not replace D4R10" || return 1
  same_csv "$D/builtin" "$D/block" '*zvm_useite-*'
}

# The block zvm-monitor-record makes from IBM's D5R21 page (z/VM V6R4.0
# MRPRCSMT, the test copy in tests/data/recpages), loaded with Replace
# true, gives exactly the built-in table's values and notifications on the
# same stream (d5r21_complete's: distinct counts, X'FF' MAX in every count
# MAX can be given for, an unusable CPUTINFO array): the same csv files
# (type zvm_prcsmt for system, zvm_prcsmt_cpu per CPU type), the same
# lines, the same multithreading notifications; and with OneValuePerList
# the same threads-/bool-/gauge- files.
mt_notes() { # LOG: the multithreading notifications, in order
  grep 'Notification: .*plugin_instance = system, type = ' "$1" | sed 's/^\[[^]]*\] //'
}
sc_record_tool_d5r21() {
  gen -g 2 -i 3 --smt-every 1 --smt-fields --mces 1 --gap-ms 1100 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 3" run_case "$D/builtin" "$D/s.scn" "" || return 1
  e2e_run "$E2E_BUILD/tools/zvm-monitor-record" -q \
    "$top/tests/data/recpages/prcsmt-v6r4.txt" >"$D/prcsmt.conf" ||
    fail "zvm-monitor-record failed on the D5R21 page" || return 1
  run_block "$D/block" "$D/s.scn" "$D/prcsmt.conf" || return 1
  grep -q 'record 5/21 from its <Record> block, type zvm_prcsmt;' "$D/block/collectd.log" &&
    grep -q 'record 5/21 from its <Record> block, array cputinfo, type zvm_prcsmt_cpu;' "$D/block/collectd.log" ||
    fail "the block did not replace D5R21" || return 1
  same_csv "$D/builtin" "$D/block" '*zvm_prcsmt*' || return 1
  mt_notes "$D/builtin/collectd.log" >"$D/builtin.notes"
  mt_notes "$D/block/collectd.log" >"$D/block.notes"
  [ "$(wc -l <"$D/builtin.notes")" -ge 4 ] || fail "fewer than 4 multithreading notifications" || return 1
  cmp -s "$D/builtin.notes" "$D/block.notes" ||
    fail "the notifications differ: $(diff "$D/builtin.notes" "$D/block.notes" | head -n 4 | tr '\n' ' ')" || return 1
  run_plain "$D/one-builtin" "$D/s.scn" "" 'OneValuePerList true' || return 1
  { echo 'OneValuePerList true' && cat "$D/prcsmt.conf"; } >"$D/prcsmt-one.conf"
  run_block "$D/one-block" "$D/s.scn" "$D/prcsmt-one.conf" || return 1
  for p in '*/threads-*' '*/bool-*' '*/gauge-mt_*'; do
    same_csv "$D/one-builtin" "$D/one-block" "$p" || return 1
  done
}

# A record of over 100 fields that IBM-style pages say is written per
# virtual processor (the made-up D4R200 of tests/data/recpages, its block
# made by zvm-monitor-record, 102 data sources: one value per list) arrives
# summed per guest: the generator writes it with every D4R10 record, its
# counter i the D4R10 counter at offset 48 + 4 (i mod 23), so each guest's
# c000 is the built-in D4R10 hfquct of the same guest, which the oracle
# checks (three VMDBKs, one skipping transactions; a logoff and logon).
# The page names no base VMDBK bit: its gauges (the named bits ESA and XA)
# are the latest record's, its record count counts every VMDBK's records.
sc_record_tool_per_vp() {
  gen -g 3 -e 2 -i 4 --vcpus 3 --vmdbk-skip 2 --smt-every 0 --mces 1 \
    --logoff 2@1 --logon 2@2 --usetst --gap-ms 600 -o "$D/s.scn" || return 1
  e2e_run "$E2E_BUILD/tools/zvm-monitor-record" -q -c records \
    "$top/tests/data/recpages/usetst-l2-table.html" >"$D/usetst.conf" ||
    fail "zvm-monitor-record failed on the D4R200 page" || return 1
  run_block "$D/run" "$D/s.scn" "$D/usetst.conf" || return 1
  grep -q 'record 4/200 from its <Record> block: more data sources than one value list holds' \
    "$D/run/collectd.log" || fail "no one-value-per-list line for 4/200 in the log" || return 1
  for g in LINUX001 LINUX002 LINUX003; do
    dir=$D/run/csv/zvmtest/zvm_monitor-$g
    n=$(ls "$dir" | grep -c -e '^derive-' -e '^gauge-')
    [ "$n" -eq 102 ] || fail "$g: $n one-value lists, want 102" || return 1
    f=$(ls "$dir"/zvm_useite-*) || return 1
    want=$(tail -n 1 "$f" | cut -d, -f"$(csv_col "$f" hfquct)")
    got=$(tail -n 1 "$dir"/derive-c000-* | cut -d, -f2)
    [ "$got" = "$want" ] || fail "$g: c000 $got, want D4R10's hfquct $want" || return 1
    want=$(tail -n 1 "$f" | cut -d, -f"$(csv_col "$f" hfothr)")
    got=$(tail -n 1 "$dir"/derive-c045-* | cut -d, -f2)
    [ "$got" = "$want" ] || fail "$g: c045 $got, want D4R10's hfothr $want" || return 1
    # the named bits of MODE: the latest record's, one of the two set
    bits=$(tail -q -n 1 "$dir"/gauge-esa-* "$dir"/gauge-xa-* | cut -d, -f2 | tr '\n' ' ')
    [ "$bits" = "1.000000 0.000000 " ] || [ "$bits" = "0.000000 1.000000 " ] ||
      fail "$g: esa and xa $bits, want one of them 1" || return 1
    # no base VMDBK bit on the page: every record counts
    [ "$(tail -n 1 "$dir"/derive-records-* | cut -d, -f2)" -gt \
      "$(tail -n 1 "$f" | cut -d, -f"$(csv_col "$f" transactions)")" ] ||
      fail "$g: fewer records than D4R10 transactions" || return 1
  done
}

# A mistake in a <Record> block stops the plugin at start-up with one line
# that names it.
sc_user_record_error() {
  e2e_conf "$D" '<Record "0/7">' 'Name "bad"' '<Field "f">' 'Offset 12' 'Length 4' \
    'Type "unsigned"' 'Kind "counter"' '</Field>' '</Record>'
  gen -g 1 -i 1 -o "$D/s.scn" || return 1
  e2e_collectd "$D" "$D/s.scn"
  pid=$E2E_PID
  e2e_wait 20 grep -qs 'zvm_monitor plugin: Record "0/7" Field "f": Offset 12 lies in the 20-byte record header' "$D/collectd.log" ||
    { e2e_stop "$pid"; tail -n 20 "$D/collectd.log" >>"$SC_LOG"; fail "no one-line error for Offset 12"; return 1; }
  e2e_stop "$pid" || { fail "collectd did not stop"; return 1; }
  if [ -d "$D/csv/zvmtest/zvm_monitor-LINUX001" ]; then
    fail "values from a plugin whose configuration failed"
    return 1
  fi
}

# Device and data-loss episodes: the first two opens fail with EBUSY, then
# two EOVERFLOWs in a row (one episode) and an EFAULT in the middle of a set
# (a discarded set). Each kind notifies exactly once when its episode starts
# and once (OKAY) after reading resumed for 3 intervals; NotifyDiscard false
# silences that kind only. The data itself must still match the oracle.
# (No sever here: which messages a close discards depends on timing.)
episode_notes() { # SEVERITY KIND
  grep -c "Notification: severity = $1, host = zvmtest, plugin = zvm_monitor, plugin_instance = reader, type = errors, type_instance = $2, message = " \
    "$D/collectd.log"
}
sc_episodes() {
  gen -g 4 -i 10 --gap-ms 500 \
    --fault open@0:EBUSY:2,eoverflow@2,eoverflow@3,efault@6:1000 -o "$D/s.scn" || return 1
  CASE_TIMEOUT=90 run_case "$D" "$D/s.scn" "" || return 1
  for kind in overflow device; do
    [ "$(episode_notes WARNING $kind)" -eq 1 ] || fail "want one WARNING for $kind episodes" || return 1
    [ "$(episode_notes OKAY $kind)" -eq 1 ] || fail "want one OKAY for $kind episodes" || return 1
  done
  [ "$(episode_notes WARNING discard)" -eq 1 ] && [ "$(episode_notes OKAY discard)" -eq 1 ] ||
    fail "want one WARNING and one OKAY for the discarded set" || return 1
  grep -q "type_instance = device, message = another process holds $D/monreader (only one reader is allowed); retrying$" \
    "$D/collectd.log" || fail "device notification without the EBUSY advice" || return 1
  # OKAY comes after its WARNING
  awk '/type_instance = overflow/ { print $0 }' "$D/collectd.log" | head -n 1 | grep -q "severity = WARNING" ||
    fail "overflow: the first notification is not the WARNING" || return 1
  # a short stream with both kinds of loss and NotifyDiscard false
  D2=$D/off
  mkdir -p "$D2"
  gen -g 4 -i 4 --fault eoverflow@1,efault@3:1000 -o "$D2/s.scn" || return 1
  run_case "$D2" "$D2/s.scn" "" "NotifyDiscard false" || return 1
  ! grep -q "type_instance = discard" "$D2/collectd.log" || fail "NotifyDiscard false still notified" || return 1
  grep -q "type_instance = overflow" "$D2/collectd.log" || fail "NotifyDiscard false silenced overflow"
}

# Guest logon and logoff (D4R1/D4R2): LINUX002 logs off after interval 1
# and on again in interval 3 (its counters restart), LINUX003 logs off in
# interval 0 and again in 2 (its logon lost); a 3-frame stream over several
# callbacks. The oracle checks the notifications (one per logoff, record
# time, plugin instance = user ID) and the values (transactions restart);
# then the same with GuestsAsHosts (host = guest) and UserID selecting
# LINUX002 only, and with NotifyLogon false.
sc_sessions() {
  gen -g 4 -i 5 --gap-ms 400 --logoff 2@1 --logon 2@3 --logoff 3@0 --logoff 3@2 \
    -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "" || return 1
  [ "$(grep -c 'type = session, type_instance = logoff, message = z/VM guest LINUX003 logged off$' "$D/collectd.log")" -eq 2 ] ||
    fail "want two logoff notifications of LINUX003" || return 1
  D2=$D/gah
  mkdir -p "$D2"
  run_case "$D2" "$D/s.scn" "--guests-as-hosts --userid LINUX002" \
    "GuestsAsHosts true" 'UserID "LINUX002"' || return 1
  grep -q 'host = linux002, plugin = zvm_monitor, type = session, type_instance = logon, message = z/VM guest LINUX002 logged on$' \
    "$D2/collectd.log" || fail "no logon notification with host = linux002" || return 1
  ! grep -q 'LINUX003' "$D2/collectd.log" || fail "LINUX003 not selected, yet notified" || return 1
  D3=$D/off
  mkdir -p "$D3"
  run_case "$D3" "$D/s.scn" "--notify-off logon" "NotifyLogon false" || return 1
  ! grep -q 'type_instance = logon' "$D3/collectd.log" || fail "NotifyLogon false still notified" || return 1
  grep -q 'type_instance = logoff' "$D3/collectd.log" || fail "NotifyLogon false silenced logoffs"
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

# A stream with decoded records, a multithreading change, an EIO in a set
# and an EOVERFLOW, read directly (oracle-checked, a message every 2 s) and
# captured (no gaps); the capture replayed fast (one set per read callback)
# must give exactly the same values, and what the oracle expects. Then
# rotated files (-C) replayed by a glob give them too, and a capture of the
# slow stream replayed at the recorded pace satisfies the oracle.
sc_capture_replay() {
  opts="-g 12 -e 2 -i 2 --smt-every 1 --set-frames 2 --mces 1 --fault eio@2:3000,eoverflow@1"
  # shellcheck disable=SC2086
  gen $opts --gap-ms 2000 -o "$D/slow.scn" || return 1
  # shellcheck disable=SC2086
  gen $opts -o "$D/fast.scn" || return 1
  run_case "$D/direct" "$D/slow.scn" "" || return 1
  capture "$D/fast.scn" "$D/cap.pcapng" || return 1
  sets=$(last_value "$D/direct/csv/zvmtest/zvm_monitor-reader/total_objects-sets-*")
  replay_run "$D/replay" "$sets" "ReplayFile \"$D/cap.pcapng\"" 'ReplaySpeed "fast"' || return 1
  same_values "$D/direct" "$D/replay" || return 1
  "$PY" "$ORACLE" check "$D/fast.scn" --csv "$D/replay/csv" --log "$D/replay/collectd.log" \
    >>"$SC_LOG" 2>&1 || { fail "fast replay differs from the oracle"; return 1; }
  # rotated: files of 4 KiB (a larger set gets a file of its own)
  capture "$D/fast.scn" "$D/rot.pcapng" -C 4k || return 1
  nfiles=$(ls "$D"/rot-*.pcapng | wc -l)
  [ "$nfiles" -ge 2 ] || fail "want >= 2 rotated files, got $nfiles" || return 1
  say "ok - $nfiles rotated files"
  replay_run "$D/rotated" "$sets" "ReplayFile \"$D/rot-*.pcapng\"" 'ReplaySpeed "fast"' || return 1
  same_values "$D/direct" "$D/rotated" || return 1
  # at the recorded pace (a message every 2 s), checked by the oracle
  # against the scenario itself, like a device
  capture "$D/slow.scn" "$D/slow.pcapng" || return 1
  replay_run "$D/recorded" "$sets" "ReplayFile \"$D/slow.pcapng\"" || return 1
  "$PY" "$ORACLE" check "$D/slow.scn" --csv "$D/recorded/csv" --log "$D/recorded/collectd.log" \
    >>"$SC_LOG" 2>&1 || { fail "recorded-pace replay differs from the oracle"; return 1; }
}

# Damage: a capture cut in the middle of a block (a kill -9 while writing)
# and one with a corrupted block length. The daemon logs the file and the
# offset, dispatches the values of every set before the damage, and exits
# normally; a ReplayFile that matches nothing is a configuration error.
sc_replay_damaged() {
  gen -g 6 -i 3 -o "$D/s.scn" || return 1
  capture "$D/s.scn" "$D/cap.pcapng" || return 1
  size=$(wc -c <"$D/cap.pcapng")
  head -c $((size - 100)) "$D/cap.pcapng" >"$D/cut.pcapng"
  sets=$(e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -r "$D/cut.pcapng" -q -s 2>"$D/dump.err" | sed -n 's/^\([0-9]*\) data sets.*/\1/p')
  grep -q "damaged at offset" "$D/dump.err" || fail "dump: no damage reported" || return 1
  replay_run "$D/cut" "$sets" "ReplayFile \"$D/cut.pcapng\"" 'ReplaySpeed "fast"' || return 1
  grep -q "zvm_monitor plugin: the capture $D/cut.pcapng is damaged at offset [0-9]*: truncated block" "$D/cut/collectd.log" ||
    fail "no error naming the file and offset" || return 1
  # values from the sets before the damage are there
  [ -n "$(ls "$D"/cut/csv/zvmtest/zvm_monitor-LINUX001/ 2>/dev/null)" ] ||
    fail "no values from the sets before the damage" || return 1
  # a corrupted length in the first packet block after the headers
  cp "$D/cap.pcapng" "$D/bad.pcapng"
  off=$(($(od -An -tu4 --endian=big -j 4 -N 4 "$D/cap.pcapng")))
  off=$((off + $(od -An -tu4 --endian=big -j $((off + 4)) -N 4 "$D/cap.pcapng")))
  off=$((off + $(od -An -tu4 --endian=big -j $((off + 4)) -N 4 "$D/cap.pcapng")))
  printf '\377' | dd of="$D/bad.pcapng" bs=1 seek=$((off + 5)) conv=notrunc 2>/dev/null
  replay_run "$D/bad" 0 "ReplayFile \"$D/bad.pcapng\"" || return 1
  grep -q "the capture $D/bad.pcapng is damaged at offset $off" "$D/bad/collectd.log" ||
    fail "no error at offset $off" || return 1
  # no file: the plugin does not start, and says why
  e2e_conf "$D/none" "ReplayFile \"$D/nothing-*.pcapng\""
  e2e_run "$E2E_DAEMON" -t -C "$D/none/collectd.conf" >/dev/null 2>&1
  (e2e_exec -t 20 "$E2E_DAEMON" -f -C "$D/none/collectd.conf") >"$D/none/out" 2>&1 &
  np=$!
  e2e_wait 10 grep -qs 'ReplayFile ".*nothing-\*.pcapng": no such file' "$D/none/collectd.log" ||
    { kill "$np" 2>/dev/null; fail "no error for a missing ReplayFile"; return 1; }
  kill "$np" 2>/dev/null
  wait "$np" 2>/dev/null
  say "ok - damage reported with file and offset, sets before it kept"
}

# The capture tool's own promises: a second reader gets EBUSY, exit status
# 2, a message that says what to do, and no file; SIGTERM ends a capture
# with a complete file; after kill -9 the file is readable up to at most
# its last block.
sc_capture_tool() {
  gen -g 6 -i 20 -o "$D/s.scn" || return 1
  set -- e2e_run LD_PRELOAD="$(e2e_preload)" ASAN_OPTIONS=detect_leaks=0 \
    MONREADER_EMU_DEVICE="$D/monreader" MONREADER_EMU_SCENARIO="$D/s.scn" \
    MONREADER_EMU_LOCK="$D/lock" MONREADER_EMU_PACE_MS=100 MONREADER_EMU_LOOP=0
  shift # e2e_run: in the background e2e_exec, whose PID is the tool's
  e2e_bg "$D/first.err" e2e_exec "$@" "$CAPTURE_TOOL" -d "$D/monreader" -w "$D/first.pcapng" -q
  set -- e2e_run "$@"
  first=$E2E_PID
  e2e_wait 10 sh -c "[ \$(wc -c <'$D/first.pcapng') -gt 2000 ]" 2>/dev/null ||
    fail "the first capture writes nothing" || return 1
  "$@" "$CAPTURE_TOOL" -d "$D/monreader" -w "$D/second.pcapng" 2>"$D/second.err"
  rc=$?
  [ $rc -eq 2 ] || fail "second reader: exit status $rc, want 2" || return 1
  grep -q "another process holds the device" "$D/second.err" ||
    fail "no EBUSY message: $(cat "$D/second.err")" || return 1
  [ ! -e "$D/second.pcapng" ] || fail "a file was left behind" || return 1
  e2e_stop "$first" || fail "the capture did not stop on SIGTERM" || return 1
  e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -q -s -r "$D/first.pcapng" >"$D/first.txt" ||
    fail "the capture stopped by SIGTERM is not complete" || return 1
  shift
  e2e_bg "$D/third.err" e2e_exec "$@" "$CAPTURE_TOOL" -d "$D/monreader" -w "$D/third.pcapng" -q
  set -- e2e_run "$@"
  third=$E2E_PID
  sleep 1
  kill -KILL "$third"
  wait "$third" 2>/dev/null
  e2e_forget "$third"
  e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -q -s -r "$D/third.pcapng" >"$D/third.txt" 2>"$D/third.dump.err"
  rc=$?
  [ $rc -le 1 ] || fail "dump of the killed capture: exit status $rc" || return 1
  n=$(sed -n 's/^\([0-9]*\) data sets.*/\1/p' "$D/third.txt")
  [ "${n:-0}" -ge 3 ] || fail "killed capture: only ${n:-0} sets readable" || return 1
  say "ok - EBUSY, SIGTERM ($(head -n 1 "$D/first.txt")), kill -9 ($n sets readable)"
  # a pipe (-w - into -r -), and the dump reading the device itself
  gen -g 4 -i 2 --fault eio@1:300 -o "$D/p.scn" || return 1
  set -- e2e_run LD_PRELOAD="$(e2e_preload)" ASAN_OPTIONS=detect_leaks=0 \
    MONREADER_EMU_DEVICE="$D/monreader" MONREADER_EMU_SCENARIO="$D/p.scn" MONREADER_EMU_LOOP=1
  "$@" "$CAPTURE_TOOL" -d "$D/monreader" -w - -q -i 1 2>/dev/null |
    e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -t -r - >"$D/pipe.txt" || fail "capture | dump failed" || return 1
  "$@" "$E2E_BUILD/tools/zvm-monitor-dump" -t -d "$D/monreader" -c 3 >"$D/live.txt" 2>/dev/null ||
    fail "zvm-monitor-dump -d failed" || return 1
  cmp -s "$D/pipe.txt" "$D/live.txt" || { diff "$D/pipe.txt" "$D/live.txt" | head >>"$SC_LOG"; fail "the device and its capture print differently"; return 1; }
  grep -q "event: zvm_monitor event EIO" "$D/live.txt" || fail "no EIO event printed" || return 1
  # a full file (ulimit -f: 12 or 24 KiB, whatever the shell's unit): exit
  # status 1, a message, and a file of complete blocks
  gen -g 24 -e 2 -i 4 --set-frames 2 --mces 1 -o "$D/big.scn" || return 1
  (
    ulimit -f 24
    "$@" MONREADER_EMU_SCENARIO="$D/big.scn" "$CAPTURE_TOOL" -d "$D/monreader" \
      -w "$D/full.pcapng" -i 1 -q 2>"$D/full.err"
  )
  rc=$?
  [ $rc -eq 1 ] || fail "size limit: exit status $rc, want 1" || return 1
  grep -q "size limit.*holds every set up to the last one written" "$D/full.err" ||
    fail "size limit: no clear message: $(cat "$D/full.err")" || return 1
  e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -q -s -r "$D/full.pcapng" >"$D/full.txt" ||
    fail "the capture cut by the size limit is damaged" || return 1
  say "ok - size limit: $(wc -c <"$D/full.pcapng") bytes of complete blocks, $(head -n 1 "$D/full.txt")"
  # rotation by time (-G 1, a message every 250 ms for 3 s) and a ring of 2
  gen -g 2 -i 6 -o "$D/ring.scn" || return 1
  "$@" MONREADER_EMU_PACE_MS=250 MONREADER_EMU_SCENARIO="$D/ring.scn" "$CAPTURE_TOOL" \
    -d "$D/monreader" -w "$D/ring.pcapng" -G 1 -W 2 -i 1 -q 2>/dev/null ||
    fail "capture -G 1 -W 2 failed" || return 1
  ls "$D"/ring-*.pcapng >"$D/ring.list" 2>/dev/null
  [ "$(wc -l <"$D/ring.list")" -eq 2 ] || fail "-W 2: want 2 files, got $(cat "$D/ring.list")" || return 1
  [ ! -e "$D/ring-000000.pcapng" ] || fail "-W 2: the oldest file was not removed" || return 1
  for f in $(cat "$D/ring.list"); do
    e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -q -s -r "$f" >/dev/null || fail "$f unreadable" || return 1
  done
  say "ok - rotation by time with a ring of 2: $(tr '\n' ' ' <"$D/ring.list")"
  # <Record> blocks from a collectd.conf checked against captured records
  cat >"$D/records.conf" <<'CONF'
<Plugin zvm_monitor>
  <Record "4/10">
    Name "useite2"
    Replace true
    <Field "vmduser">
      Offset 20
      Length 8
      Type "ebcdic"
      Kind "instance"
    </Field>
    <Field "hfcpurn">
      Offset 116
      Length 4
      Type "unsigned"
      Kind "counter"
    </Field>
    <Field "beyond">
      Offset 300
      Length 4
      Type "unsigned"
      Kind "gauge"
    </Field>
  </Record>
</Plugin>
CONF
  e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -v -C "$D/records.conf" -r "$D/first.pcapng" >"$D/records.txt" ||
    fail "zvm-monitor-dump -C failed" || return 1
  grep -q '^    D4R10 useite2 ' "$D/records.txt" && grep -q '\[<Record> block\]' "$D/records.txt" &&
    grep -q '^        vmduser  *+20   "LINUX001"' "$D/records.txt" &&
    grep -q '^        beyond  *(not in this record: 200 bytes)' "$D/records.txt" ||
    fail "the <Record> block was not used as defined" || return 1
  want=$(e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -v -r "$D/first.pcapng" | sed -n 's/^        USEITE_HFCPURN  *+116  \([0-9]*\) .*/\1/p' | head -n 1)
  got=$(sed -n 's/^        hfcpurn  *+116  \([0-9]*\) .*/\1/p' "$D/records.txt" | head -n 1)
  [ -n "$want" ] && [ "$want" = "$got" ] || fail "hfcpurn: built-in table $want, <Record> block $got" || return 1
  sed 's/Offset 116/Offset 10/' "$D/records.conf" >"$D/bad.conf"
  e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -C "$D/bad.conf" -r "$D/first.pcapng" >/dev/null 2>"$D/bad.err"
  rc=$?
  [ $rc -eq 2 ] && grep -q 'Field "hfcpurn": Offset 10 lies in the 20-byte record header' "$D/bad.err" ||
    fail "a refused <Record> block: exit $rc, $(cat "$D/bad.err")" || return 1
  say "ok - dump -C decodes with <Record> blocks and refuses bad ones"
  # Wireshark's tools, where installed: editcap cuts, mergecap merges
  if command -v editcap >/dev/null 2>&1 && command -v mergecap >/dev/null 2>&1; then
    editcap -r "$D/first.pcapng" "$D/cut.pcapng" 1-3 >/dev/null 2>&1 || fail "editcap failed" || return 1
    n=$(e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -q -s -r "$D/cut.pcapng" | sed -n 's/^\([0-9]*\) data sets, \([0-9]*\) events.*/\1+\2/p')
    [ "$n" = "2+1" ] || [ "$n" = "3+0" ] || fail "editcap -r 1-3: want 3 packets, got $n" || return 1
    mergecap -w "$D/merged.pcapng" "$D/first.pcapng" "$D/cut.pcapng" 2>/dev/null || fail "mergecap failed" || return 1
    e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -q -s -r "$D/merged.pcapng" >/dev/null || fail "merged capture unreadable" || return 1
    say "ok - editcap and mergecap output read back"
  else
    say "SKIP: editcap/mergecap not installed: the Wireshark round trip was not tried (wireshark-common)"
  fi
}

# ---------------------------------------------------------------------------
# A wrong Device, and shutdown whatever the device does.

# cpu_ticks PID: user + system CPU time of a process in clock ticks
# (/proc/PID/stat fields 14 and 15). Under qemu-user the emulator is the
# process: its time is the daemon's, emulation included.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }

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

# A Device that is not the monitor device: /dev/zero (endless data),
# /dev/null (endless 0-byte reads), a regular file, another character
# device (/dev/urandom). Each daemon is refused at open with a line that
# says what to set, logged once, retried with back-off, and uses hardly
# more CPU than an idle daemon (Device missing) measured over the same 5 s;
# each stops within 2 s of SIGTERM.
sc_wrong_device() {
  kinds="idle zero null file urandom"
  for k in $kinds; do mkdir -p "$D/$k"; done
  ln -s /dev/zero "$D/zero/monreader"
  ln -s /dev/null "$D/null/monreader"
  cp /etc/passwd "$D/file/monreader"
  ln -s /dev/urandom "$D/urandom/monreader"
  for k in $kinds; do
    e2e_conf "$D/$k"
    # the emulated device is elsewhere: these paths are what they are
    e2e_collectd "$D/$k" "$D/none.scn" MONREADER_EMU_DEVICE="$D/emulated-elsewhere"
    eval "pid_$k=\$E2E_PID"
  done
  for k in $kinds; do
    e2e_wait 60 grep -q "Initialization complete" "$D/$k/collectd.log" ||
      fail "$k: the daemon did not start" || return 1
  done
  sleep 1
  for k in $kinds; do eval "t0_$k=\$(cpu_ticks \$pid_$k)"; done
  sleep 5
  for k in $kinds; do eval "t1_$k=\$(cpu_ticks \$pid_$k)"; done
  hz=$(getconf CLK_TCK)
  idle=$((t1_idle - t0_idle))
  # Twice the idle daemon, plus 3 % of one CPU over the 5 s.
  limit=$((2 * idle + hz * 5 * 3 / 100))
  say "CPU over 5 s (ticks of 1/$hz s): idle $idle, limit $limit"
  for k in zero null file urandom; do
    eval "used=\$((t1_$k - t0_$k))"
    say "  $k: $used"
    [ "$used" -le "$limit" ] || fail "$k: $used ticks in 5 s, idle $idle (limit $limit)" || return 1
  done
  p="zvm_monitor plugin: $D"
  what="not the z/VM monitor device: set Device to the node of the misc device monreader"
  grep -q "$p/file/monreader is a regular file, $what" "$D/file/collectd.log" ||
    fail "the regular file: no line saying what it is and what to set" || return 1
  refused="zero null urandom"
  if [ ! -r /sys/dev/char/1:5/uevent ]; then
    # No sysfs to tell the devices apart: their streams give them away.
    refused=
    grep -q "$p/zero/monreader returned data that does not start with a monitor control element (MCE), which /dev/monreader never does: closed it, will re-open in 1 s, then less often; check that Device names" "$D/zero/collectd.log" &&
      grep -q "$p/null/monreader returned 256 0-byte reads without data between them, which /dev/monreader never does" "$D/null/collectd.log" ||
      fail "without sysfs: /dev/zero or /dev/null not caught by its stream" || return 1
  else
    grep -q "$p/zero/monreader is the character device 1:5 (zero), $what" "$D/zero/collectd.log" &&
      grep -q "$p/null/monreader is the character device 1:3 (null), $what" "$D/null/collectd.log" &&
      grep -q "$p/urandom/monreader is the character device 1:9 (urandom), $what" "$D/urandom/collectd.log" ||
      fail "a refusal does not say what the device is and what to set" || return 1
  fi
  for k in file $refused; do
    [ "$(grep -c "zvm_monitor plugin: .*not the z/VM monitor device" "$D/$k/collectd.log")" -eq 1 ] ||
      fail "$k: the refusal is not logged exactly once" || return 1
    opens=$(tail -n 1 "$D/$k"/csv/zvmtest/zvm_monitor-reader/errors-open-* 2>/dev/null | cut -d, -f2)
    [ "${opens:-0}" -ge 2 ] || fail "$k: errors-open ${opens:-none}, want the refusals counted" || return 1
  done
  for k in $kinds; do
    eval "stop_within \$pid_$k $k" || return 1
  done
  set_aside "$D"/*
}

# FIFOs at the configured paths: a FIFO as Device is refused at each open
# with one line (opened O_NONBLOCK, so nothing waits for a writer), as
# ReplayFile at the start with one line (the plugin does not start). Both
# daemons go on reading their other plugins (uptime) and stop within 2 s.
sc_fifo_inputs() {
  mkdir -p "$D/device" "$D/replay"
  mkfifo "$D/device/monreader" "$D/replay/cap.pcapng" || return 1
  E2E_EXTRA_PLUGINS="LoadPlugin uptime" e2e_conf "$D/device"
  e2e_collectd "$D/device" "$D/none.scn" MONREADER_EMU_DEVICE="$D/emulated-elsewhere"
  pid_device=$E2E_PID
  E2E_EXTRA_PLUGINS="LoadPlugin uptime" e2e_conf "$D/replay" \
    "ReplayFile \"$D/replay/cap.pcapng\""
  e2e_collectd "$D/replay" "$D/none.scn" MONREADER_EMU_DEVICE="$D/emulated-elsewhere"
  pid_replay=$E2E_PID
  for k in device replay; do
    e2e_wait 60 sh -c "ls $D/$k/csv/zvmtest/uptime/uptime-* >/dev/null 2>&1" ||
      fail "$k: no values of the uptime plugin" || return 1
  done
  e2e_wait 30 grep -q "zvm_monitor plugin: $D/device/monreader is a FIFO, not the z/VM monitor device: set Device to" \
    "$D/device/collectd.log" || fail "device: no line saying it is a FIFO" || return 1
  [ "$(grep -c "zvm_monitor plugin: .*is a FIFO" "$D/device/collectd.log")" -eq 1 ] ||
    fail "device: the refusal is not logged exactly once" || return 1
  e2e_wait 30 sh -c "[ \"\$(tail -n 1 $D/device/csv/zvmtest/zvm_monitor-reader/errors-open-* 2>/dev/null | cut -d, -f2)\" -ge 1 ]" ||
    fail "device: the refusal is not counted in errors-open" || return 1
  grep -q "zvm_monitor plugin: ReplayFile \"$D/replay/cap.pcapng\" is a FIFO, not a capture file (a regular file written by zvm-monitor-capture)" \
    "$D/replay/collectd.log" || fail "replay: no line saying it is a FIFO" || return 1
  [ ! -d "$D/replay/csv/zvmtest/zvm_monitor-reader" ] ||
    fail "replay: the plugin started on a FIFO" || return 1
  for k in device replay; do
    eval "stop_within \$pid_$k $k" || return 1
  done
  [ -p "$D/device/monreader" ] && [ -p "$D/replay/cap.pcapng" ] ||
    fail "a FIFO was removed or replaced" || return 1
  set_aside "$D/device" "$D/replay"
}

# SIGTERM in every state of the device: the emulated device at its highest
# rate (no pause between messages, looping forever), a read() that blocks
# although the device was opened O_NONBLOCK, a ReplayFile replayed as fast
# as possible in a loop; and zvm-monitor-capture reading the device at its
# highest rate, and refusing /dev/zero. Each ends within 2 s.
sc_shutdown() {
  gen -g 200 -i 4 --smt-every 0 -o "$D/s.scn" || return 1
  mkdir -p "$D/fast" "$D/blocked" "$D/replay" "$D/capture"
  # collectd waits for a running read callback before the plugins' shutdown,
  # and the callback takes every queued set (MaxQueueSize, 64 MiB by
  # default: over 1 s of work under qemu at this rate): a small queue keeps
  # that wait short, so what is measured is the reader's stop.
  e2e_conf "$D/fast" "MaxQueueSize 4194304"
  e2e_collectd "$D/fast" "$D/s.scn" MONREADER_EMU_LOOP=0 MONREADER_EMU_PACE_MS=0
  pid_fast=$E2E_PID
  e2e_conf "$D/blocked"
  e2e_collectd "$D/blocked" "$D/s.scn" MONREADER_EMU_BLOCKING=1 MONREADER_EMU_PACE_MS=600000
  pid_blocked=$E2E_PID
  e2e_conf "$D/replay" "ReplayFile \"$top/contrib/demo-capture.pcapng\"" \
    "ReplaySpeed fast" "ReplayLoop true"
  rr_pre=
  [ -z "${ZVM_ASAN_RUNTIME:-}" ] || rr_pre="LD_PRELOAD=$ZVM_ASAN_RUNTIME"
  # shellcheck disable=SC2086
  e2e_bg "$D/replay/collectd.out" e2e_exec TZ=UTC ASAN_OPTIONS=detect_leaks=0 $rr_pre \
    "$E2E_DAEMON" -f -C "$D/replay/collectd.conf"
  pid_replay=$E2E_PID
  # The capture goes into a FIFO of our own, drained (an endless stream
  # fills no disk); the tool writes to it and leaves it in place.
  mkfifo "$D/capture/fifo" || return 1
  e2e_bg "$D/capture/drain.err" sh -c 'exec cat "$1" >/dev/null' sh "$D/capture/fifo"
  e2e_bg "$D/capture/tool.err" e2e_exec LD_PRELOAD="$(e2e_preload)" ASAN_OPTIONS=detect_leaks=0 \
    MONREADER_EMU_DEVICE="$D/capture/monreader" MONREADER_EMU_SCENARIO="$D/s.scn" \
    MONREADER_EMU_LOOP=0 MONREADER_EMU_PACE_MS=0 \
    "$CAPTURE_TOOL" -d "$D/capture/monreader" -w "$D/capture/fifo" -q
  pid_capture=$E2E_PID

  # data flows (the blocked one: its first message was read)
  for k in fast:20 replay:3 blocked:1; do
    e2e_wait 60 sh -c "v=\$(tail -n 1 $D/${k%:*}/csv/zvmtest/zvm_monitor-reader/total_objects-sets-* 2>/dev/null | cut -d, -f2); [ \"\${v:-0}\" -ge ${k#*:} ]" ||
      fail "${k%:*}: fewer than ${k#*:} data sets read" || return 1
  done
  sleep 1 # the capture tool reads meanwhile
  for k in fast blocked replay capture; do
    eval "stop_within \$pid_$k $k" || return 1
  done
  [ -p "$D/capture/fifo" ] || fail "capture: its output FIFO is gone" || return 1
  grep -q "Exiting normally" "$D/fast/collectd.log" ||
    fail "fast: collectd did not exit normally" || return 1
  ! grep -q "did not stop within" "$D/fast/collectd.log" ||
    fail "fast: the reader did not stop between reads" || return 1
  grep -q "zvm_monitor plugin: the reader thread did not stop within 500 ms (a read() of $D/blocked/monreader that blocks" \
    "$D/blocked/collectd.log" || fail "blocked: no warning about the blocked read" || return 1

  # The capture tool refuses /dev/zero at once, saying what to give -d.
  e2e_run -t 20 "$CAPTURE_TOOL" -d /dev/zero -w "$D/capture/zero.pcapng" 2>"$D/capture/zero.err"
  rc=$?
  [ $rc -eq 2 ] || fail "capture -d /dev/zero: exit status $rc, want 2" || return 1
  grep -q "zvm-monitor-capture: /dev/zero is the character device 1:5 (zero), not the z/VM monitor device: set -d to" \
    "$D/capture/zero.err" || fail "capture -d /dev/zero: $(cat "$D/capture/zero.err")" || return 1
  [ ! -e "$D/capture/zero.pcapng" ] || fail "capture -d /dev/zero left a file" || return 1
  # With -r it waits for the right device, at little cost, until SIGTERM.
  e2e_bg "$D/capture/retry.err" e2e_exec "$CAPTURE_TOOL" -r -d /dev/zero -w "$D/capture/retry.pcapng"
  pid_retry=$E2E_PID
  sleep 2
  stop_within "$pid_retry" "capture -r -d /dev/zero" || return 1
  set_aside "$D/fast" "$D/blocked" "$D/replay"
}

# ---------------------------------------------------------------------------

ALL="decode discarded read_errors sever_reopen ebusy_injected ebusy_holder
userid userid_ignore domain_processor domain_user guests_as_hosts one_value_per_list
episodes sessions mp_guests mp_guests_vcpu mp_logoff time_rules leap_wrap d5r21_complete
appldata appldata_naming graphite influxdb prometheus capture_replay replay_damaged capture_tool"
ALL="$ALL d0r2 d0r2_short user_records user_records_guests user_record_error"
ALL="$ALL user_records_bits record_tool_d4r10 record_tool_d5r21 record_tool_per_vp"
ALL="$ALL wrong_device fifo_inputs shutdown"
[ $# -gt 0 ] && ALL="$*"

# shellcheck disable=SC2086
e2e_scenarios "" $ALL
rc=$?
# Whatever the scenarios ran as root, /dev/null is still the device 1:3.
zvm_assert_dev_null "the end-to-end scenarios" || rc=1
exit $rc
