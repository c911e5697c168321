/* One writer per snapshot file: a second process publishing to the same path (a demo, a
 * test collectd, `collectd -T` of another config) neither overwrites the owner's file nor
 * removes it when it stops. Locks are per process, so the second writer is a child. */
#include "plugin/snapshot_store.h"
#include "tests/support/testing.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int publish_one(struct snapshot_store *st, const char *label)
{
	struct snapshot_module rec = { 0 };
	int r;

	snprintf(rec.label, sizeof(rec.label), "%s", label);
	rec.state = SNAPSHOT_STATE_RUNNING;
	r = snapshot_store_publish(st, &rec);
	snapshot_module_release(&rec);
	return r;
}

static bool file_has(const char *path, const char *text)
{
	char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strstr(buf, text) != NULL;
}

int main(void)
{
	char dir[] = "/tmp/ebpf-snapshot-owner-XXXXXX";
	struct snapshot_config cfg;
	struct snapshot_store *st;
	struct stat sb;
	int status;
	pid_t pid;

	CHECK(mkdtemp(dir) != NULL);
	snapshot_config_init(&cfg);
	snprintf(cfg.path, sizeof(cfg.path), "%s/snapshot", dir);
	st = snapshot_store_new(&cfg);
	CHECK(publish_one(st, "owner") == 0);
	CHECK(file_has(cfg.path, "owner"));

	pid = fork();
	if (pid == 0) {
		struct snapshot_store *second = snapshot_store_new(&cfg);

		/* Refused while the owner runs, and its free leaves the owner's file in place. */
		int refused = publish_one(second, "intruder") == -1;

		snapshot_store_free(second);
		_exit(refused ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(stat(cfg.path, &sb) == 0);
	CHECK(file_has(cfg.path, "owner"));
	CHECK(!file_has(cfg.path, "intruder"));

	/* The owner still publishes, and removes its own file (and lock) when it stops. */
	CHECK(publish_one(st, "owner2") == 0);
	snapshot_store_free(st);
	CHECK(stat(cfg.path, &sb) == -1);
	CHECK(rmdir(dir) == 0);

	/* A crashed owner leaves no stale claim: the kernel dropped its lock. */
	CHECK(mkdir(dir, 0700) == 0);
	pid = fork();
	if (pid == 0) {
		struct snapshot_store *first = snapshot_store_new(&cfg);

		_exit(publish_one(first, "crashed") == 0 ? 0 : 1); /* exits without freeing */
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	st = snapshot_store_new(&cfg);
	CHECK(publish_one(st, "next") == 0);
	CHECK(file_has(cfg.path, "next"));
	snapshot_store_free(st);
	CHECK(rmdir(dir) == 0);
	return testing_done();
}
