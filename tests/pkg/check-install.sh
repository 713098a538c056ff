#!/bin/sh
# SPDX-License-Identifier: MIT
# check-install.sh BUILD_DIR: 'make install DESTDIR=...' of a build
# configured with the defaults puts zvm_monitor.so into the daemon's own
# plugin directory (the "Plugin directory" of 'collectd -h') under DESTDIR,
# as a regular file without its libtool archive, and the types.db and the
# man page where configure's summary says; then the stock collectd loads the
# installed plugin with the README's shortest configuration and reads the
# emulated device. Then configure's other two answers: a daemon it cannot
# run gives LIBDIR/collectd with a notice saying so, and --with-plugindir
# wins over the daemon. ZVM_EXPECT_PLUGINDIR overrides the directory
# expected.
set -eu

build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
daemon=${COLLECTD_DAEMON:-/usr/sbin/collectd}
dest=$(mktemp -d "${TMPDIR:-/tmp}/zvm-destdir.XXXXXX")
trap 'rm -rf "$dest"' EXIT

daemon_dir=$("$daemon" -h | sed -n 's/^ *Plugin directory *//p')
[ -n "$daemon_dir" ] || { echo "FAIL: '$daemon -h' names no plugin directory"; exit 1; }
want=${ZVM_EXPECT_PLUGINDIR:-$daemon_dir}

make -s -C "$build" install DESTDIR="$dest" >"$dest.log" 2>&1 || {
  cat "$dest.log"
  rm -f "$dest.log"
  echo "FAIL: make install DESTDIR=$dest"
  exit 1
}
rm -f "$dest.log"
echo "installed files (DESTDIR=$dest):"
(cd "$dest" && find . ! -type d | sed 's|^\.|  |' | sort)

so=$dest$want/zvm_monitor.so
[ -f "$so" ] && [ ! -L "$so" ] || {
  echo "FAIL: $want/zvm_monitor.so (the plugin directory of $daemon) was not installed as a regular file"
  exit 1
}
[ ! -e "$dest$want/zvm_monitor.la" ] || { echo "FAIL: zvm_monitor.la installed next to the plugin"; exit 1; }
echo "ok - zvm_monitor.so is in $want, the plugin directory of $daemon"

# The summary's paths, from the Makefile's expanded prefix.
prefix=$(sed -n 's/^prefix = //p' "$build/Makefile")
[ -f "$dest$want/hypfs.so" ] && [ ! -e "$dest$want/hypfs.la" ] || { echo "FAIL: $want/hypfs.so not installed alone"; exit 1; }
for f in "$prefix/share/zvm_monitor/zvm_monitor.types.db" \
  "$prefix/share/man/man5/collectd-zvm_monitor.5"; do
  [ -s "$dest$f" ] || { echo "FAIL: $f not installed"; exit 1; }
  grep -qF "$f" "$build/config.log" || { echo "FAIL: configure's summary does not name $f"; exit 1; }
done
echo "ok - types.db and man page are where configure's summary says"
for f in "$prefix/share/zvm_monitor/hypfs.types.db" "$prefix/share/man/man5/collectd-hypfs.5"; do
  [ -s "$dest$f" ] || { echo "FAIL: $f (hypfs) not installed"; exit 1; }
done

sh "$here/run-installed.sh" "$dest$want" "$build"

top=$(cd "$here/../.." && pwd)
mkdir -p "$dest/conf"
cd "$dest/conf"
"$top/configure" --with-collectd-daemon=/nonexistent/collectd >fallback.out 2>&1 ||
  { cat fallback.out; echo "FAIL: configure with an unusable daemon"; exit 1; }
grep -q "^configure: installing the plugin into LIBDIR/collectd: make sure it is collectd's PluginDir" fallback.out &&
  grep -q "plugin dir: */usr/local/lib/collectd (fallback" fallback.out || {
  grep -iE 'plugin|fallback' fallback.out
  echo "FAIL: no fallback to LIBDIR/collectd with a notice when the daemon cannot run"
  exit 1
}
echo "ok - a daemon that cannot run: LIBDIR/collectd, and configure says so"
"$top/configure" --with-plugindir=/opt/zvm/plugins >override.out 2>&1 &&
  grep -q '^plugindir = /opt/zvm/plugins$' Makefile ||
  { grep -i plugin override.out; echo "FAIL: --with-plugindir does not override"; exit 1; }
echo "ok - --with-plugindir=DIR overrides the daemon's directory"
