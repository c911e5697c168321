/* How module metrics become collectd identifiers. Pure string work, no collectd header,
 * so the naming table in README.md is unit-tested.
 *
 *   host/ebpf-<module>/<type>-<type_instance>
 *
 *   counter "calls"   -> operations-<instance>            (DERIVE)
 *   counter "errors"  -> errors-<instance>                (DERIVE)
 *   other counters    -> derive-<metric>-<instance>       (DERIVE)
 *   gauge "hit_ratio" -> percent-hit_ratio[-<instance>]   (GAUGE, 0-100)
 *   gauge "map_fill"  -> percent-map_fill-<map>           (GAUGE, 0-100)
 *   gauge "kernel_memory" -> bytes-kernel_memory          (GAUGE, bytes)
 *   other gauges      -> gauge-<metric>[-<instance>]      (GAUGE)
 *   histogram "latency", per Percentile p -> latency-<instance>-<p>      (GAUGE, seconds)
 *                        mean            -> latency-<instance>-average (GAUGE, seconds)
 *                        per Bucket      -> <BucketType>-<instance>-<lower>_<upper>
 *                                           (GAUGE, events per second, as the tail plugin)
 *   histogram "io_size"       -> as "latency" with type bytes (GAUGE, bytes); no Bucket
 *   histogram "queue_latency" -> as "latency" with instance <instance>-queue
 *   counter "ios" -> operations-<instance>, counter "bytes" -> total_bytes-<instance>
 *   counter "runs" -> invocations-<program>, counter "cpu_time_ms" -> total_time_in_ms
 *   (CollectCost; counter "run_time" is derive-run_time-<program>, nanoseconds)
 *   any metric with a type (a user's <Program> view with `Type`) -> <type>-<instance>
 *
 * `type` is that collectd type, NULL for a module's own metrics (libcore's struct metric_id).
 */
#ifndef EBPF_BASE_VALUE_NAMING_H
#define EBPF_BASE_VALUE_NAMING_H

#include <stddef.h>

#define VALUE_NAME_LEN 128 /* DATA_MAX_NAME_LEN */

struct value_name {
	char type[VALUE_NAME_LEN];
	char type_instance[VALUE_NAME_LEN];
};

void name_counter(const char *metric, const char *type, const char *instance, struct value_name *out);
/* The type and base instance of a histogram series: name_percentile(), name_mean() and
 * name_bucket() take them in place of the metric and instance. Most metrics are their own
 * type ("latency"); the others are mapped here. A program's histogram has its type. */
void name_histogram(const char *metric, const char *type, const char *instance, struct value_name *out);
void name_percentile(const char *metric, const char *instance, double pct, struct value_name *out);
/* gauges "hit_ratio", "map_fill" -> percent-<metric>[-<instance>]; "kernel_memory" -> bytes-kernel_memory;
 * others -> gauge-<metric>[-<instance>] */
void name_gauge(const char *metric, const char *type, const char *instance, struct value_name *out);
void name_mean(const char *metric, const char *instance, struct value_name *out);
/* upper 0 (no bound) is written "inf". */
void name_bucket(const char *bucket_type, const char *instance, double lower, double upper,
		 struct value_name *out);

#endif
