/* The `tcp` module: retransmitted segments, resets sent and received, and the connect
 * latency distribution (SYN sent to established), optionally per local or remote port
 * for a capped list of ports (everything else is "other"). */
#include "libcore/engine/module.h"

#include "libcore/kernel/btf_facts.h"
#include "libcore/engine/log.h"
#include "libcore/engine/percpu_read.h"
#include "tcp.h"
#include "tcp.skel.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct probe_candidate retransmit_candidates[] = {
	{ ATTACH_TP_BTF, NULL, { "retransmit_btf" }, { NULL } },
	{ ATTACH_RAW_TP, NULL, { "retransmit_raw" }, { NULL } },
	{ ATTACH_TRACEPOINT, NULL, { "retransmit_tp" }, { NULL } },
};

static const struct probe_candidate send_reset_candidates[] = {
	{ ATTACH_TP_BTF, NULL, { "send_reset_btf" }, { NULL } },
	{ ATTACH_RAW_TP, NULL, { "send_reset_raw" }, { NULL } },
	{ ATTACH_TRACEPOINT, NULL, { "send_reset_tp" }, { NULL } },
};

static const struct probe_candidate receive_reset_candidates[] = {
	{ ATTACH_TP_BTF, NULL, { "receive_reset_btf" }, { NULL } },
	{ ATTACH_RAW_TP, NULL, { "receive_reset_raw" }, { NULL } },
	{ ATTACH_TRACEPOINT, NULL, { "receive_reset_tp" }, { NULL } },
};

static const struct probe_candidate state_candidates[] = {
	{ ATTACH_TP_BTF, NULL, { "state_btf" }, { NULL } },
	{ ATTACH_RAW_TP, NULL, { "state_raw" }, { NULL } },
	{ ATTACH_TRACEPOINT, NULL, { "state_tp" }, { NULL } },
};

enum { POINT_RETRANSMIT, POINT_SEND_RESET, POINT_RECEIVE_RESET, POINT_STATE, NPOINTS };

struct tcp {
	struct tcp_bpf *skel;
	uint32_t filter_tgid;
	unsigned int precision; /* of the connect latency rows, hist_config_precision() */
	bool retransmit_has_err;
	/* configuration */
	enum tcp_port_mode mode;
	int nports;
	uint16_t ports[TCP_MAX_PORTS]; /* row i + 1 is ports[i] */
	struct probe_point points[NPOINTS];
	/* reading */
	struct percpu_reader counts_reader, latency_reader, stats_reader;
	struct tcp_counts counts[TCP_ROWS];
	struct hist_row latency[TCP_ROWS];
	uint64_t stats[TCP_STAT_COUNT];
	struct hist_tracker trackers[TCP_ROWS];
};

static const char *const option_names[] = { "PortBreakdown", "Ports", NULL };

static int tcp_create(struct module *m)
{
	struct tcp *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->points[POINT_RETRANSMIT] = (struct probe_point){
		.name = "tcp_retransmit_skb", .candidates = retransmit_candidates, .ncandidates = 3, .chosen = -1 };
	t->points[POINT_SEND_RESET] = (struct probe_point){
		.name = "tcp_send_reset", .candidates = send_reset_candidates, .ncandidates = 3, .chosen = -1 };
	t->points[POINT_RECEIVE_RESET] = (struct probe_point){
		.name = "tcp_receive_reset", .candidates = receive_reset_candidates, .ncandidates = 3, .chosen = -1 };
	t->points[POINT_STATE] = (struct probe_point){
		.name = "inet_sock_set_state", .candidates = state_candidates, .ncandidates = 3, .chosen = -1 };
	for (int i = 0; i < NPOINTS; i++)
		t->points[i].enabled = true;
	m->priv = t;
	m->probes.points = t->points;
	m->probes.npoints = NPOINTS;
	return 0;
}

static int set_port_breakdown(struct tcp *t, const struct option *o, char *err, size_t errlen)
{
	const char *v;

	if (opt_expect_strings(o, 1, err, errlen))
		return -1;
	v = o->values[0].string;
	if (o->nvalues == 1 && !strcasecmp(v, "local"))
		t->mode = TCP_PORTS_LOCAL;
	else if (o->nvalues == 1 && !strcasecmp(v, "remote"))
		t->mode = TCP_PORTS_REMOTE;
	else {
		snprintf(err, errlen, "PortBreakdown takes one value, \"local\" or \"remote\" (got \"%s\"%s)", v,
			 o->nvalues > 1 ? " and more" : "");
		return -1;
	}
	return 1;
}

