#!/bin/sh
# SPDX-License-Identifier: MIT
# check-deb.sh BUILD_DIR [OUT_DIR]: the Debian package from the release
# tarball, as a packager builds it ('make dist', then
# 'dpkg-buildpackage -us -uc -b' in the unpacked tree), checked by lintian
# (no errors), installed with dpkg, 'man collectd-zvm_monitor' readable,
# and the stock collectd running the installed plugin through the package's
# drop-in on the emulated device. The package is purged again at the end
# (unless it was installed before). The .deb and its file list are left in
# OUT_DIR (default BUILD_DIR/pkg) for check-rpm.sh to compare with.
set -eu

build=$(cd "$1" && pwd)
out=${2:-$build/pkg}
here=$(cd "$(dirname "$0")" && pwd)
pkg=collectd-zvm-monitor

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/deb"
mkdir -p "$out/deb"

make -s -C "$build" dist >"$out/dist.log" 2>&1 || {
  cat "$out/dist.log"
  echo "FAIL: make dist"
  exit 1
}
tarball=$(ls "$build"/zvm_monitor-*.tar.gz)
tar -C "$out/deb" -xzf "$tarball"
src=$(ls -d "$out"/deb/zvm_monitor-*)

# The suite has run 'make check' already: build without it.
echo "dpkg-buildpackage -us -uc -b in $src"
(cd "$src" && DEB_BUILD_OPTIONS=nocheck DEB_BUILD_PROFILES=nocheck \
  nice dpkg-buildpackage -us -uc -b) >"$out/deb/build.log" 2>&1 || {
  tail -n 60 "$out/deb/build.log"
  echo "FAIL: dpkg-buildpackage (log: $out/deb/build.log)"
  exit 1
}
deb=$(ls "$out"/deb/${pkg}_*_"$(dpkg --print-architecture)".deb)
echo "built $(basename "$deb")"
dpkg-deb -f "$deb" Package Version Architecture Depends | sed 's/^/  /'
dpkg-deb -f "$deb" Depends | grep -Eq 'collectd-core \(>= [0-9.]+\), collectd-core \(<< [0-9.]+~\)' || {
  echo "FAIL: Depends does not pin the collectd release the plugin was built for"
  exit 1
}

# lintian: errors fail, the rest is shown.
lintian --fail-on error --tag-display-limit 0 "$deb" >"$out/deb/lintian.log" 2>&1 || {
  cat "$out/deb/lintian.log"
  echo "FAIL: lintian reports errors"
  exit 1
}
echo "ok - lintian: no errors ($(grep -c '^W:' "$out/deb/lintian.log" || true) warnings)"
sed 's/^/  /' "$out/deb/lintian.log"

# The files, directories left out (they belong to the file systems layout).
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $NF }' | sed 's|^\./|/|' | sort >"$out/deb.files"
for f in /usr/lib/collectd/zvm_monitor.so /etc/collectd/collectd.conf.d/zvm_monitor.conf \
  /usr/share/man/man5/collectd-zvm_monitor.5.gz /usr/share/zvm_monitor/zvm_monitor.types.db \
  /usr/lib/collectd/dmstats.so /usr/share/man/man5/collectd-dmstats.5.gz \
  /usr/lib/collectd/hypfs.so /usr/share/man/man5/collectd-hypfs.5.gz /usr/share/zvm_monitor/hypfs.types.db; do
  grep -qx "$f" "$out/deb.files" || {
    cat "$out/deb.files"
    echo "FAIL: $f is not in the package"
    exit 1
  }
done
echo "ok - the package holds the plugins, the drop-in, the man pages and the types.db:"
sed 's/^/  /' "$out/deb.files"

