/* SPDX-License-Identifier: MIT */
/*
 * zvm-monitor-record - IBM's monitor-record pages (HTML saved from
 * www.vm.ibm.com/pubs/monNNN/MRxxxxxx.HTML, or their text) into <Record>
 * blocks for collectd.conf. Man page zvm-monitor-record(1).
 *
 * The page parser and the mapping rules are tools/recpage.c and
 * tools/recmap.c. Every block is run through the plugin's own <Record>
 * parser (plugin/config/recconf.c, with the built-in records) before
 * anything is printed: what this program writes, the plugin accepts. A
 * page that is wrong in any way prints one line naming its line and what
 * is wrong, exit status 2, and no block at all.
 */
#include "zvm_config.h"

#include "base/cli.h"
#include "base/outfile.h"
#include "recbuiltin.h"
#include "recpage.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/recconf.h"
#include "zvm_monitor/recconf_text.h"
#include "zvm_monitor/records.h"
#include "zvm_monitor/registry.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "zvm-monitor-record"
#define MAX_PAGE (8u << 20) /* IBM's largest pages are a few hundred KB */
#define MAX_LIST 256

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " [OPTION]... PAGE...\n"
          "Turn IBM's monitor-record pages (HTML or text; '-': stdin) into\n"
          "<Record> blocks for collectd.conf (standard output); a summary of\n"
          "what was mapped and skipped goes to standard error.\n"
          "  -f, --fields=LIST     only these fields (IBM's or data source "
          "names,\n"
          "                        comma-separated; the instance field "
          "stays)\n"
          "  -i, --instance=FIELD  the instance field ('none': no instance)\n"
          "  -k, --kind=FIELD=KIND counter, gauge, instance or skip "
          "(repeatable)\n"
          "  -p, --prefix=TEXT     InstancePrefix\n"
          "  -c, --count=NAME      a counter of the instance's records "
          "(D4R10's\n"
          "                        transactions)\n"
          "  -n, --name=NAME       the record's Name (default: the DSECT "
          "name)\n"
          "  -P, --plugin-block    inside <Plugin zvm_monitor> (a drop-in "
          "file)\n"
          "  -d, --dashboard=DIR   also Grafana dashboards for the records: "
          "DIR/\n"
          "                        NAME-graphite.json, -influxdb.json, "
          "-prometheus.json\n"
          "      --force           overwrite existing dashboard files\n"
          "  -q, --quiet           no summary\n"
          "  -h, --help            this text\n"
          "      --version         the program's version\n"
          "-f, -i, -k, -p and -n apply to a single PAGE. Exit status: 0, or 2\n"
          "for a usage error or a page that is not right. See "
          "zvm-monitor-record(1).\n");
}

static int read_page(const char *file, char **text, size_t *len) {
  FILE *fp = strcmp(file, "-") == 0 ? stdin : fopen(file, "rb");
  if (fp == NULL) {
    fprintf(stderr, PROG ": cannot open %s: %s\n", file, strerror(errno));
    return -1;
  }
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap);
  while (buf != NULL) {
    if (n == cap) {
      if (cap >= MAX_PAGE) {
        fprintf(stderr,
                PROG ": %s: larger than %u MB: not a monitor-record page\n",
                file, MAX_PAGE >> 20);
        free(buf);
        buf = NULL;
        n = 0;
        break;
      }
      char *p = realloc(buf, cap * 2);
      if (p == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = p;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, fp);
    n += got;
    if (got == 0)
      break;
  }
  bool bad = buf != NULL && ferror(fp);
  if (bad)
    fprintf(stderr, PROG ": cannot read %s: %s\n", file, strerror(errno));
  else if (buf == NULL && n == 0 && cap < MAX_PAGE)
    fprintf(stderr, PROG ": %s: out of memory\n", file);
  if (fp != stdin)
    fclose(fp);
  if (buf == NULL || bad) {
    free(buf);
    return -1;
  }
  *text = buf;
  *len = n;
  return 0;
}

/* "line N: what" from the parser as "FILE:N: what". */
static void page_error(const char *file, const char *err) {
  unsigned line;
  int used = 0;
  if (sscanf(err, "line %u: %n", &line, &used) == 1 && used > 0)
    fprintf(stderr, PROG ": %s:%u: %s\n", file, line, err + used);
  else
    fprintf(stderr, PROG ": %s: %s\n", file, err);
}

/* "a,b,c" into list (pointers into s, which is changed). */
static size_t split(char *s, const char **list, size_t max) {
  size_t n = 0;
  for (char *tok = strtok(s, ", "); tok != NULL && n < max;
       tok = strtok(NULL, ", "))
    list[n++] = tok;
  return n;
}

struct page_out {
  struct rp_buf block, summary;
  int domain, number;
  const char *file;
};

/* The dashboards: DIR/NAME-KIND.json, NAME the records' names joined by
 * "-". Files are new (never an existing one without --force, never
 * through a symbolic link); a file this run created is removed again if
 * writing fails. 0, or 1 with a line on standard error. */
