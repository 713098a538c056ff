# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# The block zvm-monitor-record makes from IBM's D5R21 page (z/VM V6R4.0
# MRPRCSMT, the test copy in tests/data/recpages), loaded with Replace
# true, gives exactly the built-in table's values and notifications on the
# same stream (d5r21_complete's: distinct counts, X'FF' MAX in every count
# MAX can be given for, an unusable CPUTINFO array): the same csv files
# (type zvm_prcsmt for system, zvm_prcsmt_cpu per CPU type), the same
# lines, the same multithreading notifications in the same order; and with
# OneValuePerList the same threads-, bool- and gauge- files. A block of
# the activated threads only (-f PRCSMT_CAL_RCCACMNT: no values of the
# record's own, its array's only) gives the built-in's threads-activated
# files and nothing else.
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
  # the multithreading notifications (plugin instance system), without
  # the log's time stamp
  for run in builtin block; do
    grep 'Notification: .*plugin_instance = system, type = ' "$D/$run/collectd.log" |
      sed 's/^\[[^]]*\] //' >"$D/$run.notes"
  done
  [ "$(wc -l <"$D/builtin.notes")" -ge 4 ] || fail "fewer than 4 multithreading notifications" || return 1
  cmp -s "$D/builtin.notes" "$D/block.notes" ||
    fail "the notifications differ: $(diff "$D/builtin.notes" "$D/block.notes" | head -n 4 | tr '\n' ' ')" || return 1
  run_plain "$D/one-builtin" "$D/s.scn" "" 'OneValuePerList true' || return 1
  { echo 'OneValuePerList true' && cat "$D/prcsmt.conf"; } >"$D/prcsmt-one.conf"
  run_block "$D/one-block" "$D/s.scn" "$D/prcsmt-one.conf" || return 1
  for p in '*/threads-*' '*/bool-*' '*/gauge-mt_*'; do
    same_csv "$D/one-builtin" "$D/one-block" "$p" || return 1
  done
  e2e_run "$E2E_BUILD/tools/zvm-monitor-record" -q -f PRCSMT_CAL_RCCACMNT \
    "$top/tests/data/recpages/prcsmt-v6r4.txt" >"$D/activated.conf" ||
    fail "zvm-monitor-record -f PRCSMT_CAL_RCCACMNT failed on the D5R21 page" || return 1
  { echo 'OneValuePerList true' && cat "$D/activated.conf"; } >"$D/activated-one.conf"
  run_block "$D/activated" "$D/s.scn" "$D/activated-one.conf" || return 1
  grep -q 'record 5/21 from its <Record> block: no values of its own' "$D/activated/collectd.log" ||
    fail "the log does not say the D5R21 block has no values of its own" || return 1
  same_csv "$D/one-builtin" "$D/activated" '*/threads-activated-*' || return 1
  others=$(cd "$D/activated/csv" && find . -path '*/zvm_monitor-[a-z]*' -type f \
    ! -path '*/threads-activated-*' ! -path '*/zvm_monitor-reader/*')
  [ -z "$others" ] || fail "values beside threads-activated: $(echo "$others" | head -n 3 | tr '\n' ' ')" || return 1
}
