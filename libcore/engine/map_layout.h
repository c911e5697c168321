/* Where a module's array maps keep their rows: one copy per possible CPU or one copy shared
 * by all CPUs, and what that costs the kernel. Decided in user space between open and load
 * (bpf_map__set_type): a lookup returns a pointer to the value in either, and every module
 * records with atomic adds (counting.bpf.h), so the BPF instructions are the same for both.
 *
 * The rule (figures: doc/contributing.md, "Kernel memory"; bench/contention_cost):
 *  - histogram rows are shared: they are the big values (2.3 to 8.7 KB a row), and a
 *    per-CPU copy of each would multiply them by every possible CPU (217 MB for
 *    `Latency "all"` at 256 CPUs); a view whose histograms are per CPU by meaning (its
 *    per_cpu_feature: runqueue's "cpu<N>" series) keeps its per-CPU copies;
 *  - counter maps stay per-CPU while all their copies take at most
 *    MAP_LAYOUT_PERCPU_MAX_BYTES (every `stats` map, the small count tables), and are
 *    shared above; a hot one (map_view's `hot`: syscalls' 512-row count table, added to by
 *    every CPU on every syscall) while they take at most MAP_LAYOUT_HOT_PERCPU_MAX_BYTES:
 *    per-CPU up to 128 possible CPUs, shared from 129 on.
 * Kernel memory then follows the rows kept, not the CPU count. */
#ifndef EBPF_CORE_MAP_LAYOUT_H
#define EBPF_CORE_MAP_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct module;
struct bpf_object;
struct bpf_map;

/* Per-CPU copies of one counter map, in bytes over all possible CPUs, up to which the map
 * stays per-CPU. */
#define MAP_LAYOUT_PERCPU_MAX_BYTES (64u * 1024u)
/* The same for a hot counter map. Shared, its busiest row is one cache line that every
 * online CPU takes in turn (1.03x to 1.18x per-CPU with 2 CPUs, bench/contention_cost; it
 * grows with the CPUs that hit the row at once); per-CPU, it costs rows x 16 B x possible
 * CPUs. 1 MiB keeps syscalls' table per-CPU on machines of up to 128 possible CPUs and
 * shared above, where per-CPU it would take 2 MiB at 256 and put the default
 * configuration over the 2 MB it may take (doc/contributing.md, Kernel memory). */
#define MAP_LAYOUT_HOT_PERCPU_MAX_BYTES (1024u * 1024u)

/* What the layout is planned for: the planner's inputs, one set per module (struct
 * module's `layout`). Zeroed, they are this machine's: its possible CPUs and the rule.
 * module_plan_memory() plans for the CPU count it is given (a machine other than this
 * one: the plan printed for it, tests of the rule at 128 and 256 CPUs); a bench sets them
 * before module_start() to measure the layouts side by side in one run. */
struct map_layout_input {
	/* > 0: the layout (and a prepare hook's precision budget) as a machine with this many
	 * possible CPUs gets it, while the kernel still makes a copy per possible CPU here. */
	int possible_cpus;
	/* Every map as the object declares it, the rule not applied: the modules' maps all
	 * per-CPU, as before this rule. */
	bool as_declared;
};

/* Between open and load, after the module's configure hook has sized its maps: sets the
 * type of every per-CPU array view map to shared where the rule says so, for m->layout.
 * 0 or -errno. */
int map_layout_plan(struct module *m, struct bpf_object *obj);

/* The possible CPUs m's layout and precision budget plan for: m->layout's, else this
 * machine's (libbpf_num_possible_cpus). 1.., or -errno. */
int map_layout_possible_cpus(const struct module *m);

/* What the kernel will charge for the map once created, from its type, sizes and this
 * machine's possible CPUs (the arithmetic of the kernel's map_mem_usage for arrays and
 * preallocated hashes; a close estimate for the rest). For the plan, before load. */
uint64_t map_planned_bytes(const struct bpf_map *map, int possible_cpus);

/* What the kernel charges for the created map behind fd: `memlock` of /proc/self/fdinfo
 * (what bpftool prints). 0, or -errno. */
int map_charged_bytes(int fd, uint64_t *bytes);

#endif