# The same tree cross-built for s390x, the architecture z/VM guests run
# (installed and run under qemu by the s390x stage's tools, not here), with
# dmstats.so: Debian 12 cannot install libdevmapper-dev:s390x next to the
# build machine's, so it is unpacked into a sysroot (tests/lib.sh) that the
# build profile pkg.collectd-zvm-monitor.devmapper-sysroot points at.
if command -v s390x-linux-gnu-gcc >/dev/null 2>&1; then
  # shellcheck source=tests/lib.sh
  . "$here/../lib.sh"
  sysroot=$out/deb/sysroot-s390x
  echo "libdevmapper-dev:s390x unpacked into $sysroot: $(zvm_devmapper_sysroot "$sysroot" s390x)"
  (cd "$src" && DEB_BUILD_OPTIONS=nocheck DEVMAPPER_SYSROOT=$sysroot \
    DEB_BUILD_PROFILES="nocheck cross pkg.collectd-zvm-monitor.devmapper-sysroot" \
    nice dpkg-buildpackage -us -uc -b -as390x) >"$out/deb/build-s390x.log" 2>&1 || {
    tail -n 60 "$out/deb/build-s390x.log"
    echo "FAIL: dpkg-buildpackage -as390x (log: $out/deb/build-s390x.log)"
    exit 1
  }
  deb390=$(ls "$out"/deb/${pkg}_*_s390x.deb)
  lintian --fail-on error "$deb390" >"$out/deb/lintian-s390x.log" 2>&1 || {
    cat "$out/deb/lintian-s390x.log"
    echo "FAIL: lintian reports errors for $(basename "$deb390")"
    exit 1
  }
  dpkg-deb -c "$deb390" | awk '$1 !~ /^d/ { print $NF }' | sed 's|^\./|/|' | sort >"$out/deb-s390x.files"
  diff -u "$out/deb.files" "$out/deb-s390x.files" || {
    echo "FAIL: the s390x package's files differ from the $(dpkg --print-architecture) package's"
    exit 1
  }
  # the same dependencies (versions may differ by architecture)
  depends_names() { dpkg-deb -f "$1" Depends | tr ',|' '\n' | sed 's/(.*//;s/ //g' | sort -u; }
  depends_names "$deb" >"$out/deb.depends"
  depends_names "$deb390" >"$out/deb-s390x.depends"
  diff -u "$out/deb.depends" "$out/deb-s390x.depends" || {
    echo "FAIL: the s390x package depends on other packages than the $(dpkg --print-architecture) package"
    exit 1
  }
  grep -qx 'libdevmapper1.02.1' "$out/deb-s390x.depends" || {
    echo "FAIL: the s390x package does not depend on libdevmapper1.02.1 (dmstats.so)"
    exit 1
  }
  rm -rf "$out/deb/s390x"
  dpkg-deb -x "$deb390" "$out/deb/s390x"
  for so in zvm_monitor.so dmstats.so hypfs.so; do
    readelf -h "$out/deb/s390x/usr/lib/collectd/$so" | grep -E '^ *(Class|Data|Machine):' | sed "s|^ *|  $so: |"
    machine=$(readelf -h "$out/deb/s390x/usr/lib/collectd/$so" | sed -n 's/^ *Machine: *//p')
    [ "$machine" = "IBM S/390" ] || { echo "FAIL: s390x $so is for '$machine'"; exit 1; }
  done
  echo "ok - $(basename "$deb390"): lintian clean, the same $(wc -l <"$out/deb.files") files and dependencies as $(basename "$deb"), zvm_monitor.so, dmstats.so and hypfs.so for IBM S/390"
  dpkg-deb -f "$deb390" Depends | sed 's/^/  Depends: /'
else
  echo "SKIP: no s390x-linux-gnu-gcc, the s390x package is not built"
fi

# Install it here (as root, or through sudo).
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
installed_before=no
dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' && installed_before=yes
purge() { [ "$installed_before" = yes ] || as_root dpkg --purge "$pkg" >/dev/null 2>&1 || true; }
trap purge EXIT
as_root dpkg -i "$deb" >"$out/deb/install.log" 2>&1 || {
  cat "$out/deb/install.log"
  echo "FAIL: dpkg -i $deb"
  exit 1
}
echo "ok - dpkg -i $(basename "$deb")"
man -w collectd-zvm_monitor >/dev/null 2>&1 && man collectd-zvm_monitor 2>/dev/null | col -b | grep -q 'zvm_monitor' || {
  echo "FAIL: 'man collectd-zvm_monitor' does not show the page"
  exit 1
}
echo "ok - man collectd-zvm_monitor: $(man -w collectd-zvm_monitor)"
# The licence travels with the package: Debian's copyright file, MIT.
copyright=/usr/share/doc/$pkg/copyright
dpkg -L "$pkg" | grep -qx "$copyright" && grep -q '^License: MIT$' "$copyright" || {
  echo "FAIL: dpkg -L $pkg lists no $copyright saying 'License: MIT'"
  exit 1
}
echo "ok - dpkg -L $pkg lists the licence: $copyright (MIT)"
sh "$here/run-installed.sh" /usr/lib/collectd "$build" /etc/collectd/collectd.conf.d
