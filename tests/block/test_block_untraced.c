/* The block module's comparison with /proc/diskstats, on files the test writes: the line
 * formats of old and new kernels, the shortfall per disk and operation, a value that never
 * goes back, bio-based disks (no block_rq_* events: never reported), a recreated disk. */
#include "libcore/modules/block_untraced.h"
#include "tests/support/testing.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64], stats[96];

static void write_stats(const char *text)
{
	FILE *f = fopen(stats, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void mkdirs(const char *rel)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/block", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/block/%s", dir, rel);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/block/%s/mq", dir, rel);
	mkdir(path, 0755);
}

struct got {
	char disk[8][16];
	unsigned int op[8];
	uint64_t v[8];
	int n;
};

static void collect(void *ctx, const char *disk, unsigned int op, uint64_t untraced)
{
	struct got *g = ctx;

	if (g->n < 8) {
		snprintf(g->disk[g->n], sizeof(g->disk[0]), "%s", disk);
		g->op[g->n] = op;
		g->v[g->n++] = untraced;
	}
}

static int64_t value_of(const struct got *g, const char *disk, unsigned int op)
{
	for (int i = 0; i < g->n; i++)
		if (!strcmp(g->disk[i], disk) && g->op[i] == op)
			return (int64_t)g->v[i];
	return -1; /* not reported */
}

static void test_parse(void)
{
	struct diskstats_disk d;

	/* 4.18+: 18 fields (discards); 5.5+: 20 (flushes) */
	CHECK(diskstats_parse_line("   7       0 loop0 200 0 6400 10 300 0 38400 30 0 40 40 5 0 80 1\n", &d) == 0);
	CHECK_EQ_U64(d.dev, 7u << 20);
	CHECK_STR(d.name, "loop0");
	CHECK_EQ_U64(d.completed[DISKSTATS_READ], 200);
	CHECK_EQ_U64(d.completed[DISKSTATS_WRITE], 300);
	CHECK_EQ_U64(d.completed[DISKSTATS_DISCARD], 5);
	CHECK(d.has[DISKSTATS_DISCARD] && !d.has[DISKSTATS_FLUSH]);
	CHECK(diskstats_parse_line(" 259 0 nvme0n1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", &d) == 0);
	CHECK_EQ_U64(d.dev, 259u << 20);
	CHECK_EQ_U64(d.completed[DISKSTATS_FLUSH], 16);
	CHECK(d.has[DISKSTATS_FLUSH]);
	/* before 4.18: 11 fields, no discards */
	CHECK(diskstats_parse_line("   8   0 sda 10 0 80 1 20 0 160 2 0 3 3\n", &d) == 0);
	CHECK(!d.has[DISKSTATS_DISCARD]);
	CHECK(diskstats_parse_line("8 0 sda 1 2 3\n", &d) == -1);
	CHECK(diskstats_parse_line("garbage\n", &d) == -1);
}

static void test_shortfall(void)
{
	struct block_untraced u = { .diskstats = stats, .sysfs = dir };
	struct got g = { 0 };

	mkdirs("loop0");
	/* dm-0 has no mq directory: bio-based, never reported */
	write_stats("7 0 loop0 100 0 0 0 50 0 0 0 0 0 0 0 0 0 0\n"
		    "7 1 loop0p1 10 0 0 0 10 0 0 0 0 0 0 0 0 0 0\n"
		    "253 0 dm-0 40 0 0 0 40 0 0 0 0 0 0 0 0 0 0\n");
	CHECK(block_untraced_start(&u) == 0);

	/* 200 reads, 300 writes since; the programs saw 198 and 300 */
	write_stats("7 0 loop0 300 0 0 0 350 0 0 0 0 0 0 0 0 0 0\n"
		    "7 1 loop0p1 10 0 0 0 10 0 0 0 0 0 0 0 0 0 0\n"
		    "253 0 dm-0 90 0 0 0 90 0 0 0 0 0 0 0 0 0 0\n");
	CHECK(block_untraced_read_kernel(&u) == 0);
	block_untraced_set_traced(&u, 7u << 20, 0, 198);
	block_untraced_set_traced(&u, 7u << 20, 1, 300);
	block_untraced_each(&u, collect, &g);
	CHECK_EQ_U64(value_of(&g, "loop0", 0), 2);
	CHECK_EQ_U64(value_of(&g, "loop0", 1), 0); /* all seen: reported as 0 */
	CHECK(value_of(&g, "loop0", 2) == -1);      /* no discards: not reported */
	CHECK(value_of(&g, "dm-0", 0) == -1);       /* bio-based */
	CHECK(value_of(&g, "loop0p1", 0) == -1);    /* partitions have no mq directory */

	/* In-flight IO traced before diskstats counts it: the shortfall never shrinks */
	g.n = 0;
	CHECK(block_untraced_read_kernel(&u) == 0);
	block_untraced_set_traced(&u, 7u << 20, 0, 201);
	block_untraced_set_traced(&u, 7u << 20, 1, 300);
	block_untraced_each(&u, collect, &g);
	CHECK_EQ_U64(value_of(&g, "loop0", 0), 2);

	/* The disk detached and another attached under the same dev_t: counters start over */
	g.n = 0;
	write_stats("7 0 loop0 5 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	CHECK(block_untraced_read_kernel(&u) == 0);
	block_untraced_set_traced(&u, 7u << 20, 0, 201);
	block_untraced_each(&u, collect, &g);
	CHECK_EQ_U64(value_of(&g, "loop0", 0), 2); /* base reset, 5 accounted, 201 traced: no new loss */
	block_untraced_free(&u);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/ebpf-test-untraced-XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(stats, sizeof(stats), "%s/diskstats", dir);
	test_parse();
	test_shortfall();
	{
		char cmd[96];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		CHECK(system(cmd) == 0);
	}
	return testing_done();
}
