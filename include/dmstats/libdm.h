/* SPDX-License-Identifier: MIT */
/*
 * dmstats - the real libdevmapper behind struct dms_lib (dmstats/libdm.c).
 */
#ifndef DMSTATS_LIBDM_H
#define DMSTATS_LIBDM_H

#include "dmstats/dmstats.h"

/* The library table; also routes libdevmapper's log away from stderr. */
const struct dms_lib *dms_libdm(void);

#endif