static int add_port(struct tcp *t, double v, char *err, size_t errlen)
{
	uint16_t port;

	if (v != floor(v) || v < 1 || v > 65535) {
		snprintf(err, errlen, "Ports: %g is not a TCP port; give whole numbers from 1 to 65535, e.g. Ports 80 443",
			 v);
		return -1;
	}
	port = (uint16_t)v;
	for (int i = 0; i < t->nports; i++) {
		if (t->ports[i] == port) {
			snprintf(err, errlen, "Ports: %u is listed twice; list each port once", port);
			return -1;
		}
	}
	if (t->nports == TCP_MAX_PORTS) {
		snprintf(err, errlen,
			 "Ports: at most %d ports get a series of their own (to keep the number of series bounded); "
			 "traffic on other ports is counted as \"other\", so drop %u or another port",
			 TCP_MAX_PORTS, port);
		return -1;
	}
	t->ports[t->nports++] = port;
	return 0;
}

static int set_ports(struct tcp *t, const struct option *o, char *err, size_t errlen)
{
	if (opt_expect_numbers(o, 1, 0, err, errlen))
		return -1;
	for (int i = 0; i < o->nvalues; i++)
		if (add_port(t, o->values[i].number, err, errlen))
			return -1;
	return 1;
}

static int tcp_set_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	if (!strcasecmp(o->key, "PortBreakdown"))
		return set_port_breakdown(m->priv, o, err, errlen);
	if (!strcasecmp(o->key, "Ports"))
		return set_ports(m->priv, o, err, errlen);
	return 0;
}

/* What the running kernel's BTF says, from one read of it: recent kernels added `err` to
 * tcp_retransmit_skb; and tcp_send_reset fires for resets that answer a segment no socket
 * wanted (a connect to a closed port) only since it got a record type of its own (6.10),
 * before that only for resets of an existing socket. Without BTF: neither. */
static void read_kernel_facts(struct tcp *t, bool *socketless_resets)
{
	struct btf *btf = btf_facts_open();

	t->retransmit_has_err = btf && btf_tracepoint_nargs(btf, "tcp_retransmit_skb") >= 3;
	*socketless_resets = !btf || btf_has_struct(btf, "trace_event_raw_tcp_send_reset");
	btf_facts_close(btf);
}

static int nrows(const struct tcp *t)
{
	return t->mode == TCP_PORTS_NONE ? 1 : t->nports + 1;
}

static struct bpf_object *open_object(void *ctx)
{
	struct tcp *t = ctx;

	t->skel = tcp_bpf__open();
	if (!t->skel)
		return NULL;
	t->skel->rodata->filter_tgid = t->filter_tgid;
	t->skel->rodata->hist_precision = t->precision;
	bpf_map__set_value_size(t->skel->maps.connect_latency, HIST_ROW_SIZE(t->precision));
	t->skel->rodata->port_mode = t->mode;
	t->skel->rodata->retransmit_has_err = t->retransmit_has_err;
	if (t->mode != TCP_PORTS_NONE)
		for (int i = 0; i < t->nports; i++)
			t->skel->rodata->port_row[t->ports[i]] = i + 1;
	bpf_map__set_max_entries(t->skel->maps.counts, nrows(t));
	bpf_map__set_max_entries(t->skel->maps.connect_latency, nrows(t));
	return t->skel->obj;
}

static int load_object(void *ctx)
{
	struct tcp *t = ctx;

	return tcp_bpf__load(t->skel);
}

static void close_object(void *ctx)
{
	struct tcp *t = ctx;

	tcp_bpf__destroy(t->skel);
	t->skel = NULL;
}

static int init_readers(struct tcp *t)
{
	int err = percpu_reader_init(&t->counts_reader, bpf_map__fd(t->skel->maps.counts), nrows(t),
				     sizeof(struct tcp_counts));

	if (!err)
		err = percpu_reader_init_prefix(&t->latency_reader, bpf_map__fd(t->skel->maps.connect_latency),
						nrows(t), HIST_ROW_SIZE(t->precision), sizeof(struct hist_row));
	hist_tracker_init(t->trackers, TCP_ROWS, t->precision);
	if (!err)
		err = percpu_reader_init(&t->stats_reader, bpf_map__fd(t->skel->maps.stats), TCP_STAT_COUNT,
					 sizeof(uint64_t));
	return err;
}

/* PortBreakdown and Ports only make sense together. */
static int tcp_check_config(struct module *m, char *err, size_t errlen)
{
	struct tcp *t = m->priv;

	if (t->mode != TCP_PORTS_NONE && t->nports == 0) {
		snprintf(err, errlen, "PortBreakdown needs the ports to break down: add e.g. Ports 80 443 "
				      "(other ports are counted as \"other\")");
		return -1;
	}
	if (t->mode == TCP_PORTS_NONE && t->nports > 0) {
		snprintf(err, errlen, "Ports needs PortBreakdown \"local\" or \"remote\" to say which port of a "
				      "connection to match");
		return -1;
	}
	return 0;
}

