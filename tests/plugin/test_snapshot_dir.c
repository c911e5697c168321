/* Root publishes the snapshot without following links it did not make: the
 * snapshot's directory must be owned by root or collectd's user and writable by nobody else,
 * the lock and the temporary file are opened in that checked directory with O_NOFOLLOW, and
 * a refusal is one warning naming the directory or the lock and the fix. Every directory
 * on the way is checked as it is walked, links included: root follows only its own links.
 * Root: it chowns a directory (and links) to nobody (65534), as another user's would be. */
#include "base/log.h"
#include "plugin/snapshot_store.h"
#include "tests/support/testing.h"

#include <sys/stat.h>
#include <unistd.h>

static char logged[2048];
static int nlogged;

static void capture(enum ebpf_log_level level, const char *msg)
{
	(void)level;
	snprintf(logged, sizeof(logged), "%s", msg);
	nlogged++;
}

/* Publishes one record to path; the store's result (0 or -1). The warning, if any, is in
 * logged. */
static int publish_to(const char *path)
{
	struct snapshot_module rec = { 0 };
	struct snapshot_config cfg;
	struct snapshot_store *st;
	int r;

	logged[0] = '\0';
	nlogged = 0;
	snapshot_config_init(&cfg);
	snprintf(cfg.path, sizeof(cfg.path), "%s", path);
	st = snapshot_store_new(&cfg);
	snprintf(rec.label, sizeof(rec.label), "syscalls");
	rec.state = SNAPSHOT_STATE_RUNNING;
	r = snapshot_store_publish(st, &rec);
	snapshot_module_release(&rec);
	snapshot_store_free(st);
	return r;
}

static bool exists(const char *path)
{
	struct stat sb;

	return lstat(path, &sb) == 0;
}

