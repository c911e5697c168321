#include "libcore/kernel/kretprobe_events.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define PREFIX "collectd_ebpf_"

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

/* kprobe_profile, opened with the first event and kept, and read with preadv(): the vfs
 * module counts vfs_read() and vfs_open() calls, and the engine's own bookkeeping must not
 * show up in the counts of a vfs module that watches collectd itself (readv and preadv go
 * through vfs_readv). The lock keeps one whole read at a time: the file is regenerated
 * when read from offset 0, and lines change length as counts grow. */
static int profile_fd = -1;
static pthread_mutex_t profile_lock = PTHREAD_MUTEX_INITIALIZER;

/* The tracefs directory whose kprobe_events exists, or NULL. */
static const char *tracefs_dir(void)
{
	char path[128];

	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/kprobe_events", tracefs_dirs[i]);
		if (!access(path, F_OK))
			return tracefs_dirs[i];
	}
	return NULL;
}

/* One command to kprobe_events; 0 or -errno. */
static int write_command(const char *dir, const char *cmd)
{
	char path[128];
	ssize_t len = (ssize_t)strlen(cmd), n;
	int fd, e = 0;

	snprintf(path, sizeof(path), "%s/kprobe_events", dir);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, cmd, len);
	if (n != len)
		e = n < 0 ? -errno : -EIO;
	close(fd);
	return e;
}

/* A process killed with SIGKILL leaves its events behind, each holding its pool of
 * instances: remove the ones whose process is gone. The kernel refuses (EBUSY) to remove
 * an event still in use, so a live owner this process cannot see (another pid namespace)
 * keeps its events. */
static void remove_orphans(const char *dir)
{
	char path[128], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/kprobe_events", dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		/* "r4096:kprobes/collectd_ebpf_123_0_vfs_read vfs_read" */
		char *name = strchr(line, '/'), *end, cmd[160];
		long pid;

		if (!name || strncmp(++name, PREFIX, strlen(PREFIX)))
			continue;
		name[strcspn(name, " \n")] = '\0';
		pid = strtol(name + strlen(PREFIX), &end, 10);
		if (end == name + strlen(PREFIX) || *end != '_' || pid <= 0 || pid == getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(cmd, sizeof(cmd), "-:kprobes/%s\n", name);
		write_command(dir, cmd);
	}
	fclose(f);
}

static void remove_orphans_once(void)
{
	const char *dir = tracefs_dir();

	if (dir)
		remove_orphans(dir);
}

/* "collectd_ebpf_<pid>_<n>_<function>", the function's characters other than letters,
 * digits and '_' (foo.isra.0) written '_', cut to the kernel's limit. */
static void event_name(const char *function, char name[KRETPROBE_EVENT_NAME_MAX])
{
	static unsigned counter;
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	unsigned n;

	pthread_mutex_lock(&lock);
	n = counter++;
	pthread_mutex_unlock(&lock);
	snprintf(name, KRETPROBE_EVENT_NAME_MAX, PREFIX "%d_%u_%s", (int)getpid(), n, function);
	for (char *c = name + strlen(PREFIX); *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			*c = '_';
}

/* The probe's trace event id, or -errno. */
static long event_id(const char *dir, const char *name)
{
	char path[256];
	long id = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/kprobes/%s/id", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fscanf(f, "%ld", &id) != 1)
		id = -EINVAL;
	fclose(f);
	return id;
}

static int perf_open(long id)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = (unsigned long long)id;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	fd = (int)syscall(__NR_perf_event_open, &attr, -1 /* every process */, 0 /* cpu */, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int kretprobe_event_open(const char *function, char name[KRETPROBE_EVENT_NAME_MAX])
{
	static pthread_once_t orphans_once = PTHREAD_ONCE_INIT;
	const char *dir = tracefs_dir();
	char cmd[256];
	long id;
	int e, fd;

	name[0] = '\0';
	if (!dir)
		return -ENOENT;
	pthread_once(&orphans_once, remove_orphans_once);
	event_name(function, name);
	snprintf(cmd, sizeof(cmd), "r%d:kprobes/%s %s\n", KRETPROBE_MAXACTIVE, name, function);
	e = write_command(dir, cmd);
	if (e) {
		name[0] = '\0';
		return e;
	}
	id = event_id(dir, name);
	fd = id < 0 ? (int)id : perf_open(id);
	if (fd < 0) {
		kretprobe_event_remove(name);
		return fd;
	}
	pthread_mutex_lock(&profile_lock);
	if (profile_fd < 0) {
		snprintf(cmd, sizeof(cmd), "%s/kprobe_profile", dir);
		profile_fd = open(cmd, O_RDONLY | O_CLOEXEC);
	}
	pthread_mutex_unlock(&profile_lock);
	return fd;
}

void kretprobe_event_remove(char name[KRETPROBE_EVENT_NAME_MAX])
{
	const char *dir = tracefs_dir();
	char cmd[160];

	if (!name[0])
		return;
	snprintf(cmd, sizeof(cmd), "-:kprobes/%s\n", name);
	if (dir)
		write_command(dir, cmd);
	name[0] = '\0';
}

/* The whole of kprobe_profile (malloc'd, NUL-terminated), or NULL. */
static char *read_profile(void)
{
	size_t used = 0, cap = 8192;
	char *buf = malloc(cap);
	ssize_t n = 0;

	pthread_mutex_lock(&profile_lock);
	while (buf && profile_fd >= 0) {
		struct iovec iov;

		if (cap - used < 4096) {
			char *more = realloc(buf, cap * 2);

			if (!more)
				break;
			buf = more;
			cap *= 2;
		}
		iov = (struct iovec){ .iov_base = buf + used, .iov_len = cap - used - 1 };
		n = preadv(profile_fd, &iov, 1, (off_t)used);
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	pthread_mutex_unlock(&profile_lock);
	if (!buf || profile_fd < 0 || n != 0) {
		free(buf);
		return NULL;
	}
	buf[used] = '\0';
	return buf;
}

int kretprobe_events_missed(const char *const *names, int n, uint64_t *missed)
{
	char *text = read_profile(), *save = NULL;

	*missed = 0;
	if (!text)
		return -1;
	/* "  <event>   <hits>   <missed>" */
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char event[KRETPROBE_EVENT_NAME_MAX + 64];
		unsigned long long hits, miss;

		if (sscanf(line, "%127s %llu %llu", event, &hits, &miss) != 3)
			continue;
		for (int i = 0; i < n; i++)
			if (names[i][0] && !strcmp(names[i], event))
				*missed += miss;
	}
	free(text);
	return 0;
}
