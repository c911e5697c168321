/* Root test of the seed programs (contrib/programs: sync_count, sync_latency, read_latency)
 * through the engine's program path, with their shipped .conf files: each program is built by
 * program_module_new() from its <Program> block (the Object line pointed at a checked copy of
 * the built object, a Param "filter_tgid" added), started by the engine, which tries its
 * <Probe> alternatives in order, and read into a sink after a known workload:
 *   sync_count, sync_latency: N sync() calls -> exactly N in the counter and N samples;
 *   read_latency: N buffered pread()s of a file on a scratch ext4 (generic_file_read_iter;
 *     tmpfs, the VM's root, has its own read_iter) -> exactly N samples.
 * It also asserts which alternative won: the first one where the kernel allows it (fentry for
 * read_latency, kprobe for the sync programs in the kernel matrix, EBPF_EXPECT_KFUNCS=1), and
 * a later one only after every earlier one was tried and failed (this machine: no kprobes,
 * fentry refused: the sync programs run on their tracepoints, read_latency, which has no
 * tracepoint, is off with one error naming both failures).
 *
 * Methods (tests/support/attach_methods.h): "auto" keeps the <Probe> order; a method restricts
 * every program to it (AttachOrder), so "kprobe" is the run where fentry is skipped. A
 * program that offers no alternative of that method is left out of that run. */
#include "libcore/programs/program_module.h"
#include "tests/support/loop_ext4.h"
#include "tests/support/module_test.h"
#include "plugin/presentation.h"
#include "tests/support/conf_text.h"
#include "tests/support/recording_sink.h"
#include "base/err_max.h"

enum { N = 40 };

static const char *const seeds[] = { "sync_count", "sync_latency", "read_latency" };

/* What one read sent, in the shared recorder (the caller frees it). */
static struct recording read_module(struct module *m)
{
	struct recording r = { 0 };

	CHECK(recording_read(&r, m) == 0);
	return r;
}

/* The program's counter of that instance. A program's counters come with their type,
 * derive (module.h's struct metric_id); self-metrics (dropped-recursion, ...) are other tests' business. */
static uint64_t counter_of(const struct recording *r, const char *instance)
{
	for (int i = 0; i < r->n; i++) {
		const struct recorded_value *v = &r->values[i];

		if (v->kind == RECORDED_COUNTER && !strcmp(v->type, "derive") && !strcmp(v->instance, instance))
			return v->counter;
	}
	fprintf(stderr, "  no counter \"%s\" was sent\n", instance);
	CHECK(!"the counter was sent");
	return 0;
}

/* Samples of the interval in all the histograms the read sent. */
static uint64_t histogram_samples(const struct recording *r)
{
	uint64_t n = 0;

	for (int i = 0; i < r->n; i++)
		if (r->values[i].kind == RECORDED_HISTOGRAM)
			n += r->values[i].hist->count;
	return n;
}

/* path's contents, or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = calloc(1, 65536);
	size_t n;

	if (!f || !text) {
		if (f)
			fclose(f);
		free(text);
		return NULL;
	}
	n = fread(text, 1, 65535, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

/* The shipped .conf of `name` as this test runs it: comments dropped, the Object line
 * pointing at `object`, and a Param restricting the program to this process after it. */
static char *seed_config(const char *name, const char *object)
{
	char path[512], *text, *out, *o;
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/contrib/programs/%s.conf", top ? top : ".", name);
	text = slurp(path);
	if (!text) {
		fprintf(stderr, "cannot read %s (top_srcdir: the source tree)\n", path);
		exit(1);
	}
	out = o = calloc(1, strlen(text) + 1024);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *hash = strchr(line, '#');
		const char *key = line + strspn(line, " \t");

		if (hash)
			*hash = '\0';
		if (!strncmp(key, "Object ", 7))
			o += sprintf(o, "Object \"%s\"\nParam \"filter_tgid\" %d\n", object, (int)getpid());
		else if (*key)
			o += sprintf(o, "%s\n", line);
	}
	free(text);
	return out;
}

/* The program's module, from its shipped configuration. */
static struct module *seed_module(const char *name, const char *object)
{
	char *text = seed_config(name, object), err[ERR_MAX] = "";
	struct conf_node *plugin = conf_text(text), *block = NULL, core = { 0 };
	struct presentation_set shown;
	struct module *m = NULL;

