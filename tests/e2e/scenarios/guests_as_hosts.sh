# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# GuestsAsHosts: host = user ID in lower case, empty plugin instance.
sc_guests_as_hosts() {
  gen -g 4 -i 2 --smt-every 2 -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "--guests-as-hosts" 'GuestsAsHosts true' || return 1
  ls "$D"/csv/linux003/zvm_monitor/zvm_useite-* >/dev/null 2>&1 ||
    fail "no linux003/zvm_monitor/zvm_useite"
}
