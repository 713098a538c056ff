# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# A record of over 100 fields that IBM-style pages say is written per
# virtual processor (the made-up D4R200 of tests/data/recpages, its block
# made by zvm-monitor-record, 102 data sources: one value per list) arrives
# summed per guest: the generator writes it with every D4R10 record, its
# counter i the D4R10 counter at offset 48 + 4 (i mod 23), so each guest's
# c000 is the built-in D4R10 hfquct of the same guest, which the oracle
# checks (three VMDBKs, one skipping transactions; a logoff and logon).
# The page names no base VMDBK bit: its gauges (the named bits ESA and XA)
# are the latest record's, its record count counts every VMDBK's records.
sc_record_tool_per_vp() {
  gen -g 3 -e 2 -i 4 --vcpus 3 --vmdbk-skip 2 --smt-every 0 --mces 1 \
    --logoff 2@1 --logon 2@2 --usetst --gap-ms 600 -o "$D/s.scn" || return 1
  e2e_run "$E2E_BUILD/tools/zvm-monitor-record" -q -c records \
    "$top/tests/data/recpages/usetst-l2-table.html" >"$D/usetst.conf" ||
    fail "zvm-monitor-record failed on the D4R200 page" || return 1
  run_block "$D/run" "$D/s.scn" "$D/usetst.conf" || return 1
  grep -q 'record 4/200 from its <Record> block: more data sources than one value list holds' \
    "$D/run/collectd.log" || fail "no one-value-per-list line for 4/200 in the log" || return 1
  for g in LINUX001 LINUX002 LINUX003; do
    dir=$D/run/csv/zvmtest/zvm_monitor-$g
    n=$(ls "$dir" | grep -c -e '^derive-' -e '^gauge-')
    [ "$n" -eq 102 ] || fail "$g: $n one-value lists, want 102" || return 1
    f=$(ls "$dir"/zvm_useite-*) || return 1
    want=$(tail -n 1 "$f" | cut -d, -f"$(csv_col "$f" hfquct)")
    got=$(tail -n 1 "$dir"/derive-c000-* | cut -d, -f2)
    [ "$got" = "$want" ] || fail "$g: c000 $got, want D4R10's hfquct $want" || return 1
    want=$(tail -n 1 "$f" | cut -d, -f"$(csv_col "$f" hfothr)")
    got=$(tail -n 1 "$dir"/derive-c045-* | cut -d, -f2)
    [ "$got" = "$want" ] || fail "$g: c045 $got, want D4R10's hfothr $want" || return 1
    # the named bits of MODE: the latest record's, one of the two set
    bits=$(tail -q -n 1 "$dir"/gauge-esa-* "$dir"/gauge-xa-* | cut -d, -f2 | tr '\n' ' ')
    [ "$bits" = "1.000000 0.000000 " ] || [ "$bits" = "0.000000 1.000000 " ] ||
      fail "$g: esa and xa $bits, want one of them 1" || return 1
    # no base VMDBK bit on the page: every record counts
    [ "$(tail -n 1 "$dir"/derive-records-* | cut -d, -f2)" -gt \
      "$(tail -n 1 "$f" | cut -d, -f"$(csv_col "$f" transactions)")" ] ||
      fail "$g: fewer records than D4R10 transactions" || return 1
  done
}
