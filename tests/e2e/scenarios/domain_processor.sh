# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Domain "processor" only: no per-user values, D4R10 counted as skipped;
# framed record sets, so record sets whose MCE names only the user domain
# are skipped whole (their D1R13 too) while D1R13 in the others frame the
# D5R21 records.
sc_domain_processor() {
  gen -g 24 -i 2 --smt-every 1 --set-frames 1 --mces 2 -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" "--domain processor" 'Domain "processor"' || return 1
  if ls "$D/csv/zvmtest" | grep -q '^zvm_monitor-LINUX'; then
    fail "per-user values with Domain processor"
    return 1
  fi
}
