/*
 * zvm_monitor - D4R1/D4R2 hooks: guest logon and logoff notifications,
 * and the end of a guest's state at logoff.
 *
 * A logon (D4R1, written for the base VMDBK only) is one notification. A
 * logoff writes one D4R2 per VMDBK (the base and every virtual CPU active
 * at logoff) within moments: the first is notified, the others of the
 * same logoff are not (a D4R2 of a guest whose logoff was notified less
 * than SAME_LOGOFF_US before, with no logon in between). Both end the
 * guest's D4R10 state: its next record starts afresh (the engine's
 * restart: new VMDBKs' counters are not added to the old ones), while
 * what the pass already holds for it is still dispatched.
 */
#include "engine/hooks.h"

#include <stdio.h>

#define SESSION_VMDUSER 20 /* Character 8 (MRUSELON/MRUSELOF) */

/* "z/VM guest <user ID> logged on|off": the user ID as in identifiers
 * (zvm_name_format), also when it is the host (GuestsAsHosts). The engine
 * read the key from these bytes, so they are present. */
static void session_message(char *buf, size_t size, const uint8_t *data,
                            size_t len, const char *what) {
  char user[ZVM_NAME_MAX] = "?";
  if (len >= SESSION_VMDUSER + ZVM_USERID_LEN)
    (void)zvm_name_format(data + SESSION_VMDUSER, ZVM_USERID_LEN, user,
                          sizeof(user));
  snprintf(buf, size, "z/VM guest %s logged %s", user, what);
}

/* All D4R2 records of one logoff are built at the same moment; a guest
 * cannot log off, log on again and log off within this. */
#define SAME_LOGOFF_US (UINT64_C(2) * 1000000)

struct session_state {
  bool logged_off;    /* a logoff was notified ... */
  uint64_t logoff_us; /* ... with this record time */
};

static enum zvm_hook_verdict uselon_instance(struct zvm_hook_ctx *ctx,
                                             struct zvm_instance *inst,
                                             const uint8_t *data, size_t len,
                                             uint64_t time_us) {
  char msg[ZVM_NOTIF_MSG_MAX];
  session_message(msg, sizeof(msg), data, len, "on");
  zvm_hook_notify_instance(ctx, ZVM_NOTIF_OKAY, time_us, inst, "session",
                           "logon", msg);
  /* A new session: whatever was kept of an old one is stale (its logoff
   * may have been lost). */
  zvm_hook_restart(ctx, &zvm_rec_useite.main, &inst->key);
  struct zvm_instance *off =
      zvm_hook_find(ctx, &zvm_rec_uselof.main, &inst->key);
  if (off != NULL && off->state != NULL)
    ((struct session_state *)off->state)->logged_off = false;
  return ZVM_HOOK_DROP;
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
    session_message(msg, sizeof(msg), data, len, "off");
    zvm_hook_notify_instance(ctx, ZVM_NOTIF_WARNING, time_us, inst, "session",
                             "logoff", msg);
    st->logged_off = true;
    st->logoff_us = time_us;
  }
  zvm_hook_restart(ctx, &zvm_rec_useite.main, &inst->key);
  /* ReportByVirtualCPU: this D4R2's VMDBK (USELOF_VMDCPUAD, offset 28)
   * on its own starts afresh too; not tracked without the option. */
  if (len >= 30) {
    struct zvm_key_value vcpu = inst->key;
    vcpu.v[1] = (uint64_t)data[28] << 8 | data[29];
    (void)zvm_hook_restart(ctx, &zvm_rec_useite_vcpu.main, &vcpu);
  }
  return ZVM_HOOK_DROP;
}

const struct zvm_record_hooks zvm_uselon_hooks = {
    .instance = uselon_instance,
    .notify_kind = ZVM_NOTIFY_LOGON,
};

const struct zvm_record_hooks zvm_uselof_hooks = {
    .instance = uselof_instance,
    .state_size = sizeof(struct session_state),
    .notify_kind = ZVM_NOTIFY_LOGOFF,
};
