/* Root test: a label's names follow the system in every reader of keyed maps. The series
 * reader (series_read.h) decodes a key once in KEY_CACHE_REFRESH reads; the decoders that
 * remember what the system said (ifname's interface names, majorminor's disk names) must be
 * told of each read as well, or the refreshed key is decoded from their first read's answer
 * and an interface renamed after collectd started (udev's eth0 -> ens3) keeps its old name in
 * a <Program> forever. The modules' views advanced their chains themselves, a program's
 * reader did not: the reader now does it for both. A real hash made here, the ifname decoder
 * with the test's own interface names. */
#include "libcore/decode/decoder_kind.h"
#include "libcore/decode/if_names.h"
#include "libcore/decode/label_decoder.h"
#include "libcore/read/key_cache.h"
#include "libcore/read/series_read.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <bpf/bpf.h>
#include <stdint.h>
#include <unistd.h>

static char name_of_2[IF_NAMESIZE];

/* Interface 2 is name_of_2; there is no other. */
static int resolve(uint32_t index, char name[IF_NAMESIZE])
{
	if (index != 2 || !name_of_2[0])
		return -1;
	memcpy(name, name_of_2, IF_NAMESIZE);
	return 0;
}

/* Reads until the counter "t" of instance `want` is sent (at most reads times): how many
 * reads that took, or 0: never. */
static int reads_until(struct series_reader *r, const char *want, int reads, uint64_t *value)
{
	struct recording rec = { 0 };
	struct metric_sink sink = recording_sink(&rec);
	int n = 0;

	for (int i = 1; i <= reads && !n; i++) {
		recording_clear(&rec);
		CHECK(!series_reader_read(r));
		series_reader_send(r, &sink);
		if (recorded(&rec, RECORDED_COUNTER, "t", want)) {
			*value = recorded_counter(&rec, "t", want);
			n = i;
		}
	}
	recording_free(&rec);
	return n;
}

int main(void)
{
	struct decoder_chain chain;
	struct series_reader *r;
	struct if_names *names;
	char err[ERR_MAX];
	uint32_t key = 2;
	uint64_t count = 5, got = 0;
	int fd;

	if (geteuid() != 0)
		SKIP("needs root: a BPF hash");
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "label_refresh", sizeof(key), sizeof(count), 4, NULL);
	CHECK(fd >= 0);
	decoder_chain_init(&chain, "interface");
	CHECK(decoder_chain_add(&chain, "ifname", NULL, 0, err, sizeof(err)) == 0);
	names = chain.d[0]->state;
	names->resolve = resolve;
	snprintf(name_of_2, sizeof(name_of_2), "eth0");

	struct series_view v = {
		.map = "t", .fd = fd, .hash = true, .key_size = sizeof(key), .value_size = sizeof(count),
		.max_entries = 4, .precision = 2, .lone_name = "t", .nfields = 1, .max_series = 4,
		.folded_when_full = true, .nlabels = 1,
	};
	v.labels[0] = (struct series_label){ .name = "interface", .size = sizeof(key), .chain = &chain };
	v.fields[0] = (struct series_field){ .kind = VALUE_COUNTER, .id = { .name = "t", .type = "derive", .map = "t" },
					     .width = 8, .send_zero = true };
	r = series_reader_new(&v, err, sizeof(err));
	CHECK(r != NULL);
	if (fd < 0 || !r)
		return testing_done();

	CHECK(!bpf_map_update_elem(fd, &key, &count, BPF_ANY));
	CHECK_EQ_U64(reads_until(r, "eth0", 1, &got), 1);
	CHECK_EQ_U64(got, 5);
	/* Renamed: the key is decoded again within KEY_CACHE_REFRESH reads, under its new name. */
	snprintf(name_of_2, sizeof(name_of_2), "ens3");
	count = 7;
	CHECK(!bpf_map_update_elem(fd, &key, &count, BPF_ANY));
	CHECK(reads_until(r, "ens3", KEY_CACHE_REFRESH + 1, &got) > 0);
	CHECK_EQ_U64(got, 7);
	/* Gone: ifname's number, as the decoder prints an index without an interface. */
	name_of_2[0] = '\0';
	CHECK(reads_until(r, "2", KEY_CACHE_REFRESH + 1, &got) > 0);

	series_reader_free(r);
	decoder_chain_free(&chain);
	close(fd);
	return testing_done();
}
