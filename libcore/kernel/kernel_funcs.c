#include "libcore/kernel/kernel_funcs.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODULE_BTFS 512

struct kernel_funcs {
	/* traceable names, sorted, pointing into `text` */
	bool names_loaded, names_unknown;
	char *text;
	char **names;
	size_t nnames;
	/* BTF of vmlinux and of every module (split on vmlinux) */
	bool btf_loaded, btf_unknown;
	struct btf *vmlinux;
	struct btf *modules[MAX_MODULE_BTFS];
	int nmodules;
};

struct kernel_funcs *kernel_funcs_new(void)
{
	return calloc(1, sizeof(struct kernel_funcs));
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	size_t cap = 1 << 20, len = 0;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap + 1);
	while (buf) {
		size_t n = fread(buf + len, 1, cap - len, f);

		len += n;
		if (len < cap)
			break;
		cap *= 2;
		char *bigger = realloc(buf, cap + 1);
		if (!bigger)
			free(buf);
		buf = bigger;
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One name per line; available_filter_functions may append " [module]", kallsyms is
 * "address type name [module]". */
static int index_names(struct kernel_funcs *kf, bool kallsyms)
{
	size_t cap = 0;

	for (char *line = kf->text, *next; line && *line; line = next) {
		char *name = line, *end;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (kallsyms) {
			/* skip "address type " */
			for (int field = 0; field < 2 && name; field++) {
				name = strchr(name, ' ');
				if (name)
					name++;
			}
			if (!name)
				continue;
		}
		end = name + strcspn(name, " \t");
		*end = '\0';
		if (!*name)
			continue;
		if (kf->nnames == cap) {
			char **bigger = realloc(kf->names, (cap = cap ? cap * 2 : 65536) * sizeof(char *));

			if (!bigger)
				return -ENOMEM;
			kf->names = bigger;
		}
		kf->names[kf->nnames++] = name;
	}
	qsort(kf->names, kf->nnames, sizeof(char *), cmp_names);
	return 0;
}

static void load_names(struct kernel_funcs *kf)
{
	static const char *const ftrace_lists[] = { "/sys/kernel/tracing/available_filter_functions",
						    "/sys/kernel/debug/tracing/available_filter_functions" };
	bool kallsyms = false;

	kf->names_loaded = true;
	for (int i = 0; i < 2 && !kf->text; i++)
		kf->text = slurp(ftrace_lists[i]);
	if (!kf->text) {
		kf->text = slurp("/proc/kallsyms");
		kallsyms = true;
	}
	if (!kf->text || index_names(kf, kallsyms) || kf->nnames == 0)
		kf->names_unknown = true;
}

bool kernel_funcs_traceable(struct kernel_funcs *kf, const char *name)
{
	if (!kf->names_loaded)
		load_names(kf);
	if (kf->names_unknown)
		return true;
	return bsearch(&name, kf->names, kf->nnames, sizeof(char *), cmp_names) != NULL;
}

static void load_btf(struct kernel_funcs *kf)
{
	DIR *dir;
	struct dirent *de;

	kf->btf_loaded = true;
	kf->vmlinux = btf__load_vmlinux_btf();
	if (!kf->vmlinux) {
		kf->btf_unknown = true;
		return;
	}
	dir = opendir("/sys/kernel/btf");
	if (!dir)
		return;
	while ((de = readdir(dir)) && kf->nmodules < MAX_MODULE_BTFS) {
		char path[300];
		struct btf *b;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "vmlinux"))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", de->d_name);
		b = btf__parse_split(path, kf->vmlinux);
		if (b)
			kf->modules[kf->nmodules++] = b;
	}
	closedir(dir);
}

bool kernel_funcs_in_btf(struct kernel_funcs *kf, const char *name)
{
	if (!kf->btf_loaded)
		load_btf(kf);
	if (kf->btf_unknown)
		return true;
	if (btf__find_by_name_kind(kf->vmlinux, name, BTF_KIND_FUNC) > 0)
		return true;
	for (int i = 0; i < kf->nmodules; i++)
		if (btf__find_by_name_kind(kf->modules[i], name, BTF_KIND_FUNC) > 0)
			return true;
	return false;
}

bool kernel_funcs_have_module_btf(struct kernel_funcs *kf)
{
	if (!kf->btf_loaded)
		load_btf(kf);
	return kf->nmodules > 0;
}

void kernel_funcs_free(struct kernel_funcs *kf)
{
	if (!kf)
		return;
	for (int i = 0; i < kf->nmodules; i++)
		btf__free(kf->modules[i]);
	btf__free(kf->vmlinux);
	free(kf->names);
	free(kf->text);
	free(kf);
}
