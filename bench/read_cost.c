/* What one read of a big hash costs (the target: reading and decoding a 10,000-entry hash
 * with two decoded labels costs at most 5 ms CPU per read): a real kernel hash map of 10,000
 * entries, keys of two labels with real values of this machine (label_samples.h), read by the
 * engine's program reader exactly as a <Counter> block reads it every interval (map read,
 * both labels decoded, series summed, values named and sent to a sink that formats them as
 * the plugin names them), once with batch lookups and once one entry at a time (get_next_key
 * + lookup, what a kernel without batch ops gets), alternating in every round.
 *
 * Prints per way: thread CPU time of the first read (decode caches cold) and the median and
 * maximum of the next ones, wall time, syscalls per read; and fails if the two ways sent
 * different values. Root: BPF maps, kallsyms addresses. */
#include "base/value_naming.h"
#include "bench/label_samples.h"
#include "bench/measure.h"
#include "libcore/engine/module.h"
#include "libcore/programs/program_config.h"
#include "libcore/programs/program_read.h"
#include "libcore/programs/program_resolve.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEYS 10000
#define ROUNDS 21

struct sent {
	uint64_t values, sum;
	char last[2 * VALUE_NAME_LEN + 32];
};

static void on_counter(void *ctx, const struct metric_id *id, const char *instance, uint64_t value)
{
	struct sent *s = ctx;
	struct value_name n;

	/* As the plugin names a value: host/plugin-instance/type-type_instance. */
	name_counter(id->name, id->type, instance, &n);
	snprintf(s->last, sizeof(s->last), "host/ebpf-bench/%s-%s", n.type, n.type_instance);
	s->values++;
	s->sum += value;
}

static void on_gauge(void *ctx, const struct metric_id *id, const char *instance, double value)
{
	struct sent *s = ctx;
	struct value_name n;

	name_gauge(id->name, id->type, instance, &n);
	snprintf(s->last, sizeof(s->last), "host/ebpf-bench/%s-%s", n.type, n.type_instance);
	s->values++;
	s->sum += (uint64_t)value;
}

/* A <Counter> of two labels over a 16-byte key: `first` decodes bytes 0..7 (or 0..3),
 * `second` bytes 8..15. */
