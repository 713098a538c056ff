#!/bin/sh
# SPDX-License-Identifier: MIT
# Every program of the package behaves like any other command-line tool:
# -h/--help prints the usage on standard output and exits 0, --version
# prints "PROG (zvm_monitor) VERSION" (configure.ac's), and a usage error
# (an unknown short or long option, a missing argument) exits 2 with one
# line on standard error naming the problem and nothing on standard
# output. ZVM_CLI_PROGRAMS (tests/local.am) lists the installed programs
# and the test tools users are told to run, relative to the build tree.
set -u
: "${abs_top_builddir:?}" "${ZVM_CLI_PROGRAMS:?}"
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$abs_top_builddir/Makefile")
[ -n "$version" ] || { echo "FAIL: no PACKAGE_VERSION in $abs_top_builddir/Makefile"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=0
passed=0
ok() { passed=$((passed + 1)); echo "ok - $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# run PROG ARGS...: exit status in $rc, output in $tmp/out and $tmp/err
run() {
  # shellcheck disable=SC2086
  ${E2E_EXEC_WRAPPER:-} "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
}

for rel in $ZVM_CLI_PROGRAMS; do
  prog=$abs_top_builddir/$rel
  name=$(basename "$rel")
  [ -x "$prog" ] || { bad "$rel not built"; continue; }
  for help in -h --help; do
    run "$prog" "$help"
    if [ $rc -eq 0 ] && grep -qi "^usage: *$name" "$tmp/out" && grep -q -- '--version' "$tmp/out" &&
      [ ! -s "$tmp/err" ]; then
      ok "$name $help: usage on stdout (naming --version), exit 0"
    else
      bad "$name $help: exit $rc, stdout '$(head -n 1 "$tmp/out")', stderr '$(head -n 1 "$tmp/err")'"
    fi
  done
  run "$prog" --version
  if [ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "$name (zvm_monitor) $version" ] && [ ! -s "$tmp/err" ]; then
    ok "$name --version: '$name (zvm_monitor) $version'"
  else
    bad "$name --version: exit $rc, stdout '$(cat "$tmp/out")'"
  fi
  for args in "-Z" "--no-such-option" "--help=x"; do
    run "$prog" $args
    if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
      grep -q "^$name: .*(see $name --help)$" "$tmp/err"; then
      ok "$name $args: exit 2, '$(cat "$tmp/err")'"
    else
      bad "$name $args: exit $rc, stdout $(wc -c <"$tmp/out") bytes, stderr '$(cat "$tmp/err")'"
    fi
  done
done
# An option that needs an argument, given none (the last argument).
for pair in "tools/zvm-monitor-capture --write" "tools/zvm-monitor-dump -c" \
  "tools/zvm-monitor-record --fields" \
  "tests/rig/zvm-stream-gen --guests" "tests/rig/monreader-cat -s"; do
  set -- $pair
  name=$(basename "$1")
  run "$abs_top_builddir/$1" "$2"
  if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "'$2' needs an argument" "$tmp/err"; then
    ok "$name $2 (no argument): exit 2, '$(cat "$tmp/err")'"
  else
    bad "$name $2 (no argument): exit $rc, stderr '$(cat "$tmp/err")'"
  fi
done
# zvm-monitor-record: a page it cannot trust is a one-line error naming the
# page's line, exit 2 and no block; a good page a block and its summary.
rec=$abs_top_builddir/tools/zvm-monitor-record
pages=${abs_top_srcdir:-$abs_top_builddir}/tests/data/recpages
if [ -x "$rec" ] && [ -r "$pages/useite-v6r2.txt" ]; then
  sed 's/^ 116  74 / 116  75 /' "$pages/useite-v6r2.txt" >"$tmp/bad.txt"
  line=$(grep -n '^ 116  75 ' "$tmp/bad.txt" | cut -d: -f1)
  run "$rec" "$tmp/bad.txt"
  if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -q "^zvm-monitor-record: $tmp/bad.txt:$line: a row's offsets disagree" "$tmp/err"; then
    ok "zvm-monitor-record on a page that contradicts itself: exit 2, '$(cat "$tmp/err")'"
  else
    bad "zvm-monitor-record on a bad page: exit $rc, stdout $(wc -c <"$tmp/out") bytes, stderr '$(cat "$tmp/err")'"
  fi
  run "$rec" -P "$pages/useite-v6r2.txt" "$pages/prcsmt-v6r4.txt"
  if [ $rc -eq 0 ] && grep -q '^<Record "4/10">$' "$tmp/out" && grep -q '^<Record "5/21">$' "$tmp/out" &&
    head -n 1 "$tmp/out" | grep -q '^<Plugin zvm_monitor>$' &&
    grep -q 'D4R10 MRUSEITE (z/VM V6R2.0, 200 bytes)' "$tmp/err"; then
    ok "zvm-monitor-record on two pages: two blocks in <Plugin zvm_monitor>, exit 0"
  else
    bad "zvm-monitor-record on two good pages: exit $rc, stderr '$(head -n 2 "$tmp/err")'"
  fi
  run "$rec" "$pages/useite-v6r2.txt" "$pages/useite-v6r2-run.html"
  if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "D4R10 again" "$tmp/err"; then
    ok "zvm-monitor-record on two pages of one record: exit 2"
  else
    bad "zvm-monitor-record on two pages of one record: exit $rc, stderr '$(cat "$tmp/err")'"
  fi
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
