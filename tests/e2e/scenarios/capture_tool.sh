# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# e2e: packages wireshark-common
# The capture tool's own promises: a second reader gets EBUSY, exit status
# 2, a message that says what to do, and no file; SIGTERM ends a capture
# with a complete file; after kill -9 the file is readable up to at most
# its last block.
sc_capture_tool() {
  gen -g 6 -i 20 -o "$D/s.scn" || return 1
  set -- e2e_run LD_PRELOAD="$(e2e_preload)" ASAN_OPTIONS=detect_leaks=0 \
    MONREADER_EMU_DEVICE="$D/monreader" MONREADER_EMU_SCENARIO="$D/s.scn" \
    MONREADER_EMU_LOCK="$D/lock" MONREADER_EMU_PACE_MS=100 MONREADER_EMU_LOOP=0
  shift # e2e_run: in the background e2e_exec, whose PID is the tool's
  e2e_bg "$D/first.err" e2e_exec "$@" "$CAPTURE_TOOL" -d "$D/monreader" -w "$D/first.pcapng" -q
  set -- e2e_run "$@"
  first=$E2E_PID
  e2e_wait 10 sh -c "[ \$(wc -c <'$D/first.pcapng') -gt 2000 ]" 2>/dev/null ||
    fail "the first capture writes nothing" || return 1
  "$@" "$CAPTURE_TOOL" -d "$D/monreader" -w "$D/second.pcapng" 2>"$D/second.err"
  rc=$?
  [ $rc -eq 2 ] || fail "second reader: exit status $rc, want 2" || return 1
  grep -q "another process holds the device" "$D/second.err" ||
    fail "no EBUSY message: $(cat "$D/second.err")" || return 1
  [ ! -e "$D/second.pcapng" ] || fail "a file was left behind" || return 1
  e2e_stop "$first" || fail "the capture did not stop on SIGTERM" || return 1
  e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -q -s -r "$D/first.pcapng" >"$D/first.txt" ||
    fail "the capture stopped by SIGTERM is not complete" || return 1
  shift
  e2e_bg "$D/third.err" e2e_exec "$@" "$CAPTURE_TOOL" -d "$D/monreader" -w "$D/third.pcapng" -q
  set -- e2e_run "$@"
  third=$E2E_PID
  sleep 1
  kill -KILL "$third"
  wait "$third" 2>/dev/null
  e2e_forget "$third"
  e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -q -s -r "$D/third.pcapng" >"$D/third.txt" 2>"$D/third.dump.err"
  rc=$?
  [ $rc -le 1 ] || fail "dump of the killed capture: exit status $rc" || return 1
  n=$(sed -n 's/^\([0-9]*\) data sets.*/\1/p' "$D/third.txt")
  [ "${n:-0}" -ge 3 ] || fail "killed capture: only ${n:-0} sets readable" || return 1
  say "ok - EBUSY, SIGTERM ($(head -n 1 "$D/first.txt")), kill -9 ($n sets readable)"
  # a pipe (-w - into -r -), and the dump reading the device itself
  gen -g 4 -i 2 --fault eio@1:300 -o "$D/p.scn" || return 1
  set -- e2e_run LD_PRELOAD="$(e2e_preload)" ASAN_OPTIONS=detect_leaks=0 \
    MONREADER_EMU_DEVICE="$D/monreader" MONREADER_EMU_SCENARIO="$D/p.scn" MONREADER_EMU_LOOP=1
  "$@" "$CAPTURE_TOOL" -d "$D/monreader" -w - -q -i 1 2>/dev/null |
    e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -t -r - >"$D/pipe.txt" || fail "capture | dump failed" || return 1
  "$@" "$E2E_BUILD/tools/zvm-monitor-dump" -t -d "$D/monreader" -c 3 >"$D/live.txt" 2>/dev/null ||
    fail "zvm-monitor-dump -d failed" || return 1
  cmp -s "$D/pipe.txt" "$D/live.txt" || { diff "$D/pipe.txt" "$D/live.txt" | head >>"$SC_LOG"; fail "the device and its capture print differently"; return 1; }
  grep -q "event: zvm_monitor event EIO" "$D/live.txt" || fail "no EIO event printed" || return 1
  # a full file (ulimit -f: 12 or 24 KiB, whatever the shell's unit): exit
  # status 1, a message, and a file of complete blocks
  gen -g 24 -e 2 -i 4 --set-frames 2 --mces 1 -o "$D/big.scn" || return 1
  (
    ulimit -f 24
    "$@" MONREADER_EMU_SCENARIO="$D/big.scn" "$CAPTURE_TOOL" -d "$D/monreader" \
      -w "$D/full.pcapng" -i 1 -q 2>"$D/full.err"
  )
  rc=$?
  [ $rc -eq 1 ] || fail "size limit: exit status $rc, want 1" || return 1
  grep -q "size limit.*holds every set up to the last one written" "$D/full.err" ||
    fail "size limit: no clear message: $(cat "$D/full.err")" || return 1
  e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -q -s -r "$D/full.pcapng" >"$D/full.txt" ||
    fail "the capture cut by the size limit is damaged" || return 1
  say "ok - size limit: $(wc -c <"$D/full.pcapng") bytes of complete blocks, $(head -n 1 "$D/full.txt")"
  # rotation by time (-G 1, a message every 250 ms for 3 s) and a ring of 2
  gen -g 2 -i 6 -o "$D/ring.scn" || return 1
  "$@" MONREADER_EMU_PACE_MS=250 MONREADER_EMU_SCENARIO="$D/ring.scn" "$CAPTURE_TOOL" \
    -d "$D/monreader" -w "$D/ring.pcapng" -G 1 -W 2 -i 1 -q 2>/dev/null ||
    fail "capture -G 1 -W 2 failed" || return 1
  ls "$D"/ring-*.pcapng >"$D/ring.list" 2>/dev/null
  [ "$(wc -l <"$D/ring.list")" -eq 2 ] || fail "-W 2: want 2 files, got $(cat "$D/ring.list")" || return 1
  [ ! -e "$D/ring-000000.pcapng" ] || fail "-W 2: the oldest file was not removed" || return 1
  for f in $(cat "$D/ring.list"); do
    e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -q -s -r "$f" >/dev/null || fail "$f unreadable" || return 1
  done
  say "ok - rotation by time with a ring of 2: $(tr '\n' ' ' <"$D/ring.list")"
  # <Record> blocks from a collectd.conf checked against captured records
  cat >"$D/records.conf" <<'CONF'
<Plugin zvm_monitor>
  <Record "4/10">
    Name "useite2"
    Replace true
    <Field "vmduser">
      Offset 20
      Length 8
      Type "ebcdic"
      Kind "instance"
    </Field>
    <Field "hfcpurn">
      Offset 116
      Length 4
      Type "unsigned"
      Kind "counter"
    </Field>
    <Field "beyond">
      Offset 300
      Length 4
      Type "unsigned"
      Kind "gauge"
    </Field>
  </Record>
</Plugin>
CONF
  e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -v -C "$D/records.conf" -r "$D/first.pcapng" >"$D/records.txt" ||
    fail "zvm-monitor-dump -C failed" || return 1
  grep -q '^    D4R10 useite2 ' "$D/records.txt" && grep -q '\[<Record> block\]' "$D/records.txt" &&
    grep -q '^        vmduser  *+20   "LINUX001"' "$D/records.txt" &&
    grep -q '^        beyond  *(not in this record: 200 bytes)' "$D/records.txt" ||
    fail "the <Record> block was not used as defined" || return 1
  want=$(e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -v -r "$D/first.pcapng" | sed -n 's/^        USEITE_HFCPURN  *+116  \([0-9]*\) .*/\1/p' | head -n 1)
  got=$(sed -n 's/^        hfcpurn  *+116  \([0-9]*\) .*/\1/p' "$D/records.txt" | head -n 1)
  [ -n "$want" ] && [ "$want" = "$got" ] || fail "hfcpurn: built-in table $want, <Record> block $got" || return 1
  sed 's/Offset 116/Offset 10/' "$D/records.conf" >"$D/bad.conf"
  e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -C "$D/bad.conf" -r "$D/first.pcapng" >/dev/null 2>"$D/bad.err"
  rc=$?
  [ $rc -eq 2 ] && grep -q 'Field "hfcpurn": Offset 10 lies in the 20-byte record header' "$D/bad.err" ||
    fail "a refused <Record> block: exit $rc, $(cat "$D/bad.err")" || return 1
  say "ok - dump -C decodes with <Record> blocks and refuses bad ones"
  # Wireshark's tools, where installed: editcap cuts, mergecap merges
  if command -v editcap >/dev/null 2>&1 && command -v mergecap >/dev/null 2>&1; then
    editcap -r "$D/first.pcapng" "$D/cut.pcapng" 1-3 >/dev/null 2>&1 || fail "editcap failed" || return 1
    n=$(e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -q -s -r "$D/cut.pcapng" | sed -n 's/^\([0-9]*\) data sets, \([0-9]*\) events.*/\1+\2/p')
    [ "$n" = "2+1" ] || [ "$n" = "3+0" ] || fail "editcap -r 1-3: want 3 packets, got $n" || return 1
    mergecap -w "$D/merged.pcapng" "$D/first.pcapng" "$D/cut.pcapng" 2>/dev/null || fail "mergecap failed" || return 1
    e2e_run "$E2E_BUILD/tools/zvm-monitor-dump" -q -s -r "$D/merged.pcapng" >/dev/null || fail "merged capture unreadable" || return 1
    say "ok - editcap and mergecap output read back"
  else
    say "SKIP: editcap/mergecap not installed: the Wireshark round trip was not tried (wireshark-common)"
  fi
}
