/* ebpf_exporter's cgroup_id_map (`CgroupIdMap` in a <Program> block): the ids of the cgroups
 * whose path matches one of the patterns are kept in a map of the program, which filters on
 * them in the kernel (`bpf_map_lookup_elem(&map, &cgroup_id)`).
 *
 *   CgroupIdMap "cgroup_id_map" "hash" "^.*(system.slice/.*)$"
 *
 * Paths are as ebpf_exporter matches them: the cgroup2 mount's own path and below
 * ("/sys/fs/cgroup/system.slice/ssh.service"); the patterns are POSIX extended, with the
 * regexps decoder's rules (decoder_regexps.c). Type "hash": a hash of u64 cgroup id -> u64 1,
 * the ids of removed cgroups deleted; "cgrp_storage": BPF_MAP_TYPE_CGRP_STORAGE, u32 key (a
 * cgroup's fd) -> u64 1, which the kernel drops with the cgroup. The map is brought up to date
 * when the program starts and at each of its reads: a cgroup created in between is in it
 * from the next read (ebpf_exporter follows creations through fanotify, on 6.6 and later).
 * What the map could not take (full) is counted: gauge cgroup_ids-<map> (ids in it) and
 * cgroup_ids_unplaced-<map>. */
#ifndef EBPF_PROGRAMS_CGROUP_ID_MAP_H
#define EBPF_PROGRAMS_CGROUP_ID_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CGROUP_ID_MAP_PATTERNS 16

struct cgroup_id_map_config {
	char map[64];     /* "": none */
	bool cgrp_storage;
	char patterns[CGROUP_ID_MAP_PATTERNS][256];
	int npatterns;
};

/* Checks the patterns (as the regexps decoder compiles them). 0, or -1 with err, which
 * names a pattern by its place ("entry 2") when hidden (decoder_chain.hidden). */
int cgroup_id_map_check(const struct cgroup_id_map_config *c, bool hidden, char *err, size_t errlen);

struct cgroup_id_sync;
struct metric_sink;

/* After load: keeps map_fd (the program's map named c->map) up to date under the cgroup2
 * mount (root NULL) or root (tests). NULL with err. */
struct cgroup_id_sync *cgroup_id_sync_new(const struct cgroup_id_map_config *c, int map_fd, uint32_t max_entries,
					  const char *root, char *err, size_t errlen);
/* Walks the cgroups and updates the map. */
void cgroup_id_sync_run(struct cgroup_id_sync *s);
/* The last walk's gauges: the ids in the map, the cgroups that found no room. */
void cgroup_id_sync_send(const struct cgroup_id_sync *s, const struct metric_sink *sink);
void cgroup_id_sync_free(struct cgroup_id_sync *s);

#endif
