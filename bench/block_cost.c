/* bench/block_cost: what the `block` module costs per IO, side by side in one run.
 *
 * O_DIRECT 4 KiB reads (pread) of a loop device with direct IO over a file on tmpfs,
 * timed with nothing attached, with the module on its default path (the issue time read
 * from the request where the queue keeps one: no map touched at issue), with the module
 * forced onto its request-keyed hash, with QueueTime, and with bpftrace running a
 * biolatency-style script. Rounds, batches and the table come from side_by_side.c.
 *
 * Numbers only, never judged: exit 0 when it ran, 1 when it could not.
 */
#define _GNU_SOURCE /* O_DIRECT */
#include "bench/bpftrace_child.h"
#include "tests/support/loop_device.h"
#include "bench/measure.h"
#include "bench/side_by_side.h"
#include "libcore/engine/libbpf_log.h"
#include "libcore/engine/module.h"
#include "libcore/kernel/privileges.h"

#include "block.skel.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

MODULE_SKELETON(block);

#define DEVICE_MIB 64
#define IO_SIZE 4096

/* The module as on a kernel whose BTF lacks QUEUE_FLAG_STATS, or on a queue without
 * statistics: its own configure hook runs, then the two rodata values that block.bpf.c
 * reads to find the issue time in the request are set back to "unknown" (-1 and 0, their
 * defaults in the program), so every issue time goes through the `inflight` hash. The
 * module's ops with this one hook replaced: no switch in the module for the bench. */
static int configure_without_queue_stats(struct module *m, struct bpf_object *obj, char *err, size_t errlen)
{
	int8_t *queue_flag_stats = MODULE_RODATA(obj, queue_flag_stats);
	uint32_t *rqf_stats = MODULE_RODATA(obj, rqf_stats);

	if (module_find("block")->configure(m, obj, err, errlen))
		return -1;
	if (!queue_flag_stats || !rqf_stats)
		return module_hook_fail(err, errlen, "the block object lacks queue_flag_stats or rqf_stats");
	*queue_flag_stats = -1;
	*rqf_stats = 0;
	return 0;
}

static const struct module_ops *block_ops(bool issue_time_in_hash)
{
	static struct module_ops without_queue_stats;

	if (!issue_time_in_hash)
		return module_find("block");
	without_queue_stats = *module_find("block");
	without_queue_stats.configure = configure_without_queue_stats;
	return &without_queue_stats;
}

/* An equivalent of the module's latency histogram per disk in bpftrace: classic
 * tracepoints carry no request pointer, so the key is disk + sector, as the module's own
 * tracepoint candidate does. BEGIN prints `ready` once the probes are attached. */
static const char bpftrace_script[] =
	"BEGIN { printf(\"ready\\n\"); }"
	" tracepoint:block:block_rq_issue { @start[args->dev, args->sector] = nsecs; }"
	" tracepoint:block:block_rq_complete /@start[args->dev, args->sector]/ {"
	" @ns[args->dev] = hist(nsecs - @start[args->dev, args->sector]);"
	" delete(@start[args->dev, args->sector]); }";

enum cfg { NO_PROBE, DEFAULT, BEFORE, HASH, QUEUE_TIME, BPFTRACE, NCFG };

static const char *const labels[NCFG] = {
	[NO_PROBE] = "no probe",
	[DEFAULT] = "block (default)",
	/* The layout before libcore/engine/map_layout.h, side by side with today's. */
	[BEFORE] = "block, every map per-CPU (before)",
	[HASH] = "block, issue time in hash (forced)",
	[QUEUE_TIME] = "block + QueueTime",
	[BPFTRACE] = "bpftrace biolatency-style",
};
/* "added vs": the default against the layout before; the variants against the default
 * path; bpftrace against the hash, which does what its script does (a start time per
 * request in a hash). */
static const int refs[NCFG] = { -1, BEFORE, -1, DEFAULT, DEFAULT, HASH };

struct bench {
	int rounds, batches, ios, cpu, other_cpu;
	struct loop_device dev;
	long long offset; /* next read, cycling over the device */
	char buf_space[2 * IO_SIZE];
	char *buf;        /* IO_SIZE-aligned, for O_DIRECT */
	struct module *mod;
	int mod_cfg; /* which variant mod is */
	struct bpftrace_child bt;
	const char *bpftrace;
	char bpftrace_why[300];
	char method[NCFG][64];
	char layout[NCFG][96]; /* how each configuration's array maps were laid out */
	/* issue times the module took from the request and from its hash, last round: shows
	 * that the forced variant really runs the hash and the default does not */
	unsigned long long from_request[NCFG], from_hash[NCFG];
	struct side_by_side sbs;
};

