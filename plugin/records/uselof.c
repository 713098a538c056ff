/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - D4R2 MRUSELOF, User Logoff Data (event record, domain 4
 * user, record 2): a notification, no values.
 *
 * Source: IBM, z/VM V6R2.0 monitor record MRUSELOF,
 * https://www.vm.ibm.com/pubs/mon620/MRUSELOF.HTML (496 bytes; mon630,
 * mon710, mon730 alike: "A record is created for the base VMDBK and each
 * virtual CPU that is active at LOGOFF", z/VM 6.3 and later). Only offsets
 * 20-30, common to every level, are described (session.h).
 *
 * Hook: a logoff writes one D4R2 per VMDBK within moments: the first is
 * notified (session-logoff), the others of the same logoff are not (a
 * D4R2 of a guest whose logoff was notified less than SAME_LOGOFF_US
 * before, with no logon in between). Each ends the guest's D4R10 state:
 * its next record starts afresh (the engine's restart: new VMDBKs'
 * counters are not added to the old ones), while what the pass already
 * holds for it is still dispatched.
 */
#include "engine/table.h"
#include "records/catalog.h"
#include "records/session.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/field.h"

static const struct zvm_field uselof_fields[] = SESSION_FIELDS("USELOF");

/* All D4R2 records of one logoff are built at the same moment; a guest
 * cannot log off, log on again and log off within this. */
#define SAME_LOGOFF_US (UINT64_C(2) * 1000000)

struct session_state {
  bool logged_off;    /* a logoff was notified ... */
  uint64_t logoff_us; /* ... with this record time */
};

bool zvm_uselof_forget_logoff(struct zvm_instance *inst) {
  if (inst == NULL || inst->state == NULL)
    return false;
  ((struct session_state *)inst->state)->logged_off = false;
  return true;
}

static enum zvm_hook_verdict uselof_instance(struct zvm_hook_ctx *ctx,
                                             struct zvm_instance *inst,
                                             const uint8_t *data, size_t len,
                                             uint64_t time_us) {
  struct session_state *st = inst->state;
  bool same_logoff = st->logged_off && time_us >= st->logoff_us &&
                     time_us - st->logoff_us < SAME_LOGOFF_US;
  if (!same_logoff) {
    char msg[ZVM_NOTIF_MSG_MAX];
    session_message(msg, sizeof(msg), &uselof_fields[SESSION_VMDUSER], data,
                    len, "off");
    zvm_hook_notify_instance(ctx, ZVM_NOTIF_WARNING, time_us, inst, msg);
    st->logged_off = true;
    st->logoff_us = time_us;
  }
  zvm_hook_restart_sessions(ctx, &inst->key); /* D4R10 (or its <Record>) */
  /* ReportByVirtualCPU: this D4R2's VMDBK (USELOF_VMDCPUAD) on its own
   * starts afresh too; not tracked without the option. */
  uint64_t cpuad;
  if (zvm_field_u64(&uselof_fields[SESSION_VMDCPUAD], data, len, 0, &cpuad)) {
    struct zvm_key_value vcpu = inst->key;
    vcpu.v[1] = cpuad;
    (void)zvm_hook_restart(ctx, &zvm_rec_useite_vcpu.main, &vcpu);
  }
  return ZVM_HOOK_DROP;
}

static const struct zvm_record_hooks uselof_hooks = {
    .instance = uselof_instance,
    .state_size = sizeof(struct session_state),
    .notify_kind = ZVM_NOTIFY_LOGOFF,
};

const struct zvm_record_desc zvm_rec_uselof = {
    .domain = ZVM_DOMAIN_USER,
    .number = 2,
    .ibm_name = "MRUSELOF",
    .title = "User Logoff Data",
    .zvm_level = "z/VM V6R2.0 (offsets 20-30, common to every level)",
    .source = "https://www.vm.ibm.com/pubs/mon620/MRUSELOF.HTML",
    .length = 496,
    .main = SESSION_LAYOUT(uselof_fields),
    .hooks = &uselof_hooks,
};