static int tcp_start(struct module *m, char *err, size_t errlen)
{
	struct tcp *t = m->priv;
	struct probe_object po = { .ctx = t, .open = open_object, .load = load_object, .close = close_object };
	bool socketless_resets;
	int e;

	t->filter_tgid = m->filter_tgid;
	t->precision = hist_config_precision(&m->hist, nrows(t));
	read_kernel_facts(t, &socketless_resets);
	if (probe_set_start(&m->probes, &po, err, errlen))
		return -1;
	/* Said once, since resets_sent then reads low. */
	if (!socketless_resets)
		ebpf_log(EBPF_LOG_INFO,
			 "%s: this kernel's tcp_send_reset does not fire for resets sent without a socket "
			 "(to closed ports; it does since 6.10): resets_sent counts resets of existing "
			 "connections only",
			 m->label);
	e = init_readers(t);
	if (e) {
		snprintf(err, errlen, "cannot set up map readers: %s", strerror(-e));
		return -1;
	}
	ebpf_log(EBPF_LOG_INFO, "%s: counting retransmits, resets and connect latency%s%s", m->label,
		 t->mode == TCP_PORTS_LOCAL ? " per local port" : t->mode == TCP_PORTS_REMOTE ? " per remote port" : "",
		 t->filter_tgid ? " (connects of one process)" : "");
	return 0;
}

/* "" without a breakdown; the port, or "other" for row 0, with one. */
static const char *row_name(const struct tcp *t, int row, char *buf, size_t len)
{
	if (t->mode == TCP_PORTS_NONE)
		snprintf(buf, len, "%s", "");
	else if (row == 0)
		snprintf(buf, len, "other");
	else
		snprintf(buf, len, "%u", t->ports[row - 1]);
	return buf;
}

static void emit_counter(const struct metric_sink *sink, const char *metric, const char *instance, uint64_t v)
{
	if (v) /* only series with data */
		sink->counter(sink->ctx, metric, instance, v);
}

static void emit_row(struct tcp *t, int row, const struct metric_sink *sink)
{
	const struct tcp_counts *c = &t->counts[row];
	const struct hist_row *l = &t->latency[row];
	char name[16], hname[32];
	struct hist_interval h;

	row_name(t, row, name, sizeof(name));
	emit_counter(sink, "retransmits", name, c->retransmits);
	emit_counter(sink, "retransmit_failures", name, c->retransmit_failures);
	emit_counter(sink, "resets_sent", name, c->resets_sent);
	emit_counter(sink, "resets_received", name, c->resets_received);
	hist_advance(&t->trackers[row], (const uint64_t *)l->slots, l->sum, &h);
	snprintf(hname, sizeof(hname), "connect%s%s", name[0] ? "-" : "", name);
	if (h.total_count)
		sink->histogram(sink->ctx, "latency", hname, HIST_UNIT_NANOSECONDS, &h);
}

static int tcp_read(struct module *m, const struct metric_sink *sink)
{
	struct tcp *t = m->priv;
	int err;

	err = percpu_reader_read(&t->counts_reader, (uint64_t *)t->counts);
	if (!err)
		err = percpu_reader_read(&t->latency_reader, (uint64_t *)t->latency);
	if (!err)
		err = percpu_reader_read(&t->stats_reader, t->stats);
	if (err)
		return err;
	for (int row = 0; row < nrows(t); row++)
		emit_row(t, row, sink);
	emit_counter(sink, "connect_failures", "", t->stats[TCP_STAT_CONNECT_FAILED]);
	/* Always sent, so that "nothing lost" is visible as a zero. */
	sink->counter(sink->ctx, "dropped", "connect_start_lost", t->stats[TCP_STAT_CONNECT_START_LOST]);
	return 0;
}

static void tcp_destroy(struct module *m)
{
	struct tcp *t = m->priv;

	if (!t)
		return;
	probe_set_stop(&m->probes);
	if (t->skel)
		close_object(t);
	percpu_reader_free(&t->counts_reader);
	percpu_reader_free(&t->latency_reader);
	percpu_reader_free(&t->stats_reader);
	free(t);
	m->priv = NULL;
}

const struct module_ops tcp_module = {
	.name = "tcp",
	.description = "TCP retransmits, resets sent and received, connect latency; optionally per port",
	.in_default_set = false,
	.option_names = option_names,
	.create = tcp_create,
	.set_option = tcp_set_option,
	.check_config = tcp_check_config,
	.start = tcp_start,
	.read = tcp_read,
	.destroy = tcp_destroy,
};
