/* bench/contention_cost: what a shared map row costs against a per-CPU one when every CPU
 * records into it at once, side by side in one run: the figures the memory layout of the
 * modules' maps was chosen from (doc/contributing.md, "Kernel memory").
 *
 * Two threads pinned to two CPUs call getppid() in a tight loop at the same time; a
 * tp_btf/sys_exit program (contention.bpf.c) records each call as the modules do, one
 * histogram value (slot + sum, atomic adds) and one counter add, into
 *   - a per-CPU array (one copy per possible CPU: today's layout, memory x CPUs),
 *   - a shared array, both CPUs into the same slot and counter (the cache line moves
 *     between the CPUs on every event: the worst case of a shared row),
 *   - a shared array, each CPU into a row of its own (the atomic add alone).
 * The same again with one thread alone (the other CPU idle): the uncontended cost.
 * ns per call is each thread's own loop time over its calls, the mean of the threads.
 *
 * Numbers only, never judged: exit 0 when it ran, 1 when it could not.
 */
#define _GNU_SOURCE
#include "bench/contention.skel.h"
#include "bench/measure.h"
#include "bench/side_by_side.h"
#include "libcore/kernel/privileges.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

enum cfg { NO_PROBE, FILTER_ONLY, PERCPU_SAME, SHARED_SAME, SHARED_SPREAD, NCFG };

static const char *const labels[NCFG] = {
	[NO_PROBE] = "no probe",
	[FILTER_ONLY] = "empty program (pid filter only)",
	[PERCPU_SAME] = "per-CPU array, same row",
	[SHARED_SAME] = "shared array, same slot+counter",
	[SHARED_SPREAD] = "shared array, a row per CPU",
};
static const int refs[NCFG] = { -1, -1, FILTER_ONLY, PERCPU_SAME, PERCPU_SAME };

struct bench {
	int rounds, batches, calls, cpu, other_cpu;
	bool both;                  /* this table: both threads run; else main alone */
	pthread_barrier_t start, done;
	pthread_t partner;
	double partner_ns;          /* the partner's ns per call in the last batch */
	volatile bool quit;
	struct contention_bpf *skel;
	struct bpf_link *link;
	uint64_t recorded;          /* the counter's total over the CPUs at the last detach */
	uint64_t made;              /* getppid() calls made while it was attached */
	struct side_by_side sbs;
};

static void *partner(void *arg)
{
	struct bench *b = arg;

	for (;;) {
		pthread_barrier_wait(&b->start);
		if (b->quit)
			return NULL;
		b->partner_ns = syscall_loop_ns(b->calls);
		pthread_barrier_wait(&b->done);
	}
}

static double batch(void *ctx)
{
	struct bench *b = ctx;
	double mine;

	if (b->link)
		b->made += (uint64_t)b->calls * (b->both ? 2 : 1);
	if (!b->both)
		return syscall_loop_ns(b->calls);
	pthread_barrier_wait(&b->start);
	mine = syscall_loop_ns(b->calls);
	pthread_barrier_wait(&b->done);
	return (mine + b->partner_ns) / 2;
}

static int attach(void *ctx, int c, int round)
{
	struct bench *b = ctx;
	enum bpf_map_type type = c == PERCPU_SAME ? BPF_MAP_TYPE_PERCPU_ARRAY : BPF_MAP_TYPE_ARRAY;
	struct bpf_program *prog;

	(void)round;
	b->made = 0;
	b->skel = contention_bpf__open();
	if (!b->skel)
		return SBS_FAILED;
	b->skel->rodata->filter_tgid = (uint32_t)getpid();
	b->skel->rodata->spread = c == SHARED_SPREAD;
	prog = c == FILTER_ONLY ? b->skel->progs.filter_only : b->skel->progs.record;
	bpf_program__set_autoload(c == FILTER_ONLY ? b->skel->progs.record : b->skel->progs.filter_only, false);
	if (bpf_map__set_type(b->skel->maps.latency, type) || bpf_map__set_type(b->skel->maps.calls, type) ||
	    contention_bpf__load(b->skel)) {
		fprintf(stderr, "contention_cost: cannot load the program for \"%s\"\n", labels[c]);
		return SBS_FAILED;
	}
	b->link = bpf_program__attach(prog);
	return b->link ? SBS_ATTACHED : SBS_FAILED;
}

