#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/dashboards/hypfs.sh BUILD_DIR
#
# The hypfs plugin's Grafana dashboards (contrib/grafana/hypfs-zvm-*.json,
# hypfs-lpar-*.json) against real back ends, as tests/dashboards/run.sh does
# for zvm_monitor's: hypfs-gen writes a new z/VM (then LPAR) snapshot every
# second, two collectd daemons with the built hypfs.so send it to carbon
# (OneValuePerList true, for write_graphite), InfluxDB and Prometheus, and
# tests/dashboards/check.py runs every panel's queries and wants the series
# of tests/dashboards/expect-hypfs-{zvm,lpar}.json. Each phase has its own
# carbon (a Graphite host variable lists every host); InfluxDB and
# Prometheus are shared (their host variables select by measurement).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
E2E_BUILD=$(cd "$1" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$top/tests/e2e/lib.sh"
PY=${PYTHON:-python3}
e2e_init
D=$E2E_TMP
GEN=$E2E_BUILD/tests/rig/hypfs-gen
t0=$(date +%s)

mkdir -p "$D/json"
"$PY" "$top/contrib/grafana/make-dashboards.py" "$D/json" >/dev/null
for f in "$D"/json/hypfs-*.json; do
  cmp -s "$f" "$top/contrib/grafana/$(basename "$f")" || {
    echo "FAIL: contrib/grafana/$(basename "$f") is not what make-dashboards.py writes (run it)"
    exit 1
  }
done

mkdir -p "$D/typesdb"
cp "$E2E_TYPESDB" "$D/typesdb/types.db"
cp "$top/contrib/hypfs.types.db" "$D/typesdb/"

up() {
  what=$1
  shift
  "$@" || {
    tail -n 30 "$D/$what"/*.out 2>/dev/null || true
    echo "FAIL: $what did not come up"
    exit 1
  }
}
up influx e2e_start_influxdb "$D/influx" "$D/typesdb"
wp_port=$(e2e_free_port)
up prometheus e2e_start_prometheus "$D/prometheus" "127.0.0.1:$wp_port"

conf() { # conf DIR HOST OUTPUT-LINES [PLUGIN-LINES]
  cat >"$1/collectd.conf" <<CONF
Hostname "$2"
FQDNLookup false
BaseDir "$1"
PIDFile "$1/collectd.pid"
Interval 1
TypesDB "$E2E_TYPESDB"
PluginDir "$E2E_STOCK"
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$1/collectd.log"
</Plugin>
$3
PluginDir "$E2E_LIBS"
LoadPlugin hypfs
<Plugin hypfs>
  DebugfsPath "$P/cur/debugfs"
  HypfsPath "$P/cur/hypfs"
  ${4:-}
</Plugin>
CONF
}

status=0
# phase zvm|lpar HOST GEN-ARGS...
phase() {
  which=$1
  host=$2
  shift 2
  P=$D/$which
  mkdir -p "$P/graphite" "$P/lists"
  up "$which/carbon" e2e_start_carbon "$P/carbon"
  up "$which/graphite-web" e2e_start_graphite_web "$P/graphite-web" "$E2E_WHISPER"
  e2e_bg "$P/gen.out" sh -c 'gen=$1 dir=$2; shift 2; k=1; while :; do
      "$gen" "$@" --step $k "$dir/data.$((k % 2))" >/dev/null || exit 1
      ln -sfn "$dir/data.$((k % 2))" "$dir/cur.new" && mv -T "$dir/cur.new" "$dir/cur"
      k=$((k + 1)); sleep 1; done' sh "$GEN" "$P" "$@"
  genpid=$E2E_PID
  sleep 1
  conf "$P/graphite" "$host" "$(e2e_write_graphite_conf "$E2E_CARBON_PORT")" "OneValuePerList true"
  conf "$P/lists" "$host" "$(e2e_network_conf "$E2E_INFLUX_UDP")
LoadPlugin write_prometheus
<Plugin write_prometheus>
  Host \"127.0.0.1\"
  Port \"$wp_port\"
</Plugin>"
  e2e_bg "$P/graphite/collectd.out" e2e_exec "$E2E_DAEMON" -f -C "$P/graphite/collectd.conf"
  gpid=$E2E_PID
  e2e_bg "$P/lists/collectd.out" e2e_exec "$E2E_DAEMON" -f -C "$P/lists/collectd.conf"
  lpid=$E2E_PID
  sleep 12 # rates need points; InfluxDB writes in batches
  "$PY" "$top/tests/dashboards/check.py" --graphite "http://127.0.0.1:$E2E_GRAPHITE_WEB" \
    --influxdb "http://127.0.0.1:$E2E_INFLUX_HTTP" --prometheus "http://127.0.0.1:$E2E_PROM_PORT" \
    --expect "$top/tests/dashboards/expect-hypfs-$which.json" \
    "$top/contrib/grafana/hypfs-$which-graphite.json" \
    "$top/contrib/grafana/hypfs-$which-influxdb.json" \
    "$top/contrib/grafana/hypfs-$which-prometheus.json" || status=1
  e2e_stop "$gpid" || true
  e2e_stop "$lpid" || true
  e2e_stop "$genpid" || true
  e2e_stop "$E2E_GRAPHITE_WEB_PID" || true
  e2e_stop "$E2E_CARBON_PID" || true
}

phase zvm hypfs-zvm --guests 3 --no-tree
phase lpar hypfs-lpar --lpar --lpars 2 --cpus 2 --phys 4
echo "hypfs dashboards: $(($(date +%s) - t0)) s"
exit $status
