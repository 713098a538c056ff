# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# e2e: alone
# A Device that is not the monitor device: /dev/zero (endless data),
# /dev/null (endless 0-byte reads), a regular file, another character
# device (/dev/urandom). Each daemon is refused at open with a line that
# says what to set, logged once, retried with back-off, and uses hardly
# more CPU than an idle daemon (Device missing) measured over the same 5 s;
# each stops within 2 s of SIGTERM.

# cpu_ticks PID: user + system CPU time of a process in clock ticks
# (/proc/PID/stat fields 14 and 15). Under qemu-user the emulator is the
# process: its time is the daemon's, emulation included.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }

sc_wrong_device() {
  kinds="idle zero null file urandom"
  for k in $kinds; do mkdir -p "$D/$k"; done
  ln -s /dev/zero "$D/zero/monreader"
  ln -s /dev/null "$D/null/monreader"
  cp /etc/passwd "$D/file/monreader"
  ln -s /dev/urandom "$D/urandom/monreader"
  for k in $kinds; do
    e2e_conf "$D/$k"
    # the emulated device is elsewhere: these paths are what they are
    e2e_collectd "$D/$k" "$D/none.scn" MONREADER_EMU_DEVICE="$D/emulated-elsewhere"
    eval "pid_$k=\$E2E_PID"
  done
  for k in $kinds; do
    e2e_wait 60 grep -q "Initialization complete" "$D/$k/collectd.log" ||
      fail "$k: the daemon did not start" || return 1
  done
  sleep 1
  for k in $kinds; do eval "t0_$k=\$(cpu_ticks \$pid_$k)"; done
  sleep 5
  for k in $kinds; do eval "t1_$k=\$(cpu_ticks \$pid_$k)"; done
  hz=$(getconf CLK_TCK)
  idle=$((t1_idle - t0_idle))
  # Twice the idle daemon, plus 3 % of one CPU over the 5 s.
  limit=$((2 * idle + hz * 5 * 3 / 100))
  say "CPU over 5 s (ticks of 1/$hz s): idle $idle, limit $limit"
  for k in zero null file urandom; do
    eval "used=\$((t1_$k - t0_$k))"
    say "  $k: $used"
    [ "$used" -le "$limit" ] || fail "$k: $used ticks in 5 s, idle $idle (limit $limit)" || return 1
  done
  p="zvm_monitor plugin: $D"
  what="not the z/VM monitor device: set Device to the node of the misc device monreader"
  grep -q "$p/file/monreader is a regular file, $what" "$D/file/collectd.log" ||
    fail "the regular file: no line saying what it is and what to set" || return 1
  refused="zero null urandom"
  if [ ! -r /sys/dev/char/1:5/uevent ]; then
    # No sysfs to tell the devices apart: their streams give them away.
    refused=
    grep -q "$p/zero/monreader returned data that does not start with a monitor control element (MCE), which /dev/monreader never does: closed it, will re-open in 1 s, then less often; check that Device names" "$D/zero/collectd.log" &&
      grep -q "$p/null/monreader returned 256 0-byte reads without data between them, which /dev/monreader never does" "$D/null/collectd.log" ||
      fail "without sysfs: /dev/zero or /dev/null not caught by its stream" || return 1
  else
    grep -q "$p/zero/monreader is the character device 1:5 (zero), $what" "$D/zero/collectd.log" &&
      grep -q "$p/null/monreader is the character device 1:3 (null), $what" "$D/null/collectd.log" &&
      grep -q "$p/urandom/monreader is the character device 1:9 (urandom), $what" "$D/urandom/collectd.log" ||
      fail "a refusal does not say what the device is and what to set" || return 1
  fi
  for k in file $refused; do
    [ "$(grep -c "zvm_monitor plugin: .*not the z/VM monitor device" "$D/$k/collectd.log")" -eq 1 ] ||
      fail "$k: the refusal is not logged exactly once" || return 1
    opens=$(tail -n 1 "$D/$k"/csv/zvmtest/zvm_monitor-reader/errors-open-* 2>/dev/null | cut -d, -f2)
    [ "${opens:-0}" -ge 2 ] || fail "$k: errors-open ${opens:-none}, want the refusals counted" || return 1
  done
  for k in $kinds; do
    eval "stop_within \$pid_$k $k" || return 1
  done
  set_aside "$D"/*
}
