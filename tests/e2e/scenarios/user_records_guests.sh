# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# A record per guest defined in collectd.conf (D2R1 of the generator: the
# user ID at 20, a pattern from 28), its instance of Type userid: UserID
# selects the guests and GuestsAsHosts makes each its own host, as for
# D4R10.
sc_user_records_guests() {
  gen -g 3 -i 2 --unknown-events 3 --smt-every 0 --gap-ms 1100 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 2" run_case "$D" "$D/s.scn" \
    "--conf $D/collectd.conf --guests-as-hosts --userid /^LINUX00[12]$/" \
    'GuestsAsHosts true' 'UserID "/^LINUX00[12]$/"' \
    '<Record "2/1">' 'Name "scl"' \
    '<Field "user">' 'Offset 20' 'Length 8' 'Type "userid"' 'Kind "instance"' '</Field>' \
    '<Field "p">' 'Offset 28' 'Length 4' 'Count 2' 'Type "unsigned"' 'Kind "counter"' '</Field>' \
    '</Record>' || return 1
  ls "$D"/csv/linux002/zvm_monitor/zvm_scl-* >/dev/null 2>&1 || fail "no linux002 zvm_scl list" || return 1
  if ls "$D"/csv/linux003/zvm_monitor/zvm_scl-* >/dev/null 2>&1; then
    fail "LINUX003 is not selected, yet has a zvm_scl list"
    return 1
  fi
}
