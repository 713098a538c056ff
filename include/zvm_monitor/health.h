/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - the data source's health: the counters whoever reads the
 * device keeps (the reader, a replay; reader.h embeds them in its
 * statistics) and the mapper dispatches with plugin instance "reader" (the
 * man page lists them). Plain counters, shared by the I/O and the mapping
 * layers, so it sits with the bytes.
 */
#ifndef ZVM_MONITOR_HEALTH_H
#define ZVM_MONITOR_HEALTH_H

#include <stdint.h>

struct zvm_source_health {
  uint64_t bytes_read;    /* every byte any read() returned */
  uint64_t sets;          /* data sets completed by a 0-byte read */
  uint64_t eio;           /* read() failed with EIO */
  uint64_t efault;        /* read() failed with EFAULT */
  uint64_t eoverflow;     /* read() failed with EOVERFLOW */
  uint64_t open_errors;   /* failed open() attempts */
  uint64_t oversize;      /* sets discarded for exceeding their maximum size */
  uint64_t stream_errors; /* episodes of a stream the driver cannot produce
                             (closed, re-opened with back-off) */
  uint64_t sets_dropped;  /* complete sets the hand-over queue could not
                             take (no memory for its copy): counted by the
                             queue (setqueue.h), 0 from the reader itself */
};

#endif /* ZVM_MONITOR_HEALTH_H */
