/* SPDX-License-Identifier: MIT */
/*
 * monreader-emu - scenario file parsing, writing and fault specifications.
 */
#define _GNU_SOURCE
#include "scenario.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err != NULL && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

bool scn_mce_valid(const uint8_t *mce, uint32_t dcss_start, uint32_t dcss_end) {
  uint32_t start = mw_load_be32(mce + 4);
  uint32_t end = mw_load_be32(mce + 8);
  /* Same tests, same order as the driver's mon_check_mca() (the MCA
   * address checks do not apply: a scenario carries no MCA addresses). */
  return !(end <= start || start < dcss_start || end > dcss_end ||
           mce[0] == 0 || (mce[1] == 0 && mce[2] == 0));
}

static void msg_defaults(struct scn_msg *m) {
  memset(m, 0, sizeof(*m));
  m->delay_ms = SCN_NONE;
  m->eio_at = SCN_NONE;
  m->efault_at = SCN_NONE;
}

/* Find the MCEs of a message: deliver_len stops at the first MCE the
 * driver would reject; record sets must lie inside the payload. */
static int msg_index(struct scn_msg *m, uint32_t dcss_start, uint32_t dcss_end,
                     size_t idx, char *err, size_t errlen) {
  size_t off = 0;
  m->nmce = 0;
  m->bad_mce = false;
  m->deliver_len = m->len;
  if (m->len == 0)
    return fail(err, errlen, "message %zu is empty", idx);
  while (off < m->len) {
    if (m->len - off < MW_MCE_LEN)
      return fail(err, errlen, "message %zu: truncated MCE at offset %zu", idx,
                  off);
    const uint8_t *mce = m->data + off;
    if (!scn_mce_valid(mce, dcss_start, dcss_end)) {
      m->bad_mce = true;
      m->deliver_len = off;
      return 0;
    }
    uint64_t rlen = (uint64_t)mw_load_be32(mce + 8) - mw_load_be32(mce + 4) + 1;
    if (rlen > m->len - off - MW_MCE_LEN)
      return fail(err, errlen,
                  "message %zu: MCE at offset %zu claims %llu record bytes, "
                  "only %zu present",
                  idx, off, (unsigned long long)rlen,
                  m->len - off - MW_MCE_LEN);
    off += MW_MCE_LEN + (size_t)rlen;
    m->nmce++;
  }
  return 0;
}

