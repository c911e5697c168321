/* ebpf-subagent: serves the collectd ebpf plugin's snapshot file over SNMP, as an AgentX
 * subagent of snmpd (COLLECTD-EBPF-MIB).
 *
 * A process of its own: net-snmp's agent library is not thread-safe and collectd may load
 * its own snmp plugins, so nothing of net-snmp runs inside collectd. It runs unprivileged
 * (it only reads a 0640 file), blocks in net-snmp's event loop, and reconnects to snmpd
 * by itself after snmpd restarts. It loads no MIB files and no configuration files.
 *
 * Once a second it also rereads the snapshot if it changed and sends the events the plugin
 * recorded there since the subagent started as SNMP notifications, each once (event_traps.c);
 * while snmpd is not connected they wait (the file keeps the last SNAPSHOT_MAX_EVENTS).
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "agentx_handler.h"
#include "agentx_probe.h"
#include "event_traps.h"
#include "snapshot_cache.h"
#include "subagent_args.h"
#include "base/text_append.h"
#include "base/text_rule.h"
#include "base/err_max.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define APP_NAME "ebpf-subagent"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* What the snapshot cache says may quote the file: shown under base/text_rule.h's rule. */
static void report(bool ok, const char *msg)
{
	char shown[2048];

	text_clean(shown, sizeof(shown), msg, TEXT_SHOW);
	snmp_log(ok ? LOG_NOTICE : LOG_WARNING, APP_NAME ": %s\n", shown);
}

/* Everything net-snmp would read or write on its own is turned off: the subagent needs no
 * MIB files (OIDs are numeric), no snmp.conf, and keeps no persistent state. */
static void configure_netsnmp(const struct subagent_args *a)
{
	setenv("MIBS", "", 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, 1); /* subagent */
	netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET, a->agentx_socket);
	if (a->syslog)
		snmp_enable_syslog_ident(APP_NAME, LOG_DAEMON);
	else
		snmp_enable_stderrlog();
	if (a->debug) {
		debug_register_tokens("agentx");
		snmp_set_do_debugging(1);
	}
}

/* net-snmp's AgentX session with snmpd: NULL while not connected (agentx/subagent.c sets
 * it when the master accepts us and clears it when the connection is lost; its reconnect
 * timer retries every ping interval). Exported by libnetsnmpagent, not declared in its
 * headers. */
extern netsnmp_session *main_session;

/* Says once per change whether the subagent is connected, and when not, why (net-snmp's
 * own "Failed to connect to the agentx master agent ([NIL])" gives no reason). */
static void report_connection(unsigned int reg, void *arg)
{
	static int was = -1; /* unknown */
	const struct subagent_args *a = arg;
	int now = main_session != NULL;
	char why[ERR_MAX];

	(void)reg;
	if (now == was)
		return;
	was = now;
	if (now) {
		snmp_log(LOG_NOTICE, APP_NAME ": connected to snmpd's AgentX master at %s\n", a->agentx_socket);
		return;
	}
	if (agentx_probe(a->agentx_socket, why, sizeof(why)) != 1)
		snprintf(why, sizeof(why), "snmpd at %s did not accept the AgentX session", a->agentx_socket);
	snmp_log(LOG_WARNING, APP_NAME ": not connected to snmpd: %s. Retrying every %d s\n", why, a->ping_interval);
}

struct event_sender {
	struct snapshot_cache *cache;
	struct event_cursor cursor;
	oid base[MAX_OID_LEN];
	size_t base_len;
};

static void send_events(unsigned int reg, void *arg)
{
	struct event_sender *es = arg;

	(void)reg;
	if (!main_session)
		return;
	snapshot_cache_refresh(es->cache);
	if (es->cache->status == MIB_SNAPSHOT_OK || es->cache->status == MIB_SNAPSHOT_STALE)
		event_traps_send(&es->cursor, &es->cache->snap, es->base, es->base_len);
}

static void format_oid(const struct subagent_args *a, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < a->base_len; i++)
		text_appendf(buf, len, &used, "%s%u", i ? "." : "", a->base[i]);
}

int main(int argc, char **argv)
{
	struct subagent_args args;
	struct snapshot_cache cache;
	struct event_sender events = { .cache = &cache };
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART: select() returns */
	char err[ERR_MAX], oidbuf[256];

	if (subagent_args_parse(argc, argv, &args, err, sizeof(err))) {
		fprintf(stderr, APP_NAME ": %s\n", err);
		return 2;
	}
	if (args.help) {
		fputs(subagent_usage, stdout);
		return 0;
	}
	if (args.version) {
		printf(APP_NAME " %s (net-snmp %s)\n", EBPF_VERSION, netsnmp_get_version());
		return 0;
	}
	configure_netsnmp(&args);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	event_cursor_init(&events.cursor, snapshot_now_us());
	snapshot_cache_init(&cache, args.snapshot, MIB_MAX_OID - args.base_len, report);
	cache.stale_after = args.stale_after;
	snapshot_cache_refresh(&cache); /* says at once whether the snapshot can be read */

	init_agent(APP_NAME);
	/* init_agent() resets the ping interval, and init_snmp() opens the AgentX session and
	 * arms the reconnect timer from it: so it is set here, in between. */
	netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL, args.ping_interval);
	if (agentx_handler_register(args.base, args.base_len, &cache)) {
		snmp_log(LOG_ERR, APP_NAME ": cannot register the MIB subtree\n");
		return 1;
	}
	init_snmp(APP_NAME);
	format_oid(&args, oidbuf, sizeof(oidbuf));
	snmp_log(LOG_NOTICE, APP_NAME ": serving %s under %s via AgentX %s (reconnects every %d s)\n", args.snapshot,
		 oidbuf, args.agentx_socket, args.ping_interval);
	report_connection(0, &args);
	snmp_alarm_register(1, SA_REPEAT, report_connection, &args);
	for (size_t i = 0; i < args.base_len && i < MAX_OID_LEN; i++)
		events.base[events.base_len++] = args.base[i];
	snmp_alarm_register(1, SA_REPEAT, send_events, &events);

	/* Blocks until a request, a timer (ping, reconnect) or a signal. */
	while (!stop)
		agent_check_and_process(1);

	snmp_log(LOG_NOTICE, APP_NAME ": stopping\n");
	snmp_shutdown(APP_NAME);
	shutdown_agent();
	snapshot_cache_free(&cache);
	return 0;
}
