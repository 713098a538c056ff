/*
 * zvm_monitor - D4R1 MRUSELON (user logon) and D4R2 MRUSELOF (user
 * logoff): event records the plugin turns into notifications
 * (hooks_session.c), not values.
 *
 * Source: IBM monitor record pages MRUSELON (z/VM 7.3,
 * https://www.ibm.com/support/pages/zvm/pubs/mon730/mruselon.html: "Records
 * a user that has logged on. Generated for the base VMDBK only.", 180
 * bytes) and MRUSELOF (z/VM 6.2,
 * https://www.vm.ibm.com/pubs/mon620/MRUSELOF.HTML, 496 bytes;
 * mon630/mon710/mon730 alike: "A record is created for the base VMDBK and each
 * virtual CPU that is active at LOGOFF", z/VM 6.3 and later). The pages agree
 * across levels only on offsets 20-30, so nothing past them is described: 20
 * VMDUSER (Character 8, the user ID), 28 VMDCPUAD (Unsigned 2, the VMDBK's
 * virtual CPU address).
 */
#include "engine/hooks.h"
#include "zvm_monitor/records.h"

enum { SESSION_VMDUSER, SESSION_VMDCPUAD };

/* The two records share offsets 20-30; only the IBM names differ. */
#define SESSION_FIELDS(prefix)                                                 \
  {                                                                            \
    [SESSION_VMDUSER] = {.ibm_name = prefix "_VMDUSER",                        \
                         .metric = "vmduser",                                  \
                         .offset = 20,                                         \
                         .width = 8,                                           \
                         .count = 1,                                           \
                         .type = ZVM_TYPE_EBCDIC,                              \
                         .kind = ZVM_FIELD_TEXT},                              \
    [SESSION_VMDCPUAD] = {.ibm_name = prefix "_VMDCPUAD",                      \
                          .metric = "vmdcpuad",                                \
                          .offset = 28,                                        \
                          .width = 2,                                          \
                          .count = 1,                                          \
                          .kind = ZVM_FIELD_ID},                               \
  }

static const struct zvm_field uselon_fields[] = SESSION_FIELDS("USELON");
static const struct zvm_field uselof_fields[] = SESSION_FIELDS("USELOF");

/* No type: nothing is dispatched; the key makes UserID and GuestsAsHosts
 * apply to the notifications as to the guest's values. */
#define SESSION_LAYOUT(fields_)                                                \
  {                                                                            \
    .key = {.nparts = 1,                                                       \
            .part = {{.kind = ZVM_KEY_USERID, .field = SESSION_VMDUSER}}},     \
    .fields = fields_, .nfields = sizeof(fields_) / sizeof(fields_[0]),        \
    .length = 30,                                                              \
  }

const struct zvm_record_desc zvm_rec_uselon = {
    .domain = ZVM_DOMAIN_USER,
    .number = 1,
    .ibm_name = "MRUSELON",
    .title = "User Logon",
    .zvm_level = "z/VM V7R3.0 (offsets 20-30, common to every level)",
    .source = "https://www.ibm.com/support/pages/zvm/pubs/mon730/mruselon.html",
    .length = 180,
    .main = SESSION_LAYOUT(uselon_fields),
    .hooks = &zvm_uselon_hooks,
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
    .hooks = &zvm_uselof_hooks,
};
