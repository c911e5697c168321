/* Root test of the map-fill self-metric (libcore/engine/self_metrics.c) on a map filled on
 * purpose, and of what counting a map's entries costs.
 *
 * The syscalls module on the tid-hash candidate (AttachOrder "tracepoint") with latency for
 * ppoll only, counting only this process, and its maps made 4 entries big (by the
 * module's configure hook with a step added, as a module sizes its own maps). THREADS threads then block in ppoll at once: the first 4
 * store their start time, the hash is full, and every other one is dropped and counted. So:
 *   while they block: map_fill start_tid = 100 %, dropped start_lost = THREADS - 4;
 *   once they are done: map_fill 0 % (each take deleted its entry), start_lost unchanged,
 *   and exactly 4 ppoll latency samples (the ones whose start was stored).
 * The drops are events too (libcore/engine/module_events.h): the read that sees them sends
 * one WARNING "dropped-start_lost" with the interval's THREADS - 4, the next quiet read one
 * OKAY, and the reads before sent none.
 * Nothing else of this process calls ppoll: the main thread waits by reading /proc.
 *
 * Then the cost of counting a full 10,000-entry hash (u32 -> u64, as the start stores),
 * batch lookup against the get_next_key walk, median of ROUNDS; both must count exactly. */
#define _GNU_SOURCE
#include "libcore/kernel/map_entries.h"
#include "tests/support/module_test.h"
#include "tests/support/recording_sink.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#define CAP 4
#define THREADS 10
#define BIG 10000
#define ROUNDS 21

struct seen {
	double fill;       /* map_fill of start_tid, -1 if not sent */
	int fill_sent;
	uint64_t start_lost;
	int start_lost_sent;
	uint64_t ppoll_samples; /* latency events in the interval */
};

static struct drop_events {
	int warnings, okays, others;
	char interval[32];
} drops;

static void on_event(const struct ebpf_event *e)
{
	if (e->kind != EBPF_EVENT_DROPS || strcmp(e->subject, "dropped-start_lost")) {
		drops.others++;
		return;
	}
	if (e->severity == EBPF_EVENT_WARNING) {
		drops.warnings++;
		for (int i = 0; i < e->nfields; i++)
			if (!strcmp(e->fields[i].name, "interval"))
				snprintf(drops.interval, sizeof(drops.interval), "%s", e->fields[i].text);
	} else if (e->severity == EBPF_EVENT_OKAY) {
		drops.okays++;
	}
}

static struct seen read_module(struct module *m)
{
	struct recording r = { 0 };
	struct seen s = { .fill = -1 };
	const struct recorded_value *ppoll;

	CHECK(recording_read(&r, m) == 0);
	recorded_gauge(&r, "map_fill", "start_tid", &s.fill);
	s.fill_sent = recorded_count(&r, RECORDED_GAUGE, "map_fill", "start_tid");
	s.start_lost = recorded_counter(&r, "dropped", "start_lost");
	s.start_lost_sent = recorded_count(&r, RECORDED_COUNTER, "dropped", "start_lost");
	ppoll = recorded(&r, RECORDED_HISTOGRAM, "latency", "ppoll");
	if (ppoll)
		s.ppoll_samples = ppoll->hist->count;
	recording_free(&r);
	printf("  read: map_fill start_tid %.1f %% (sent %d), dropped start_lost %llu (sent %d), ppoll samples %llu\n",
	       s.fill, s.fill_sent, (unsigned long long)s.start_lost, s.start_lost_sent,
	       (unsigned long long)s.ppoll_samples);
	return s;
}

static int wake_pipe[2];
static pid_t tids[THREADS];

static void *block_in_ppoll(void *arg)
{
	struct pollfd p = { .fd = wake_pipe[0], .events = POLLIN };

	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	syscall(SYS_ppoll, &p, 1, NULL, NULL, (size_t)8);
	return NULL;
}

/* True when thread tid sits in ppoll: /proc/self/task/<tid>/syscall starts with its number. */
/* The syscalls module's configure hook, then every map that can fill (map_entries.h) made
 * CAP entries big: before load, the only time a map's size can be set. */
static int configure_small_maps(struct module *m, struct bpf_object *obj, char *err, size_t errlen)
{
	struct bpf_map *map;
	int e = 0;

	if (module_find("syscalls")->configure(m, obj, err, errlen))
		return -1;
	bpf_object__for_each_map(map, obj) {
		if (!e && map_type_can_fill(bpf_map__type(map)))
			e = bpf_map__set_max_entries(map, CAP);
	}
	return e ? module_hook_fail(err, errlen, "cannot size a map: %s", strerror(-e)) : 0;
}

