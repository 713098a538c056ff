# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# The path is severed after message 1; the first two re-opens fail with
# EIO; then the rest of the stream arrives.
sc_sever_reopen() {
  gen -g 5 -i 3 --smt-every 2 --fault sever@1,open@2:EIO:2 -o "$D/s.scn" || return 1
  CASE_TIMEOUT=60 run_case "$D" "$D/s.scn" "" || return 1
  grep -q "zvm_monitor plugin: .*opened" "$D/collectd.log" || fail "no re-open logged"
}
