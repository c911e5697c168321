/* The collectd identifiers README.md's naming table promises. */
#include "plugin/value_naming.h"
#include "tests/testing.h"

int main(void)
{
	struct value_name n;

	name_counter("calls", "fsync", &n);
	CHECK_STR(n.type, "operations");
	CHECK_STR(n.type_instance, "fsync");
	name_counter("errors", "openat", &n);
	CHECK_STR(n.type, "errors");
	CHECK_STR(n.type_instance, "openat");
	name_counter("dropped", "start_lost", &n);
	CHECK_STR(n.type, "derive");
	CHECK_STR(n.type_instance, "dropped-start_lost");
	name_gauge("hit_ratio", "", &n);
	CHECK_STR(n.type, "percent");
	CHECK_STR(n.type_instance, "hit_ratio");
	name_gauge("approximation", "read", &n);
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
	return testing_done();
}
