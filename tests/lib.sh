# SPDX-License-Identifier: MIT
# Shared helpers for tests/run, tests/run-s390x, tests/run-fresh and
# contrib/demo (POSIX sh), and the suite's rule for skipped tests (below).

# Debian packages, by the stage that first uses them. A stage installs its
# lists (zvm_install_packages) before it runs anything from them, so that a
# stage never depends on what an earlier run happened to leave installed.
# tests/run-fresh proves the lists on a minimal Debian 12 root.
#
# Build: configure, make, and the plugin headers and daemon it builds
# against (collectd-dev, collectd-core); also contrib/demo's build;
# licensecheck for tests/check-licence.sh.
ZVM_PACKAGES_BUILD="build-essential autoconf automake libtool pkg-config collectd-core collectd-dev libcmocka-dev perl licensecheck"
# make check, wherever it runs (unit tests, sanitizers, valgrind, s390x,
# distcheck): tests/e2e/check-compare.sh runs tests/e2e/compare.py, and
# tests/check-ci-skip.sh the end-to-end driver, which wants Python 3.
ZVM_PACKAGES_CHECK="python3"
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
# dmstats plugin and its VM stage (tests/dmstats/vm-run.sh): libdevmapper
# to build it; qemu (TCG), busybox and dmsetup to run a real kernel with
# device-mapper, whose package apt-get downloads in the stage itself.
ZVM_PACKAGES_DMSTATS="libdevmapper-dev dmsetup qemu-system-x86 busybox-static xz-utils"
# End-to-end suite (tests/e2e/run.sh; also the s390x stage's run, whose
# back ends are native): Python 3 for the oracle; carbon-cache and
# whisper-fetch (graphite scenario); influxd and curl (influxdb); a
# Prometheus server and what collectd's write_prometheus.so links with
# (prometheus); editcap and mergecap (capture_tool's Wireshark round trip).
ZVM_PACKAGES_E2E="python3 curl graphite-carbon python3-whisper influxdb influxdb-client prometheus libmicrohttpd12 libprotobuf-c1 wireshark-common"
# Dashboard stage (tests/dashboards/run.sh): graphite-web's render API on
# top of the end-to-end back ends.
ZVM_PACKAGES_DASH="$ZVM_PACKAGES_E2E graphite-web rrdtool"
# Packaging stage: Debian package build and checks, man, rpmbuild.
ZVM_PACKAGES_PKG="debhelper dh-autoreconf lintian dpkg-dev man-db bsdextrautils rpm rpm2cpio cpio binutils libdevmapper-dev"
# The demo: its pictures (collectd's rrdtool plugin, librrd8, and rrdtool
# graph) and its summary and drawing scripts (python3).
ZVM_PACKAGES_DEMO="rrdtool librrd8 python3"
# tests/run-fresh, on the machine that runs it: builds the Debian 12 root.
ZVM_PACKAGES_FRESH="mmdebstrap"

# ---------------------------------------------------------------------------
# Skipped tests. A test (a make check program or script, an end-to-end
# scenario, a stage) that skips says why on a line of its output, in one of
# two forms:
#
#   SKIP: <what is missing> (<Debian package>)
#       it could run here, but something it needs is not installed. Under
#       CI (CI set, and not "", 0, false or no) this is a FAILURE: every
#       stage installs what it uses (the lists above), so it is a missing
#       install step. Elsewhere it stays a skip, loudly.
#   SKIP(not-applicable): <one-line reason>
#       it cannot apply on this machine whatever is installed (a check of
#       the s390x build that only runs natively, a test that only runs on
#       s390x). Accepted everywhere. A cmocka test prints this line (its
#       test function's name in it) before skip().
#
# A make check test exits 77 after its line; an e2e scenario returns 77. A
# test that skips only a part prints the same line and goes on. Exit 77
# without a SKIP(not-applicable) line, any "SKIP:" line and a cmocka
# "[  SKIPPED ] NAME" without a SKIP(not-applicable) line naming NAME are
# skips for want of something (zvm_unexplained_skips). tests/test-wrapper
# applies this to every make check test; tests/e2e/run.sh and
# tests/hypfs/e2e.sh to every scenario (e2e_scenarios, tests/e2e/lib.sh);
# both count skips in their closing line.

# zvm_ci: true under CI.
zvm_ci() {
  case ${CI:-} in '' | 0 | false | FALSE | False | no) return 1 ;; esac
  return 0
}

