/* The snapshot's event lines (snapshot/snapshot_file.c) and what the subagent makes of them
 * (snmp/event_notify.c): a round trip with escapes, the bound on event lines, order, the
 * writer keeping the newest, the notification and varbinds per kind, and which events are
 * new to a subagent. No net-snmp, no root. */
#include "snapshot/snapshot_file.h"
#include "snmp/event_notify.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

static struct snapshot_event make_event(uint64_t run, uint64_t seq, const char *kind, const char *subject)
{
	struct snapshot_event e = { .run = run, .seq = seq, .time_us = (int64_t)(run + seq) };

	snprintf(e.kind, sizeof(e.kind), "%s", kind);
	snprintf(e.severity, sizeof(e.severity), "failure");
	snprintf(e.module, sizeof(e.module), "process");
	snprintf(e.subject, sizeof(e.subject), "%s", subject);
	snprintf(e.message, sizeof(e.message), "OOM kill: victim pid 42 (a\tb\nc)");
	return e;
}

static void add_field(struct snapshot_event *e, const char *name, const char *value)
{
	snprintf(e->fields[e->nfields].name, sizeof(e->fields[0].name), "%s", name);
	snprintf(e->fields[e->nfields].value, sizeof(e->fields[0].value), "%s", value);
	e->nfields++;
}

static int parse_text(const char *text, struct snapshot *s, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r = snapshot_parse(f, s, err, errlen);

	fclose(f);
	return r;
}

static char *write_events(const struct snapshot_event *ev, int n)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	CHECK(snapshot_write_stream_events(f, NULL, 0, ev, n, 7) == 0);
	fclose(f);
	return buf;
}

static void test_round_trip(void)
{
	struct snapshot_event ev = make_event(1000, 1, "oom_kill", "");
	struct snapshot s;
	char err[ERR_MAX], *text;

	add_field(&ev, "pid", "42");
	add_field(&ev, "name", "a\tb=c\\d");
	add_field(&ev, "cgroup", "/x=y");
	text = write_events(&ev, 1);
	CHECK(parse_text(text, &s, err, sizeof(err)) == 0);
	CHECK(s.nevents == 1);
	if (s.nevents == 1) {
		CHECK_EQ_U64(s.events[0].run, 1000);
		CHECK_EQ_U64(s.events[0].seq, 1);
		CHECK_STR(s.events[0].kind, "oom_kill");
		CHECK_STR(s.events[0].message, "OOM kill: victim pid 42 (a\tb\nc)");
		CHECK(s.events[0].nfields == 3);
		CHECK_STR(snapshot_event_field(&s.events[0], "name"), "a\tb=c\\d");
		CHECK_STR(snapshot_event_field(&s.events[0], "cgroup"), "/x=y");
		CHECK(snapshot_event_field(&s.events[0], "error") == NULL);
	}
	snapshot_free(&s);
	free(text);
}

/* The file keeps the newest SNAPSHOT_MAX_EVENTS; a reader takes no more than that. */
static void test_bounds_and_order(void)
{
	struct snapshot_event ev[SNAPSHOT_MAX_EVENTS + 6];
	struct snapshot s;
	char err[ERR_MAX], *text, *big;
	size_t used = 0, cap = 1 << 20;

	for (int i = 0; i < SNAPSHOT_MAX_EVENTS + 6; i++)
		ev[i] = make_event(1000, (uint64_t)i + 1, "drops", "dropped-x");
	text = write_events(ev, SNAPSHOT_MAX_EVENTS + 6);
	CHECK(parse_text(text, &s, err, sizeof(err)) == 0);
	CHECK(s.nevents == SNAPSHOT_MAX_EVENTS);
	if (s.nevents)
		CHECK_EQ_U64(s.events[0].seq, 7); /* the oldest six went */
	snapshot_free(&s);

	/* One line more than the bound, by hand: refused, with the line. */
	big = malloc(cap);
	used += (size_t)snprintf(big, cap, "collectd-ebpf-snapshot\t3\nwritten\t1\n");
	for (int i = 1; i <= SNAPSHOT_MAX_EVENTS + 1; i++)
		used += (size_t)snprintf(big + used, cap - used, "event\t1\t%d\t5\tdrops\twarning\tm\ts\tmsg\n", i);
	snprintf(big + used, cap - used, "end\n");
	CHECK(parse_text(big, &s, err, sizeof(err)) == -1);
	CHECK(strstr(err, "more event lines than the bound") != NULL);
	CHECK(strstr(err, "line 67") != NULL);
	free(big);

	/* Out of order, not name=value, too few fields. */
	CHECK(parse_text("collectd-ebpf-snapshot\t3\nevent\t1\t2\t5\tdrops\twarning\tm\ts\tmsg\n"
			 "event\t1\t2\t5\tdrops\twarning\tm\ts\tmsg\nend\n", &s, err, sizeof(err)) == -1);
	CHECK(strstr(err, "out of order") != NULL);
	CHECK(parse_text("collectd-ebpf-snapshot\t3\nevent\t1\t2\t5\tdrops\twarning\tm\ts\tmsg\tnovalue\nend\n", &s, err,
			 sizeof(err)) == -1);
	CHECK(strstr(err, "name=value") != NULL);
	CHECK(parse_text("collectd-ebpf-snapshot\t3\nevent\t1\t2\t5\tdrops\nend\n", &s, err, sizeof(err)) == -1);
	CHECK(strstr(err, "at least 9 fields") != NULL);
	free(text);
}

