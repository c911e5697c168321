/* Root test of map_dump (libcore/kernel/map_dump.h) on real kernel maps made here: a
 * 10,000-entry hash, a per-CPU hash, an LRU hash and an array, each filled with known
 * values, read with batch lookups and one entry at a time. Both ways must give every entry
 * once with its value, the batch way in a handful of syscalls, and leave the map as it was
 * (nothing deleted). Where the kernel refuses batches (5.10 for arrays) the reader must say
 * so (no_batch) and still read everything. The chunked walk (map_dump_each) must hand every
 * entry over exactly once, and a map type with no batch lookup at all (device hash) must be
 * read by the fallback the walker chooses itself. */
#include "libcore/kernel/map_dump.h"
#include "libcore/kernel/privileges.h"
#include "tests/support/testing.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

enum { ENTRIES = 10000, MAX_ENTRIES = 10240 };

struct key {
	uint32_t dev;
	uint32_t op;
};

static uint64_t value_of(const struct key *k)
{
	return (uint64_t)k->dev * 1000003u + k->op;
}

static int make_map(enum bpf_map_type type, uint32_t key_size, uint32_t max_entries)
{
	int fd = bpf_map_create(type, NULL, key_size, sizeof(uint64_t), max_entries, NULL);

	if (fd < 0)
		fprintf(stderr, "bpf_map_create type %d: %s\n", type, strerror(errno));
	CHECK(fd >= 0);
	return fd;
}

/* Entry i of the test's key set. */
static struct key key_at(uint32_t i)
{
	return (struct key){ .dev = 8u << 20 | (i % 37), .op = i };
}

/* Fills a hash with ENTRIES keys; per-CPU maps get value_of() + cpu on each CPU. */
static void fill_hash(int fd, bool percpu, int ncpus)
{
	uint64_t values[ncpus > 0 ? ncpus : 1];

	for (uint32_t i = 0; i < ENTRIES; i++) {
		struct key k = key_at(i);

		for (int c = 0; c < (percpu ? ncpus : 1); c++)
			values[c] = value_of(&k) + (uint64_t)c;
		CHECK(bpf_map_update_elem(fd, &k, values, BPF_NOEXIST) == 0);
	}
}

/* Every entry read once, with its values. */
static void check_hash_dump(const struct map_dump *d, bool percpu, int ncpus)
{
	static bool seen[ENTRIES];
	uint32_t dups = 0, wrong = 0;

	memset(seen, 0, sizeof(seen));
	CHECK_EQ_U64(d->count, ENTRIES);
	for (uint32_t i = 0; i < d->count; i++) {
		struct key k;
		const uint64_t *v = (const uint64_t *)(d->values + (size_t)i * d->value_size);

		memcpy(&k, d->keys + (size_t)i * d->key_size, sizeof(k));
		if (k.op >= ENTRIES || seen[k.op]) {
			dups++;
			continue;
		}
		seen[k.op] = true;
		for (int c = 0; c < (percpu ? ncpus : 1); c++)
			wrong += v[c] != value_of(&k) + (uint64_t)c;
	}
	CHECK_EQ_U64(dups, 0);
	CHECK_EQ_U64(wrong, 0);
}

static void dump_both_ways(const char *what, int fd, bool percpu, int ncpus)
{
	struct map_dump d;
	uint32_t batch_calls;

	CHECK(map_dump_init(&d, fd, true, sizeof(struct key), (percpu ? ncpus : 1) * sizeof(uint64_t), MAX_ENTRIES) == 0);
	CHECK(map_dump_read(&d) == 0);
	batch_calls = d.syscalls;
	printf("  %s: %u entries, batch %s, %u syscalls\n", what, d.count, d.no_batch ? "refused" : "used", d.syscalls);
	check_hash_dump(&d, percpu, ncpus);
	if (!d.no_batch)
		CHECK(batch_calls <= 4); /* everything fits one batch; ENOENT may take one more */
	d.no_batch = true;
	CHECK(map_dump_read(&d) == 0);
	printf("  %s one by one: %u entries, %u syscalls\n", what, d.count, d.syscalls);
	check_hash_dump(&d, percpu, ncpus);
	CHECK_EQ_U64(d.syscalls, 2 * ENTRIES + 1); /* a get_next_key and a lookup each, the last ENOENT */
	/* Never deleted: a third read finds it all again. */
	d.no_batch = false;
	CHECK(map_dump_read(&d) == 0);
	check_hash_dump(&d, percpu, ncpus);
	map_dump_free(&d);
}

