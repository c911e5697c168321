/* Events (libcore/engine/events.h, module_events.h) with a fake module: the rate limit and
 * its exact summaries, the loss counters' begin/stop events, read failures and recovery as
 * state events, escaping. No BPF, no root. */
#include <errno.h>

#include "base/log.h"
#include "libcore/engine/module.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"

#define MAX_SEEN 256

static struct ebpf_event seen[MAX_SEEN];
static int nseen;

static void capture(const struct ebpf_event *e)
{
	if (nseen < MAX_SEEN)
		seen[nseen++] = *e;
}

static const char *field(const struct ebpf_event *e, const char *name)
{
	for (int i = 0; i < e->nfields; i++)
		if (!strcmp(e->fields[i].name, name))
			return e->fields[i].text;
	return "";
}

static int next_read_result;
static uint64_t dropped_value, untraced_value;

static int fake_read(struct module *m, char *err, size_t errlen)
{
	return next_read_result ? module_hook_fail(err, errlen, "map x: %s", strerror(-next_read_result)) : 0;
}

static void fake_send(struct module *m, const struct metric_sink *sink)
{
	sink->counter(sink->ctx, METRIC("calls"), "x", 1000 + dropped_value); /* not a loss counter */
	sink->counter(sink->ctx, METRIC("dropped"), "start_lost", dropped_value);
	sink->counter(sink->ctx, METRIC("untraced"), "loop0-write", untraced_value);
}

static const struct module_ops fake_ops = { .name = "fake", .read = fake_read, .send = fake_send };

/* What reaches the front-end through module_read, kept across reads until cleared. */
static struct recording passed;
static struct metric_sink sink;

static void test_limiter(void)
{
	struct event_limiter l = { 0 };
	int taken = 0;

	for (int i = 0; i < 25; i++)
		taken += event_limiter_take(&l, 1000000);
	CHECK(taken == EVENT_BURST);
	CHECK_EQ_U64(l.not_sent, 25 - EVENT_BURST);
	CHECK(!event_limiter_take(&l, 1000000 + (EVENT_REFILL_SECONDS * 1000000LL) / 2));
	CHECK(event_limiter_take(&l, 1000000 + EVENT_REFILL_SECONDS * 1000000LL));
	CHECK(!event_limiter_take(&l, 1000000 + EVENT_REFILL_SECONDS * 1000000LL));
	/* A long quiet time refills to the burst, no more. */
	taken = 0;
	for (int i = 0; i < 25; i++)
		taken += event_limiter_take(&l, 1000000 + 3600 * 1000000LL);
	CHECK(taken == EVENT_BURST);
}

/* A storm: the burst one by one, then one summary with the exact rest at the end of the read. */
static void test_storm_summary(void)
{
	struct module *m = module_new(&fake_ops, NULL);

	CHECK(module_start(m) == 0);
	nseen = 0;
	for (int i = 0; i < 1000; i++) {
		struct ebpf_event e;

		ebpf_event_init(&e, EBPF_EVENT_OOM_KILL, EBPF_EVENT_FAILURE, "", "OOM kill %d", i);
		ebpf_event_add_number(&e, "pid", 100 + i);
		module_event(m, &e);
	}
	CHECK(nseen == EVENT_BURST);
	CHECK_STR(field(&seen[0], "pid"), "100");
	CHECK_STR(seen[0].module, "fake");
	next_read_result = 0;
	CHECK(module_read(m, &sink) == 0);
	CHECK(nseen == EVENT_BURST + 1);
	CHECK(seen[EVENT_BURST].kind == EBPF_EVENT_OOM_KILL);
	CHECK_STR(seen[EVENT_BURST].subject, "summary");
	CHECK_STR(field(&seen[EVENT_BURST], "not_sent"), "990");
	/* Said once: the next read has nothing to add. */
	CHECK(module_read(m, &sink) == 0);
	CHECK(nseen == EVENT_BURST + 1);
	module_free(m);
}

