# SPDX-License-Identifier: MIT
# shellcheck shell=sh
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
