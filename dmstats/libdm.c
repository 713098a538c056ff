/* SPDX-License-Identifier: MIT */
/*
 * dmstats - the real library behind struct dms_lib: libdevmapper's
 * dm_stats API (/usr/include/libdevmapper.h), plus the two things it does
 * not give: the device list as a callback and the kernel's dm-stats memory
 * use.
 *
 * libdevmapper's log. Its logger is one function pointer for the whole
 * process (dm_log_with_errno_init(), libdevmapper.h), with no way to read
 * it back: only to ask whether it is the default (dm_log_is_non_default())
 * and to restore the default (dm_log_with_errno_init(NULL)). Another user
 * in the daemon (collectd's lvm plugin, through liblvm2app, installs its
 * own) must keep its logger, and others must not lose their messages to
 * ours. So the plugin installs its logger only around its own calls
 * (dms_libdm_quiet_begin/end: the read pass, start and shutdown), only
 * while the default is in place, and restores the default after; under
 * another user's logger it leaves that logger alone (our messages then go
 * there, and a failure's errno comes from the device's state). While ours
 * is installed, a message from another thread (collectd runs read
 * callbacks in parallel) is printed as the default would, to stderr; only
 * the plugin's own thread's are kept out of it, reduced to the errno of
 * their first error. The check and the install are two calls: another
 * user installing its logger exactly between them is the one race left,
 * which no use of this interface can close.
 */
#include "dmstats/libdm.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DM_CONTROL "/dev/mapper/control"
#define STATS_BYTES                                                            \
  "/sys/module/dm_mod/parameters/stats_current_allocated_bytes"

/* collectd never runs one plugin's read callback twice at once, and runs
 * none during init and shutdown. */
static int last_errno;
static bool installed; /* our logger is libdevmapper's now */
/* The thread inside dms_libdm_quiet_begin/end (read by quiet_log in any
 * thread; no thread-local storage: dmstats.so needs no symbol of ld.so). */
static pthread_t owner;
static bool owned;

static bool inside(void) {
  pthread_t who;
  if (!__atomic_load_n(&owned, __ATOMIC_ACQUIRE))
    return false;
  __atomic_load(&owner, &who, __ATOMIC_ACQUIRE);
  return pthread_equal(who, pthread_self()) != 0;
}

static void quiet_log(int level, const char *file, int line,
                      int dm_errno_or_class, const char *f, ...) {
  int err = errno; /* a failed ioctl's, which log_error() does not pass */
  (void)file;
  (void)line;
  /* libdevmapper's levels are syslog's; 3 is an error, 4 a warning
   * (libdm/misc). */
  int lvl = level & 0xf;
  if (!inside()) {
    /* Another thread's message: as the default logger prints it. */
    if (lvl <= 4) {
      va_list ap;
      va_start(ap, f);
      vfprintf(stderr, f, ap);
      va_end(ap);
      fputc('\n', stderr);
    }
    return;
  }
  /* The first error of an operation is the cause; later ones are
   * follow-ups. */
  if (lvl > 3 || last_errno != 0)
    return;
  if (dm_errno_or_class > 0)
    last_errno = dm_errno_or_class;
  else if (err > 0)
    last_errno = err;
}

void dms_libdm_quiet_begin(void) {
  pthread_t self = pthread_self();
  __atomic_store(&owner, &self, __ATOMIC_RELEASE);
  __atomic_store_n(&owned, true, __ATOMIC_RELEASE);
  last_errno = 0; /* a failure not asked about is not the next one's */
  if (!installed && !dm_log_is_non_default()) {
    dm_log_with_errno_init(quiet_log);
    installed = true;
  }
}

void dms_libdm_quiet_end(void) {
  if (installed) {
    dm_log_with_errno_init(NULL); /* the default, which was there */
    installed = false;
  }
  __atomic_store_n(&owned, false, __ATOMIC_RELEASE);
}

static int take_last_errno(void) {
  int err = last_errno;
  last_errno = 0;
  return err;
}

/* Why the device-mapper could not be asked, as an errno value. */
static int control_errno(void) {
  FILE *misc = fopen("/proc/misc", "r");
  if (misc != NULL) {
    char line[128];
    bool found = false;
    while (!found && fgets(line, sizeof(line), misc) != NULL)
      found = strstr(line, " device-mapper") != NULL;
    fclose(misc);
    if (!found)
      return ENOENT;
  }
  int fd = open(DM_CONTROL, O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return errno;
  close(fd);
  return 0;
}

static int list_devices(void (*fn)(const char *name, void *arg), void *arg) {
  struct dm_task *dmt = dm_task_create(DM_DEVICE_LIST);
  if (dmt == NULL) { /* it fails without a driver too */
    int err = control_errno();
    return err ? err : ENOMEM;
  }
  if (!dm_task_run(dmt)) {
    dm_task_destroy(dmt);
    int err = control_errno();
    if (err == 0)
      err = take_last_errno();
    return err ? err : EIO;
  }
  struct dm_names *names = dm_task_get_names(dmt);
  /* An empty list is one entry with dev == 0 (libdevmapper.h usage). */
  if (names != NULL && names->dev != 0) {
    for (;;) {
      fn(names->name, arg);
      if (names->next == 0)
        break;
      names = (struct dm_names *)((char *)names + names->next);
    }
  }
  dm_task_destroy(dmt);
  return 0;
}

static long long stats_allocated_bytes(void) {
  FILE *f = fopen(STATS_BYTES, "r");
  if (f == NULL)
    return -1;
  long long v = -1;
  if (fscanf(f, "%lld", &v) != 1)
    v = -1;
  fclose(f);
  return v;
}

static const struct dms_lib real_lib = {
    .list_devices = list_devices,
    .stats_create = dm_stats_create,
    .stats_destroy = dm_stats_destroy,
    .stats_bind_name = dm_stats_bind_name,
    .stats_list = dm_stats_list,
    .stats_populate = dm_stats_populate,
    .stats_get_nr_regions = dm_stats_get_nr_regions,
    .stats_region_present = dm_stats_region_present,
    .stats_get_region_nr_areas = dm_stats_get_region_nr_areas,
    .stats_get_region_program_id = dm_stats_get_region_program_id,
    .stats_get_region_precise_timestamps =
        dm_stats_get_region_precise_timestamps,
    .stats_get_counter = dm_stats_get_counter,
    .stats_get_histogram = dm_stats_get_histogram,
    .histogram_get_nr_bins = dm_histogram_get_nr_bins,
    .histogram_get_bin_upper = dm_histogram_get_bin_upper,
    .histogram_get_bin_count = dm_histogram_get_bin_count,
    .stats_create_region = dm_stats_create_region,
    .stats_delete_region = dm_stats_delete_region,
    .stats_print_region = dm_stats_print_region,
    .stats_buffer_destroy = dm_stats_buffer_destroy,
    .histogram_bounds_from_string = dm_histogram_bounds_from_string,
    .histogram_bounds_destroy = dm_histogram_bounds_destroy,
    .take_last_errno = take_last_errno,
    .stats_allocated_bytes = stats_allocated_bytes,
};

const struct dms_lib *dms_libdm(void) { return &real_lib; }
