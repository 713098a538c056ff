# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Device and data-loss episodes: the first two opens fail with EBUSY, then
# two EOVERFLOWs in a row (one episode) and an EFAULT in the middle of a set
# (a discarded set). Each kind notifies exactly once when its episode starts
# and once (OKAY) after reading resumed for 3 intervals; NotifyDiscard false
# silences that kind only. The data itself must still match the oracle.
# (No sever here: which messages a close discards depends on timing.)
episode_notes() { # SEVERITY KIND
  grep -c "Notification: severity = $1, host = zvmtest, plugin = zvm_monitor, plugin_instance = reader, type = errors, type_instance = $2, message = " \
    "$D/collectd.log"
}

sc_episodes() {
  gen -g 4 -i 10 --gap-ms 500 \
    --fault open@0:EBUSY:2,eoverflow@2,eoverflow@3,efault@6:1000 -o "$D/s.scn" || return 1
  CASE_TIMEOUT=90 run_case "$D" "$D/s.scn" "" || return 1
  for kind in overflow device; do
    [ "$(episode_notes WARNING $kind)" -eq 1 ] || fail "want one WARNING for $kind episodes" || return 1
    [ "$(episode_notes OKAY $kind)" -eq 1 ] || fail "want one OKAY for $kind episodes" || return 1
  done
  [ "$(episode_notes WARNING discard)" -eq 1 ] && [ "$(episode_notes OKAY discard)" -eq 1 ] ||
    fail "want one WARNING and one OKAY for the discarded set" || return 1
  grep -q "type_instance = device, message = another process holds $D/monreader (only one reader is allowed); retrying$" \
    "$D/collectd.log" || fail "device notification without the EBUSY advice" || return 1
  # OKAY comes after its WARNING
  awk '/type_instance = overflow/ { print $0 }' "$D/collectd.log" | head -n 1 | grep -q "severity = WARNING" ||
    fail "overflow: the first notification is not the WARNING" || return 1
  # a short stream with both kinds of loss and NotifyDiscard false
  D2=$D/off
  mkdir -p "$D2"
  gen -g 4 -i 4 --fault eoverflow@1,efault@3:1000 -o "$D2/s.scn" || return 1
  run_case "$D2" "$D2/s.scn" "" "NotifyDiscard false" || return 1
  ! grep -q "type_instance = discard" "$D2/collectd.log" || fail "NotifyDiscard false still notified" || return 1
  grep -q "type_instance = overflow" "$D2/collectd.log" || fail "NotifyDiscard false silenced overflow"
}
