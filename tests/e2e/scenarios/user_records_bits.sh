# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# The <Record> options for what IBM's pages describe beyond plain numbers,
# through the oracle (which models each from the man page): D8R1 with the
# device number as its instance in hex (Format hex: TCPIP_0603), an array
# named x_q0..x_q2 (ElementPrefix) and two named bits of one 4-byte field
# as 0/1 gauges (Mask).
sc_user_records_bits() {
  gen -g 0 -i 3 --cpus 0 --nics 2 --smt-every 0 --unknown-events 0 --gap-ms 1100 \
    -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 3" run_case "$D" "$D/s.scn" "--conf $D/collectd.conf" \
    '<Record "8/1">' 'Name "vnd"' \
    '<Field "owner">' 'Offset 24' 'Length 8' 'Type "ebcdic"' 'Kind "instance"' '</Field>' \
    '<Field "dev">' 'Offset 32' 'Length 2' 'Type "unsigned"' 'Kind "instance"' 'Format "hex"' '</Field>' \
    '<Field "x">' 'Offset 96' 'Length 4' 'Count 3' 'ElementPrefix "_q"' 'Type "unsigned"' 'Kind "counter"' '</Field>' \
    '<Field "b7">' 'Offset 108' 'Length 4' 'Mask 128' 'Type "unsigned"' 'Kind "gauge"' '</Field>' \
    '<Field "b4">' 'Offset 108' 'Length 4' 'Mask 16' 'Type "unsigned"' 'Kind "gauge"' '</Field>' \
    '</Record>' || return 1
  f=$(ls "$D"/csv/zvmtest/zvm_monitor-TCPIP_0603/zvm_vnd-*) ||
    fail "no TCPIP_0603 zvm_vnd list (device number in hex)" || return 1
  [ "$(head -n 1 "$f")" = "epoch,x_q0,x_q1,x_q2,b7,b4" ] ||
    fail "TCPIP_0603: csv header $(head -n 1 "$f")" || return 1
  # the bits differ between the two devices in the last interval
  [ "$(tail -q -n 1 "$D"/csv/zvmtest/zvm_monitor-TCPIP_06*/zvm_vnd-* | cut -d, -f6 | sort -u | wc -l)" -eq 2 ] ||
    fail "b4 the same on both devices" || return 1
}
