/* Shared by test_tcp and test_process: what a kernel that skips the module's program leaves,
 * made on purpose. The module's own program of a witnessed point is detached (its link
 * destroyed; probe_set_stop skips the NULL) while the point's witness, attached after it,
 * stays: every firing from then on is one the witness counts and the program does not. */
#ifndef EBPF_TESTS_DETACH_PROGRAM_H
#define EBPF_TESTS_DETACH_PROGRAM_H

#include "libcore/engine/module.h"
#include "tests/support/testing.h"

#include <bpf/libbpf.h>
#include <string.h>

static inline void detach_module_program(struct module *m, const char *point)
{
	for (int i = 0; i < m->probes.npoints; i++) {
		struct probe_point *p = &m->probes.points[i];

		if (strcmp(p->name, point))
			continue;
		CHECK(p->links[0] && p->links[1]); /* the module's program, then the witness */
		bpf_link__destroy(p->links[0]);
		p->links[0] = NULL;
		return;
	}
	CHECK(!"the point is in the module");
}

#endif
