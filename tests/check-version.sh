#!/bin/sh
# SPDX-License-Identifier: MIT
# The release's version is configure.ac's (AC_INIT); everything that states
# it again agrees: debian/changelog's newest entry, NEWS's newest release,
# the RPM spec configure made, README.md's install example, and RELEASING.md's checklist names the
# places to change.
set -u
: "${abs_top_builddir:?}" "${abs_top_srcdir:?}"
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$abs_top_builddir/Makefile")
failed=0
check() { # WHAT VALUE
  if [ "$2" = "$version" ]; then
    echo "ok - $1: $2"
  else
    echo "FAIL: $1 says '$2', configure.ac '$version'"
    failed=1
  fi
}
[ -n "$version" ] || { echo "FAIL: no PACKAGE_VERSION"; exit 1; }
check "debian/changelog" "$(sed -n '1s/^collectd-zvm-monitor (\([^)-]*\)\(-[^)]*\)\{0,1\}).*/\1/p' "$abs_top_srcdir/debian/changelog")"
check "NEWS" "$(sed -n 's/^\* \([0-9][0-9.]*\) (.*/\1/p' "$abs_top_srcdir/NEWS" | head -n 1)"
check "RPM spec" "$(sed -n 's/^Version: *//p' "$abs_top_builddir/contrib/rpm/collectd-zvm-monitor.spec")"
check "RPM %changelog" "$(sed -n '/^%changelog/{n;s/.* - \([0-9.]*\)-[0-9]*$/\1/p;}' "$abs_top_srcdir/contrib/rpm/collectd-zvm-monitor.spec.in")"
# The README's install example names the tarball and the package.
for v in $(sed -n 's/.*zvm_monitor-\([0-9][0-9.]*[0-9]\)\.tar\.gz.*/\1/p; s/.*collectd-zvm-monitor_\([0-9][0-9.]*[0-9]\)_.*/\1/p' "$abs_top_srcdir/README.md"); do
  check "README.md's install example" "$v"
done
[ $failed -eq 0 ] && echo "PASS: one version, $version" || echo "FAIL: versions disagree"
exit $failed
