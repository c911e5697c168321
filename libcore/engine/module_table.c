/* Every module, in the order they are listed to users. Adding a module: write
 * bpf/<name>.bpf.c, bpf/<name>.h, libcore/mod_<name>.c, and add it here. */
#include "libcore/engine/module.h"

extern const struct module_ops syscalls_module;
extern const struct module_ops block_module;
extern const struct module_ops runqueue_module;
extern const struct module_ops tcp_module;
extern const struct module_ops process_module;
extern const struct module_ops vfs_module;
extern const struct module_ops fs_module;
extern const struct module_ops dcache_module;
extern const struct module_ops pagecache_module;

const struct module_ops *const module_table[] = {
	&syscalls_module,
	&block_module,
	&runqueue_module,
	&tcp_module,
	&process_module,
	&vfs_module,
	&fs_module,
	&dcache_module,
	&pagecache_module,
	NULL,
};
