/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - what D4R1 MRUSELON (uselon.c) and D4R2 MRUSELOF (uselof.c)
 * share: offsets 20-30, the only ones IBM's pages agree on across levels
 * (20 VMDUSER, Character 8; 28 VMDCPUAD, Unsigned 2), and the message of
 * their notifications. Internal to plugin/records.
 */
#ifndef ZVM_RECORDS_SESSION_H
#define ZVM_RECORDS_SESSION_H

#include <stdio.h>

#include "engine/hooks.h"
#include "engine/table.h"
#include "zvm_monitor/decode.h"
#include "zvm_monitor/field.h"

enum { SESSION_VMDUSER, SESSION_VMDCPUAD };

/* The two records' fields; prefix is the IBM name's ("USELON"). */
#define SESSION_FIELDS(prefix)                                                 \
  {                                                                            \
    ZVM_FIELD(SESSION_VMDUSER, prefix "_VMDUSER", "vmduser", 20, 8, 1, EBCDIC, \
              TEXT),                                                           \
        ZVM_FIELD(SESSION_VMDCPUAD, prefix "_VMDCPUAD", "vmdcpuad", 28, 2, 1,  \
                  UNSIGNED, ID),                                               \
  }

/* No type: nothing is dispatched; the key makes UserID and GuestsAsHosts
 * apply to the notifications as to the guest's values. */
#define SESSION_LAYOUT(fields_)                                                \
  {                                                                            \
    .key = {.nparts = 1,                                                       \
            .part = {{.kind = ZVM_KEY_USERID, .field = SESSION_VMDUSER}}},     \
    .fields = fields_, .nfields = ZVM_COUNT_OF(fields_), .length = 30,         \
  }

/* A logon (uselon.c) makes the guest's next D4R2 a new logoff (uselof.c):
 * false if inst (NULL: not tracked) holds no logoff. */
bool zvm_uselof_forget_logoff(struct zvm_instance *inst);

/* "z/VM guest <user ID> logged <what>": the user ID as in identifiers
 * (zvm_name_format), also when it is the host (GuestsAsHosts). The engine
 * read the key from these bytes, so they are present. */
static inline void session_message(char *buf, size_t size,
                                   const struct zvm_field *vmduser,
                                   const uint8_t *data, size_t len,
                                   const char *what) {
  char user[ZVM_NAME_MAX] = "?";
  if (zvm_field_present(vmduser, len, 0))
    (void)zvm_name_format(data + vmduser->offset, vmduser->width, user,
                          sizeof(user));
  snprintf(buf, size, "z/VM guest %s logged %s", user, what);
}

#endif /* ZVM_RECORDS_SESSION_H */
