# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# EBUSY: the first two opens fail (injected), then data flows.
sc_ebusy_injected() {
  gen -g 4 -i 2 --fault open@0:EBUSY:2 -o "$D/s.scn" || return 1
  CASE_TIMEOUT=60 run_case "$D" "$D/s.scn" ""
}
