# Shared helpers for tests/run and contrib/demo (POSIX sh).

# Packages the build and unit tests need on Debian.
ZVM_PACKAGES_BUILD="build-essential autoconf automake libtool pkg-config collectd-core collectd-dev libcmocka-dev perl licensecheck"
# Hardening stages: libFuzzer (clang-14 and its runtime), valgrind.
ZVM_PACKAGES_HARDEN="clang-14 libclang-rt-14-dev valgrind"
# Big-endian stage: s390x cross compiler, qemu-user, and s390x cmocka (from
# Debian's s390x archive: needs 'zvm_add_architecture s390x' first).
ZVM_PACKAGES_S390X="gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user libcmocka-dev:s390x"
# ... and what Debian's s390x collectd daemon (unpacked by
# zvm_collectd_sysroot) needs to run under qemu-s390x: its C library,
# libcap, and libgcrypt for the network plugin.
ZVM_PACKAGES_S390X="$ZVM_PACKAGES_S390X libc6:s390x libcap2:s390x libgcrypt20:s390x"
# End-to-end suite (tests/e2e): real carbon-cache and InfluxDB 1.x back
# ends, their clients, and Python 3 for the oracle.
# dmstats plugin and its VM stage (tests/dmstats/vm-run.sh): libdevmapper
# to build it; qemu (TCG), busybox and dmsetup to run a real kernel with
# device-mapper, whose package apt-get downloads in the stage itself.
ZVM_PACKAGES_DMSTATS="libdevmapper-dev dmsetup qemu-system-x86 busybox-static xz-utils"
ZVM_PACKAGES_E2E="graphite-carbon python3-whisper influxdb influxdb-client curl python3"

# Packaging stage: Debian package build and checks, man, rpmbuild.
ZVM_PACKAGES_PKG="debhelper dh-autoreconf lintian dpkg-dev man-db bsdextrautils rpm rpm2cpio cpio binutils libdevmapper-dev"

# Dashboard and Prometheus stages: graphite-web's render API, a Prometheus
# server, and what collectd's write_prometheus plugin links with.
ZVM_PACKAGES_DASH="graphite-web graphite-carbon python3-whisper influxdb influxdb-client prometheus libmicrohttpd12 libprotobuf-c1 curl rrdtool"

# The demo's picture: collectd's rrdtool plugin (librrd8) and rrdtool graph.
ZVM_PACKAGES_DEMO="rrdtool librrd8"

step() { printf '\n==> %s\n' "$*"; }
die() {
  printf 'FAILED: %s\n' "$*" >&2
  exit 1
}

# Run a command as root (directly, or through sudo).
zvm_as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  else
    command -v sudo >/dev/null 2>&1 || die "run as root (or install sudo) to run: $*"
    sudo "$@"
  fi
}

# Install the named Debian packages that are missing (apt-get update first).
# Names may carry an architecture (libcmocka-dev:s390x).
zvm_install_packages() {
  missing=
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
      missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  step "installing:$missing"
  zvm_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # shellcheck disable=SC2086
  zvm_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# Let dpkg install packages of a foreign architecture (s390x). The next
# zvm_install_packages that installs such a package runs apt-get update.
zvm_add_architecture() {
  dpkg --print-foreign-architectures | grep -qx "$1" && return 0
  step "adding dpkg architecture $1"
  zvm_as_root dpkg --add-architecture "$1"
}

# Print the output (cmocka summaries) of every test log below a directory.
zvm_show_test_logs() {
  for log in $(find "$1" -name '*.log' ! -name test-suite.log | sort); do
    printf -- '--- %s\n' "${log#./}"
    cat "$log"
  done
}

# zvm_collectd_sysroot DIR ARCH: Debian's collectd daemon and stock plugins
# for ARCH (collectd-core:ARCH) and the plugin headers (collectd-dev, the
# same for every architecture) unpacked into DIR: DIR/usr/sbin/collectd,
# DIR/usr/lib/collectd/*.so, DIR/usr/include/collectd. apt-get download
# needs no root; the package lists are updated once if they lack ARCH.
zvm_collectd_sysroot() {
  [ -x "$1/usr/sbin/collectd" ] && [ -f "$1/usr/include/collectd/core/daemon/plugin.h" ] && return 0
  rm -rf "$1"
  mkdir -p "$1/debs"
  _zvm_dl() { (cd "$1/debs" && apt-get download "collectd-core:$2" collectd-dev) >"$1/download.log" 2>&1; }
  if ! _zvm_dl "$1" "$2"; then
    zvm_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    _zvm_dl "$1" "$2" || {
      cat "$1/download.log"
      die "cannot download collectd-core:$2 (dpkg --add-architecture $2; apt-get update)"
    }
  fi
  for _zvm_deb in "$1"/debs/*.deb; do
    dpkg-deb -x "$_zvm_deb" "$1" || die "cannot unpack $_zvm_deb"
  done
  [ -x "$1/usr/sbin/collectd" ] || die "no usr/sbin/collectd in $1"
}