static const struct event_varbind *find_vb(const struct event_notification *n, enum event_object o)
{
	for (int i = 0; i < n->nvarbinds; i++)
		if (n->vb[i].object == o)
			return &n->vb[i];
	return NULL;
}

/* n has varbind o, and it holds num, or the text str. */
static bool vb_num_is(const struct event_notification *n, enum event_object o, uint64_t num)
{
	const struct event_varbind *vb = find_vb(n, o);

	return vb && vb->num == num;
}

static bool vb_str_is(const struct event_notification *n, enum event_object o, const char *str)
{
	const struct event_varbind *vb = find_vb(n, o);

	return vb && !strcmp(vb->str, str);
}

/* e makes a notification into n, of that number. */
static void check_notification(const struct snapshot_event *e, struct event_notification *n,
			       enum event_notification_number number)
{
	CHECK(event_notification(e, n) == 0);
	CHECK(n->number == number);
}

static void test_notifications(void)
{
	struct snapshot_event oom = make_event(1000, 3, "oom_kill", ""), sum = make_event(1000, 4, "oom_kill", "summary"),
			      st = make_event(1000, 5, "module_state", "state"), drop = make_event(1000, 6, "drops", "dropped-x"),
			      odd = make_event(1000, 7, "from_the_future", "");
	struct event_notification n;

	add_field(&oom, "pid", "4242");
	add_field(&oom, "name", "java");
	add_field(&oom, "cgroup", "/app");
	check_notification(&oom, &n, EVENT_NOTIFY_OOM_KILL);
	CHECK(vb_num_is(&n, EVENT_OBJ_PID, 4242));
	CHECK(vb_num_is(&n, EVENT_OBJ_SEQUENCE, 3));
	CHECK(vb_str_is(&n, EVENT_OBJ_PROCESS_NAME, "java"));
	CHECK(vb_str_is(&n, EVENT_OBJ_CGROUP, "/app"));
	CHECK(vb_str_is(&n, EVENT_OBJ_TRIGGER_CGROUP, ""));
	/* a trap's strings under base/text_rule.h's rule, whatever the snapshot holds */
	add_field(&oom, "trigger_cgroup", "/a\x1b]0;t\x07\xc2\x9b\xe2\x80\xae\xff");
	check_notification(&oom, &n, EVENT_NOTIFY_OOM_KILL);
	CHECK(vb_str_is(&n, EVENT_OBJ_TRIGGER_CGROUP, "/a\\x1b]0;t\\x07\\xc2\\x9b\\xe2\\x80\\xae\\xff"));

	add_field(&sum, "not_sent", "990");
	check_notification(&sum, &n, EVENT_NOTIFY_NOT_SENT);
	CHECK(vb_num_is(&n, EVENT_OBJ_COUNT, 990));
	CHECK(vb_num_is(&n, EVENT_OBJ_KIND, 1));

	add_field(&st, "state", "unsupported");
	add_field(&st, "error", "no way in");
	check_notification(&st, &n, EVENT_NOTIFY_MODULE_STATE);
	CHECK(vb_num_is(&n, EVENT_OBJ_MODULE_STATE, 4));
	CHECK(vb_num_is(&n, EVENT_OBJ_SEVERITY, 3));

	add_field(&drop, "interval", "5");
	add_field(&drop, "total", "99999999999");
	snprintf(drop.severity, sizeof(drop.severity), "okay");
	check_notification(&drop, &n, EVENT_NOTIFY_DROPS);
	CHECK(vb_num_is(&n, EVENT_OBJ_TOTAL, 99999999999ULL));
	CHECK(vb_num_is(&n, EVENT_OBJ_SEVERITY, 1));

	CHECK(event_notification(&odd, &n) == -1);
}

static void test_cursor(void)
{
	struct event_cursor c;
	struct snapshot_event old = make_event(1000, 1, "drops", ""), e2 = make_event(1000, 2, "drops", ""),
			      next_run = make_event(5000, 1, "drops", "");

	event_cursor_init(&c, 1002); /* the subagent started after event 1 was recorded */
	CHECK(!event_cursor_is_new(&c, &old));
	CHECK(event_cursor_is_new(&c, &e2));
	event_cursor_sent(&c, &e2);
	CHECK(!event_cursor_is_new(&c, &e2));
	CHECK(event_cursor_is_new(&c, &next_run)); /* a new collectd starts from 1 again */
	event_cursor_sent(&c, &next_run);
	CHECK(!event_cursor_is_new(&c, &e2));
}

int main(void)
{
	test_round_trip();
	test_bounds_and_order();
	test_notifications();
	test_cursor();
	return testing_done();
}