	for (int i = 0; i < plugin->nchildren; i++)
		if (!strcmp(plugin->children[i].opt.key, "Program"))
			block = (struct conf_node *)&plugin->children[i];
	CHECK(block != NULL);
	/* As the plugin does: Percentile and Bucket of the shipped .conf are the collectd
	 * front-end's, the rest is the core's. */
	if (block && presentation_take_program(block, &core, &shown, err, sizeof(err)) == 0) {
		m = program_module_new(&core, err, sizeof(err));
		presentation_program_free(&core);
		presentation_set_free(&shown);
	}
	if (!m)
		fprintf(stderr, "  %s: %s\n", name, err);
	CHECK(m != NULL);
	conf_text_free(plugin);
	free(text);
	return m;
}

/* Copies the built object into `dir` (the loader refuses files others could have written). */
static void copy_object(const char *name, const char *dir, char *dest, size_t len)
{
	char cmd[1024];
	const char *top = getenv("top_builddir");

	snprintf(dest, len, "%s/%s.bpf.o", dir, name);
	snprintf(cmd, sizeof(cmd), "cp '%s/contrib/programs/%s.bpf.o' '%s' && chmod 644 '%s'", top ? top : ".", name,
		 dest, dest);
	if (system(cmd)) {
		fprintf(stderr, "cannot copy contrib/programs/%s.bpf.o (top_builddir: the build tree, after make)\n",
			name);
		exit(1);
	}
}

static bool point_offers(const struct probe_point *p, enum attach_method a)
{
	for (int j = 0; j < p->ncandidates; j++)
		if (p->candidates[j].method == a)
			return true;
	return false;
}

/* Every probe point of m has an alternative of `method` ("auto": always). */
static bool offers(const struct module *m, const char *method)
{
	enum attach_method a;

	if (!strcmp(method, "auto"))
		return true;
	if (attach_method_parse(method, &a))
		return false;
	for (int i = 0; i < m->probes.npoints; i++)
		if (!point_offers(&m->probes.points[i], a))
			return false;
	return true;
}

/* What this kernel is known to allow, from outside the engine: the matrix says fentry and
 * kprobes work (EBPF_EXPECT_KFUNCS=1); kprobes exist where their PMU does. fentry is
 * otherwise unknown (this machine refuses it with EPERM): unknown counts as allowed-or-not. */
static bool known_allowed(enum attach_method a)
{
	const char *e = getenv("EBPF_EXPECT_KFUNCS");
	bool kfuncs = e && !strcmp(e, "1");

	if (a == ATTACH_KPROBE)
		return kfuncs || !access("/sys/bus/event_source/devices/kprobe", F_OK);
	if (a == ATTACH_FENTRY)
		return kfuncs;
	return true; /* tracepoints: every kernel of ours has the syscall ones */
}

/* The winner of each point: under "auto" the first alternative unless it failed first, and
 * never past one the kernel is known to allow; under a method, that method. */
static void check_winners(const struct module *m, const char *method)
{
	char used[96];

	for (int i = 0; i < m->probes.npoints; i++) {
		const struct probe_point *p = &m->probes.points[i];

		probe_point_method(p, used, sizeof(used));
		printf("  %s: %s via %s%s%s\n", m->label, p->name, used, p->failures[0] ? " after: " : "", p->failures);
		CHECK(p->chosen >= 0);
		if (p->chosen < 0)
			continue;
		if (strcmp(method, "auto")) {
			CHECK_STR(attach_method_name(p->candidates[p->chosen].method), method);
			continue;
		}
		for (int j = 0; j < p->chosen; j++) {
			enum attach_method a = p->candidates[j].method;

			CHECK(p->failed & (1u << j)); /* tried, and refused or absent */
			CHECK(strstr(p->failures, attach_method_name(a)) != NULL);
			if (known_allowed(a))
				fprintf(stderr, "  %s fell back past %s, which this kernel allows\n", p->name,
					attach_method_name(a));
			CHECK(!known_allowed(a));
		}
	}
	CHECK(m->state == (probe_set_fell_back(&m->probes) ? MODULE_DEGRADED : MODULE_RUNNING));
}

/* Off: only right under "auto" where no alternative is known to work, with one error that
 * names every alternative's failure. */
