/* SPDX-License-Identifier: MIT */
/*
 * hypfs - the I/O: the kernel's debugfs files (arch/s390/hypfs/hypfs_dbfs.c)
 * and the hypfs tree (arch/s390/hypfs/inode.c, hypfs_vm_fs.c,
 * hypfs_diag_fs.c). Everything here hands bytes or numbers to the model;
 * no layout knowledge beyond the debugfs header's length field.
 */
#include "hypfs/core.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "zvm_monitor/be.h"

/* Upper bound for a debugfs file: DIAG 204 data is at most some hundred
 * pages, DIAG 2FC 112 bytes per guest; 64 MiB is far above both. */
#define DEBUGFS_MAX ((size_t)64 * 1024 * 1024)
#define DEBUGFS_MIN ((size_t)64 * 1024)

static bool ensure(uint8_t **buf, size_t *cap, size_t want) {
  if (*cap >= want)
    return true;
  uint8_t *p = realloc(*buf, want);
  if (p == NULL)
    return false;
  *buf = p;
  *cap = want;
  return true;
}

/*
 * Every file is opened without following a symbolic link in its last
 * component and without blocking (a FIFO or a device put at a configured
 * path would hang the read thread in open() or read(), and collectd's
 * shutdown waits for it), then must be a regular file, as debugfs and
 * hypfs files are (debugfs_create_file() and hypfs_create_file() give
 * S_IFREG). The descriptor, or -errno, or HYPFS_NOT_REGULAR.
 */
static int open_regular(const char *path, int flags) {
  int fd = open(path, flags | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    /* O_NOFOLLOW on a symbolic link; a FIFO without reader (O_WRONLY) */
    if (errno == ELOOP || errno == ENXIO)
      return HYPFS_NOT_REGULAR;
    return -errno;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return -err;
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return HYPFS_NOT_REGULAR;
  }
  return fd;
}

/*
 * The kernel builds the file's data on the first read() at offset 0 and
 * copies min(size, count) bytes; a second read() at offset 0 needs a new
 * open, and then may see a new snapshot. So: one read() with a buffer
 * large enough, and if the header (u64 length of what follows, both files'
 * first field) says more than arrived, re-open with the size it names.
 */
int hypfs_read_debugfs(const char *path, uint8_t **buf, size_t *cap,
                       size_t *len, uint64_t *retries) {
  if (!ensure(buf, cap, DEBUGFS_MIN))
    return -ENOMEM;
  for (int attempt = 0; attempt < 4; attempt++) {
    int fd = open_regular(path, O_RDONLY);
    if (fd < 0)
      return fd;
    ssize_t n;
    do
      n = read(fd, *buf, *cap);
    while (n < 0 && errno == EINTR);
    int err = errno;
    close(fd);
    if (n < 0)
      return -err;
    *len = (size_t)n;
    uint64_t body;
    if (!zvm_be_uint(*buf, *len, 0, 8, &body) || body > DEBUGFS_MAX)
      return 0; /* the decoder rejects it and counts */
    size_t want = (size_t)body + 64;
    if (want <= *len || (size_t)n < *cap)
      return 0; /* complete, or the kernel gave all it had */
    /* The buffer was full: the file is larger. */
    if (!ensure(buf, cap, want + want / 4))
      return -ENOMEM;
    (*retries)++;
  }
  return 0;
}

/* a "/" b into out; "" (which no open() finds) if it does not fit. */
static void join(char *out, size_t size, const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la + 1 + lb + 1 > size) {
    out[0] = '\0';
    return;
  }
  memcpy(out, a, la);
  out[la] = '/';
  memcpy(out + la + 1, b, lb + 1);
}

/* ---- the hypfs tree ------------------------------------------------- */

static int read_small(const char *path, char *out, size_t size,
                      uint64_t *bytes) {
  int fd = open_regular(path, O_RDONLY);
  if (fd < 0)
    return fd;
  ssize_t n;
  do
    n = read(fd, out, size - 1);
  while (n < 0 && errno == EINTR);
  int err = errno;
  close(fd);
  if (n < 0)
    return -err;
  out[n] = '\0';
  *bytes += (uint64_t)n;
  return (int)n;
}

