/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - what to tell an admin when /dev/monreader cannot be opened.
 * One text for the log (reader.c) and the device notification (events.c).
 */
#include "zvm_monitor/reader.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* strerror() is not thread-safe; strerror_r() has two signatures. */
const char *zvm_reader_strerror(int e, char *buf, size_t len) {
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r(e, buf, len);
#else
  if (strerror_r(e, buf, len) != 0)
    snprintf(buf, len, "error %d", e);
  return buf;
#endif
}

void zvm_reader_open_advice(int err, const char *device, char *buf,
                            size_t size) {
  char eb[128];

  if (size == 0)
    return;
  switch (err) {
  case EBUSY:
    snprintf(buf, size,
             "another process holds %s (only one reader is allowed); "
             "retrying",
             device);
    break;
  case EIO:
    snprintf(buf, size,
             "cannot open %s: the IUCV connection to *MONITOR failed: check "
             "'IUCV *MONITOR' in the guest's directory entry and syslog for "
             "the IPUSER SEVER code",
             device);
    break;
  case ZVM_READER_NOT_MONREADER:
    snprintf(buf, size,
             "%s is not the z/VM monitor device: set Device to the node of "
             "the misc device monreader (/dev/monreader; its numbers are in "
             "/sys/class/misc/monreader/dev)",
             device);
    break;
  case ENOENT:
    snprintf(buf, size,
             "%s does not exist: load the monreader module (modprobe "
             "monreader mondcss=<DCSS>)",
             device);
    break;
  case ENODEV:
  case ENXIO:
    snprintf(buf, size,
             "%s has no driver behind it: load the monreader module "
             "(modprobe monreader mondcss=<DCSS>)",
             device);
    break;
  case EACCES:
  case EPERM:
    snprintf(buf, size,
             "permission denied opening %s: run collectd as a user allowed "
             "to read it, or change the device node's permissions",
             device);
    break;
  default:
    snprintf(buf, size, "cannot open %s: %s", device,
             zvm_reader_strerror(err, eb, sizeof(eb)));
    break;
  }
}
