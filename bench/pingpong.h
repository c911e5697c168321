/* The scheduler workload of bench/runqueue_cost and bench/cost_modules: two threads pinned
 * to one CPU play ping-pong over two pipes, each round trip two wakeups and two context
 * switches (each side blocks in read() until the other writes). Both run SCHED_FIFO at the
 * same priority during a batch, so a wakeup never preempts the writer and the count stays
 * exact. */
#ifndef EBPF_BENCH_PINGPONG_H
#define EBPF_BENCH_PINGPONG_H

#include <pthread.h>
#include <stdbool.h>

struct pingpong {
	int trips, cpu;       /* round trips per batch; the CPU of both threads */
	int ping[2], pong[2]; /* main -> partner, partner -> main */
	pthread_t partner;
	bool fifo;            /* the batches run SCHED_FIFO */
};

/* The pipes and the partner thread, on p->cpu (the caller pins itself there). 0 or -1. */
int pingpong_start(struct pingpong *p);
void pingpong_stop(struct pingpong *p);
/* One batch of p->trips round trips: wall ns per round trip (exits on a pipe error). */
double pingpong_batch(struct pingpong *p);
/* Context switches of both threads per round trip, from getrusage: 2.00 when every read()
 * blocked and no wakeup preempted. */
double pingpong_switches_per_trip(struct pingpong *p);

#endif
