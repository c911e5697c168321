#include "libcore/programs/kernel_addresses.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kernel_addresses_find(const char *path, const char *const *names, int n, uint64_t *out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	bool found[64] = { false }, any_address = false;

	if (n > 64) {
		snprintf(err, errlen, "at most 64 kernel addresses");
		return -1;
	}
	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	/* "ffffffff81000000 T _stext"; a module's symbols have "\t[module]" after the name */
	while (getline(&line, &cap, f) > 0) {
		char type, name[256];
		uint64_t addr;

		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3 || strchr(line, '['))
			continue;
		any_address |= addr != 0;
		for (int i = 0; i < n; i++)
			if (!strcmp(name, names[i])) {
				out[i] = addr; /* the last listed wins */
				found[i] = true;
			}
	}
	free(line);
	fclose(f);
	if (!any_address) {
		snprintf(err, errlen, "%s shows no addresses to this process (kernel.kptr_restrict, or not root): "
				      "kernel addresses cannot be set", path);
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (!found[i]) {
			snprintf(err, errlen, "kernel symbol \"%s\" is not in %s (a symbol of the kernel itself, not of a "
					      "module; data symbols are there only with CONFIG_KALLSYMS_ALL)", names[i], path);
			return -1;
		}
	return 0;
}
