#!/bin/sh
# SPDX-License-Identifier: MIT
# dmstats.so in the real daemon on the build machine (which may have no
# device-mapper; the VM stage, tests/dmstats/vm-run.sh, tests a real one):
# its symbols resolve, it exports module_register only, configuration
# errors are fatal and name the option, the sample configuration of the
# man page is accepted, and without (access to) device-mapper it says what
# to do, once, while the daemon keeps running. The daemon runs behind
# E2E_EXEC_WRAPPER: in the s390x build the s390x daemon under qemu-s390x,
# whose -L sysroot holds the s390x libdevmapper (tests/run-s390x).
set -eu

daemon=${COLLECTD_DAEMON:-/usr/sbin/collectd}
# its stock plugins and types.db: from the same tree (a sysroot's for s390x)
usr=$(dirname "$(dirname "$daemon")")
stock=${COLLECTD_PLUGIN_DIR:-$usr/lib/collectd}
typesdb=${COLLECTD_TYPESDB:-$usr/share/collectd/types.db}
top=${abs_top_builddir:-$(pwd)}
src=${abs_top_srcdir:-$top/..}
so=$top/.libs/dmstats.so

for f in "$daemon" "$stock/csv.so" "$typesdb"; do
  [ -e "$f" ] || { echo "SKIP: $f not found"; exit 77; }
done
[ -f "$so" ] || { echo "FAIL: $so not built"; exit 1; }

ZVM_PLUGIN_SO=$so sh "$src/tests/check-plugin-symbols.sh"

asan_preload=${ZVM_ASAN_RUNTIME:+$ZVM_ASAN_RUNTIME }
if [ -n "$asan_preload" ]; then
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  export ASAN_OPTIONS
fi
# Shared with the end-to-end suite: e2e_exec (the exec wrapper), a
# temporary directory and an exit trap that stops every daemon started with
# e2e_bg by its PID, also on signals.
# shellcheck source=tests/e2e/lib.sh
. "$src/tests/e2e/lib.sh"
E2E_BUILD=$top
E2E_DIR=
e2e_init
tmp=$E2E_TMP

# A cross build's daemon (E2E_EXEC_WRAPPER: qemu-user) finds the libraries
# dmstats.so needs (libdevmapper) in its own tree, the sysroot that
# tests/run-s390x unpacks them into: qemu's -L, QEMU_LD_PREFIX.
root=$(dirname "$usr")
if [ -n "${E2E_EXEC_WRAPPER:-}" ] && [ "$root" != / ] && [ -z "${QEMU_LD_PREFIX:-}" ]; then
  QEMU_LD_PREFIX=$root
  export QEMU_LD_PREFIX
fi

# The daemon must run here (a cross build's needs a sysroot's daemon).
if ! (e2e_exec "$daemon" -h) >"$tmp/h.out" 2>&1; then
  cat "$tmp/h.out"
  echo "SKIP: cannot run $daemon${E2E_EXEC_WRAPPER:+ behind $E2E_EXEC_WRAPPER}"
  exit 77
fi

conf() { # conf FILE PLUGIN-BLOCK-LINES...
  out=$1
  shift
  {
    echo "Hostname \"dmtest\""
    echo "BaseDir \"$tmp\""
    echo "PIDFile \"$tmp/collectd.pid\""
    echo "Interval 1"
    echo "TypesDB \"$typesdb\""
    echo "PluginDir \"$stock\""
    echo "LoadPlugin csv"
    echo "<Plugin csv>"
    echo "  DataDir \"$tmp/csv\""
    echo "</Plugin>"
    echo "PluginDir \"$top/.libs\""
    echo "LoadPlugin dmstats"
    echo "<Plugin dmstats>"
    for line in "$@"; do echo "  $line"; done
    echo "</Plugin>"
  } >"$out"
}