int main(void)
{
	char top[] = "/tmp/ebpf-snapshot-dir-XXXXXX", dir[128], path[160], lock[170], target[160], cmd[256];
	struct stat sb;

	if (geteuid() != 0)
		SKIP("needs root to give a directory to another user");
	ebpf_log_set_handler(capture);
	CHECK(mkdtemp(top) != NULL && chmod(top, 0755) == 0);
	snprintf(target, sizeof(target), "%s/made-by-root", top);

	/* Another user's directory, writable by that user, with the lock a link to where that
	 * user wants root to create a file. */
	snprintf(dir, sizeof(dir), "%s/nobody", top);
	CHECK(mkdir(dir, 0755) == 0 && chown(dir, 65534, 65534) == 0);
	snprintf(path, sizeof(path), "%s/snapshot", dir);
	snprintf(lock, sizeof(lock), "%s.lock", path);
	CHECK(symlink(target, lock) == 0);
	CHECK(publish_to(path) == -1);
	CHECK(!exists(target));
	CHECK(!exists(path));
	CHECK(nlogged == 1);
	CHECK(strstr(logged, "SNMP snapshot not published: the snapshot's directory \"") != NULL);
	CHECK(strstr(logged, "/nobody\" is owned by uid 65534, not by root or collectd's user") != NULL);

	/* Root's own directory, writable by everyone. */
	snprintf(dir, sizeof(dir), "%s/open", top);
	CHECK(mkdir(dir, 0755) == 0 && chmod(dir, 0777) == 0);
	snprintf(path, sizeof(path), "%s/snapshot", dir);
	CHECK(publish_to(path) == -1);
	CHECK(!exists(path));
	CHECK(strstr(logged, "/open\" is writable by everyone (mode 0777)") != NULL);
	CHECK(strstr(logged, "chmod go-w") != NULL);

	/* Root's directory, safe, but a link at the lock (made by root earlier, say): not
	 * followed, and said. */
	snprintf(dir, sizeof(dir), "%s/safe", top);
	CHECK(mkdir(dir, 0755) == 0);
	snprintf(path, sizeof(path), "%s/snapshot", dir);
	snprintf(lock, sizeof(lock), "%s.lock", path);
	CHECK(symlink(target, lock) == 0);
	CHECK(publish_to(path) == -1);
	CHECK(!exists(target));
	CHECK(strstr(logged, "snapshot.lock: Too many levels of symbolic links (it is a symbolic link, which collectd "
			     "does not follow: remove it)") != NULL);
	CHECK(unlink(lock) == 0);

	/* A link at the snapshot itself is replaced, not written through. */
	CHECK(symlink(target, path) == 0);
	CHECK(publish_to(path) == 0);
	CHECK(!exists(target));
	CHECK(nlogged == 0);

	/* The directory named through a link: refused, the directory itself must be named. */
	snprintf(dir, sizeof(dir), "%s/link", top);
	snprintf(cmd, sizeof(cmd), "%s/safe", top);
	CHECK(symlink(cmd, dir) == 0);
	snprintf(path, sizeof(path), "%s/snapshot", dir);
	CHECK(publish_to(path) == -1);
	CHECK(strstr(logged, "/link\": Not a directory (it is a symbolic link or not a directory: name the directory itself)") !=
	      NULL);

	/* Links in the middle of the path: every component is checked as it is
	 * walked, not the path realpath() makes of it. Another user's directory holding a link to
	 * root's safe directory: root must not go through it (that user can point the link
	 * anywhere), although where it leads is safe. */
	snprintf(dir, sizeof(dir), "%s/safe/sub", top);
	CHECK(mkdir(dir, 0755) == 0);
	snprintf(dir, sizeof(dir), "%s/nobody-links", top);
	CHECK(mkdir(dir, 0755) == 0 && chown(dir, 65534, 65534) == 0);
	snprintf(cmd, sizeof(cmd), "%s/safe", top);
	snprintf(path, sizeof(path), "%s/link", dir);
	CHECK(symlink(cmd, path) == 0 && lchown(path, 65534, 65534) == 0);
	snprintf(path, sizeof(path), "%s/nobody-links/link/sub/snapshot", top);
	snprintf(target, sizeof(target), "%s/safe/sub/snapshot", top);
	CHECK(publish_to(path) == -1);
	CHECK(!exists(target));
	CHECK(nlogged == 1);
	CHECK(strstr(logged, "SNMP snapshot not published: directory \"") != NULL);
	CHECK(strstr(logged, "/nobody-links\" is owned by uid 65534, not by root or collectd's user") != NULL);

	/* Another user's link in root's safe directory: refused, naming the link and the fix. */
	snprintf(dir, sizeof(dir), "%s/links", top);
	CHECK(mkdir(dir, 0755) == 0);
	snprintf(path, sizeof(path), "%s/theirs", dir);
	CHECK(symlink(cmd, path) == 0 && lchown(path, 65534, 65534) == 0);
	snprintf(path, sizeof(path), "%s/links/theirs/sub/snapshot", top);
	CHECK(publish_to(path) == -1);
	CHECK(!exists(target));
	CHECK(strstr(logged, "/links/theirs\" is a symbolic link owned by uid 65534, not by root or collectd's user") !=
	      NULL);
	CHECK(strstr(logged, "/safe\" instead") != NULL);

	/* Root's own link in root's safe directory (as /var/run -> /run) is followed, also
	 * relative and through "..". */
	snprintf(path, sizeof(path), "%s/links/roots", top);
	CHECK(symlink(cmd, path) == 0);
	snprintf(path, sizeof(path), "%s/links/roots/sub/snapshot", top);
	CHECK(publish_to(path) == 0);
	CHECK(nlogged == 0);
	snprintf(path, sizeof(path), "%s/links/relative", top);
	CHECK(symlink("../links/./roots/..//safe", path) == 0);
	snprintf(path, sizeof(path), "%s/links/relative/sub/snapshot", top);
	CHECK(publish_to(path) == 0);
	CHECK(nlogged == 0);

	/* A link loop ends in an error, not a hang. */
	snprintf(path, sizeof(path), "%s/links/loop", top);
	CHECK(symlink("loop", path) == 0);
	snprintf(path, sizeof(path), "%s/links/loop/sub/snapshot", top);
	CHECK(publish_to(path) == -1);
	CHECK(strstr(logged, "symbolic links") != NULL);

	/* A directory that is not there yet is made, safe, and used. */
	snprintf(path, sizeof(path), "%s/new/snapshot", top);
	snprintf(dir, sizeof(dir), "%s/new", top);
	CHECK(publish_to(path) == 0);
	CHECK(stat(dir, &sb) == 0 && (sb.st_mode & 07777) == 0755 && sb.st_uid == 0);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	CHECK(system(cmd) == 0);
	return testing_done();
}
