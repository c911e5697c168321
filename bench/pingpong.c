#define _GNU_SOURCE /* pthread_setaffinity_np, SCHED_RESET_ON_FORK */
#include "bench/pingpong.h"

#include "bench/measure.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

static void *partner(void *arg)
{
	struct pingpong *p = arg;
	char c;

	while (read(p->ping[0], &c, 1) == 1)
		if (write(p->pong[1], &c, 1) != 1)
			break;
	return NULL;
}

/* SCHED_FIFO, or back to SCHED_OTHER; RESET_ON_FORK keeps children forked meanwhile
 * (bpftrace) off the real-time class. */
static bool set_fifo(pthread_t t, bool on)
{
	struct sched_param sp = { .sched_priority = on ? 1 : 0 };

	return !pthread_setschedparam(t, on ? SCHED_FIFO | SCHED_RESET_ON_FORK : SCHED_OTHER, &sp);
}

double pingpong_batch(struct pingpong *p)
{
	uint64_t t0;
	char c = 'x';

	if (p->fifo)
		set_fifo(pthread_self(), true);
	t0 = now_ns();
	for (int i = 0; i < p->trips; i++)
		if (write(p->ping[1], &c, 1) != 1 || read(p->pong[0], &c, 1) != 1) {
			perror("ping-pong");
			exit(1);
		}
	t0 = now_ns() - t0;
	if (p->fifo)
		set_fifo(pthread_self(), false);
	return (double)t0 / p->trips;
}

double pingpong_switches_per_trip(struct pingpong *p)
{
	struct rusage r0, r1;

	getrusage(RUSAGE_SELF, &r0);
	pingpong_batch(p);
	getrusage(RUSAGE_SELF, &r1);
	/* the two sched_setscheduler() calls around the batch may add one switch each */
	return (double)((r1.ru_nvcsw + r1.ru_nivcsw) - (r0.ru_nvcsw + r0.ru_nivcsw)) / p->trips;
}

int pingpong_start(struct pingpong *p)
{
	cpu_set_t one;

	if (pipe(p->ping) || pipe(p->pong) || pthread_create(&p->partner, NULL, partner, p))
		return -1;
	CPU_ZERO(&one);
	CPU_SET(p->cpu, &one);
	pthread_setaffinity_np(p->partner, sizeof(one), &one);
	/* The partner stays FIFO: it only runs when main, FIFO too during batches, writes. */
	p->fifo = set_fifo(p->partner, true);
	return 0;
}

void pingpong_stop(struct pingpong *p)
{
	close(p->ping[1]); /* the partner's read() returns 0 */
	pthread_join(p->partner, NULL);
	close(p->ping[0]);
	close(p->pong[0]);
	close(p->pong[1]);
}
