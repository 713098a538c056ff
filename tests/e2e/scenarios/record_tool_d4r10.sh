# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# The block zvm-monitor-record makes from IBM's D4R10 page (the test copy
# in tests/data/recpages, the built-in table's layout), loaded with Replace
# true, gives exactly the built-in table's values on the same stream:
# guests of three virtual processors summed per guest (one VMDBK skipping
# transactions), a logoff and logon, counters past 2^31; the same files,
# the same lines. The block takes the built-in list's fields (its csv
# header) and the record count as "transactions".
sc_record_tool_d4r10() {
  gen -g 4 -e 2 -i 4 --vcpus 3 --vmdbk-skip 2 --smt-every 0 --mces 1 \
    --logoff 2@1 --logon 2@2 --counter-offset 2147483000 --gap-ms 600 \
    -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 3" run_case "$D/builtin" "$D/s.scn" "" || return 1
  f=$(ls "$D"/builtin/csv/zvmtest/zvm_monitor-LINUX001/zvm_useite-*) || return 1
  fields=$(head -n 1 "$f" | tr ',' '\n' | sed '1d; /^transactions$/d; s/_q[0-3]$//' |
    awk '!seen[$0]++' | paste -s -d, -)
  e2e_run "$E2E_BUILD/tools/zvm-monitor-record" -q -c transactions -f "$fields" \
    "$top/tests/data/recpages/useite-v6r2.txt" >"$D/useite.conf" ||
    fail "zvm-monitor-record failed on the D4R10 page" || return 1
  run_block "$D/block" "$D/s.scn" "$D/useite.conf" || return 1
  grep -q 'record 4/10 from its <Record> block, type zvm_useite' "$D/block/collectd.log" ||
    fail "the block did not replace D4R10" || return 1
  same_csv "$D/builtin" "$D/block" '*zvm_useite-*'
}
