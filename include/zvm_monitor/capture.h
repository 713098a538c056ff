/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - capture files: complete data sets from /dev/monreader and
 * the reader's events, with their arrival times, in pcapng.
 *
 * The container is pcapng (draft-ietf-opsawg-pcapng), so editcap, mergecap,
 * capinfos and tshark can slice, merge and list captures:
 *   - one Section Header Block (SHB; shb_userappl names the writer),
 *   - Interface Description Block 0: LINKTYPE_USER0 (147), the data sets:
 *     each Enhanced Packet Block (EPB) holds exactly the bytes of one set
 *     (the read()s between two 0-byte reads), its timestamp the set's
 *     arrival time (microseconds, if_tsresol 6),
 *   - IDB 1: LINKTYPE_USER1 (148), the reader's events: each EPB holds a
 *     16-byte event (layout below) and an opt_comment with the same in
 *     words, so tshark shows it without a dissector.
 * Writers here use big-endian byte order (the order of z/VM and of the
 * data), so a capture is byte-identical on every host; readers accept
 * both orders, several sections (cat/mergecap output) and skip blocks
 * they do not know (NRB, ISB, custom blocks, SPB, packets on other link
 * types).
 *
 * Event payload (big-endian): byte 0 version (1), 1 type (enum
 * zvm_reader_event_type), 2 flags (X'01': a partial set was discarded),
 * 3 reserved (0), 4-7 errno (Linux value, 0 if none), 8-15 bytes of the
 * discarded partial set.
 *
 * Crash safety: every block goes to the file in one write(); a write that
 * fails half-way (disk full) is cut off again with ftruncate(), so the file
 * is a sequence of complete blocks. A kill -9 can at most leave the last
 * block incomplete; the reader keeps every block before it and says where
 * the damage starts.
 *
 * No collectd here: the capture tool, the dump tool, the plugin's replay
 * and the fuzzer use this module.
 */
#ifndef ZVM_MONITOR_CAPTURE_H
#define ZVM_MONITOR_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/reader.h"

#define ZVM_CAP_LINKTYPE_SETS 147   /* LINKTYPE_USER0 */
#define ZVM_CAP_LINKTYPE_EVENTS 148 /* LINKTYPE_USER1 */
#define ZVM_CAP_EVENT_LEN 16
#define ZVM_CAP_EVENT_VERSION 1
#define ZVM_CAP_EVENT_DISCARDED 0x01
/* Largest block a reader accepts by default: a 64 MiB set (the plugin's
 * default MaxSetSize) plus its EPB framing. */
#define ZVM_CAP_DEFAULT_MAX_BLOCK ((size_t)64 * 1024 * 1024 + 4096)

/* ---- writing -------------------------------------------------------------
 */

struct zvm_cap_writer;

/* Start a capture on fd (a new or truncated file, a pipe): writes the
 * section header and both interface descriptions. app: shb_userappl text
 * (e.g. "zvm-monitor-capture 0.1.0"); device: if_name of both interfaces.
 * NULL with *err = errno on failure (nothing partial is left in a file). */
struct zvm_cap_writer *zvm_cap_writer_start(int fd, const char *app,
                                            const char *device, int *err);
/* One complete data set that arrived at time_us (microseconds since the
 * Unix epoch). 0, or an errno (ENOSPC, EFBIG, EIO...; the file still ends
 * with the previous block). */
int zvm_cap_write_set(struct zvm_cap_writer *w, const uint8_t *set, size_t len,
                      uint64_t time_us);
int zvm_cap_write_event(struct zvm_cap_writer *w,
                        const struct zvm_reader_event *ev, uint64_t time_us);
/* Bytes written to fd so far (the file's size when fd was empty). */
uint64_t zvm_cap_writer_bytes(const struct zvm_cap_writer *w);
/* Frees the writer; does not close fd. */
void zvm_cap_writer_free(struct zvm_cap_writer *w);

/* Name of an event type ("EOVERFLOW", "sever"...), "unknown" otherwise. */
const char *zvm_cap_event_name(unsigned type);
/* One line about an event (the opt_comment text). */
void zvm_cap_event_text(const struct zvm_reader_event *ev, char *buf,
                        size_t size);

/* ---- reading -------------------------------------------------------------
 */

enum zvm_cap_kind {
  ZVM_CAP_SET = 1,   /* item.data/len: one complete data set */
  ZVM_CAP_EVENT = 2, /* item.event */
  ZVM_CAP_END = 0,   /* the capture ended cleanly */
  ZVM_CAP_ERROR = -1 /* damaged or unreadable: zvm_cap_reader_error() */
};

struct zvm_cap_item {
  enum zvm_cap_kind kind;
  uint64_t time_us;    /* arrival time, microseconds since the Unix epoch */
  uint64_t offset;     /* file offset of the item's block */
  const uint8_t *data; /* ZVM_CAP_SET: valid until the next call */
  size_t len;
  struct zvm_reader_event event; /* ZVM_CAP_EVENT */
};

struct zvm_cap_reader_stats {
  uint64_t blocks;         /* blocks read */
  uint64_t sets;           /* ZVM_CAP_SET items returned */
  uint64_t events;         /* ZVM_CAP_EVENT items returned */
  uint64_t skipped_blocks; /* blocks of other types, other link types */
  uint64_t cut_sets;       /* sets stored incompletely (snaplen): skipped */
  uint64_t bad_events;     /* event packets of an unknown version/size */
};

struct zvm_cap_reader;

/* Open the capture file path for reading, never blocking on what is not
 * one: O_NONBLOCK (a FIFO's open would wait for a writer), O_NOFOLLOW (a
 * symbolic link is refused: ELOOP), then fstat: a regular file only. The
 * fd, or -1 with errno set and a one-line reason in why ("is a FIFO, not
 * a capture file", "is a symbolic link, ...", or strerror's text). */
int zvm_cap_open(const char *path, char *why, size_t why_len);

/* A reader over fd (not closed by the reader) or over a buffer (not
 * copied; it must outlive the reader). max_block: largest block accepted
 * (0: ZVM_CAP_DEFAULT_MAX_BLOCK). NULL if out of memory. */
struct zvm_cap_reader *zvm_cap_reader_fd(int fd, size_t max_block);
struct zvm_cap_reader *zvm_cap_reader_mem(const uint8_t *buf, size_t len,
                                          size_t max_block);
void zvm_cap_reader_free(struct zvm_cap_reader *r);

/* The next set or event. After ZVM_CAP_END or ZVM_CAP_ERROR every further
 * call returns the same. */
enum zvm_cap_kind zvm_cap_next(struct zvm_cap_reader *r,
                               struct zvm_cap_item *item);

/* After ZVM_CAP_ERROR: what is wrong ("truncated block", ...) and the file
 * offset where the damage starts (everything before it was returned). */
const char *zvm_cap_reader_error(const struct zvm_cap_reader *r);
uint64_t zvm_cap_reader_error_offset(const struct zvm_cap_reader *r);
const struct zvm_cap_reader_stats *
zvm_cap_reader_get_stats(const struct zvm_cap_reader *r);

#endif /* ZVM_MONITOR_CAPTURE_H */