static void test_array(void)
{
	enum { ROWS = 300 };
	int fd = make_map(BPF_MAP_TYPE_ARRAY, sizeof(uint32_t), ROWS);
	struct map_dump d;
	uint32_t wrong = 0;

	for (uint32_t i = 0; i < ROWS; i++) {
		uint64_t v = i * 3 + 1;

		CHECK(bpf_map_update_elem(fd, &i, &v, BPF_ANY) == 0);
	}
	CHECK(map_dump_init(&d, fd, false, sizeof(uint32_t), sizeof(uint64_t), ROWS) == 0);
	for (int pass = 0; pass < 2; pass++) {
		d.no_batch = pass == 1 || d.no_batch;
		CHECK(map_dump_read(&d) == 0);
		printf("  array: %u rows, batch %s, %u syscalls\n", d.count, d.no_batch ? "not used" : "used", d.syscalls);
		CHECK_EQ_U64(d.count, ROWS);
		for (uint32_t i = 0; i < d.count; i++) {
			uint32_t row;
			uint64_t v;

			memcpy(&row, d.keys + (size_t)i * 4, 4);
			memcpy(&v, d.values + (size_t)i * 8, 8);
			wrong += v != (uint64_t)row * 3 + 1;
		}
	}
	CHECK_EQ_U64(wrong, 0);
	map_dump_free(&d);
	close(fd);
}

/* The chunked walk (map_dump_each) over the 10,000-entry hash: every entry handed over
 * exactly once with its value, whatever the room (1 makes the walker grow it for buckets
 * of several entries), by batches and by the per-entry walk (forced by the walker's own
 * no_batch). Keys only: the per-entry walk then looks nothing up. */
struct each_seen {
	uint16_t times[ENTRIES];
	uint32_t wrong, chunks;
	bool keys_only;
};

static int see_chunk(void *ctx, const uint8_t *keys, const uint8_t *values, uint32_t n)
{
	struct each_seen *es = ctx;

	es->chunks++;
	for (uint32_t i = 0; i < n; i++) {
		struct key k;
		uint64_t v;

		memcpy(&k, keys + (size_t)i * sizeof(k), sizeof(k));
		memcpy(&v, values + (size_t)i * sizeof(v), sizeof(v));
		if (k.op >= ENTRIES) {
			es->wrong++;
			continue;
		}
		es->times[k.op]++;
		es->wrong += !es->keys_only && v != value_of(&k);
	}
	return 0;
}

static void each_once(int fd, uint32_t room, bool batch, bool keys_only)
{
	static struct each_seen es;
	struct map_dump d;
	uint32_t not_once = 0;

	memset(&es, 0, sizeof(es));
	es.keys_only = keys_only;
	CHECK(map_dump_init_chunked(&d, fd, true, sizeof(struct key), sizeof(uint64_t), MAX_ENTRIES, room) == 0);
	d.no_batch = !batch;
	d.keys_only = keys_only;
	CHECK(map_dump_each(&d, see_chunk, &es) == 0);
	for (uint32_t i = 0; i < ENTRIES; i++)
		not_once += es.times[i] != 1;
	printf("  hash by chunks of %u%s, %s: %u chunks, %u syscalls\n", room, keys_only ? " (keys only)" : "",
	       d.no_batch ? "one by one" : "batches", es.chunks, d.syscalls);
	CHECK_EQ_U64(not_once, 0);
	CHECK_EQ_U64(es.wrong, 0);
	if (!batch)
		CHECK_EQ_U64(d.syscalls, (keys_only ? 1 : 2) * ENTRIES + 1);
	map_dump_free(&d);
}

