/* net-snmp glue: one read-only handler for the whole COLLECTD-EBPF-MIB subtree, which
 * answers GET and GETNEXT from the snapshot cache (GETBULK arrives as GETNEXTs through
 * net-snmp's bulk_to_next helper). It reads a file, never a kernel map, and never waits
 * on collectd. */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "agentx_handler.h"
#include "snapshot/snapshot_file.h"

#include <string.h>
#include <sys/time.h>

static struct snapshot_cache *cache;
static oid base[MAX_OID_LEN];
static size_t base_len;

static void set_value(netsnmp_variable_list *vb, const struct mib_value *v)
{
	struct counter64 c64;
	long l;
	u_long u;

	switch (v->type) {
	case MIB_INTEGER:
		l = (long)v->num;
		snmp_set_var_typed_value(vb, ASN_INTEGER, &l, sizeof(l));
		break;
	case MIB_STRING:
		snmp_set_var_typed_value(vb, ASN_OCTET_STR, v->str, strlen(v->str));
		break;
	case MIB_COUNTER64:
		c64.high = (u_long)(v->num >> 32);
		c64.low = (u_long)(v->num & 0xffffffffu);
		snmp_set_var_typed_value(vb, ASN_COUNTER64, &c64, sizeof(c64));
		break;
	default:
		u = (u_long)v->num;
		snmp_set_var_typed_value(vb, v->type == MIB_COUNTER32 ? ASN_COUNTER :
					 v->type == MIB_TIMETICKS ? ASN_TIMETICKS : ASN_GAUGE,
					 &u, sizeof(u));
		break;
	}
}

/* The request's OID relative to our base. Returns 1 inside (or at) the base, 0 before it,
 * -1 after the subtree. */
static int relative_oid(const oid *name, size_t len, uint32_t *rel, size_t *rel_len)
{
	int c = snmp_oid_ncompare(name, len, base, base_len, base_len);

	*rel_len = 0;
	if (c != 0 || len < base_len)
		return c < 0 || (c == 0 && len < base_len) ? 0 : -1;
	for (size_t i = base_len; i < len && *rel_len < MIB_MAX_SUFFIX; i++)
		rel[(*rel_len)++] = name[i] > UINT32_MAX ? UINT32_MAX : (uint32_t)name[i];
	return 1;
}

static void answer_get(netsnmp_agent_request_info *reqinfo, netsnmp_request_info *r, const struct mib_env *env)
{
	uint32_t rel[MIB_MAX_SUFFIX];
	size_t rel_len;
	struct mib_value v;
	enum mib_lookup found = MIB_NO_SUCH_OBJECT;

	if (relative_oid(r->requestvb->name, r->requestvb->name_length, rel, &rel_len) == 1)
		found = mib_tree_get(&cache->view, env, rel, rel_len, &v);
	if (found == MIB_FOUND)
		set_value(r->requestvb, &v);
	else
		netsnmp_set_request_error(reqinfo, r, found == MIB_NO_SUCH_INSTANCE ? SNMP_NOSUCHINSTANCE : SNMP_NOSUCHOBJECT);
}

static void answer_getnext(netsnmp_request_info *r, const struct mib_env *env)
{
	uint32_t rel[MIB_MAX_SUFFIX], next[MIB_MAX_SUFFIX];
	size_t rel_len, next_len;
	oid full[MAX_OID_LEN];
	struct mib_value v;
	int where = relative_oid(r->requestvb->name, r->requestvb->name_length, rel, &rel_len);

	/* Before the base: the first object; after the subtree: not ours, the agent moves on
	 * (a request left without a value means "nothing here"). */
	if (where < 0 || mib_tree_next(&cache->view, env, rel, rel_len, where == 0 || r->inclusive, next,
				       &next_len, &v) != MIB_FOUND)
		return;
	if (base_len + next_len > MAX_OID_LEN)
		return;
	memcpy(full, base, base_len * sizeof(oid));
	for (size_t i = 0; i < next_len; i++)
		full[base_len + i] = next[i];
	snmp_set_var_objid(r->requestvb, full, base_len + next_len);
	set_value(r->requestvb, &v);
}

static int handle(netsnmp_mib_handler *handler, netsnmp_handler_registration *reginfo,
		  netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	struct mib_env env = { .uptime_cs = (uint32_t)netsnmp_get_agent_uptime(), .now_us = snapshot_now_us() };

	/* One stat() per request PDU; the file is reread only when the plugin replaced it. */
	snapshot_cache_refresh(cache);
	for (netsnmp_request_info *r = requests; r; r = r->next) {
		if (r->processed)
			continue;
		if (reqinfo->mode == MODE_GET)
			answer_get(reqinfo, r, &env);
		else if (reqinfo->mode == MODE_GETNEXT)
			answer_getnext(r, &env);
		else
			netsnmp_set_request_error(reqinfo, r, SNMP_ERR_NOTWRITABLE);
	}
	return SNMP_ERR_NOERROR;
}

int agentx_handler_register(const uint32_t *base_oid, size_t len, struct snapshot_cache *c)
{
	netsnmp_handler_registration *reg;

	cache = c;
	base_len = len;
	for (size_t i = 0; i < len; i++)
		base[i] = base_oid[i];
	reg = netsnmp_create_handler_registration("collectd-ebpf", handle, base, base_len, HANDLER_CAN_RONLY);
	if (!reg)
		return -1;
	return netsnmp_register_handler(reg) == MIB_REGISTERED_OK ? 0 : -1;
}
