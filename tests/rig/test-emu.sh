#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end checks of the command-line tools: zvm-stream-gen writes a
# scenario, libmonreader-emu.so (LD_PRELOAD) serves it as /dev/monreader,
# monreader-cat reads it. Run from the top build directory (make check).
# In a cross build the tools and the daemon (a sysroot's, COLLECTD_DAEMON)
# run behind EMU_EXEC_WRAPPER (qemu-s390x), which gets the shim with -E.
set -eu

bin=${EMU_BIN:-tests/rig}
gen=$bin/zvm-stream-gen
cat_=$bin/monreader-cat
shim=$(cd "$bin" && pwd)/.libs/libmonreader-emu.so
tmp=$(mktemp -d /tmp/zvm-emu-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failures=0

# e2e_exec: a program of this build behind the wrapper, LD_PRELOAD for it
# shellcheck source=tests/e2e/lib.sh
. "${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/e2e/lib.sh"
E2E_EXEC_WRAPPER=${EMU_EXEC_WRAPPER:-}
# target SECONDS [VAR=VALUE...] PROGRAM [ARG...]: killed after SECONDS
target() { (e2e_exec -t "$@"); }
gen_() { target 60 "$gen" "$@"; }

# In tests/run's sanitizer stage the plugin and the shim are ASan-built but
# the stock collectd is not: the ASan runtime must be preloaded first, and
# the daemon's own exit-time allocations are not ours to report.
asan_preload=${ZVM_ASAN_RUNTIME:+$ZVM_ASAN_RUNTIME }
if [ -n "$asan_preload" ]; then
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  export ASAN_OPTIONS
fi

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# monreader-cat under the shim; MONREADER_EMU_* from the caller's env.
# A broken device must fail the test, not hang it (timeout exits 124).
emucat() {
  target 20 LD_PRELOAD="$asan_preload$shim" "$cat_" "$@"
}

# ---- data: multi-MCE messages, frames, D1R13 padding ---------------------
params="-g 120 -i 3 --set-frames 2 --mces 2 --seed 5"
gen_ $params -o "$tmp/s.scn"
gen_ $params -f raw -o "$tmp/ref.raw"
nmsgs=$(gen_ --describe "$tmp/s.scn" | grep -c '^message ')
multi=$(gen_ --describe "$tmp/s.scn" | grep -c 'mces=2')
[ "$nmsgs" -eq 9 ] || fail "expected 9 messages, got $nmsgs"
[ "$multi" -eq 6 ] || fail "expected messages with 2 MCEs, got $multi"
export MONREADER_EMU_SCENARIO="$tmp/s.scn"

# ---- every read size, blocking and poll+non-blocking: identical sets -----
for mode in block nonblock; do
  for size in 1 7 12 4096 65536; do
    flag=""
    [ $mode = nonblock ] && flag=-n
    out=$tmp/out.$mode.$size
    emucat $flag -s $size -t 300 -o "$out.raw" >"$out.txt" ||
      fail "$mode/$size: monreader-cat exit $?"
    cmp -s "$tmp/ref.raw" "$out.raw" ||
      fail "$mode/$size: delivered bytes differ from the generator's"
    n=$(grep -c '^set ' "$out.txt" || true)
    [ "$n" -eq "$nmsgs" ] || fail "$mode/$size: $n sets, want $nmsgs"
    grep '^set ' "$out.txt" | grep -qv ' violations=0 ' &&
      fail "$mode/$size: a read mixed MCE and record bytes"
    # The sets without the read pattern must be identical for all sizes.
    grep '^set ' "$out.txt" | sed 's/ reads=[^ ]*//' >"$out.sets"
    cmp -s "$tmp/out.block.1.sets" "$out.sets" ||
      fail "$mode/$size: sets differ from read size 1"
  done
done
# Large reads: every MCE arrives alone (12 bytes), then its whole record
# set (never more than 2 frames = 8192 bytes here).
grep '^set ' "$tmp/out.block.65536.txt" |
  grep -Ev ' reads=12,[0-9]+(,12,[0-9]+)? ' &&
  fail "65536: reads are not MCE (12), record set, ..."
grep -q ' reads=12,8192,12,' "$tmp/out.block.65536.txt" ||
  fail "65536: expected a full 2-frame record set in one read"
grep -q ' reads=7,5,7\*' "$tmp/out.block.7.txt" ||
  fail "7: MCE not clipped to 7+5"
grep -q ' violations=0 .* E:0800:' "$tmp/out.block.1.txt" ||
  fail "no event set with the user-domain mask"
grep -q ' S:d080:' "$tmp/out.block.1.txt" || fail "no sample set mask d080"

# ---- EAGAIN when empty (non-blocking), blocking waits ---------------------
gen_ -g 5 -i 1 --fault delay@0:300 -o "$tmp/d.scn"
MONREADER_EMU_SCENARIO=$tmp/d.scn emucat -n -t 2000 -c 1 >"$tmp/eagain.txt"
sed -n 2p "$tmp/eagain.txt" | grep -qx 'read: EAGAIN' ||
  fail "non-blocking read before the first message: no EAGAIN"
grep -q '^set 1: bytes=' "$tmp/eagain.txt" || fail "no set after EAGAIN"
MONREADER_EMU_SCENARIO=$tmp/d.scn emucat -t 2000 -c 2 >"$tmp/block.txt"
grep -q 'EAGAIN' "$tmp/block.txt" && fail "blocking reader saw EAGAIN"
grep -q '^summary: sets=2 ' "$tmp/block.txt" || fail "blocking reader sets"

# ---- faults from the scenario file, at the right places -------------------
gen_ $params -o "$tmp/f.scn" \
  --fault eio@1:100,efault@2:30,eoverflow@3,sever@4,open@5:EIO:1
MONREADER_EMU_SCENARIO=$tmp/f.scn emucat -n -s 4096 -t 300 -r 3 -R 10 \
  >"$tmp/faults.txt" || fail "faults: monreader-cat exit $?"
sed -e 's/^set .*/set/' -e '/^summary/d' "$tmp/faults.txt" >"$tmp/faults.seq"
cat >"$tmp/faults.want" <<'WANT'
open ok
set
read: EIO after 100 bytes (set discarded)
read: EFAULT after 30 bytes (set discarded)
skipped rest of the faulted set
set
read: EOVERFLOW (previous set valid, data may be missing)
set
read: EAGAIN
poll: POLLERR
open failed: EIO
open ok
set
set
set
set
read: EAGAIN
poll: timeout
WANT
diff -u "$tmp/faults.want" "$tmp/faults.seq" >&2 ||
  fail "fault sequence differs"
# The sets that survived are the generator's messages 0, 3..8.
grep '^set ' "$tmp/faults.txt" | sed 's/^set [0-9]*: //' >"$tmp/faults.sets"
grep '^set ' "$tmp/out.block.4096.txt" | sed 's/^set [0-9]*: //' |
  sed -n '1p;4,9p' >"$tmp/faults.sets.want"
cmp -s "$tmp/faults.sets.want" "$tmp/faults.sets" ||
  fail "wrong sets delivered around the faults"

# Blocking reader after a sever: EIO, then the re-open continues.
MONREADER_EMU_SCENARIO=$tmp/s.scn MONREADER_EMU_FAULTS=sever@0 \
  emucat -t 300 -r 1 >"$tmp/sever.txt" || true
grep -qx 'read: EIO (path severed)' "$tmp/sever.txt" ||
  fail "blocking sever: no EIO"
grep -q "^summary: sets=$nmsgs .* opens=2 " "$tmp/sever.txt" ||
  fail "blocking sever: no successful re-open with all sets"
# Without re-opens monreader-cat exits 3 after the sever.
rc=0
MONREADER_EMU_SCENARIO=$tmp/s.scn MONREADER_EMU_FAULTS=sever@0 \
  emucat -n -t 300 >/dev/null || rc=$?
[ $rc -eq 3 ] || fail "sever without re-open: exit $rc, want 3"

# ---- EBUSY: another process holds the device (lock file) ---------------
export MONREADER_EMU_LOCK="$tmp/lock"
MONREADER_EMU_SCENARIO=$tmp/d.scn emucat -t 1500 >"$tmp/holder.txt" &
holder=$!
sleep 0.3
rc=0
emucat -n -t 100 >"$tmp/busy.txt" || rc=$?
[ $rc -eq 1 ] || fail "second reader: exit $rc, want 1"
grep -qx 'open failed: EBUSY' "$tmp/busy.txt" || fail "second reader: no EBUSY"
wait $holder || fail "holder failed"
emucat -n -t 100 -c 1 >"$tmp/after.txt" || fail "open after the holder left"
unset MONREADER_EMU_LOCK

# ---- another device path ---------------------------------------------------
MONREADER_EMU_DEVICE=$tmp/monreader emucat -n -t 100 -c 1 "$tmp/monreader" \
  >"$tmp/dev.txt" || fail "MONREADER_EMU_DEVICE not honoured"

# ---- the shim inside the stock collectd daemon -----------------------------
daemon=${COLLECTD_DAEMON:-/usr/sbin/collectd}
usr=$(dirname "$(dirname "$daemon")")
# (a cross build runs it only with a sysroot's daemon for its host)
if [ -x "$daemon" ] && (e2e_exec "$daemon" -h) >/dev/null 2>&1; then
  cat >"$tmp/collectd.conf" <<CONF
Hostname "zvmtest"
FQDNLookup false
BaseDir "$tmp"
PIDFile "$tmp/collectd.pid"
PluginDir "$usr/lib/collectd"
TypesDB "$usr/share/collectd/types.db"
Interval 1
LoadPlugin load
LoadPlugin csv
<Plugin csv>
  DataDir "$tmp/csv"
</Plugin>
CONF
  target 60 LD_PRELOAD="$asan_preload$shim" "$daemon" -C "$tmp/collectd.conf" -T \
    >"$tmp/collectd.out" 2>&1 ||
    fail "collectd -T under the shim failed: $(cat "$tmp/collectd.out")"
else
  echo "SKIP: no collectd that runs here at $daemon: the daemon smoke check (collectd-core; a cross build: configure --with-collectd-daemon)"
fi

if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "test-emu.sh: all checks passed"
