/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - pure decoder for domain 10 (APPLDATA) records: what Linux
 * guests write into the *MONITOR stream.
 *
 * A D10R2 (APLSDT, sample) or D10R1 (APLEDT, event) record is a 52-byte
 * header (APHDR) followed by a copy of a buffer in guest memory. The
 * header's product ID says which program wrote the buffer and so which
 * layout it has:
 *   - the Linux kernel's appldata modules: EBCDIC "LINUXKRNL", a record
 *     byte (1 mem, 2 os, 3 net_sum), EBCDIC "2601", a modification level;
 *   - s390-tools' mon_fsstatd / mon_procd through /dev/monwriter: ASCII
 *     "LNXAPPL", an application ID (1 fsstatd, 2 procd), a record number,
 *     version, release and a buffer slot number.
 * Every byte after the header was written by the guest: it is hostile.
 * Every length, count and offset is checked against CALDATLN and the
 * record; nothing here reads outside the record.
 *
 * Sources (offsets cited per layout in plugin/appldata/appldata.c):
 *   [APHDR]   IBM MRAPLSDT (z/VM 7.5,
 *             https://www.ibm.com/support/pages/zvm/pubs/mon750/mraplsdt.html)
 *             and MRAPLEDT (z/VM 4.3,
 *             http://www.vm.ibm.com/pubs/mon430/MRAPLEDT.HTML): the same
 *             52-byte APHDR.
 *   [kernel]  Linux arch/s390/appldata/appldata_{base,mem,os,net_sum}.c, a
 *             mainline mirror (Kingxukai/linux @ 9b44fff6: mem, os;
 *             @ 0291023e: base, net_sum) and the 2.6-era os layout with
 *             28-byte CPU entries (torvalds/linux @ 0a0fc0dd); IBM's "APPLDATA
 *             monitor record layout", https://www.ibm.com/docs/en/linuxonibm/
 *             lddd/lddd_r_appldata_layout.html.
 *   [s390-tools] ibm-s390-linux/s390-tools mon_tools/mon_fsstatd.{c,h},
 *             mon_procd.{c,h} @ b627b8d8 (headers), 780133f8 (fsstatd.c),
 *             58ecf1f3 (procd.c).
 */
#ifndef ZVM_APPLDATA_APPLDATA_H
#define ZVM_APPLDATA_APPLDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zvm_monitor/value.h"

#define ZVM_APL_EVENT_RECORD 1  /* D10R1 APLEDT */
#define ZVM_APL_SAMPLE_RECORD 2 /* D10R2 APLSDT */
#define ZVM_APL_HEADER_LEN 52   /* APHDR */
#define ZVM_APL_PRODUCT_LEN 16

/* Which layout the application data has (from the product ID). */
enum zvm_apl_kind {
  ZVM_APL_UNKNOWN = 0, /* product ID not one of the layouts below */
  ZVM_APL_MEM,         /* kernel appldata_mem, record 1 */
  ZVM_APL_OS,          /* kernel appldata_os, record 2 */
  ZVM_APL_NET_SUM,     /* kernel appldata_net_sum, record 3 */
  ZVM_APL_FSSTAT,      /* mon_fsstatd, applid 1 record 0 */
  ZVM_APL_PROCD_SUM,   /* mon_procd, applid 2 record 0 (summary) */
  ZVM_APL_PROCD_TASK,  /* mon_procd, applid 2 record 1 (one task) */
  ZVM_APL_KIND_COUNT
};

/* "mem", "os", "net_sum", "fsstat", "procd_sum", "procd_task" (the
 * RecordKind option's words), or "unknown". */
const char *zvm_apl_kind_name(enum zvm_apl_kind kind);
/* The kind for a name (case-insensitive), or ZVM_APL_UNKNOWN. */
enum zvm_apl_kind zvm_apl_kind_from_name(const char *name);

/* Outcome of decoding one record; every value but OK is counted and the
 * record skipped. */
enum zvm_apl_status {
  ZVM_APL_OK = 0,
  ZVM_APL_BAD_HEADER,      /* record shorter than the APHDR, or CALDATOF /
                              CALDATLN negative or pointing outside it */
  ZVM_APL_UNKNOWN_PRODUCT, /* product ID of no known layout (or an
                              unknown version of a known one) */
  ZVM_APL_TORN,            /* kernel record: sync_count_1 != sync_count_2 */
  ZVM_APL_EMPTY,           /* the buffer was never filled (time stamp 0) */
  ZVM_APL_BAD_DATA,        /* data too short for its layout, or a length, count
                              or offset inside it does not fit */
  ZVM_APL_STATUS_COUNT
};
const char *zvm_apl_status_name(enum zvm_apl_status s);

struct zvm_apl_header {
  uint16_t record;   /* 1 event, 2 sample */
  uint8_t userid[8]; /* APLSDT_USERID, EBCDIC, as in the record */
  uint8_t product[ZVM_APL_PRODUCT_LEN]; /* APLSDT_MDGPROD */
  uint8_t status;                       /* APLSDT_STATUS flag byte */
  const uint8_t *data;                  /* application data (at CALDATOF) */
  size_t data_len;                      /* CALDATLN */
  size_t used_len;        /* decoded OK: bytes of the data its layout uses */
  enum zvm_apl_kind kind; /* from the product ID */
  uint16_t mod_level;     /* product ID bytes 14-15 (kernel: EBCDIC
                             digits; s390-tools: buffer slot number) */
};

/* Kernel records (all three start with a TOD and two sync counters). */
struct zvm_apl_mem {
  uint64_t tod;
  uint64_t pgpgin, pgpgout;   /* KB read from / written to disk */
  uint64_t pswpin, pswpout;   /* pages swapped in / out */
  uint64_t sharedram;         /* raw from sysinfo; 0 in practice */
  uint64_t totalram, freeram; /* KB */
  uint64_t totalhigh, freehigh, bufferram, cached, totalswap, freeswap; /* KB */
  uint64_t pgalloc, pgfault, pgmajfault; /* events */
};

/* One entry of the os record's per-CPU array; times in jiffies (USER_HZ
 * 100 on s390x). steal and cpu_id exist from modification level 01 (36-byte
 * entries); has_steal is false for 28-byte entries, and cpu_id is then the
 * entry's index. */
struct zvm_apl_cpu {
  uint32_t user, nice, system, idle, irq, softirq, iowait, steal;
  uint32_t cpu_id;
  bool has_steal;
};

/* Highest Linux CPU number accepted in an os record (s390 NR_CPUS is at
 * most 512; a larger or repeated cpu_id makes the record BAD_DATA). */
#define ZVM_APL_MAX_CPU_ID 4095

struct zvm_apl_os {
  uint64_t tod;
  uint32_t nr_cpus, per_cpu_size, cpu_offset;
  uint32_t nr_running, nr_threads;
  uint32_t avenrun[3]; /* kernel fixed point, FSHIFT 11, + FIXED_1/200 */
  uint32_t nr_iowait;
  const uint8_t *cpus; /* entry 0; all nr_cpus entries lie in the data */
};

/* Entry i (< nr_cpus) of a decoded os record. */
void zvm_apl_os_cpu(const struct zvm_apl_os *os, size_t i,
                    struct zvm_apl_cpu *out);
/* Load average as /proc/loadavg prints it (two decimals, truncated):
 * what collectd's load plugin reads on the guest. */
double zvm_apl_load(uint32_t avenrun);

struct zvm_apl_net_sum {
  uint64_t tod;
  uint32_t nr_interfaces;
  uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes, rx_errors, tx_errors,
      rx_dropped, tx_dropped, collisions;
};

/* A length-prefixed ASCII string inside the record (not NUL-terminated;
 * any bytes). */
struct zvm_apl_str {
  const uint8_t *p;
  size_t len;
};

struct zvm_apl_fsstat {
  uint64_t time_s; /* Unix seconds (time()) */
  struct zvm_apl_str fsname, dir, type;
  uint64_t bsize, frsize, blocks, bfree, bavail, files, ffree, favail, flag;
};

struct zvm_apl_procd_sum {
  uint64_t time_s; /* Unix seconds */
  uint64_t uptime; /* seconds */
  uint32_t users;
  double load[3]; /* parsed from ASCII; NaN if not a plain decimal */
  uint32_t tasks_total, tasks_running, tasks_sleeping, tasks_stopped,
      tasks_zombie;
  uint32_t num_cpus;
  /* hundredths of a percent of all CPUs over mon_procd's last interval */
  uint16_t puser, pnice, psystem, pidle, piowait, pirq, psoftirq, psteal;
  uint64_t mem_total, mem_used, mem_free, mem_buffers; /* KB */
  uint64_t pgpgin, pgpgout;
  uint64_t swap_total, swap_used, swap_free, swap_cached; /* KB */
  uint64_t pswpin, pswpout;
};

struct zvm_apl_procd_task {
  uint64_t time_s;
  uint32_t pid, ppid, euid;
  uint16_t tty;
  int16_t priority, nice;
  uint32_t processor;
  uint16_t pcpu, pmem;                            /* hundredths of a percent */
  uint64_t total_time, ctotal_time;               /* hundredths of a second */
  uint64_t size, swap, resident, trs, drs, share; /* KB */
  uint64_t dt, maj_flt;
  uint8_t state;
  uint32_t flags;
  struct zvm_apl_str ruser, euser, egroup, wchan, cmd, cmdline;
};

struct zvm_apl_record {
  struct zvm_apl_header hdr;
  union {
    struct zvm_apl_mem mem;
    struct zvm_apl_os os;
    struct zvm_apl_net_sum net;
    struct zvm_apl_fsstat fs;
    struct zvm_apl_procd_sum psum;
    struct zvm_apl_procd_task task;
  } u;
};

/* Parse the APHDR of a domain 10 record (rec/len include the 20-byte
 * MRHDR) and classify its product ID. OK, BAD_HEADER or
 * UNKNOWN_PRODUCT. */
enum zvm_apl_status zvm_apl_parse_header(const uint8_t *rec, size_t len,
                                         struct zvm_apl_header *out);

/* Header and layout: the whole record decoded into *out (out->u according
 * to out->hdr.kind). Pointers in *out point into rec. */
enum zvm_apl_status zvm_apl_decode(const uint8_t *rec, size_t len,
                                   struct zvm_apl_record *out);

/* A decoded record (zvm_apl_decode() OK, from rec) as a record of its own
 * without the data its layout does not use (buffers are padded, e.g. 4010
 * bytes for a few dozen bytes of file system data): the MRHDR and APHDR
 * with MRHDRLEN, CALDATOF (52) and CALDATLN adjusted, then the used data.
 * It decodes to the same values. Returns its length, or 0 if out_size is
 * too small. */
size_t zvm_apl_compact(const struct zvm_apl_record *r, const uint8_t *rec,
                       uint8_t *out, size_t out_size);

/*
 * A guest-written string as part of a collectd name: bytes outside
 * [A-Za-z0-9._+-] become %XX (so '%' itself is escaped and the mapping
 * is injective); with slash_to_dash, '/' becomes '-' first (collectd's df
 * plugin naming: "/" -> "root", "/var/log" -> "var-log"; that mapping is
 * not injective, see the man page). A result longer than out_size - 1
 * is cut and ends in "~" and 8 hex digits of a hash of the whole input,
 * so different long strings still give different names. An empty string
 * gives "". Returns the length written.
 */
size_t zvm_apl_name(const uint8_t *s, size_t len, bool slash_to_dash, char *out,
                    size_t out_size);
/* df's plugin instance for a mount point (as zvm_apl_name with
 * slash_to_dash, "/" giving "root" and the leading '/' dropped). */
size_t zvm_apl_mount_name(const uint8_t *dir, size_t len, char *out,
                          size_t out_size);

/* ------------------------------------------------------------------------
 * Values: a decoded record as a Linux guest measures itself, named in the
 * words of collectd's own plugins on the guest (cpu, memory, swap, vmem,
 * load, processes, interface, df, users, uptime; collectd 5.12
 * src/<plugin>.c), in no front end's terms (value.h, struct
 * zvm_list_name: family = the plugin, member = its instance, metric = a
 * type of collectd's types.db, label = the type instance, item names =
 * the type's data sources). Host and the naming option are the caller's:
 * every value here belongs to the record's guest.
 */
#define ZVM_APL_NAME_MAX 64 /* member / label, with NUL */
#define ZVM_APL_ITEMS_MAX 3

struct zvm_apl_item {
  bool derive; /* DERIVE (else GAUGE) */
  int64_t d;
  double g;
};

struct zvm_apl_value {
  struct zvm_list_name name; /* item_names: n of them */
  size_t n;
  struct zvm_apl_item items[ZVM_APL_ITEMS_MAX];
};

/* Called once per value list; the strings are valid during the call. */
typedef void (*zvm_apl_emit_fn)(void *ctx, const struct zvm_apl_value *v);

/* All value lists of a record that decoded OK (zvm_apl_decode). */
void zvm_apl_values(const struct zvm_apl_record *r, zvm_apl_emit_fn emit,
                    void *ctx);

/* Items of a metric these values use (its data sources in collectd
 * 5.12's types.db: "load" 3, "if_octets" 2, "cpu" 1, ...); 0 for any
 * other metric. */
size_t zvm_apl_type_ds_count(const char *type);

/* ------------------------------------------------------------------------
 * What the configuration chooses (ApplDataKinds, ApplDataNaming: the D10R2
 * descriptor's option rows, aplsdt.c); the hooks read it through their
 * descriptor's hook_data (NULL: defaults).
 */
#define ZVM_APL_KIND_BIT(k) (1u << (k))
#define ZVM_APL_KINDS_DEFAULT                                                  \
  (ZVM_APL_KIND_BIT(ZVM_APL_MEM) | ZVM_APL_KIND_BIT(ZVM_APL_OS) |              \
   ZVM_APL_KIND_BIT(ZVM_APL_NET_SUM) | ZVM_APL_KIND_BIT(ZVM_APL_FSSTAT) |      \
   ZVM_APL_KIND_BIT(ZVM_APL_PROCD_SUM))

struct zvm_apl_options {
  unsigned kinds;  /* ZVM_APL_KIND_BIT()s of the kinds dispatched */
  bool zvm_naming; /* ApplDataNaming zvm_monitor */
  /* Given in the configuration: the first ApplDataKinds replaces the
   * default kinds; either one requires Domain "appldata". */
  bool kinds_given, naming_given;
};

/* The D10R2 MRAPLSDT descriptor (aplsdt.c): the APHDR's user ID as key,
 * the guests' layouts by product ID through its hooks; its hook_data is a
 * struct zvm_apl_options (NULL: the defaults), which its option rows
 * (ApplDataKinds, ApplDataNaming) set. */
struct zvm_record_desc;
extern const struct zvm_record_desc zvm_rec_aplsdt;

#endif /* ZVM_APPLDATA_APPLDATA_H */
