# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Record times. Interval 1 repeats interval 0's TODs exactly
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