static double read_batch(void *ctx)
{
	struct bench *b = ctx;
	uint64_t t0 = now_ns();

	for (int i = 0; i < b->ios; i++) {
		if (pread(b->dev.fd, b->buf, IO_SIZE, b->offset) != IO_SIZE) {
			perror("pread");
			exit(1); /* the device goes with us (autoclear), bpftrace too */
		}
		b->offset = (b->offset + IO_SIZE) % ((long long)DEVICE_MIB << 20);
	}
	return (double)(now_ns() - t0) / b->ios;
}

static int start_block(struct bench *b, int c)
{
	struct opt_value yes = { .type = OPT_BOOLEAN, .boolean = true };
	struct option qt = { .key = "QueueTime", .values = &yes, .nvalues = 1 };
	char err[256];

	b->mod_cfg = c;
	b->mod = module_new(block_ops(c == HASH), NULL);
	if (!b->mod)
		return SBS_FAILED;
	if (c == QUEUE_TIME && module_set_option(b->mod, &qt, err, sizeof(err))) {
		fprintf(stderr, "QueueTime: %s\n", err);
		return SBS_FAILED;
	}
	if (bench_start_in_layout(b->mod, c == BEFORE ? LAYOUT_BEFORE : LAYOUT_HERE)) {
		fprintf(stderr, "block module (%s) did not start: %s\n", labels[c], b->mod->last_error);
		return SBS_FAILED;
	}
	module_methods(b->mod, b->method[c], sizeof(b->method[c]));
	module_layout(b->mod, b->layout[c], sizeof(b->layout[c]));
	return SBS_ATTACHED;
}

static int attach(void *ctx, int c, int round)
{
	struct bench *b = ctx;

	(void)round;
	if (c != BPFTRACE)
		return start_block(b, c);
	if (!b->bpftrace ||
	    bpftrace_start(&b->bt, b->bpftrace, bpftrace_script, 30000, b->bpftrace_why, sizeof(b->bpftrace_why))) {
		b->bpftrace = NULL;
		return SBS_LEFT_OUT;
	}
	return SBS_ATTACHED;
}

struct issue_counts {
	unsigned long long request, hash;
};

static void on_counter(void *ctx, const struct metric_id *id, const char *instance, uint64_t v)
{
	const char *metric = id->name;
	struct issue_counts *n = ctx;

	if (!strcmp(metric, "issue_time") && !strcmp(instance, "request"))
		n->request = v;
	else if (!strcmp(metric, "issue_time") && !strcmp(instance, "hash"))
		n->hash = v;
}

static void on_histogram(void *ctx, const struct metric_id *id, const char *instance, enum hist_unit unit,
			 const struct hist_interval *h)
{
	const char *metric = id->name;
	(void)ctx;
	(void)metric;
	(void)instance;
	(void)unit;
	(void)h;
}

/* Reads the module's issue-time counters before freeing it. */
static void detach(void *ctx)
{
	struct bench *b = ctx;

	if (b->mod && b->mod->state != MODULE_FAILED && b->mod->state != MODULE_CONFIGURED) {
		struct issue_counts n = { 0 };
		struct metric_sink sink = { .ctx = &n, .counter = on_counter, .histogram = on_histogram };
		if (!module_read(b->mod, &sink)) {
			b->from_request[b->mod_cfg] = n.request;
			b->from_hash[b->mod_cfg] = n.hash;
		}
	}
	module_free(b->mod);
	b->mod = NULL;
	bpftrace_stop(&b->bt);
}