/* A hypfs_create_u64() file: "%llu\n". */
static int read_u64(const char *path, uint64_t *v, uint64_t *bytes) {
  char s[64];
  int rc = read_small(path, s, sizeof(s), bytes);
  if (rc < 0)
    return rc;
  if (!isdigit((unsigned char)s[0]))
    return -EINVAL;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 10);
  if (errno != 0 || (*end != '\n' && *end != '\0'))
    return -EINVAL;
  *v = x;
  return 0;
}

int hypfs_tree_kind(const char *dir, enum hypfs_tree_kind *kind) {
  char path[4096], s[64];
  uint64_t bytes = 0;
  join(path, sizeof(path), dir, "hyp/type");
  int rc = read_small(path, s, sizeof(s), &bytes);
  if (rc < 0)
    return rc;
  if (strncmp(s, "z/VM Hypervisor", 15) == 0)
    *kind = HYPFS_TREE_VM;
  else if (strncmp(s, "LPAR Hypervisor", 15) == 0)
    *kind = HYPFS_TREE_LPAR;
  else
    *kind = HYPFS_TREE_UNKNOWN;
  return 0;
}

int hypfs_tree_update(const char *dir) {
  char path[4096];
  join(path, sizeof(path), dir, "update");
  int fd = open_regular(path, O_WRONLY);
  if (fd < 0)
    return fd;
  ssize_t n = write(fd, "1\n", 2);
  int err = errno;
  close(fd);
  return n < 0 ? -err : 0;
}

struct u64_file {
  const char *name;
  size_t off; /* in struct hypfs_guest */
  unsigned width;
};

/* The files hypfs_vm_fs.c creates per guest, and their DIAG X'2FC' field.
 * capped and dedicated are derived from flags by the kernel and are
 * rebuilt into flags here. */
static const struct u64_file vm_files[] = {
    {"onlinetime_us", offsetof(struct hypfs_guest, el_time_us), 8},
    {"cpus/cputime_us", offsetof(struct hypfs_guest, used_cpu_us), 8},
    {"cpus/count", offsetof(struct hypfs_guest, vcpus), 4},
    {"cpus/weight_min", offsetof(struct hypfs_guest, ocpus), 4},
    {"cpus/weight_max", offsetof(struct hypfs_guest, cpu_max), 4},
    {"cpus/weight_cur", offsetof(struct hypfs_guest, cpu_shares), 4},
    {"mem/min_KiB", offsetof(struct hypfs_guest, mem_min_kib), 8},
    {"mem/max_KiB", offsetof(struct hypfs_guest, mem_max_kib), 8},
    {"mem/used_KiB", offsetof(struct hypfs_guest, mem_used_kib), 8},
    {"mem/share_KiB", offsetof(struct hypfs_guest, mem_share_kib), 8},
    {"samples/cpu_using", offsetof(struct hypfs_guest, cpu_use_samp), 4},
    {"samples/cpu_delay", offsetof(struct hypfs_guest, cpu_delay_samp), 4},
    {"samples/mem_delay", offsetof(struct hypfs_guest, page_wait_samp), 4},
    {"samples/idle", offsetof(struct hypfs_guest, idle_samp), 4},
    {"samples/other", offsetof(struct hypfs_guest, other_samp), 4},
    {"samples/total", offsetof(struct hypfs_guest, total_samp), 4},
};

static void store(void *base, size_t off, unsigned width, uint64_t v) {
  if (width == 8)
    memcpy((uint8_t *)base + off, &v, 8);
  else {
    uint32_t x = (uint32_t)v;
    memcpy((uint8_t *)base + off, &x, 4);
  }
}

