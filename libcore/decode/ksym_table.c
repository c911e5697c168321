#include "libcore/decode/ksym_table.h"
#include "base/err_max.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	/* Aliases (one address, several names): kallsyms order, the first one is named. */
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* One line of /proc/kallsyms, "ffffffff81000000 T name" with "\t[module]" for a module's. */
struct kallsyms_line {
	unsigned long long addr;
	const char *name, *module;
	size_t namelen, modlen;
};

/* The line from `line` to `eol` read into l: 0, or -1 for one to pass over (not in that form,
 * an absolute symbol, which is no code, or an address hidden as 0). */
static int read_line(const char *line, const char *eol, struct kallsyms_line *l)
{
	char type, *after;

	l->addr = strtoull(line, &after, 16);
	if (after == line || after + 3 > eol || after[0] != ' ' || after[2] != ' ')
		return -1;
	type = after[1];
	l->name = after + 3;
	l->namelen = strcspn(l->name, "\t \n");
	if (l->name + l->namelen > eol)
		l->namelen = (size_t)(eol - l->name);
	if (!l->addr || type == 'a' || type == 'A' || l->namelen == 0)
		return -1;
	/* a module's "\t[ext4]": kept after the name's NUL (ksym_name_module()) */
	l->module = l->name + l->namelen;
	l->modlen = l->module < eol && *l->module == '\t' ? (size_t)(eol - l->module) : 0;
	return 0;
}

/* How much of the table's arrays is allocated, and how much of the names is used. */
struct table_room {
	size_t cap, names_used, names_cap;
};

/* l appended to the table (its names, NUL after each, to t->names); -1 when out of memory. */
static int add_symbol(struct ksym_table *t, struct table_room *room, const struct kallsyms_line *l)
{
	size_t need = room->names_used + l->namelen + l->modlen + 2;

	if (t->n == room->cap) {
		struct ksym *v = realloc(t->v, (room->cap = room->cap ? room->cap * 2 : 4096) * sizeof(*v));

		if (!v)
			return -1;
		t->v = v;
	}
	if (need > room->names_cap) {
		char *n;

		room->names_cap = room->names_cap ? room->names_cap * 2 : 65536;
		while (need > room->names_cap)
			room->names_cap *= 2;
		if (!(n = realloc(t->names, room->names_cap)))
			return -1;
		t->names = n;
	}
	memcpy(t->names + room->names_used, l->name, l->namelen);
	t->names[room->names_used + l->namelen] = '\0';
	memcpy(t->names + room->names_used + l->namelen + 1, l->module, l->modlen);
	t->names[room->names_used + l->namelen + 1 + l->modlen] = '\0';
	t->v[t->n].addr = l->addr;
	t->v[t->n].name = room->names_used;
	t->n++;
	room->names_used = need;
	return 0;
}

int ksym_table_parse(struct ksym_table *t, const char *text, size_t len)
{
	struct table_room room = { 0 };
	const char *p = text, *end = text + len;

	memset(t, 0, sizeof(*t));
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *line = p;
		struct kallsyms_line l;

		if (!eol)
			eol = end;
		p = eol + 1;
		if (read_line(line, eol, &l))
			continue;
		if (add_symbol(t, &room, &l)) {
			ksym_table_free(t);
			return -1;
		}
	}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), by_addr);
	return 0;
}

const char *ksym_table_find(const struct ksym_table *t, uint64_t addr)
{
	if (!t->n || addr > t->v[t->n - 1].addr)
		return NULL;
	return ksym_table_at_or_below(t, addr);
}

const char *ksym_table_at_or_below(const struct ksym_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	if (!t->n || addr < t->v[0].addr)
		return NULL;
	/* The last entry with v[i].addr <= addr. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	while (lo > 0 && t->v[lo - 1].addr == t->v[lo].addr)
		lo--;
	return t->names + t->v[lo].name;
}

const char *ksym_table_exact(const struct ksym_table *t, uint64_t addr)
{
	const char *name = ksym_table_find(t, addr);
	size_t lo = 0, hi = t->n;

	if (!name)
		return NULL;
	/* find() gave the symbol at or below addr: at addr only if some entry is addr itself */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n && t->v[lo].addr == addr ? name : NULL;
}

const char *ksym_name_module(const char *name)
{
	return name + strlen(name) + 1;
}

void ksym_table_free(struct ksym_table *t)
{
	free(t->v);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

static struct ksym_table kernel_table;
static char kernel_error[ERR_MAX];
static pthread_once_t kernel_once = PTHREAD_ONCE_INIT;

static void load_kernel_table(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char *text = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		snprintf(kernel_error, sizeof(kernel_error), "cannot read /proc/kallsyms: %m");
		return;
	}
	do {
		if (len + 65536 > cap) {
			char *t = realloc(text, cap = cap ? cap * 2 : 1 << 22);

			if (!t) {
				snprintf(kernel_error, sizeof(kernel_error), "out of memory reading /proc/kallsyms");
				goto out;
			}
			text = t;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ksym_table_parse(&kernel_table, text, len))
		snprintf(kernel_error, sizeof(kernel_error), "out of memory reading /proc/kallsyms");
	else if (kernel_table.n == 0)
		snprintf(kernel_error, sizeof(kernel_error),
			 "/proc/kallsyms shows no addresses to this process: run collectd as root (CAP_SYSLOG), "
			 "or lower /proc/sys/kernel/kptr_restrict");
out:
	free(text);
	fclose(f);
}

const struct ksym_table *ksym_table_kernel(char *err, size_t errlen)
{
	pthread_once(&kernel_once, load_kernel_table);
	if (kernel_error[0]) {
		snprintf(err, errlen, "%s", kernel_error);
		return NULL;
	}
	return &kernel_table;
}
