/* SPDX-License-Identifier: MIT */
/* The command-line conventions every zvm_monitor program follows (the GNU
 * coding standards' --help and --version): usage on standard output and
 * exit 0 for -h/--help, "PROG (zvm_monitor) VERSION" for --version, and one
 * line on standard error with exit status 2 for a usage error.
 *
 * Callers set opterr = 0 and put ':' first in their short options, so that
 * getopt_long() reports problems here, as one line, instead of printing its
 * own message. */
#ifndef ZVM_BASE_CLI_H
#define ZVM_BASE_CLI_H

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Exit status of a usage error (as grep, diff and getopt-based tools). */
#define ZVM_CLI_EXIT_USAGE 2

/* --version: the program, the package and its version (configure.ac). */
static inline int zvm_cli_version(const char *prog, const char *version) {
  printf("%s (zvm_monitor) %s\n", prog, version);
  return 0;
}

/* A usage error: "PROG: MESSAGE (see PROG --help)" and exit status 2. */
__attribute__((format(printf, 2, 3))) static inline int
zvm_cli_usage_error(const char *prog, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: ", prog);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, " (see %s --help)\n", prog);
  return ZVM_CLI_EXIT_USAGE;
}

/* getopt_long() returned '?' or ':' (opterr = 0, ':' first in the short
 * options): name the option it could not take. A long option's problem is
 * told by its text in argv (optopt is then the option's value, not what the
 * user typed). */
static inline int zvm_cli_bad_option(const char *prog, int opt,
                                     char *const argv[]) {
  const char *arg = optind > 0 ? argv[optind - 1] : "";
  if (arg[0] == '-' && arg[1] == '-') {
    const char *equals = strchr(arg, '=');
    if (opt == ':')
      return zvm_cli_usage_error(prog, "option '%s' needs an argument", arg);
    if (equals != NULL && optopt != 0)
      return zvm_cli_usage_error(prog, "option '%.*s' takes no argument",
                                 (int)(equals - arg), arg);
    return zvm_cli_usage_error(prog, "unknown option '%s'", arg);
  }
  if (opt == ':')
    return zvm_cli_usage_error(prog, "option '-%c' needs an argument", optopt);
  return zvm_cli_usage_error(prog, "unknown option '-%c'", optopt);
}

#endif