static int read_guest(const char *gdir, struct hypfs_guest *g,
                      uint64_t *bytes) {
  char path[4096];
  for (size_t i = 0; i < sizeof(vm_files) / sizeof(vm_files[0]); i++) {
    uint64_t v;
    join(path, sizeof(path), gdir, vm_files[i].name);
    int rc = read_u64(path, &v, bytes);
    if (rc < 0)
      return rc;
    store(g, vm_files[i].off, vm_files[i].width, v);
  }
  uint64_t capped, dedicated;
  join(path, sizeof(path), gdir, "cpus/capped");
  int rc = read_u64(path, &capped, bytes);
  if (rc < 0)
    return rc;
  join(path, sizeof(path), gdir, "cpus/dedicated");
  rc = read_u64(path, &dedicated, bytes);
  if (rc < 0)
    return rc;
  g->flags = (uint32_t)(((capped & 3) << 1) | ((dedicated & 1) << 3));
  return 0;
}

static bool is_entry(const struct dirent *de) { return de->d_name[0] != '.'; }

/*
 * What is at dir when hyp/type is missing. An unused mount point (sysfs
 * creates /sys/hypervisor/s390 empty, sysfs_create_mount_point()) or no
 * directory at all: nothing mounted. Only the update file: a mounted tree
 * the kernel emptied, because its last update failed (inode.c,
 * hypfs_write_iter(): hypfs_delete_tree() after a failing
 * hypfs_vm_create_files() or hypfs_diag_create_files(), the update file
 * kept); writing update again rebuilds it once the kernel can.
 */
enum hypfs_tree_state hypfs_tree_state(const char *dir) {
  DIR *dh = opendir(dir);
  if (dh == NULL)
    return HYPFS_TREE_ABSENT;
  size_t entries = 0;
  bool update = false;
  struct dirent *de;
  while ((de = readdir(dh)) != NULL) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    entries++;
    update = update || strcmp(de->d_name, "update") == 0;
  }
  closedir(dh);
  if (entries == 0)
    return HYPFS_TREE_ABSENT;
  if (entries == 1 && update)
    return HYPFS_TREE_EMPTIED;
  return HYPFS_TREE_OTHER;
}

/* ---- systems/<name>: the walk both trees share ----------------------- */

/* The caller's array a walk of systems/ appends to: records of item_size
 * bytes, each with a name of name_size bytes at name_off. */
struct system_array {
  void *items; /* the array pointer's address (T **), as zvm_grow takes it */
  size_t *cap;
  size_t *num;
  size_t item_size;
  size_t name_off;
  size_t name_size;
  size_t *records;        /* every entry of systems/ */
  unsigned long *skipped; /* entries skipped, the first in *skip */
  struct hypfs_skip *skip;
};

/* The system_array of records of type T in the snapshot d (a struct
 * hypfs_d2fc or hypfs_d204 pointer), its array, cap and num. */
#define SYSTEM_ARRAY(T, d, array, cap, num)                                    \
  {                                                                            \
    &(d)->array, &(d)->cap, &(d)->num, sizeof(T), offsetof(T, name),           \
        sizeof(((T *)0)->name), &(d)->records, &(d)->skipped_names,            \
        &(d)->skipped_first                                                    \
  }

/* Fills the rest of item (zeroed, its name set) from the system's
 * directory sdir: 0 keeps it, 1 skips it (counted), -errno ends the walk. */
typedef int (*system_read_fn)(void *arg, void *item, const char *sdir);

/*
 * <dir>/systems/<name>, one per guest (hypfs_vm_fs.c) or partition
 * (hypfs_diag_fs.c): a zeroed record at the end of the array per entry, its
 * name converted, the rest left to read_one. A name that does not convert
 * and a record read_one skips are counted in a->skipped (the first noted in
 * a->skip), and the slot is used again. 0, or -errno.
 */
