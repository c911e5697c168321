/* Workload for the integration tests: exactly N fsync() calls on a file with one dirty
 * byte each. Usage: fsync_n N [DIR] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096];
	int n, fd;

	if (argc < 2 || (n = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: %s N [DIR]\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/fsync_n.XXXXXX", argc > 2 ? argv[2] : "/var/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	unlink(path);
	for (int i = 0; i < n; i++) {
		if (pwrite(fd, "x", 1, i % 4096) != 1 || fsync(fd)) {
			perror("fsync");
			return 1;
		}
	}
	close(fd);
	return 0;
}
