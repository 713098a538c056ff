/* SPDX-License-Identifier: MIT */
/*
 * zvm_monitor - output files that never destroy what the program did not
 * create: the one way every program of the project (the capture tool, the
 * generators) opens a file named on its command line for writing.
 *
 *   - a new file is created with O_EXCL and O_NOFOLLOW, mode 0600 (0640
 *     with ZVM_OUT_GROUP_READ; the umask can only take bits away);
 *   - an existing regular file is refused, unless ZVM_OUT_FORCE (the
 *     user's --force): then it is truncated, its mode kept;
 *   - a symbolic link at the path is refused, forced or not (O_NOFOLLOW:
 *     never write through a link someone may have planted);
 *   - anything else that exists (a character device such as /dev/null, a
 *     FIFO, a socket, a terminal) is opened and written to as it is: never
 *     truncated, renamed or removed;
 *   - "-" is standard output.
 * zvm_outfile_remove() removes a file only if this open created it and the
 * path still names that very file.
 */
#ifndef ZVM_BASE_OUTFILE_H
#define ZVM_BASE_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define ZVM_OUT_FORCE 0x1      /* an existing regular file may be truncated */
#define ZVM_OUT_GROUP_READ 0x2 /* a new file is 0640, not 0600 */

struct zvm_outfile {
  int fd;         /* -1 when not open */
  bool created;   /* this open created the file (only then removable) */
  bool regular;   /* a regular file (created or truncated with force) */
  bool is_stdout; /* "-": fd is STDOUT_FILENO, never closed */
  dev_t dev;      /* the file's identity, for zvm_outfile_remove() */
  ino_t ino;
};

/* Open path for writing as above. 0, or an errno value with a one-line
 * reason in err (err_size bytes, may be NULL) that starts with the path:
 * EEXIST (a regular file exists and ZVM_OUT_FORCE was not given: "PATH
 * exists: not overwritten (--force overwrites it)"), ELOOP (a symbolic
 * link), EISDIR, or what open(2) said. out is set up either way (fd -1 on
 * failure). */
int zvm_outfile_open(struct zvm_outfile *out, const char *path, unsigned flags,
                     char *err, size_t err_size);

/* Close the file (not standard output). 0, or the errno of close(2). */
int zvm_outfile_close(struct zvm_outfile *out);

/* Remove path if this open created it and path still names the same
 * regular file (same device and inode); closes it first. True if removed.
 * Anything else (an existing file, a device, a FIFO, standard output, a
 * file someone put in its place) is left alone. */
bool zvm_outfile_remove(struct zvm_outfile *out, const char *path);

#endif /* ZVM_BASE_OUTFILE_H */
