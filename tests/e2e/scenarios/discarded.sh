# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Discarded sets: EFAULT exactly on the second MCE of a 2-MCE message
# (the rest of the message is well formed, yet part of the faulted set),
# EIO in the middle of a record set, EFAULT in the middle of a record, EIO
# instead of a 0-byte read. Each lost set held a multithreading change's
# start record and the first records of 19-20 guests: none of their values
# may appear (asserted absent by their record times), and each change's
# end notification must say its start was not seen.
sc_discarded() {
  gen -g 45 -e 1 -i 3 --smt-every 1 --set-frames 1 --mces 2 --gap-ms 1100 \
    --fault efault@0:4108,eio@3:2000,efault@6:1000,eio@8 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-forbidden 3000 --min-callbacks 3" run_case "$D" "$D/s.scn" "" || return 1
  [ "$(grep -c 'Notification: severity = OKAY.*cp ? -> 1, ifl ? -> .*the start of this change was not seen' "$D/collectd.log")" -eq 3 ] ||
    fail "want three end notifications with an unseen start" || return 1
  if grep -q 'Notification: severity = WARNING.*plugin_instance = system' "$D/collectd.log"; then
    fail "a start notification from a discarded set"
    return 1
  fi
}
