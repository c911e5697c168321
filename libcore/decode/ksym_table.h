/* Kernel symbols by address, from /proc/kallsyms: loaded once into a table sorted by
 * address, looked up by binary search (O(log n), no system call per lookup). The table
 * holds every symbol the kernel lists (about 200,000 on a distribution kernel, some 10 MB
 * with the names); absolute symbols ('a', 'A') and zero addresses are left out. A module's
 * "\t[ext4]" is not part of the name; ksym_name_module() gives it. */
#ifndef EBPF_CORE_KSYM_TABLE_H
#define EBPF_CORE_KSYM_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	size_t name; /* offset in names */
};

struct ksym_table {
	struct ksym *v;
	size_t n;
	char *names;
};

/* Parses kallsyms text (lines "ffffffff81000000 T _stext" or "... t name\t[module]"). 0, or
 * -1 when out of memory. */
int ksym_table_parse(struct ksym_table *t, const char *text, size_t len);
/* The symbol holding addr: the nearest at or below it (of aliases, the one kallsyms lists
 * first), NULL below the first symbol or past the last one. */
const char *ksym_table_find(const struct ksym_table *t, uint64_t addr);
/* The nearest symbol at or below addr however far above it (past the last symbol too: the
 * last one), as ebpf_exporter's kstack names frames; NULL below the first symbol. */
const char *ksym_table_at_or_below(const struct ksym_table *t, uint64_t addr);
/* The symbol that starts at addr exactly (ebpf_exporter's ksym), else NULL. */
const char *ksym_table_exact(const struct ksym_table *t, uint64_t addr);
/* What kallsyms lists after a name the table gave: "\t[ext4]" for a module's symbol, ""
 * for the kernel's. ebpf_exporter's names are the name and this ("ext4_thing\t[ext4]"). */
const char *ksym_name_module(const char *name);
void ksym_table_free(struct ksym_table *t);

/* The process's table of /proc/kallsyms, read on the first call and kept until exit (one
 * copy however many ksym decoders there are). NULL, with err, if kallsyms cannot be read or
 * shows no addresses to this process (kptr_restrict, or no CAP_SYSLOG). */
const struct ksym_table *ksym_table_kernel(char *err, size_t errlen);

#endif
