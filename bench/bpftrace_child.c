#define _GNU_SOURCE /* pipe2 */
#include "bpftrace_child.h"

#include "measure.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Reads what is there within timeout_ms; 0 on EOF, -1 on timeout, else bytes read. */
static ssize_t read_some(int fd, char *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, 1, timeout_ms);

	if (r <= 0)
		return -1;
	return read(fd, buf, len);
}

static void reap(struct bpftrace_child *c, int sig)
{
	if (c->pid > 0) {
		kill(c->pid, sig);
		waitpid(c->pid, NULL, 0);
	}
	if (c->out >= 0)
		close(c->out);
	c->pid = -1;
	c->out = -1;
}

static void exec_child(int out, const char *bpftrace, const char *script)
{
	/* Never outlive the bench, even if it is killed: the probes go with this process. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	dup2(out, STDOUT_FILENO);
	dup2(out, STDERR_FILENO);
	/* -B none: the `ready` line must reach us now, not when a pipe buffer fills. */
	execlp(bpftrace, "bpftrace", "-B", "none", "-e", script, (char *)NULL);
	fprintf(stderr, "cannot run %s: %s\n", bpftrace, strerror(errno));
	_exit(127);
}

int bpftrace_start(struct bpftrace_child *c, const char *bpftrace, const char *script, int timeout_ms,
		   char *err, size_t errlen)
{
	char buf[4096], line[256] = "";
	size_t used = 0;
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	int fds[2];

	c->pid = -1;
	c->out = -1;
	if (pipe2(fds, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	c->pid = fork();
	if (c->pid == 0)
		exec_child(fds[1], bpftrace, script);
	close(fds[1]);
	c->out = fds[0];
	if (c->pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		reap(c, SIGKILL);
		return -1;
	}
	/* Line by line until `ready`; keep the last other line as the reason if it dies. */
	for (;;) {
		int64_t left_ns = (int64_t)(deadline - now_ns());
		int left = left_ns > 0 ? (int)(left_ns / 1000000) : 0;
		ssize_t n = left > 0 ? read_some(c->out, buf, sizeof(buf), left) : -1;

		if (n <= 0) {
			snprintf(err, errlen, "%s%s", n < 0 ? "no `ready` in time; last output: " : "exited: ",
				 line[0] ? line : "(nothing)");
			reap(c, SIGKILL);
			return -1;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (used + 1 < sizeof(line))
					line[used++] = buf[i];
				continue;
			}
			line[used] = '\0';
			if (!strncmp(line, "ready", 5))
				return 0;
			used = 0;
		}
	}
}

void bpftrace_stop(struct bpftrace_child *c)
{
	char buf[65536];
	uint64_t deadline = now_ns() + 10000000000ull;
	bool eof = false;

	if (c->pid <= 0)
		return;
	/* On SIGINT bpftrace prints every map; it cannot exit until the pipe takes it all. */
	kill(c->pid, SIGINT);
	while (!eof && now_ns() < deadline)
		eof = read_some(c->out, buf, sizeof(buf), 1000) == 0;
	reap(c, eof ? 0 : SIGKILL);
}

static bool in_path(const char *name)
{
	const char *path = getenv("PATH");
	char dir[4096], file[4200];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(dir, sizeof(dir), "%.*s", (int)n, path);
		snprintf(file, sizeof(file), "%s/%s", n ? dir : ".", name);
		if (!access(file, X_OK))
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

const char *bpftrace_find(const char *event_dir, char *why, size_t len)
{
	const char *bt = getenv("BPFTRACE");
	char dir[256];

	if (!bt || !*bt)
		bt = "bpftrace";
	if (!strcmp(bt, "no") || (strchr(bt, '/') ? access(bt, X_OK) != 0 : !in_path(bt))) {
		snprintf(why, len, "not installed");
		return NULL;
	}
	/* Its tracepoint probes need tracefs, which some machines do not mount at boot. */
	snprintf(dir, sizeof(dir), "/sys/kernel/tracing/events/%s", event_dir);
	if (access(dir, F_OK) && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
		snprintf(why, len, "left out: tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
		return NULL;
	}
	return bt;
}
