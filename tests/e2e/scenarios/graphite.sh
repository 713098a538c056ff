# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# e2e: packages graphite-carbon python3-whisper
# A real carbon-cache (write_graphite), on a port of 127.0.0.1 picked free:
# the back-end stream's values read back from its whisper files with
# whisper-fetch are the oracle's; the default lists that do not fit
# write_graphite's buffer are dropped as the pod says, and with
# OneValuePerList true (what the pod advises for Graphite) every D4R10
# value arrives.

# carbon_check CARBON-DIR SCENARIO IDS ORACLE-ARGS: every identifier of
# IDS (HOST/PLUGIN-INSTANCE/TYPE-INSTANCE, or HOST/PLUGIN-INSTANCE/TYPE/DS
# for a data source of a list, stored by write_graphite as ...TYPE.DS)
# holds the oracle's last value in its whisper file.
carbon_check() {
  cc_w=$1/storage/whisper/collectd
  cc_scn=$2
  cc_ids=$3
  cc_oargs=$4
  cc_st=0
  for id in $cc_ids; do
    # shellcheck disable=SC2086
    set -- $(oracle_value "$cc_scn" "$id" $cc_oargs)
    f=$cc_w/$id.wsp
    e2e_wait 20 test -s "$f" || { fail "no whisper file $f"; cc_st=1; continue; }
    if [ "$1" = - ]; then
      # reader counter: the newest point holds the final count
      got=$(whisper-fetch --from=$(($(date +%s) - 300)) "$f" | awk '$2 != "None" { v = $2 } END { print v }')
      want=$2
      ok=$("$PY" -c "import sys; print(float('$got' or 'nan') == float('$want'))")
    else
      # points are stored at the whole second write_graphite sends
      got=$(whisper-fetch --from=$(($1 - 2)) --until=$(($1 + 2)) "$f" | awk '$2 != "None" { print $1 "=" $2 }' | tr '\n' ' ')
      want=$2
      ok=$("$PY" -c "import sys
pts = [p.split('=') for p in '$got'.split()]
print(any(abs(int(t) - $1) <= 1 and float(v) == float('$want') for t, v in pts) and len(pts) == 1)")
    fi
    if [ "$ok" = True ]; then
      say "ok - carbon: $id = $want"
    else
      fail "carbon: $id: got '$got', want $want at $1"
      cc_st=1
    fi
  done
  return $cc_st
}

sc_graphite() {
  if ! have_pkgs carbon-cache whisper-fetch; then
    say "SKIP: carbon-cache/whisper-fetch not installed (graphite-carbon python3-whisper)"
    return 77
  fi
  c=$D/carbon
  e2e_start_carbon "$c" ||
    { cat "$c/carbon.out" >>"$SC_LOG"; fail "carbon-cache not listening on 127.0.0.1:$E2E_CARBON_PORT"; return 1; }
  carbon=$E2E_CARBON_PID
  lport=$E2E_CARBON_PORT
  graphite_plugin=$(e2e_write_graphite_conf "$lport")
  st=0
  # The default: one value list per record instance. write_graphite
  # formats a value list into one 1428-byte buffer, too small for the 48
  # data sources of zvm_useite: collectd logs "format_graphite: target
  # buffer too small" and drops those lists (contrib/zvm_monitor.pod,
  # GRAPHITE). The lists that fit arrive exactly.
  backend_stream "$D/s.scn" || return 1
  E2E_EXTRA_PLUGINS=$graphite_plugin run_case "$D" "$D/s.scn" "" || { e2e_stop "$carbon"; return 1; }
  carbon_check "$c" "$D/s.scn" "$(echo "$BACKEND_IDS" | grep -v zvm_useite)" "" || st=1
  carbon_check "$c" "$D/s.scn" "$APPLDATA_BACKEND_IDS" "" || st=1
  grep -q "write_graphite plugin: format_graphite: target buffer too small" "$D/collectd.log" ||
    { fail "write_graphite took the 48-value zvm_useite lists: update the pod's GRAPHITE section"; st=1; }
  # OneValuePerList true, what the pod advises for Graphite: every D4R10
  # value arrives (other whisper files than the lists').
  mkdir -p "$D/one"
  backend_stream "$D/one/s.scn" || return 1
  E2E_EXTRA_PLUGINS=$graphite_plugin run_case "$D/one" "$D/one/s.scn" "--one-value-per-list" \
    'OneValuePerList true' || { e2e_stop "$carbon"; return 1; }
  carbon_check "$c" "$D/one/s.scn" "zvmtest/zvm_monitor-LINUX001/derive-hfcpurn
zvmtest/zvm_monitor-LINUX002/derive-hfdsvm
zvmtest/zvm_monitor-LINUX003/derive-vmdcprmd_q2
zvmtest/zvm_monitor-LINUX001/total_events-transactions
zvmtest/zvm_monitor-LINUX002/gauge-vmdslcnt
zvmtest/zvm_monitor-ifl/threads-activated" "--one-value-per-list" || st=1
  e2e_stop "$carbon" 15 || { fail "carbon-cache did not stop"; st=1; }
  return $st
}
