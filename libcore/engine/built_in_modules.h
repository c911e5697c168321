/* Made by make from MODULE_SOURCES in Makefile.am: do not edit. */
#define BUILT_IN_MODULES(X) X(syscalls) X(block) X(runqueue) X(tcp) X(process) X(vfs) X(fs) X(dcache) X(pagecache) X(signals)
