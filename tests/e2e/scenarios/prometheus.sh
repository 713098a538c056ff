# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# e2e: packages prometheus curl libmicrohttpd12 libprotobuf-c1
# Prometheus: collectd's write_prometheus scraped by a real Prometheus
# server (honor_labels: collectd's host stays the "instance" label). A data
# source DS of a list host/zvm_monitor-PI/TYPE becomes the metric
# collectd_zvm_monitor_TYPE_DS, a single value host/zvm_monitor-PI/TYPE-TI
# collectd_zvm_monitor_TYPE with the label type=TI; "_total" is appended
# for DERIVE/COUNTER data sources; labels instance=host, zvm_monitor=PI,
# job (from the scrape), and nothing else; the newest sample has the
# oracle's value and record time.
sc_prometheus() {
  if [ -n "${E2E_EXEC_WRAPPER:-}" ]; then
    # the s390x stage's daemon: its write_prometheus.so needs
    # libmicrohttpd12:s390x and libprotobuf-c1:s390x, not installed there.
    # The same stream without it, so the runs stay comparable.
    backend_stream "$D/s.scn" || return 1
    run_case "$D" "$D/s.scn" "" || return 1
    say "ok - values as the oracle says; Prometheus itself not run in an emulated daemon"
    return 0
  fi
  if ! have_pkgs "$E2E_PROMETHEUS" curl || [ ! -e "$E2E_STOCK/write_prometheus.so" ] ||
    ldd "$E2E_STOCK/write_prometheus.so" | grep -q 'not found'; then
    say "SKIP: prometheus/curl/write_prometheus.so and its libraries not available (prometheus curl libmicrohttpd12 libprotobuf-c1)"
    return 77
  fi
  wport=$(e2e_free_port) || return 1
  e2e_start_prometheus "$D/prom" "127.0.0.1:$wport" ||
    { tail -n 20 "$D/prom/prometheus.out" >>"$SC_LOG"; fail "prometheus not ready on 127.0.0.1:$E2E_PROM_PORT"; return 1; }
  prom=$E2E_PROM_PID
  api=http://127.0.0.1:$E2E_PROM_PORT/api/v1
  backend_stream "$D/s.scn" || return 1
  E2E_EXTRA_PLUGINS="LoadPlugin write_prometheus
<Plugin write_prometheus>
  Host \"127.0.0.1\"
  Port \"$wport\"
</Plugin>" CASE_CHECK="" run_case "$D" "$D/s.scn" "" || { e2e_stop "$prom"; return 1; }
  st=0
  for id in $BACKEND_IDS zvmtest/zvm_monitor-reader/errors-eio; do
    set -- $(oracle_value "$D/s.scn" "$id")
    pi=$(echo "$id" | cut -d/ -f2 | sed 's/^zvm_monitor-//')
    if [ "$(echo "$id" | tr -cd / | wc -c)" -eq 3 ]; then
      # a list's data source: its own metric, no "type" label
      ty=$(echo "$id" | cut -d/ -f3)
      ds=$(echo "$id" | cut -d/ -f4)
      ti=
      pname=collectd_zvm_monitor_${ty}_$ds
    else
      ty=$(echo "$id" | cut -d/ -f3 | cut -d- -f1)
      ds=value
      ti=$(echo "$id" | cut -d/ -f3 | cut -d- -f2-)
      pname=collectd_zvm_monitor_$ty
    fi
    # the DS type decides the "_total" suffix: collectd's or the plugin's types.db
    dstype=$(cat "$E2E_TYPESDB" "$top/contrib/zvm_monitor.types.db" | awk -v t="$ty" -v d="$ds" '
      $1 == t { for (i = 2; i <= NF; i++) { split($i, a, ":"); if (a[1] == d) print a[2] } }')
    [ "$dstype" = GAUGE ] || pname=${pname}_total
    sel="$pname{instance=\"zvmtest\",zvm_monitor=\"$pi\"${ti:+,type=\"$ti\"}}"
    # every raw sample of the last 15 minutes, with its time stamp
    e2e_wait 20 sh -c 'curl -sf -G "$1/query" --data-urlencode "query=$2[15m]" >"$3" &&
        grep -q "\"values\"" "$3"' sh "$api" "$sel" "$D/q.json"
    curl -sf -G "$api/metadata" --data-urlencode "metric=$pname" >"$D/meta.json" || true
    res=$("$PY" -c "import json
r = json.load(open('$D/q.json'))['data']['result']
meta = json.load(open('$D/meta.json')).get('data', {}).get('$pname', [{}])[0]
want_type = 'gauge' if '$dstype' == 'GAUGE' else 'counter'
if len(r) != 1:
    print('False: %d series: %s' % (len(r), [s['metric'] for s in r]))
else:
    labels, pts = r[0]['metric'], r[0]['values']
    t, v = pts[-1][0], float(pts[-1][1])
    want_labels = {'__name__': '$pname', 'instance': 'zvmtest', 'job': 'collectd',
                   'zvm_monitor': '$pi'}
    if '$ti':
        want_labels['type'] = '$ti'
    ok_time = '$1' == '-' or abs(t - int('$1')) < 1.0
    if labels != want_labels:
        print('False: labels %s' % labels)
    elif v != float('$2') or not ok_time:
        print('False: newest sample %s at %s, want $2 at $1' % (v, t))
    elif meta.get('type') != want_type:
        print('False: metadata %s, want type %s' % (meta, want_type))
    else:
        print('True')")
    if [ "$res" = True ]; then
      say "ok - prometheus: $sel = $2 ($dstype)"
    else
      fail "prometheus: $id ($sel): $res"
      st=1
    fi
  done
  e2e_stop "$prom" 15 || { fail "prometheus did not stop"; st=1; }
  return $st
}
