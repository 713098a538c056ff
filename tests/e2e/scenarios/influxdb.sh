# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# e2e: packages influxdb influxdb-client curl
# A real InfluxDB 1.x (the network plugin into its [[collectd]] listener,
# on ports of 127.0.0.1 picked free): every value of the back-end stream
# queried back is the oracle's, at its record time (a reader counter: its
# final value), under the measurement and tags collectd's listener makes.
sc_influxdb() {
  idir=$D/influx
  # the listener needs collectd's types and the plugin's shipped ones
  e2e_scenario_influxdb "$idir" "$top/contrib/zvm_monitor.types.db" || return $?
  influx=$E2E_INFLUX_PID
  hport=$E2E_INFLUX_HTTP
  uport=$E2E_INFLUX_UDP
  backend_stream "$D/s.scn" || return 1
  E2E_EXTRA_PLUGINS=$(e2e_network_conf "$uport") run_case "$D" "$D/s.scn" "" || { e2e_stop "$influx"; return 1; }
  st=0
  for id in $BACKEND_IDS $APPLDATA_BACKEND_IDS; do
    set -- $(oracle_value "$D/s.scn" "$id")
    host=${id%%/*}
    # measurement <plugin>_<data source>; tag instance = the plugin instance
    pd=$(echo "$id" | cut -d/ -f2)
    pl=${pd%%-*}
    pi=${pd#"$pl"}
    pi=${pi#-}
    [ -n "$pi" ] && wpi="instance='$pi'" || wpi="instance=''"
    if [ "$(echo "$id" | tr -cd / | wc -c)" -eq 3 ]; then
      # a list's data source: measurement zvm_monitor_<ds>, no type instance
      ty=$(echo "$id" | cut -d/ -f3)
      ds=$(echo "$id" | cut -d/ -f4)
      q="SELECT value FROM ${pl}_$ds WHERE host='$host' AND $wpi AND type='$ty'"
    else
      ty=$(echo "$id" | cut -d/ -f3 | cut -d- -f1)
      ti=$(echo "$id" | cut -d/ -f3 | cut -d- -f2-)
      q="SELECT value FROM ${pl}_value WHERE host='$host' AND $wpi AND type='$ty' AND type_instance='$ti'"
    fi
    [ "$1" = - ] && q="$q ORDER BY time DESC LIMIT 1"
    # the listener writes in batches: wait (bounded) for the point
    e2e_wait 20 sh -c 'curl -sf -G "$1" --data-urlencode db=collectd --data-urlencode epoch=ms \
        --data-urlencode "q=$2" >"$3" && grep -q "\"values\"" "$3"' sh \
      "http://127.0.0.1:$hport/query" "$q" "$idir/q.json"
    res=$("$PY" -c "import json, sys
r = json.load(open('$idir/q.json'))['results'][0]
pts = r['series'][0]['values'] if 'series' in r else []
t, want = '$1', float('$2')
if t == '-':
    print('True' if pts and pts[0][1] == want else 'False %s' % pts)
else:
    hit = [p for p in pts if abs(p[0] / 1000.0 - int(t)) < 1.0]
    print('True' if len(hit) == 1 and hit[0][1] == want else 'False %s' % pts)")
    if [ "$res" = True ]; then
      say "ok - influxdb: $id = $2"
    else
      fail "influxdb: $id: want $2 at $1, got: $res"
      st=1
    fi
  done
  e2e_stop "$influx" 15 || { fail "influxd did not stop"; st=1; }
  return $st
}
