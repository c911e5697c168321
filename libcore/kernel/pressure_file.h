/* A pressure stall information file (PSI): /proc/pressure/{cpu,memory,io} for the host,
 * <cgroup>/{cpu,memory,io}.pressure for a cgroup v2 cgroup. Each is one or two lines,
 *
 *   some avg10=0.00 avg60=0.00 avg300=0.00 total=12345
 *   full avg10=0.00 avg60=0.00 avg300=0.00 total=678
 *
 * where total= is the microseconds, since the cgroup was made (the host: since boot), in
 * which some (full: all) of its non-idle tasks were stalled on the resource. The averages
 * are left to the kernel; only the totals are read (their deltas are exact). `full` is
 * absent from the cpu files of kernels before 5.13. */
#ifndef EBPF_CORE_PRESSURE_FILE_H
#define EBPF_CORE_PRESSURE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The resources read, in this order everywhere ("cpu", "memory", "io"). */
enum pressure_resource { PRESSURE_CPU, PRESSURE_MEMORY, PRESSURE_IO, PRESSURE_RESOURCES };

struct pressure_totals {
	uint64_t some, full; /* microseconds */
	bool has_full;
};

/* "cpu", "memory", "io". */
const char *pressure_resource_name(enum pressure_resource r);

/* Parses a file's text: 0, or -1 with err saying which line is wrong and how (a line that
 * is neither `some` nor `full`, no total=, a total that is not a whole number, no `some`). */
int pressure_parse(const char *text, struct pressure_totals *out, char *err, size_t errlen);

/* Reads and parses the file `name` ("cpu.pressure", or "cpu" below /proc/pressure) in the
 * directory dir_fd (AT_FDCWD with an absolute name). 0; -errno when it cannot be read (then
 * err says so); -EINVAL when its text is not a pressure file's (err says why). */
int pressure_read(int dir_fd, const char *name, struct pressure_totals *out, char *err, size_t errlen);

#endif
