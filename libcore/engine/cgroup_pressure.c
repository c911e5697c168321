/* Pressure beside the per-cgroup rows (cgroup_pressure.h). */
#include "libcore/engine/cgroup_pressure.h"

#include "base/log.h"
#include "libcore/engine/cgroup_group.h"
#include "libcore/kernel/pressure_file.h"
#include "libcore/metric/metric.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* some and full of each resource */
#define PRESSURE_SERIES (2 * PRESSURE_RESOURCES)

/* The counters of one name: since its start, carried over its incarnations. */
struct pressure_counts {
	bool primed;                     /* the start was taken */
	bool has[PRESSURE_SERIES];       /* read at least once (cpu full: since 5.13) */
	uint64_t base[PRESSURE_SERIES];  /* the incarnation's total at the start */
	uint64_t last[PRESSURE_SERIES];  /* ... at its last read */
	uint64_t carried[PRESSURE_SERIES];
};

struct place_pressure {
	uint32_t gen;
	uint64_t id;       /* the incarnation read last */
	uint64_t read_no;  /* the read that read it last */
	struct pressure_counts c;
};

struct cgroup_pressure {
	const char *label;
	uint32_t max_series;
	struct place_pressure *places;
	struct pressure_counts host;
	char host_dir[256];
	uint64_t read_no;
	bool said[PRESSURE_RESOURCES], host_said[PRESSURE_RESOURCES];
	const struct metric_sink *sink; /* during a read */
};

struct cgroup_pressure *cgroup_pressure_new(const char *label, uint32_t max_series, const char *host_dir)
{
	struct cgroup_pressure *p = calloc(1, sizeof(*p));

	if (!p || !(p->places = calloc(max_series ? max_series : 1, sizeof(*p->places)))) {
		free(p);
		return NULL;
	}
	p->label = label;
	p->max_series = max_series;
	snprintf(p->host_dir, sizeof(p->host_dir), "%s", host_dir ? host_dir : "/proc/pressure");
	ebpf_log(EBPF_LOG_INFO, "%s: and the pressure (PSI: cpu, memory, io) of each cgroup with series and of the host",
		 label);
	return p;
}

/* The totals t of resource r, read now, into c: the start at c's first read (or the
 * series' first: cpu full may come later), else the last. */
static void take(struct pressure_counts *c, enum pressure_resource r, const struct pressure_totals *t)
{
	const uint64_t now[2] = { t->some, t->full };
	const bool has[2] = { true, t->has_full };

	for (int k = 0; k < 2; k++) {
		int i = 2 * r + k;

		if (!has[k])
			continue;
		if (!c->primed || !c->has[i])
			c->base[i] = now[k];
		else if (now[k] < c->last[i]) /* never seen from one incarnation; a declared new start */
			c->carried[i] += c->last[i] - c->base[i], c->base[i] = 0;
		c->last[i] = now[k];
		c->has[i] = true;
	}
}

/* A new incarnation of a name: what the last one had goes on, the new one's counted from 0. */
static void next_incarnation(struct pressure_counts *c)
{
	for (int i = 0; i < PRESSURE_SERIES; i++) {
		if (!c->has[i])
			continue;
		c->carried[i] += c->last[i] - c->base[i];
		c->base[i] = c->last[i] = 0;
	}
}

/* The counters of c, after its first read; group: the cgroup's name, NULL for the host. */
static void send(struct cgroup_pressure *p, const struct pressure_counts *c, bool was_primed, const char *group)
{
	static const char *const kinds[2] = { "some", "full" };

	if (!was_primed || !p->sink->counter)
		return;
	for (int i = 0; i < PRESSURE_SERIES; i++) {
		const char *resource = pressure_resource_name((enum pressure_resource)(i / 2));
		struct metric_labels l = { .group = group, .n = 2, .names = { "resource", "stall" },
					   .values = { resource, kinds[i % 2] } };
		struct metric_id id = { .name = "pressure", .labels = &l };
		char instance[256];

		if (!c->has[i])
			continue;
		snprintf(instance, sizeof(instance), "%s%s%s-%s", group ? group : "", group ? "/" : "", resource,
			 kinds[i % 2]);
		p->sink->counter(p->sink->ctx, &id, instance, c->carried[i] + (c->last[i] - c->base[i]));
	}
}

