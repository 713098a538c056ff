# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Records dated past the TOD clock's wrap on 2042-09-17 (and 27 s ahead
# of UTC, LeapSecondOffset 27), read now: more than 1 h + 60 s after their
# sets arrived, so their times are not trusted (a TOD glitch, a damaged
# record): every value takes its set's arrival time, counted in
# total_objects-time_future and logged once, never in 2042. The wrap itself
# (such records read after 2042-09-17) is in tests/unit/mapper/test_timerule.c and
# tests/unit/mapper/test_mapper.c.
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
