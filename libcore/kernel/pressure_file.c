/* A pressure stall information file (pressure_file.h). */
#include "libcore/kernel/pressure_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *pressure_resource_name(enum pressure_resource r)
{
	static const char *const names[PRESSURE_RESOURCES] = { "cpu", "memory", "io" };

	return r < PRESSURE_RESOURCES ? names[r] : "?";
}

/* The total= of one line (len bytes at line, without its newline), or -1 with err. */
static int line_total(const char *line, size_t len, int n, uint64_t *out, char *err, size_t errlen)
{
	const char *p = NULL, *end = line + len;
	uint64_t v = 0;

	for (const char *s = line; s + 6 <= end; s++)
		if ((s == line || s[-1] == ' ') && !memcmp(s, "total=", 6))
			p = s + 6;
	if (!p) {
		snprintf(err, errlen, "line %d \"%.*s\" has no total= (cut short?)", n, (int)(len > 60 ? 60 : len), line);
		return -1;
	}
	if (p == end || *p < '0' || *p > '9') {
		snprintf(err, errlen, "line %d: total= is not followed by a whole number", n);
		return -1;
	}
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) {
			snprintf(err, errlen, "line %d: total= is beyond 64 bits", n);
			return -1;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p != end && *p != ' ') {
		snprintf(err, errlen, "line %d: total= is not a whole number", n);
		return -1;
	}
	*out = v;
	return 0;
}

int pressure_parse(const char *text, struct pressure_totals *out, char *err, size_t errlen)
{
	bool some = false;
	int n = 0;

	memset(out, 0, sizeof(*out));
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		bool is_some = len > 5 && !memcmp(line, "some ", 5), is_full = len > 5 && !memcmp(line, "full ", 5);

		n++;
		if (!len && nl) { /* an empty line */
			line = nl + 1;
			continue;
		}
		if (!is_some && !is_full) {
			snprintf(err, errlen, "line %d does not begin with \"some \" or \"full \"", n);
			return -1;
		}
		if ((is_some && some) || (is_full && out->has_full)) {
			snprintf(err, errlen, "line %d: a second \"%s\" line", n, is_some ? "some" : "full");
			return -1;
		}
		if (line_total(line, len, n, is_some ? &out->some : &out->full, err, errlen))
			return -1;
		some |= is_some;
		out->has_full |= is_full;
		line = nl ? nl + 1 : line + len;
	}
	if (!some) {
		snprintf(err, errlen, "no \"some\" line");
		return -1;
	}
	return 0;
}

int pressure_read(int dir_fd, const char *name, struct pressure_totals *out, char *err, size_t errlen)
{
	char text[512];
	size_t got = 0;
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC), e = 0;

	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "cannot open %s: %s", name, strerror(e));
		return -e;
	}
	while (got < sizeof(text) - 1) {
		ssize_t r = read(fd, text + got, sizeof(text) - 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			break;
		}
		if (!r)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (e) {
		snprintf(err, errlen, "cannot read %s: %s", name, strerror(e));
		return -e;
	}
	text[got] = '\0';
	if (strlen(text) != got) {
		snprintf(err, errlen, "%s: a NUL byte in its text", name);
		return -EINVAL;
	}
	if (pressure_parse(text, out, err, errlen)) {
		char why[256];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s: %s", name, why);
		return -EINVAL;
	}
	return 0;
}
