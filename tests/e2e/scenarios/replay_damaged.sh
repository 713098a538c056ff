# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Damage: a capture cut in the middle of a block (a kill -9 while writing)
# and one with a corrupted block length. The daemon logs the file and the
# offset, dispatches the values of every set before the damage, and exits
# normally; a ReplayFile that matches nothing is a configuration error.
sc_replay_damaged() {
  gen -g 6 -i 3 -o "$D/s.scn" || return 1
  capture "$D/s.scn" "$D/cap.pcapng" || return 1
  size=$(wc -c <"$D/cap.pcapng")
  head -c $((size - 100)) "$D/cap.pcapng" >"$D/cut.pcapng"
  sets=$(e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -r "$D/cut.pcapng" -q -s 2>"$D/dump.err" | sed -n 's/^\([0-9]*\) data sets.*/\1/p')
  grep -q "damaged at offset" "$D/dump.err" || fail "dump: no damage reported" || return 1
  replay_run "$D/cut" "$sets" "ReplayFile \"$D/cut.pcapng\"" 'ReplaySpeed "fast"' || return 1
  grep -q "zvm_monitor plugin: the capture $D/cut.pcapng is damaged at offset [0-9]*: truncated block" "$D/cut/collectd.log" ||
    fail "no error naming the file and offset" || return 1
  # values from the sets before the damage are there
  [ -n "$(ls "$D"/cut/csv/zvmtest/zvm_monitor-LINUX001/ 2>/dev/null)" ] ||
    fail "no values from the sets before the damage" || return 1
  # a corrupted length in the first packet block after the headers
  cp "$D/cap.pcapng" "$D/bad.pcapng"
  off=$(($(od -An -tu4 --endian=big -j 4 -N 4 "$D/cap.pcapng")))
  off=$((off + $(od -An -tu4 --endian=big -j $((off + 4)) -N 4 "$D/cap.pcapng")))
  off=$((off + $(od -An -tu4 --endian=big -j $((off + 4)) -N 4 "$D/cap.pcapng")))
  printf '\377' | dd of="$D/bad.pcapng" bs=1 seek=$((off + 5)) conv=notrunc 2>/dev/null
  replay_run "$D/bad" 0 "ReplayFile \"$D/bad.pcapng\"" || return 1
  grep -q "the capture $D/bad.pcapng is damaged at offset $off" "$D/bad/collectd.log" ||
    fail "no error at offset $off" || return 1
  # no file: the plugin does not start, and says why
  e2e_conf "$D/none" "ReplayFile \"$D/nothing-*.pcapng\""
  e2e_run "$E2E_DAEMON" -t -C "$D/none/collectd.conf" >/dev/null 2>&1
  (e2e_exec -t 20 "$E2E_DAEMON" -f -C "$D/none/collectd.conf") >"$D/none/out" 2>&1 &
  np=$!
  e2e_wait 10 grep -qs 'ReplayFile ".*nothing-\*.pcapng": no such file' "$D/none/collectd.log" ||
    { kill "$np" 2>/dev/null; fail "no error for a missing ReplayFile"; return 1; }
  kill "$np" 2>/dev/null
  wait "$np" 2>/dev/null
  say "ok - damage reported with file and offset, sets before it kept"
}
