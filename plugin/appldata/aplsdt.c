/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - D10R2 MRAPLSDT, Application Data Sample (sample record,
 * domain 10 APPLDATA, record 2): the descriptor and its hooks.
 *
 * Source: IBM, z/VM V7R5.0 monitor record MRAPLSDT,
 * https://www.ibm.com/support/pages/zvm/pubs/mon750/mraplsdt.html (the same
 * 52-byte APHDR as MRAPLEDT at z/VM V4R3.0,
 * http://www.vm.ibm.com/pubs/mon430/MRAPLEDT.HTML); the guests' buffers
 * by the Linux kernel's arch/s390/appldata/ (appldata.h names each).
 * A record is decoded by the pure decoder
 * (appldata.c) and named by names.c, in no front end's terms (the
 * mapper's cdname.c makes collectd's identifiers, ApplDataNaming
 * included); the engine keeps the latest record per instance and applies
 * the time rules and selection.
 *
 * Instances: one per guest and record kind (os, mem, net_sum, procd_sum),
 * per guest and file system name (fsstat), per guest and process name
 * (procd_task). Their key is the guest's user ID and, in the second word,
 * the kind and a 56-bit hash of the name the values get: two records that
 * would name the same series are one instance, so a pass never dispatches
 * an identifier twice (two mount points df names alike share one).
 */
#include "appldata/appldata.h"
#include "base/option.h"
#include "base/util.h"
#include "engine/hooks.h"
#include "engine/table.h"
#include "zvm_monitor/be.h"
#include "zvm_monitor/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define APHDR_USERID 24

/* The memory a hostile guest can make the plugin keep (each new mount
 * point or process name is an instance, about 250 bytes with its
 * compacted record) is bounded by the mapper before an instance reaches
 * these hooks: ApplDataInstancesPerGuest per guest, in a pool of their own
 * (hooks.h, guest_dropped; refused records are counted in
 * appldata_dropped). */

/* Per mapper (ctx->record_state). */
struct apl_counts {
  uint64_t torn, unknown;
};

/* Per instance (inst->state): its latest record, compacted. */
struct apl_state {
  uint8_t *rec;
  size_t len, cap;
};

static const struct zvm_apl_options default_options = {
    .kinds = ZVM_APL_KINDS_DEFAULT,
};

static const struct zvm_apl_options *options(const struct zvm_hook_ctx *ctx) {
  return ctx->hook_data != NULL ? ctx->hook_data : &default_options;
}

static uint64_t fnv1a64(const char *s) {
  uint64_t h = UINT64_C(14695981039346656037);
  for (; *s != '\0'; s++) {
    h ^= (uint8_t)*s;
    h *= UINT64_C(1099511628211);
  }
  return h;
}

/* The name that tells a guest's instances of one kind apart: the df
 * plugin instance, the process's plugin instance, or none. */
static void instance_name(const struct zvm_apl_record *r, char *buf,
                          size_t size) {
  buf[0] = '\0';
  if (r->hdr.kind == ZVM_APL_FSSTAT) {
    zvm_apl_mount_name(r->u.fs.dir.p, r->u.fs.dir.len, buf, size);
  } else if (r->hdr.kind == ZVM_APL_PROCD_TASK) {
    char cmd[ZVM_APL_NAME_MAX - 11];
    zvm_apl_name(r->u.task.cmd.p, r->u.task.cmd.len, false, cmd, sizeof(cmd));
    snprintf(buf, size, "%s_%u", cmd, (unsigned)r->u.task.pid);
  }
}

static bool apl_select(struct zvm_hook_ctx *ctx, struct zvm_record_view *view) {
  struct apl_counts *n = ctx->record_state;
  struct zvm_apl_record r;
  switch (zvm_apl_decode(view->rec->data, view->rec->len, &r)) {
  case ZVM_APL_OK:
    break;
  case ZVM_APL_BAD_HEADER:
  case ZVM_APL_BAD_DATA:
    zvm_hook_count_malformed(ctx);
    return false;
  case ZVM_APL_UNKNOWN_PRODUCT:
    n->unknown++;
    return false;
  case ZVM_APL_TORN:
    n->torn++;
    return false;
  default: /* never filled */
    return false;
  }
  if (!(options(ctx)->kinds & ZVM_APL_KIND_BIT(r.hdr.kind)))
    return false;
  char name[ZVM_APL_NAME_MAX];
  instance_name(&r, name, sizeof(name));
  if (!zvm_name_key(r.hdr.userid, sizeof(r.hdr.userid), &view->key.v[0]))
    return false;
  view->key.v[1] = ((uint64_t)r.hdr.kind << 56) |
                   (fnv1a64(name) & UINT64_C(0x00FFFFFFFFFFFFFF));
  view->key_given = true;
  return true;
}

