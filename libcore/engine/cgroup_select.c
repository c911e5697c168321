/* The `Cgroup` globs applied in the kernel as well (cgroup_select.h). */
#include "libcore/engine/cgroup_select.h"

#include "libcore/engine/module.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int cgroup_select_configure(struct bpf_object *obj, const struct cgroup_options *o)
{
	struct cgroup_prefix dirs[CGROUP_SELECT_MAX];
	const char *why;
	int n = o->on ? cgroup_options_prefixes(o, dirs, CGROUP_SELECT_MAX, &why) : 0;
	/* Not in an object whose programs never ask for a cgroup: the map is then never used. */
	uint32_t *count = ENGINE_RODATA(obj, cgroup_select_n);
	struct bpf_map *map = bpf_object__find_map_by_name(obj, ENGINE_MAP_NAME(cgroup_select));

	if (!map)
		return -ENOENT; /* every object with per-cgroup rows has it (cgroup_key.bpf.h) */
	if (count)
		*count = (uint32_t)n;
	return bpf_map__set_autocreate(map, count && n > 0);
}

void cgroup_select_init(struct cgroup_select *s, const struct cgroup_options *o, int fd)
{
	*s = (struct cgroup_select){ .o = o, .fd = fd };
	s->n = cgroup_options_prefixes(o, s->dirs, CGROUP_SELECT_MAX, &s->why);
	if (fd < 0)
		s->n = 0;
}

/* The deepest directory of p's components that exists below root_fd: its id and level;
 * CGROUP_SELECT_NONE when not even the first does. */
static struct cgroup_select_dir resolve(int root_fd, const char *glob, const struct cgroup_prefix *p)
{
	struct cgroup_select_dir d = { .id = CGROUP_SELECT_NONE };
	char path[PATH_MAX];
	uint32_t level = 0;
	struct stat st;

	if (p->len >= sizeof(path))
		return d;
	memcpy(path, glob, p->len);
	path[p->len] = '\0';
	for (size_t i = 1; i <= p->len; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		if (path[i - 1] == '/')
			continue; /* an empty component ("//") */
		path[i] = '\0';
		if (fstatat(root_fd, path + 1, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
			break;
		d = (struct cgroup_select_dir){ .id = st.st_ino, .level = ++level };
		if (i < p->len)
			path[i] = '/';
	}
	return d;
}

void cgroup_select_update(struct cgroup_select *s, int root_fd)
{
	for (int i = 0; i < s->n; i++) {
		struct cgroup_select_dir d = resolve(root_fd, s->o->globs[s->dirs[i].glob], &s->dirs[i]);
		uint32_t key = (uint32_t)i;

		if (d.id == s->written[i].id && d.level == s->written[i].level)
			continue;
		/* Not written: the entry keeps letting every event through (none yet) or the old
		 * directory's; the next read tries again. */
		if (!bpf_map_update_elem(s->fd, &key, &d, BPF_ANY))
			s->written[i] = d;
	}
}

void cgroup_select_describe(const struct cgroup_select *s, char *out, size_t len)
{
	size_t used;

	if (!s->n) {
		snprintf(out, len, "applied at each read only (%s): a cgroup they leave out takes kernel rows until a "
			 "read finds it", s->why ? s->why : "no map");
		return;
	}
	used = (size_t)snprintf(out, len, "applied in the kernel too: only cgroups below");
	for (int i = 0; i < s->n && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s %.*s", i ? "," : "", (int)s->dirs[i].len,
					 s->o->globs[s->dirs[i].glob]);
	if (used < len)
		snprintf(out + used, len - used, " take kernel rows");
}
