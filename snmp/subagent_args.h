/* Command line of ebpf-subagent. Pure parsing, no net-snmp, so it is unit-tested. */
#ifndef EBPF_SNMP_SUBAGENT_ARGS_H
#define EBPF_SNMP_SUBAGENT_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* experimental.3273: net-snmp's experimental arc; production sites use their own PEN. */
#define SUBAGENT_DEFAULT_BASE_OID "1.3.6.1.3.3273"
#define SUBAGENT_DEFAULT_PING 5
/* Six of collectd's default 10 s Intervals: a few late reads are not yet "stale". */
#define SUBAGENT_DEFAULT_STALE_AFTER 60
#define SUBAGENT_MAX_BASE_OID 32

struct subagent_args {
	const char *snapshot;     /* the plugin's SnapshotFile */
	const char *agentx_socket; /* default AGENTX_DEFAULT_SOCKET (agentx_probe.h) */
	uint32_t base[SUBAGENT_MAX_BASE_OID];
	size_t base_len;
	int ping_interval;        /* seconds between AgentX pings, and between reconnects */
	int stale_after;          /* seconds after which an unchanged snapshot is stale; 0: never */
	bool syslog;              /* log to syslog instead of stderr */
	bool debug;               /* net-snmp's AgentX debug output */
	bool help, version;
};

/* 0: run (or print help/version if set); -1: err holds "option: what is wrong; the fix". */
int subagent_args_parse(int argc, char **argv, struct subagent_args *out, char *err, size_t errlen);
/* "1.3.6.1.4.1.99999" into ids; 0 or -1. At least two arcs, each below 2^32. */
int subagent_parse_oid(const char *s, uint32_t *ids, size_t max, size_t *len);
extern const char subagent_usage[];

#endif