/* Keep the instance's latest record in stream order (the engine's time
 * rules stamp it), compacted: it is decoded again for its values. */
static enum zvm_hook_verdict apl_instance(struct zvm_hook_ctx *ctx,
                                          struct zvm_instance *inst,
                                          const uint8_t *data, size_t len,
                                          uint64_t time_us) {
  (void)time_us; /* the engine stamps the instance (time rules) */
  (void)ctx;
  struct apl_state *st = inst->state;
  struct zvm_apl_record r;
  if (zvm_apl_decode(data, len, &r) != ZVM_APL_OK) /* select decoded it */
    return ZVM_HOOK_DROP;
  size_t need = ZVM_APL_HEADER_LEN + r.hdr.used_len;
  if (need > st->cap) {
    uint8_t *p = realloc(st->rec, need);
    if (p == NULL)
      return ZVM_HOOK_DROP;
    st->rec = p;
    st->cap = need;
  }
  st->len = zvm_apl_compact(&r, data, st->rec, st->cap);
  return ZVM_HOOK_PENDING;
}

/* The guest's lists as names.c names them: in no front end's terms, the
 * naming option passed on (cdname.c makes collectd's identifiers). */
_Static_assert(ZVM_APL_ITEMS_MAX <= ZVM_HOOK_LIST_ITEMS_MAX,
               "every APPLDATA list fits a hook list");
struct sink {
  zvm_hook_list_fn fn;
  void *ctx;
  bool as_monitor;
};

static void emit_list(void *arg, const struct zvm_apl_value *v) {
  struct sink *s = arg;
  struct zvm_hook_list l = {
      .name = v->name, .as_monitor = s->as_monitor, .nitems = v->n};
  for (size_t i = 0; i < v->n && i < ZVM_HOOK_LIST_ITEMS_MAX; i++)
    l.items[i] = v->items[i].derive
                     ? (struct zvm_value_item){.kind = ZVM_VALUE_DERIVE,
                                               .derive = v->items[i].d}
                     : (struct zvm_value_item){.kind = ZVM_VALUE_GAUGE,
                                               .gauge = v->items[i].g};
  s->fn(s->ctx, &l);
}

static void apl_lists(struct zvm_hook_ctx *ctx, const struct zvm_instance *inst,
                      zvm_hook_list_fn fn, void *sink_ctx) {
  const struct apl_state *st = inst->state;
  struct zvm_apl_record r;
  if (st->rec == NULL || zvm_apl_decode(st->rec, st->len, &r) != ZVM_APL_OK)
    return;
  struct sink s = {
      .fn = fn, .ctx = sink_ctx, .as_monitor = options(ctx)->zvm_naming};
  zvm_apl_values(&r, emit_list, &s);
}

static void apl_state_release(void *state) {
  struct apl_state *st = state;
  free(st->rec);
}

static size_t apl_counters(struct zvm_hook_ctx *ctx,
                           struct zvm_hook_counter *out, size_t max) {
  const struct apl_counts *n = ctx->record_state;
  const struct zvm_hook_counter c[] = {{"appldata_torn", n->torn},
                                       {"appldata_unknown", n->unknown}};
  size_t k = 0;
  for (; k < sizeof(c) / sizeof(c[0]) && k < max; k++)
    out[k] = c[k];
  return k;
}

static const struct zvm_record_hooks appldata_hooks = {
    .select = apl_select,
    .instance = apl_instance,
    .lists = apl_lists,
    .counters = apl_counters,
    .state_size = sizeof(struct apl_state),
    .record_state_size = sizeof(struct apl_counts),
    .state_release = apl_state_release,
    .notify_kind = ZVM_NOTIFY_NONE,
    .guest_dropped = "appldata_dropped",
};