# zvm_unexplained_skips FILE STATUS: the skips for want of something in a
# test's output FILE (STATUS: its exit status), one per line; nothing when
# every skip in it (if any) is not applicable here.
zvm_unexplained_skips() {
  awk -v status="$2" '
    /^SKIP\(not-applicable\): / { na[++nna] = $0; next }
    /^SKIP:/ { print; next }
    /^\[  SKIPPED \] / && $0 !~ /test\(s\)/ { skipped[$4] = 1 }
    END {
      for (t in skipped) {
        ok = 0
        for (i = 1; i <= nna; i++)
          if (index(na[i] " ", " " t ":") || index(na[i] " ", " " t " ")) ok = 1
        if (!ok) print "cmocka test " t " skipped without a SKIP(not-applicable) line naming it"
      }
      if (status == 77 && nna == 0) print "exit status 77 without a SKIP(not-applicable) line"
    }' "$1"
}

# zvm_not_applicable FILE: the SKIP(not-applicable) lines in FILE.
zvm_not_applicable() { grep '^SKIP(not-applicable): ' "$1" || true; }

# zvm_check_summary WHAT: after make check in the current build directory,
# the tests' results counted ("WHAT: N passed, N failed, N skipped"), the
# tests or parts not applicable here, and a loud line for every skip for
# want of a package (under CI tests/test-wrapper has failed those already).
zvm_check_summary() {
  _zvm_trs=$(find . -name '*.trs' | sort)
  # shellcheck disable=SC2086
  [ -n "$_zvm_trs" ] && _zvm_res=$(cat $_zvm_trs | sed -n 's/^:test-result: //p') || _zvm_res=
  printf '%s: %d passed, %d failed, %d skipped\n' "$1" \
    "$(echo "$_zvm_res" | grep -c '^PASS' || true)" \
    "$(echo "$_zvm_res" | grep -Ec '^(FAIL|ERROR|XPASS)' || true)" \
    "$(echo "$_zvm_res" | grep -c '^SKIP' || true)"
  for _zvm_log in $(echo "$_zvm_trs" | sed 's/\.trs$/.log/'); do
    [ -f "$_zvm_log" ] || continue
    grep -h '^SKIP(not-applicable): ' "$_zvm_log" | sed "s|^SKIP(not-applicable): |  not applicable here: ${_zvm_log#./}: |"
    grep -q '^!!!!!!!! SKIPPED' "$_zvm_log" &&
      echo "!!!!!!!! ${_zvm_log#./}: SKIPPED for want of a package: a failure under CI=true !!!!!!!!"
  done
  return 0
}

step() { printf '\n==> %s\n' "$*"; }
die() {
  printf 'FAILED: %s\n' "$*" >&2
  exit 1
}

# zvm_demo_dir DIR: DIR is the demo's data directory: a new or empty one,
# or one a demo made before (it holds .zvm-demo); the demos write and remove
# files only there, never among someone else's. Else one line and false.
zvm_demo_dir() {
  if [ -L "$1" ] || { [ -e "$1" ] && [ ! -d "$1" ]; }; then
    echo "$1: not a directory: name a new or empty directory for the demo's data" >&2
    return 1
  fi
  if [ -d "$1" ] && [ ! -f "$1/.zvm-demo" ] && [ -n "$(ls -A "$1")" ]; then
    echo "$1 holds files no demo made: name a new or empty directory (the demo writes and removes files in it)" >&2
    return 1
  fi
  mkdir -p "$1" && touch "$1/.zvm-demo"
}

# zvm_assert_dev_null WHAT: /dev/null is still the character device 1:3
# after WHAT (a test suite run as root must leave the machine as it found
# it: once /dev/null is removed, the next '>/dev/null' creates a regular
# file there, and everything on the machine fills it). Else one loud line
# on standard error, and false. (Nothing here writes to /dev/null: were it
# gone, a '>/dev/null' would make the regular file.)
zvm_assert_dev_null() {
  _zvm_null=$(stat -c '%F %t:%T' /dev/null 2>/dev/null) || _zvm_null=missing
  [ "$_zvm_null" = "character special file 1:3" ] && return 0
  printf 'FAIL: after %s, /dev/null is no longer the character device 1:3 (%s): something removed or replaced it; as root: rm -f /dev/null && mknod -m 0666 /dev/null c 1 3\n' \
    "$1" "$_zvm_null" >&2
  return 1
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

# Install the named Debian packages that are missing (apt-get update first);
# fails when apt-get does. Names may carry an architecture
# (libcmocka-dev:s390x). Another apt-get or dpkg holding the lock is waited
# for (up to 10 minutes), not a failure.
zvm_install_packages() {
  missing=
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
      missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  step "installing:$missing"
  zvm_as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get -o DPkg::Lock::Timeout=600 update -qq || return 1
  # shellcheck disable=SC2086
  zvm_as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null
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
    zvm_as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq
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
