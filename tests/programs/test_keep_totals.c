/* Root test of a program's series whose entries leave the map (series_view.keep_totals:
 * evicted from an LRU hash, deleted by the program), on a real hash made here, read by the
 * one series reader. Two keys make one series (a view without labels): a counter never goes
 * back when a key leaves, goes on from what it had sent when a key comes back after a read
 * without any, and says the same as before without keep_totals but for those reads. A
 * histogram (a source of the test's: the value is a slot and its count) likewise for its
 * count and sum; after a read without entries its interval is the new entries' alone and
 * declared a discontinuity (reset); an interval in which a slot went back has no sum. */
#include "libcore/kernel/privileges.h"
#include "libcore/read/series_read.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

struct entry {
	uint64_t slot, count; /* a counter view reads count alone */
};

static int fd;

static void put(uint64_t key, uint64_t slot, uint64_t count)
{
	struct entry e = { slot, count };

	CHECK(!bpf_map_update_elem(fd, &key, &e, BPF_ANY));
}

static void drop(uint64_t key)
{
	CHECK(!bpf_map_delete_elem(fd, &key));
}

/* The test's histogram layout: count events in slot `slot`, each of 10 units. */
static void add_hist(void *ctx, const uint8_t *key, const uint8_t *val, uint64_t *slots, uint64_t *sum)
{
	struct entry e;

	(void)ctx;
	(void)key;
	memcpy(&e, val, sizeof(e));
	slots[e.slot] += e.count;
	*sum += 10 * e.count;
}

static const struct series_hist_source source = { .add = add_hist };
static const struct metric_id count_id = { .name = "t", .type = "derive", .map = "t" };

static struct series_view view(bool hist, bool keep)
{
	struct series_view v = {
		.map = "t", .fd = fd, .hash = true, .key_size = 8, .value_size = sizeof(struct entry),
		.max_entries = 16, .precision = 2, .lone_name = "t", .nfields = 1, .max_series = 4,
		.folded_when_full = true, .keep_totals = keep,
	};

	v.fields[0] = (struct series_field){ .kind = hist ? VALUE_HISTOGRAM : VALUE_COUNTER,
					     .id = { .name = "t", .type = "derive", .map = "t" },
					     .offset = 8, .width = 8, .send_zero = true,
					     .unit = HIST_UNIT_NANOSECONDS };
	if (hist) {
		v.fields[0].source = &source;
		v.fields[0].count_id = &count_id;
		v.fields[0].count_named = true;
	}
	return v;
}

/* One read; the counter "t" (or the histogram's "t-count") sent, or -1: none. */
static long long read_once(struct series_reader *r, struct recording *rec, const char *instance)
{
	struct metric_sink sink = recording_sink(rec);

	recording_clear(rec);
	CHECK(!series_reader_read(r));
	series_reader_send(r, &sink);
	if (!recorded(rec, RECORDED_COUNTER, "t", instance))
		return -1;
	return (long long)recorded_counter(rec, "t", instance);
}

static void counters(bool keep, const long long *want)
{
	struct series_view v = view(false, keep);
	char err[256];
	struct series_reader *r = series_reader_new(&v, err, sizeof(err));
	struct recording rec = { 0 };
	int i = 0;

	CHECK(r != NULL);
	if (!r)
		return;
	put(1, 0, 5);
	put(2, 0, 7);
	CHECK_EQ_U64(read_once(r, &rec, "t"), want[i++]); /* 12 */
	drop(1);
	put(2, 0, 9);
	CHECK_EQ_U64(read_once(r, &rec, "t"), want[i++]); /* 9 < 12: kept at 12 */
	put(2, 0, 20);
	CHECK_EQ_U64(read_once(r, &rec, "t"), want[i++]); /* +11: 23 */
	drop(2);
	CHECK_EQ_U64(read_once(r, &rec, "t"), want[i++]); /* no entry: not sent */
	put(3, 0, 4);
	CHECK_EQ_U64(read_once(r, &rec, "t"), want[i++]); /* all new: 23 + 4 */
	drop(3);
	series_reader_free(r);
	recording_free(&rec);
}

static void histograms(void)
{
	struct series_view v = view(true, true);
	char err[256];
	struct series_reader *r = series_reader_new(&v, err, sizeof(err));
	struct recording rec = { 0 };
	const struct hist_interval *h;

	CHECK(r != NULL);
	if (!r)
		return;
	put(1, 1, 5);
	put(2, 2, 7);
	CHECK_EQ_U64(read_once(r, &rec, "t-count"), 12);
	CHECK_EQ_U64(recorded_counter(&rec, "t", "t-sum"), 120);
	/* Key 1 leaves, key 2 gains 3: slot 1 went back. */
	drop(1);
	put(2, 2, 10);
	CHECK_EQ_U64(read_once(r, &rec, "t-count"), 15);
	CHECK_EQ_U64(recorded_counter(&rec, "t", "t-sum"), 120);
	h = recorded_histogram(&rec, "t", "t", HIST_UNIT_NANOSECONDS);
	CHECK(h && h->count == 3 && h->slots[2] == 3 && h->slots[1] == 0 && h->no_sum && h->reset);
	put(2, 2, 12);
	CHECK_EQ_U64(read_once(r, &rec, "t-count"), 17);
	CHECK_EQ_U64(recorded_counter(&rec, "t", "t-sum"), 140);
	h = recorded_histogram(&rec, "t", "t", HIST_UNIT_NANOSECONDS);
	CHECK(h && h->count == 2 && h->sum == 20 && !h->no_sum && !h->reset);
	drop(2);
	CHECK(read_once(r, &rec, "t-count") == -1);
	/* After a read without entries: 4 new events in slot 1. */
	put(3, 1, 4);
	CHECK_EQ_U64(read_once(r, &rec, "t-count"), 21);
	CHECK_EQ_U64(recorded_counter(&rec, "t", "t-sum"), 180);
	h = recorded_histogram(&rec, "t", "t", HIST_UNIT_NANOSECONDS);
	CHECK(h && h->count == 4 && h->slots[1] == 4 && h->sum == 40 && !h->no_sum && h->reset);
	drop(3);
	series_reader_free(r);
	recording_free(&rec);
}

int main(void)
{
	static const long long kept[] = { 12, 12, 23, -1, 27 }, raw[] = { 12, 9, 20, -1, 4 };

	if (geteuid() != 0 || !privileges_sufficient())
		SKIP("needs root (or CAP_BPF) to create BPF maps");
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 8, sizeof(struct entry), 16, NULL);
	if (fd < 0)
		fprintf(stderr, "bpf_map_create: %s\n", strerror(errno));
	CHECK(fd >= 0);
	if (fd < 0)
		return testing_done();
	counters(true, kept);
	counters(false, raw);
	histograms();
	close(fd);
	return testing_done();
}
