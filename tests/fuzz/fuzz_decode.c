/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the pure decoder on arbitrary data sets.
 *
 * Input: 2 bytes of domain selection mask (big-endian, the MCE's bit order),
 * then the bytes of one data set as the device would deliver it.
 *
 * Drives the checked big-endian accessors (be.h), zvm_mce_parse(), the set
 * walker (with every domain selected and with the mask from the input),
 * zvm_decode_set(), and -- for yielded records, with every record table --
 * every field, every array entry and every text field through the public
 * accessors. Everything the decoder returns is checked against the raw
 * bytes with independent code; any disagreement, and any read outside the
 * set (ASan), is a finding.
 */
#include "fuzz.h"

#include <stdbool.h>
#include <string.h>

#include "records/catalog.h"
#include "zvm_monitor/be.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/field.h"
#include "zvm_monitor/records.h"

/* --------------------------------------------------------------- names -- */

static bool name_char_ok(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '@' ||
         c == '#' || c == '$' || c == '_' || c == '+' || c == '%' || c == '-';
}

/* A text field formatted as the mapper will (plugin instance, host name). */
static void check_text(const uint8_t *p, size_t width) {
  size_t cap = 3 * width + 1;
  char *out = malloc(cap);
  FUZZ_CHECK(out != NULL);
  int n = zvm_name_format(p, width, out, cap);
  bool blank = true;
  for (size_t i = 0; i < width; i++)
    if (p[i] != 0x40 && p[i] != 0x00)
      blank = false;
  /* 3 * len + 1 always fits: only a blank name is refused. */
  FUZZ_CHECK((n == -1) == blank);
  if (n > 0) {
    FUZZ_CHECK((size_t)n < cap);
    FUZZ_CHECK(strlen(out) == (size_t)n);
    for (int i = 0; i < n; i++)
      FUZZ_CHECK(name_char_ok(out[i]));
  }
  free(out);
}

/* -------------------------------------------------------------- fields -- */

static int64_t sign_extend(uint64_t v, size_t width) {
  if (width >= 8)
    return v > (uint64_t)INT64_MAX ? -(int64_t)(UINT64_MAX - v) - 1
                                   : (int64_t)v;
  uint64_t half = (uint64_t)1 << (8 * width - 1);
  return v >= half ? (int64_t)v - (int64_t)(2 * half) : (int64_t)v;
}

/* Every element of every field, plus one index past the last, through the
 * accessors; len is the record's (or array entry's) length. */
static void read_fields(const struct zvm_field *fields, size_t nfields,
                        const uint8_t *data, size_t len) {
  for (size_t i = 0; i < nfields; i++) {
    const struct zvm_field *f = &fields[i];
    if (f->type == ZVM_TYPE_RECORD_COUNT) { /* not in the bytes */
      FUZZ_CHECK(!zvm_field_present(f, len, 0));
      continue;
    }
    FUZZ_CHECK(f->count >= 1 && f->width >= 1);
    for (unsigned idx = 0; idx <= f->count; idx++) {
      size_t off = (size_t)f->offset + (size_t)idx * f->width;
      bool want = idx < f->count && off + f->width <= len;
      FUZZ_CHECK(zvm_field_present(f, len, idx) == want);

      uint64_t u = 0;
      int64_t s = 0;
      bool got_u = zvm_field_u64(f, data, len, idx, &u);
      bool got_s = zvm_field_i64(f, data, len, idx, &s);
      if (f->kind == ZVM_FIELD_TEXT) {
        FUZZ_CHECK(!got_u && !got_s);
        if (want)
          check_text(data + off, f->width);
        continue;
      }
      bool width_ok =
          f->width == 1 || f->width == 2 || f->width == 4 || f->width == 8;
      FUZZ_CHECK(got_u == (want && width_ok));
      if (!got_u) {
        FUZZ_CHECK(!got_s);
        continue;
      }
      uint64_t v = fuzz_be(data + off, f->width);
      FUZZ_CHECK(u == v);
      if (f->type == ZVM_TYPE_SIGNED) {
        FUZZ_CHECK(got_s && s == sign_extend(v, f->width));
      } else {
        FUZZ_CHECK(got_s == (v <= (uint64_t)INT64_MAX));
        if (got_s)
          FUZZ_CHECK(s == (int64_t)v);
      }
    }
  }
}

/* zvm_array_locate() against an independent reading of the locating fields;
 * then every entry's fields. Returns the status. */
static enum zvm_array_status check_array(const struct zvm_array *a,
                                         const uint8_t *data, size_t len) {
  const struct zvm_field *loc[3] = {a->count_field, a->size_field,
                                    a->offset_field};
  uint64_t val[3] = {0, 0, 0};
  bool have = true;
  for (int i = 0; i < 3; i++) {
    if ((size_t)loc[i]->offset + loc[i]->width > len)
      have = false;
    else
      val[i] = fuzz_be(data + loc[i]->offset, loc[i]->width);
  }
  uint64_t cnt = val[0], esz = val[1], eoff = val[2];
  enum zvm_array_status want;
  if (!have)
    want = ZVM_ARRAY_ABSENT;
  else if (cnt == 0)
    want = ZVM_ARRAY_OK;
  else if (esz == 0 || eoff < ZVM_MRHDR_LEN || eoff > len ||
           cnt > (len - eoff) / esz)
    want = ZVM_ARRAY_BAD;
  else
    want = ZVM_ARRAY_OK;

  struct zvm_array_view v;
  memset(&v, 0, sizeof(v));
  enum zvm_array_status st = zvm_array_locate(a, data, len, &v);
  FUZZ_CHECK(st == want);
  if (st != ZVM_ARRAY_OK)
    return st;
  FUZZ_CHECK(v.count == cnt);
  for (size_t i = 0; i < v.count; i++) {
    const uint8_t *e = zvm_array_entry(&v, i);
    FUZZ_CHECK(v.entry_size == esz);
    FUZZ_CHECK(e == data + eoff + i * esz);
    FUZZ_CHECK(e >= data + ZVM_MRHDR_LEN && e + v.entry_size <= data + len);
    read_fields(a->entry.fields, a->entry.nfields, e, v.entry_size);
  }
  return st;
}

/* Every table applied to a record, whatever its domain and number: the
 * accessors must be safe on any bytes. Reading every field costs ~100
 * accessor calls per table and record, and what it exercises depends on a
 * record's bytes, not on its position in the set: so it is done for the
 * first EVERY_TABLE_RECORDS records of a set (and of a decode_set run). */
#define EVERY_TABLE_RECORDS 4
static void read_with_every_table(const struct zvm_record *rec) {
  for (size_t t = 0; t < zvm_record_table_count; t++) {
    const struct zvm_record_desc *d = zvm_record_tables[t];
    read_fields(d->main.fields, d->main.nfields, rec->data, rec->len);
    for (size_t a = 0; a < d->narrays; a++)
      check_array(&d->arrays[a], rec->data, rec->len);
  }
}

/* ------------------------------------------------------ be.h accessors -- */

/* Every checked accessor at offsets around both ends of the set and near
 * SIZE_MAX: the value when the field is inside, false (and *out untouched)
 * otherwise. */
static void check_be_accessors(const uint8_t *buf, size_t len) {
  static const size_t back[] = {0, 1, 2, 3, 4, 7, 8, 9};
  for (size_t k = 0; k < 2 * sizeof(back) / sizeof(back[0]) + 2; k++) {
    size_t n = sizeof(back) / sizeof(back[0]), off;
    if (k < n)
      off = back[k];
    else if (k < 2 * n)
      off = len - back[k - n]; /* wraps for tiny sets: out of bounds */
    else
      off = SIZE_MAX - (k - 2 * n);
    for (unsigned width = 1; width <= 8; width *= 2) {
      bool in = off <= len && width <= len - off;
      uint64_t want = in ? fuzz_be(buf + off, width) : 0;
      uint64_t u = 0x5A5A;
      int64_t i = 0x5A5A;
      FUZZ_CHECK(zvm_in_bounds(len, off, width) == in);
      FUZZ_CHECK(zvm_be_uint(buf, len, off, width, &u) == in);
      FUZZ_CHECK(in ? u == want : u == 0x5A5A);
      FUZZ_CHECK(zvm_be_int(buf, len, off, width, &i) == in);
      FUZZ_CHECK(in ? i == sign_extend(want, width) : i == 0x5A5A);
      switch (width) {
      case 1: {
        uint8_t v = 0x5A;
        FUZZ_CHECK(zvm_be_u8(buf, len, off, &v) == in);
        FUZZ_CHECK(v == (in ? want : 0x5A));
        break;
      }
      case 2: {
        uint16_t v = 0x5A;
        int16_t sv = 0x5A;
        FUZZ_CHECK(zvm_be_u16(buf, len, off, &v) == in);
        FUZZ_CHECK(v == (in ? want : 0x5A));
        FUZZ_CHECK(zvm_be_s16(buf, len, off, &sv) == in);
        FUZZ_CHECK(sv == (in ? sign_extend(want, 2) : 0x5A));
        break;
      }
      case 4: {
        uint32_t v = 0x5A;
        int32_t sv = 0x5A;
        FUZZ_CHECK(zvm_be_u32(buf, len, off, &v) == in);
        FUZZ_CHECK(v == (in ? want : 0x5A));
        FUZZ_CHECK(zvm_be_s32(buf, len, off, &sv) == in);
        FUZZ_CHECK(sv == (in ? sign_extend(want, 4) : 0x5A));
        break;
      }
      default: {
        uint64_t v = 0x5A;
        int64_t sv = 0x5A;
        FUZZ_CHECK(zvm_be_u64(buf, len, off, &v) == in);
        FUZZ_CHECK(v == (in ? want : 0x5A));
        FUZZ_CHECK(zvm_be_s64(buf, len, off, &sv) == in);
        FUZZ_CHECK(sv == (in ? sign_extend(want, 8) : 0x5A));
        break;
      }
      }
    }
    /* Widths the accessors do not know are refused. */
    uint64_t u = 0x5A5A;
    FUZZ_CHECK(!zvm_be_uint(buf, len, off, 3, &u) && u == 0x5A5A);
  }
}

/* ------------------------------------------------------------ MCE/walk -- */

static void check_mce_parse(const uint8_t *buf, size_t len) {
  struct zvm_mce m, untouched;
  memset(&m, 0x5A, sizeof(m));
  memcpy(&untouched, &m, sizeof(m));
  enum zvm_mce_status st = zvm_mce_parse(buf, len, &m);

  enum zvm_mce_status want;
  uint8_t type = 0;
  uint16_t domains = 0;
  uint32_t start = 0, end = 0;
  if (len < ZVM_MCE_LEN) {
    want = ZVM_MCE_TRUNCATED;
  } else {
    type = buf[0];
    domains = (uint16_t)fuzz_be(buf + 1, 2);
    start = (uint32_t)fuzz_be(buf + 4, 4);
    end = (uint32_t)fuzz_be(buf + 8, 4);
    if (type == 0)
      want = ZVM_MCE_BAD_TYPE;
    else if (domains == 0)
      want = ZVM_MCE_NO_DOMAINS;
    else if (end <= start)
      want = ZVM_MCE_BAD_RANGE;
    else if ((uint64_t)end - start + 1 > len - ZVM_MCE_LEN)
      want = ZVM_MCE_SHORT_DATA;
    else
      want = ZVM_MCE_OK;
  }
  FUZZ_CHECK(st == want);
  if (st != ZVM_MCE_OK) {
    FUZZ_CHECK(memcmp(&m, &untouched, sizeof(m)) == 0);
    return;
  }
  FUZZ_CHECK(m.type == type && m.domains == domains && m.start == start &&
             m.end == end);
  FUZZ_CHECK(zvm_mce_records_len(&m) == (uint64_t)end - start + 1);
}

static bool selected(zvm_domain_mask_t select, const struct zvm_record *rec) {
  return (rec->mce.domains & select) != 0 && rec->domain < ZVM_DOMAIN_COUNT &&
         (select & ZVM_DOMAIN_BIT(rec->domain)) != 0;
}

static bool same_record(const struct zvm_record *a,
                        const struct zvm_record *b) {
  return a->data == b->data && a->len == b->len && a->domain == b->domain &&
         a->number == b->number && a->tod == b->tod && a->addr == b->addr &&
         a->mce.type == b->mce.type && a->mce.domains == b->mce.domains &&
         a->mce.start == b->mce.start && a->mce.end == b->mce.end;
}

static bool is_record(const struct zvm_record *rec, uint8_t domain,
                      uint16_t number) {
  return rec->domain == domain && rec->number == number;
}

/* One yielded record: inside the set and inside its record set, header as
 * in the bytes, selected, its MCE valid and really the one before it. */
static void check_record(const uint8_t *set, size_t len,
                         zvm_domain_mask_t select,
                         const struct zvm_record *rec) {
  FUZZ_CHECK(rec->len >= ZVM_MRHDR_LEN);
  FUZZ_CHECK(rec->data >= set && rec->data < set + len);
  size_t off = (size_t)(rec->data - set);
  FUZZ_CHECK(rec->len <= len - off);

  const uint8_t *p = rec->data;
  FUZZ_CHECK(fuzz_be(p, 2) == rec->len);
  FUZZ_CHECK(fuzz_be(p + 2, 2) == 0);
  FUZZ_CHECK(p[4] == rec->domain);
  FUZZ_CHECK(fuzz_be(p + 6, 2) == rec->number);
  FUZZ_CHECK(fuzz_be(p + 8, 8) == rec->tod);
  FUZZ_CHECK(selected(select, rec));

  const struct zvm_mce *m = &rec->mce;
  FUZZ_CHECK(m->type != 0 && m->domains != 0 && m->end > m->start);
  FUZZ_CHECK(rec->addr >= m->start);
  FUZZ_CHECK((uint64_t)rec->addr + rec->len - 1 <= m->end);
  size_t in_rs = rec->addr - m->start;
  FUZZ_CHECK(off >= in_rs + ZVM_MCE_LEN);
  size_t rs_off = off - in_rs;
  FUZZ_CHECK(zvm_mce_records_len(m) <= len - rs_off);
  const uint8_t *mce = set + rs_off - ZVM_MCE_LEN;
  FUZZ_CHECK(mce[0] == m->type && fuzz_be(mce + 1, 2) == m->domains &&
             fuzz_be(mce + 4, 4) == m->start && fuzz_be(mce + 8, 4) == m->end);

  uint64_t us = 0;
  bool after_1970 = zvm_tod_to_unix_us(rec->tod, &us);
  FUZZ_CHECK(after_1970 == (rec->tod >= ZVM_TOD_UNIX_EPOCH));
  if (after_1970)
    FUZZ_CHECK(us == (rec->tod - ZVM_TOD_UNIX_EPOCH) >> 12);
}

struct walked {
  struct zvm_record *recs;
  size_t n;
  struct zvm_walk_stats stats;
};

/* out->recs: a buffer of the target's, grown to the largest set so far
 * (*room records), not allocated per input. */
static void walk(const uint8_t *set, size_t len, zvm_domain_mask_t select,
                 struct walked *out, size_t *room) {
  /* A record takes at least 20 bytes of the set. */
  size_t cap = len / ZVM_MRHDR_LEN + 1;
  if (cap > *room) {
    free(out->recs);
    out->recs = malloc(cap * sizeof(*out->recs));
    FUZZ_CHECK(out->recs != NULL);
    *room = cap;
  }
  out->n = 0;

  struct zvm_walk w;
  struct zvm_record rec;
  zvm_walk_init(&w, set, len, select);
  while (zvm_walk_next(&w, &rec)) {
    FUZZ_CHECK(out->n < cap);
    check_record(set, len, select, &rec);
    if (out->n > 0) {
      const struct zvm_record *prev = &out->recs[out->n - 1];
      /* In order, never overlapping. */
      FUZZ_CHECK(rec.data >= prev->data + prev->len);
      /* After a D1R13 the rest of its 4 KB frame is padding. */
      bool same_rs = rec.data - (rec.addr - rec.mce.start) ==
                     prev->data - (prev->addr - prev->mce.start);
      if (same_rs && is_record(prev, ZVM_DOMAIN_MONITOR, ZVM_MTR_END_OF_FRAME))
        FUZZ_CHECK((uint64_t)rec.addr >= ((uint64_t)prev->addr | 0xFFF) + 1);
    }
    out->recs[out->n++] = rec;
  }
  out->stats = w.stats;
  /* A finished walk stays finished and counts nothing more. */
  FUZZ_CHECK(!zvm_walk_next(&w, &rec));
  FUZZ_CHECK(memcmp(&w.stats, &out->stats, sizeof(w.stats)) == 0);

  const struct zvm_walk_stats *st = &out->stats;
  FUZZ_CHECK(st->records == out->n + st->filtered);
  FUZZ_CHECK(st->mce_rejected <= 1);
  FUZZ_CHECK(st->malformed <= st->record_sets);
  /* Every set has an accepted or a rejected MCE; an empty set is one the
   * driver rejected. */
  FUZZ_CHECK(st->record_sets + st->mce_rejected > 0);
  FUZZ_CHECK(len > 0 || (st->mce_rejected == 1 && st->record_sets == 0));
  FUZZ_CHECK(st->end_of_frame + st->interval_end <= st->records);
  FUZZ_CHECK(st->padding_bytes <=
             st->end_of_frame * (ZVM_FRAME_SIZE - ZVM_MRHDR_LEN));
}

static bool same_stats_but_filtered(const struct zvm_walk_stats *a,
                                    const struct zvm_walk_stats *b) {
  return a->record_sets == b->record_sets &&
         a->mce_rejected == b->mce_rejected && a->records == b->records &&
         a->malformed == b->malformed && a->end_of_frame == b->end_of_frame &&
         a->interval_end == b->interval_end &&
         a->padding_bytes == b->padding_bytes;
}

/* --------------------------------------------------------- decode set -- */

enum fate { DELIVER, UNKNOWN, ARRAY_BAD };

struct decode_ctx {
  const uint8_t *set;
  size_t len;
  zvm_domain_mask_t select;
  const struct walked *sel; /* the walk with the same mask */
  const enum fate *fate;
  size_t next;
  size_t calls;
};

static void on_record(const struct zvm_record *rec,
                      const struct zvm_record_desc *desc, void *arg) {
  struct decode_ctx *c = arg;
  FUZZ_CHECK(desc != NULL);
  FUZZ_CHECK(desc == zvm_record_find(rec->domain, rec->number));
  FUZZ_CHECK(desc->domain == rec->domain && desc->number == rec->number);
  check_record(c->set, c->len, c->select, rec);
  /* Exactly the walk's records that have a table, in order; those with an
   * unusable array too (counted; their fixed part is still used). */
  while (c->next < c->sel->n && c->fate[c->next] == UNKNOWN)
    c->next++;
  FUZZ_CHECK(c->next < c->sel->n);
  FUZZ_CHECK(rec->data == c->sel->recs[c->next].data);
  bool bad = false;
  for (size_t a = 0; a < desc->narrays; a++)
    bad = bad ||
          check_array(&desc->arrays[a], rec->data, rec->len) == ZVM_ARRAY_BAD;
  FUZZ_CHECK(bad == (c->fate[c->next] == ARRAY_BAD));
  c->next++;
  if (c->calls++ < EVERY_TABLE_RECORDS)
    read_fields(desc->main.fields, desc->main.nfields, rec->data, rec->len);
}

static void check_decode_set(const uint8_t *set, size_t len,
                             zvm_domain_mask_t select,
                             const struct walked *sel) {
  enum fate *fate = calloc(sel->n + 1, sizeof(*fate));
  FUZZ_CHECK(fate != NULL);
  uint64_t unknown = 0, bad = 0, deliver = 0;
  for (size_t i = 0; i < sel->n; i++) {
    const struct zvm_record *r = &sel->recs[i];
    const struct zvm_record_desc *d = zvm_record_find(r->domain, r->number);
    if (d == NULL) {
      fate[i] = UNKNOWN;
      unknown++;
    } else if (d->narrays > 0 &&
               check_array(&d->arrays[0], r->data, r->len) == ZVM_ARRAY_BAD) {
      fate[i] = ARRAY_BAD;
      bad++;
    } else {
      fate[i] = DELIVER;
      deliver++;
    }
  }

  struct decode_ctx c = {set, len, select, sel, fate, 0, 0};
  struct zvm_decode_stats st;
  memset(&st, 0, sizeof(st));
  zvm_decode_set(set, len, select, on_record, &c, &st);
  FUZZ_CHECK(c.calls == deliver + bad);
  FUZZ_CHECK(st.unknown == unknown);
  FUZZ_CHECK(st.array_rejected == bad);
  FUZZ_CHECK(memcmp(&st.walk, &sel->stats, sizeof(st.walk)) == 0);

  /* Stats accumulate over calls; no callback is fine. */
  zvm_decode_set(set, len, select, NULL, NULL, &st);
  FUZZ_CHECK(st.unknown == 2 * unknown && st.array_rejected == 2 * bad);
  FUZZ_CHECK(st.walk.records == 2 * sel->stats.records &&
             st.walk.filtered == 2 * sel->stats.filtered &&
             st.walk.padding_bytes == 2 * sel->stats.padding_bytes);
  free(fate);
}

/* ---------------------------------------------------------------- main -- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  zvm_domain_mask_t select = (zvm_domain_mask_t)fuzz_be(data, 2);
  size_t len = size - 2;
  uint8_t *set = fuzz_dup(data + 2, len);

  check_mce_parse(set, len);
  check_be_accessors(set, len);

  static struct walked all, sel;
  static size_t all_room, sel_room;
  walk(set, len, ZVM_DOMAINS_ALL, &all, &all_room);
  walk(set, len, select, &sel, &sel_room);

  /* With every domain selected only domains > 15 are filtered. */
  size_t eof = 0, ivl = 0;
  uint64_t bytes = all.stats.record_sets * ZVM_MCE_LEN;
  for (size_t i = 0; i < all.n; i++) {
    const struct zvm_record *r = &all.recs[i];
    eof += is_record(r, ZVM_DOMAIN_MONITOR, ZVM_MTR_END_OF_FRAME);
    ivl += is_record(r, ZVM_DOMAIN_MONITOR, ZVM_MTR_INTERVAL_END);
    bytes += r->len;
    if (i < EVERY_TABLE_RECORDS)
      read_with_every_table(r);
  }
  FUZZ_CHECK(all.stats.end_of_frame == eof);
  FUZZ_CHECK(all.stats.interval_end == ivl);
  FUZZ_CHECK(bytes + all.stats.padding_bytes <= len);

  /* Selection changes what is yielded, never how the set is walked: the
   * masked walk yields exactly the selected subsequence. */
  FUZZ_CHECK(same_stats_but_filtered(&all.stats, &sel.stats));
  size_t j = 0;
  for (size_t i = 0; i < all.n; i++) {
    if (!selected(select, &all.recs[i]))
      continue;
    FUZZ_CHECK(j < sel.n);
    FUZZ_CHECK(same_record(&all.recs[i], &sel.recs[j]));
    j++;
  }
  FUZZ_CHECK(j == sel.n);

  check_decode_set(set, len, select, &sel);

  struct zvm_walk_stats total;
  memset(&total, 0, sizeof(total));
  zvm_walk_stats_add(&total, &all.stats);
  zvm_walk_stats_add(&total, &sel.stats);
  FUZZ_CHECK(total.records == 2 * all.stats.records &&
             total.filtered == all.stats.filtered + sel.stats.filtered &&
             total.record_sets == 2 * all.stats.record_sets);

  free(set);
  return 0;
}