static bool in_ppoll(pid_t tid)
{
	char path[64], buf[64] = "";
	FILE *f;

	if (!tid)
		return false;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return atoi(buf) == SYS_ppoll && buf[0] != '-';
}

static bool all_in_ppoll(void)
{
	for (int i = 0; i < THREADS; i++)
		if (!in_ppoll(__atomic_load_n(&tids[i], __ATOMIC_ACQUIRE)))
			return false;
	return true;
}

static void fill_on_purpose(void)
{
	struct module *m = mt_module("syscalls", "tracepoint", "Latency", "ppoll", NULL);
	pthread_t th[THREADS];
	struct seen before, blocked, after;
	int waited = 0;
	static struct module_ops small_maps;

	if (!m)
		return;
	small_maps = *m->ops;
	small_maps.configure = configure_small_maps;
	m->ops = &small_maps;
	if (module_start(m)) {
		printf("  syscalls did not start: %s\n", m->last_error);
		CHECK(!"syscalls starts on the tracepoint + tid hash candidate");
		module_free(m);
		return;
	}
	ebpf_event_set_handler(on_event);
	before = read_module(m);
	CHECK(drops.warnings == 0 && drops.okays == 0);
	CHECK(before.fill_sent == 1);
	CHECK(before.fill == 0);
	CHECK(before.start_lost == 0);

	CHECK(pipe(wake_pipe) == 0);
	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_create(&th[i], NULL, block_in_ppoll, &tids[i]) == 0);
	while (!all_in_ppoll() && waited++ < 1000)
		usleep(10000);
	CHECK(all_in_ppoll());
	blocked = read_module(m);
	CHECK(blocked.fill_sent == 1);
	CHECK_NEAR(blocked.fill, 100.0, 1e-9);
	CHECK(blocked.start_lost_sent == 1);
	CHECK_EQ_U64(blocked.start_lost, THREADS - CAP);
	CHECK(drops.warnings == 1 && drops.okays == 0);
	CHECK_EQ_U64(strtoull(drops.interval, NULL, 10), THREADS - CAP);

	CHECK(write(wake_pipe[1], "x", 1) == 1);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	after = read_module(m);
	CHECK(after.fill == 0);
	CHECK_EQ_U64(after.start_lost, THREADS - CAP);
	CHECK_EQ_U64(blocked.ppoll_samples + after.ppoll_samples, CAP);
	CHECK(drops.warnings == 1 && drops.okays == 1);
	printf("  drop events: %d WARNING (interval %s), %d OKAY, %d others\n", drops.warnings, drops.interval,
	       drops.okays, drops.others);
	ebpf_event_set_handler(NULL);
	close(wake_pipe[0]);
	close(wake_pipe[1]);
	module_free(m);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median microseconds of counting fd ROUNDS times; every count must be BIG. */
static double median_count_us(int fd, bool walk)
{
	double t[ROUNDS];

	for (int r = 0; r < ROUNDS; r++) {
		uint32_t n = 0;
		double t0 = now_us();
		int e = walk ? map_entries_count_walk(fd, sizeof(uint32_t), BIG, &n) : map_entries_count(fd, &n);

		t[r] = now_us() - t0;
		CHECK(e == 0);
		CHECK_EQ_U64(n, BIG);
	}
	qsort(t, ROUNDS, sizeof(t[0]), cmp_double);
	return t[ROUNDS / 2];
}

static void cost_of_counting(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "fill_cost", sizeof(uint32_t), sizeof(uint64_t), BIG, NULL);
	double batch, walk;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	for (uint32_t k = 0; k < BIG; k++) {
		uint64_t v = k;

		CHECK(bpf_map_update_elem(fd, &k, &v, BPF_NOEXIST) == 0);
	}
	batch = median_count_us(fd, false);
	walk = median_count_us(fd, true);
	printf("  counting a full %d-entry hash: batch lookup %.0f us, get_next_key walk %.0f us (median of %d)\n", BIG,
	       batch, walk, ROUNDS);
	close(fd);
}

int main(void)
{
	mt_require_root();
	mt_log_reset();
	printf("map filled on purpose (syscalls, start_tid of %d entries, %d threads in ppoll):\n", CAP, THREADS);
	fill_on_purpose();
	cost_of_counting();
	return testing_done();
}
