#!/bin/sh
# SPDX-License-Identifier: MIT
# The programs that write a file named on their command line never destroy
# what they did not create (base/outfile.c): an existing file is
# refused (exit 2, content intact) unless --force; a symbolic link is never
# followed; a new file is 0600 (0640 with --group-readable); a device or a
# FIFO is written to and left in place; '-w -' is standard output; a
# capture whose device never opens removes only a file it created itself.
#
# The character-device case runs first on a node of our own (mknod c 1 3,
# as root): only a tool that leaves that node in place is then run with
# '-w /dev/null', and /dev/null must still be the character device 1:3.
# Not root: that case is skipped (77) after the rest passed.
set -u
: "${abs_top_builddir:?}"
b=$abs_top_builddir
cap=$b/tools/zvm-monitor-capture
dump=$b/tools/zvm-monitor-dump
gen=$b/tests/rig/zvm-stream-gen
mcat=$b/tests/rig/monreader-cat
shim=$b/tests/rig/.libs/libmonreader-emu.so
for f in "$cap" "$dump" "$gen" "$mcat" "$shim"; do
  [ -e "$f" ] || { echo "FAIL: $f not built"; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-tools-output.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
umask 022
failed=0
passed=0
ok() { passed=$((passed + 1)); echo "ok - $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
root=false
[ "$(id -u)" -eq 0 ] && root=true

# emucap ARGS...: the capture tool on the emulated device playing a small
# stream once, stopping 1 s after the last data; exit status in $rc.
"$gen" -g 2 -i 2 --smt-every 1 -o "$tmp/s.scn" || { echo "FAIL: zvm-stream-gen"; exit 1; }
# Sets of over 4 KB (30 guests' D4R10 records), for rotation at -C 4096.
"$gen" -g 30 -i 3 --smt-every 1 -o "$tmp/big.scn" || { echo "FAIL: zvm-stream-gen"; exit 1; }
scn=$tmp/s.scn
emucap() {
  env LD_PRELOAD="${ZVM_ASAN_RUNTIME:+$ZVM_ASAN_RUNTIME }$shim" ASAN_OPTIONS=detect_leaks=0 \
    MONREADER_EMU_DEVICE="$tmp/monreader" MONREADER_EMU_SCENARIO="$scn" \
    MONREADER_EMU_LOOP=1 "$cap" -q -i 1 -d "$tmp/monreader" "$@" 2>"$tmp/err"
  rc=$?
}
# nodev ARGS...: the capture tool on a device that never opens (exit 2).
nodev() {
  "$cap" -d "$tmp/no-such-device" "$@" 2>"$tmp/err"
  rc=$?
}
# reap PID: a FIFO's reader, given 5 s to finish; killed if it still waits
# for a writer (the tool never opened the FIFO).
reap() {
  _i=0
  while kill -0 "$1" 2>/dev/null && [ $_i -lt 50 ]; do
    sleep 0.1
    _i=$((_i + 1))
  done
  kill "$1" 2>/dev/null
  wait "$1" 2>/dev/null
}
is_capture() { "$dump" -q -s -r "$1" >/dev/null 2>&1; }
mode() { stat -c %a "$1"; }
# what PATH: its type and, for a device, major:minor (hex)
what() { stat -c '%F %t:%T' "$1" 2>/dev/null || echo missing; }
# text PATH: its content if it is the one line the test wrote, else its size
text() {
  if [ "$(wc -l <"$1" 2>/dev/null)" = 1 ] && [ "$(wc -c <"$1")" -lt 20 ]; then
    cat "$1"
  else
    echo "$(wc -c <"$1" 2>/dev/null || echo no) bytes"
  fi
}

# A new file: 0600, a capture; with --group-readable 0640.
emucap -w "$tmp/new.pcapng"
if [ $rc -eq 0 ] && [ "$(mode "$tmp/new.pcapng")" = 600 ] && is_capture "$tmp/new.pcapng"; then
  ok "new file: exit 0, mode 0600, a capture"
else
  bad "new file: exit $rc, mode $(mode "$tmp/new.pcapng" 2>&1), $(cat "$tmp/err")"
fi
emucap --group-readable -w "$tmp/group.pcapng"
[ $rc -eq 0 ] && [ "$(mode "$tmp/group.pcapng")" = 640 ] &&
  ok "--group-readable: mode 0640" || bad "--group-readable: exit $rc, mode $(mode "$tmp/group.pcapng" 2>&1)"

# An existing file: refused, exit 2, content intact (device or not).
echo precious >"$tmp/precious.txt"
nodev -w "$tmp/precious.txt"
if [ $rc -eq 2 ] && [ "$(cat "$tmp/precious.txt" 2>&1)" = precious ] &&
  grep -q "precious.txt: exists: not overwritten (--force overwrites it)" "$tmp/err"; then
  ok "existing file, device never opens: exit 2, content intact, '$(cat "$tmp/err")'"
else
  bad "existing file, device never opens: exit $rc, content '$(text "$tmp/precious.txt")', stderr '$(cat "$tmp/err")'"
fi
emucap -w "$tmp/precious.txt"
[ $rc -eq 2 ] && [ "$(cat "$tmp/precious.txt" 2>&1)" = precious ] &&
  ok "existing file, device opens: exit 2, content intact" ||
  bad "existing file, device opens: exit $rc, content '$(text "$tmp/precious.txt")'"
# --force: overwritten; and with a device that never opens, truncated (the
# user asked for it) but not removed.
emucap --force -w "$tmp/precious.txt"
[ $rc -eq 0 ] && is_capture "$tmp/precious.txt" && [ "$(mode "$tmp/precious.txt")" = 644 ] &&
  ok "--force: overwritten with a capture, mode kept" || bad "--force: exit $rc, $(cat "$tmp/err")"
echo precious >"$tmp/forced.txt"
nodev --force -w "$tmp/forced.txt"
[ $rc -eq 2 ] && [ -f "$tmp/forced.txt" ] &&
  ok "--force, device never opens: exit 2, the file not removed" ||
  bad "--force, device never opens: exit $rc, $(what "$tmp/forced.txt")"

# A new file and a device that never opens: exit 2, the file it created is
# removed (nothing that looks like a capture is left).
nodev -w "$tmp/none.pcapng"
[ $rc -eq 2 ] && [ ! -e "$tmp/none.pcapng" ] &&
  ok "new file, device never opens: exit 2, its own file removed" ||
  bad "new file, device never opens: exit $rc, $(what "$tmp/none.pcapng")"

# A symbolic link: never followed, with or without --force.
echo target >"$tmp/target"
ln -s "$tmp/target" "$tmp/link"
for force in "" --force; do
  # shellcheck disable=SC2086
  emucap $force -w "$tmp/link"
  if [ $rc -eq 2 ] && [ "$(cat "$tmp/target")" = target ] && [ -L "$tmp/link" ] &&
    grep -q "link: a symbolic link: not followed" "$tmp/err"; then
    ok "symbolic link ${force:-(no --force)}: exit 2, target intact"
  else
    bad "symbolic link ${force:-(no --force)}: exit $rc, target '$(text "$tmp/target")', $(cat "$tmp/err")"
  fi
done

# -w -: the capture on standard output.
emucap -w - >"$tmp/stdout.pcapng"
[ $rc -eq 0 ] && is_capture "$tmp/stdout.pcapng" && ok "-w -: a capture on standard output" ||
  bad "-w -: exit $rc, $(cat "$tmp/err")"

# A FIFO: written to, left in place (device opens or not).
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fifo.out" &
reader=$!
emucap -w "$tmp/fifo"
reap "$reader"
[ $rc -eq 0 ] && [ -p "$tmp/fifo" ] && is_capture "$tmp/fifo.out" &&
  ok "FIFO: the capture read from it, the FIFO in place" || bad "FIFO: exit $rc, $(what "$tmp/fifo")"
cat "$tmp/fifo" >/dev/null &
reader=$!
nodev -w "$tmp/fifo"
reap "$reader"
[ $rc -eq 2 ] && [ -p "$tmp/fifo" ] && ok "FIFO, device never opens: exit 2, the FIFO in place" ||
  bad "FIFO, device never opens: exit $rc, $(what "$tmp/fifo")"

# Rotation (-C 4096: a file per set) keeping one file (-W 1): only the
# files this run created are removed; one it was forced to overwrite stays.
echo theirs >"$tmp/ring-000000.pcapng"
emucap -C 4096 -W 1 -w "$tmp/ring.pcapng"
[ $rc -eq 2 ] && [ "$(cat "$tmp/ring-000000.pcapng")" = theirs ] &&
  ok "rotation onto an existing file: exit 2, content intact" ||
  bad "rotation onto an existing file: exit $rc, $(cat "$tmp/err")"
scn=$tmp/big.scn
emucap --force -C 4096 -W 1 -w "$tmp/ring.pcapng"
scn=$tmp/s.scn
n=$(ls "$tmp"/ring-*.pcapng | wc -l)
if [ $rc -eq 0 ] && [ -f "$tmp/ring-000000.pcapng" ] && [ "$n" -eq 2 ] &&
  [ ! -e "$tmp/ring-000001.pcapng" ]; then
  ok "rotation -W 1 --force: its own old files removed, the overwritten one kept ($(cd "$tmp" && echo ring-*))"
else
  bad "rotation -W 1 --force: exit $rc, files: $(cd "$tmp" && echo ring-*)"
fi

# The generators: an existing output refused, --force overwrites, a link
# is never followed.
echo precious >"$tmp/gen.out"
"$gen" -g 1 -i 1 -o "$tmp/gen.out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(cat "$tmp/gen.out")" = precious ] && ok "zvm-stream-gen -o existing: exit 2, intact" ||
  bad "zvm-stream-gen -o existing: exit $rc, $(cat "$tmp/err")"
"$gen" -g 1 -i 1 --force -o "$tmp/gen.out" 2>"$tmp/err" && [ "$(cat "$tmp/gen.out")" != precious ] &&
  ok "zvm-stream-gen --force: overwritten" || bad "zvm-stream-gen --force: $(cat "$tmp/err")"
"$gen" -g 1 -i 1 --force -o "$tmp/link" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(cat "$tmp/target")" = target ] && ok "zvm-stream-gen -o link: exit 2, target intact" ||
  bad "zvm-stream-gen -o link: exit $rc, $(cat "$tmp/err")"
mkdir "$tmp/split"
echo precious >"$tmp/split/set-000000.bin"
"$gen" -g 1 -i 1 -f raw --split "$tmp/split" -o "$tmp/raw" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(cat "$tmp/split/set-000000.bin")" = precious ] &&
  ok "zvm-stream-gen --split onto an existing file: exit 2, intact" ||
  bad "zvm-stream-gen --split onto an existing file: exit $rc, $(cat "$tmp/err")"
echo precious >"$tmp/cat.out"
env LD_PRELOAD="${ZVM_ASAN_RUNTIME:+$ZVM_ASAN_RUNTIME }$shim" ASAN_OPTIONS=detect_leaks=0 \
  MONREADER_EMU_DEVICE="$tmp/monreader" MONREADER_EMU_SCENARIO="$tmp/s.scn" \
  "$mcat" -q -t 500 -o "$tmp/cat.out" "$tmp/monreader" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(cat "$tmp/cat.out")" = precious ] && ok "monreader-cat -o existing: exit 2, intact" ||
  bad "monreader-cat -o existing: exit $rc, $(cat "$tmp/err")"

# A character device: our own node first; the real /dev/null only once the
# tool has left that node alone.
skipped=
if $root && mknod "$tmp/null" c 1 3 2>/dev/null; then
  nodev -w "$tmp/null"
  if [ $rc -eq 2 ] && [ "$(what "$tmp/null")" = "character special file 1:3" ]; then
    ok "own device node 1:3, device never opens: exit 2, the node in place"
    before=$(stat -c %i /dev/null)
    nodev -w /dev/null
    if [ $rc -eq 2 ] && [ "$(what /dev/null)" = "character special file 1:3" ] &&
      [ "$(stat -c %i /dev/null)" = "$before" ]; then
      ok "-w /dev/null, device never opens: exit 2, /dev/null still the character device 1:3"
    else
      bad "-w /dev/null, device never opens: exit $rc, /dev/null is now: $(what /dev/null)"
    fi
  else
    bad "own device node 1:3, device never opens: exit $rc, the node is now: $(what "$tmp/null"); /dev/null not tried"
  fi
else
  skipped="not root (or no mknod here): the device-node and /dev/null cases need root"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ] || exit 1
[ -z "$skipped" ] || { echo "SKIP: $skipped"; exit 77; }
exit 0
