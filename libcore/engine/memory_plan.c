#include "libcore/engine/memory_plan.h"

#include "base/number_text.h"
#include "base/text_append.h"
#include "base/err_max.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* What KernelMemoryLimit's one value says is wrong with it, in why: "" when it is a size. */
static double limit_value(const struct opt_value *v, char *why, size_t len)
{
	double n, scale = 1;
	char *end = NULL;

	why[0] = '\0';
	if (v->type == OPT_BOOLEAN) {
		snprintf(why, len, "a boolean is not a size");
		return -1;
	}
	if (v->type == OPT_NUMBER) {
		n = v->number;
	} else if (!v->string[0]) {
		snprintf(why, len, "an empty string is not a size");
		return -1;
	} else {
		n = strtod(v->string, &end);
		if (end == v->string) {
			snprintf(why, len, "it does not start with a number");
			return -1;
		}
		if (*end && (end[1] || !strchr("kKmMgG", *end))) {
			snprintf(why, len, "\"%s\" is not a unit (K, M or G, nothing after it)", end);
			return -1;
		}
		if (*end)
			scale = *end == 'k' || *end == 'K' ? 1024.0 : *end == 'm' || *end == 'M' ? 1048576.0 : 1073741824.0;
	}
	/* In range before the conversion: NaN or a huge double to an integer is undefined. */
	if (isnan(n))
		snprintf(why, len, "not a number");
	else if (n * scale < 0)
		snprintf(why, len, "a negative size");
	else if (n * scale < 4096 && scale == 1 && n >= 1) {
		char t[32];

		number_text(n, t, sizeof(t));
		snprintf(why, len, "%s bytes, fewer than the least, 4096: a number without K, M or G counts bytes, "
			 "\"%sM\" would be %s MiB", t, t, t);
	} else if (n * scale < 4096)
		snprintf(why, len, "fewer bytes than the least, 4096");
	else if (n * scale > 1099511627776.0)
		snprintf(why, len, "more than the most, 1T");
	else if (n * scale != floor(n * scale))
		snprintf(why, len, "not a whole number of bytes");
	return n * scale;
}

int kernel_memory_limit_option(uint64_t *limit, const struct option *o, char *err, size_t errlen)
{
	static const char usage[] = "KernelMemoryLimit takes one size in bytes, with K, M or G for KiB, MiB "
				    "or GiB: the most kernel memory all modules' BPF maps may take, from 4096 "
				    "bytes to 1T, e.g. KernelMemoryLimit \"64M\" (the default)";
	char given[160], why[ERR_MAX], t[32];
	double n;

	if (strcasecmp(o->key, KERNEL_MEMORY_LIMIT_KEY))
		return 0;
	if (o->nvalues != 1) {
		snprintf(err, errlen, "KernelMemoryLimit with %d values: %s", o->nvalues, usage);
		return -1;
	}
	n = limit_value(&o->values[0], why, sizeof(why));
	if (why[0]) {
		const struct opt_value *v = &o->values[0];

		if (v->type == OPT_STRING)
			snprintf(given, sizeof(given), "\"%.100s\"", v->string);
		else
			snprintf(given, sizeof(given), "%s", v->type == OPT_NUMBER ? number_text(v->number, t, sizeof(t)) :
							      v->boolean ? "true" : "false");
		snprintf(err, errlen, "KernelMemoryLimit %s: %s. %s", given, why, usage);
		return -1;
	}
	*limit = (uint64_t)n;
	return 1;
}

const char *memory_bytes_text(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= 1048576)
		snprintf(buf, len, "%.1f MiB", bytes / 1048576.0);
	else if (bytes >= 1024)
		snprintf(buf, len, "%.1f KiB", bytes / 1024.0);
	else
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	return buf;
}

static const struct map_memory *largest_map(const struct module_memory *mm)
{
	const struct map_memory *best = NULL;

	for (int i = 0; i < mm->nmaps; i++)
		if (!best || mm->maps[i].bytes > best->bytes)
			best = &mm->maps[i];
	return best;
}

/* Plans module i again; a module that cannot be planned counts 0 (its start reports it). */
static void plan_one(struct memory_plan *p, int i)
{
	char err[ERR_MAX];

	if (module_plan_memory(p->modules[i], p->possible_cpus, &p->plans[i], err, sizeof(err)))
		memset(&p->plans[i], 0, sizeof(p->plans[i]));
}

static uint64_t total_of(const struct memory_plan *p)
{
	uint64_t t = 0;

	for (int i = 0; i < p->nmodules; i++)
		if (!p->refused[i])
			t += p->plans[i].bytes;
	return t;
}

/* Module i one step coarser, if it can be: its per-cgroup rows first (the host-wide ones
 * are what the module gives without By "cgroup"), then its host-wide rows; only precisions
 * the user did not set. */