static void check_off(const struct module *m, const char *method)
{
	printf("  %s is off: %s\n", m->label, m->last_error);
	CHECK(!strcmp(method, "auto"));
	CHECK(m->state == MODULE_UNSUPPORTED);
	CHECK(mt_log.errors == 1);
	CHECK(strstr(m->last_error, "no attach method works for") != NULL);
	for (int i = 0; i < m->probes.npoints; i++)
		for (int j = 0; j < m->probes.points[i].ncandidates; j++) {
			enum attach_method a = m->probes.points[i].candidates[j].method;

			CHECK(!known_allowed(a));
			CHECK(strstr(m->last_error, attach_method_name(a)) != NULL);
		}
}

static void workload(const char *name, const char *mnt)
{
	char path[128], buf[4096];
	int fd;

	if (strcmp(name, "read_latency")) {
		for (int i = 0; i < N; i++)
			sync();
		return;
	}
	snprintf(path, sizeof(path), "%s/read-latency", mnt);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	for (int i = 0; i < N && fd >= 0; i++)
		CHECK(pread(fd, buf, sizeof(buf), (off_t)(i % 16) * 4096) == sizeof(buf));
	if (fd >= 0)
		close(fd);
}

/* The series whose derive counts the program's events: sync_count's counter, the
 * histograms' event counts. */
static const char *count_instance(const char *name)
{
	if (!strcmp(name, "sync_count"))
		return "sync";
	return !strcmp(name, "sync_latency") ? "sync-count" : "generic_file_read_iter-count";
}

static void run_program(const char *name, const char *method, const char *dir, const char *mnt)
{
	char object[256];
	struct module *m;
	struct recording s0, s1;

	copy_object(name, dir, object, sizeof(object));
	m = seed_module(name, object);
	if (!m)
		return;
	if (!offers(m, method)) {
		printf("  %s has no %s alternative: not part of this run\n", name, method);
		module_free(m);
		return;
	}
	if (strcmp(method, "auto")) {
		struct opt_value v = { .type = OPT_STRING, .string = method };
		struct option o = { .key = "AttachOrder", .values = &v, .nvalues = 1 };
		char err[ERR_MAX];

		CHECK(module_set_option(m, &o, err, sizeof(err)) == 0);
	}
	mt_log_reset();
	if (module_start(m)) {
		check_off(m, method);
		module_free(m);
		return;
	}
	check_winners(m, method);
	s0 = read_module(m);
	workload(name, mnt);
	s1 = read_module(m);
	printf("  %s: %llu events counted, %llu histogram samples\n", name,
	       (unsigned long long)(counter_of(&s1, count_instance(name)) - counter_of(&s0, count_instance(name))),
	       (unsigned long long)histogram_samples(&s1));
	CHECK_EQ_U64(counter_of(&s1, count_instance(name)) - counter_of(&s0, count_instance(name)), N);
	if (strcmp(name, "sync_count")) {
		CHECK_EQ_U64(histogram_samples(&s1), N);
		CHECK(recorded_count(&s1, RECORDED_HISTOGRAM, NULL, NULL) == 1);
	}
	CHECK(mt_log.errors == 0);
	recording_free(&s0);
	recording_free(&s1);
	module_free(m);
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "auto", NULL };
	char dir[] = "/var/tmp/ebpf-seed-XXXXXX", path[160], block[4096];
	struct method_list ml;
	struct loop_ext4 fs;
	int fd;

	mt_require_root();
	methods_from(argc, argv, defaults, &ml);
	if (!mkdtemp(dir))
		mt_skip_all("test_seed_probes", &ml, "cannot create a directory in /var/tmp");
	if (loop_ext4_setup(&fs, 32))
		mt_skip_all("test_seed_probes", &ml, fs.why);
	/* The file the read workload reads: 16 pages, in the page cache once written. */
	snprintf(path, sizeof(path), "%s/read-latency", fs.mnt);
	memset(block, 'r', sizeof(block));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	for (int i = 0; i < 16 && fd >= 0; i++)
		CHECK(write(fd, block, sizeof(block)) == sizeof(block));
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < ml.n; i++) {
		int before = testing_failures;

		for (size_t k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++)
			run_program(seeds[k], ml.names[i], dir, fs.mnt);
		mt_result("test_seed_probes", ml.names[i], before, NULL);
	}
	loop_ext4_teardown(&fs);
	for (size_t k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++) {
		snprintf(path, sizeof(path), "%s/%s.bpf.o", dir, seeds[k]);
		unlink(path);
	}
	rmdir(dir);
	return testing_done();
}
