# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# A virtual MP guest logs off (one D4R2 per VMDBK) and on again: its
# VMDBKs are summed afresh in the new session, its transactions restart.
sc_mp_logoff() {
  gen -g 3 -e 2 -i 4 --vcpus 3 --vmdbk-skip 2 --smt-every 0 --mces 1 \
    --logoff 2@1 --logon 2@2 --gap-ms 600 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 3" run_case "$D" "$D/s.scn" "" || return 1
  grep -q "z/VM guest LINUX002 logged off" "$D/collectd.log" ||
    fail "no logoff notification for LINUX002" || return 1
  # the same with each VMDBK on its own: their views start afresh too
  CASE_CHECK="--min-callbacks 3" run_case "$D/vcpu" "$D/s.scn" \
    "--report-by-vcpu" 'ReportByVirtualCPU true' || return 1
}