/* Each resource's file in dir_fd into c; an error said once per resource (said[]), what: whose. */
static void read_files(struct cgroup_pressure *p, struct pressure_counts *c, int dir_fd, bool cgroup, bool *said,
		       const char *what)
{
	for (int r = 0; r < PRESSURE_RESOURCES; r++) {
		char name[32], err[384];
		struct pressure_totals t;
		int e;

		snprintf(name, sizeof(name), "%s%s", pressure_resource_name(r), cgroup ? ".pressure" : "");
		e = pressure_read(dir_fd, name, &t, err, sizeof(err));
		if (!e) {
			take(c, (enum pressure_resource)r, &t);
			continue;
		}
		if (said[r])
			continue;
		said[r] = true;
		if (e == -EINVAL)
			ebpf_log(EBPF_LOG_WARNING, "%s: Pressure: %s %s is not a pressure file (%s): its %s pressure is not "
				 "sent (said once)", p->label, what, name, err, pressure_resource_name(r));
		else
			ebpf_log(EBPF_LOG_WARNING, "%s: Pressure: %s: %s: %s pressure is not sent (said once). PSI is "
				 "off: boot without psi=0 (or with psi=1 where CONFIG_PSI_DEFAULT_DISABLED), %sor set "
				 "Pressure false in the module", p->label, what, err, pressure_resource_name(r),
				 cgroup ? "write 1 to the cgroup's cgroup.pressure, " : "");
	}
}

static void read_place(void *ctx, const struct cgroup_place_seen *s)
{
	struct cgroup_pressure *p = ctx;
	struct place_pressure *pp = &p->places[s->place];
	const char *rel = s->path[0] == '/' ? s->path + 1 : s->path;
	bool was_primed;
	int dir;

	if (s->place >= p->max_series || (pp->read_no == p->read_no && pp->gen == s->gen))
		return; /* one read of a place per read */
	if (pp->gen != s->gen) /* a new name in the place */
		*pp = (struct place_pressure){ .gen = s->gen };
	dir = openat(s->root_fd, rel[0] ? rel : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return; /* removed since the group looked: the next read says so */
	if (pp->c.primed && pp->id != s->id)
		next_incarnation(&pp->c);
	pp->id = s->id;
	pp->read_no = p->read_no;
	read_files(p, &pp->c, dir, true, p->said, s->path);
	close(dir);
	was_primed = pp->c.primed;
	pp->c.primed = true;
	send(p, &pp->c, was_primed, s->name);
}

void cgroup_pressure_read(struct cgroup_pressure *p, struct cgroup_group *g, const struct metric_sink *sink)
{
	int dir = open(p->host_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool was_primed = p->host.primed;

	p->sink = sink;
	p->read_no++;
	if (dir >= 0) {
		read_files(p, &p->host, dir, false, p->host_said, p->host_dir);
		close(dir);
		p->host.primed = true;
		send(p, &p->host, was_primed, NULL);
	} else if (!p->host_said[0]) {
		p->host_said[0] = true;
		ebpf_log(EBPF_LOG_WARNING, "%s: Pressure: %s: %s: the host's pressure is not sent (said once). PSI is "
			 "off: boot without psi=0 (or with psi=1 where CONFIG_PSI_DEFAULT_DISABLED), or set Pressure "
			 "false in the module", p->label, p->host_dir, strerror(errno));
	}
	cgroup_group_each_place(g, read_place, p);
	p->sink = NULL;
}

void cgroup_pressure_free(struct cgroup_pressure *p)
{
	if (!p)
		return;
	free(p->places);
	free(p);
}
