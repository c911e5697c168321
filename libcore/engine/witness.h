/* "untraced": events of a probe point that the kernel did not hand to the module's program,
 * counted by a witness on the same tracepoint (bpf/include/witness.bpf.h).
 *
 * The kernel can skip a program without counting it (doc/modules.md, Known limits): then a
 * tracepoint fired and no program of ours ran. A witness is a second, minimal program on
 * that tracepoint, attached after the module's: per CPU, the module's program counts its
 * runs (`ran`) and the witness the firings (`fired`), and since a tracepoint calls its
 * programs in the order they were attached, an event's run is counted before its firing.
 * So fired - ran, read in that order, never exceeds the events the program missed: an
 * event in flight (run counted, firing not yet) lowers the difference, it never raises it.
 * Each CPU's largest difference so far is therefore a count that never overstates and
 * never goes back, and it is exact whenever a read finds that CPU between two events of
 * the point, which is nearly every read. A skip the kernel counts (a nested run,
 * `dropped-recursion`) is in it too: the witness ran, the program did not.
 *
 * Sent per module as counter "untraced" "<point>" for every point attached by a witnessed
 * candidate, 0 included, so that "none lost" shows. */
#ifndef EBPF_CORE_WITNESS_H
#define EBPF_CORE_WITNESS_H

struct module;
struct metric_sink;
struct witness_reader;

/* After the points are attached: a reader for the module's map `witness`, or NULL when no
 * attached point is witnessed (or memory ran out: the module then sends no "untraced"). */
struct witness_reader *witness_reader_new(const struct module *m);
/* Sends "untraced" per witnessed point; a point whose row cannot be read is not sent. */
void witness_read(struct witness_reader *w, const struct module *m, const struct metric_sink *sink);
void witness_reader_free(struct witness_reader *w);

#endif
