# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# EBUSY for real: another process (monreader-cat) holds the emulated
# device (MONREADER_EMU_LOCK) for 3 s; the plugin's opens fail meanwhile,
# then it opens and the whole stream arrives.
sc_ebusy_holder() {
  gen -g 4 -i 2 --smt-every 2 -o "$D/s.scn" || return 1
  e2e_bg "$D/holder.out" e2e_exec LD_PRELOAD="$(e2e_preload)" MONREADER_EMU_LOCK="$D/lock" \
    MONREADER_EMU_DEVICE="$D/monreader" MONREADER_EMU_SCENARIO="$D/s.scn" \
    "$E2E_CAT" -n -w 3000 -t 200 -q "$D/monreader"
  hpid=$E2E_PID
  e2e_wait 10 grep -q '^open ok' "$D/holder.out" || fail "monreader-cat did not open" || return 1
  CASE_ENV="MONREADER_EMU_LOCK=$D/lock" CASE_TIMEOUT=60 \
    run_case "$D" "$D/s.scn" "--open-errors-min 1" || return 1
  e2e_stop "$hpid" || true
  grep -qi 'zvm_monitor plugin: .*busy' "$D/collectd.log" ||
    fail "the plugin did not log that the device is busy"
}
