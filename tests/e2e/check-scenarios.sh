#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The end-to-end scenarios are files, one each, tests/e2e/scenarios/NAME.sh,
# that tests/e2e/run.sh collects from the folder. Each must:
#   - be listed in tests/local.am (EXTRA_DIST: automake takes no wildcard,
#     and a file missing there is missing from the release tarball), and
#     every scenario file listed there must exist;
#   - define sc_NAME (its own name) and no other sc_ function, under a
#     comment that says what it proves;
#   - declare only what the runner knows: "# e2e: alone", "# e2e: packages
#     PKG..." with each PKG in ZVM_PACKAGES_E2E (tests/lib.sh), which the
#     stages install.
#
#   tests/e2e/check-scenarios.sh [SRCDIR]   (default: abs_top_srcdir, or ../..)
# Before it checks SRCDIR it checks itself on a copy with one mistake of
# each kind, which must all be reported.
set -u
src=${1:-${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}}

# check DIR: one line per mistake; fails if there is one.
check() {
  ck_dir=$1/tests/e2e/scenarios
  ck_am=$1/tests/local.am
  ck_pkgs=" $(sed -n 's/^ZVM_PACKAGES_E2E="\(.*\)"$/\1/p' "$1/tests/lib.sh") "
  ck_bad=0
  [ -d "$ck_dir" ] || { echo "$ck_dir: no such folder"; return 1; }
  for ck_f in "$ck_dir"/*.sh; do
    ck_n=$(basename "$ck_f" .sh)
    ck_rel=tests/e2e/scenarios/$ck_n.sh
    grep -q -E "^[[:space:]]*(EXTRA_DIST \+= )?$ck_rel( \\\\)?\$" "$ck_am" ||
      { echo "$ck_rel: not in EXTRA_DIST (tests/local.am)"; ck_bad=1; }
    [ "$(grep -c -E '^sc_[a-z0-9_]+\(\) \{' "$ck_f")" -eq 1 ] &&
      grep -q -E "^sc_$ck_n\(\) \{" "$ck_f" ||
      { echo "$ck_rel: must define sc_$ck_n and no other scenario"; ck_bad=1; }
    grep -v -E '^# (SPDX-License-Identifier|shellcheck|e2e):' "$ck_f" | head -n 1 | grep -q '^# ' ||
      { echo "$ck_rel: no comment saying what it proves before its code"; ck_bad=1; }
    ck_decl=$(sed -n 's/^# e2e: *//p' "$ck_f")
    ck_unknown=$(printf '%s\n' "$ck_decl" | grep -v -E '^(|alone|packages( [a-z0-9.+:-]+)+)$')
    [ -z "$ck_unknown" ] ||
      { echo "$ck_rel: unknown declaration \"# e2e: $ck_unknown\" (alone, packages PKG...)"; ck_bad=1; }
    for ck_p in $(printf '%s\n' "$ck_decl" | sed -n 's/^packages //p'); do
      case $ck_pkgs in
      *" $ck_p "*) ;;
      *) echo "$ck_rel: package $ck_p is not in ZVM_PACKAGES_E2E (tests/lib.sh)"; ck_bad=1 ;;
      esac
    done
  done
  for ck_rel in $(grep -o -E 'tests/e2e/scenarios/[^ ]*\.sh' "$ck_am"); do
    [ -f "$1/$ck_rel" ] || { echo "$ck_rel: in tests/local.am, but no such file"; ck_bad=1; }
  done
  return $ck_bad
}

# The check itself: a copy with one mistake of each kind.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-scenarios.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests/e2e/scenarios"
cp "$src/tests/lib.sh" "$tmp/tests/lib.sh"
cat >"$tmp/tests/local.am" <<'AM'
EXTRA_DIST += \
	tests/e2e/scenarios/good.sh \
	tests/e2e/scenarios/twice.sh \
	tests/e2e/scenarios/silent.sh \
	tests/e2e/scenarios/odd.sh \
	tests/e2e/scenarios/gone.sh
AM
printf '# SPDX-License-Identifier: MIT\n# e2e: alone\n# e2e: packages curl\n# Proves.\nsc_good() {\n  :\n}\n' \
  >"$tmp/tests/e2e/scenarios/good.sh"
printf '# SPDX-License-Identifier: MIT\n# Proves.\nsc_unlisted() {\n  :\n}\n' \
  >"$tmp/tests/e2e/scenarios/unlisted.sh"
printf '# SPDX-License-Identifier: MIT\n# Proves.\nsc_twice() {\n  :\n}\nsc_other() {\n  :\n}\n' \
  >"$tmp/tests/e2e/scenarios/twice.sh"
printf '# SPDX-License-Identifier: MIT\nsc_silent() {\n  :\n}\n' \
  >"$tmp/tests/e2e/scenarios/silent.sh"
printf '# SPDX-License-Identifier: MIT\n# e2e: s390x\n# e2e: packages no-such-package\n# Proves.\nsc_odd() {\n  :\n}\n' \
  >"$tmp/tests/e2e/scenarios/odd.sh"
check "$tmp" >"$tmp/out"
[ $? -ne 0 ] || { echo "FAIL: the check passed a folder with mistakes"; exit 1; }
st=0
for want in "unlisted.sh: not in EXTRA_DIST" "twice.sh: must define sc_twice and no other" \
  "silent.sh: no comment saying what it proves" 'odd.sh: unknown declaration "# e2e: s390x"' \
  "odd.sh: package no-such-package is not in ZVM_PACKAGES_E2E" "gone.sh: in tests/local.am, but no such file"; do
  grep -q -F "$want" "$tmp/out" || { echo "FAIL: the check did not report: $want"; st=1; }
done
! grep -q "good.sh" "$tmp/out" || { echo "FAIL: the check reported a good file: $(grep good.sh "$tmp/out")"; st=1; }
[ $st -eq 0 ] || { sed 's/^/    /' "$tmp/out"; exit 1; }
echo "ok - the check reports each kind of mistake"

if check "$src"; then
  echo "ok - $(ls "$src"/tests/e2e/scenarios/*.sh | wc -l) scenario files, each listed, one scenario each, declarations known"
else
  echo "FAIL: fix the scenario files above (tests/e2e/run.sh says what a scenario file holds)"
  exit 1
fi
