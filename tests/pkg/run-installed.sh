#!/bin/sh
# SPDX-License-Identifier: MIT
# run-installed.sh PLUGIN_DIR BUILD_DIR [CONF_DIR]
#
# The stock collectd loads an installed zvm_monitor.so from PLUGIN_DIR and
# reads the emulated /dev/monreader (BUILD_DIR's tests/rig) with
# nothing but "LoadPlugin zvm_monitor" (plus a csv writer to look at); with
# CONF_DIR, the *.conf drop-ins there are included instead (a package's
# /etc/collectd/collectd.conf.d), and must carry the LoadPlugin themselves.
# Passes when a guest's D4R10 value list (zvm_useite) and the reader's set counter
# arrive and the daemon stops cleanly.
set -eu

plugin_dir=$1
E2E_BUILD=$(cd "$2" && pwd)
conf_dir=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$here/../e2e/lib.sh"
e2e_init
tmp=$E2E_TMP

[ -f "$plugin_dir/zvm_monitor.so" ] || { echo "FAIL: no $plugin_dir/zvm_monitor.so"; exit 1; }
[ -L "$plugin_dir/zvm_monitor.so" ] && { echo "FAIL: $plugin_dir/zvm_monitor.so is a symlink (collectd refuses it)"; exit 1; }
"$E2E_GEN" -g 2 -i 2 -o "$tmp/stream.scn"

{
  cat <<CONF
Hostname "zvmtest"
FQDNLookup false
BaseDir "$tmp"
PIDFile "$tmp/collectd.pid"
Interval 1
TypesDB "$E2E_TYPESDB"
PluginDir "$E2E_STOCK"
LoadPlugin csv
<Plugin csv>
  DataDir "$tmp/csv"
  StoreRates false
</Plugin>
PluginDir "$plugin_dir"
CONF
  if [ -n "$conf_dir" ]; then
    echo "<Include \"$conf_dir\">"
    echo "  Filter \"*.conf\""
    echo "</Include>"
  else
    echo "LoadPlugin zvm_monitor"
  fi
} >"$tmp/collectd.conf"

# The default Device, /dev/monreader, is the emulated one.
e2e_bg "$tmp/collectd.out" env LD_PRELOAD="$E2E_SHIM" \
  MONREADER_EMU_DEVICE=/dev/monreader MONREADER_EMU_SCENARIO="$tmp/stream.scn" \
  MONREADER_EMU_LOOP=1 "$E2E_DAEMON" -f -C "$tmp/collectd.conf"
pid=$E2E_PID
host=$tmp/csv/zvmtest
arrived() {
  ls "$host"/zvm_monitor-LINUX001/zvm_useite-* >/dev/null 2>&1 &&
    ls "$host"/zvm_monitor-reader/total_objects-sets-* >/dev/null 2>&1
}
if ! e2e_wait 20 arrived; then
  cat "$tmp/collectd.out"
  echo "FAIL: no zvm_monitor values from $plugin_dir/zvm_monitor.so within 20 s"
  exit 1
fi
e2e_stop "$pid"
e2e_forget "$pid"
grep -q "Exiting normally" "$tmp/collectd.out" || {
  cat "$tmp/collectd.out"
  echo "FAIL: collectd did not exit normally"
  exit 1
}
echo "ok - the stock collectd loads $plugin_dir/zvm_monitor.so and reads the emulated device" \
  "($(ls "$host" | tr '\n' ' '))"
