/* Registers the read-only handler of COLLECTD-EBPF-MIB at base_oid (once: net-snmp sends
 * the registration again by itself after reconnecting to snmpd). */
#ifndef EBPF_SNMP_AGENTX_HANDLER_H
#define EBPF_SNMP_AGENTX_HANDLER_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot_cache.h"

int agentx_handler_register(const uint32_t *base_oid, size_t len, struct snapshot_cache *cache);

#endif