static int walk_systems(const char *dir, const struct system_array *a,
                        system_read_fn read_one, void *arg) {
  char path[4096];
  join(path, sizeof(path), dir, "systems");
  DIR *dh = opendir(path);
  if (dh == NULL)
    return -errno;
  int rc = 0;
  struct dirent *de;
  while ((de = readdir(dh)) != NULL) {
    if (!is_entry(de))
      continue;
    if (!zvm_grow(a->items, a->cap, *a->num, a->item_size, 16)) {
      rc = -ENOMEM;
      break;
    }
    uint8_t *items;
    memcpy(&items, a->items, sizeof(items));
    uint8_t *item = items + *a->num * a->item_size;
    memset(item, 0, a->item_size);
    (*a->records)++;
    const uint8_t *raw = (const uint8_t *)de->d_name;
    if (hypfs_name_from_ascii(de->d_name, (char *)item + a->name_off,
                              a->name_size) < 0) {
      hypfs_skip_note(a->skip, *a->skipped, raw, strlen(de->d_name), false,
                      "a name of more than 8 characters or blank");
      (*a->skipped)++;
      continue;
    }
    char sdir[4096];
    snprintf(sdir, sizeof(sdir), "%s/systems/%s", dir, de->d_name);
    int r = read_one(arg, item, sdir);
    if (r < 0) {
      rc = r;
      break;
    }
    if (r > 0) {
      hypfs_skip_note(a->skip, *a->skipped, raw, strlen(de->d_name), false,
                      "a file missing or unreadable in its directory");
      (*a->skipped)++;
      continue;
    }
    (*a->num)++;
  }
  closedir(dh);
  return rc;
}

struct vm_walk {
  const struct hypfs_d2fc *d;
  uint64_t *bytes;
};

static int read_vm_system(void *arg, void *item, const char *gdir) {
  const struct vm_walk *w = arg;
  struct hypfs_guest *g = item;
  if (read_guest(gdir, g, w->bytes) < 0)
    return 1; /* vanished while the tree was read, or damaged */
  g->lcpus = w->d->lcpus;
  return 0;
}

int hypfs_tree_read_vm(const char *dir, struct hypfs_d2fc *d, uint64_t *bytes) {
  char path[4096];
  uint64_t lcpus = 0;
  d->guests_num = 0;
  d->records = 0;
  d->skipped_names = 0;
  join(path, sizeof(path), dir, "cpus/count");
  int rc = read_u64(path, &lcpus, bytes);
  if (rc < 0)
    return rc;
  d->lcpus = (uint32_t)lcpus;
  const struct system_array guests =
      SYSTEM_ARRAY(struct hypfs_guest, d, guests, guests_cap, guests_num);
  struct vm_walk w = {d, bytes};
  return walk_systems(dir, &guests, read_vm_system, &w);
}

/* A type file of the LPAR tree (DIAG X'224' name, e.g. "IFL"), as the
 * identifiers' lower-case type. */
static void tree_cpu_type(const char *cdir, char *out, size_t size,
                          uint64_t *bytes) {
  char path[4096], s[64];
  join(path, sizeof(path), cdir, "type");
  if (read_small(path, s, sizeof(s), bytes) < 0) {
    snprintf(out, size, "unknown");
    return;
  }
  size_t n = 0;
  for (size_t i = 0; s[i] != '\0' && n + 1 < size; i++) {
    unsigned char c = (unsigned char)s[i];
    if (isalnum(c))
      out[n++] = (char)tolower(c);
  }
  out[n] = '\0';
  if (n == 0)
    snprintf(out, size, "unknown");
}

static int cpu_addr(const char *name, uint16_t *addr) {
  char *end;
  unsigned long v = strtoul(name, &end, 10);
  if (!isdigit((unsigned char)name[0]) || *end != '\0' || v > 0xFFFF)
    return -1;
  *addr = (uint16_t)v;
  return 0;
}

struct lpar_walk {
  struct hypfs_d204 *d;
  uint64_t *bytes;
  uint64_t *skipped;
  bool saw_cpu, saw_online;
};

/* A partition's logical CPUs: systems/<lpar>/cpus/<addr>/..., appended to
 * d->cpus; one with a missing time file is skipped and counted. */
