#!/bin/busybox sh
# SPDX-License-Identifier: MIT
# /init of the dmstats test VM (see vm-run.sh): a RAM disk under a linear
# device-mapper device, then vm-check.sh, then power off.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mkdir -p /proc /sys /dev /tmp /run
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp

# Before dm-mod: the plugin must say clearly that device-mapper is absent.
DMSTATS_PHASE=no-dm sh /check.sh

insmod /lib/dm-mod.ko
insmod /lib/brd.ko rd_nr=1 rd_size=65536
# 64 MiB = 131072 sectors of /dev/ram0 behind "dmtest".
echo "0 131072 linear /dev/ram0 0" | dmsetup create --noudevsync dmtest
dmsetup mknodes
DMSTATS_PHASE=dm sh /check.sh
echo "# vm-check done"
poweroff -f
