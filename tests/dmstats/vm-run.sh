#!/bin/sh
# SPDX-License-Identifier: MIT
# VM stage for dmstats.so: this machine's kernel has no device-mapper, so
# the plugin is tested in a tiny VM (qemu TCG) on Debian's cloud kernel.
# Everything the VM runs is copied from this machine: busybox-static, the
# dmsetup binary, the real collectd daemon with csv.so, dmstats.so and the
# shared libraries they link. tests/dmstats/vm-check.sh runs inside and
# prints "ok"/"not ok" lines; this script counts them.
#
#   tests/dmstats/vm-run.sh BUILD_DIR      (BUILD_DIR/.libs/dmstats.so)
#   DMSTATS_VM_CACHE=dir    where the kernel package is kept (default
#                           BUILD_DIR/dmstats-vm-cache)
set -eu

build=$(cd "${1:?usage: vm-run.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
cache=${DMSTATS_VM_CACHE:-$build/dmstats-vm-cache}
daemon=${COLLECTD_DAEMON:-/usr/sbin/collectd}
stock=${COLLECTD_PLUGIN_DIR:-/usr/lib/collectd}
so=$build/.libs/dmstats.so
start=$(date +%s)

fail() {
  echo "FAIL: $*"
  echo "0 passed, 1 failed"
  exit 1
}
[ -f "$so" ] || fail "$so was not built (configure found no libdevmapper?)"
for tool in qemu-system-x86_64 busybox dmsetup setpriv; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is missing (tests/lib.sh ZVM_PACKAGES_DMSTATS)"
done

# The kernel: Debian's cloud flavour has dm-mod and brd as plain modules.
mkdir -p "$cache"
cloud_kernel() {
  apt-cache depends linux-image-cloud-amd64 2>/dev/null |
    awk '/Depends: linux-image-[0-9]/ { sub(/^linux-image-/, "", $2); print $2; exit }'
}
kver=$(cloud_kernel)
if [ -z "$kver" ] && [ "$(id -u)" -eq 0 ]; then
  apt-get update -qq >/dev/null 2>&1 || true # a fresh machine has no lists
  kver=$(cloud_kernel)
fi
[ -n "$kver" ] || fail "apt-cache knows no linux-image-cloud-amd64 (apt-get update?)"
kdir=$cache/linux-$kver
if [ ! -f "$kdir/boot/vmlinuz-$kver" ]; then
  (cd "$cache" && rm -f linux-image-"$kver"_*.deb &&
    apt-get download "linux-image-$kver" >/dev/null 2>&1) ||
    fail "apt-get download linux-image-$kver failed"
  rm -rf "$kdir"
  dpkg-deb -x "$cache"/linux-image-"$kver"_*.deb "$kdir"
  rm -f "$cache"/linux-image-"$kver"_*.deb
fi
kernel=$kdir/boot/vmlinuz-$kver

work=$(mktemp -d "${TMPDIR:-/tmp}/dmstats-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/bin" "$root/sbin" "$root/lib" "$root/out" "$root/plugins" \
  "$root/usr/share/collectd"

# Modules, decompressed when the kernel ships them compressed.
for m in drivers/md/dm-mod drivers/block/brd; do
  src=$(ls "$kdir/lib/modules/$kver/kernel/$m".ko* 2>/dev/null | head -n 1)
  [ -n "$src" ] || fail "no $m module in linux-image-$kver"
  case $src in
  *.xz) xz -dc "$src" >"$root/lib/$(basename "$m").ko" ;;
  *.zst) zstd -qdc "$src" >"$root/lib/$(basename "$m").ko" ;;
  *.gz) gzip -dc "$src" >"$root/lib/$(basename "$m").ko" ;;
  *) cp "$src" "$root/lib/$(basename "$m").ko" ;;
  esac
done

# Copy a file and every shared library it links, at the same paths.
copy_with_libs() {
  for f in "$@"; do
    mkdir -p "$root$(dirname "$f")"
    cp -L "$f" "$root$f"
    ldd "$f" 2>/dev/null | awk '/=> \// { print $3 } /^[ \t]*\/[^ ]*ld-linux/ { print $1 }' |
      while read -r lib; do
        [ -f "$root$lib" ] && continue
        mkdir -p "$root$(dirname "$lib")"
        cp -L "$lib" "$root$lib"
      done
  done
}
copy_with_libs "$(command -v dmsetup)" "$(command -v setpriv)" "$daemon" \
  "$stock/csv.so"
# glibc dlopen()s libgcc_s for pthread_exit (collectd's shutdown).
copy_with_libs "$(gcc -print-file-name=libgcc_s.so.1 2>/dev/null ||
  echo /lib/x86_64-linux-gnu/libgcc_s.so.1)"
cp "$so" "$root/plugins/dmstats.so"
copy_with_libs "$root/plugins/dmstats.so"
cp "${COLLECTD_TYPESDB:-/usr/share/collectd/types.db}" "$root/usr/share/collectd/types.db"
cp "$(command -v busybox)" "$root/bin/busybox"
cp "$here/vm-init.sh" "$root/init"
cp "$here/vm-check.sh" "$root/check.sh"
chmod +x "$root/init" "$root/check.sh"
printf 'daemon=%s\nstock=%s\nsetpriv=%s\n' "$daemon" "$stock" \
  "$(command -v setpriv)" >"$root/paths"

(cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) >"$work/initrd.gz"

echo "dmstats VM: kernel $kver, initramfs $(($(wc -c <"$work/initrd.gz") / 1024)) KiB"
# TCG only: this machine's /dev/kvm fails mid-boot.
status=0
timeout 300 qemu-system-x86_64 -accel tcg -m 512 -smp 1 -nographic -no-reboot \
  -kernel "$kernel" -initrd "$work/initrd.gz" \
  -append 'console=ttyS0 quiet panic=-1' </dev/null >"$work/console" 2>&1 || status=$?
tr -d '\r' <"$work/console" >"$build/dmstats-vm.log"
grep -E '^(ok|not ok|#)' "$build/dmstats-vm.log" || true
passed=$(grep -c '^ok ' "$build/dmstats-vm.log" || true)
failed=$(grep -c '^not ok ' "$build/dmstats-vm.log" || true)
if ! grep -q '^# vm-check done' "$build/dmstats-vm.log"; then
  echo "the VM did not finish its checks (qemu status $status); console:"
  tail -n 40 "$build/dmstats-vm.log"
  failed=$((failed + 1))
fi
echo "dmstats VM stage: $(($(date +%s) - start)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
