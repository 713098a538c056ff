# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# D4R10 and D5R21 decoded: 24 guests, two D4R10 per guest and interval,
# two intervals, a multithreading change in each (IFL 1 -> 2 -> 1); record
# sets of up to two 4 KB frames and one record set per message, so a D1R13
# and padding end the first frame in the middle of a set, and the change's
# start and end records are in different messages; a message every 1.1 s,
# so the sets arrive in several read callbacks (intermediate values must
# all be dispatched). Counters cross 2^31 (unsigned stays positive, HFDSVM
# is signed).
sc_decode() {
  gen -g 24 -e 2 -i 2 --smt-every 1 --set-frames 2 --mces 1 \
    --counter-offset 2147483000 --gap-ms 1100 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 4" run_case "$D" "$D/s.scn" "" || return 1
  # a few facts that must hold whatever the oracle says: one list per
  # guest of type zvm_useite (registered by the plugin: the configuration
  # has only collectd's own TypesDB), data sources as the csv header names
  f=$(ls "$D"/csv/zvmtest/zvm_monitor-LINUX001/zvm_useite-*) || return 1
  [ "$(sed 1d "$f" | wc -l)" -ge 2 ] || fail "LINUX001 zvm_useite: want a list per interval" || return 1
  c=$(csv_col "$f" hfcpurn) || fail "LINUX001 zvm_useite: no hfcpurn column" || return 1
  sed 1d "$f" | cut -d, -f"$c" | awk '$1 <= 2147483648 { exit 1 }' ||
    fail "LINUX001 hfcpurn not above 2^31" || return 1
  csv_col "$(ls "$D"/csv/zvmtest/zvm_monitor-LINUX024/zvm_useite-*)" vmdcidld_q3 >/dev/null ||
    fail "no LINUX024 zvm_useite vmdcidld_q3" || return 1
  f=$(ls "$D"/csv/zvmtest/zvm_monitor-ifl/zvm_prcsmt_cpu-*) || return 1
  [ "$(sed 1d "$f" | cut -d, -f"$(csv_col "$f" activated)" | tr '\n' ' ')" = \
    "1.000000 2.000000 2.000000 1.000000 " ] ||
    fail "ifl zvm_prcsmt_cpu activated: want 1 2 2 1 (start/end of two changes)" || return 1
  grep -q "Notification: severity = OKAY, .* message = multithreading configuration change 1 ended (RCCSMTSQ 1); activated threads per core: cp 1 -> 1, ifl 1 -> 2$" "$D/collectd.log" ||
    fail "no end-of-change notification ifl 1 -> 2" || return 1
}
