# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# D5R21 completely: every field of IBM MRPRCSMT (z/VM V6R4.0) set, in three
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
