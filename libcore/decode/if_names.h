/* Network interface indexes -> names ("lo", "eth0"), for the ifname label decoder.
 *
 * Names are cached in IF_NAMES_SLOTS slots, direct-mapped by index (a new index takes its
 * slot's place), so memory stays fixed whatever indexes a map holds. An interface can be
 * renamed (udev renames eth0 to ens3 just after it appears) or deleted, so an entry is
 * trusted for one read only: after if_names_expire() (the decoder's next_read) its first use
 * asks the kernel again. An index without an interface is remembered as such the same way. */
#ifndef EBPF_CORE_IF_NAMES_H
#define EBPF_CORE_IF_NAMES_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#define IF_NAMES_SLOTS 256

struct if_name_slot {
	uint32_t index;        /* 0: empty (no interface has index 0) */
	unsigned int generation;
	bool known;            /* false: no interface had this index */
	char name[IF_NAMESIZE];
};

struct if_names {
	struct if_name_slot slots[IF_NAMES_SLOTS];
	unsigned int generation;
	/* The kernel's answer: 0 and name, or -1 without an interface. if_indextoname() by
	 * default; tests give their own to rename interfaces. */
	int (*resolve)(uint32_t index, char name[IF_NAMESIZE]);
	unsigned long lookups; /* calls of resolve (tests) */
};

void if_names_init(struct if_names *c);
/* The name of interface index, NULL when there is none. Valid until the next call. */
const char *if_name(struct if_names *c, uint32_t index);
/* A new read: every cached answer is asked again at its next use. */
void if_names_expire(struct if_names *c);

#endif