static int make_view(struct program_view *v, struct view_layout *l, const char *first, uint32_t first_size,
		     const char *second, uint32_t second_size)
{
	char err[512];

	memset(v, 0, sizeof(*v));
	memset(l, 0, sizeof(*l));
	v->kind = VIEW_KIND_COUNTER;
	snprintf(v->map, sizeof(v->map), "calls");
	snprintf(v->type, sizeof(v->type), "derive");
	v->max_series = KEYS;
	v->nlabels = 2;
	snprintf(v->labels[0].name, sizeof(v->labels[0].name), "a");
	snprintf(v->labels[1].name, sizeof(v->labels[1].name), "b");
	v->labels[0].size = first_size;
	v->labels[1].size = second_size;
	v->labels[1].offset = 8;
	decoder_chain_init(&v->labels[0].decoders, "a");
	decoder_chain_init(&v->labels[1].decoders, "b");
	if (decoder_chain_add(&v->labels[0].decoders, first, NULL, 0, err, sizeof(err)) ||
	    decoder_chain_add(&v->labels[1].decoders, second, NULL, 0, err, sizeof(err)) ||
	    decoder_chain_check(&v->labels[0].decoders, first_size, err, sizeof(err)) ||
	    decoder_chain_check(&v->labels[1].decoders, second_size, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	l->key_size = 16;
	l->value_size = 8;
	l->max_entries = 10240;
	l->hash = true;
	l->value_width = 8;
	return 0;
}

struct way {
	const char *name;
	bool batch;
	double cpu[ROUNDS], wall[ROUNDS];
	uint32_t syscalls;
	struct sent sent;
};

static void measure(struct program_reader *r, struct way *w, int round)
{
	struct metric_sink sink = { .ctx = &w->sent, .counter = on_counter, .gauge = on_gauge };
	uint64_t c0, t0;

	memset(&w->sent, 0, sizeof(w->sent));
	program_reader_set_batch(r, w->batch);
	t0 = now_ns();
	c0 = thread_cpu_ns();
	if (program_reader_read(r))
		fprintf(stderr, "read failed: %s\n", strerror(errno));
	else
		program_reader_send(r, &sink);
	w->cpu[round] = (double)(thread_cpu_ns() - c0) / 1e6;
	w->wall[round] = (double)(now_ns() - t0) / 1e6;
}

/* Both ways over one map, alternating which goes first; 0 if they sent the same. */
static int run(const char *what, struct program_view *v, struct view_layout *l, int fd)
{
	char err[512];
	struct program_reader *batch = program_reader_new(v, l, fd, 0, err, sizeof(err));
	struct program_reader *single = program_reader_new(v, l, fd, 0, err, sizeof(err));
	struct way ways[2] = { { .name = "batch lookup", .batch = true }, { .name = "one by one", .batch = false } };
	struct program_reader *readers[2] = { batch, single };

	if (!batch || !single) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	for (int round = 0; round < ROUNDS; round++)
		for (int k = 0; k < 2; k++) {
			int i = (round + k) % 2;

			measure(readers[i], &ways[i], round);
		}
	printf("%s: %llu values a read (%s ...)\n", what, (unsigned long long)ways[0].sent.values, ways[0].sent.last);
	for (int i = 0; i < 2; i++) {
		const struct way *w = &ways[i];

		/* The first read decodes with cold caches; the others as every later interval. */
		printf("  %-13s CPU first %6.2f ms  median %6.2f ms  max %6.2f ms   wall first %6.2f ms  median %6.2f ms\n",
		       w->name, w->cpu[0], median(w->cpu + 1, ROUNDS - 1), max_of(w->cpu + 1, ROUNDS - 1), w->wall[0],
		       median(w->wall + 1, ROUNDS - 1));
	}
	program_reader_free(batch);
	program_reader_free(single);
	if (ways[0].sent.values != ways[1].sent.values || ways[0].sent.sum != ways[1].sent.sum) {
		fprintf(stderr, "the two ways sent different values: %llu values sum %llu vs %llu values sum %llu\n",
			(unsigned long long)ways[0].sent.values, (unsigned long long)ways[0].sent.sum,
			(unsigned long long)ways[1].sent.values, (unsigned long long)ways[1].sent.sum);
		return -1;
	}
	return 0;
}

/* A hash of KEYS entries {a[j], b[j]} -> j + 1, j from 0 on, a pair already in skipped
 * (kallsyms has aliases: two names, one address). */
static int fill(const uint64_t *a, const uint64_t *b, int n)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "calls", 16, 8, 10240, NULL), inserted = 0;

	if (fd < 0) {
		fprintf(stderr, "bpf_map_create: %s (root?)\n", strerror(errno));
		return -1;
	}
	for (int j = 0; j < n && inserted < KEYS; j++) {
		uint64_t key[2] = { a[j], b[j] }, value = (uint64_t)j + 1;

		if (!bpf_map_update_elem(fd, key, &value, BPF_NOEXIST))
			inserted++;
		else if (errno != EEXIST)
			break;
	}
	if (inserted < KEYS) {
		fprintf(stderr, "only %d distinct keys from this machine's labels\n", inserted);
		close(fd);
		return -1;
	}
	return fd;
}

/* A map of the first KEYS distinct pairs of (a, b), read both ways. 0, or -1. */
static int bench_one(const char *what, const uint64_t *a, const uint64_t *b, const char *first, uint32_t first_size,
		     const char *second, uint32_t second_size)
{
	struct program_view v;
	struct view_layout l;
	int fd = fill(a, b, 2 * KEYS), rc = -1;

	if (fd >= 0 && !make_view(&v, &l, first, first_size, second, second_size)) {
		rc = run(what, &v, &l, fd);
		decoder_chain_free(&v.labels[0].decoders);
		decoder_chain_free(&v.labels[1].decoders);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

int main(void)
{
	static struct label_samples ls;
	static uint64_t a[2 * KEYS], b[2 * KEYS];
	int rc = 0;

	if (geteuid() != 0) {
		fprintf(stderr, "needs root: BPF maps, kallsyms addresses\n");
		return 1;
	}
	if (label_samples_load(&ls))
		return 1;
	printf("%d keys of two labels in a kernel hash map, read as a <Counter> each round, %d rounds\n", KEYS,
	       ROUNDS);

	/* Every key its own series: 10,000 functions (ksym) x this machine's cgroups. */
	for (int i = 0; i < 2 * KEYS; i++) {
		a[i] = ls.addrs[(i * 7919) % ls.naddr];
		b[i] = ls.cgroups[i % ls.ncgroup];
	}
	rc |= bench_one("ksym + cgroup, 10,000 series", a, b, "ksym", 8, "cgroup", 8);

	/* Disks x syscall numbers: this machine's disks, 10,000 keys, sets summed into fewer series. */
	for (int i = 0; i < 2 * KEYS; i++) {
		a[i] = ls.devs[i % ls.ndev];
		b[i] = (uint64_t)(i / ls.ndev); /* syscall numbers, past the last one without a name */
	}
	rc |= bench_one("majorminor + syscall", a, b, "majorminor", 4, "syscall", 4);
	return rc ? 1 : 0;
}
