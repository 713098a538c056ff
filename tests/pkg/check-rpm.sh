#!/bin/sh
# SPDX-License-Identifier: MIT
# check-rpm.sh BUILD_DIR [OUT_DIR]: the binary RPM from the release tarball
# (rpmbuild -tb: the spec configure made from contrib/rpm/
# collectd-zvm-monitor.spec.in travels in the tarball; Debian's rpmbuild; the
# build dependencies are Debian packages here, hence --nodeps), its
# requirements pinned to the collectd release of the headers used, and its
# file list equal to the .deb's (OUT_DIR/deb.files, from check-deb.sh) once
# each distribution's conventions are mapped: plugin directory
# /usr/lib/collectd vs %{_libdir}/collectd, drop-in directory
# /etc/collectd/collectd.conf.d vs /etc/collectd.d, compressed man pages and
# Debian's changelog/copyright in the doc directory. Then the RPM's payload,
# unpacked into a directory, runs in the stock collectd through its own
# drop-in.
set -eu

build=$(cd "$1" && pwd)
out=$(cd "${2:-$build/pkg}" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -s "$out/deb.files" ] || { echo "FAIL: no $out/deb.files (run check-deb.sh first)"; exit 1; }

make -s -C "$build" dist >"$out/dist.log" 2>&1 || {
  cat "$out/dist.log"
  echo "FAIL: make dist"
  exit 1
}
rm -rf "$out/rpm"
mkdir -p "$out/rpm/SOURCES"
cp "$build"/zvm_monitor-*.tar.gz "$out/rpm/SOURCES/"
version=$(dpkg-query -W -f='${source:Upstream-Version}' collectd-dev)
nice rpmbuild --nodeps --define "_topdir $out/rpm" \
  --define "collectd_version $version" --define 'debug_package %{nil}' \
  -tb "$out"/rpm/SOURCES/zvm_monitor-*.tar.gz >"$out/rpm/build.log" 2>&1 || {
  tail -n 60 "$out/rpm/build.log"
  echo "FAIL: rpmbuild (log: $out/rpm/build.log)"
  exit 1
}
rpm=$(ls "$out"/rpm/RPMS/*/collectd-zvm-monitor-*.rpm)
echo "built $(basename "$rpm")"
libdir=$(rpm --eval '%{_libdir}')
rpm -qp --requires "$rpm" 2>/dev/null | grep '^collectd ' | sed 's/^/  Requires: /'
rpm -qp --requires "$rpm" 2>/dev/null | grep -qx "collectd >= $version" &&
  rpm -qp --requires "$rpm" 2>/dev/null | grep -qx 'collectd < [0-9.]*~' || {
  echo "FAIL: the RPM does not pin collectd $version"
  exit 1
}
if rpm -qp --provides "$rpm" 2>/dev/null | grep -q 'zvm_monitor\.so'; then
  echo "FAIL: the RPM provides the plugin as a library"
  exit 1
fi

# Files (directories and rpm's .build-id links left out), mapped to the
# .deb's conventions.
rpm -qlp --dump "$rpm" 2>/dev/null | awk '$5 !~ /^04/ { print $1 }' |
  grep -v '^/usr/lib/\.build-id/' | sort >"$out/rpm.files"
sed -e "s|^$libdir/collectd/|/usr/lib/collectd/|" \
  -e 's|^/etc/collectd\.d/|/etc/collectd/collectd.conf.d/|' \
  -e 's|^\(/usr/share/man/.*\)\.gz$|\1|' "$out/rpm.files" | sort >"$out/rpm.mapped"
sed -e 's|^\(/usr/share/man/.*\)\.gz$|\1|' -e 's|^\(/usr/share/doc/.*\.md\)\.gz$|\1|' \
  -e 's|^\(/usr/share/doc/[^/]*/NEWS\)\.gz$|\1|' \
  -e '\|^/usr/share/doc/[^/]*/changelog\.gz$|d' -e '\|^/usr/share/doc/[^/]*/copyright$|d' \
  "$out/deb.files" | sort >"$out/deb.mapped"
# The licence: Debian's copyright file, the RPM's %license file (in
# %{_defaultlicensedir}/NAME, or NAME-VERSION for older rpm builds such as
# Debian's).
grep -Eqx '/usr/share/licenses/collectd-zvm-monitor(-[0-9.]+)?/LICENSE' "$out/rpm.files" || {
  echo "FAIL: the RPM does not carry the licence (%license LICENSE)"
  exit 1
}
sed -i -E '\|^/usr/share/licenses/collectd-zvm-monitor(-[0-9.]+)?/LICENSE$|d' "$out/rpm.mapped"
[ "$(rpm -qp --qf '%{LICENSE} %{VERSION}' "$rpm" 2>/dev/null)" = "MIT $(sed -n 's/^PACKAGE_VERSION = //p' "$build/Makefile")" ] || {
  echo "FAIL: the RPM's licence and version are not MIT and configure.ac's"
  exit 1
}
diff -u "$out/deb.mapped" "$out/rpm.mapped" || {
  echo "FAIL: the RPM and the .deb hold different files (- deb, + rpm)"
  exit 1
}
echo "ok - the RPM holds the .deb's files ($(wc -l <"$out/rpm.files") files):"
sed 's/^/  /' "$out/rpm.files"
so=$(rpm -qlp --dump "$rpm" 2>/dev/null | awk -v f="$libdir/collectd/zvm_monitor.so" '$1 == f { print $5 }')
case $so in 010*) ;; *) echo "FAIL: $libdir/collectd/zvm_monitor.so is not a regular file (mode $so)"; exit 1 ;; esac
echo "ok - $libdir/collectd/zvm_monitor.so is a regular file; /etc/collectd.d/zvm_monitor.conf is %config(noreplace)"
rpm -qlp "$rpm" 2>/dev/null | grep -qx "$libdir/collectd/hypfs.so" || { echo "FAIL: hypfs.so not in the RPM"; exit 1; }

rm -rf "$out/rpm/root"
mkdir -p "$out/rpm/root"
(cd "$out/rpm/root" && rpm2cpio "$rpm" | cpio -idm --quiet) || { echo "FAIL: rpm2cpio $rpm"; exit 1; }
sh "$(dirname "$0")/run-installed.sh" "$out/rpm/root$libdir/collectd" "$build" "$out/rpm/root/etc/collectd.d"
