/* Shared by the module tests: start a module and count a failure to start, or (test_process,
 * test_tcp) insist that every probe point runs on exactly one method (no fallback, no
 * variant). */
#ifndef EBPF_TESTS_START_ON_METHOD_H
#define EBPF_TESTS_START_ON_METHOD_H

#include "libcore/engine/module.h"
#include "tests/support/testing.h"

#include <stdio.h>

/* `m` started, or NULL (and `m` freed) when it could not start: a failure, with its error
 * after `what` (the method, the configuration). */
static inline struct module *start_or_fail(struct module *m, const char *what)
{
	if (module_start(m)) {
		fprintf(stderr, "%s: start failed: %s\n", what, m->last_error);
		CHECK(!"module started");
		module_free(m);
		return NULL;
	}
	return m;
}

/* The same, and every point on exactly `method`. */
static inline struct module *start_on_method(struct module *m, const char *method)
{
	if (!start_or_fail(m, method))
		return NULL;
	for (int i = 0; i < m->probes.npoints; i++) {
		char used[64];

		probe_point_method(&m->probes.points[i], used, sizeof(used));
		CHECK_STR(used, method);
	}
	return m;
}

#endif
