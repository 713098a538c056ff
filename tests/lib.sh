# Shared helpers for tests/run and contrib/demo (POSIX sh).

# Packages the build and unit tests need on Debian.
ZVM_PACKAGES_BUILD="build-essential autoconf automake libtool pkg-config collectd-core collectd-dev libcmocka-dev perl"
# End-to-end suite (tests/e2e): real carbon-cache and InfluxDB 1.x back
# ends, their clients, and Python 3 for the oracle.
ZVM_PACKAGES_E2E="graphite-carbon python3-whisper influxdb influxdb-client curl python3"

step() { printf '\n==> %s\n' "$*"; }
die() {
  printf 'FAILED: %s\n' "$*" >&2
  exit 1
}

# Install the named Debian packages that are missing (apt-get update first).
zvm_install_packages() {
  missing=
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
      missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  step "installing:$missing"
  sudo=
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "run as root (or install sudo) so apt-get can install:$missing"
    sudo=sudo
  fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # shellcheck disable=SC2086
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# Print the output (cmocka summaries) of every test log below a directory.
zvm_show_test_logs() {
  for log in $(find "$1" -name '*.log' ! -name test-suite.log | sort); do
    printf -- '--- %s\n' "${log#./}"
    cat "$log"
  done
}