static int write_dashboards(const char *dir, unsigned flags, bool quiet,
                            const struct rp_page *pages,
                            const struct rp_map *maps, size_t n) {
  char name[128] = "";
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(name);
    if (len + strlen(maps[i].name) + 2 >= 64)
      break;
    snprintf(name + len, sizeof(name) - len, "%s%s", i ? "-" : "",
             maps[i].name);
  }
  for (int k = 0; k < RP_DASH_KINDS; k++) {
    char path[4096], err[512];
    if ((size_t)snprintf(path, sizeof(path), "%s/%s-%s.json", dir, name,
                         rp_dash_kinds[k]) >= sizeof(path)) {
      fprintf(stderr, PROG ": --dashboard %s: the path is too long\n", dir);
      return 1;
    }
    struct rp_buf json = {0};
    rp_write_dashboard(pages, maps, n, rp_dash_kinds[k], &json);
    if (json.oom) {
      rp_buf_free(&json);
      fprintf(stderr, PROG ": out of memory\n");
      return 1;
    }
    struct zvm_outfile out;
    if (zvm_outfile_open(&out, path, flags | ZVM_OUT_GROUP_READ, err,
                         sizeof(err)) != 0) {
      rp_buf_free(&json);
      fprintf(stderr, PROG ": %s\n", err);
      return 1;
    }
    size_t done = 0;
    int e = 0;
    while (done < json.len && e == 0) {
      ssize_t w = write(out.fd, json.p + done, json.len - done);
      if (w > 0)
        done += (size_t)w;
      else if (w < 0 && errno != EINTR)
        e = errno;
    }
    rp_buf_free(&json);
    if (e == 0)
      e = zvm_outfile_close(&out);
    if (e != 0) {
      zvm_outfile_remove(&out, path);
      fprintf(stderr, PROG ": cannot write %s: %s\n", path, strerror(e));
      return 1;
    }
    if (!quiet)
      fprintf(stderr, PROG ": wrote %s\n", path);
  }
  return 0;
}

