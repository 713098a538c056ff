#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/dashboards/run.sh BUILD_DIR
#
# The Grafana dashboards (contrib/grafana/*.json) against real back ends:
# one generated stream (3 guests, 2 processors (D0R2), 2 Linux guests
# writing APPLDATA, 10 intervals 2 s apart ending just now, multithreading
# changes, an EOVERFLOW, an EIO, an EFAULT and a rejected MCA) through the
# stock collectd with the built plugin, and dmstats values of two regions
# (tests/dashboards/dmstats_feed.py, through the daemon's unixsock plugin:
# the build machine has no device-mapper to measure) into carbon-cache
# (read through graphite-web's render API), InfluxDB 1.x (collectd
# listener) and Prometheus (scraping write_prometheus), all on 127.0.0.1;
# (two daemons, a third for zvm-monitor-record's dashboards: see below); then tests/dashboards/check.py runs every panel's query with its
# template variables expanded and wants the expected series
# (tests/dashboards/expect.json), each non-empty, and the values the
# stream and the feed imply (tests/dashboards/expected.py: wait-state
# shares, CPUs busy, bytes per second, ...). Also checks that the
# committed JSON is what contrib/grafana/make-dashboards.py writes, and
# that a query matching nothing and a wrong value fail the check.
# Then the dashboards zvm-monitor-record writes (--dashboard) for its D4R10
# block (tests/data/recpages/useite-v6r2.txt, the built-in table's fields:
# "Replace true" with the same data sources) and its D5R21 block
# (tests/data/recpages/prcsmt-v6r4.txt: the record's own values, instance
# system, and its CPUTINFO array's, one instance per CPU type) go through
# the same check: the "lists" daemon decodes D4R10 and D5R21 with those
# blocks (InfluxDB, Prometheus), a third daemon (host zvmrec,
# OneValuePerList true) with them for Graphite; the D5R21 panels (the
# array's a series per CPU type) show the values the stream holds.
# E2E_KEEP=1 keeps the temporary directory (back-end logs, collectd.conf);
# E2E_HOLD=SECONDS keeps the back ends up that long after the check, for
# trying queries by hand.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
E2E_BUILD=$(cd "$1" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$top/tests/e2e/lib.sh"
PY=${PYTHON:-python3}
e2e_init
D=$E2E_TMP
t0=$(date +%s)

"$PY" "$top/contrib/grafana/make-dashboards.py" "$D" >/dev/null
for k in graphite influxdb prometheus; do
  cmp -s "$D/zvm_monitor-$k.json" "$top/contrib/grafana/zvm_monitor-$k.json" || {
    echo "FAIL: contrib/grafana/zvm_monitor-$k.json is not what make-dashboards.py writes (run it)"
    exit 1
  }
done

# The D4R10 block and its dashboards, the fields those of the built-in
# table (contrib/zvm_monitor.types.db: zvm_useite, arrays by their name).
fields=$(sed -n 's/^zvm_useite[[:space:]]*//p' "$top/contrib/zvm_monitor.types.db" |
  tr ',' '\n' | sed 's/^ *//; s/:.*//; /^transactions$/d; s/_q[0-3]$//' | awk '!seen[$0]++' |
  paste -s -d, -)
mkdir -p "$D/recdash"
"$E2E_BUILD/tools/zvm-monitor-record" -q -c transactions -f "$fields" -d "$D/recdash" \
  "$top/tests/data/recpages/useite-v6r2.txt" >"$D/useite.conf" 2>"$D/recdash.out" || {
  cat "$D/recdash.out"
  echo "FAIL: zvm-monitor-record --dashboard on the D4R10 page"
  exit 1
}
"$E2E_BUILD/tools/zvm-monitor-record" -q -d "$D/recdash" \
  "$top/tests/data/recpages/prcsmt-v6r4.txt" >"$D/prcsmt.conf" 2>"$D/recdash.out" || {
  cat "$D/recdash.out"
  echo "FAIL: zvm-monitor-record --dashboard on the D5R21 page"
  exit 1
}
# Not over an existing file without --force.
if "$E2E_BUILD/tools/zvm-monitor-record" -q -c transactions -f "$fields" -d "$D/recdash" \
  "$top/tests/data/recpages/useite-v6r2.txt" >/dev/null 2>"$D/recdash2.out" ||
  ! grep -q 'useite-graphite.json: exists: not overwritten (--force overwrites it)' "$D/recdash2.out"; then
  cat "$D/recdash2.out"
  echo "FAIL: zvm-monitor-record --dashboard overwrote an existing file without --force"
  exit 1
fi

# InfluxDB's listener needs every type collectd sends: the standard ones
# and the plugin's.
mkdir -p "$D/typesdb"
cp "$E2E_TYPESDB" "$D/typesdb/types.db"
cp "$top/contrib/zvm_monitor.types.db" "$D/typesdb/"

up() {
  what=$1
  shift
  "$@" || {
    tail -n 30 "$D/$what"/*.out
    echo "FAIL: $what did not come up"
    exit 1
  }
}
up carbon e2e_start_carbon "$D/carbon"
up graphite-web e2e_start_graphite_web "$D/graphite-web" "$E2E_WHISPER"
up influx e2e_start_influxdb "$D/influx" "$D/typesdb"
wp_port=$(e2e_free_port)
up prometheus e2e_start_prometheus "$D/prometheus" "127.0.0.1:$wp_port"
echo "back ends up: carbon :$E2E_CARBON_PORT, graphite-web :$E2E_GRAPHITE_WEB," \
  "influxd :$E2E_INFLUX_HTTP, prometheus :$E2E_PROM_PORT (collectd write_prometheus :$wp_port)"

# Record times 2 s apart, the last one a few seconds ago (Prometheus takes
# the values with their record times); one message every 0.5 s.
now=$(date +%s)
start=$((now - 22))
"$E2E_GEN" -g 3 -i 10 --interval 2 --start $start --smt-every 2 --mces 1 \
  --sytprp 2 --linux-guests 2 --appldata os,mem,net_sum \
  --gap-ms 500 --fault eoverflow@3,eio@7,efault@11,badmca@15 -o "$D/s.scn"

# Two daemons on two emulated devices playing the same stream: Graphite
# needs "OneValuePerList true" (write_graphite cannot format the long
# lists), InfluxDB and Prometheus get the default (one list per record).
unixsock() {
  printf 'LoadPlugin unixsock\n<Plugin unixsock>\n  SocketFile "%s"\n</Plugin>\n' "$1"
}
E2E_EXTRA_PLUGINS="$(e2e_write_graphite_conf "$E2E_CARBON_PORT")
$(unixsock "$D/graphite.sock")" e2e_conf "$D/graphite" "OneValuePerList true"
E2E_EXTRA_PLUGINS="$(e2e_network_conf "$E2E_INFLUX_UDP")
$(unixsock "$D/lists.sock")
LoadPlugin write_prometheus
<Plugin write_prometheus>
  Host \"127.0.0.1\"
  Port \"$wp_port\"
</Plugin>" e2e_conf "$D/lists"
E2E_EXTRA_PLUGINS="$(e2e_write_graphite_conf "$E2E_CARBON_PORT")" \
  e2e_collectd_conf "$D/rec" zvmrec zvm_monitor "Device \"$D/rec/monreader\"" \
  "OneValuePerList true" "$(cat "$D/useite.conf" "$D/prcsmt.conf")"
# the blocks inside the lists daemon's <Plugin zvm_monitor>
sed -i '$d' "$D/lists/collectd.conf"
{ cat "$D/useite.conf" "$D/prcsmt.conf"; echo "</Plugin>"; } >>"$D/lists/collectd.conf"
e2e_collectd "$D/graphite" "$D/s.scn"
gpid=$E2E_PID
e2e_collectd "$D/lists" "$D/s.scn"
lpid=$E2E_PID
e2e_collectd "$D/rec" "$D/s.scn"
rpid=$E2E_PID
# dmstats values, one point every 2 s meanwhile
i=0
until [ -S "$D/graphite.sock" ] && [ -S "$D/lists.sock" ]; do
  i=$((i + 1))
  [ $i -lt 150 ] || { echo "FAIL: no unixsock socket from the daemons within 30 s"; exit 1; }
  sleep 0.2
done
"$PY" "$top/tests/dashboards/dmstats_feed.py" --socket "$D/graphite.sock" \
  --socket "$D/lists.sock" >"$D/dmstats_feed.out" 2>&1 &
feed=$!
for d in graphite lists rec; do
  h=zvmtest
  [ $d != rec ] || h=zvmrec
  e2e_wait 60 "$PY" "$top/tests/e2e/oracle.py" ready --settle 8 "$D/s.scn" --csv "$D/$d/csv" \
    --hostname $h || {
    tail -n 20 "$D/$d/collectd.log"
    echo "FAIL: the reader counters ($d daemon) did not reach their final values within 60 s"
    exit 1
  }
done
wait $feed || {
  cat "$D/dmstats_feed.out"
  echo "FAIL: the dmstats values could not be put into the daemons"
  exit 1
}
"$PY" "$top/tests/dashboards/expected.py" "$D/s.scn" >"$D/expected.json" || {
  echo "FAIL: tests/dashboards/expected.py"
  exit 1
}
# InfluxDB writes in batches, Prometheus scrapes every second.
sleep 3
status=0
"$PY" "$top/tests/dashboards/check.py" --graphite "http://127.0.0.1:$E2E_GRAPHITE_WEB" \
  --influxdb "http://127.0.0.1:$E2E_INFLUX_HTTP" --prometheus "http://127.0.0.1:$E2E_PROM_PORT" \
  --expect "$top/tests/dashboards/expect.json" --values "$D/expected.json" \
  "$top"/contrib/grafana/zvm_monitor-graphite.json \
  "$top"/contrib/grafana/zvm_monitor-influxdb.json \
  "$top"/contrib/grafana/zvm_monitor-prometheus.json || status=1
# The check can fail: one panel per dashboard whose query names a field
# that does not exist must be reported.
for k in graphite influxdb prometheus; do
  "$PY" - "$top/contrib/grafana/zvm_monitor-$k.json" "$D/broken-$k.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = next(p for p in d["panels"] if p.get("title") == "Hard-affinity dispatches per second")
p["targets"] = [dict(t, **{k: v.replace("plscuhaf", "nosuch") for k, v in t.items()
                           if isinstance(v, str)}) for t in p["targets"][:1]]
json.dump(dict(d, panels=[p]), open(sys.argv[2], "w"))
PY
done
if "$PY" "$top/tests/dashboards/check.py" --graphite "http://127.0.0.1:$E2E_GRAPHITE_WEB" \
  --influxdb "http://127.0.0.1:$E2E_INFLUX_HTTP" --prometheus "http://127.0.0.1:$E2E_PROM_PORT" \
  --expect "$top/tests/dashboards/expect.json" "$D"/broken-*.json >"$D/broken.out" 2>&1 ||
  [ "$(grep -c '^FAIL: .*no series for' "$D/broken.out")" -ne 9 ]; then
  cat "$D/broken.out"
  echo "FAIL: a query matching nothing was not reported as such (3 selections x 3 dashboards)"
  status=1
else
  echo "ok - a query matching nothing fails the check (graphite, influxdb, prometheus)"
fi
# ... and so can a value: CPUs busy 1.5 times what the stream holds
"$PY" - "$D/expected.json" "$D/wrong.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
p = e["panels"]["Processors: CPUs busy, all processors"]["series"]
for k in p:
    p[k] *= 1.5
json.dump(e, open(sys.argv[2], "w"))
PY
if "$PY" "$top/tests/dashboards/check.py" --graphite "http://127.0.0.1:$E2E_GRAPHITE_WEB" \
  --influxdb "http://127.0.0.1:$E2E_INFLUX_HTTP" --prometheus "http://127.0.0.1:$E2E_PROM_PORT" \
  --expect "$top/tests/dashboards/expect.json" --values "$D/wrong.json" \
  "$top"/contrib/grafana/zvm_monitor-*.json >"$D/wrong.out" 2>&1 ||
  [ "$(grep -c '^FAIL: .*CPUs busy, all processors: .*want' "$D/wrong.out")" -ne 6 ]; then
  grep FAIL "$D/wrong.out"
  echo "FAIL: a wrong value was not reported (2 series x 3 dashboards)"
  status=1
else
  echo "ok - a wrong value fails the check (graphite, influxdb, prometheus)"
fi

# The dashboards of zvm-monitor-record: the blocks replaced D4R10 and
# D5R21 in both daemons; every panel's series are the legends the
# dashboard names, and those are exactly the block's data sources (one
# panel per field, an array's elements in one; an <Array>'s fields with a
# series per entry, $cputype); the guests' transaction rates are those of
# the built-in panel, every D5R21 series shows the stream's last value.
for d in lists rec; do
  grep -q 'record 4/10 from its <Record> block, type zvm_useite' "$D/$d/collectd.log" || {
    echo "FAIL: the D4R10 block did not replace the built-in table in the $d daemon"
    status=1
  }
  grep -q 'record 5/21 from its <Record> block, array cputinfo, type zvm_prcsmt_cpu' "$D/$d/collectd.log" || {
    echo "FAIL: the D5R21 block did not replace the built-in table in the $d daemon"
    status=1
  }
done
"$PY" - "$top/tests/dashboards/expect.json" "$D/expected.json" "$D/expect-record.json" \
  "$D/expected-record.json" "$D/useite.conf" "$D/recdash/useite-prometheus.json" \
  "$D/prcsmt.conf" "$D/recdash/prcsmt-prometheus.json" <<'PY' || status=1
import json, re, sys
expect, values, out_e, out_v = sys.argv[1:5]
v = json.load(open(values))["panels"]
last = v["D5R21 values (last)"]["series"]
e = json.load(open(expect))
e["variables"] = {"host": {"graphite": ["lnx001", "lnx002", "zvmrec", "zvmtest"],
                           "*": ["zvmtest"]},
                  "guest": e["variables"]["guest"], "cputype": e["variables"]["cputype"]}
e["select"] = {"host": {"graphite": "zvmrec", "*": "zvmtest"}, "rate_window": "4s"}
e["panels"], want = {}, {"USEITE transactions per second": v["Transactions per second"]}


def data_sources(block):
    ds = set()
    for name, body in re.findall(r'<Field "([a-z0-9_]+)">(.*?)</Field>', block, re.S):
        if re.search(r'Kind "(counter|gauge)"', body):
            m = re.search(r'Count (\d+)', body)
            p = re.search(r'ElementPrefix "([^"]*)"', body)
            if m:
                ds |= {"%s%s%d" % (name, p.group(1) if p else "_", i)
                       for i in range(int(m.group(1)))}
            else:
                ds.add(name)
    return ds


for conf, dash in zip(sys.argv[5::2], sys.argv[6::2]):
    block = open(conf).read()
    ds = data_sources(block)
    entry = data_sources("".join(re.findall(r"<Array .*?</Array>", block, re.S)))
    panels = {}
    for p in json.load(open(dash))["panels"]:
        if p["type"] == "row":
            continue
        names = []
        for t in p["targets"]:
            var = re.search(r'zvm_monitor=~"\$(\w+)"', t["expr"])
            names.append(t["legendFormat"].replace("{{zvm_monitor}}", "$" + var.group(1))
                         if var else t["legendFormat"])
        panels[p["title"]] = names
    names = [n.split(" ")[-1] for s in panels.values() for n in s]
    if sorted(names) != sorted(ds):
        sys.exit("FAIL: %s: the record dashboard's series %s are not the block's data sources %s"
                 % (dash, sorted(names), sorted(ds)))
    per_entry = {n.split(" ")[-1] for s in panels.values() for n in s
                 if n.startswith("$cputype ")}
    if per_entry != entry:
        sys.exit("FAIL: %s: the series per CPU type %s are not the array's data sources %s"
                 % (dash, sorted(per_entry), sorted(entry)))
    e["panels"].update(panels)
    if "prcsmt" in conf:
        for title, series in panels.items():
            # a CPU type's series "cp activated", the system's "mt_max_threads"
            shown = {n.replace("$cputype", t): n.replace("$cputype", t) if n[0] == "$"
                     else "system " + n for n in series for t in ("cp", "ifl")}
            want[title] = {"agg": "last", "series": {k: last[w] for k, w in shown.items()}}
    print("ok - %s: one panel per field of the block: %d panels, %d series (%d per entry)"
          % (dash.split("/")[-1], len(panels), len(names), len(entry)))
json.dump(e, open(out_e, "w"))
json.dump({"panels": want}, open(out_v, "w"))
PY
"$PY" "$top/tests/dashboards/check.py" --graphite "http://127.0.0.1:$E2E_GRAPHITE_WEB" \
  --influxdb "http://127.0.0.1:$E2E_INFLUX_HTTP" --prometheus "http://127.0.0.1:$E2E_PROM_PORT" \
  --expect "$D/expect-record.json" --values "$D/expected-record.json" \
  "$D"/recdash/useite-graphite.json "$D"/recdash/useite-influxdb.json \
  "$D"/recdash/useite-prometheus.json "$D"/recdash/prcsmt-graphite.json \
  "$D"/recdash/prcsmt-influxdb.json "$D"/recdash/prcsmt-prometheus.json \
  >"$D/record-check.out" 2>&1 || {
  grep FAIL "$D/record-check.out" | head -n 40
  echo "FAIL: the dashboards of zvm-monitor-record --dashboard"
  status=1
}
tail -n 1 "$D/record-check.out"
[ -z "${E2E_HOLD:-}" ] || {
  echo "back ends up for $E2E_HOLD s (graphite-web :$E2E_GRAPHITE_WEB, influxd :$E2E_INFLUX_HTTP, prometheus :$E2E_PROM_PORT)"
  sleep "$E2E_HOLD"
}
e2e_stop "$gpid" || true
e2e_stop "$lpid" || true
e2e_stop "$rpid" || true
sh "$top/tests/dashboards/hypfs.sh" "$E2E_BUILD" || status=1
echo "dashboards: $(($(date +%s) - t0)) s"
exit $status