static bool lower_one_step(struct memory_plan *p, int i)
{
	struct module *m = p->modules[i];
	const struct module_memory *mm = &p->plans[i];

	if (mm->cgroup_hist_rows && !m->cgroup_hist.precision_from_user && mm->cgroup_precision > 0) {
		m->cgroup_hist.precision = mm->cgroup_precision - 1;
		return true;
	}
	if (!m->hist.precision_from_user && mm->precision > 0) {
		m->hist.precision = mm->precision - 1;
		return true;
	}
	return false;
}

/* The module with the most bytes that can record one step coarser and gets smaller for
 * it, lowered and planned again; false when there is none. */
static bool coarsen_one(struct memory_plan *p)
{
	int order[p->nmodules > 0 ? p->nmodules : 1];
	int n = 0;

	for (int i = 0; i < p->nmodules; i++)
		if (!p->refused[i])
			order[n++] = i;
	while (n > 0) {
		int best = 0;
		uint64_t before;

		for (int k = 1; k < n; k++)
			if (p->plans[order[k]].bytes > p->plans[order[best]].bytes)
				best = k;
		before = p->plans[order[best]].bytes;
		if (!lower_one_step(p, order[best])) {
			order[best] = order[--n]; /* nothing left to coarsen: try the next */
			continue;
		}
		plan_one(p, order[best]);
		if (p->plans[order[best]].bytes < before)
			return true;
		/* no smaller (no histograms at that step): its next step, or the next module */
	}
	return false;
}

int memory_plan_make(struct memory_plan *p, struct module **mods, int n, uint64_t limit)
{
	uint64_t used = 0;

	memset(p, 0, sizeof(*p));
	p->possible_cpus = libbpf_num_possible_cpus();
	if (p->possible_cpus <= 0)
		p->possible_cpus = 1;
	p->limit = limit;
	p->nmodules = n;
	p->modules = mods;
	p->plans = calloc(n ? n : 1, sizeof(*p->plans));
	p->refused = calloc(n ? n : 1, sizeof(*p->refused));
	p->errors = calloc(n ? n : 1, sizeof(*p->errors));
	if (!p->plans || !p->refused || !p->errors) {
		memory_plan_free(p);
		return -1;
	}
	for (int i = 0; i < n; i++)
		plan_one(p, i);
	while (total_of(p) > limit && coarsen_one(p))
		;
	for (int i = 0; i < n; i++) {
		const struct map_memory *big = largest_map(&p->plans[i]);
		char need[32], left[32], lim[32], mb[32];

		if (used + p->plans[i].bytes <= limit) {
			used += p->plans[i].bytes;
			continue;
		}
		p->refused[i] = true;
		snprintf(p->errors[i], sizeof(p->errors[i]),
			 "its BPF maps need %s of kernel memory at %d possible CPUs (the largest, map \"%s\": %s), "
			 "but KernelMemoryLimit %s leaves %s for it; raise KernelMemoryLimit, or give it fewer "
			 "histogram rows (Latency, Ports%s) or a lower Precision%s",
			 memory_bytes_text(p->plans[i].bytes, need, sizeof(need)), p->possible_cpus,
			 big ? big->name : "?", memory_bytes_text(big ? big->bytes : 0, mb, sizeof(mb)),
			 memory_bytes_text(limit, lim, sizeof(lim)), memory_bytes_text(limit - used, left, sizeof(left)),
			 p->plans[i].cgroup_hist_rows ? ", MaxSeries" : "",
			 p->plans[i].cgroup_hist_rows ? " or CgroupPrecision" : "");
	}
	p->total = used;
	return 0;
}

void memory_plan_describe(const struct memory_plan *p, int i, char *buf, size_t len)
{
	const struct module_memory *mm = &p->plans[i];
	size_t used = 0;
	char t[32];

	buf[0] = '\0';
	text_appendf(buf, len, &used, "%s: %d map%s, %s", p->modules[i]->label, mm->nmaps, mm->nmaps == 1 ? "" : "s",
		     memory_bytes_text(mm->bytes, t, sizeof(t)));
	for (int k = 0; k < mm->nmaps; k++)
		text_appendf(buf, len, &used, "%s%s %s%s", k ? ", " : " (", mm->maps[k].name,
			     memory_bytes_text(mm->maps[k].bytes, t, sizeof(t)), mm->maps[k].percpu ? " per-CPU" : "");
	text_appendf(buf, len, &used, "%s, precision %u", mm->nmaps ? ")" : "", mm->precision);
	if (mm->cgroup_hist_rows)
		text_appendf(buf, len, &used, ", per-cgroup precision %u", mm->cgroup_precision);
	text_appendf(buf, len, &used, "%s", p->refused[i] ? ": refused, over KernelMemoryLimit" : "");
}

void memory_plan_free(struct memory_plan *p)
{
	free(p->plans);
	free(p->refused);
	free(p->errors);
	p->plans = NULL;
	p->refused = NULL;
	p->errors = NULL;
}
