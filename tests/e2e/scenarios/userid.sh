# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# UserID: an exact name (case-insensitive) and a regular expression.
sc_userid() {
  gen -g 6 -i 2 --smt-every 2 -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "--userid linux002 --userid /^LINUX00(4|5)\$/" \
    'UserID "linux002"' 'UserID "/^LINUX00(4|5)$/"' || return 1
  [ "$(ls "$D/csv/zvmtest" | grep -c '^zvm_monitor-LINUX')" -eq 3 ] || fail "want 3 users"
}
