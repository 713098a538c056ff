# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# A stream with decoded records, a multithreading change, an EIO in a set
# and an EOVERFLOW, read directly (oracle-checked, a message every 2 s) and
# captured (no gaps); the capture replayed fast (one set per read callback)
# must give exactly the same values, and what the oracle expects. Then
# rotated files (-C) replayed by a glob give them too, and a capture of the
# slow stream replayed at the recorded pace satisfies the oracle.
sc_capture_replay() {
  opts="-g 12 -e 2 -i 2 --smt-every 1 --set-frames 2 --mces 1 --fault eio@2:3000,eoverflow@1"
  # shellcheck disable=SC2086
  gen $opts --gap-ms 2000 -o "$D/slow.scn" || return 1
  # shellcheck disable=SC2086
  gen $opts -o "$D/fast.scn" || return 1
  run_case "$D/direct" "$D/slow.scn" "" || return 1
  capture "$D/fast.scn" "$D/cap.pcapng" || return 1
  sets=$(last_value "$D/direct/csv/zvmtest/zvm_monitor-reader/total_objects-sets-*")
  replay_run "$D/replay" "$sets" "ReplayFile \"$D/cap.pcapng\"" 'ReplaySpeed "fast"' || return 1
  same_values "$D/direct" "$D/replay" || return 1
  "$PY" "$ORACLE" check "$D/fast.scn" --csv "$D/replay/csv" --log "$D/replay/collectd.log" \
    >>"$SC_LOG" 2>&1 || { fail "fast replay differs from the oracle"; return 1; }
  # rotated: files of 4 KiB (a larger set gets a file of its own)
  capture "$D/fast.scn" "$D/rot.pcapng" -C 4k || return 1
  nfiles=$(ls "$D"/rot-*.pcapng | wc -l)
  [ "$nfiles" -ge 2 ] || fail "want >= 2 rotated files, got $nfiles" || return 1
  say "ok - $nfiles rotated files"
  replay_run "$D/rotated" "$sets" "ReplayFile \"$D/rot-*.pcapng\"" 'ReplaySpeed "fast"' || return 1
  same_values "$D/direct" "$D/rotated" || return 1
  # at the recorded pace (a message every 2 s), checked by the oracle
  # against the scenario itself, like a device
  capture "$D/slow.scn" "$D/slow.pcapng" || return 1
  replay_run "$D/recorded" "$sets" "ReplayFile \"$D/slow.pcapng\"" || return 1
  "$PY" "$ORACLE" check "$D/slow.scn" --csv "$D/recorded/csv" --log "$D/recorded/collectd.log" \
    >>"$SC_LOG" 2>&1 || { fail "recorded-pace replay differs from the oracle"; return 1; }
}