int scn_parse(const uint8_t *buf, size_t len, struct scenario *scn, char *err,
              size_t errlen) {
  memset(scn, 0, sizeof(*scn));
  uint64_t version, dstart, dend, span;
  if (len < SCN_HEADER_LEN || memcmp(buf, SCN_MAGIC, SCN_MAGIC_LEN) != 0)
    return fail(err, errlen, "not a scenario file (bad magic)");
  mw_get_be(buf, len, 8, 4, &version);
  mw_get_be(buf, len, 12, 4, &dstart);
  mw_get_be(buf, len, 16, 4, &dend);
  mw_get_be(buf, len, 24, 8, &span);
  if (version != SCN_VERSION)
    return fail(err, errlen, "unsupported scenario version %llu",
                (unsigned long long)version);
  if (dend <= dstart)
    return fail(err, errlen, "bad DCSS range in header");
  scn->dcss_start = (uint32_t)dstart;
  scn->dcss_end = (uint32_t)dend;
  scn->span_us = span;

  /* Count messages first so the array is allocated once. */
  size_t nmsgs = 0;
  for (size_t off = SCN_HEADER_LEN; off < len;) {
    uint64_t ilen;
    if (!mw_get_be(buf, len, off + 4, 4, &ilen) ||
        ilen > len - off - SCN_ITEM_HDR_LEN)
      return fail(err, errlen, "truncated item at offset %zu", off);
    if (buf[off] == SCN_MESSAGE)
      nmsgs++;
    off += SCN_ITEM_HDR_LEN + (size_t)ilen;
  }
  scn->msgs = calloc(nmsgs + 1, sizeof(*scn->msgs));
  if (scn->msgs == NULL)
    return fail(err, errlen, "out of memory");
  for (size_t i = 0; i <= nmsgs; i++)
    msg_defaults(&scn->msgs[i]);

  /* Directives before a message apply to it (kept in "next"); EOVERFLOW
   * and sever apply to the message before them. */
  struct scn_msg next;
  msg_defaults(&next);
  uint64_t pend_eio = SCN_NONE, pend_efault = SCN_NONE;
  size_t m = 0;
  for (size_t off = SCN_HEADER_LEN; off < len;) {
    uint64_t ilen = 0, a = 0, b = 0;
    mw_get_be(buf, len, off + 4, 4, &ilen);
    const uint8_t *p = buf + off + SCN_ITEM_HDR_LEN;
    uint8_t kind = buf[off];
    bool has_a = mw_get_be(p, (size_t)ilen, 0, 4, &a);
    bool has_b = mw_get_be(p, (size_t)ilen, 4, 4, &b);
    switch (kind) {
    case SCN_MESSAGE: {
      struct scn_msg *msg = &scn->msgs[m];
      *msg = next;
      msg->data = p;
      msg->len = (size_t)ilen;
      if (msg_index(msg, scn->dcss_start, scn->dcss_end, m, err, errlen) != 0)
        goto bad;
      if (pend_eio != SCN_NONE) {
        msg->eio_at = pend_eio == SCN_AT_END ? msg->deliver_len : pend_eio;
        if (msg->eio_at > msg->deliver_len) {
          fail(err, errlen, "message %zu: EIO offset beyond its data", m);
          goto bad;
        }
      }
      if (pend_efault != SCN_NONE) {
        msg->efault_at = pend_efault;
        if (msg->efault_at >= msg->deliver_len) {
          fail(err, errlen, "message %zu: EFAULT offset beyond its data", m);
          goto bad;
        }
      }
      msg_defaults(&next);
      pend_eio = pend_efault = SCN_NONE;
      m++;
      break;
    }
    case SCN_DELAY:
      if (!has_a)
        goto short_item;
      next.delay_ms = a;
      break;
    case SCN_EIO:
      if (!has_a)
        goto short_item;
      pend_eio = a;
      break;
    case SCN_EFAULT:
      if (!has_a)
        goto short_item;
      pend_efault = a;
      break;
    case SCN_OPEN_ERROR:
      if (!has_a || !has_b)
        goto short_item;
      next.open_errno = (int)a;
      next.open_count = (unsigned)b;
      break;
    case SCN_EOVERFLOW:
    case SCN_SEVER:
      if (m == 0) {
        fail(err, errlen, "item '%c' at offset %zu before any message", kind,
             off);
        goto bad;
      }
      if (kind == SCN_EOVERFLOW)
        scn->msgs[m - 1].eoverflow = true;
      else
        scn->msgs[m - 1].sever = true;
      break;
    default:
      fail(err, errlen, "unknown item kind 0x%02x at offset %zu", kind, off);
      goto bad;
    }
    off += SCN_ITEM_HDR_LEN + (size_t)ilen;
    continue;
  short_item:
    fail(err, errlen, "item '%c' at offset %zu too short", kind, off);
    goto bad;
  }
  scn->msgs[nmsgs].open_errno = next.open_errno;
  scn->msgs[nmsgs].open_count = next.open_count;
  scn->nmsgs = nmsgs;
  return 0;
bad:
  free(scn->msgs);
  scn->msgs = NULL;
  return -1;
}

int scn_load(const char *path, struct scenario *scn, char *err, size_t errlen) {
  memset(scn, 0, sizeof(*scn));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail(err, errlen, "%s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size <= 0) {
    close(fd);
    return fail(err, errlen, "%s: empty or unreadable", path);
  }
  size_t len = (size_t)st.st_size;
  uint8_t *buf = malloc(len);
  if (buf == NULL) {
    close(fd);
    return fail(err, errlen, "%s: out of memory", path);
  }
  size_t got = 0;
  while (got < len) {
    ssize_t n = read(fd, buf + got, len - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      free(buf);
      close(fd);
      return fail(err, errlen, "%s: read failed", path);
    }
    got += (size_t)n;
  }
  close(fd);
  if (scn_parse(buf, len, scn, err, errlen) != 0) {
    free(buf);
    return -1;
  }
  scn->owned = buf;
  scn->owned_len = len;
  return 0;
}

void scn_free(struct scenario *scn) {
  free(scn->msgs);
  free(scn->owned);
  memset(scn, 0, sizeof(*scn));
}

/* ---- errno names -------------------------------------------------------- */
static const struct {
  const char *name;
  int value;
} errno_names[] = {
    {"EIO", EIO},       {"EBUSY", EBUSY},   {"ENOMEM", ENOMEM},
    {"ENODEV", ENODEV}, {"EACCES", EACCES}, {"EPERM", EPERM},
    {"ENOENT", ENOENT}, {"EAGAIN", EAGAIN}, {"EFAULT", EFAULT},
    {"EINTR", EINTR},   {"EINVAL", EINVAL}, {"EOVERFLOW", EOVERFLOW},
    {"EBADF", EBADF},
};

