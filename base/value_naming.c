#include "base/value_naming.h"

#include "base/number_text.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *metric;
	const char *type; /* from collectd's stock types.db */
} counter_types[] = {
	{ "calls", "operations" },
	{ "errors", "errors" },
	{ "ios", "operations" },    /* block: completed IOs per <disk>-<op> */
	{ "bytes", "total_bytes" }, /* block: bytes completed per <disk>-<op> */
	{ "runs", "invocations" },  /* CollectCost: runs per BPF program */
	{ "cpu_time_ms", "total_time_in_ms" }, /* CollectCost: a module's programs' run time */
};

/* Histograms whose metric is not itself a collectd type. */
static const struct {
	const char *metric;
	const char *type;
	const char *suffix; /* appended to the instance */
} histogram_types[] = {
	{ "io_size", "bytes", "" },          /* block: request sizes, GAUGE bytes */
	{ "queue_latency", "latency", "-queue" }, /* block: insert -> issue, GAUGE seconds */
};

/* A user's program named the collectd type itself (`Type "derive"`): the instance is then
 * the whole type instance. */
static int explicit_type(const char *type, const char *instance, struct value_name *out)
{
	if (!type)
		return 0;
	snprintf(out->type, sizeof(out->type), "%s", type);
	snprintf(out->type_instance, sizeof(out->type_instance), "%s", instance);
	return 1;
}

void name_histogram(const char *metric, const char *type, const char *instance, struct value_name *out)
{
	if (explicit_type(type, instance, out))
		return;
	for (size_t i = 0; i < sizeof(histogram_types) / sizeof(histogram_types[0]); i++) {
		if (!strcmp(metric, histogram_types[i].metric)) {
			snprintf(out->type, sizeof(out->type), "%s", histogram_types[i].type);
			snprintf(out->type_instance, sizeof(out->type_instance), "%s%s", instance,
				 histogram_types[i].suffix);
			return;
		}
	}
	snprintf(out->type, sizeof(out->type), "%s", metric);
	snprintf(out->type_instance, sizeof(out->type_instance), "%s", instance);
}

void name_counter(const char *metric, const char *type, const char *instance, struct value_name *out)
{
	if (explicit_type(type, instance, out))
		return;
	for (size_t i = 0; i < sizeof(counter_types) / sizeof(counter_types[0]); i++) {
		if (!strcmp(metric, counter_types[i].metric)) {
			snprintf(out->type, sizeof(out->type), "%s", counter_types[i].type);
			snprintf(out->type_instance, sizeof(out->type_instance), "%s", instance);
			return;
		}
	}
	snprintf(out->type, sizeof(out->type), "derive");
	snprintf(out->type_instance, sizeof(out->type_instance), "%s%s%s", metric, instance[0] ? "-" : "", instance);
}

void name_gauge(const char *metric, const char *type, const char *instance, struct value_name *out)
{
	bool percent = !strcmp(metric, "hit_ratio") || !strcmp(metric, "map_fill") || !strcmp(metric, "cpu_cost");
	bool bytes = !strcmp(metric, "kernel_memory");

	if (explicit_type(type, instance, out))
		return;
	snprintf(out->type, sizeof(out->type), "%s", percent ? "percent" : bytes ? "bytes" : "gauge");
	snprintf(out->type_instance, sizeof(out->type_instance), "%s%s%s", metric, instance[0] ? "-" : "", instance);
}

void name_percentile(const char *metric, const char *instance, double pct, struct value_name *out)
{
	snprintf(out->type, sizeof(out->type), "%s", metric);
	char p[32];

	snprintf(out->type_instance, sizeof(out->type_instance), "%s-%s", instance, number_text(pct, p, sizeof(p)));
}

void name_mean(const char *metric, const char *instance, struct value_name *out)
{
	snprintf(out->type, sizeof(out->type), "%s", metric);
	snprintf(out->type_instance, sizeof(out->type_instance), "%s-average", instance);
}

void name_bucket(const char *bucket_type, const char *instance, double lower, double upper, struct value_name *out)
{
	char lo[32], hi[32];

	snprintf(out->type, sizeof(out->type), "%s", bucket_type);
	snprintf(out->type_instance, sizeof(out->type_instance), "%s-%s_%s", instance,
		 number_text(lower, lo, sizeof(lo)), upper > 0 ? number_text(upper, hi, sizeof(hi)) : "inf");
}
