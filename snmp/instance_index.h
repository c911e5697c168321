/* The text that indexes an instance in COLLECTD-EBPF-MIB's tables (ebpfCounterInstance,
 * ebpfHistInstance, ebpfGaugeInstance): an OID has at most 128 arcs, one per byte of a
 * name, so the index holds at most INSTANCE_INDEX_MAX bytes. Per-cgroup instances
 * ("system.slice_docker-<64 hex>.scope/fsync") are longer, so:
 *   - an instance of at most INSTANCE_INDEX_MAX bytes is its own index, unchanged (the OIDs
 *     of every row served before long instances were are the same);
 *   - a longer one is its first INSTANCE_INDEX_HEAD bytes (fewer when the cut would split a
 *     UTF-8 character), '~', then INSTANCE_HASH_DIGITS digits of base32hex
 *     ("0123456789abcdefghijklmnopqrstuv", most significant first) of the FNV-1a 64-bit
 *     hash of the whole instance.
 * A pure function of the instance: the same row has the same OID after any restart, with no
 * state kept, and anyone can compute it. Two long instances share an index only if their
 * heads and their 64-bit hashes agree (mib_tree.c serves one of them, and says so). */
#ifndef EBPF_SNMP_INSTANCE_INDEX_H
#define EBPF_SNMP_INSTANCE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#define INSTANCE_INDEX_MAX 48   /* the SIZE of the MIB's instance index objects */
#define INSTANCE_HASH_DIGITS 13 /* 64 bits in 5-bit digits */
#define INSTANCE_INDEX_HEAD (INSTANCE_INDEX_MAX - 1 - INSTANCE_HASH_DIGITS) /* 34 */

/* FNV-1a, 64 bits, of the bytes of s. */
uint64_t instance_hash(const char *s);

/* Writes the index text of instance to out (NUL-terminated) and returns its length, at most
 * INSTANCE_INDEX_MAX. */
size_t instance_index(const char *instance, char out[INSTANCE_INDEX_MAX + 1]);

#endif