int scn_errno_from_name(const char *name) {
  for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
    if (strcmp(name, errno_names[i].name) == 0)
      return errno_names[i].value;
  char *end;
  long v = strtol(name, &end, 10);
  if (*name == '\0' || *end != '\0' || v <= 0 || v > 4095)
    return -1;
  return (int)v;
}

const char *scn_errno_name(int err) {
  for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
    if (errno_names[i].value == err)
      return errno_names[i].name;
  return "E?";
}

/* ---- fault specifications ---------------------------------------------- */
static const struct {
  const char *name;
  enum scn_fault_kind kind;
  unsigned min_args, max_args;
} fault_names[] = {
    {"eio", SCN_F_EIO, 0, 1},
    {"efault", SCN_F_EFAULT, 0, 1},
    {"eoverflow", SCN_F_EOVERFLOW, 0, 0},
    {"sever", SCN_F_SEVER, 0, 0},
    {"open", SCN_F_OPEN, 1, 2},
    {"delay", SCN_F_DELAY, 1, 1},
    {"badmca", SCN_F_BADMCA, 0, 1},
};

static bool parse_u64(const char *s, size_t n, uint64_t *out) {
  if (n == 0 || n > 20)
    return false;
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    uint64_t d = (uint64_t)(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10)
      return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

static int parse_one_fault(const char *tok, size_t len, struct scn_fault *f,
                           char *err, size_t errlen) {
  const char *at = memchr(tok, '@', len);
  if (at == NULL)
    return fail(err, errlen, "fault '%.*s': expected NAME@MESSAGE[:ARG...]",
                (int)len, tok);
  size_t nlen = (size_t)(at - tok);
  size_t k;
  for (k = 0; k < sizeof(fault_names) / sizeof(fault_names[0]); k++)
    if (strlen(fault_names[k].name) == nlen &&
        memcmp(fault_names[k].name, tok, nlen) == 0)
      break;
  if (k == sizeof(fault_names) / sizeof(fault_names[0]))
    return fail(err, errlen, "fault '%.*s': unknown fault name", (int)len, tok);
  *f = (struct scn_fault){
      .kind = fault_names[k].kind, .arg = SCN_NONE, .arg2 = SCN_NONE};

  /* Split the rest at ':' into message index and up to two arguments. */
  const char *p = at + 1, *end = tok + len;
  const char *fields[3];
  size_t flen[3];
  unsigned nf = 0;
  for (;;) {
    if (nf == 3)
      return fail(err, errlen, "fault '%.*s': too many arguments", (int)len,
                  tok);
    const char *c = memchr(p, ':', (size_t)(end - p));
    const char *fe = c != NULL ? c : end;
    fields[nf] = p;
    flen[nf] = (size_t)(fe - p);
    nf++;
    if (c == NULL)
      break;
    p = c + 1;
  }
  unsigned nargs = nf - 1;
  if (nargs < fault_names[k].min_args || nargs > fault_names[k].max_args)
    return fail(err, errlen, "fault '%.*s': wrong number of arguments",
                (int)len, tok);
  if (!parse_u64(fields[0], flen[0], &f->msg))
    return fail(err, errlen, "fault '%.*s': bad message index", (int)len, tok);

  if (f->kind == SCN_F_OPEN) {
    char name[32];
    if (flen[1] == 0 || flen[1] >= sizeof(name))
      return fail(err, errlen, "fault '%.*s': bad errno", (int)len, tok);
    memcpy(name, fields[1], flen[1]);
    name[flen[1]] = '\0';
    int e = scn_errno_from_name(name);
    if (e < 0)
      return fail(err, errlen, "fault '%.*s': unknown errno '%s'", (int)len,
                  tok, name);
    f->arg = (uint64_t)e;
    f->arg2 = 1;
    if (nargs == 2 && (!parse_u64(fields[2], flen[2], &f->arg2) ||
                       f->arg2 == 0 || f->arg2 > 1000000))
      return fail(err, errlen, "fault '%.*s': bad count", (int)len, tok);
    return 0;
  }
  if (nargs == 1 && !parse_u64(fields[1], flen[1], &f->arg))
    return fail(err, errlen, "fault '%.*s': bad number", (int)len, tok);
  return 0;
}

int scn_faults_parse(const char *spec, struct scn_fault **out, size_t *n,
                     char *err, size_t errlen) {
  *out = NULL;
  *n = 0;
  size_t cap = 0;
  const char *p = spec;
  while (p != NULL && *p != '\0') {
    while (*p == ',' || *p == ' ' || *p == '\t' || *p == '\n')
      p++;
    if (*p == '\0')
      break;
    size_t len = strcspn(p, ", \t\n");
    if (*n == cap) {
      cap = cap ? cap * 2 : 8;
      struct scn_fault *nf = realloc(*out, cap * sizeof(**out));
      if (nf == NULL) {
        free(*out);
        *out = NULL;
        return fail(err, errlen, "out of memory");
      }
      *out = nf;
    }
    if (parse_one_fault(p, len, &(*out)[*n], err, errlen) != 0) {
      free(*out);
      *out = NULL;
      *n = 0;
      return -1;
    }
    (*n)++;
    p += len;
  }
  return 0;
}

int scn_faults_apply(struct scenario *scn, const struct scn_fault *f, size_t n,
                     char *err, size_t errlen) {
  for (size_t i = 0; i < n; i++) {
    uint64_t limit = f[i].kind == SCN_F_OPEN ? scn->nmsgs : scn->nmsgs - 1;
    if (scn->nmsgs == 0 || f[i].msg > limit)
      return fail(err, errlen,
                  "fault %zu names message %llu; the scenario "
                  "has %zu messages",
                  i, (unsigned long long)f[i].msg, scn->nmsgs);
    struct scn_msg *m = &scn->msgs[f[i].msg];
    switch (f[i].kind) {
    case SCN_F_EIO:
      m->eio_at = f[i].arg == SCN_NONE ? m->deliver_len : f[i].arg;
      if (m->eio_at > m->deliver_len)
        return fail(err, errlen, "eio@%llu: offset beyond the message",
                    (unsigned long long)f[i].msg);
      break;
    case SCN_F_EFAULT:
      m->efault_at = f[i].arg == SCN_NONE ? 0 : f[i].arg;
      if (m->efault_at >= m->deliver_len)
        return fail(err, errlen, "efault@%llu: offset beyond the message",
                    (unsigned long long)f[i].msg);
      break;
    case SCN_F_EOVERFLOW:
      m->eoverflow = true;
      break;
    case SCN_F_SEVER:
      m->sever = true;
      break;
    case SCN_F_OPEN:
      m->open_errno = (int)f[i].arg;
      m->open_count = (unsigned)f[i].arg2;
      break;
    case SCN_F_DELAY:
      m->delay_ms = f[i].arg;
      break;
    case SCN_F_BADMCA: {
      /* Delivery stops at MCE k, as if the driver rejected it. */
      uint64_t k = f[i].arg == SCN_NONE ? 0 : f[i].arg;
      if (k >= m->nmce)
        return fail(err, errlen, "badmca@%llu: message has %u MCEs",
                    (unsigned long long)f[i].msg, m->nmce);
      size_t off = 0;
      for (uint64_t j = 0; j < k; j++)
        off += MW_MCE_LEN + (size_t)(mw_load_be32(m->data + off + 8) -
                                     mw_load_be32(m->data + off + 4) + 1);
      m->deliver_len = off;
      m->nmce = (unsigned)k;
      m->bad_mce = true;
      if (m->eio_at != SCN_NONE && m->eio_at > off)
        m->eio_at = off;
      if (m->efault_at != SCN_NONE && m->efault_at >= off)
        m->efault_at = SCN_NONE;
      break;
    }
    }
  }
  return 0;
}

/* ---- writing ----------------------------------------------------------- */
int scn_write_header(FILE *fp, uint32_t dcss_start, uint32_t dcss_end,
                     uint64_t span_us) {
  uint8_t h[SCN_HEADER_LEN] = {0};
  memcpy(h, SCN_MAGIC, SCN_MAGIC_LEN);
  mw_put_be(h, sizeof(h), 8, 4, SCN_VERSION);
  mw_put_be(h, sizeof(h), 12, 4, dcss_start);
  mw_put_be(h, sizeof(h), 16, 4, dcss_end);
  mw_put_be(h, sizeof(h), 24, 8, span_us);
  return fwrite(h, 1, sizeof(h), fp) == sizeof(h) ? 0 : -1;
}

int scn_write_item(FILE *fp, enum scn_kind kind, const uint8_t *payload,
                   uint32_t len) {
  uint8_t h[SCN_ITEM_HDR_LEN] = {(uint8_t)kind, 0, 0, 0};
  mw_put_be(h, sizeof(h), 4, 4, len);
  if (fwrite(h, 1, sizeof(h), fp) != sizeof(h))
    return -1;
  if (len > 0 && fwrite(payload, 1, len, fp) != len)
    return -1;
  return 0;
}

int scn_write_item_u32(FILE *fp, enum scn_kind kind, unsigned nvals, uint32_t a,
                       uint32_t b) {
  uint8_t p[8];
  mw_put_be(p, sizeof(p), 0, 4, a);
  mw_put_be(p, sizeof(p), 4, 4, b);
  return scn_write_item(fp, kind, p, nvals * 4);
}
