/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - D4R1 MRUSELON, User Logon (event record, domain 4 user,
 * record 1): a notification, no values.
 *
 * Source: IBM, z/VM V7R3.0 monitor record MRUSELON,
 * https://www.ibm.com/support/pages/zvm/pubs/mon730/mruselon.html: "Records
 * a user that has logged on. Generated for the base VMDBK only." (180
 * bytes). Only offsets 20-30, common to every level, are described
 * (session.h).
 *
 * Hook: one notification (session-logon) per logon; a new session also
 * restarts the guest's D4R10 state (whatever was kept of an old one is
 * stale: its logoff may have been lost).
 */
#include "engine/table.h"
#include "records/catalog.h"
#include "records/session.h"
#include "zvm_monitor/decode.h"

static const struct zvm_field uselon_fields[] = SESSION_FIELDS("USELON");

static enum zvm_hook_verdict uselon_instance(struct zvm_hook_ctx *ctx,
                                             struct zvm_instance *inst,
                                             const uint8_t *data, size_t len,
                                             uint64_t time_us) {
  char msg[ZVM_NOTIF_MSG_MAX];
  session_message(msg, sizeof(msg), &uselon_fields[SESSION_VMDUSER], data, len,
                  "on");
  zvm_hook_notify_instance(ctx, ZVM_NOTIF_OKAY, time_us, inst, msg);
  /* A new session: whatever was kept of an old one is stale (its logoff
   * may have been lost). */
  zvm_hook_restart_sessions(ctx, &inst->key); /* D4R10 (or its <Record>) */
  (void)zvm_uselof_forget_logoff(
      zvm_hook_find(ctx, &zvm_rec_uselof.main, &inst->key));
  return ZVM_HOOK_DROP;
}

static const struct zvm_record_hooks uselon_hooks = {
    .instance = uselon_instance,
    .notify_kind = ZVM_NOTIFY_LOGON,
};

const struct zvm_record_desc zvm_rec_uselon = {
    .domain = ZVM_DOMAIN_USER,
    .number = 1,
    .ibm_name = "MRUSELON",
    .title = "User Logon",
    .zvm_level = "z/VM V7R3.0 (offsets 20-30, common to every level)",
    .source = "https://www.ibm.com/support/pages/zvm/pubs/mon730/mruselon.html",
    .length = 180,
    .main = SESSION_LAYOUT(uselon_fields),
    .hooks = &uselon_hooks,
};
