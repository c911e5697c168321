/* Names in a BPF object that the compiler checks: a built-in module's programs, maps and
 * rodata, and the ones the engine finds in every built-in object.
 *
 * The engine opens every object the same way, from its ELF bytes by name (module.c,
 * probe.c), so that a user's object, which has no skeleton, takes the same path. A
 * built-in's names are still checked when it is compiled: its descriptor says
 * MODULE_SKELETON(<name>) once, and PROG_NAME(x), MAP_NAME(x) and MODULE_RODATA(obj, x)
 * spell a name as its generated skeleton (bpf/<name>.skel.h, struct <name>_bpf) declares
 * it. Each is the string "x", usable in static tables; a name the object does not have
 * fails the build ("'struct <anonymous>' has no member named 'x'"), not the module's start.
 */
#ifndef EBPF_CORE_OBJECT_NAMES_H
#define EBPF_CORE_OBJECT_NAMES_H

#include <stdbool.h>
#include <stdint.h>

/* The descriptor's skeleton, struct <name>_bpf, as `module_skeleton` for the macros below. */
#define MODULE_SKELETON(name_) typedef struct name_##_bpf module_skeleton

/* "name_" if the member part_.name_ of type_ exists, a compile error otherwise: an address
 * constant (a string literal indexed by an integer constant expression), so static tables
 * can hold it. */
#define OBJECT_NAME_IN(type_, part_, name_) (&(#name_)[0 * sizeof(((type_ *)0)->part_ name_)])

#define PROG_NAME(name_) OBJECT_NAME_IN(module_skeleton, progs., name_)
#define MAP_NAME(name_) OBJECT_NAME_IN(module_skeleton, maps., name_)
#define RODATA_NAME(name_) OBJECT_NAME_IN(module_skeleton, rodata->, name_)
/* For configure hooks: the open object's map, or the rodata variable as a typed pointer
 * sized as the skeleton declares it (module_rodata; an array gives its element type). */
#define MODULE_MAP(obj_, name_) bpf_object__find_map_by_name((obj_), MAP_NAME(name_))
#define MODULE_RODATA(obj_, name_)                                                 \
	((__typeof__(((module_skeleton *)0)->rodata->name_) *)module_rodata((obj_), \
		RODATA_NAME(name_), sizeof(((module_skeleton *)0)->rodata->name_)))
#define MODULE_RODATA_ARRAY(obj_, name_)                                              \
	((__typeof__(((module_skeleton *)0)->rodata->name_[0]) *)module_rodata((obj_), \
		RODATA_NAME(name_), sizeof(((module_skeleton *)0)->rodata->name_)))

/* The engine's names, declared by the shared BPF headers (bpf/include/) in the objects that
 * use them, and looked up in any object (a user's may have them too): ENGINE_MAP_NAME(x)
 * and ENGINE_RODATA(obj, x) check x against this list. Every one is optional in an
 * object, so each module that relies on a group checks its skeleton for the whole group:
 * MODULE_WITNESSES(n) in its candidates, MODULE_BY_CGROUP in its descriptor. */
struct engine_object_maps {
	void *witness;          /* witness.bpf.h */
	void *cgroup_zero, *cgroup_full, *cgroup_ignored, *cgroup_select; /* cgroup_key.bpf.h */
	void *slot_of, *slot_free, *slot_whose, *slot_cache, *slot_gen; /* cgroup_slot.bpf.h */
};
struct engine_object_rodata {
	uint32_t filter_tgid;
	uint32_t hist_precision;
	bool witness_on;        /* witness.bpf.h */
	bool by_cgroup;         /* cgroup_key.bpf.h, the rest too */
	bool by_command;
	uint32_t cgroup_depth;
	bool ancestor_helper;
	uint32_t cgroup_select_n;
	uint32_t cgroup_hist_precision;
};
#define ENGINE_MAP_NAME(name_) OBJECT_NAME_IN(struct engine_object_maps, , name_)
#define ENGINE_RODATA(obj_, name_)                                                                 \
	((__typeof__(((struct engine_object_rodata *)0)->name_) *)module_rodata((obj_),            \
		OBJECT_NAME_IN(struct engine_object_rodata, , name_),                              \
		sizeof(((struct engine_object_rodata *)0)->name_)))

/* 0 if the descriptor's skeleton has every listed member, a compile error otherwise. */
#define SKELETON_HAS_(part_, name_) (0 * sizeof(((module_skeleton *)0)->part_ name_))
/* A candidate's `.witnesses = n`: its object has the witness map and witness_on. */
#define MODULE_WITNESSES(n_) \
	.witnesses = (n_) + SKELETON_HAS_(maps., witness) + SKELETON_HAS_(rodata->, witness_on)
/* `.by_cgroup = true` once the skeleton has By "cgroup"'s maps and rodata (cgroup_key.bpf.h);
 * cgroup_hist_precision is only in objects with per-cgroup histograms, so not required. */
#define MODULE_BY_CGROUP                                                                           \
	.by_cgroup = true + SKELETON_HAS_(maps., cgroup_zero) + SKELETON_HAS_(maps., cgroup_full) +   \
		     SKELETON_HAS_(maps., cgroup_ignored) + SKELETON_HAS_(maps., cgroup_select) +     \
		     SKELETON_HAS_(rodata->, by_cgroup) + SKELETON_HAS_(rodata->, by_command) +       \
		     SKELETON_HAS_(rodata->, cgroup_depth) +                                          \
		     SKELETON_HAS_(rodata->, ancestor_helper) + SKELETON_HAS_(rodata->, cgroup_select_n)

#endif
