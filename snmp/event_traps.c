#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "event_traps.h"

#include "base/text_rule.h"

#include <string.h>

static const oid snmp_trap_oid[] = { 1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0 }; /* snmpTrapOID.0 */

static const char *const notification_names[] = {
	[EVENT_NOTIFY_OOM_KILL] = "ebpfOomKill",
	[EVENT_NOTIFY_MODULE_STATE] = "ebpfModuleStateChange",
	[EVENT_NOTIFY_DROPS] = "ebpfDropsChange",
	[EVENT_NOTIFY_UNTRACED] = "ebpfUntracedChange",
	[EVENT_NOTIFY_NOT_SENT] = "ebpfEventsNotSent",
};

static void add_varbind(netsnmp_variable_list **vars, const oid *base, size_t base_len, const struct event_varbind *vb)
{
	oid name[MAX_OID_LEN];
	size_t len = base_len;
	struct counter64 c64;
	u_long u;
	long l;

	memcpy(name, base, base_len * sizeof(oid));
	name[len++] = 1;
	name[len++] = EVENT_OBJECTS_ARC;
	name[len++] = vb->object;
	name[len++] = 0;
	switch (vb->type) {
	case EVENT_VB_UNSIGNED32:
		u = (u_long)vb->num;
		snmp_varlist_add_variable(vars, name, len, ASN_UNSIGNED, &u, sizeof(u));
		break;
	case EVENT_VB_INTEGER:
		l = (long)vb->num;
		snmp_varlist_add_variable(vars, name, len, ASN_INTEGER, &l, sizeof(l));
		break;
	case EVENT_VB_COUNTER64:
		c64.high = (u_long)(vb->num >> 32);
		c64.low = (u_long)(vb->num & 0xffffffffu);
		snmp_varlist_add_variable(vars, name, len, ASN_COUNTER64, &c64, sizeof(c64));
		break;
	case EVENT_VB_STRING:
		snmp_varlist_add_variable(vars, name, len, ASN_OCTET_STR, vb->str, strlen(vb->str));
		break;
	}
}

int event_traps_send(struct event_cursor *c, const struct snapshot *s, const oid *base, size_t base_len)
{
	int sent = 0;

	if (base_len + 4 > MAX_OID_LEN)
		return 0;
	for (int i = 0; i < s->nevents; i++) {
		const struct snapshot_event *e = &s->events[i];
		struct event_notification n;
		netsnmp_variable_list *vars = NULL;
		oid trap[MAX_OID_LEN];
		size_t len = base_len;
		char shown[1024]; /* what the log shows of the snapshot's text: base/text_rule.h */

		if (!event_cursor_is_new(c, e))
			continue;
		event_cursor_sent(c, e);
		if (event_notification(e, &n)) {
			text_clean(shown, sizeof(shown), e->kind, TEXT_SHOW);
			snmp_log(LOG_WARNING, "ebpf-subagent: event %llu of kind \"%s\" has no notification in this MIB\n",
				 (unsigned long long)e->seq, shown);
			continue;
		}
		memcpy(trap, base, base_len * sizeof(oid));
		trap[len++] = 0;
		trap[len++] = n.number;
		snmp_varlist_add_variable(&vars, snmp_trap_oid, OID_LENGTH(snmp_trap_oid), ASN_OBJECT_ID, trap,
					  len * sizeof(oid));
		for (int v = 0; v < n.nvarbinds; v++)
			add_varbind(&vars, base, base_len, &n.vb[v]);
		send_v2trap(vars);
		snmp_free_varbind(vars);
		text_clean(shown, sizeof(shown), e->message, TEXT_SHOW);
		snmp_log(LOG_INFO, "ebpf-subagent: sent %s for event %llu: %s\n", notification_names[n.number],
			 (unsigned long long)e->seq, shown);
		sent++;
	}
	return sent;
}
