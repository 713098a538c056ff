/* SPDX-License-Identifier: MIT */
/*
 * dmstats - the real libdevmapper behind struct dms_lib (dmstats/libdm.c).
 */
#ifndef DMSTATS_LIBDM_H
#define DMSTATS_LIBDM_H

#include "dmstats/dmstats.h"

/* The library table. */
const struct dms_lib *dms_libdm(void);

/* Around the plugin's own calls into libdevmapper (one thread at a time):
 * its messages are kept out of collectd's stderr and give the errno of a
 * failure (take_last_errno); other users' loggers and messages are left
 * as they are (dmstats/libdm.c says how). */
void dms_libdm_quiet_begin(void);
void dms_libdm_quiet_end(void);

#endif