static void test_each(void)
{
	int fd = make_map(BPF_MAP_TYPE_HASH, sizeof(struct key), MAX_ENTRIES);

	fill_hash(fd, false, 1);
	each_once(fd, 256, true, false);
	each_once(fd, 1, true, false);
	each_once(fd, 256, false, false);
	each_once(fd, 256, true, true);
	each_once(fd, 7, false, true);
	close(fd);
}

/* A device hash (the XDP redirect map) has get_next_key but no batch lookup: the walker
 * must take the kernel's answer as "no batch here" by itself and read every entry once.
 * Every entry redirects to the loopback device (ifindex 1), the value a lookup gives. */
static void test_map_without_batch(void)
{
	enum { DEVS = 1000 };
	int fd = bpf_map_create(BPF_MAP_TYPE_DEVMAP_HASH, NULL, sizeof(uint32_t), sizeof(uint32_t), DEVS, NULL);
	static uint16_t times[DEVS];
	uint32_t not_once = 0, wrong = 0;
	struct map_dump d;

	if (fd < 0)
		fprintf(stderr, "bpf_map_create devmap_hash: %s\n", strerror(errno));
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	for (uint32_t i = 0; i < DEVS; i++) {
		uint32_t k = i * 3u, lo = 1;

		CHECK(bpf_map_update_elem(fd, &k, &lo, BPF_NOEXIST) == 0);
	}
	CHECK(map_dump_init(&d, fd, true, sizeof(uint32_t), sizeof(uint32_t), DEVS) == 0);
	CHECK(map_dump_read(&d) == 0);
	printf("  devmap hash: %u entries, batch %s, %u syscalls\n", d.count, d.no_batch ? "refused" : "used", d.syscalls);
	CHECK(d.no_batch);
	CHECK_EQ_U64(d.count, DEVS);
	for (uint32_t i = 0; i < d.count; i++) {
		uint32_t k, v;

		memcpy(&k, d.keys + (size_t)i * sizeof(k), sizeof(k));
		memcpy(&v, d.values + (size_t)i * sizeof(v), sizeof(v));
		if (k % 3 || k / 3 >= DEVS) {
			wrong++;
			continue;
		}
		times[k / 3]++;
		wrong += v != 1;
	}
	for (uint32_t i = 0; i < DEVS; i++)
		not_once += times[i] != 1;
	CHECK_EQ_U64(not_once, 0);
	CHECK_EQ_U64(wrong, 0);
	map_dump_free(&d);
	close(fd);
}

int main(void)
{
	int ncpus = libbpf_num_possible_cpus(), fd;

	if (geteuid() != 0 || !privileges_sufficient())
		SKIP("needs root (or CAP_BPF) to create BPF maps");
	CHECK(ncpus > 0);

	fd = make_map(BPF_MAP_TYPE_HASH, sizeof(struct key), MAX_ENTRIES);
	fill_hash(fd, false, ncpus);
	dump_both_ways("hash", fd, false, ncpus);
	close(fd);

	fd = make_map(BPF_MAP_TYPE_PERCPU_HASH, sizeof(struct key), MAX_ENTRIES);
	fill_hash(fd, true, ncpus);
	dump_both_ways("percpu hash", fd, true, ncpus);
	close(fd);

	fd = make_map(BPF_MAP_TYPE_LRU_HASH, sizeof(struct key), MAX_ENTRIES * 2);
	fill_hash(fd, false, ncpus);
	dump_both_ways("lru hash", fd, false, ncpus);
	close(fd);

	test_array();
	test_each();
	test_map_without_batch();
	printf("%s test_map_dump default\n", testing_failures ? "FAIL" : "PASS");
	return testing_done();
}
