/* Key of a module's per-cgroup rows (`By "cgroup"`), shared by the BPF programs and
 * libcore/engine/cgroup_rows.c. Fixed-width types only. */
#ifndef EBPF_CGROUP_KEY_H
#define EBPF_CGROUP_KEY_H

#include <linux/types.h>

/* Most cgroups a module's tables are sized for, per MaxSeries cgroup sent: the sent ones,
 * the ones folded into `other` and the ones born since the last read (removed cgroups'
 * rows are deleted at every read). */
#define CGROUP_ROWS_PER_SERIES 2

/* A command's name as the kernel keeps it (TASK_COMM_LEN): at most 15 bytes and a NUL. */
#define COMMAND_LEN 16

/* Word w of a comm (8 of its bytes, the first in the lowest: little-endian, as the BPF
 * targets this project builds for) with its bytes from the first NUL on cleared; *z is
 * nonzero when w holds a NUL (the next word is then all cleared). z flags each zero byte's
 * top bit (and may flag bytes above the first zero, through its borrow, never below it), so
 * its lowest flag is the first NUL. No loop, no branch per byte: cgroup_key.bpf.h's tp_btf
 * key for By "command"; here, not there, so that a unit test checks it against the bytes
 * (tests/engine/test_cgroup_options). */
static inline __attribute__((always_inline)) __u64 comm_word_to_nul(__u64 w, __u64 *z)
{
	*z = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
	return *z ? w & (((*z & -*z) >> 7) - 1) : w;
}

/* Whose an event is, as a row key begins (block keeps it per request in flight): 16 bytes. */
struct row_whose {
	union {
		__u64 cgroup;
		char command[COMMAND_LEN];
	};
};

/* Whose row: the cgroup's, or with `By "command"` the command's (the acting task's comm,
 * zero-padded: two tasks of one name make the same key). One key for both, so that every
 * module's tables, their reader and their caps are the same code. */
struct cgroup_row_key {
	union {
		__u64 cgroup;              /* cgroup2 id (kernfs node id) of the task's ancestor at the module's depth */
		char command[COMMAND_LEN]; /* By "command": the task's comm */
	};
	__u32 row; /* the module's row: syscall number, latency row, ... */
	__u32 pad; /* 0, or ROW_KEY_SLOTS (a hash compares every byte of the key) */
};
_Static_assert(__builtin_offsetof(struct cgroup_row_key, row) == sizeof(struct row_whose),
	       "a row key begins with whose it is (block copies it from cgroup_inflight)");

/* Slots (cgroup_slot.bpf.h, libcore/engine/cgroup_slots.c): a cgroup's (command's) index
 * into a module's arrays of rows; SLOT_NONE: the event takes no row. The slot generation is
 * the sum of two words of map slot_gen, one the programs move, one user space writes. */
#define SLOT_NONE 0x7fffffffu
/* A row key's pad in the entries user space writes (what slots counted): the programs' own
 * entries of the same cgroup and row have 0, so each entry has one writer. */
#define ROW_KEY_SLOTS 1
enum { SLOT_GEN_KERNEL, SLOT_GEN_USER, SLOT_GEN_WORDS };

/* A directory the `Cgroup` globs' selection lies below, for the filter in the kernel
 * (cgroup_key.bpf.h, cgroup_select): the glob "/system.slice/ssh*" selects only below
 * /system.slice, so an event whose cgroup does not descend from it takes no row. Written by
 * user space (libcore/engine/cgroup_select.c) under keys 0 to n - 1. */
#define CGROUP_SELECT_MAX 8
#define CGROUP_SELECT_NONE (~0ull) /* no such directory: lets no event through */

struct cgroup_select_dir {
	__u64 id;    /* the directory's cgroup id, or CGROUP_SELECT_NONE */
	__u32 level; /* its level below the cgroup2 root (the root 0) */
	__u32 pad;
};

/* Value of a per-cgroup table of calls (syscalls', vfs'): completed calls, and those that
 * returned an error. */
struct cgroup_call_counts {
	__u64 calls;
	__u64 errors;
};

#endif
