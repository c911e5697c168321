/* A user's `<Program>` as a module of the engine: its descriptor is built from the
 * configuration and the object (each <Probe> a probe point whose candidates are its
 * programs in order, every other program not skipped a point of its own), so the lifecycle,
 * the attach fallback, state, errors and self-metrics are the modules' own. Everything is
 * checked when the block is read (program_module_new), so `collectd -T` reports it. */
#ifndef EBPF_PROGRAMS_PROGRAM_MODULE_H
#define EBPF_PROGRAMS_PROGRAM_MODULE_H

#include <stddef.h>

#include "libcore/engine/options.h"

struct module;

/* The module of a `<Program "name">` block: configuration parsed, object read safely,
 * policy checked, configuration checked against the object's BTF. NULL with err. */
struct module *program_module_new(const struct conf_node *block, char *err, size_t errlen);

/* Why the loader refused the program's object (it cannot be read, is unsafe, or calls what
 * the policy refuses): the module then stays off when started, and the others run. NULL
 * when the object was accepted. */
const char *program_module_refusal(const struct module *m);

#endif
