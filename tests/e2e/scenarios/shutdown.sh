# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# e2e: alone
# SIGTERM in every state of the device: the emulated device at its highest
# rate (no pause between messages, looping forever), a read() that blocks
# although the device was opened O_NONBLOCK, a ReplayFile replayed as fast
# as possible in a loop; and zvm-monitor-capture reading the device at its
# highest rate, and refusing /dev/zero. Each ends within 2 s.
sc_shutdown() {
  gen -g 200 -i 4 --smt-every 0 -o "$D/s.scn" || return 1
  mkdir -p "$D/fast" "$D/blocked" "$D/replay" "$D/capture"
  # collectd waits for a running read callback before the plugins' shutdown,
  # and the callback takes every queued set (MaxQueueSize, 64 MiB by
  # default: over 1 s of work under qemu at this rate): a small queue keeps
  # that wait short, so what is measured is the reader's stop.
  e2e_conf "$D/fast" "MaxQueueSize 4194304"
  e2e_collectd "$D/fast" "$D/s.scn" MONREADER_EMU_LOOP=0 MONREADER_EMU_PACE_MS=0
  pid_fast=$E2E_PID
  e2e_conf "$D/blocked"
  e2e_collectd "$D/blocked" "$D/s.scn" MONREADER_EMU_BLOCKING=1 MONREADER_EMU_PACE_MS=600000
  pid_blocked=$E2E_PID
  e2e_conf "$D/replay" "ReplayFile \"$top/contrib/demo-capture.pcapng\"" \
    "ReplaySpeed fast" "ReplayLoop true"
  rr_pre=
  [ -z "${ZVM_ASAN_RUNTIME:-}" ] || rr_pre="LD_PRELOAD=$ZVM_ASAN_RUNTIME"
  # shellcheck disable=SC2086
  e2e_bg "$D/replay/collectd.out" e2e_exec TZ=UTC ASAN_OPTIONS=detect_leaks=0 $rr_pre \
    "$E2E_DAEMON" -f -C "$D/replay/collectd.conf"
  pid_replay=$E2E_PID
  # The capture goes into a FIFO of our own, drained (an endless stream
  # fills no disk); the tool writes to it and leaves it in place.
  mkfifo "$D/capture/fifo" || return 1
  e2e_bg "$D/capture/drain.err" sh -c 'exec cat "$1" >/dev/null' sh "$D/capture/fifo"
  e2e_bg "$D/capture/tool.err" e2e_exec LD_PRELOAD="$(e2e_preload)" ASAN_OPTIONS=detect_leaks=0 \
    MONREADER_EMU_DEVICE="$D/capture/monreader" MONREADER_EMU_SCENARIO="$D/s.scn" \
    MONREADER_EMU_LOOP=0 MONREADER_EMU_PACE_MS=0 \
    "$CAPTURE_TOOL" -d "$D/capture/monreader" -w "$D/capture/fifo" -q
  pid_capture=$E2E_PID

  # data flows (the blocked one: its first message was read)
  for k in fast:20 replay:3 blocked:1; do
    e2e_wait 60 sh -c "v=\$(tail -n 1 $D/${k%:*}/csv/zvmtest/zvm_monitor-reader/total_objects-sets-* 2>/dev/null | cut -d, -f2); [ \"\${v:-0}\" -ge ${k#*:} ]" ||
      fail "${k%:*}: fewer than ${k#*:} data sets read" || return 1
  done
  sleep 1 # the capture tool reads meanwhile
  for k in fast blocked replay capture; do
    eval "stop_within \$pid_$k $k" || return 1
  done
  [ -p "$D/capture/fifo" ] || fail "capture: its output FIFO is gone" || return 1
  grep -q "Exiting normally" "$D/fast/collectd.log" ||
    fail "fast: collectd did not exit normally" || return 1
  ! grep -q "did not stop within" "$D/fast/collectd.log" ||
    fail "fast: the reader did not stop between reads" || return 1
  grep -q "zvm_monitor plugin: the reader thread did not stop within 500 ms (a read() of $D/blocked/monreader that blocks" \
    "$D/blocked/collectd.log" || fail "blocked: no warning about the blocked read" || return 1

  # The capture tool refuses /dev/zero at once, saying what to give -d.
  e2e_run -t 20 "$CAPTURE_TOOL" -d /dev/zero -w "$D/capture/zero.pcapng" 2>"$D/capture/zero.err"
  rc=$?
  [ $rc -eq 2 ] || fail "capture -d /dev/zero: exit status $rc, want 2" || return 1
  grep -q "zvm-monitor-capture: /dev/zero is the character device 1:5 (zero), not the z/VM monitor device: set -d to" \
    "$D/capture/zero.err" || fail "capture -d /dev/zero: $(cat "$D/capture/zero.err")" || return 1
  [ ! -e "$D/capture/zero.pcapng" ] || fail "capture -d /dev/zero left a file" || return 1
  # With -r it waits for the right device, at little cost, until SIGTERM.
  e2e_bg "$D/capture/retry.err" e2e_exec "$CAPTURE_TOOL" -r -d /dev/zero -w "$D/capture/retry.pcapng"
  pid_retry=$E2E_PID
  sleep 2
  stop_within "$pid_retry" "capture -r -d /dev/zero" || return 1
  set_aside "$D/fast" "$D/blocked" "$D/replay"
}