static int read_lpar_system(void *arg, void *item, const char *sdir) {
  struct lpar_walk *w = arg;
  struct hypfs_d204 *d = w->d;
  struct hypfs_lpar *l = item;
  char path[4096];
  l->cpu_first = d->cpus_num;
  char cdir[4096];
  snprintf(cdir, sizeof(cdir), "%s/cpus", sdir);
  DIR *ch = opendir(cdir);
  if (ch == NULL)
    return 1;
  struct dirent *ce;
  while ((ce = readdir(ch)) != NULL) {
    struct hypfs_lpar_cpu cpu;
    memset(&cpu, 0, sizeof(cpu));
    if (!is_entry(ce) || cpu_addr(ce->d_name, &cpu.cpu_addr) < 0)
      continue;
    char one[4096];
    join(one, sizeof(one), cdir, ce->d_name);
    uint64_t mgm, cpu_time;
    join(path, sizeof(path), one, "mgmtime");
    int r1 = read_u64(path, &mgm, w->bytes);
    join(path, sizeof(path), one, "cputime");
    int r2 = read_u64(path, &cpu_time, w->bytes);
    if (r1 < 0 || r2 < 0) {
      (*w->skipped)++;
      continue;
    }
    /* The tree holds mgmtime = acc_time - lp_time (hypfs_diag_fs.c),
     * unsigned: a wrapped difference shows as a huge number. */
    cpu.lp_time = cpu_time;
    cpu.acc_time = mgm > UINT64_MAX - cpu_time ? cpu_time : cpu_time + mgm;
    join(path, sizeof(path), one, "onlinetime");
    if (read_u64(path, &cpu.online_time, w->bytes) == 0)
      w->saw_online = true;
    w->saw_cpu = true;
    tree_cpu_type(one, cpu.type, sizeof(cpu.type), w->bytes);
    if (!zvm_grow(&d->cpus, &d->cpus_cap, d->cpus_num, sizeof(*d->cpus), 16)) {
      closedir(ch);
      return -ENOMEM;
    }
    d->cpus[d->cpus_num++] = cpu;
  }
  closedir(ch);
  l->cpu_num = d->cpus_num - l->cpu_first;
  l->cpus = l->rcpus = (uint8_t)(l->cpu_num > 255 ? 255 : l->cpu_num);
  return 0;
}

int hypfs_tree_read_lpar(const char *dir, struct hypfs_d204 *d, uint64_t *bytes,
                         uint64_t *skipped) {
  char path[4096];
  d->lpars_num = d->cpus_num = d->phys_num = 0;
  d->records = 0;
  d->skipped_names = 0;
  d->format = HYPFS_D204_EXT;
  d->has_phys = false;
  const struct system_array lpars =
      SYSTEM_ARRAY(struct hypfs_lpar, d, lpars, lpars_cap, lpars_num);
  struct lpar_walk w = {d, bytes, skipped, false, false};
  int rc = walk_systems(dir, &lpars, read_lpar_system, &w);
  if (rc < 0)
    return rc;
  if (w.saw_cpu && !w.saw_online)
    d->format = HYPFS_D204_SIMPLE;
  /* Physical CPUs: <dir>/cpus/<addr>/{mgmtime,type}, if the hypervisor
   * gave them (DIAG204_LPAR_PHYS_FLG). */
  join(path, sizeof(path), dir, "cpus");
  DIR *dh = opendir(path);
  if (dh != NULL) {
    d->has_phys = true;
    struct dirent *de;
    while ((de = readdir(dh)) != NULL) {
      struct hypfs_phys_cpu pc;
      memset(&pc, 0, sizeof(pc));
      if (!is_entry(de) || cpu_addr(de->d_name, &pc.cpu_addr) < 0)
        continue;
      char one[4096];
      snprintf(one, sizeof(one), "%s/cpus/%s", dir, de->d_name);
      join(path, sizeof(path), one, "mgmtime");
      if (read_u64(path, &pc.mgm_time, bytes) < 0) {
        (*skipped)++;
        continue;
      }
      tree_cpu_type(one, pc.type, sizeof(pc.type), bytes);
      if (!zvm_grow(&d->phys, &d->phys_cap, d->phys_num, sizeof(*d->phys),
                    16)) {
        closedir(dh);
        return -ENOMEM;
      }
      d->phys[d->phys_num++] = pc;
    }
    closedir(dh);
  }
  d->phys_cpus = (uint16_t)d->phys_num;
  return 0;
}