static void print_results(const struct bench *b)
{
	char sched[64];

	loop_device_scheduler(&b->dev, sched, sizeof(sched));
	printf("\nCost per IO: O_DIRECT %d B preads of /dev/%s (direct-io %s, over a file in %.*s, scheduler %s),\n"
	       "%d rounds x %d batches x %d IOs. Each round takes the fastest batch; shown: the median of\n"
	       "the rounds and min .. max over rounds. added ns: over no-probe batches run just before each\n"
	       "measurement, median of the rounds. x no-probe: ns/IO over the no-probe ns/IO.\n\n",
	       IO_SIZE, b->dev.name, b->dev.direct_io ? "on" : "OFF", (int)(strrchr(b->dev.backing, '/') - b->dev.backing),
	       b->dev.backing, sched, b->rounds, b->batches, b->ios);
	sbs_print_table(&b->sbs, labels, refs, "ns/IO");
	printf("\n   The module attached via %s; with QueueTime via %s.\n", b->method[DEFAULT], b->method[QUEUE_TIME]);
	printf("   Array maps: default %s; before %s (the disk table and start times are hashes in both).\n",
	       b->layout[DEFAULT], b->layout[BEFORE]);
	for (int c = DEFAULT; c <= QUEUE_TIME; c++)
		printf("   %-36s issue times from the request: %llu, from the hash: %llu (last round)\n", labels[c],
		       b->from_request[c], b->from_hash[c]);
	if (b->sbs.left_out[BPFTRACE])
		printf("   bpftrace: %s\n", b->bpftrace_why);
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-r rounds] [-b batches] [-n IOs per batch] [-T]\n"
			"  -T  leave bpftrace out\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static const char *const block_tps[] = { "block_rq_insert", "block_rq_issue", "block_rq_complete", NULL };
	static struct bench b; /* large: per-round samples */
	bool no_bpftrace = false;
	char err[256];
	struct utsname u;
	int opt, rc = 1;

	/* Short batches, many of them: an IO's wall time swings by microseconds with where the
	 * loop worker runs and how deep the other CPU idles; a clean batch must be likely. */
	b.rounds = 9;
	b.batches = 80;
	b.ios = 20;
	while ((opt = getopt(argc, argv, "r:b:n:T")) != -1) {
		switch (opt) {
		case 'r': b.rounds = atoi(optarg); break;
		case 'b': b.batches = atoi(optarg); break;
		case 'n': b.ios = atoi(optarg); break;
		case 'T': no_bpftrace = true; break;
		default: usage(argv[0]);
		}
	}
	if (b.rounds < 1 || b.rounds > SBS_MAX_ROUNDS || b.batches < 1 || b.batches > SBS_MAX_BATCHES || b.ios < 10)
		usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!privileges_sufficient() || access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "block_cost: needs root (or CAP_BPF + CAP_PERFMON + CAP_SYS_ADMIN for the loop device)\n"
				"and a kernel with BTF (/sys/kernel/btf/vmlinux): sudo make bench\n");
		return 1;
	}
	ebpf_log_set_handler(bench_quiet_log);
	ebpf_log_capture_libbpf();
	b.bt.pid = b.bt.out = -1;
	b.buf = b.buf_space + (IO_SIZE - (uintptr_t)b.buf_space % IO_SIZE) % IO_SIZE;
	b.bpftrace = no_bpftrace ? NULL : bpftrace_find("block", b.bpftrace_why, sizeof(b.bpftrace_why));
	if (no_bpftrace)
		snprintf(b.bpftrace_why, sizeof(b.bpftrace_why), "left out (-T)");
	if (loop_device_setup(&b.dev, DEVICE_MIB, NULL, err, sizeof(err))) {
		fprintf(stderr, "block_cost: cannot set up a loop device: %s\n", err);
		return 1;
	}
	choose_cpus(&b.cpu, &b.other_cpu);
	pin_to_cpu(b.cpu);
	uname(&u);
	printf("collectd-ebpf block_cost: kernel %s %s, %ld CPUs online, bench pinned to CPU %d\n", u.release,
	       u.machine, sysconf(_SC_NPROCESSORS_ONLN), b.cpu);

	b.sbs = (struct side_by_side){ .ncfg = NCFG, .rounds = b.rounds, .batches = b.batches,
				       .tracepoints = block_tps, .ctx = &b, .batch = read_batch,
				       .attach = attach, .detach = detach };
	b.sbs.left_out[BPFTRACE] = !b.bpftrace;
	if (sbs_run(&b.sbs) == 0) {
		print_results(&b);
		sbs_warn_foreign(&b.sbs, "the block tracepoints");
		rc = 0;
	}
	detach(&b);
	loop_device_remove(&b.dev);
	return rc;
}
