# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# EOVERFLOW after a set (the set is valid), a rejected MCA (the driver
# answers it with an empty data set: a set, and errors-malformed), and an
# EFAULT on the first read of a set (nothing read yet: nothing lost, the
# whole set follows and is used).
sc_read_errors() {
  gen -g 5 -i 3 --smt-every 2 --fault eoverflow@1,badmca@2,efault@4 -o "$D/s.scn" || return 1
  run_case "$D" "$D/s.scn" ""
}
