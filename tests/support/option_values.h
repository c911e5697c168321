/* Shared by the unit tests that feed options to a module or to the presentation as the
 * plugin does, without collectd: one config value of each type, and one option set on a
 * module with its error text cleared first (so a test can check it stayed empty). */
#ifndef EBPF_TESTS_OPTION_VALUES_H
#define EBPF_TESTS_OPTION_VALUES_H

#include "libcore/engine/module.h"

static inline struct opt_value str(const char *s)
{
	return (struct opt_value){ .type = OPT_STRING, .string = s };
}

static inline struct opt_value num(double n)
{
	return (struct opt_value){ .type = OPT_NUMBER, .number = n };
}

static inline int set_option(struct module *m, const char *key, const struct opt_value *v, int n, char *err,
			     size_t len)
{
	struct option o = { .key = key, .values = v, .nvalues = n };

	err[0] = '\0';
	return module_set_option(m, &o, err, len);
}

#endif
