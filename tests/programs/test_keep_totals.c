/* Root test of a program's series whose entries leave the map (series_view.keep_totals:
 * evicted from an LRU hash, deleted by the program), on a real hash made here, read by the
 * one series reader. Two keys make one series (a view without labels), as the folded ones
 * make `other`: each entry adds what it counted since the last read, so a counter never goes
 * back when a key leaves, and what another key counted in that same read is kept (it was
 * lost when the series' sum was compared instead); without keep_totals the sum as it is. A
 * histogram (a source of the test's: the value is a slot and its count) likewise for its
 * count, sum and interval, also when the key that leaves and the one that grows share a slot.
 * With labels and MaxSeries 2: `other` keeps what a folded key counted while another left,
 * and a series whose entry left goes on from what it had when it comes back. */
#include "libcore/decode/label_decoder.h"
#include "libcore/kernel/privileges.h"
#include "libcore/read/series_read.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

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
static void add_hist(void *ctx, const uint8_t *key, const uint8_t *val, uint64_t *slots, uint64_t *sum, bool again)
{
	struct entry e;

	(void)ctx;
	(void)key;
	(void)again;
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
	char err[ERR_MAX];
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
	CHECK_EQ_U64(read_once(r, &rec, "t"), want[i++]); /* key 1 left, key 2 +2: 14 */
	put(2, 0, 20);
	CHECK_EQ_U64(read_once(r, &rec, "t"), want[i++]); /* +11: 25 */
	drop(2);
	CHECK_EQ_U64(read_once(r, &rec, "t"), want[i++]); /* no entry: not sent */
	put(3, 0, 4);
	CHECK_EQ_U64(read_once(r, &rec, "t"), want[i++]); /* all new: 25 + 4 */
	drop(3);
	series_reader_free(r);
	recording_free(&rec);
}

static void histograms(void)
{
	struct series_view v = view(true, true);
	char err[ERR_MAX];
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
	CHECK_EQ_U64(recorded_counter(&rec, "t", "t-sum"), 150);
	h = recorded_histogram(&rec, "t", "t", HIST_UNIT_NANOSECONDS);
	CHECK(h && h->count == 3 && h->slots[2] == 3 && h->slots[1] == 0 && h->sum == 30 && !h->no_sum && !h->reset);
	/* Key 3 comes in slot 2 with 20 and key 2 gains 2 there; then key 3 leaves as key 2
	 * gains 4 more in the slot it left: those 4 are counted all the same. */
	put(3, 2, 20);
	put(2, 2, 12);
	CHECK_EQ_U64(read_once(r, &rec, "t-count"), 37);
	drop(3);
	put(2, 2, 16);
	CHECK_EQ_U64(read_once(r, &rec, "t-count"), 41);
	CHECK_EQ_U64(recorded_counter(&rec, "t", "t-sum"), 410);
	h = recorded_histogram(&rec, "t", "t", HIST_UNIT_NANOSECONDS);
	CHECK(h && h->count == 4 && h->slots[2] == 4 && h->sum == 40 && !h->reset);
	drop(2);
	CHECK(read_once(r, &rec, "t-count") == -1);
	/* After a read without entries: 4 new events in slot 1. */
	put(3, 1, 4);
	CHECK_EQ_U64(read_once(r, &rec, "t-count"), 45);
	CHECK_EQ_U64(recorded_counter(&rec, "t", "t-sum"), 450);
	h = recorded_histogram(&rec, "t", "t", HIST_UNIT_NANOSECONDS);
	CHECK(h && h->count == 4 && h->slots[1] == 4 && h->sum == 40 && !h->no_sum && !h->reset);
	drop(3);
	series_reader_free(r);
	recording_free(&rec);
}

/* Keys named by their number (an empty decoder chain), MaxSeries 2, ReclaimAfter 100. */
static void folded(void)
{
	struct decoder_chain numbers = { .label = "k" };
	struct series_view v = view(true, true);
	char err[ERR_MAX];
	struct series_reader *r;
	struct recording rec = { 0 };

	v.labels[0] = (struct series_label){ .name = "k", .offset = 0, .size = 8, .chain = &numbers };
	v.nlabels = 1;
	v.max_series = 2;
	v.reclaim_after = 100;
	r = series_reader_new(&v, err, sizeof(err));
	CHECK(r != NULL);
	if (!r)
		return;
	put(1, 1, 5);
	put(2, 1, 7);
	CHECK_EQ_U64(read_once(r, &rec, "1-count"), 5);
	CHECK_EQ_U64(recorded_counter(&rec, "t", "2-count"), 7);
	put(3, 1, 20); /* no room: into other */
	put(4, 1, 3);
	CHECK_EQ_U64(read_once(r, &rec, "other-count"), 23);
	/* A folded key leaves as another gains 6 in its slot: other 29 (it stayed at 23). */
	drop(3);
	put(4, 1, 9);
	CHECK_EQ_U64(read_once(r, &rec, "other-count"), 29);
	/* Series 1's entry is gone: not sent; when it comes back, 5 + 2. */
	drop(1);
	CHECK(read_once(r, &rec, "1-count") == -1);
	put(1, 1, 2);
	CHECK_EQ_U64(read_once(r, &rec, "1-count"), 7);
	CHECK_EQ_U64(recorded_counter(&rec, "t", "other-count"), 29);
	for (uint64_t k = 1; k <= 5; k++)
		bpf_map_delete_elem(fd, &k);
	series_reader_free(r);
	recording_free(&rec);
}

int main(void)
{
	static const long long kept[] = { 12, 14, 25, -1, 29 }, raw[] = { 12, 9, 20, -1, 4 };

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
	folded();
	close(fd);
	return testing_done();
}
