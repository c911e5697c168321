#include "libcore/programs/perf_event_attach.h"

#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Linux's largest NR_CPUS: a bound on what the sysfs list can name. */
#define PERF_EVENT_MAX_CPUS 8192

struct perf_event_links {
	struct bpf_link **links;
	size_t n;
};

int perf_event_parse_cpu_list(const char *text, int *out, int max)
{
	int n = 0;

	while (*text && *text != '\n') {
		char *end;
		long first = strtol(text, &end, 10), last = first;

		if (end == text || first < 0)
			return -1;
		if (*end == '-') {
			text = end + 1;
			last = strtol(text, &end, 10);
			if (end == text || last < first)
				return -1;
		}
		for (long c = first; c <= last; c++) {
			if (n == max)
				return -1;
			out[n++] = (int)c;
		}
		text = end;
		if (*text == ',')
			text++;
		else if (*text && *text != '\n')
			return -1;
	}
	return n;
}

static int online_cpus(int *cpus, char *err, size_t errlen)
{
	static const char path[] = "/sys/devices/system/cpu/online";
	char text[4096];
	FILE *f = fopen(path, "r");
	size_t len = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	int n;

	if (!f) {
		snprintf(err, errlen, "cannot read %s (%s): a perf event is opened on each online CPU", path,
			 strerror(errno));
		return -1;
	}
	fclose(f);
	text[len] = '\0';
	n = perf_event_parse_cpu_list(text, cpus, PERF_EVENT_MAX_CPUS);
	if (n <= 0)
		snprintf(err, errlen, "%s is not a list of CPUs: \"%.64s\"", path, text);
	return n;
}

int perf_event_sections_register(char *err, size_t errlen)
{
	static int handler; /* libbpf's id, above 0 once registered */
	LIBBPF_OPTS(libbpf_prog_handler_opts, opts); /* no attach: perf_event_links_attach() does it */

	if (handler > 0)
		return 0;
	handler = libbpf_register_prog_handler(PERF_EVENT_SECTION_PREFIX, BPF_PROG_TYPE_PERF_EVENT, 0, &opts);
	if (handler > 0)
		return 0;
	snprintf(err, errlen, "cannot register SEC(\"%s...\") as perf_event programs with libbpf: %s",
		 PERF_EVENT_SECTION_PREFIX, strerror(-handler));
	return -1;
}

