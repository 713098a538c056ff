# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# The guests of mp_guests with ReportByVirtualCPU: each VMDBK also on its own
# (plugin instance LINUX001-vcpu2: its own latest values, its records).
sc_mp_guests_vcpu() {
  gen -g 3 -e 2 -i 2 --vcpus 3 --vmdbk-skip 2 --smt-every 0 --mces 1 \
    --gap-ms 600 -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "--report-by-vcpu" 'ReportByVirtualCPU true' || return 1
  ls "$D"/csv/zvmtest/zvm_monitor-LINUX003-vcpu2/zvm_useite-* >/dev/null 2>&1 ||
    fail "no LINUX003-vcpu2 values" || return 1
  # and one value per list too
  gen -g 2 -e 1 -i 2 --vcpus 2 --smt-every 0 -o "$D/t.scn" || return 1
  run_case "$D/t" "$D/t.scn" "--report-by-vcpu --one-value-per-list" \
    'ReportByVirtualCPU true' 'OneValuePerList true' || return 1
  ls "$D"/t/csv/zvmtest/zvm_monitor-LINUX002-vcpu1/derive-hfcpurn-* >/dev/null 2>&1 ||
    fail "no LINUX002-vcpu1 derive-hfcpurn" || return 1
}
