/* The `tcp` module: retransmissions (skbs resent), resets sent and received, and the connect
 * latency distribution (SYN sent to established), optionally per local or remote port
 * for a capped list of ports (everything else is "other"), and optionally per cgroup of
 * the socket (By "cgroup", cgroup_rows.h), the port rows within each cgroup. */
#include "libcore/engine/module.h"

#include "base/log.h"
#include "libcore/engine/module_cgroup.h"
#include "libcore/kernel/btf_facts.h"
#include "tcp.h"
#include "tcp.skel.h"

MODULE_SKELETON(tcp);

#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct module_point points[] = {
	[TCP_POINT_RETRANSMIT] = MODULE_WITNESSED_TRACEPOINT("tcp_retransmit_skb", retransmit),
	[TCP_POINT_SEND_RESET] = MODULE_WITNESSED_TRACEPOINT("tcp_send_reset", send_reset),
	[TCP_POINT_RECEIVE_RESET] = MODULE_WITNESSED_TRACEPOINT("tcp_receive_reset", receive_reset),
	[TCP_POINT_STATE] = MODULE_WITNESSED_TRACEPOINT("inet_sock_set_state", state),
};

struct tcp {
	bool retransmit_has_err;
	bool socketless_resets;
	/* configuration */
	enum tcp_port_mode mode;
	int nports;
	uint16_t ports[TCP_MAX_PORTS]; /* row i + 1 is ports[i] */
	char port_names[TCP_MAX_PORTS][8];
	/* By "cgroup": its tables (sized at prepare) and the rest */
	struct cgroup_table cg_tables[2];
};

static const struct module_option options[] = { { "PortBreakdown" }, { "Ports" }, CGROUP_HIST_OPTION_KEYS, { NULL } };

/* Rows: one without a breakdown; with one, row 0 "other" and a row per listed port (the
 * maps are sized so at open). Only series with data. */
#define TCP_COUNT_FIELDS                                                                             \
	{ "retransmits", VALUE_COUNTER, offsetof(struct tcp_counts, retransmits) },                   \
	{ "retransmit_failures", VALUE_COUNTER, offsetof(struct tcp_counts, retransmit_failures) },   \
	{ "resets_sent", VALUE_COUNTER, offsetof(struct tcp_counts, resets_sent) },                   \
	{ "resets_received", VALUE_COUNTER, offsetof(struct tcp_counts, resets_received) }

static const struct view_field count_fields[] = { TCP_COUNT_FIELDS };

/* Per cgroup the same counts (struct tcp_counts leads the value) and the failed connects,
 * named as the host-wide stat. */
static const struct view_field cgroup_count_fields[] = {
	TCP_COUNT_FIELDS,
	{ "connect_failures", VALUE_COUNTER, offsetof(struct tcp_cgroup_counts, connect_failures) },
};

static const struct view_field latency_fields[] = {
	{ "latency", VALUE_HISTOGRAM, 0, HIST_UNIT_NANOSECONDS, .instance_prefix = "connect" },
};

enum { FEATURE_PORTS = 1 };

static const struct view_row stat_rows[] = {
	{ TCP_STAT_CONNECT_FAILED, "connect_failures", "" },
	/* Always sent, so that "nothing lost" is visible as a zero. */
	{ TCP_STAT_CONNECT_START_LOST, "dropped", "connect_start_lost", VIEW_ALWAYS },
};

/* Without a breakdown no label (the instance ""); with one the rows' ports, named at start. */
static const struct view_label port_labels[] = { ROW_LABEL("port", .needs = FEATURE_PORTS) };

enum { VIEW_COUNTS, VIEW_LATENCY };
static const struct map_view views[] = {
	[VIEW_COUNTS] = { .map = MAP_NAME(counts), .shape = VIEW_PERCPU_ARRAY, .value_size = sizeof(struct tcp_counts),
			  VIEW_LABELLED_FIELDS(port_labels, count_fields) },
	[VIEW_LATENCY] = { .map = MAP_NAME(connect_latency), .shape = VIEW_PERCPU_ARRAY, .value_size = sizeof(struct hist_row),
			   VIEW_LABELLED_FIELDS(port_labels, latency_fields) },
	{ VIEW_PERCPU_COUNTERS(MAP_NAME(stats), TCP_STAT_COUNT, stat_rows) },
	MODULE_CGROUP_FULL_VIEW,
};

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
	return 0;
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
	return 0;
}

static int tcp_set_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	struct tcp *t = m->priv;

	if (!strcasecmp(o->key, "PortBreakdown"))
		return set_port_breakdown(t, o, err, errlen);
	return set_ports(t, o, err, errlen);
}

static int nrows(const struct tcp *t)
{
	return t->mode == TCP_PORTS_NONE ? 1 : t->nports + 1;
}

/* Port rows the per-cgroup tables are sized for per cgroup: a service talks to or listens
 * on a few of the listed ports (one that uses more fills the shared tables sooner, and
 * cgroup_full counts what found no room). */
#define CGROUP_PORT_ROWS 8

/* Row r's name: "" without a breakdown, else "other" or its port (named at prepare). */
static const char *port_row_name(const struct tcp *t, uint32_t row)
{
	if (t->mode == TCP_PORTS_NONE)
		return "";
	return row == 0 ? "other" : t->port_names[row - 1];
}

static const char *cgroup_count_row_name(const struct module *m, uint32_t row, char *buf, size_t len)
{
	return port_row_name(m->priv, row);
}

/* As the host-wide histograms are named: "connect", "connect-443", "connect-other". */
static const char *cgroup_latency_row_name(const struct module *m, uint32_t row, char *buf, size_t len)
{
	const char *name = port_row_name(m->priv, row);

	snprintf(buf, len, "connect%s%s", name[0] ? "-" : "", name);
	return buf;
}

