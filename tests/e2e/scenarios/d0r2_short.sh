# SPDX-License-Identifier: MIT
# shellcheck shell=sh
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
