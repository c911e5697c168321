/* Workload for the cost governor's runqueue test: a scheduler storm on purpose. PAIRS pairs
 * of threads ping-pong one byte through two pipes for SECONDS seconds, pair i pinned to CPU
 * i modulo the CPUs it may run on, so that every round trip is two wakeups and two context
 * switches. Prints the switch-ins the kernel counted for the storm's threads while they
 * stormed (each thread's /proc/thread-self/schedstat third field, at its start and end).
 * Usage: sched_storm PAIRS SECONDS */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAIRS 32

struct side {
	int in, out;      /* read from in, write to out */
	int cpu;
	int first;        /* 1: this side writes first */
	volatile int *stop;
	uint64_t switches; /* switch-ins while it stormed */
	int failed;
};

static double seconds;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* This thread's switch-ins so far (sched_info pcount), or -1. */
static long long switch_ins(void)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	unsigned long long run, wait, n;
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%llu %llu %llu", &run, &wait, &n) == 3;
	fclose(f);
	return ok ? (long long)n : -1;
}

static void *storm(void *arg)
{
	struct side *s = arg;
	cpu_set_t set;
	long long n0, n1;
	char c = 0;
	double end = now_s() + seconds;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
		s->failed = 1;
		return NULL;
	}
	n0 = switch_ins();
	if (s->first && write(s->out, &c, 1) != 1)
		s->failed = 1;
	while (!s->failed) {
		for (int i = 0; i < 100; i++)
			if (read(s->in, &c, 1) != 1 || *s->stop || write(s->out, &c, 1) != 1)
				goto out;
		if (now_s() >= end) /* the first to see the end stops both sides */
			break;
	}
out:
	*s->stop = 1;
	(void)!write(s->out, &c, 1); /* wakes the other side if it waits to read */
	n1 = switch_ins();
	if (n0 < 0 || n1 < n0)
		s->failed = 1;
	else
		s->switches = (uint64_t)(n1 - n0);
	return NULL;
}

int main(int argc, char **argv)
{
	int pairs = argc == 3 ? atoi(argv[1]) : 0;
	static struct side sides[2 * MAX_PAIRS];
	static volatile int stop[MAX_PAIRS];
	pthread_t t[2 * MAX_PAIRS];
	cpu_set_t allowed;
	int cpus[CPU_SETSIZE], ncpu = 0;
	uint64_t total = 0;

	seconds = argc == 3 ? atof(argv[2]) : 0;
	if (pairs < 1 || pairs > MAX_PAIRS || !(seconds > 0)) {
		fprintf(stderr, "usage: sched_storm PAIRS(1-%d) SECONDS\n", MAX_PAIRS);
		return 2;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		perror("sched_getaffinity");
		return 1;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed))
			cpus[ncpu++] = c;
	for (int p = 0; p < pairs; p++) {
		int ab[2], ba[2];

		if (pipe(ab) || pipe(ba)) {
			perror("pipe");
			return 1;
		}
		sides[2 * p] = (struct side){ ba[0], ab[1], cpus[p % ncpu], 1, &stop[p], 0, 0 };
		sides[2 * p + 1] = (struct side){ ab[0], ba[1], cpus[p % ncpu], 0, &stop[p], 0, 0 };
	}
	for (int i = 0; i < 2 * pairs; i++)
		if (pthread_create(&t[i], NULL, storm, &sides[i])) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < 2 * pairs; i++) {
		pthread_join(t[i], NULL);
		if (sides[i].failed) {
			fprintf(stderr, "sched_storm: thread %d could not pin itself, ping-pong or read its schedstat\n", i);
			return 1;
		}
		total += sides[i].switches;
	}
	printf("%llu\n", (unsigned long long)total);
	return 0;
}
