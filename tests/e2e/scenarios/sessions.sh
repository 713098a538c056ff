# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Guest logon and logoff (D4R1/D4R2): LINUX002 logs off after interval 1
# and on again in interval 3 (its counters restart), LINUX003 logs off in
# interval 0 and again in 2 (its logon lost); a 3-frame stream over several
# callbacks. The oracle checks the notifications (one per logoff, record
# time, plugin instance = user ID) and the values (transactions restart);
# then the same with GuestsAsHosts (host = guest) and UserID selecting
# LINUX002 only, and with NotifyLogon false.
sc_sessions() {
  gen -g 4 -i 5 --gap-ms 400 --logoff 2@1 --logon 2@3 --logoff 3@0 --logoff 3@2 \
    -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "" || return 1
  [ "$(grep -c 'type = session, type_instance = logoff, message = z/VM guest LINUX003 logged off$' "$D/collectd.log")" -eq 2 ] ||
    fail "want two logoff notifications of LINUX003" || return 1
  D2=$D/gah
  mkdir -p "$D2"
  run_case "$D2" "$D/s.scn" "--guests-as-hosts --userid LINUX002" \
    "GuestsAsHosts true" 'UserID "LINUX002"' || return 1
  grep -q 'host = linux002, plugin = zvm_monitor, type = session, type_instance = logon, message = z/VM guest LINUX002 logged on$' \
    "$D2/collectd.log" || fail "no logon notification with host = linux002" || return 1
  ! grep -q 'LINUX003' "$D2/collectd.log" || fail "LINUX003 not selected, yet notified" || return 1
  D3=$D/off
  mkdir -p "$D3"
  run_case "$D3" "$D/s.scn" "--notify-off logon" "NotifyLogon false" || return 1
  ! grep -q 'type_instance = logon' "$D3/collectd.log" || fail "NotifyLogon false still notified" || return 1
  grep -q 'type_instance = logoff' "$D3/collectd.log" || fail "NotifyLogon false silenced logoffs"
}
