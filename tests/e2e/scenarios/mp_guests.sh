# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Virtual MP guests: three VMDBKs per guest (VMDCPUAD 0-2,
# CALBASE on 0), VMDBKs 1 and 2 skipping every other transaction, two
# transactions per interval. A guest's counters are the sum over its
# VMDBKs of each one's latest value (never going back), transactions
# counts base records, the levels are the base VMDBK's.
sc_mp_guests() {
  gen -g 5 -e 2 -i 3 --vcpus 3 --vmdbk-skip 2 --smt-every 2 --mces 1 \
    --gap-ms 600 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 3" run_case "$D" "$D/s.scn" "" || return 1
  f=$(ls "$D"/csv/zvmtest/zvm_monitor-LINUX001/zvm_useite-*) || return 1
  c=$(csv_col "$f" hfcpurn) || return 1
  sed 1d "$f" | cut -d, -f"$c" | awk 'NR > 1 && $1 < last { exit 1 } { last = $1 }' ||
    fail "LINUX001 hfcpurn goes back: $(sed 1d "$f" | cut -d, -f"$c" | tr '\n' ' ')" || return 1
  [ "$(tail -n 1 "$f" | cut -d, -f"$(csv_col "$f" transactions)")" -eq 6 ] ||
    fail "LINUX001 transactions: want 6 (base records only)" || return 1
}
