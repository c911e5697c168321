#include "libcore/programs/program_block_text.h"

#include <stdlib.h>
#include <string.h>

const char *program_number_text(double v, char *out, size_t outlen)
{
	for (int decimals = 0; decimals <= 40; decimals++) {
		snprintf(out, outlen, "%.*f", decimals, v);
		if (strtod(out, NULL) == v)
			return out;
	}
	snprintf(out, outlen, "%.17g", v);
	return out;
}

/* A string value as collectd's configuration parser reads it back: '"' and '\' escaped. */
static void put_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void put_text_line(FILE *f, const char *indent, const char *key, const char *value)
{
	fprintf(f, "%s%s ", indent, key);
	put_quoted(f, value);
	fputc('\n', f);
}

static void put_label(FILE *f, const struct program_label *l)
{
	fprintf(f, "    <Label ");
	put_quoted(f, l->name);
	fprintf(f, ">\n");
	if (l->field[0]) {
		put_text_line(f, "      ", "Field", l->field);
	} else {
		fprintf(f, "      Size %u\n", l->size);
		if (l->padding)
			fprintf(f, "      Padding %u\n", l->padding);
	}
	if (l->cpu_index)
		fprintf(f, "      CPUIndex true\n");
	for (int i = 0; i < l->decoders.n; i++)
		fprintf(f, "      Decode %s\n", decoder_chain_line(&l->decoders, i));
	fprintf(f, "    </Label>\n");
}

static void put_buckets(FILE *f, const struct program_view *v)
{
	char a[64], b[64];

	fprintf(f, "    Buckets \"%s\"", slot_convention_name(v->buckets));
	if (v->buckets == SLOTS_LINEAR)
		fprintf(f, " %s %s %u", program_number_text(v->linear_min, a, sizeof(a)),
			program_number_text(v->linear_width, b, sizeof(b)), v->linear_count);
	for (int i = 0; v->buckets == SLOTS_FIXED && i < v->nfixed_bounds; i++)
		fprintf(f, " %s", program_number_text(v->fixed_bounds[i], a, sizeof(a)));
	fputc('\n', f);
}

/* The histogram-only settings, in the order a <Histogram>'s "unknown option" message lists them. */
static void put_histogram_settings(FILE *f, const struct program_view *v)
{
	char num[64];

	if (v->layout == HIST_LAYOUT_KEY)
		fprintf(f, "    Layout \"key\"\n");
	if (v->slots_field[0])
		put_text_line(f, "    ", "SlotsField", v->slots_field);
	if (v->sum_field[0])
		put_text_line(f, "    ", "SumField", v->sum_field);
	if (v->buckets != SLOTS_NATIVE)
		put_buckets(f, v);
	if (v->key_range)
		fprintf(f, "    KeyRange %llu %llu\n", (unsigned long long)v->key_min, (unsigned long long)v->key_max);
	if (v->key_listed_only)
		fprintf(f, "    ListedKeysOnly true\n");
	if (v->multiplier != 1)
		fprintf(f, "    Multiplier %s\n", program_number_text(v->multiplier, num, sizeof(num)));
	if (v->hist.precision_from_user)
		fprintf(f, "    " HIST_PRECISION_KEY " %u\n", v->hist.precision);
}

static void put_view(FILE *f, const struct program_view *v)
{
	const char *kind = v->kind == VIEW_KIND_HISTOGRAM ? "Histogram" : v->kind == VIEW_KIND_GAUGE ? "Gauge" : "Counter";

	fprintf(f, "  <%s ", kind);
	put_quoted(f, v->map);
	fprintf(f, ">\n");
	if (v->kind == VIEW_KIND_HISTOGRAM)
		put_histogram_settings(f, v);
	else if (v->value_field[0])
		put_text_line(f, "    ", "ValueField", v->value_field);
	put_text_line(f, "    ", "Type", v->type);
	if (v->type_instance[0])
		put_text_line(f, "    ", "TypeInstance", v->type_instance);
	if (v->max_series != PROGRAM_DEFAULT_MAX_SERIES)
		fprintf(f, "    MaxSeries %u\n", v->max_series);
	if (v->reclaim_after != PROGRAM_DEFAULT_RECLAIM_AFTER)
		fprintf(f, "    ReclaimAfter %u\n", v->reclaim_after);
	if (v->percpu_given || v->percpu != PERCPU_SUM)
		fprintf(f, "    PerCPU \"%s\"\n", v->percpu == PERCPU_LABEL ? "label" : "sum");
	for (int i = 0; i < v->nlabels; i++)
		put_label(f, &v->labels[i]);
	fprintf(f, "  </%s>\n", kind);
}

int program_block_write(FILE *f, const struct program_config *c)
{
	fprintf(f, "<Program ");
	put_quoted(f, c->name);
	fprintf(f, ">\n");
	if (c->object[0])
		put_text_line(f, "  ", "Object", c->object);
	for (int i = 0; i < c->nkaddrs; i++)
		put_text_line(f, "  ", "KernelAddress", c->kaddrs[i]);
	if (c->cgroup_ids.map[0]) {
		fprintf(f, "  CgroupIdMap ");
		put_quoted(f, c->cgroup_ids.map);
		fprintf(f, " \"%s\"", c->cgroup_ids.cgrp_storage ? "cgrp_storage" : "hash");
		for (int i = 0; i < c->cgroup_ids.npatterns; i++) {
			fprintf(f, " ");
			put_quoted(f, c->cgroup_ids.patterns[i]);
		}
		fprintf(f, "\n");
	}
	for (int i = 0; i < c->nperf_events; i++) {
		const struct program_perf_event *e = &c->perf_events[i];

		/* by number, as perf_events: gives them; the comment names the event */
		fprintf(f, "  # %s\n  <PerfEvent ", e->description);
		put_quoted(f, e->program);
		fprintf(f, ">\n    Type %u\n    Config %llu\n    %s %llu\n  </PerfEvent>\n",
			e->type, (unsigned long long)e->config, e->frequency ? "SampleFrequency" : "SamplePeriod",
			(unsigned long long)e->sample);
	}
	for (int i = 0; i < c->nviews; i++)
		put_view(f, &c->views[i]);
	fprintf(f, "</Program>\n");
	fflush(f);
	return ferror(f) ? -1 : 0;
}
