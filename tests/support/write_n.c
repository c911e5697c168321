/* Workload for the <Program> slot tests: waits for a line on stdin, then for each SIZE:COUNT
 * argument writes SIZE bytes COUNT times to /dev/null, and exits without another write (its
 * exit says it is done: a "done" line would be one more write to count). Started before
 * collectd so that its pid can be the program's filter_tgid Param. Usage: write_n SIZE:COUNT... */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[65536];
	char line[16];
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: %s SIZE:COUNT...\n", argv[0]);
		return 2;
	}
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0 || !fgets(line, sizeof(line), stdin))
		return 1;
	for (int i = 1; i < argc; i++) {
		unsigned long size = strtoul(argv[i], NULL, 10), count;
		const char *colon = strchr(argv[i], ':');

		if (!colon || size > sizeof(buf))
			return 2;
		count = strtoul(colon + 1, NULL, 10);
		for (unsigned long k = 0; k < count; k++)
			if (write(fd, buf, size) != (ssize_t)size)
				return 1;
	}
	return 0;
}
