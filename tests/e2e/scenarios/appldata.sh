# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# APPLDATA (domain 10): three Linux guests with every kind of record
# (kernel os/mem/net_sum, mon_fsstatd, mon_procd), a torn os record, a CPU
# hot-plug (a D10R1 event, then os records one CPU larger), an unknown
# product ID, hostile mount points and commands; messages 1.1 s apart, so
# the intervals arrive in several read callbacks. Named as collectd's own
# plugins on each guest (host = guest).
sc_appldata() {
  gen -g 2 -i 4 --smt-every 0 --linux-guests 3 --appldata all --appldata-faults \
    --set-frames 2 --mces 1 --gap-ms 1100 -o "$D/s.scn" || return 1
  CASE_CHECK="--min-callbacks 3" run_case "$D" "$D/s.scn" "" || return 1
  c=$D/csv
  [ "$(sed 1d "$c"/zvmtest/zvm_monitor-reader/total_objects-appldata_torn-* | tail -n 1 | cut -d, -f2)" = 1 ] ||
    fail "appldata_torn: want 1" || return 1
  [ "$(sed 1d "$c"/lnx002/cpu-2/cpu-steal-* | wc -l)" -eq 2 ] ||
    fail "lnx002 cpu-2 (hot-plugged in the third interval): want 2 values" || return 1
  [ "$(sed 1d "$c"/lnx001/load/load-* | tail -n 1 | tr ',' '\n' | wc -l)" -eq 4 ] ||
    fail "load/load: want time + shortterm, midterm, longterm" || return 1
  ls -d "$c/lnx001/df-mnt-a%20b-%25x%0a-..-%ff" >/dev/null 2>&1 ||
    fail "hostile mount point not escaped as df-mnt-a%20b-%25x%0a-..-%ff" || return 1
  # nothing outside the three guests' and the reader's directories
  [ "$(ls "$c" | tr '\n' ' ')" = "lnx001 lnx002 lnx003 zvmtest " ] ||
    fail "unexpected hosts: $(ls "$c")" || return 1
  ! ls "$c"/lnx001 | grep -q '^processes-' || fail "per-process values without ApplDataKinds procd_task"
}
