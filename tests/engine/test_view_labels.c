/* view_labels: a module view's key as labels through the decoder chains, as the modules
 * declare them: a static_map of names (KEY_ROW_NAMES before), a Decode line (syscall), names
 * the module gives at start, a label left out for want of a feature bit, and the instance
 * the labels make, joined by "-" (series_name.h, as the view's series are named). */
#include "libcore/read/series_name.h"
#include "libcore/read/view_labels.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

struct key {
	uint32_t row;
	uint32_t op;
};

static const char *const op_names[] = { "read", "write", NULL, "flush" };

static const struct view_label labels[] = {
	{ .name = "syscall", .offset = offsetof(struct key, row), .size = 4, .decode = { "syscall" } },
	{ .name = "op", .offset = offsetof(struct key, op), .size = 4, .names = op_names, .nnames = 4 },
	{ .name = "port", .offset = offsetof(struct key, op), .size = 4, .needs = 2 },
};

static const struct map_view view = { .map = "counts", .labels = labels, .nlabels = 3 };

static const char *instance(struct view_labels *l, uint32_t row, uint32_t op, char texts[][DECODE_TEXT_MAX])
{
	static char out[LABEL_VALUE_MAX];
	struct series_view v = { .map = "counts", .lone_name = "" };
	struct key k = { row, op };

	v.nlabels = view_labels_as_series(l, v.labels);
	if (!series_name(&v, (const uint8_t *)&k, -1, out, texts, NULL))
		return "(dropped)";
	return out;
}

static void test_declared(void)
{
	struct view_labels l;
	char err[ERR_MAX], texts[SERIES_MAX_LABELS][DECODE_TEXT_MAX];

	CHECK(view_labels_init(&l, &view, 0, err, sizeof(err)) == 0);
	CHECK_EQ_U64(l.n, 2); /* "port" needs feature 2 */
	CHECK_STR(instance(&l, SYS_fsync, 1, texts), "fsync-write");
	CHECK_STR(texts[0], "fsync");
	CHECK_STR(texts[1], "write");
	CHECK_STR(instance(&l, 500, 0, texts), "sys_500-read");
	CHECK_STR(instance(&l, SYS_read, 2, texts), "read-2"); /* no name: the number */
	view_labels_free(&l);
}

static void test_given_at_start(void)
{
	struct view_labels l;
	char err[ERR_MAX], texts[SERIES_MAX_LABELS][DECODE_TEXT_MAX];
	const char *const ports[] = { "other", "80", "443" };

	CHECK(view_labels_init(&l, &view, 2, err, sizeof(err)) == 0);
	CHECK_EQ_U64(l.n, 3);
	CHECK_STR(instance(&l, SYS_fsync, 2, texts), "fsync-2-2"); /* not given yet: the number */
	CHECK(view_labels_set_names(&l, 2, ports, 3, err, sizeof(err)) == 0);
	CHECK_STR(instance(&l, SYS_fsync, 2, texts), "fsync-2-443");
	CHECK_STR(instance(&l, SYS_fsync, 0, texts), "fsync-read-other");
	CHECK_STR(texts[2], "other");
	view_labels_free(&l);
}

/* Where each label ends in the name (series_name()'s ends): labels whose texts hold the
 * joining "-" are still told apart (the snapshot's labels, Prometheus' labels). */
static void test_label_ends(void)
{
	struct view_labels l;
	char err[ERR_MAX], out[LABEL_VALUE_MAX];
	const char *const ports[] = { "other", "dm-0", "x-y" };
	struct series_view v = { .map = "counts", .lone_name = "" };
	struct key k = { SYS_fsync, 2 };
	uint8_t ends[SERIES_LABEL_SPANS];

	CHECK(view_labels_init(&l, &view, 2, err, sizeof(err)) == 0);
	CHECK(view_labels_set_names(&l, 2, ports, 3, err, sizeof(err)) == 0);
	v.nlabels = view_labels_as_series(&l, v.labels);
	CHECK(series_name(&v, (const uint8_t *)&k, -1, out, NULL, ends));
	CHECK_STR(out, "fsync-2-x-y"); /* op 2 has no name: its number */
	CHECK_EQ_U64(ends[0], 5);
	CHECK_EQ_U64(ends[1], 7);
	CHECK_EQ_U64(ends[2], 11);
	/* A TypeInstance template that leaves a label out (op): the labels cannot be told
	 * apart in the name (test_spans: one that names each once can). */
	v.type_instance = "%{port}-on-%{syscall}";
	CHECK(series_name(&v, (const uint8_t *)&k, -1, out, NULL, ends));
	CHECK_STR(out, "x-y-on-fsync");
	CHECK_EQ_U64(ends[0], SERIES_ENDS_UNKNOWN);
	view_labels_free(&l);
}

/* A label's text is made safe as every label (label_value.h): a disk that /proc/diskstats
 * names "cciss/c0d0" would otherwise split collectd's identifier at the '/', which the
 * plugin reads as "<cgroup>/<instance>". */
