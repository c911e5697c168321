/* The collectd identifiers doc/modules.md's naming table promises. */
#include "base/value_naming.h"
#include "tests/support/testing.h"

int main(void)
{
	struct value_name n, base;

	name_counter("calls", NULL, "fsync", &n);
	CHECK_STR(n.type, "operations");
	CHECK_STR(n.type_instance, "fsync");
	/* a user's program: its Type, the instance as given; the map is for SNMP (module.h's
	 * struct metric_id) */
	name_counter("sync_calls", "derive", "sync", &n);
	CHECK_STR(n.type, "derive");
	CHECK_STR(n.type_instance, "sync");
	name_gauge("queue_depth", "gauge", "loop0", &n);
	CHECK_STR(n.type, "gauge");
	CHECK_STR(n.type_instance, "loop0");
	name_counter("errors", NULL, "openat", &n);
	CHECK_STR(n.type, "errors");
	CHECK_STR(n.type_instance, "openat");
	name_counter("dropped", NULL, "start_lost", &n);
	CHECK_STR(n.type, "derive");
	CHECK_STR(n.type_instance, "dropped-start_lost");
	name_gauge("hit_ratio", NULL, "", &n);
	CHECK_STR(n.type, "percent");
	CHECK_STR(n.type_instance, "hit_ratio");
	/* self-metrics (doc/modules.md, Self-metrics) */
	name_gauge("map_fill", NULL, "start_tid", &n);
	CHECK_STR(n.type, "percent");
	CHECK_STR(n.type_instance, "map_fill-start_tid");
	name_gauge("kernel_memory", NULL, "", &n);
	CHECK_STR(n.type, "bytes");
	CHECK_STR(n.type_instance, "kernel_memory");
	name_gauge("attach", NULL, "sys_exit-tp_btf", &n);
	CHECK_STR(n.type, "gauge");
	CHECK_STR(n.type_instance, "attach-sys_exit-tp_btf");
	name_counter("runs", NULL, "count_exit_btf", &n);
	CHECK_STR(n.type, "invocations");
	CHECK_STR(n.type_instance, "count_exit_btf");
	name_counter("run_time", NULL, "count_exit_btf", &n);
	CHECK_STR(n.type, "derive");
	CHECK_STR(n.type_instance, "run_time-count_exit_btf");
	name_counter("cpu_time_ms", NULL, "", &n);
	CHECK_STR(n.type, "total_time_in_ms");
	CHECK_STR(n.type_instance, "");
	name_counter("dropped", NULL, "recursion", &n);
	CHECK_STR(n.type_instance, "dropped-recursion");
	name_gauge("approximation", NULL, "read", &n);
	CHECK_STR(n.type, "gauge");
	CHECK_STR(n.type_instance, "approximation-read");
	name_percentile("latency", "fsync", 99, &n);
	CHECK_STR(n.type, "latency");
	CHECK_STR(n.type_instance, "fsync-99");
	name_percentile("latency", "fsync", 99.9, &n);
	CHECK_STR(n.type_instance, "fsync-99.9");
	name_mean("latency", "read", &n);
	CHECK_STR(n.type_instance, "read-average");
	name_bucket("bucket", "fsync", 0, 0.001, &n);
	CHECK_STR(n.type, "bucket");
	CHECK_STR(n.type_instance, "fsync-0_0.001");
	name_bucket("bucket", "fsync", 0.5, 0, &n);
	CHECK_STR(n.type_instance, "fsync-0.5_inf");
	/* Distinct values get distinct names (with as many digits as the value needs); the
	 * short names users graph stay as they were. */
	name_percentile("latency", "fsync", 99.99991, &n);
	CHECK_STR(n.type_instance, "fsync-99.99991");
	name_percentile("latency", "fsync", 99.99992, &n);
	CHECK_STR(n.type_instance, "fsync-99.99992");
	name_percentile("latency", "fsync", 99.999999999, &n);
	CHECK_STR(n.type_instance, "fsync-99.999999999");
	name_percentile("latency", "fsync", 50, &n);
	CHECK_STR(n.type_instance, "fsync-50");
	name_bucket("bucket", "fsync", 0.0010001, 0.0010002, &n);
	CHECK_STR(n.type_instance, "fsync-0.0010001_0.0010002");
	name_bucket("bucket", "fsync", 0, 0.000001024, &n);
	CHECK_STR(n.type_instance, "fsync-0_1.024e-06");

	/* block */
	name_counter("ios", NULL, "sda-read", &n);
	CHECK_STR(n.type, "operations");
	CHECK_STR(n.type_instance, "sda-read");
	name_counter("bytes", NULL, "nvme0n1-write", &n);
	CHECK_STR(n.type, "total_bytes");
	CHECK_STR(n.type_instance, "nvme0n1-write");
	name_counter("issue_time", NULL, "hash", &n);
	CHECK_STR(n.type, "derive");
	CHECK_STR(n.type_instance, "issue_time-hash");
	name_histogram("latency", NULL, "dm-0-flush", &n);
	CHECK_STR(n.type, "latency");
	CHECK_STR(n.type_instance, "dm-0-flush");
	name_histogram("io_size", NULL, "loop0-write", &base);
	CHECK_STR(base.type, "bytes");
	CHECK_STR(base.type_instance, "loop0-write");
	name_percentile(base.type, base.type_instance, 50, &n);
	CHECK_STR(n.type, "bytes");
	CHECK_STR(n.type_instance, "loop0-write-50");
	name_histogram("queue_latency", NULL, "sda-read", &base);
	CHECK_STR(base.type, "latency");
	CHECK_STR(base.type_instance, "sda-read-queue");
	name_mean(base.type, base.type_instance, &n);
	CHECK_STR(n.type_instance, "sda-read-queue-average");
	name_bucket("bucket", base.type_instance, 0, 0.001, &n);
	CHECK_STR(n.type_instance, "sda-read-queue-0_0.001");
	/* runqueue */
	name_histogram("latency", NULL, "cpu1", &base);
	name_percentile(base.type, base.type_instance, 99, &n);
	CHECK_STR(n.type, "latency");
	CHECK_STR(n.type_instance, "cpu1-99");
	return testing_done();
}
