# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# UserID's two rules (see userid) with IgnoreSelected true: every other
# user.
sc_userid_ignore() {
  gen -g 6 -i 2 --smt-every 2 -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "--userid linux002 --userid /^LINUX00(4|5)\$/ --ignore-selected" \
    'UserID "linux002"' 'UserID "/^LINUX00(4|5)$/"' 'IgnoreSelected true' || return 1
  [ "$(ls "$D/csv/zvmtest" | grep -c '^zvm_monitor-LINUX')" -eq 3 ] || fail "want 3 users"
}
