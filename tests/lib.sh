# Shared helpers for tests/run and contrib/demo (POSIX sh).

# Packages the build and unit tests need on Debian.
ZVM_PACKAGES_BUILD="build-essential autoconf automake libtool pkg-config collectd-core collectd-dev libcmocka-dev perl"
# Hardening stages: libFuzzer (clang-14 and its runtime), valgrind.
ZVM_PACKAGES_HARDEN="clang-14 libclang-rt-14-dev valgrind"
# Big-endian stage: s390x cross compiler, qemu-user, and s390x cmocka (from
# Debian's s390x archive: needs 'zvm_add_architecture s390x' first).
ZVM_PACKAGES_S390X="gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user libcmocka-dev:s390x"
# End-to-end suite (tests/e2e): real carbon-cache and InfluxDB 1.x back
# ends, their clients, and Python 3 for the oracle.
ZVM_PACKAGES_E2E="graphite-carbon python3-whisper influxdb influxdb-client curl python3"

# Packaging stage: Debian package build and checks, man, rpmbuild.
ZVM_PACKAGES_PKG="debhelper dh-autoreconf lintian dpkg-dev man-db bsdextrautils rpm rpm2cpio cpio binutils"

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
