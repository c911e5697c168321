/* For the fault tests: is a snapshot file whole? Parses it with the subagent's own parser
 * and prints "<modules> <written_us>" (exit 0), or why not (exit 1).
 * Usage: snapshot_check FILE */
#include "snapshot/snapshot_file.h"
#include "base/err_max.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	struct snapshot s;
	char err[ERR_MAX];
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: %s SNAPSHOT\n", argv[0]);
		return 2;
	}
	f = fopen(argv[1], "re");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	if (snapshot_parse(f, &s, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		fclose(f);
		return 1;
	}
	fclose(f);
	printf("%d %lld\n", s.nmodules, (long long)s.written_us);
	snapshot_free(&s);
	return 0;
}