/* D10R2 MRAPLSDT, Application Data Sample: the 52-byte APHDR (IBM z/VM
 * MRAPLSDT / MRAPLEDT: 0 MRHDR, 20 CALDATOF, 22 CALDATLN, 24 USERID, 32
 * product ID, 48 status; URLs in appldata.h), then the guest's buffer, whose
 * layouts (by product ID) are in appldata.c with their sources. The only field
 * the engine reads itself is the user ID; the values come from the hooks. */
enum { APLSDT_USERID };

static const struct zvm_field aplsdt_fields[] = {
    ZVM_FIELD(APLSDT_USERID, "APLSDT_USERID", "userid", APHDR_USERID, 8, 1,
              EBCDIC, TEXT),
};

/* ------------------------------------------------------------------------
 * The options the hooks read: rows of the plugin's block (option.h), set
 * in the struct zvm_apl_options a registry gives the descriptor.
 */
static int opt_kinds(void *t, const struct zvm_option *o,
                     const struct zvm_option_value *v, char *err,
                     size_t err_size) {
  (void)o;
  struct zvm_apl_options *a = t;
  enum zvm_apl_kind k = zvm_apl_kind_from_name(v->string);
  if (k == ZVM_APL_UNKNOWN)
    return zvm_format_error(
        err, err_size,
        "ApplDataKinds \"%s\": not a kind (os, mem, net_sum, "
        "fsstat, procd_sum, procd_task)",
        v->string);
  if (!a->kinds_given)
    a->kinds = 0;
  a->kinds_given = true;
  a->kinds |= ZVM_APL_KIND_BIT(k);
  return 0;
}

static int opt_naming(void *t, const struct zvm_option *o,
                      const struct zvm_option_value *v, char *err,
                      size_t err_size) {
  (void)o;
  struct zvm_apl_options *a = t;
  if (strcasecmp(v->string, "collectd") == 0)
    a->zvm_naming = false;
  else if (strcasecmp(v->string, "zvm_monitor") == 0)
    a->zvm_naming = true;
  else
    return zvm_format_error(err, err_size,
                            "ApplDataNaming \"%s\": must be \"collectd\" or "
                            "\"zvm_monitor\"",
                            v->string);
  a->naming_given = true;
  return 0;
}

static const struct zvm_option aplsdt_rows[] = {
    {"ApplDataKinds", ZVM_OPTION_STRING, opt_kinds, 0, NULL},
    {"ApplDataNaming", ZVM_OPTION_STRING, opt_naming, 0, NULL},
};

static void options_init(void *opts) {
  *(struct zvm_apl_options *)opts = default_options;
}

static bool options_given(const void *opts) {
  const struct zvm_apl_options *a = opts;
  return a->kinds_given || a->naming_given;
}

static const struct zvm_record_options aplsdt_options = {
    .rows = aplsdt_rows,
    .nrows = ZVM_COUNT_OF(aplsdt_rows),
    .size = sizeof(struct zvm_apl_options),
    .init = options_init,
    .given = options_given,
};

const struct zvm_record_desc zvm_rec_aplsdt = {
    .domain = ZVM_DOMAIN_APPLDATA,
    .number = 2,
    .ibm_name = "MRAPLSDT",
    .title = "Application Data Sample",
    .zvm_level = "z/VM V7R5.0 (the same APHDR in MRAPLEDT at V4R3)",
    .source = "https://www.ibm.com/support/pages/zvm/pubs/mon750/"
              "mraplsdt.html (the guests' layouts: the Linux kernel's "
              "arch/s390/appldata/)",
    .length = 52,
    .main =
        {
            .key = {.nparts = 1,
                    .part = {{.kind = ZVM_KEY_USERID, .field = APLSDT_USERID}}},
            .host = ZVM_HOST_GUEST,
            .fields = aplsdt_fields,
            .nfields = ZVM_COUNT_OF(aplsdt_fields),
            .length = 52,
        },
    .hooks = &appldata_hooks,
    .options = &aplsdt_options,
};
