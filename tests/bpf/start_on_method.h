/* Shared by test_process and test_tcp: start a module configured for one attach method and
 * insist that every probe point runs on exactly that method (no fallback, no variant). */
#ifndef EBPF_TESTS_START_ON_METHOD_H
#define EBPF_TESTS_START_ON_METHOD_H

#include "libcore/engine/module.h"
#include "tests/testing.h"

#include <stdio.h>

/* `m` started, or NULL (and `m` freed) when it could not start: a failure, with its error. */
static inline struct module *start_on_method(struct module *m, const char *method)
{
	if (module_start(m)) {
		fprintf(stderr, "%s: start failed: %s\n", method, m->last_error);
		CHECK(!"module started");
		module_free(m);
		return NULL;
	}
	for (int i = 0; i < m->probes.npoints; i++) {
		char used[64];

		probe_point_method(&m->probes.points[i], used, sizeof(used));
		CHECK_STR(used, method);
	}
	return m;
}

#endif