int main(int argc, char **argv) {
  static const struct option long_options[] = {
      {"fields", required_argument, NULL, 'f'},
      {"instance", required_argument, NULL, 'i'},
      {"kind", required_argument, NULL, 'k'},
      {"prefix", required_argument, NULL, 'p'},
      {"count", required_argument, NULL, 'c'},
      {"name", required_argument, NULL, 'n'},
      {"plugin-block", no_argument, NULL, 'P'},
      {"dashboard", required_argument, NULL, 'd'},
      {"force", no_argument, NULL, 'F'},
      {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0},
  };
  struct rp_options opt = {.version = PACKAGE_VERSION};
  const char *fields[MAX_LIST];
  struct rp_kind_override kinds[MAX_LIST];
  bool plugin_block = false, quiet = false, per_page = false;
  const char *dash_dir = NULL;
  unsigned out_flags = 0;
  int o;
  opterr = 0;
  while ((o = getopt_long(argc, argv, ":f:i:k:p:c:n:d:Pqh", long_options,
                          NULL)) != -1) {
    switch (o) {
    case 'f':
      opt.fields = fields;
      opt.nfields +=
          split(optarg, fields + opt.nfields, MAX_LIST - opt.nfields);
      if (opt.nfields == 0)
        return zvm_cli_usage_error(PROG, "-f: a comma-separated list of "
                                         "fields");
      per_page = true;
      break;
    case 'i':
      opt.instance = optarg;
      per_page = true;
      break;
    case 'k': {
      char *eq = strchr(optarg, '=');
      if (eq == NULL || eq == optarg || eq[1] == '\0')
        return zvm_cli_usage_error(PROG, "-k %s: give FIELD=KIND", optarg);
      if (opt.nkinds >= MAX_LIST)
        return zvm_cli_usage_error(PROG, "-k: more than %d", MAX_LIST);
      *eq = '\0';
      kinds[opt.nkinds++] = (struct rp_kind_override){optarg, eq + 1};
      opt.kinds = kinds;
      per_page = true;
      break;
    }
    case 'p':
      opt.prefix = optarg;
      per_page = true;
      break;
    case 'c':
      opt.count = optarg;
      per_page = true;
      break;
    case 'n':
      opt.name = optarg;
      per_page = true;
      break;
    case 'P':
      plugin_block = true;
      break;
    case 'd':
      if (optarg[0] == '\0')
        return zvm_cli_usage_error(PROG, "-d: give a directory");
      dash_dir = optarg;
      break;
    case 'F':
      out_flags |= ZVM_OUT_FORCE;
      break;
    case 'q':
      quiet = true;
      break;
    case 'h':
      usage(stdout);
      return 0;
    case 'V':
      return zvm_cli_version(PROG, PACKAGE_VERSION);
    default:
      return zvm_cli_bad_option(PROG, o, argv);
    }
  }
  int npages = argc - optind;
  if (npages == 0)
    return zvm_cli_usage_error(PROG, "no page given");
  if (per_page && npages > 1)
    return zvm_cli_usage_error(PROG,
                               "-f, -i, -k, -p, -c and -n apply to a "
                               "single page; %d given",
                               npages);

  struct zvm_registry *reg = zvm_registry_create();
  if (reg == NULL || zvm_registry_add_builtins(reg) != 0) {
    fprintf(stderr, PROG ": out of memory\n");
    zvm_registry_destroy(reg);
    return 1;
  }
  struct zvm_recconf rc;
  zvm_recconf_init(&rc, reg);
  struct page_out *outs = calloc((size_t)npages, sizeof(*outs));
  /* kept for the dashboards */
  struct rp_page *pages = calloc((size_t)npages, sizeof(*pages));
  struct rp_map *maps = calloc((size_t)npages, sizeof(*maps));
  int kept = 0;
  if (pages == NULL || maps == NULL) {
    free(outs);
    outs = NULL;
  }
  int status = outs == NULL ? 1 : 0;
  if (outs == NULL)
    fprintf(stderr, PROG ": out of memory\n");
  for (int p = 0; p < npages && status == 0; p++) {
    const char *file = argv[optind + p];
    struct page_out *po = &outs[p];
    char *text;
    size_t len;
    char err[512];
    po->file = file;
    if (read_page(file, &text, &len) != 0) {
      status = 2;
      break;
    }
    struct rp_page page;
    int rv = rp_parse(text, len, &page, err, sizeof(err));
    free(text);
    if (rv != 0) {
      page_error(file, err);
      status = 2;
      break;
    }
    po->domain = page.domain;
    po->number = page.number;
    for (int q = 0; q < p; q++)
      if (outs[q].domain == page.domain && outs[q].number == page.number) {
        fprintf(stderr,
                PROG ": %s: D%dR%d again (also %s): one page per record\n",
                file, page.domain, page.number, outs[q].file);
        status = 2;
      }
    const struct zvm_record_desc *b =
        status == 0 ? zvm_registry_find(reg, (uint8_t)page.domain,
                                        (uint16_t)page.number)
                    : NULL;
    if (b != NULL && b->main.type_name == NULL) {
      fprintf(stderr,
              PROG ": %s: D%dR%d describes the monitor data stream itself; "
                   "the plugin needs it and it cannot be redefined\n",
              file, page.domain, page.number);
      status = 2;
    }
    if (status != 0) {
      rp_page_free(&page);
      break;
    }
    opt.builtin = b != NULL && !b->user_defined;
    struct rp_builtin_names bn;
    opt.names = NULL;
    if (opt.builtin) {
      rp_builtin_names(b, &bn);
      opt.names = &bn.bt;
    }
    opt.source = strcmp(file, "-") == 0 ? "standard input" : file;
    struct rp_map map;
    if (rp_map_page(&page, &opt, &map, err, sizeof(err)) != 0) {
      fprintf(stderr, PROG ": %s: %s\n", file, err);
      rp_map_free(&map);
      rp_page_free(&page);
      status = 2;
      break;
    }
    rp_write_block(&page, &map, &opt, &po->block);
    rp_write_summary(&page, &map, "", &po->summary);
    pages[kept] = page;
    maps[kept] = map;
    kept++;
    if (po->block.oom || po->summary.oom) {
      fprintf(stderr, PROG ": out of memory\n");
      status = 1;
      break;
    }
    /* What the plugin will make of it. */
    if (zvm_recconf_parse_text(&rc, po->block.p, po->block.len, err,
                               sizeof(err)) != 0) {
      fprintf(stderr,
              PROG ": %s: the plugin's <Record> parser refuses the block "
                   "written for it (%s); a program error: please report it\n",
              file, err);
      status = 1;
    }
  }
  if (status == 0 && dash_dir != NULL)
    status =
        write_dashboards(dash_dir, out_flags, quiet, pages, maps, (size_t)kept);
  if (status == 0) {
    if (plugin_block)
      printf("<Plugin zvm_monitor>\n");
    for (int p = 0; p < npages; p++) {
      if (p > 0)
        printf("\n");
      fwrite(outs[p].block.p, 1, outs[p].block.len, stdout);
      if (!quiet)
        fprintf(stderr, PROG ": %s: %s", outs[p].file, outs[p].summary.p);
    }
    if (plugin_block)
      printf("</Plugin>\n");
    if (fflush(stdout) != 0 || ferror(stdout)) {
      fprintf(stderr, PROG ": cannot write the output: %s\n", strerror(errno));
      status = 1;
    }
  }
  for (int p = 0; outs != NULL && p < npages; p++) {
    rp_buf_free(&outs[p].block);
    rp_buf_free(&outs[p].summary);
  }
  free(outs);
  for (int p = 0; p < kept; p++) {
    rp_map_free(&maps[p]);
    rp_page_free(&pages[p]);
  }
  free(pages);
  free(maps);
  zvm_recconf_free(&rc);
  zvm_registry_destroy(reg);
  return status;
}