/* The counter's total, summed over rows and per-CPU copies: every call was counted. */
static uint64_t counter_total(const struct contention_bpf *skel)
{
	const struct bpf_map *m = skel->maps.calls;
	int copies = bpf_map__type(m) == BPF_MAP_TYPE_PERCPU_ARRAY ? libbpf_num_possible_cpus() : 1;
	uint64_t total = 0, *v = calloc((size_t)copies, sizeof(*v));

	for (uint32_t row = 0; v && row < bpf_map__max_entries(m); row++)
		if (!bpf_map_lookup_elem(bpf_map__fd(m), &row, v))
			for (int i = 0; i < copies; i++)
				total += v[i];
	free(v);
	return total;
}

static void detach(void *ctx)
{
	struct bench *b = ctx;

	bpf_link__destroy(b->link);
	b->link = NULL;
	if (b->skel && bpf_map__fd(b->skel->maps.calls) >= 0)
		b->recorded = counter_total(b->skel);
	contention_bpf__destroy(b->skel);
	b->skel = NULL;
}

static void run_table(struct bench *b, bool both)
{
	static const char *const sys_tps[] = { "sys_exit", NULL };

	b->both = both;
	b->sbs = (struct side_by_side){ .ncfg = NCFG, .rounds = b->rounds, .batches = b->batches, .tracepoints = sys_tps,
					.ctx = b, .batch = batch, .attach = attach, .detach = detach };
	if (sbs_run(&b->sbs)) {
		fprintf(stderr, "contention_cost: a configuration did not load\n");
		exit(1);
	}
	printf("\n%s: getppid() on %s, %d rounds x %d batches x %d calls per thread.\n"
	       "ns/call: each thread's loop time over its calls (mean of the threads), fastest batch of a round,\n"
	       "median of the rounds (min .. max). added ns: over no-probe batches run just before.\n\n",
	       both ? "Both CPUs at once" : "One CPU alone (the other idle)",
	       both ? "two threads pinned to two CPUs" : "one thread", b->rounds, b->batches, b->calls);
	sbs_print_table(&b->sbs, labels, refs, "ns/call");
	sbs_warn_foreign(&b->sbs, "sys_exit");
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-r rounds] [-b batches] [-n calls per batch and thread]\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static struct bench b; /* large: per-round samples */
	struct utsname u;
	cpu_set_t one;
	int opt;

	b.rounds = 7;
	b.batches = 30;
	b.calls = 5000;
	while ((opt = getopt(argc, argv, "r:b:n:")) != -1) {
		switch (opt) {
		case 'r': b.rounds = atoi(optarg); break;
		case 'b': b.batches = atoi(optarg); break;
		case 'n': b.calls = atoi(optarg); break;
		default: usage(argv[0]);
		}
	}
	if (b.rounds < 1 || b.rounds > SBS_MAX_ROUNDS || b.batches < 1 || b.batches > SBS_MAX_BATCHES || b.calls < 100)
		usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!privileges_sufficient() || access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "contention_cost: needs root (or CAP_BPF + CAP_PERFMON) and a kernel with BTF\n"
				"(/sys/kernel/btf/vmlinux): sudo make bench\n");
		return 1;
	}
	choose_cpus(&b.cpu, &b.other_cpu);
	if (b.cpu == b.other_cpu) {
		fprintf(stderr, "contention_cost: needs two CPUs to run on\n");
		return 1;
	}
	pin_to_cpu(b.cpu);
	pthread_barrier_init(&b.start, NULL, 2);
	pthread_barrier_init(&b.done, NULL, 2);
	if (pthread_create(&b.partner, NULL, partner, &b)) {
		perror("contention_cost: the partner thread");
		return 1;
	}
	CPU_ZERO(&one);
	CPU_SET(b.other_cpu, &one);
	pthread_setaffinity_np(b.partner, sizeof(one), &one);
	uname(&u);
	printf("collectd-ebpf contention_cost: kernel %s %s, %ld CPUs online, %d possible; threads on CPUs %d and %d\n",
	       u.release, u.machine, sysconf(_SC_NPROCESSORS_ONLN), libbpf_num_possible_cpus(), b.cpu, b.other_cpu);
	printf("Each event: one histogram value (slot + sum) and one counter add, atomic, as the modules record.\n");
	run_table(&b, true);
	printf("\n   Witness: the last measurement's counter holds %llu events for %llu getppid() calls made while\n"
	       "   attached (the barriers' futex calls count too; fewer would be a lost increment).\n",
	       (unsigned long long)b.recorded, (unsigned long long)b.made);
	run_table(&b, false);
	b.quit = true;
	pthread_barrier_wait(&b.start);
	pthread_join(b.partner, NULL);
	return 0;
}
