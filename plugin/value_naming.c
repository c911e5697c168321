#include "value_naming.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *metric;
	const char *type; /* from collectd's stock types.db */
} counter_types[] = {
	{ "calls", "operations" },
	{ "errors", "errors" },
};

void name_counter(const char *metric, const char *instance, struct value_name *out)
{
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

void name_gauge(const char *metric, const char *instance, struct value_name *out)
{
	snprintf(out->type, sizeof(out->type), "%s", !strcmp(metric, "hit_ratio") ? "percent" : "gauge");
	snprintf(out->type_instance, sizeof(out->type_instance), "%s%s%s", metric, instance[0] ? "-" : "", instance);
}

void name_percentile(const char *metric, const char *instance, double pct, struct value_name *out)
{
	snprintf(out->type, sizeof(out->type), "%s", metric);
	snprintf(out->type_instance, sizeof(out->type_instance), "%s-%g", instance, pct);
}

void name_mean(const char *metric, const char *instance, struct value_name *out)
{
	snprintf(out->type, sizeof(out->type), "%s", metric);
	snprintf(out->type_instance, sizeof(out->type_instance), "%s-average", instance);
}

void name_bucket(const char *bucket_type, const char *instance, double lower, double upper, struct value_name *out)
{
	snprintf(out->type, sizeof(out->type), "%s", bucket_type);
	if (upper > 0)
		snprintf(out->type_instance, sizeof(out->type_instance), "%s-%g_%g", instance, lower, upper);
	else
		snprintf(out->type_instance, sizeof(out->type_instance), "%s-%g_inf", instance, lower);
}