static int open_event(const struct program_perf_event *e, int cpu)
{
	struct perf_event_attr attr = { .type = e->type, .size = sizeof(attr), .config = e->config };

	if (e->frequency) {
		attr.freq = 1;
		attr.sample_freq = e->sample;
	} else {
		attr.sample_period = e->sample;
	}
	return (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Who gave the event, for the messages: <PerfEvent "x">, or the program's section. */
static void event_origin(const struct program_perf_event *e, char *out, size_t len)
{
	if (e->section[0])
		snprintf(out, len, "program \"%s\" (SEC(\"%s\"))", e->program, e->section);
	else
		snprintf(out, len, "<PerfEvent \"%s\">", e->program);
}

/* Whether the kernel has a CPU PMU: one of /sys/bus/event_source/devices is of type 4
 * (PERF_TYPE_RAW), which the first CPU PMU registers as (x86's "cpu", ARM's "armv8_pmuv3_0");
 * without one the kernel refuses every hardware and cache event. */
static bool cpu_pmu_listed(void)
{
	static const char dir[] = "/sys/bus/event_source/devices";
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;

	while (d && !found && (de = readdir(d))) {
		char path[512];
		unsigned int type;
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s/type", dir, de->d_name);
		f = de->d_name[0] != '.' ? fopen(path, "r") : NULL;
		found = f && fscanf(f, "%u", &type) == 1 && type == PERF_TYPE_RAW;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/* Why opening e on cpu failed, with the fix. */
static void explain_open(const struct program_perf_event *e, int cpu, int error, char *err, size_t errlen)
{
	char who[PERF_EVENT_PROGRAM_MAX + PERF_EVENT_SECTION_MAX + 32], instead[PERF_EVENT_PROGRAM_MAX + 96] = "";

	event_origin(e, who, sizeof(who));
	if (e->section[0]) /* a <PerfEvent> block replaces the section's event */
		snprintf(instead, sizeof(instead), " in a <PerfEvent \"%s\"> block, which replaces the section's event",
			 e->program);
	if ((error == ENOENT || error == EOPNOTSUPP || error == ENODEV) &&
	    (e->type == PERF_TYPE_HARDWARE || e->type == PERF_TYPE_HW_CACHE) && !cpu_pmu_listed())
		snprintf(err, errlen, "%s: this machine has no %s (perf_event_open on CPU %d: %s): the kernel refused "
			 "it because it has no PMU (the CPU's performance monitoring unit: /sys/bus/event_source/"
			 "devices lists none), which hardware and cache events need and a virtual machine often "
			 "lacks; count a software event instead (Type \"software\" Config \"cpu-clock\"%s) or run "
			 "this program where the PMU is", who, e->description, cpu, strerror(error), instead);
	else if (error == ENOENT || error == EOPNOTSUPP || error == ENODEV)
		snprintf(err, errlen, "%s: this machine has no %s (perf_event_open on CPU %d: %s): the kernel refused "
			 "it, as its PMU or the event type does not count that event; `perf list` shows the events "
			 "there are; or count a software event instead (Type \"software\" Config \"cpu-clock\"%s)",
			 who, e->description, cpu, strerror(error), instead);
	else if (error == EACCES || error == EPERM)
		snprintf(err, errlen, "%s: opening %s on CPU %d is not allowed (%s): a system-wide perf event needs "
			 "CAP_PERFMON (or CAP_SYS_ADMIN) or kernel.perf_event_paranoid at 0 or below",
			 who, e->description, cpu, strerror(error));
	else if (error == EINVAL && e->frequency)
		snprintf(err, errlen, "%s: the kernel refuses %s at a sample frequency of %llu on CPU %d (%s): the most "
			 "it samples is /proc/sys/kernel/perf_event_max_sample_rate a second",
			 who, e->description, (unsigned long long)e->sample, cpu, strerror(error));
	else
		snprintf(err, errlen, "%s: cannot open %s on CPU %d: %s", who, e->description, cpu, strerror(error));
}

static int attach_one(struct perf_event_links *l, struct bpf_program *prog, const struct program_perf_event *e,
		      int cpu, char *err, size_t errlen)
{
	int fd = open_event(e, cpu), error;

	if (fd < 0) {
		explain_open(e, cpu, errno, err, errlen);
		return -1;
	}
	l->links[l->n] = bpf_program__attach_perf_event(prog, fd);
	if (!l->links[l->n]) {
		char who[PERF_EVENT_PROGRAM_MAX + PERF_EVENT_SECTION_MAX + 32];

		error = errno;
		close(fd);
		event_origin(e, who, sizeof(who));
		snprintf(err, errlen, "%s: cannot attach the program to %s on CPU %d: %s", who, e->description, cpu,
			 strerror(error));
		return -1;
	}
	l->n++; /* the link owns fd now: bpf_link__destroy() closes it */
	return 0;
}

struct perf_event_links *perf_event_links_attach(struct bpf_object *obj, const struct program_perf_event *events,
						 int nevents, char *err, size_t errlen)
{
	struct perf_event_links *l = calloc(1, sizeof(*l));
	int *cpus = calloc(PERF_EVENT_MAX_CPUS, sizeof(*cpus)), ncpus;

	if (!l || !cpus) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	ncpus = online_cpus(cpus, err, errlen);
	if (ncpus <= 0)
		goto fail;
	l->links = calloc((size_t)nevents * (size_t)ncpus, sizeof(*l->links));
	if (!l->links && nevents) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (int i = 0; i < nevents; i++) {
		struct bpf_program *prog = bpf_object__find_program_by_name(obj, events[i].program);

		if (!prog || bpf_program__fd(prog) < 0) {
			snprintf(err, errlen, "<PerfEvent \"%s\">: the object has no loaded program of that name",
				 events[i].program);
			goto fail;
		}
		for (int c = 0; c < ncpus; c++)
			if (attach_one(l, prog, &events[i], cpus[c], err, errlen))
				goto fail;
	}
	free(cpus);
	return l;
fail:
	free(cpus);
	perf_event_links_free(l);
	return NULL;
}

void perf_event_links_free(struct perf_event_links *l)
{
	if (!l)
		return;
	while (l->n)
		bpf_link__destroy(l->links[--l->n]);
	free(l->links);
	free(l);
}
