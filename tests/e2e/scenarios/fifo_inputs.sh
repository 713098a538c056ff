# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# FIFOs at the configured paths: a FIFO as Device is refused at each open
# with one line (opened O_NONBLOCK, so nothing waits for a writer), as
# ReplayFile at the start with one line (the plugin does not start). Both
# daemons go on reading their other plugins (uptime) and stop within 2 s.
sc_fifo_inputs() {
  mkdir -p "$D/device" "$D/replay"
  mkfifo "$D/device/monreader" "$D/replay/cap.pcapng" || return 1
  E2E_EXTRA_PLUGINS="LoadPlugin uptime" e2e_conf "$D/device"
  e2e_collectd "$D/device" "$D/none.scn" MONREADER_EMU_DEVICE="$D/emulated-elsewhere"
  pid_device=$E2E_PID
  E2E_EXTRA_PLUGINS="LoadPlugin uptime" e2e_conf "$D/replay" \
    "ReplayFile \"$D/replay/cap.pcapng\""
  e2e_collectd "$D/replay" "$D/none.scn" MONREADER_EMU_DEVICE="$D/emulated-elsewhere"
  pid_replay=$E2E_PID
  for k in device replay; do
    e2e_wait 60 sh -c "ls $D/$k/csv/zvmtest/uptime/uptime-* >/dev/null 2>&1" ||
      fail "$k: no values of the uptime plugin" || return 1
  done
  e2e_wait 30 grep -q "zvm_monitor plugin: $D/device/monreader is a FIFO, not the z/VM monitor device: set Device to" \
    "$D/device/collectd.log" || fail "device: no line saying it is a FIFO" || return 1
  [ "$(grep -c "zvm_monitor plugin: .*is a FIFO" "$D/device/collectd.log")" -eq 1 ] ||
    fail "device: the refusal is not logged exactly once" || return 1
  e2e_wait 30 sh -c "[ \"\$(tail -n 1 $D/device/csv/zvmtest/zvm_monitor-reader/errors-open-* 2>/dev/null | cut -d, -f2)\" -ge 1 ]" ||
    fail "device: the refusal is not counted in errors-open" || return 1
  grep -q "zvm_monitor plugin: ReplayFile \"$D/replay/cap.pcapng\" is a FIFO, not a capture file (a regular file written by zvm-monitor-capture)" \
    "$D/replay/collectd.log" || fail "replay: no line saying it is a FIFO" || return 1
  [ ! -d "$D/replay/csv/zvmtest/zvm_monitor-reader" ] ||
    fail "replay: the plugin started on a FIFO" || return 1
  for k in device replay; do
    eval "stop_within \$pid_$k $k" || return 1
  done
  [ -p "$D/device/monreader" ] && [ -p "$D/replay/cap.pcapng" ] ||
    fail "a FIFO was removed or replaced" || return 1
  set_aside "$D/device" "$D/replay"
}
