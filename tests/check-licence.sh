#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Every source, script, build and test file is under the MIT licence: it
# names it with an SPDX line ("SPDX-License-Identifier: MIT") in its first
# five lines, and Debian's licensecheck, where installed, reads MIT from
# it. LICENSE holds the MIT text, debian/copyright says MIT. The files are
# git's (a checkout) or, in a release tarball or where git is not
# installed, every file but those that autotools generate, build trees and
# .git.
#
#   tests/check-licence.sh [SRCDIR]   (default: abs_top_srcdir, or ..)
# Before it checks SRCDIR it checks itself on a tree with one file lacking
# the line, which must be reported.
set -u
src=${1:-${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}}

# source_files DIR: the files that need the line, one per line, relative.
source_files() {
  if git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
    [ "$(git -C "$1" rev-parse --show-toplevel)" = "$(cd "$1" && pwd -P)" ]; then
    git -C "$1" ls-files
  else
    # Not git's: a release tarball, or a checkout where git is not
    # installed. Build trees (a config.status in them, distcheck's _build
    # and _inst) and .git are not sources.
    (cd "$1" && find . -mindepth 1 \( -name .git -o -name autom4te.cache -o -name _build -o -name _inst -o \
      \( -type d -exec test -e '{}/config.status' \; \) \) -prune -o -type f -print |
      sed 's|^\./||') |
      grep -v -E '^(configure|aclocal\.m4|zvm_config\.h\.in|build-aux/.*|m4/(libtool|lt.*)\.m4|.*Makefile\.in|contrib/rpm/collectd-zvm-monitor\.spec)$'
  fi | while IFS= read -r f; do
    case $f in
    *.c | *.h | *.am | *.ac | *.sh | *.py | *.mk | *.in | *.m4 | Makefile*) echo "$f" ;;
    *) [ -f "$1/$f" ] && [ "$(head -c 2 "$1/$f")" = '#!' ] && echo "$f" ;;
    esac
  done
}

# check DIR: prints each file without the line; fails if there is one.
check() {
  status=0
  n=0
  for f in $(source_files "$1"); do
    n=$((n + 1))
    head -n 5 "$1/$f" | grep -q 'SPDX-License-Identifier: MIT\b' || {
      echo "no SPDX-License-Identifier: MIT line: $f"
      status=1
    }
  done
  [ "$n" -gt 0 ] || { echo "no source files found in $1"; return 1; }
  echo "$n files"
  return $status
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-licence.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=0
mkdir -p "$tmp/tree/tools"
printf '/* SPDX-License-Identifier: MIT */\nint a;\n' >"$tmp/tree/a.c"
printf '#!/bin/sh\n# no licence line\n' >"$tmp/tree/tools/script"
if ! check "$tmp/tree" >"$tmp/self.out" &&
  [ "$(grep '^no SPDX' "$tmp/self.out")" = 'no SPDX-License-Identifier: MIT line: tools/script' ]; then
  echo "ok - the check finds a file without an SPDX line (and only that one)"
else
  echo "FAIL: the check does not single out a script without its SPDX line: $(cat "$tmp/self.out")"
  failed=1
fi

if check "$src" >"$tmp/out"; then
  echo "ok - every source file names MIT: $(tail -n 1 "$tmp/out")"
else
  grep -v ' files$' "$tmp/out" | sed 's/^/FAIL: /'
  failed=1
fi

if command -v licensecheck >/dev/null 2>&1; then
  (cd "$src" && source_files . | tr '\n' '\0' | xargs -0 licensecheck --check "." --lines 5) >"$tmp/lc"
  if grep -v ': .*MIT License$' "$tmp/lc" | grep -q .; then
    grep -v ': .*MIT License$' "$tmp/lc" | sed 's/^/FAIL: licensecheck: /'
    failed=1
  else
    echo "ok - licensecheck: MIT License in all $(wc -l <"$tmp/lc") files"
    [ "$(wc -l <"$tmp/lc")" -eq "$(source_files "$src" | wc -l)" ] ||
      { echo "FAIL: licensecheck read $(wc -l <"$tmp/lc") files, not $(source_files "$src" | wc -l)"; failed=1; }
  fi
elif [ -n "${CI:-}" ]; then
  echo "FAIL: licensecheck not installed (apt-get install licensecheck)"
  failed=1
else
  echo "WARNING: licensecheck not installed (apt-get install licensecheck): only the SPDX lines were checked"
fi

grep -q '^MIT License$' "$src/LICENSE" && grep -q 'Permission is hereby granted, free of charge' "$src/LICENSE" ||
  { echo "FAIL: LICENSE is not the MIT licence"; failed=1; }
grep -q '^License: MIT$' "$src/debian/copyright" ||
  { echo "FAIL: debian/copyright does not say MIT"; failed=1; }
[ $failed -eq 0 ] && echo "PASS: licence" || echo "FAIL: licence"
exit $failed