/* The per-cgroup tables: rows as the host-wide maps', keyed by cgroup too. */
static void size_cgroup_tables(struct module *m, struct tcp *t)
{
	uint32_t rows = (uint32_t)nrows(t), per_cgroup = rows < CGROUP_PORT_ROWS ? rows : CGROUP_PORT_ROWS;

	t->cg_tables[0] = (struct cgroup_table){ .map = MAP_NAME(cgroup_counts), .fields = cgroup_count_fields,
						 .nfields = COUNT_OF(cgroup_count_fields), .nrows = rows,
						 .rows_per_cgroup = per_cgroup, .row_instance = cgroup_count_row_name,
						 .row_label = "port" };
	t->cg_tables[1] = (struct cgroup_table){ .map = MAP_NAME(cgroup_latency), .hist_metric = "latency",
						 .unit = HIST_UNIT_NANOSECONDS, .nrows = rows, .rows_per_cgroup = per_cgroup,
						 .row_instance = cgroup_latency_row_name };
	module_cgroup_tables(m->cgroup, t->cg_tables, COUNT_OF(t->cg_tables), NULL);
}

/* What the running kernel's BTF says, from one read of it: recent kernels added `err` to
 * tcp_retransmit_skb; and tcp_send_reset fires for resets that answer a segment no socket
 * wanted (a connect to a closed port) only since it got a record type of its own (6.10),
 * before that only for resets of an existing socket. Without BTF: neither. */
static int tcp_prepare(struct module *m, char *err, size_t errlen)
{
	struct tcp *t = m->priv;
	struct btf *btf = btf_facts_open();

	t->retransmit_has_err = btf && btf_tracepoint_nargs(btf, "tcp_retransmit_skb") >= 3;
	t->socketless_resets = !btf || btf_has_struct(btf, "trace_event_raw_tcp_send_reset");
	btf_facts_close(btf);
	for (int i = 0; i < t->nports; i++)
		snprintf(t->port_names[i], sizeof(t->port_names[i]), "%u", t->ports[i]);
	size_cgroup_tables(m, t);
	/* connect_latency and cgroup_latency are sized to them in configure */
	m->hist_rows = (uint32_t)nrows(t);
	m->features = t->mode == TCP_PORTS_NONE ? 0 : FEATURE_PORTS;
	return 0;
}

static int tcp_configure(struct module *m, struct bpf_object *obj, char *err, size_t errlen)
{
	struct tcp *t = m->priv;
	uint8_t *port_mode = MODULE_RODATA(obj, port_mode);
	uint8_t *port_row = MODULE_RODATA_ARRAY(obj, port_row);
	bool *retransmit_has_err = MODULE_RODATA(obj, retransmit_has_err);
	int e;

	if (!port_mode || !port_row || !retransmit_has_err)
		return module_hook_fail(err, errlen, "its BPF object lacks the tcp module's rodata (a stale build?)");
	*port_mode = t->mode;
	*retransmit_has_err = t->retransmit_has_err;
	if (t->mode != TCP_PORTS_NONE)
		for (int i = 0; i < t->nports; i++)
			port_row[t->ports[i]] = i + 1;
	e = bpf_map__set_max_entries(MODULE_MAP(obj, counts), nrows(t));
	if (!e)
		e = bpf_map__set_max_entries(MODULE_MAP(obj, connect_latency), nrows(t));
	return e ? module_hook_fail(err, errlen, "cannot size its maps: %s", strerror(-e)) : 0;
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

/* With a breakdown, row 0 is "other" and row i port i - 1. */
static int name_port_rows(struct module *m, char *err, size_t errlen)
{
	const struct tcp *t = m->priv;
	const char *names[TCP_MAX_PORTS + 1];

	for (uint32_t r = 0; r <= (uint32_t)t->nports; r++)
		names[r] = port_row_name(t, r);
	if (view_label_names(m, VIEW_COUNTS, 0, names, (uint32_t)t->nports + 1, err, errlen))
		return -1;
	return view_label_names(m, VIEW_LATENCY, 0, names, (uint32_t)t->nports + 1, err, errlen);
}

static int tcp_start(struct module *m, char *err, size_t errlen)
{
	struct tcp *t = m->priv;

	if (name_port_rows(m, err, errlen))
		return -1;

	/* Said once, since resets_sent then reads low. */
	if (!t->socketless_resets)
		ebpf_log(EBPF_LOG_INFO,
			 "%s: this kernel's tcp_send_reset does not fire for resets sent without a socket "
			 "(to closed ports; it does since 6.10): resets_sent counts resets of existing "
			 "connections only",
			 m->label);
	ebpf_log(EBPF_LOG_INFO, "%s: counting retransmits, resets and connect latency%s%s", m->label,
		 t->mode == TCP_PORTS_LOCAL ? " per local port" : t->mode == TCP_PORTS_REMOTE ? " per remote port" : "",
		 m->filter_tgid ? " (connects of one process)" : "");
	return 0;
}

const struct module_ops tcp_module = {
	.name = "tcp",
	.description = "TCP retransmits, resets sent and received, connect latency; optionally per port and per cgroup",
	.options = options,
	.priv_size = sizeof(struct tcp),
	MODULE_OBJECT(tcp),
	MODULE_BY_CGROUP, /* its tables at prepare, sized from Ports */
	.cgroup_whose = " of the socket",
	.set_option = tcp_set_option,
	.check_config = tcp_check_config,
	.prepare = tcp_prepare,
	.configure = tcp_configure,
	.start = tcp_start,
};
