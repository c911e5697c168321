/* A user's `<Program>` as a module of the engine: its descriptor is built from the
 * configuration and the object (each <Probe> a probe point whose candidates are its
 * programs in order, every other program not skipped a point of its own), so the lifecycle,
 * the attach fallback, state, errors and self-metrics are the modules' own. Everything is
 * checked when the block is read (program_module_new), so `collectd -T` reports it. */
#ifndef EBPF_PROGRAMS_PROGRAM_MODULE_H
#define EBPF_PROGRAMS_PROGRAM_MODULE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/options.h"

struct module;
struct program_config;

/* A `<Program "name">` block's whole model, from its two parsers one after the other: the
 * block (program_config.h), then the ebpf_exporter config its ExporterConfig names
 * (exporter_config.h; Object defaults to the NAME.bpf.o beside NAME.yaml), then the checks
 * of the whole (program_model_check). 0, or -1 with err naming the program; free c with
 * program_config_free() either way. */
int program_module_config(const struct conf_node *block, struct program_config *c, char *err, size_t errlen);

/* The module of a `<Program "name">` block: configuration parsed, object read safely,
 * policy checked, configuration checked against the object's BTF. NULL with err. */
struct module *program_module_new(const struct conf_node *block, char *err, size_t errlen);

/* What program_module_new() checks of an object, on its bytes instead of the file named by
 * the block's Object: the calls, libbpf's open (in a child first), the program types, the
 * block against the object's BTF (program_resolve) and the probe points. For the object
 * fuzzer (tests/fuzz/fuzz_object.c). 0, or -1 with err and *refused as program_module_new()
 * tells them apart (a refused object, or a block that does not match it). */
int program_module_check_bytes(const struct conf_node *block, const void *bytes, size_t len, bool *refused,
			       char *err, size_t errlen);

/* Why the loader refused the program's object (it cannot be read, is unsafe, or calls what
 * the policy refuses): the module then stays off when started, and the others run. NULL
 * when the object was accepted. */
const char *program_module_refusal(const struct module *m);

/* The ebpf_exporter config (ExporterConfig's path) module m was loaded from, NULL for a
 * `<Program>` of map blocks and for any other module. */
const char *program_module_exporter_config(const struct module *m);

#endif
