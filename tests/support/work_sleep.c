/* Workload of runqueue's Behind test: a thread that works WORK_US of CPU and sleeps SLEEP_US,
 * for SECONDS, in cgroup CGROUP (a cgroup2 directory) when given. Usage: work_sleep SECONDS
 * WORK_US SLEEP_US [CGROUP | --stop]; prints "<run_delay> <waits> <ran> <preempted>":
 * its run-queue wait (ns), switch-ins and time on a CPU (ns) as the kernel counts them
 * (/proc/thread-self/schedstat, fields 2, 3 and 1), and its involuntary context switches
 * (getrusage RUSAGE_THREAD, ru_nivcsw), from its start in CGROUP to its end.
 *
 * CGROUP: it joins CGROUP itself after one sleep (a hog's way in: which of its waits are
 * CGROUP's is not measured). --stop (a victim's): it takes its figures, then stops itself
 * (SIGSTOP) for the caller to move it into a cgroup and continue it (SIGCONT); at its end it
 * takes them again and stops again, for the caller to move it out and continue it, and only
 * then prints them and exits. So every wait it has in the cgroup is the cgroup's by every
 * attach method and in its figures, and none of its figures' is another cgroup's. A thread
 * that joins a cgroup itself does so while it runs, after a wait that the module counts for
 * the cgroup it left (tp_btf, raw_tp: at the switch-in) or the one it joined (the classic
 * tracepoint: at its next switch-out), and that wait, beside hogs in another cgroup, can be a
 * whole turn of theirs (48 ms seen). Its work ends at SECONDS' end too: with WORK_US longer
 * than that it is a CPU hog that ends itself (the Behind test's hogs, --stop as the victim).
 * --stop-batch: --stop, the thread SCHED_BATCH, which never preempts a running thread when it
 * wakes (the Behind test's victim: one that preempts the hog at each wakeup under CFS waits
 * for little but kernel work). */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long ns_of(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (long long)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int schedstat(unsigned long long *delay, unsigned long long *waits, unsigned long long *run)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	int ok = f && fscanf(f, "%llu %llu %llu", run, delay, waits) == 3;

	if (f)
		fclose(f);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned long long d0, w0, r0, d1, w1, r1;
	struct rusage u0, u1;
	long long end, work, sleep_us;
	int stop;
	struct timespec req;

	if ((argc != 4 && argc != 5) || atof(argv[1]) <= 0 || (work = atoll(argv[2])) <= 0 || (sleep_us = atoll(argv[3])) <= 0) {
		fprintf(stderr, "usage: %s SECONDS WORK_US SLEEP_US [CGROUP | --stop | --stop-batch]\n", argv[0]);
		return 2;
	}
	stop = argc == 5 && (strcmp(argv[4], "--stop") == 0 || strcmp(argv[4], "--stop-batch") == 0);
	if (argc == 5 && strcmp(argv[4], "--stop-batch") == 0) {
		struct sched_param sp = { 0 };

		if (sched_setscheduler(0, SCHED_BATCH, &sp) != 0) {
			perror("sched_setscheduler SCHED_BATCH");
			return 1;
		}
	}
	req.tv_sec = sleep_us / 1000000;
	req.tv_nsec = (sleep_us % 1000000) * 1000;
	if (argc == 5 && !stop) {
		char path[4096];
		FILE *f;

		nanosleep(&req, NULL);
		snprintf(path, sizeof(path), "%s/cgroup.procs", argv[4]);
		f = fopen(path, "w");
		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
			perror(path);
			return 1;
		}
	}
	if (schedstat(&d0, &w0, &r0) || getrusage(RUSAGE_THREAD, &u0)) {
		perror("/proc/thread-self/schedstat");
		return 1;
	}
	if (stop)
		raise(SIGSTOP);
	end = ns_of(CLOCK_MONOTONIC) + (long long)(atof(argv[1]) * 1e9);
	while (ns_of(CLOCK_MONOTONIC) < end) {
		long long until = ns_of(CLOCK_THREAD_CPUTIME_ID) + work * 1000;

		while (ns_of(CLOCK_THREAD_CPUTIME_ID) < until && ns_of(CLOCK_MONOTONIC) < end)
			;
		nanosleep(&req, NULL);
	}
	if (schedstat(&d1, &w1, &r1) || getrusage(RUSAGE_THREAD, &u1))
		return 1;
	if (stop)
		raise(SIGSTOP);
	printf("%llu %llu %llu %ld\n", d1 - d0, w1 - w0, r1 - r0, u1.ru_nivcsw - u0.ru_nivcsw);
	return 0;
}
