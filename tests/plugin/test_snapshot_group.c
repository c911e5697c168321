/* SnapshotGroup with a group the size real sites have (a thousand members: far more than
 * a 4 KiB getgrnam_r buffer holds). Needs root: the group exists only in this process's
 * own mount namespace, where a generated file is bind-mounted over /etc/group, so the
 * machine's group database is never touched. */
#define _GNU_SOURCE
#include "plugin/snapshot_options.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#define MEMBERS 2000

static void use_group_file(void)
{
	char path[] = "/tmp/ebpf-group.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	FILE *system_groups = fopen("/etc/group", "r");
	char line[4096];

	if (!f || !system_groups)
		SKIP("cannot create a group file (%s) or read /etc/group", path);
	while (fgets(line, sizeof(line), system_groups))
		fputs(line, f);
	fclose(system_groups);
	fputs("ebpf-big-group:x:4242:", f);
	for (int i = 0; i < MEMBERS; i++)
		fprintf(f, "%smember%05d", i ? "," : "", i);
	fputs("\n", f);
	fclose(f);
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(path, "/etc/group", NULL, MS_BIND, NULL))
		SKIP("cannot bind-mount a group file over /etc/group in a mount namespace of our own (needs root)");
	unlink(path); /* the mount keeps it */
}

int main(void)
{
	struct snapshot_config c;
	struct opt_value v = { .type = OPT_STRING, .string = "ebpf-big-group" };
	struct option o = { .key = "SnapshotGroup", .values = &v, .nvalues = 1 };
	char err[ERR_MAX] = "";

	if (geteuid() != 0)
		SKIP("needs root (a mount namespace)");
	use_group_file();
	snapshot_config_init(&c);
	CHECK(snapshot_config_option(&c, &o, err, sizeof(err)) == 1);
	if (err[0])
		fprintf(stderr, "SnapshotGroup: %s\n", err);
	CHECK(c.gid == 4242);
	CHECK_STR(c.group, "ebpf-big-group");
	return testing_done();
}
