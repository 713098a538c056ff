# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# APPLDATA under zvm_monitor (ApplDataNaming), every kind including the
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
