#include "libcore/kernel/privileges.h"

#include <dirent.h>
#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static uint64_t effective_caps(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2] = { 0 };

	if (syscall(SYS_capget, &hdr, data))
		return 0;
	return (uint64_t)data[0].effective | ((uint64_t)data[1].effective << 32);
}

static bool has(uint64_t caps, int cap)
{
	return caps & (1ULL << cap);
}

bool privileges_sufficient(void)
{
	uint64_t caps = effective_caps();

	return has(caps, CAP_SYS_ADMIN) || (has(caps, CAP_BPF) && has(caps, CAP_PERFMON));
}

void privileges_explain(char *err, size_t errlen)
{
	uint64_t caps = effective_caps();

	snprintf(err, errlen,
		 "not permitted to load BPF programs: running as uid %u without %s%s%s. Run collectd as root, "
		 "or grant CAP_BPF and CAP_PERFMON (systemd: AmbientCapabilities=CAP_BPF CAP_PERFMON, see "
		 "contrib/collectd-ebpf.service.d.conf); also check kernel.unprivileged_bpf_disabled and lockdown",
		 (unsigned)geteuid(), has(caps, CAP_BPF) ? "" : "CAP_BPF",
		 !has(caps, CAP_BPF) && !has(caps, CAP_PERFMON) ? " and " : "",
		 has(caps, CAP_PERFMON) ? "" : "CAP_PERFMON");
}

/* The calling thread's ambient and inheritable sets emptied (async-signal-safe). */
static void clear_this_thread(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2] = { 0 };

	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capget, &hdr, data))
		return;
	if (!data[0].inheritable && !data[1].inheritable)
		return;
	data[0].inheritable = data[1].inheritable = 0;
	syscall(SYS_capset, &hdr, data);
}

#define CLEAR_SIGNAL (SIGRTMAX - 2)
#define CLEAR_MAX_THREADS 4096

static atomic_int cleared;

static void on_clear_signal(int sig)
{
	int saved = errno;

	(void)sig;
	clear_this_thread();
	atomic_fetch_add(&cleared, 1);
	errno = saved;
}

/* Signals each thread not yet in done (n of them), adding it there: the number signalled. */
static int signal_new_threads(pid_t *done, int *n)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int sent = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);
		int i;

		if (tid <= 0)
			continue;
		for (i = 0; i < *n && done[i] != tid; i++)
			;
		if (i < *n || *n == CLEAR_MAX_THREADS)
			continue;
		done[(*n)++] = tid;
		if (tid == (pid_t)syscall(SYS_gettid))
			continue;
		if (!syscall(SYS_tgkill, getpid(), tid, CLEAR_SIGNAL))
			sent++;
	}
	closedir(d);
	return sent;
}

int privileges_clear_inheritable(void)
{
	struct sigaction sa = { .sa_handler = on_clear_signal, .sa_flags = SA_RESTART }, old;
	static pid_t done[CLEAR_MAX_THREADS];
	int n = 0, sent = 0, round;

	clear_this_thread(); /* the threads it starts from now on inherit empty sets */
	sigemptyset(&sa.sa_mask);
	if (sigaction(CLEAR_SIGNAL, &sa, &old))
		return -1;
	atomic_store(&cleared, 0);
	/* A thread not yet cleared may start another meanwhile (which inherits its sets): list
	 * again, once the ones signalled have cleared theirs, until no thread is new. */
	while ((round = signal_new_threads(done, &n)) > 0) {
		sent += round;
		for (int waited = 0; atomic_load(&cleared) < sent && waited < 1000; waited++)
			nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
		if (atomic_load(&cleared) < sent)
			return sent - atomic_load(&cleared); /* the handler stays: a late signal is harmless */
	}
	sigaction(CLEAR_SIGNAL, &old, NULL);
	return 0;
}
