#include "libcore/kernel/diskstats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Fields after the name (Documentation/admin-guide/iostats.rst, counted from 1):
 * 1 reads completed, 5 writes completed, 12 discards completed, 16 flushes completed. */
static const int field_of_op[DISKSTATS_OPS] = { 1, 5, 12, 16 };

int diskstats_parse_line(const char *line, struct diskstats_disk *out)
{
	uint64_t f[17] = { 0 };
	unsigned int major, minor;
	int consumed = 0, nfields = 0;
	const char *p;

	memset(out, 0, sizeof(*out));
	if (sscanf(line, " %u %u %63s%n", &major, &minor, out->name, &consumed) != 3)
		return -1;
	p = line + consumed;
	while (nfields < 17) {
		int used = 0;

		if (sscanf(p, " %" SCNu64 "%n", &f[nfields], &used) != 1)
			break;
		p += used;
		nfields++;
	}
	if (nfields < 11) /* the 11 fields every kernel since 2.6 has */
		return -1;
	out->dev = (uint32_t)major << 20 | minor;
	for (int op = 0; op < DISKSTATS_OPS; op++) {
		out->has[op] = nfields >= field_of_op[op];
		out->completed[op] = out->has[op] ? f[field_of_op[op] - 1] : 0;
	}
	return 0;
}

int diskstats_each(const char *path, void (*fn)(void *ctx, const struct diskstats_disk *d), void *ctx)
{
	FILE *f = fopen(path ? path : "/proc/diskstats", "re");
	char line[512];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct diskstats_disk d;

		if (!diskstats_parse_line(line, &d))
			fn(ctx, &d);
	}
	fclose(f);
	return 0;
}
