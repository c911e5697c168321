#include "plugin/snapshot_options.h"

#include "snapshot/snapshot_file.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void snapshot_config_init(struct snapshot_config *c)
{
	snprintf(c->path, sizeof(c->path), "%s", SNAPSHOT_DEFAULT_PATH);
	c->group[0] = '\0';
	c->gid = (gid_t)-1;
}

static int set_path(struct snapshot_config *c, const struct option *o, char *err, size_t errlen)
{
	const char *p;

	if (o->nvalues != 1 || o->values[0].type != OPT_STRING) {
		snprintf(err, errlen, "SnapshotFile takes one quoted path, e.g. SnapshotFile \"%s\" "
			 "(or \"\" to publish nothing for SNMP)", SNAPSHOT_DEFAULT_PATH);
		return -1;
	}
	p = o->values[0].string;
	if (p[0] && p[0] != '/') {
		snprintf(err, errlen, "SnapshotFile \"%s\" is not an absolute path; use e.g. \"%s\"", p,
			 SNAPSHOT_DEFAULT_PATH);
		return -1;
	}
	if (p[0] && p[strlen(p) - 1] == '/') {
		snprintf(err, errlen, "SnapshotFile \"%s\" names a directory; add a file name, e.g. \"%ssnapshot\"", p, p);
		return -1;
	}
	if (strlen(p) >= sizeof(c->path) - 16) {
		snprintf(err, errlen, "SnapshotFile is too long (at most %zu characters)", sizeof(c->path) - 17);
		return -1;
	}
	snprintf(c->path, sizeof(c->path), "%s", p);
	return 1;
}

/* The gid of a group; 0, or an errno (ENOENT: no such group). getgrnam_r needs room for
 * every member name, and a site's big group outgrows any fixed buffer (ERANGE): grow it. */
static int lookup_gid(const char *name, gid_t *gid)
{
	struct group grp, *found = NULL;
	size_t len = 4096;
	char *buf = NULL;
	int e;

	do {
		char *bigger = realloc(buf, len);

		if (!bigger) {
			e = ENOMEM;
			break;
		}
		buf = bigger;
		e = getgrnam_r(name, &grp, buf, len, &found);
		len *= 2;
	} while (e == ERANGE && len <= (64u << 20));
	if (!e && found)
		*gid = found->gr_gid;
	free(buf);
	return e ? e : found ? 0 : ENOENT;
}

static int set_group(struct snapshot_config *c, const struct option *o, char *err, size_t errlen)
{
	const char *name;
	gid_t gid;
	int e;

	if (o->nvalues != 1 || o->values[0].type != OPT_STRING || !o->values[0].string[0]) {
		snprintf(err, errlen, "SnapshotGroup takes one quoted group name, e.g. SnapshotGroup \"ebpf-snmp\" "
			 "(the group the SNMP subagent runs as)");
		return -1;
	}
	name = o->values[0].string;
	e = lookup_gid(name, &gid);
	if (e == ENOENT) {
		snprintf(err, errlen, "SnapshotGroup: there is no group \"%s\" on this host; create it "
			 "(addgroup --system %s) or name an existing one", name, name);
		return -1;
	}
	if (e) {
		snprintf(err, errlen, "SnapshotGroup: cannot look up group \"%s\": %s", name, strerror(e));
		return -1;
	}
	snprintf(c->group, sizeof(c->group), "%s", name);
	c->gid = gid;
	return 1;
}

int snapshot_config_option(struct snapshot_config *c, const struct option *o, char *err, size_t errlen)
{
	if (!strcasecmp(o->key, "SnapshotFile"))
		return set_path(c, o, err, errlen);
	if (!strcasecmp(o->key, "SnapshotGroup"))
		return set_group(c, o, err, errlen);
	return 0;
}
