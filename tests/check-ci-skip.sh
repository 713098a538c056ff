#!/bin/sh
# SPDX-License-Identifier: MIT
# The suite's rule for skips (tests/lib.sh, "Skipped tests") holds where it
# is applied:
#   - tests/test-wrapper (every make check test): a skip for want of a
#     package (exit 77 without a SKIP(not-applicable) line, a "SKIP:" line,
#     a cmocka test skipped without a line naming it) fails under CI=true
#     and stays a loud skip without CI; a not-applicable skip passes both;
#   - tests/e2e/run.sh: the prometheus scenario with its back end made
#     unavailable (E2E_PROMETHEUS pointing nowhere) fails the run under
#     CI=true ("0 passed, 1 failed, 0 skipped") and is a loud skip without
#     CI ("0 passed, 0 failed, 1 skipped", exit 0).
# Output of the runs it makes is shown indented, so that their SKIP lines
# are not this test's own.
set -eu

src=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
build=${abs_top_builddir:-$(pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/zvm-ci-skip.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect WANT-STATUS WHAT CI-VALUE COMMAND...: COMMAND's exit status with
# CI=CI-VALUE ("-" for no CI in the environment) must be WANT-STATUS
expect() {
  want=$1
  what=$2
  ci=$3
  shift 3
  st=0
  (
    if [ "$ci" = - ]; then unset CI; else CI=$ci && export CI; fi
    "$@"
  ) >"$tmp/out" 2>&1 || st=$?
  if [ "$st" -eq "$want" ]; then
    echo "ok - $what (exit $st)"
  else
    sed 's/^/    | /' "$tmp/out"
    echo "FAIL - $what: exit $st, want $want"
    failures=$((failures + 1))
  fi
}
# has PATTERN WHAT: the last run's output has a line matching PATTERN
has() {
  if grep -q -- "$1" "$tmp/out"; then
    echo "ok - $2"
  else
    sed 's/^/    | /' "$tmp/out"
    echo "FAIL - $2: no line matching '$1'"
    failures=$((failures + 1))
  fi
}

# A test script: prints its lines (\n separated), exits with a status.
fake() { # fake NAME STATUS LINES
  printf '#!/bin/sh\nprintf "%%s\\n" "%s"\nexit %s\n' "$3" "$2" >"$tmp/$1"
}
wrap() { sh "$src/tests/test-wrapper" -- sh "$tmp/$1"; }

fake missing 77 'SKIP: frobnicate not found (frobnicate-tools)'
expect 1 "make check: a skip for want of a package fails under CI=true" true wrap missing
has '^FAIL: skipped under CI' "  ... saying why"
expect 77 "make check: the same skip without CI stays a skip" - wrap missing
has '^!!!!!!!! SKIPPED' "  ... loudly"
expect 77 "make check: CI=false is no CI" false wrap missing

fake bare 77 'nothing to say'
expect 1 "make check: exit 77 without a reason fails under CI=true" true wrap bare

fake na 77 'SKIP(not-applicable): runs only natively (qemu-user)'
expect 77 "make check: a not-applicable skip stays a skip under CI=true" true wrap na

fake partial 0 'ok - one part
SKIP: the other part: zap not installed (zap)'
expect 1 "make check: a test that skips a part fails under CI=true" true wrap partial
expect 0 "make check: ... and passes without CI" - wrap partial

fake cmocka 0 '[ RUN      ] t_one
[  SKIPPED ] t_one
[  PASSED  ] 1 test(s).
[  SKIPPED ] 1 test(s), listed below:
[  SKIPPED ] t_one'
expect 1 "make check: a cmocka test skipped without a reason fails under CI=true" true wrap cmocka
fake cmocka_other 0 'SKIP(not-applicable): t_two: only on s390x
[  SKIPPED ] t_one
[  SKIPPED ] 1 test(s), listed below:
[  SKIPPED ] t_one'
expect 1 "make check: ... and with a reason naming another test" true wrap cmocka_other
fake cmocka_na 0 'SKIP(not-applicable): t_one: only on s390x
[  SKIPPED ] t_one
[  SKIPPED ] 1 test(s), listed below:
[  SKIPPED ] t_one'
expect 0 "make check: a cmocka test not applicable here passes under CI=true" true wrap cmocka_na

fake failing 3 'FAIL: broken'
expect 3 "make check: a failure keeps its status under CI=true" true wrap failing

# The end-to-end driver, one scenario whose back end is made unavailable.
# Natively: the check happens before any program of the build runs.
e2e() {
  env E2E_PROMETHEUS="$tmp/no-such-dir/prometheus" E2E_DIR= E2E_EXEC_WRAPPER= \
    sh "$src/tests/e2e/run.sh" "$build" prometheus
}
expect 1 "e2e: prometheus made unavailable fails the run under CI=true" true e2e
has '^FAIL: prometheus .*skipped under CI' "  ... its line says it was skipped"
has '^0 passed, 1 failed, 0 skipped$' "  ... counted as failed"
expect 0 "e2e: the same run without CI passes" - e2e
has '^!!!!!!!! prometheus SKIPPED' "  ... with a loud SKIP"
has '^0 passed, 0 failed, 1 skipped$' "  ... counted as skipped"

[ "$failures" -eq 0 ] || exit 1
echo "PASS: skips fail under CI=true unless not applicable here"
