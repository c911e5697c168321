/* Which attach methods a BPF test exercises: from the command line (`test_vfs fentry kprobe`),
 * else from EBPF_ATTACH_ORDER ("fentry,kprobe" or "fentry kprobe"), else the test's defaults.
 * The kernel matrix (tests/vm/) runs a test once per method with EBPF_ATTACH_ORDER set, so
 * that each method of each kernel is a result line of its own. */
#ifndef EBPF_TESTS_ATTACH_METHODS_H
#define EBPF_TESTS_ATTACH_METHODS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MT_MAX_METHODS 8

struct method_list {
	const char *names[MT_MAX_METHODS];
	int n;
	char buf[256];
};

static inline void methods_from(int argc, char **argv, const char *const *defaults, struct method_list *out)
{
	const char *env = getenv("EBPF_ATTACH_ORDER");

	out->n = 0;
	if (argc > 1) {
		for (int i = 1; i < argc && out->n < MT_MAX_METHODS; i++)
			out->names[out->n++] = argv[i];
		return;
	}
	if (env && env[0]) {
		snprintf(out->buf, sizeof(out->buf), "%s", env);
		for (char *save = NULL, *t = strtok_r(out->buf, ", ", &save); t && out->n < MT_MAX_METHODS;
		     t = strtok_r(NULL, ", ", &save))
			out->names[out->n++] = t;
		return;
	}
	for (int i = 0; defaults[i] && out->n < MT_MAX_METHODS; i++)
		out->names[out->n++] = defaults[i];
}

/* methods_from() with the defaults of the tracepoint modules: each way to a tracepoint. */
static inline void tracepoint_methods_from(int argc, char **argv, struct method_list *out)
{
	static const char *const tracepoint_methods[] = { "tp_btf", "raw_tp", "tracepoint", NULL };

	methods_from(argc, argv, tracepoint_methods, out);
}

#endif
