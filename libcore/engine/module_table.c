/* Every built-in module, in the order they are listed to users: one line each. Adding a
 * module: write bpf/<name>.bpf.c (+ bpf/<name>.h), its descriptor
 * libcore/modules/<name>.c (defining <name>_module) and its test tests/bpf/test_<name>.c,
 * add X(<name>) here and <name> to the module lists of Makefile.am (doc/contributing.md, "Adding a
 * module"). */
#include "libcore/engine/module.h"

#define BUILT_IN_MODULES(X) \
	X(syscalls)         \
	X(block)            \
	X(runqueue)         \
	X(tcp)              \
	X(process)          \
	X(vfs)              \
	X(fs)               \
	X(dcache)           \
	X(pagecache)        \
	X(signals)

#define DECLARE(name) extern const struct module_ops name##_module;
BUILT_IN_MODULES(DECLARE)

#define ENTRY(name) &name##_module,
const struct module_ops *const module_table[] = { BUILT_IN_MODULES(ENTRY) NULL };
