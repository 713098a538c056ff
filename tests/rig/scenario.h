/* SPDX-License-Identifier: MIT */
/*
 * monreader-emu - scenario files: the format shared by zvm-stream-gen (the
 * writer), libmonreader-emu.so (the emulated /dev/monreader) and the tests.
 * See README.md in this directory for the documented format.
 *
 * All integers in a scenario file are big-endian, like the monitor data it
 * carries. Values are written and read with shifts, never by casting (the
 * rig's accessors, mcewrite.h).
 */
#ifndef MONREADER_EMU_SCENARIO_H
#define MONREADER_EMU_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mcewrite.h"

#define SCN_MAGIC "ZVMSCN1\n"
#define SCN_MAGIC_LEN 8
#define SCN_VERSION 1
#define SCN_HEADER_LEN 32
#define SCN_ITEM_HDR_LEN 8

/* Item kinds (byte 0 of each item header). */
enum scn_kind {
  SCN_MESSAGE = 'M',    /* payload: one data set as the device delivers it */
  SCN_DELAY = 'D',      /* u32 ms: gap before the next message arrives */
  SCN_EIO = 'I',        /* u32 offset in the next message (FFFFFFFF = end) */
  SCN_EFAULT = 'F',     /* u32 offset in the next message */
  SCN_EOVERFLOW = 'O',  /* after the previous message's 0-byte read */
  SCN_SEVER = 'S',      /* path severed after the previous message */
  SCN_OPEN_ERROR = 'E', /* u32 errno, u32 count: next opens fail */
};
#define SCN_AT_END UINT32_C(0xFFFFFFFF)

/* "Not set" for the optional 64-bit message attributes. */
#define SCN_NONE UINT64_MAX

/* ---- parsed scenario --------------------------------------------------- */
struct scn_msg {
  const uint8_t *data; /* MCE, record set, MCE, record set... */
  size_t len;          /* payload bytes */
  size_t deliver_len;  /* bytes before the first MCE the driver rejects */
  unsigned nmce;       /* MCEs the driver accepts */
  bool bad_mce;        /* delivery ends early at a rejected MCE */
  uint64_t delay_ms;   /* SCN_NONE: the default pace */
  uint64_t eio_at;     /* SCN_NONE or stream offset of an EIO */
  uint64_t efault_at;  /* SCN_NONE or stream offset of an EFAULT */
  bool eoverflow;      /* EOVERFLOW after this message's 0-byte read */
  bool sever;          /* path severed once this message is consumed */
  int open_errno;      /* open() fails while this message is next... */
  unsigned open_count; /* ...this many times (0: never) */
};

struct scenario {
  uint32_t dcss_start; /* DCSS address range (inclusive), for the MCE */
  uint32_t dcss_end;   /* checks of the driver's mon_check_mca() */
  uint64_t span_us;    /* time the scenario covers (loop TOD shift) */
  struct scn_msg *msgs;
  size_t nmsgs;
  /* msgs[nmsgs] exists: a sentinel that only carries open errors for
   * opens after the last message. */
  uint8_t *owned; /* file contents, freed by scn_free */
  size_t owned_len;
};

/* The driver's mon_check_mca() for one MCE (type byte, domain mask,
 * record range inside the DCSS). */
bool scn_mce_valid(const uint8_t *mce, uint32_t dcss_start, uint32_t dcss_end);

/* Parse a scenario file image. On success the scenario points into buf
 * (the caller keeps buf alive, or hands it over via scn->owned). */
int scn_parse(const uint8_t *buf, size_t len, struct scenario *scn, char *err,
              size_t errlen);
/* Read and parse a file (scn->owned holds its contents). */
int scn_load(const char *path, struct scenario *scn, char *err, size_t errlen);
void scn_free(struct scenario *scn);

/* ---- fault specifications (CLI --fault and MONREADER_EMU_FAULTS) ------- */
enum scn_fault_kind {
  SCN_F_EIO,
  SCN_F_EFAULT,
  SCN_F_EOVERFLOW,
  SCN_F_SEVER,
  SCN_F_OPEN,
  SCN_F_DELAY,
  SCN_F_BADMCA,
};

struct scn_fault {
  enum scn_fault_kind kind;
  uint64_t msg;  /* message index (0-based) */
  uint64_t arg;  /* offset, errno, ms or MCE index; SCN_NONE = default */
  uint64_t arg2; /* open: count */
};

/* Parse "eio@3:100,sever@4 open@5:EIO:2 ..." (comma or blank separated).
 * *out is malloc'ed; returns 0 or -1 with a message in err. */
int scn_faults_parse(const char *spec, struct scn_fault **out, size_t *n,
                     char *err, size_t errlen);
/* Apply faults to a parsed scenario (faults naming a message that does not
 * exist are an error). */
int scn_faults_apply(struct scenario *scn, const struct scn_fault *f, size_t n,
                     char *err, size_t errlen);

/* errno from "EIO"/"EBUSY"/... or a decimal number; -1 if unknown. */
int scn_errno_from_name(const char *name);
const char *scn_errno_name(int err);

/* ---- writing ----------------------------------------------------------- */
int scn_write_header(FILE *fp, uint32_t dcss_start, uint32_t dcss_end,
                     uint64_t span_us);
int scn_write_item(FILE *fp, enum scn_kind kind, const uint8_t *payload,
                   uint32_t len);
/* Item with one or two u32 values as payload (nvals 0, 1 or 2). */
int scn_write_item_u32(FILE *fp, enum scn_kind kind, unsigned nvals, uint32_t a,
                       uint32_t b);

#endif
