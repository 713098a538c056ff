# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Records defined in collectd.conf, decoded by the same engine: D0R1 with
# a processor key, an array and a scaled gauge; D8R1 with two keys (EBCDIC
# owner and device number) and a field past its 316 bytes (so its values
# go one per list and each record counts as short); D3R2 without a key.
# The oracle reads the definitions from the daemon's collectd.conf.
sc_user_records() {
  gen -g 0 -i 3 --cpus 2 --nics 2 --smt-every 0 --unknown-events 0 --gap-ms 1100 \
    -o "$D/s.scn" || return 1
  set -- '<Record "0/1">' 'Name "sys"' 'InstancePrefix "cpu"' \
    '<Field "addr">' 'Offset 20' 'Length 2' 'Type "unsigned"' 'Kind "instance"' '</Field>' \
    '<Field "a">' 'Offset 24' 'Length 4' 'Type "unsigned"' 'Kind "counter"' '</Field>' \
    '<Field "b">' 'Offset 28' 'Length 4' 'Count 2' 'Type "unsigned"' 'Kind "gauge"' 'Scale 0.001' '</Field>' \
    '<Field "c">' 'Offset 40' 'Length 8' 'Type "cputimer"' 'Kind "counter"' '</Field>' \
    '</Record>' \
    '<Record "8/1">' 'Name "vnd"' \
    '<Field "owner">' 'Offset 24' 'Length 8' 'Type "ebcdic"' 'Kind "instance"' '</Field>' \
    '<Field "dev">' 'Offset 32' 'Length 2' 'Type "unsigned"' 'Kind "instance"' '</Field>' \
    '<Field "x">' 'Offset 96' 'Length 4' 'Count 3' 'Type "unsigned"' 'Kind "counter"' '</Field>' \
    '<Field "late">' 'Offset 320' 'Length 4' 'Type "unsigned"' 'Kind "gauge"' '</Field>' \
    '</Record>' \
    '<Record "3/2">' 'Name "stor"' \
    '<Field "w">' 'Offset 20' 'Length 4' 'Type "unsigned"' 'Kind "counter"' '</Field>' \
    '<Field "s">' 'Offset 26' 'Length 2' 'Type "signed"' 'Kind "gauge"' '</Field>' \
    '</Record>'
  CASE_CHECK="--min-callbacks 3" run_case "$D" "$D/s.scn" "--conf $D/collectd.conf" "$@" || return 1
  ls "$D"/csv/zvmtest/zvm_monitor-cpu1/zvm_sys-* >/dev/null 2>&1 || fail "no cpu1 zvm_sys list" || return 1
  ls "$D"/csv/zvmtest/zvm_monitor/zvm_stor-* >/dev/null 2>&1 || fail "no zvm_stor list" || return 1
  ls "$D"/csv/zvmtest/zvm_monitor-TCPIP_1539/derive-x_2-* >/dev/null 2>&1 ||
    fail "no TCPIP_1539 derive-x_2" || return 1
  grep -q 'record 8/1 from its <Record> block, type zvm_vnd; types.db line: zvm_vnd.x_0:DERIVE:0:U, x_1:DERIVE:0:U, x_2:DERIVE:0:U, late:GAUGE:U:U' "$D/collectd.log" ||
    fail "no types.db line for zvm_vnd in the log" || return 1
}
