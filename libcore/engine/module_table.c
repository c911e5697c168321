/* Every built-in module, in the order they are listed to users. The list is MODULE_SOURCES
 * in Makefile.am, from which make writes built_in_modules.h: adding a module is its
 * bpf/<name>.bpf.c (+ bpf/<name>.h), its descriptor libcore/modules/<name>.c (defining
 * <name>_module), one line there and its test (doc/contributing.md, "Adding a module"). */
#include "libcore/engine/module.h"
#include "libcore/engine/built_in_modules.h"

#define DECLARE(name) extern const struct module_ops name##_module;
BUILT_IN_MODULES(DECLARE)

#define ENTRY(name) &name##_module,
const struct module_ops *const module_table[] = { BUILT_IN_MODULES(ENTRY) NULL };
