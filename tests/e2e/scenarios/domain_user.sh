# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Domain 4 (by number) only: no multithreading values, no notifications.
sc_domain_user() {
  gen -g 6 -i 2 --smt-every 2 -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "--domain 4" 'Domain 4' || return 1
  [ ! -e "$D/csv/zvmtest/zvm_monitor-ifl" ] || fail "D5R21 values with Domain 4"
}