static void test_made_safe(void)
{
	static const char *const disks[] = { "sda", "cciss/c0d0" };
	static const struct view_label disk_labels[] = {
		{ .name = "disk", .offset = offsetof(struct key, row), .size = 4, .names = disks, .nnames = 2 },
		{ .name = "op", .offset = offsetof(struct key, op), .size = 4, .names = op_names, .nnames = 4 },
	};
	static const struct map_view disk_view = { .map = "disks", .labels = disk_labels, .nlabels = 2 };
	struct view_labels l;
	char err[ERR_MAX], texts[SERIES_MAX_LABELS][DECODE_TEXT_MAX];

	CHECK(view_labels_init(&l, &disk_view, 0, err, sizeof(err)) == 0);
	CHECK_STR(instance(&l, 0, 1, texts), "sda-write");
	CHECK_STR(instance(&l, 1, 0, texts), "cciss_c0d0-read");
	CHECK_STR(texts[0], "cciss/c0d0"); /* as decoded: what an entry hook (block's Disk filter) sees */
	view_labels_free(&l);
}

/* A key's group leads its series' name, "<group>/<labels>" (a module's per-cgroup rows); a
 * group too long for collectd's 127 characters beside the labels is cut, '~' and its hash,
 * and two long groups that differ only past the cut stay apart; a group is cut the same
 * whatever the name after it. */
static void test_in_group(void)
{
	char out[LABEL_VALUE_MAX], other[LABEL_VALUE_MAX], group[200];
	const char *tail;

	series_name_in_group("system.slice_ssh.service", "fsync", out);
	CHECK_STR(out, "system.slice_ssh.service/fsync");
	series_name_in_group("other", "", out);
	CHECK_STR(out, "other/");
	memset(group, 'a', 150);
	group[150] = '\0';
	series_name_in_group(group, "connect-443", out);
	tail = strchr(out, '/');
	CHECK(tail != NULL);
	CHECK_STR(tail, "/connect-443");
	CHECK_EQ_U64((uint64_t)(tail - out), SERIES_GROUP_MAX);
	CHECK(tail[-9] == '~');
	/* The group is cut the same whatever the name after it: one plugin instance per group. */
	series_name_in_group(group, "fsync", other);
	CHECK(strncmp(out, other, SERIES_GROUP_MAX + 1) == 0);
	CHECK_STR(other + SERIES_GROUP_MAX, "/fsync");
	group[149] = 'b';
	series_name_in_group(group, "connect-443", other);
	CHECK(strcmp(out, other) != 0);
	CHECK(strncmp(out, other, SERIES_GROUP_MAX - 9) == 0); /* the same up to the hash */
	/* A long name after a group fills the rest, cut with its own hash. */
	memset(group, 'n', 150);
	series_name_in_group("svc", group, out);
	CHECK_EQ_U64(strlen(out), LABEL_VALUE_MAX - 1);
	CHECK(strncmp(out, "svc/nnn", 7) == 0 && out[LABEL_VALUE_MAX - 1 - 9] == '~');
}

/* Where each label is in the name (series_name()'s ends, then starts), so that the labels
 * travel apart: joined by "-", or where a TypeInstance template puts them (ebpf_exporter's
 * configs: "<metric>-%{a}-%{b}"); unknown for a template that names one twice or not. */
static void test_spans(void)
{
	struct view_labels l;
	char err[ERR_MAX], out[LABEL_VALUE_MAX];
	uint8_t ends[SERIES_LABEL_SPANS];
	struct series_view v = { .map = "counts", .lone_name = "" };
	struct key k = { SYS_fsync, 1 };

	CHECK(view_labels_init(&l, &view, 0, err, sizeof(err)) == 0);
	v.nlabels = view_labels_as_series(&l, v.labels);
	CHECK(series_name(&v, (const uint8_t *)&k, -1, out, NULL, ends));
	CHECK_STR(out, "fsync-write");
	CHECK(ends[0] == 5 && ends[SERIES_MAX_LABELS] == 0 && ends[1] == 11 && ends[SERIES_MAX_LABELS + 1] == 6);
	v.type_instance = "io_calls-%{syscall}-%{op}";
	CHECK(series_name(&v, (const uint8_t *)&k, -1, out, NULL, ends));
	CHECK_STR(out, "io_calls-fsync-write");
	CHECK(ends[SERIES_MAX_LABELS] == 9 && ends[0] == 14 && ends[SERIES_MAX_LABELS + 1] == 15 && ends[1] == 20);
	v.type_instance = "%{op}-%{syscall}-%{op}";
	CHECK(series_name(&v, (const uint8_t *)&k, -1, out, NULL, ends) && ends[0] == SERIES_ENDS_UNKNOWN);
	v.type_instance = "calls-%{syscall}";
	CHECK(series_name(&v, (const uint8_t *)&k, -1, out, NULL, ends) && ends[0] == SERIES_ENDS_UNKNOWN);
	view_labels_free(&l);
}

int main(void)
{
	test_declared();
	test_given_at_start();
	test_label_ends();
	test_made_safe();
	test_in_group();
	test_spans();
	return testing_done();
}
