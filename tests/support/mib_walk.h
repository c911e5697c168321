/* A whole GETNEXT walk of the MIB tree with the checks every walk must pass: each OID
 * strictly after the one asked for, within the view's room below the base, and GETable
 * with the same value. Shared by the unit test and the fuzzer. */
#ifndef EBPF_TESTS_MIB_WALK_H
#define EBPF_TESTS_MIB_WALK_H

#include "snmp/mib_tree.h"

struct mib_walk {
	size_t count;       /* instances visited */
	size_t per_table[7]; /* by the arc after the base's first (1: scalars, 2: modules, ... 6: gauges) */
	size_t per_cgroup_table[5]; /* under 1.8, by its next arc (1: counters, ... 4: gauges) */
};

/* NULL if the walk from the start to the end passed every check, else what failed (a static
 * string). At most max_steps instances are visited. */
const char *mib_walk_all(const struct mib_tree *v, const struct mib_env *env, size_t max_steps,
			 struct mib_walk *out);

#endif
