/*
 * zvm_monitor - record descriptor tables and generic field access.
 *
 * Each table is IBM's control-block layout for one monitor record, copied
 * field by field from the seed document named in the table. Offsets are
 * from the start of the record, MRHDR included.
 */
#include "zvm_monitor/records.h"
#include "zvm_monitor/be.h"

#define FIELD(ibm, metric, off, width, count, sign, kind)                      \
  { ibm, metric, off, width, count, sign, ZVM_FIELD_##kind }
#define U(ibm, metric, off, width, kind)                                       \
  FIELD(ibm, metric, off, width, 1, false, kind)
#define S(ibm, metric, off, width, kind)                                       \
  FIELD(ibm, metric, off, width, 1, true, kind)
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------
 * D1R11 MRMTREND Interval End, D1R13 MRMTREOF End of Frame: header only.
 * Source: IBM mon730 pages (see shared/reference/zvm-monitor-facts.md 3.2).
 */
const struct zvm_record_desc zvm_rec_mtrend = {
    .domain = ZVM_DOMAIN_MONITOR,
    .number = ZVM_MTR_INTERVAL_END,
    .ibm_name = "MRMTREND",
    .title = "Interval End",
    .zvm_level = "z/VM V7R3.0",
    .source = "IBM mon730 MRMTREND (reference: zvm-monitor-facts.md 3.2)",
    .length = ZVM_MRHDR_LEN,
};

const struct zvm_record_desc zvm_rec_mtreof = {
    .domain = ZVM_DOMAIN_MONITOR,
    .number = ZVM_MTR_END_OF_FRAME,
    .ibm_name = "MRMTREOF",
    .title = "End of Frame Indicator",
    .zvm_level = "z/VM V7R3.0",
    .source = "IBM mon730 MRMTREOF (reference: zvm-monitor-facts.md 3.2)",
    .length = ZVM_MRHDR_LEN,
};

/* ------------------------------------------------------------------------
 * D4R10 MRUSEITE User Interaction at Transaction End (event).
 * Source: seed 002 (IBM MRUSEITE, z/VM V6R2.0, 200 bytes).
 */
/* Positions in useite_fields of the fields the mapper reads by name; a unit
 * test checks they point at the right offsets. */
#define USEITE_VMDUSER 0
#define USEITE_VMDPUTYP 45

static const struct zvm_field useite_fields[] = {
    U("USEITE_VMDUSER", "vmduser", 20, 8, TEXT),
    U("USEITE_VMDCPUAD", "vmdcpuad", 28, 2, ID),
    S("USEITE_VMDSLCNT", "vmdslcnt", 30, 2, GAUGE),
    U("USEITE_VMDSVMFX", "vmdsvmfx", 32, 4, COUNTER),
    U("USEITE_VMDSVMID", "vmdsvmid", 36, 8, TEXT),
    U("USEITE_VMDSVMWT", "vmdsvmwt", 44, 1, FLAGS),
    U("USEITE_VMDSVMW2", "vmdsvmw2", 45, 1, FLAGS),
    U("USEITE_VMDRDYCM", "vmdrdycm", 46, 1, FLAGS),
    U("USEITE_CALFLAG1", "calflag1", 47, 1, FLAGS),
    U("USEITE_HFQUCT", "hfquct", 48, 4, COUNTER),
    U("USEITE_HFDISP0", "hfdisp0", 52, 4, COUNTER),
    U("USEITE_HFDISP1", "hfdisp1", 56, 4, COUNTER),
    U("USEITE_HFDISP2", "hfdisp2", 60, 4, COUNTER),
    U("USEITE_HFDISP3", "hfdisp3", 64, 4, COUNTER),
    U("USEITE_HFELIG0", "hfelig0", 68, 4, COUNTER),
    U("USEITE_HFELIG1", "hfelig1", 72, 4, COUNTER),
    U("USEITE_HFELIG2", "hfelig2", 76, 4, COUNTER),
    U("USEITE_HFELIG3", "hfelig3", 80, 4, COUNTER),
    U("USEITE_HFSTCT", "hfstct", 84, 4, COUNTER),
    U("USEITE_HFTIDL", "hftidl", 88, 4, COUNTER),
    U("USEITE_HFTSVM", "hftsvm", 92, 4, COUNTER),
    U("USEITE_HFIOWT", "hfiowt", 96, 4, COUNTER),
    U("USEITE_HFCFWT", "hfcfwt", 100, 4, COUNTER),
    U("USEITE_HFSIMWT", "hfsimwt", 104, 4, COUNTER),
    U("USEITE_HFWTPAG", "hfwtpag", 108, 4, COUNTER),
    U("USEITE_HFCPUWT", "hfcpuwt", 112, 4, COUNTER),
    U("USEITE_HFCPURN", "hfcpurn", 116, 4, COUNTER),
    U("USEITE_HFESVM", "hfesvm", 120, 4, COUNTER),
    U("USEITE_HFLOAD", "hfload", 124, 4, COUNTER),
    U("USEITE_HFDORM", "hfdorm", 128, 4, COUNTER),
    S("USEITE_HFDSVM", "hfdsvm", 132, 4, COUNTER),
    U("USEITE_HFOTHR", "hfothr", 136, 4, COUNTER),
    U("USEITE_VMDCNTID", "vmdcntid", 140, 2, COUNTER),
    U("USEITE_VMDCTIDL", "vmdctidl", 142, 2, COUNTER),
    U("USEITE_VMDDFRWK", "vmddfrwk", 144, 4, GAUGE),
    U("USEITE_VMDSTATE", "vmdstate", 148, 1, CODE),
    U("USEITE_CALOSTAT", "calostat", 149, 1, FLAGS),
    U("USEITE_CALRSTAT", "calrstat", 150, 1, FLAGS),
    FIELD("USEITE_VMDCPRMD", "vmdcprmd", 152, 2, 4, false, COUNTER),
    FIELD("USEITE_VMDCWSGD", "vmdcwsgd", 160, 2, 4, false, COUNTER),
    FIELD("USEITE_VMDCETSD", "vmdcetsd", 168, 2, 4, false, COUNTER),
    FIELD("USEITE_VMDCIDLD", "vmdcidld", 176, 2, 4, false, COUNTER),
    U("USEITE_HFIOACT", "hfioact", 184, 4, COUNTER),
    U("USEITE_HFLLIST", "hfllist", 188, 4, COUNTER),
    U("USEITE_HFPGACT", "hfpgact", 192, 4, COUNTER),
    U("USEITE_VMDPUTYP", "vmdputyp", 196, 1, CODE),
    U("USEITE_VMDCFGEM", "vmdcfgem", 197, 1, FLAGS),
    U("USEITE_VMDPUST", "vmdpust", 198, 1, FLAGS),
};
const struct zvm_record_desc zvm_rec_useite = {
    .domain = ZVM_DOMAIN_USER,
    .number = 10,
    .ibm_name = "MRUSEITE",
    .title = "User Interaction at Transaction End",
    .zvm_level = "z/VM V6R2.0",
    .source = "seed 002 (IBM MRUSEITE control block, updated 23 Nov 2011)",
    .length = 200,
    .fields = useite_fields,
    .nfields = COUNT_OF(useite_fields),
};

const struct zvm_field *const zvm_useite_vmduser =
    &useite_fields[USEITE_VMDUSER];
const struct zvm_field *const zvm_useite_vmdputyp =
    &useite_fields[USEITE_VMDPUTYP];

/* ------------------------------------------------------------------------
 * D5R21 MRPRCSMT Multithreading config change event.
 * Source: seed 004 (IBM MRPRCSMT, z/VM V6R4.0, 36 bytes + CPUTINFO array).
 */
enum {
  PRCSMT_RCCSMTSQ,
  PRCSMT_CAL_STATUS,
  PRCSMT_CALMAXTC,
  PRCSMT_RCCCOALL,
  PRCSMT_RCCSMALL,
  PRCSMT_RCCSMSET,
  PRCSMT_CAL_CPUTACNT,
  PRCSMT_CAL_CPUTAESZ,
  PRCSMT_CAL_CPUTAOFF,
};

static const struct zvm_field prcsmt_fields[] = {
    [PRCSMT_RCCSMTSQ] = U("PRCSMT_RCCSMTSQ", "rccsmtsq", 20, 4, GAUGE),
    [PRCSMT_CAL_STATUS] = U("PRCSMT_CAL_STATUS", "cal_status", 24, 1, FLAGS),
    [PRCSMT_CALMAXTC] = U("PRCSMT_CALMAXTC", "calmaxtc", 25, 1, GAUGE),
    [PRCSMT_RCCCOALL] = U("PRCSMT_RCCCOALL", "rcccoall", 26, 1, GAUGE),
    [PRCSMT_RCCSMALL] = U("PRCSMT_RCCSMALL", "rccsmall", 27, 1, GAUGE),
    [PRCSMT_RCCSMSET] = U("PRCSMT_RCCSMSET", "rccsmset", 28, 1, FLAGS),
    [PRCSMT_CAL_CPUTACNT] =
        U("PRCSMT_CAL_CPUTACNT", "cal_cputacnt", 29, 1, LAYOUT),
    [PRCSMT_CAL_CPUTAESZ] =
        U("PRCSMT_CAL_CPUTAESZ", "cal_cputaesz", 30, 2, LAYOUT),
    [PRCSMT_CAL_CPUTAOFF] =
        U("PRCSMT_CAL_CPUTAOFF", "cal_cputaoff", 32, 2, LAYOUT),
};

enum {
  CPUTINFO_CPUTYPE,
  CPUTINFO_RCCCOMNT,
  CPUTINFO_RCCHWMNT,
  CPUTINFO_RCCSYMNT,
  CPUTINFO_RCCACMNT,
  CPUTINFO_RCCSMMNT,
  CPUTINFO_RCCCRMNT,
};

static const struct zvm_field cputinfo_fields[] = {
    [CPUTINFO_CPUTYPE] = U("PRCSMT_CAL_CPUTYPE", "cputype", 0, 1, ID),
    [CPUTINFO_RCCCOMNT] = U("PRCSMT_CAL_RCCCOMNT", "rcccomnt", 1, 1, GAUGE),
    [CPUTINFO_RCCHWMNT] = U("PRCSMT_CAL_RCCHWMNT", "rcchwmnt", 2, 1, GAUGE),
    [CPUTINFO_RCCSYMNT] = U("PRCSMT_CAL_RCCSYMNT", "rccsymnt", 3, 1, GAUGE),
    [CPUTINFO_RCCACMNT] = U("PRCSMT_CAL_RCCACMNT", "rccacmnt", 4, 1, GAUGE),
    [CPUTINFO_RCCSMMNT] = U("PRCSMT_CAL_RCCSMMNT", "rccsmmnt", 5, 1, GAUGE),
    [CPUTINFO_RCCCRMNT] = U("PRCSMT_CAL_RCCCRMNT", "rcccrmnt", 6, 1, GAUGE),
};

static const struct zvm_array prcsmt_cputinfo = {
    .ibm_name = "PRCSMT_CPUTINFO",
    .count_field = &prcsmt_fields[PRCSMT_CAL_CPUTACNT],
    .size_field = &prcsmt_fields[PRCSMT_CAL_CPUTAESZ],
    .offset_field = &prcsmt_fields[PRCSMT_CAL_CPUTAOFF],
    .fields = cputinfo_fields,
    .nfields = COUNT_OF(cputinfo_fields),
    .entry_len = 8,
};

const struct zvm_record_desc zvm_rec_prcsmt = {
    .domain = ZVM_DOMAIN_PROCESSOR,
    .number = 21,
    .ibm_name = "MRPRCSMT",
    .title = "Multithreading config change event",
    .zvm_level = "z/VM V6R4.0",
    .source = "seed 004 (IBM MRPRCSMT control block, updated 5 Oct 2016)",
    .length = 36,
    .fields = prcsmt_fields,
    .nfields = COUNT_OF(prcsmt_fields),
    .array = &prcsmt_cputinfo,
};

const struct zvm_field *const zvm_prcsmt_rccsmtsq =
    &prcsmt_fields[PRCSMT_RCCSMTSQ];
const struct zvm_field *const zvm_prcsmt_cal_status =
    &prcsmt_fields[PRCSMT_CAL_STATUS];
const struct zvm_field *const zvm_prcsmt_calmaxtc =
    &prcsmt_fields[PRCSMT_CALMAXTC];
const struct zvm_field *const zvm_prcsmt_rcccoall =
    &prcsmt_fields[PRCSMT_RCCCOALL];
const struct zvm_field *const zvm_prcsmt_rccsmall =
    &prcsmt_fields[PRCSMT_RCCSMALL];
const struct zvm_field *const zvm_prcsmt_rccsmset =
    &prcsmt_fields[PRCSMT_RCCSMSET];
const struct zvm_field *const zvm_cputinfo_rcccomnt =
    &cputinfo_fields[CPUTINFO_RCCCOMNT];
const struct zvm_field *const zvm_cputinfo_rccsmmnt =
    &cputinfo_fields[CPUTINFO_RCCSMMNT];
const struct zvm_field *const zvm_cputinfo_cputype =
    &cputinfo_fields[CPUTINFO_CPUTYPE];
const struct zvm_field *const zvm_cputinfo_rccacmnt =
    &cputinfo_fields[CPUTINFO_RCCACMNT];
const struct zvm_field *const zvm_cputinfo_rcccrmnt =
    &cputinfo_fields[CPUTINFO_RCCCRMNT];
const struct zvm_field *const zvm_cputinfo_rcchwmnt =
    &cputinfo_fields[CPUTINFO_RCCHWMNT];
const struct zvm_field *const zvm_cputinfo_rccsymnt =
    &cputinfo_fields[CPUTINFO_RCCSYMNT];

/* ------------------------------------------------------------------------
 * Lookup.
 */
const struct zvm_record_desc *const zvm_record_tables[] = {
    &zvm_rec_mtrend,
    &zvm_rec_mtreof,
    &zvm_rec_useite,
    &zvm_rec_prcsmt,
};
const size_t zvm_record_table_count = COUNT_OF(zvm_record_tables);

/* Record numbers used by z/VM stay well below 64 in every domain. */
#define RECORD_NUMBER_SLOTS 64

static const struct zvm_record_desc
    *const by_number[ZVM_DOMAIN_COUNT][RECORD_NUMBER_SLOTS] = {
        [ZVM_DOMAIN_MONITOR][ZVM_MTR_INTERVAL_END] = &zvm_rec_mtrend,
        [ZVM_DOMAIN_MONITOR][ZVM_MTR_END_OF_FRAME] = &zvm_rec_mtreof,
        [ZVM_DOMAIN_USER][10] = &zvm_rec_useite,
        [ZVM_DOMAIN_PROCESSOR][21] = &zvm_rec_prcsmt,
};

const struct zvm_record_desc *zvm_record_find(uint8_t domain, uint16_t number) {
  if (domain >= ZVM_DOMAIN_COUNT || number >= RECORD_NUMBER_SLOTS)
    return NULL;
  return by_number[domain][number];
}

const char *zvm_cpu_type_name(uint8_t type) {
  switch (type) {
  case ZVM_CPU_CP:
    return "cp";
  case ZVM_CPU_ZAAP:
    return "zaap";
  case ZVM_CPU_IFL:
    return "ifl";
  case ZVM_CPU_ICF:
    return "icf";
  case ZVM_CPU_ZIIP:
    return "ziip";
  default:
    return NULL;
  }
}

/* ------------------------------------------------------------------------
 * Field access.
 */
bool zvm_field_present(const struct zvm_field *f, size_t len, unsigned idx) {
  if (idx >= f->count)
    return false;
  return zvm_in_bounds(len, (size_t)f->offset + (size_t)idx * f->width,
                       f->width);
}

static bool field_is_numeric(const struct zvm_field *f) {
  return f->kind != ZVM_FIELD_TEXT;
}

bool zvm_field_u64(const struct zvm_field *f, const uint8_t *data, size_t len,
                   unsigned idx, uint64_t *out) {
  if (!field_is_numeric(f) || !zvm_field_present(f, len, idx))
    return false;
  return zvm_be_uint(data, len, (size_t)f->offset + (size_t)idx * f->width,
                     f->width, out);
}

bool zvm_field_i64(const struct zvm_field *f, const uint8_t *data, size_t len,
                   unsigned idx, int64_t *out) {
  uint64_t raw;
  if (!zvm_field_u64(f, data, len, idx, &raw))
    return false;
  if (f->is_signed) {
    *out = zvm_sign_extend(raw, f->width);
  } else {
    if (raw > (uint64_t)INT64_MAX)
      return false;
    *out = (int64_t)raw;
  }
  return true;
}

enum zvm_array_status zvm_array_locate(const struct zvm_array *a,
                                       const uint8_t *rec, size_t rec_len,
                                       struct zvm_array_view *view) {
  uint64_t count, entry_size, offset;
  if (!zvm_field_u64(a->count_field, rec, rec_len, 0, &count) ||
      !zvm_field_u64(a->size_field, rec, rec_len, 0, &entry_size) ||
      !zvm_field_u64(a->offset_field, rec, rec_len, 0, &offset))
    return ZVM_ARRAY_ABSENT;

  if (count == 0) {
    *view = (struct zvm_array_view){.base = rec, .count = 0, .entry_size = 0};
    return ZVM_ARRAY_OK;
  }
  /* Entries may not overlap the header, must have a size, and all of them
   * must lie inside the record. The widths involved (8/16-bit) cannot
   * overflow 64-bit arithmetic. */
  if (entry_size == 0 || offset < ZVM_MRHDR_LEN || offset > rec_len ||
      count * entry_size > rec_len - offset)
    return ZVM_ARRAY_BAD;

  *view = (struct zvm_array_view){
      .base = rec + offset,
      .count = (size_t)count,
      .entry_size = (size_t)entry_size,
  };
  return ZVM_ARRAY_OK;
}

void zvm_decode_set(const uint8_t *buf, size_t len, zvm_domain_mask_t select,
                    zvm_record_cb cb, void *ctx,
                    struct zvm_decode_stats *stats) {
  struct zvm_walk walk;
  struct zvm_record rec;
  zvm_walk_init(&walk, buf, len, select);
  while (zvm_walk_next(&walk, &rec)) {
    const struct zvm_record_desc *desc =
        zvm_record_find(rec.domain, rec.number);
    if (desc == NULL) {
      stats->unknown++;
      continue;
    }
    if (desc->array != NULL) {
      struct zvm_array_view view;
      /* An unusable array is counted, yet the record's fixed part is
       * still handed on: the callback locates the array itself. */
      if (zvm_array_locate(desc->array, rec.data, rec.len, &view) ==
          ZVM_ARRAY_BAD)
        stats->array_rejected++;
    }
    if (cb != NULL)
      cb(&rec, desc, ctx);
  }
  zvm_walk_stats_add(&stats->walk, &walk.stats);
}
