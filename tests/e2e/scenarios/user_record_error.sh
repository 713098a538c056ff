# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# A mistake in a <Record> block stops the plugin at start-up with one line
# that names it.
sc_user_record_error() {
  e2e_conf "$D" '<Record "0/7">' 'Name "bad"' '<Field "f">' 'Offset 12' 'Length 4' \
    'Type "unsigned"' 'Kind "counter"' '</Field>' '</Record>'
  gen -g 1 -i 1 -o "$D/s.scn" || return 1
  e2e_collectd "$D" "$D/s.scn"
  pid=$E2E_PID
  e2e_wait 20 grep -qs 'zvm_monitor plugin: Record "0/7" Field "f": Offset 12 lies in the 20-byte record header' "$D/collectd.log" ||
    { e2e_stop "$pid"; tail -n 20 "$D/collectd.log" >>"$SC_LOG"; fail "no one-line error for Offset 12"; return 1; }
  e2e_stop "$pid" || { fail "collectd did not stop"; return 1; }
  if [ -d "$D/csv/zvmtest/zvm_monitor-LINUX001" ]; then
    fail "values from a plugin whose configuration failed"
    return 1
  fi
}
