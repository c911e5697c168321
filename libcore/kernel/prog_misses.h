/* Events the kernel did not hand to our programs. tp_btf and raw_tp programs do not nest:
 * when an interrupt fires the same tracepoint while the program runs on that CPU (a block
 * completion in an interrupt during another completion, a wakeup from an interrupt during
 * a wakeup), the kernel skips the nested run and counts it in the program's
 * recursion_misses (5.12+). Modules report the sum, so such a loss is never silent. */
#ifndef EBPF_CORE_PROG_MISSES_H
#define EBPF_CORE_PROG_MISSES_H

#include <stdint.h>

struct bpf_object;

/* Sum of recursion_misses over the object's loaded programs; 0 where the kernel does not
 * report it. */
uint64_t bpf_object_recursion_misses(const struct bpf_object *obj);

#endif
