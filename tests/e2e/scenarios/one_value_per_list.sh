# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# OneValuePerList: the first release's layout, one value per list
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