# must_fail NAME EXPECTED-TEXT PLUGIN-BLOCK-LINES...
must_fail() {
  name=$1
  want=$2
  shift 2
  conf "$tmp/$name.conf" "$@"
  if (e2e_exec -t 20 LD_PRELOAD="$asan_preload" "$daemon" -T -C "$tmp/$name.conf") >"$tmp/$name.out" 2>&1; then
    cat "$tmp/$name.out"
    echo "FAIL: collectd accepted: $*"
    exit 1
  fi
  grep -q "dmstats plugin: .*$want" "$tmp/$name.out" || {
    cat "$tmp/$name.out"
    echo "FAIL: no error saying \"$want\" for: $*"
    exit 1
  }
  echo "ok - configuration error is fatal: $*"
}
must_fail unknown 'unknown option "Devices"' 'Devices "vg-root"'
must_fail regex 'bad regular expression' 'Device "/([/"'
must_fail number 'not a number' 'ProgramID "17"'
must_fail histogram 'Histogram needs CreateRegions true' 'Histogram "1ms,5ms"'
must_fail areas 'Areas 0' 'CreateRegions true' 'Areas 0'
must_fail bounds 'Histogram "5ms,1ms"' 'CreateRegions true' 'Histogram "5ms,1ms"'

# must_accept NAME WHAT: the plugin block lines in $tmp/NAME are accepted.
must_accept() {
  [ -s "$tmp/$1" ] || { echo "FAIL: no <Plugin dmstats> block in $2"; exit 1; }
  IFS='
'
  # shellcheck disable=SC2046
  conf "$tmp/$1.conf" $(sed 's/^ *//' "$tmp/$1")
  unset IFS
  (e2e_exec -t 20 LD_PRELOAD="$asan_preload" "$daemon" -T -C "$tmp/$1.conf") >"$tmp/$1.out" 2>&1 || true
  if grep -q 'dmstats plugin: .*\(option\|needs\|must\)' "$tmp/$1.out"; then
    cat "$tmp/$1.out"
    echo "FAIL: the dmstats block of $2 is refused"
    exit 1
  fi
  echo "ok - the dmstats block of $2 is accepted"
}
# The man page's sample configuration, and the example configuration's
# commented block.
sed -n '/^ <Plugin dmstats>/,/^ <\/Plugin>/p' "$src/contrib/dmstats.pod" |
  sed '1d;$d' >"$tmp/sample"
must_accept sample "the man page (contrib/dmstats.pod)"
sed -n '/^#<Plugin dmstats>/,/^#<\/Plugin>/p' "$src/contrib/collectd.conf.example" |
  sed '1d;$d;s/^#//;s/ *#.*$//' | grep -v '^ *$' >"$tmp/example"
must_accept example "contrib/collectd.conf.example"

# Without device-mapper (or as a user without CAP_SYS_ADMIN) the daemon
# runs on and the plugin says what to do, once: still once 3 s (of 1 s
# reads) after it first said it.
if [ -c /dev/mapper/control ] && [ "$(id -u)" -eq 0 ] &&
  grep -q ' device-mapper' /proc/misc 2>/dev/null; then
  echo "ok # skip device-mapper works here: the VM stage tests the errors"
  exit 0
fi
conf "$tmp/run.conf" 'CreateRegions true'
e2e_bg "$tmp/run.out" e2e_exec LD_PRELOAD="$asan_preload" "$daemon" -f -C "$tmp/run.conf"
pid=$E2E_PID
e2e_wait 30 grep -q 'dmstats plugin: ' "$tmp/run.out" ||
  { cat "$tmp/run.out"; echo "FAIL: no dmstats error in 30 s"; exit 1; }
sleep 3
kill -0 "$pid" || { cat "$tmp/run.out"; echo "FAIL: the daemon stopped"; exit 1; }
kill "$pid"
wait "$pid" || true
e2e_forget "$pid"
n=$(grep -c 'dmstats plugin: .*\(modprobe dm_mod\|CAP_SYS_ADMIN\)' "$tmp/run.out" || true)
if [ "$n" -ne 1 ]; then
  cat "$tmp/run.out"
  echo "FAIL: expected one error naming dm_mod or CAP_SYS_ADMIN, got $n"
  exit 1
fi
echo "ok - no device-mapper: one clear error, the daemon runs on"
