/* `By "cgroup"` by slot, user space's side (bpf/include/cgroup_slot.bpf.h): a module whose
 * programs count into arrays of rows by slot, so that an event finds its row without a
 * helper call or a hash lookup.
 *
 * At each read, before the module's tables are read (cgroup_rows.c), every row of every slot
 * in use (read through mmap) adds what it counted since the last read into its entry
 * (cgroup, row, pad ROW_KEY_SLOTS) of the table, written by user space alone, beside the
 * programs' entry (pad 0) of events that found no slot free; the reader adds the two up, so
 * the tables, their reader, names, caps and carries are what they are without slots. A row
 * whose entry finds the table full stays where it is, added at a later read. A slot whose entries the reader then took or deleted (a removed
 * cgroup, one folded into `other`, one left out) is taken from slot_of, the generation moved,
 * and once no program can still count into it (an RCU grace period) read once more and given
 * back to slot_free: no event is lost or counted twice. The programs' cache
 * is made stale at every read (the generation moves), so a change user space made (a slot
 * taken back, a cgroup left out, the selection's directories) holds from the next event. */
#ifndef EBPF_CORE_CGROUP_SLOTS_H
#define EBPF_CORE_CGROUP_SLOTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

struct bpf_object;
struct cgroup_table;

/* Whether obj counts by slot: tables with slot_rows and the slot maps. */
bool cgroup_slots_used(const struct cgroup_table *tables, int ntables);
/* Before load: the slot maps and arrays sized for nslots slots (created with on only), each
 * array's value as its table's (value_size[t]). 0 or -errno. */
int cgroup_slots_configure(struct bpf_object *obj, bool on, uint32_t nslots, const struct cgroup_table *tables,
			   int ntables, const uint32_t *value_size);

/* After load, before attach (a module's loaded hook): every slot free. 0, or -1 with err;
 * nothing to do for an object without slots. */
int cgroup_slots_fill(struct bpf_object *obj, char *err, size_t errlen);

struct cgroup_slots;
/* After load: the arrays mapped. NULL with err. */
struct cgroup_slots *cgroup_slots_new(struct bpf_object *obj, const struct cgroup_table *tables, int ntables,
				      const int *table_fds, char *err, size_t errlen);
/* What the rows counted since the last read, into the tables. 0 or -errno. */
int cgroup_slots_apply(struct cgroup_slots *s);
/* The reader's fate of an entry of whose (the key's first 16 bytes): kept or not. */
void cgroup_slots_note(struct cgroup_slots *s, const void *whose, bool kept);
/* After the send: the slots none of whose entries were kept taken back (given back to
 * slot_free at the next apply), and every cache made stale. */
void cgroup_slots_release(struct cgroup_slots *s);
void cgroup_slots_free(struct cgroup_slots *s);

#endif
