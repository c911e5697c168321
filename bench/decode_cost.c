/* What label decoding costs per read (the target: a 10,000-entry hash with two decoded labels
 * at most 5 ms CPU per read): 10,000 keys of two labels each through real decoders on this
 * machine's disks, cgroups and kernel symbols, as the engine will run them once per read.
 * Prints the thread CPU time of the first pass (caches cold: kallsyms already loaded at
 * config time, as in collectd) and the median and maximum of the next 20. Root for ksym and
 * cgroup. */
#include "bench/label_samples.h"
#include "libcore/decode/label_decoder.h"
#include "base/label_value.h"
#include "base/err_max.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEYS 10000
#define PASSES 20

struct key {
	uint64_t a;
	unsigned char b[16];
};

static double thread_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int add(struct decoder_chain *c, const char *label, const char *name, const char *const *args, int nargs,
	       size_t size)
{
	char err[ERR_MAX];

	decoder_chain_init(c, label);
	if (decoder_chain_add(c, name, args, nargs, err, sizeof(err)) || decoder_chain_check(c, size, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One read: both labels of every key, made safe. */
static double pass(struct decoder_chain *l1, size_t s1, struct decoder_chain *l2, size_t s2, const struct key *keys)
{
	char t1[DECODE_TEXT_MAX], t2[DECODE_TEXT_MAX], safe[LABEL_VALUE_MAX];
	double start = thread_cpu_ms();
	size_t total = 0;

	for (int i = 0; i < KEYS; i++) {
		decoder_chain_decode(l1, &keys[i].a, s1, t1, sizeof(t1));
		decoder_chain_decode(l2, keys[i].b, s2, t2, sizeof(t2));
		total += strlen(label_value_safe(t1, safe)) + strlen(label_value_safe(t2, safe));
	}
	if (!total)
		fprintf(stderr, "no text decoded\n");
	return thread_cpu_ms() - start;
}

static void run(const char *what, struct decoder_chain *l1, size_t s1, struct decoder_chain *l2, size_t s2,
		const struct key *keys)
{
	double first = pass(l1, s1, l2, s2, keys), t[PASSES];

	for (int i = 0; i < PASSES; i++)
		t[i] = pass(l1, s1, l2, s2, keys);
	qsort(t, PASSES, sizeof(t[0]), by_double);
	printf("%-44s first %6.2f ms   median %6.2f ms   max %6.2f ms\n", what, first, t[PASSES / 2], t[PASSES - 1]);
	decoder_chain_free(l1);
	decoder_chain_free(l2);
}

int main(void)
{
	static struct key keys[KEYS];
	static struct label_samples ls;
	struct decoder_chain l1, l2;
	const char *ops[] = { "0=read", "1=write", "2=open", "3=close", "4=stat", "5=fstat", "6=lstat", "7=poll" };
	const char *re[] = { "^([a-z]+)" };

	if (label_samples_load(&ls))
		return 77;
	printf("%d keys, two labels each; %d disks, %d symbols, %d cgroups on this machine\n", KEYS, ls.ndev, ls.naddr,
	       ls.ncgroup);

	for (int i = 0; i < KEYS; i++) {
		uint32_t op = i % 10, err_no = (uint32_t)-(i % 40);

		keys[i].a = ls.devs[i % ls.ndev];
		memcpy(keys[i].b, &err_no, 4);
		memcpy(keys[i].b + 4, &op, 4);
	}
	if (add(&l1, "device", "majorminor", NULL, 0, 4) || add(&l2, "error", "errno", NULL, 0, 4))
		return 1;
	run("majorminor + errno", &l1, 4, &l2, 4, keys);
	for (int i = 0; i < KEYS; i++)
		memcpy(keys[i].b, keys[i].b + 4, 4);
	if (add(&l1, "device", "majorminor", NULL, 0, 4) || add(&l2, "op", "static_map", ops, 8, 4))
		return 1;
	run("majorminor + static_map (8 entries)", &l1, 4, &l2, 4, keys);

	for (int i = 0; i < KEYS; i++) {
		keys[i].a = ls.addrs[(i * 7919) % ls.naddr];
		memcpy(keys[i].b, &ls.cgroups[i % ls.ncgroup], 8);
	}
	if (add(&l1, "function", "ksym", NULL, 0, 8) || add(&l2, "cgroup", "cgroup", NULL, 0, 8))
		return 1;
	run("ksym + cgroup", &l1, 8, &l2, 8, keys);

	for (int i = 0; i < KEYS; i++)
		snprintf((char *)keys[i].b, 16, "comm%c%d", 'a' + i % 26, i % 8); /* 104 comms */
	if (add(&l1, "function", "ksym", NULL, 0, 8) || add(&l2, "comm", "string", NULL, 0, 16))
		return 1;
	{
		char why[ERR_MAX];

		if (decoder_chain_add(&l2, "regexp", re, 1, why, sizeof(why))) {
			fprintf(stderr, "%s\n", why);
			return 1;
		}
	}
	run("ksym + string|regexp (104 texts)", &l1, 8, &l2, 16, keys);
	return 0;
}
