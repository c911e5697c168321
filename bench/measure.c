#define _GNU_SOURCE /* sched_setaffinity */
#include "measure.h"

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double median(const double *v, int n)
{
	double *s = malloc(sizeof(*s) * (size_t)n), m;

	if (!s)
		abort();
	memcpy(s, v, sizeof(*s) * (size_t)n);
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

double min_of(const double *v, int n)
{
	double m = v[0];

	for (int i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

double max_of(const double *v, int n)
{
	double m = v[0];

	for (int i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

double mean_of(const double *v, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += v[i];
	return sum / n;
}

void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

long vmrss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static bool is_tracepoint_prog(uint32_t prog_id)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(prog_id);
	bool yes;

	if (fd < 0)
		return false;
	memset(&info, 0, sizeof(info));
	yes = !bpf_obj_get_info_by_fd(fd, &info, &len) && info.type == BPF_PROG_TYPE_TRACEPOINT;
	close(fd);
	return yes;
}

static bool named_in(const char *tp, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(tp, *names))
			return true;
	return false;
}

/* Raw tracepoint links name their tracepoint. A perf_event link's tracepoint name is only
 * in newer UAPI headers than Debian 12's, so every classic tracepoint program counts. */
static bool on_tracepoints(int link_fd, const char *const *names)
{
	struct bpf_link_info info;
	uint32_t len = sizeof(info);
	char tp[64] = "";

	memset(&info, 0, sizeof(info));
	info.raw_tracepoint.tp_name = (uint64_t)(uintptr_t)tp;
	info.raw_tracepoint.tp_name_len = sizeof(tp);
	if (bpf_obj_get_info_by_fd(link_fd, &info, &len))
		return false;
	if (info.type == BPF_LINK_TYPE_RAW_TRACEPOINT)
		return named_in(tp, names);
	return info.type == BPF_LINK_TYPE_PERF_EVENT && is_tracepoint_prog(info.prog_id);
}

int foreign_tracepoint_links(const char *const *names)
{
	uint32_t id = 0;
	int n = 0;

	while (!bpf_link_get_next_id(id, &id)) {
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue; /* gone meanwhile */
		n += on_tracepoints(fd, names);
		close(fd);
	}
	return n;
}

int foreign_syscall_links(void)
{
	static const char *const syscall_tps[] = { "sys_enter", "sys_exit", NULL };

	return foreign_tracepoint_links(syscall_tps);
}

/* The first CPU the process may use, and another one if there is one. */
void choose_cpus(int *cpu, int *other_cpu)
{
	cpu_set_t set;

	*cpu = *other_cpu = 0;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	*cpu = -1;
	for (int i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &set))
			continue;
		if (*cpu < 0)
			*cpu = *other_cpu = i;
		else if (*other_cpu == *cpu)
			*other_cpu = i;
	}
	if (*cpu < 0)
		*cpu = *other_cpu = 0;
}

/* getppid: no arguments, no locks, no copy to user space, so the loop measures the
 * syscall entry/exit path (where the tracepoints sit) and little else. Called through
 * syscall() because glibc could one day cache it. */
double syscall_loop_ns(long n)
{
	uint64_t t0 = now_ns();

	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return (double)(now_ns() - t0) / (double)n;
}
