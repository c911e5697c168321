/* Sends the snapshot's new events as SNMP notifications (send_v2trap(): over AgentX to
 * snmpd, which forwards them to its trap2sink, informsink and trapsess destinations). */
#ifndef EBPF_SNMP_EVENT_TRAPS_H
#define EBPF_SNMP_EVENT_TRAPS_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "event_notify.h"

/* Every event of s that c has not seen, in order; c moves past each. Returns how many
 * were sent. */
int event_traps_send(struct event_cursor *c, const struct snapshot *s, const oid *base, size_t base_len);

#endif
