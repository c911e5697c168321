/* Why the subagent is not connected to snmpd: net-snmp's own message is
 * "Failed to connect to the agentx master agent ([NIL]):", without a reason. This tries
 * the unix socket itself and says what is wrong and what to do. No net-snmp, unit-tested. */
#ifndef EBPF_SNMP_AGENTX_PROBE_H
#define EBPF_SNMP_AGENTX_PROBE_H

#include <stddef.h>

/* Debian's snmpd.service and init script create /run/agentx for the socket (our
 * contrib/snmpd.conf.snippet puts it there with agentXSocket); net-snmp's compiled-in
 * default, used when snmpd.conf has no agentXSocket, is /var/agentx/master. */
#define AGENTX_DEFAULT_SOCKET "/run/agentx/master"
#define AGENTX_NETSNMP_SOCKET "/var/agentx/master"

/* 0: a unix socket at addr accepts connections. 1: it does not, and buf says why and how
 * to fix it. -1: addr is not a unix socket path (tcp:host:port): nothing to probe. */
int agentx_probe(const char *addr, char *buf, size_t len);

#endif
