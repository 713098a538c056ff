/* SPDX-License-Identifier: MIT */
/*
 * The mapper under test, as the mapper's unit tests share it: a
 * configuration, the mapper made from it (by mapper_fx_start(), after the
 * test configured it) and two builders, one for a record set's records
 * and one for the set. A test's own fixture embeds it; include after
 * <cmocka.h>.
 */
#ifndef ZVM_TESTS_MAPPER_FIXTURE_H
#define ZVM_TESTS_MAPPER_FIXTURE_H

#include "builder.h"
#include "conf_options.h"
#include "zvm_monitor/builtin.h"
#include "zvm_monitor/conf.h"
#include "zvm_monitor/mapper.h"

struct mapper_fx {
  struct zvm_conf conf;
  struct zvm_mapper *m; /* NULL until mapper_fx_start() */
  struct tb rs, set;    /* a record set's records; the set */
};

static inline void mapper_fx_init(struct mapper_fx *x) {
  assert_int_equal(zvm_conf_init(&x->conf, zvm_registry_builtin()), 0);
  x->m = NULL;
  tb_init(&x->rs);
  tb_init(&x->set);
}

static inline void mapper_fx_free(struct mapper_fx *x) {
  zvm_mapper_destroy(x->m);
  zvm_conf_free(&x->conf);
  tb_free(&x->rs);
  tb_free(&x->set);
}

static inline void mapper_fx_start(struct mapper_fx *x) {
  x->m = zvm_mapper_create(&x->conf);
  assert_non_null(x->m);
}

/* One configuration option, as the glue passes it; a failure fails the
 * test with the option's error. */
static inline void mapper_fx_option(struct mapper_fx *x, const char *key,
                                    const char *value) {
  char err[256];
  if (zvm_conf_set_string(&x->conf, key, value, err, sizeof(err)) != 0)
    fail_msg("%s", err);
}

#endif
