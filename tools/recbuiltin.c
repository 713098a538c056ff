/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - a built-in record's table as zvm-monitor-record's mapping
 * takes its names (recbuiltin.h).
 */
#include "recbuiltin.h"

#include "zvm_monitor/field.h"

#include <stdio.h>
#include <string.h>

static void add_layout(struct rp_builtin_names *bn, const struct zvm_layout *l,
                       unsigned table) {
  for (size_t i = 0; i < l->nfields && bn->bt.nfields < RP_BUILTIN_FIELDS_MAX;
       i++) {
    const struct zvm_field *f = &l->fields[i];
    bool instance = false;
    for (unsigned p = 0; p < l->key.nparts; p++)
      instance |= l->key.part[p].field == (int16_t)i;
    unsigned long long mask = (f->flags & ZVM_FIELD_MASK) ? f->mask
                              : (f->flags & ZVM_FIELD_TOP_BIT)
                                  ? 1ULL << (8 * f->width - 1)
                                  : 0;
    bn->f[bn->bt.nfields++] = (struct rp_builtin_field){
        .ibm = f->ibm_name,
        .ds = f->metric,
        .table = table,
        .offset = f->offset,
        .length = f->width,
        .count = f->count,
        .dispatched = zvm_field_dispatched(f),
        .counter = f->kind == ZVM_FIELD_COUNTER,
        .records = f->type == ZVM_TYPE_RECORD_COUNT,
        .instance = instance,
        .allones = (f->flags & ZVM_FIELD_MAX_FLAG)    ? RP_ALLONES_FLAG
                   : (f->flags & ZVM_FIELD_FF_IS_MAX) ? RP_ALLONES_NAN
                                                      : RP_ALLONES_NONE,
        .mask = mask,
        .elem_prefix = f->elem_prefix,
        .single_type = f->single_type,
    };
  }
}

/* Names "zvm_x" -> "x". */
static void type_word(const char *type, char *out, size_t size) {
  snprintf(out, size, "%s",
           type != NULL && strncmp(type, "zvm_", 4) == 0 ? type + 4 : "");
}

void rp_builtin_names(const struct zvm_record_desc *d,
                      struct rp_builtin_names *bn) {
  *bn = (struct rp_builtin_names){.bt = {.fields = bn->f}};
  type_word(d->main.type_name, bn->name, sizeof(bn->name));
  bn->bt.name = bn->name[0] != '\0' ? bn->name : NULL;
  if (d->main.key.nparts == 1 && d->main.key.part[0].kind == ZVM_KEY_FIXED)
    bn->bt.instance_name = d->main.key.part[0].text;
  add_layout(bn, &d->main, 0);
  if (d->narrays > 0) {
    const struct zvm_layout *e = &d->arrays[0].entry;
    bn->bt.array = d->arrays[0].ibm_name;
    type_word(e->type_name, bn->array_name, sizeof(bn->array_name));
    bn->bt.array_name = bn->array_name;
    bn->bt.cputype =
        e->key.nparts == 1 && e->key.part[0].kind == ZVM_KEY_CPU_TYPE;
    add_layout(bn, e, 1);
  }
}
