# Shared helpers for tests/run and contrib/demo (POSIX sh).

# Packages the build and unit tests need on Debian.
ZVM_PACKAGES_BUILD="build-essential autoconf automake libtool pkg-config collectd-core collectd-dev libcmocka-dev perl"
# Hardening stages: libFuzzer (clang-14 and its runtime), valgrind;
# libdevmapper-dev for the dmstats_print fuzz target's header.
ZVM_PACKAGES_HARDEN="clang-14 libclang-rt-14-dev valgrind libdevmapper-dev"
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
ZVM_PACKAGES_DASH="graphite-web graphite-carbon python3-whisper influxdb influxdb-client prometheus libmicrohttpd12 libprotobuf-c1 curl rrdtool python3"

# The demo: its pictures (collectd's rrdtool plugin, librrd8, and rrdtool
# graph) and its summary and drawing scripts (python3).
ZVM_PACKAGES_DEMO="rrdtool librrd8 python3"

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

# zvm_devmapper_sysroot DIR ARCH: Debian's libdevmapper-dev for ARCH
# unpacked into DIR (apt-get download, dpkg-deb -x), to cross-build
# dmstats.so: Debian 12 cannot install it next to the build machine's (its
# dmsetup is not Multi-Arch). With it, the closure of its Depends and
# Pre-Depends (apt-cache depends: the first of alternatives, the first
# provider of a virtual package): the libraries the link and qemu-user load
# (libdevmapper, libselinux, libudev, libpcre2) and the -dev packages whose
# pkg-config files devmapper.pc requires. The closure stops at glibc's and
# gcc's packages, which the cross toolchain brings. Each library package is
# also unpacked with its control files (dpkg-deb -R) into DIR/packages/NAME,
# where dpkg-shlibdeps -S finds its symbols file (debian/rules, profile
# pkg.collectd-zvm-monitor.devmapper-sysroot). Absolute symbolic links
# (usr/lib/TRIPLET/libdevmapper.so -> /lib/...) are made relative, so that
# they stay inside DIR. Prints the packages.
zvm_devmapper_sysroot() {
  _zvm_root=$1
  _zvm_arch=$2
  mkdir -p "$_zvm_root/debs-devmapper"
  _zvm_deps=$_zvm_root/debs-devmapper/depends.txt
  # the package lists are updated once if they lack ARCH
  apt-cache show "libdevmapper-dev:$_zvm_arch" >/dev/null 2>&1 ||
    zvm_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances "libdevmapper-dev:$_zvm_arch" >"$_zvm_deps" ||
    die "apt-cache depends libdevmapper-dev:$_zvm_arch failed (dpkg --add-architecture $_zvm_arch; apt-get update)"
  # shellcheck disable=SC2046
  apt-cache show --no-all-versions $(grep -v '^ ' "$_zvm_deps" | grep ":$_zvm_arch\$") \
    >"$_zvm_root/debs-devmapper/show.txt" 2>/dev/null || true
  # "Package: p" "Source: s (v)" paragraphs, then the depends output:
  # "pkg", "  Depends: p", " |Depends: p" (an alternative follows: skipped),
  # "  Depends: <virtual>" followed by its providers, indented further.
  _zvm_pkgs=$(awk -v arch="$_zvm_arch" -v root="libdevmapper-dev:$_zvm_arch" '
    function key(p) { return p ~ /:/ ? p : p ":" arch }
    FNR == NR {
      if (/^Package: /) { pkg = key($2); src[pkg] = $2 }
      if (/^Source: /) src[pkg] = $2
      next
    }
    /^[^ ]/ { cur = key($1); skip = 0; virtual = 0; next }
    /^ [ |](Pre)?Depends: / {
      alt = ($1 ~ /^\|/)
      if (skip) { skip = alt; next }
      skip = alt
      virtual = ($2 ~ /^</)
      if (!virtual) deps[cur] = deps[cur] " " key($2)
      next
    }
    /^    / { if (virtual) deps[cur] = deps[cur] " " key($1); virtual = 0 }
    END {
      queue[n = 1] = root
      for (i = 1; i <= n; i++) {
        p = queue[i]
        if (p in done) continue
        done[p] = 1
        if (!(p in src)) { print "?" p; continue }
        if (src[p] == "glibc" || src[p] ~ /^gcc-[0-9]+$/) continue
        print p
        m = split(deps[p], d, " ")
        for (j = 1; j <= m; j++) queue[++n] = d[j]
      }
    }' "$_zvm_root/debs-devmapper/show.txt" "$_zvm_deps")
  case $_zvm_pkgs in *'?'*) die "apt-cache show knows none of:$(echo "$_zvm_pkgs" | sed -n 's/^?/ /p' | tr -d '\n')" ;; esac
  # shellcheck disable=SC2086
  (cd "$_zvm_root/debs-devmapper" && apt-get download $_zvm_pkgs) >"$_zvm_root/download-devmapper.log" 2>&1 || {
    cat "$_zvm_root/download-devmapper.log"
    die "cannot download" $_zvm_pkgs
  }
  for _zvm_deb in "$_zvm_root"/debs-devmapper/*.deb; do
    dpkg-deb -x "$_zvm_deb" "$_zvm_root" || die "cannot unpack $_zvm_deb"
    # a library package: also with its control files, for dpkg-shlibdeps -S
    if dpkg-deb -I "$_zvm_deb" symbols >/dev/null 2>&1 || dpkg-deb -I "$_zvm_deb" shlibs >/dev/null 2>&1; then
      mkdir -p "$_zvm_root/packages"
      dpkg-deb -R "$_zvm_deb" "$_zvm_root/packages/$(dpkg-deb -f "$_zvm_deb" Package)" ||
        die "cannot unpack $_zvm_deb"
    fi
  done
  find "$_zvm_root" -type l | while read -r _zvm_link; do
    _zvm_to=$(readlink "$_zvm_link")
    case $_zvm_to in /*) ;; *) continue ;; esac
    _zvm_up=$(dirname "${_zvm_link#"$_zvm_root"/}" | sed 's|[^/][^/]*|..|g')
    ln -sfn "$_zvm_up$_zvm_to" "$_zvm_link"
  done
  # shellcheck disable=SC2086
  echo $_zvm_pkgs
}
