/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - pure decoder: MCE validation, set walking, 4 KB frames and
 * end-of-frame records, TOD conversion. No I/O, no collectd.
 */
#include "zvm_monitor/decode.h"
#include "zvm_monitor/be.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const domain_names[ZVM_DOMAIN_COUNT] = {
    [ZVM_DOMAIN_SYSTEM] = "system",
    [ZVM_DOMAIN_MONITOR] = "monitor",
    [ZVM_DOMAIN_SCHEDULER] = "scheduler",
    [ZVM_DOMAIN_STORAGE] = "storage",
    [ZVM_DOMAIN_USER] = "user",
    [ZVM_DOMAIN_PROCESSOR] = "processor",
    [ZVM_DOMAIN_IO] = "i/o",
    [ZVM_DOMAIN_SEEK] = "seek",
    [ZVM_DOMAIN_VIRTUAL_NETWORK] = "virtual_network",
    [ZVM_DOMAIN_ISFC] = "isfc",
    [ZVM_DOMAIN_APPLDATA] = "appldata",
    [ZVM_DOMAIN_SSI] = "ssi",
};

const char *zvm_domain_name(unsigned domain) {
  return domain < ZVM_DOMAIN_COUNT ? domain_names[domain] : NULL;
}

int zvm_domain_from_name(const char *name) {
  if (name == NULL || name[0] == '\0')
    return -1;
  for (unsigned d = 0; d < ZVM_DOMAIN_COUNT; d++)
    if (domain_names[d] != NULL && strcasecmp(name, domain_names[d]) == 0)
      return (int)d;
  /* A plain decimal number 0-15, nothing else (no sign, no spaces). */
  int value = 0;
  for (const char *p = name; *p != '\0'; p++) {
    if (*p < '0' || *p > '9' || p - name >= 2)
      return -1;
    value = value * 10 + (*p - '0');
  }
  return value < ZVM_DOMAIN_COUNT ? value : -1;
}

enum zvm_mce_status zvm_mce_parse(const uint8_t *buf, size_t len,
                                  struct zvm_mce *out) {
  if (len < ZVM_MCE_LEN)
    return ZVM_MCE_TRUNCATED;
  struct zvm_mce mce = {
      .type = buf[0],
      .domains = zvm_load_be16(buf + 1),
      .start = zvm_load_be32(buf + 4),
      .end = zvm_load_be32(buf + 8),
  };
  /* The driver's mon_check_mca(): type byte non-zero, some domain bit,
   * end after start. DCSS bounds are unknown to user space; instead the
   * record bytes must actually be in the set. */
  if (mce.type == 0)
    return ZVM_MCE_BAD_TYPE;
  if (mce.domains == 0)
    return ZVM_MCE_NO_DOMAINS;
  if (mce.end <= mce.start)
    return ZVM_MCE_BAD_RANGE;
  if (zvm_mce_records_len(&mce) > len - ZVM_MCE_LEN)
    return ZVM_MCE_SHORT_DATA;
  *out = mce;
  return ZVM_MCE_OK;
}

void zvm_walk_init(struct zvm_walk *w, const uint8_t *buf, size_t len,
                   zvm_domain_mask_t select) {
  memset(w, 0, sizeof(*w));
  w->buf = buf;
  w->len = len;
  w->select = select;
  w->done = (buf == NULL || len == 0);
  /* The driver answers an MCA it rejects with an empty data set (an
   * immediate 0-byte read): that is one rejected MCA. */
  if (len == 0)
    w->stats.mce_rejected = 1;
}

/* Enter the record set of the MCE at w->pos, or end the walk. */
static bool walk_enter_record_set(struct zvm_walk *w) {
  enum zvm_mce_status st =
      zvm_mce_parse(w->buf + w->pos, w->len - w->pos, &w->mce);
  if (st != ZVM_MCE_OK) {
    /* The kernel stops a message at a bad MCA; nothing after this point
     * can be located reliably, so the rest of the set is dropped. */
    w->stats.mce_rejected++;
    w->done = true;
    return false;
  }
  w->stats.record_sets++;
  w->rs_begin = w->pos + ZVM_MCE_LEN;
  w->rs_end = w->rs_begin + (size_t)zvm_mce_records_len(&w->mce);
  w->pos = w->rs_begin;
  w->in_record_set = true;
  w->set_selected = (w->mce.domains & w->select) != 0;
  return true;
}

static void walk_leave_record_set(struct zvm_walk *w) {
  w->pos = w->rs_end;
  w->in_record_set = false;
  if (w->pos >= w->len)
    w->done = true;
}

bool zvm_walk_next(struct zvm_walk *w, struct zvm_record *rec) {
  while (!w->done) {
    if (!w->in_record_set) {
      if (!walk_enter_record_set(w))
        return false;
      continue;
    }

    size_t remaining = w->rs_end - w->pos;
    if (remaining == 0) {
      walk_leave_record_set(w);
      continue;
    }

    const uint8_t *p = w->buf + w->pos;
    uint16_t hdr_len = remaining >= ZVM_MRHDR_LEN ? zvm_load_be16(p) : 0;
    if (remaining < ZVM_MRHDR_LEN || hdr_len < ZVM_MRHDR_LEN ||
        hdr_len > remaining || zvm_load_be16(p + 2) != 0) {
      /* Without a trustworthy length the next record cannot be found. */
      w->stats.malformed++;
      walk_leave_record_set(w);
      continue;
    }

    w->stats.records++;
    uint8_t domain = p[4];
    uint16_t number = zvm_load_be16(p + 6);
    uint64_t addr = (uint64_t)w->mce.start + (w->pos - w->rs_begin);
    size_t advance = hdr_len;

    if (domain == ZVM_DOMAIN_MONITOR && number == ZVM_MTR_END_OF_FRAME) {
      /* The rest of this 4 KB frame is padding. */
      uint64_t frame_left = ZVM_FRAME_SIZE - (addr & (ZVM_FRAME_SIZE - 1));
      if (frame_left > advance) {
        uint64_t skip = frame_left < remaining ? frame_left : remaining;
        w->stats.padding_bytes += skip - advance;
        advance = (size_t)skip;
      }
      w->stats.end_of_frame++;
    } else if (domain == ZVM_DOMAIN_MONITOR && number == ZVM_MTR_INTERVAL_END) {
      w->stats.interval_end++;
    }
    w->pos += advance;

    bool selected = w->set_selected && domain < ZVM_DOMAIN_COUNT &&
                    (w->select & ZVM_DOMAIN_BIT(domain)) != 0;
    if (!selected) {
      w->stats.filtered++;
      continue;
    }

    *rec = (struct zvm_record){
        .data = p,
        .len = hdr_len,
        .domain = domain,
        .number = number,
        .tod = zvm_load_be64(p + 8),
        .addr = (uint32_t)addr,
        .mce = w->mce,
    };
    return true;
  }
  return false;
}

void zvm_walk_stats_add(struct zvm_walk_stats *total,
                        const struct zvm_walk_stats *add) {
  total->record_sets += add->record_sets;
  total->mce_rejected += add->mce_rejected;
  total->records += add->records;
  total->malformed += add->malformed;
  total->filtered += add->filtered;
  total->end_of_frame += add->end_of_frame;
  total->interval_end += add->interval_end;
  total->padding_bytes += add->padding_bytes;
}