static void test_loss_counters(void)
{
	struct module *m = module_new(&fake_ops, NULL);
	/* dropped-start_lost at each read, and what must be sent: 1 began, -1 stopped. */
	static const uint64_t values[] = { 0, 0, 5, 9, 9, 9, 12, 12 };
	static const int expect[] = { 0, 0, 1, 0, -1, 0, 1, -1 };

	CHECK(module_start(m) == 0);
	next_read_result = 0;
	untraced_value = 0;
	recording_clear(&passed);
	for (unsigned i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		dropped_value = values[i];
		nseen = 0;
		CHECK(module_read(m, &sink) == 0);
		CHECK(nseen == (expect[i] != 0));
		if (!nseen || !expect[i])
			continue;
		CHECK(seen[0].kind == EBPF_EVENT_DROPS);
		CHECK_STR(seen[0].subject, "dropped-start_lost");
		CHECK(seen[0].severity == (expect[i] > 0 ? EBPF_EVENT_WARNING : EBPF_EVENT_OKAY));
		CHECK_STR(field(&seen[0], "counter"), "dropped-start_lost");
		if (i == 2)
			CHECK_STR(field(&seen[0], "interval"), "5");
		if (i == 6)
			CHECK_STR(field(&seen[0], "total"), "12");
	}
	CHECK_EQ_U64(recorded_count(&passed, RECORDED_COUNTER, NULL, NULL), 3 * 8); /* every value still reaches the front-end */

	/* IO untraced from the first interval on: a loss from the start is news too. */
	nseen = 0;
	untraced_value = 3;
	CHECK(module_read(m, &sink) == 0);
	CHECK(nseen == 1 && seen[0].kind == EBPF_EVENT_UNTRACED && seen[0].severity == EBPF_EVENT_WARNING);
	CHECK_STR(seen[0].subject, "untraced-loop0-write");
	CHECK(strstr(seen[0].message, "loop0-write") != NULL);
	nseen = 0;
	CHECK(module_read(m, &sink) == 0);
	CHECK(nseen == 1 && seen[0].kind == EBPF_EVENT_UNTRACED && seen[0].severity == EBPF_EVENT_OKAY);
	module_free(m);
}

static void test_read_failure_and_recovery(void)
{
	struct module *m = module_new(&fake_ops, NULL);

	CHECK(module_start(m) == 0);
	nseen = 0;
	next_read_result = -EIO;
	CHECK(module_read(m, &sink) == -1);
	CHECK(module_read(m, &sink) == -1);
	CHECK(nseen == 1); /* the failure is news once, not at every read */
	CHECK(seen[0].kind == EBPF_EVENT_MODULE_STATE && seen[0].severity == EBPF_EVENT_FAILURE);
	CHECK(strstr(field(&seen[0], "error"), "reading the BPF maps failed") != NULL);
	next_read_result = 0;
	dropped_value = 0; /* a new module: no loss */
	untraced_value = 0;
	CHECK(module_read(m, &sink) == 0);
	CHECK(nseen == 2);
	CHECK(seen[1].kind == EBPF_EVENT_MODULE_STATE && seen[1].severity == EBPF_EVENT_OKAY);
	module_free(m);
}

/* A module that cannot start is one FAILURE event with its state and error. */
static int failing_start(struct module *m, char *err, size_t errlen)
{
	snprintf(err, errlen, "no way in");
	return -1;
}
static const struct module_ops failing_ops = { .name = "broken", .start = failing_start };

static void test_start_failure(void)
{
	struct module *m = module_new(&failing_ops, "x");

	nseen = 0;
	CHECK(module_start(m) == -1);
	CHECK(nseen == 1);
	CHECK(seen[0].kind == EBPF_EVENT_MODULE_STATE && seen[0].severity == EBPF_EVENT_FAILURE);
	CHECK_STR(seen[0].module, "broken-x");
	CHECK_STR(field(&seen[0], "state"), "failed");
	CHECK_STR(field(&seen[0], "error"), "no way in");
	module_free(m);
}

/* A name is anyone's to choose: a newline in it must not start a line of its own in a
 * consumer that reads headers line by line (collectd's exec handlers). */
static void test_escaping(void)
{
	struct ebpf_event e;

	ebpf_event_init(&e, EBPF_EVENT_OOM_KILL, EBPF_EVENT_FAILURE, "", "victim (%s)", "x\nSeverity: OKAY");
	ebpf_event_add_text(&e, "name", "x\nSeverity: OKAY");
	CHECK(strchr(e.message, '\n') == NULL);
	CHECK(strchr(field(&e, "name"), '\n') == NULL);
	CHECK_STR(field(&e, "name"), "x\\nSeverity: OKAY");
	for (int i = 0; i < EBPF_EVENT_MAX_FIELDS + 3; i++)
		ebpf_event_add_number(&e, "n", (uint64_t)i);
	CHECK(e.nfields == EBPF_EVENT_MAX_FIELDS);
}

int main(void)
{
	ebpf_log_set_handler(NULL);
	ebpf_event_set_handler(capture);
	sink = recording_sink(&passed);
	test_limiter();
	test_storm_summary();
	test_loss_counters();
	test_read_failure_and_recovery();
	test_start_failure();
	test_escaping();
	recording_free(&passed);
	return testing_done();
}
