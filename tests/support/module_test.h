/* Shared by the kernel-function module tests (test_vfs, test_fs, test_dcache,
 * test_pagecache): which attach methods to exercise, starting a module restricted to one,
 * and capturing what it logs.
 *
 * Methods: tests/support/attach_methods.h; "auto" keeps the module's own candidate order.
 * Every method ends with one line "PASS <test> <method>" or "FAIL <test> <method> (...)"
 * for the VM runner to collect. */
#ifndef EBPF_TESTS_MODULE_TEST_H
#define EBPF_TESTS_MODULE_TEST_H

#include "base/log.h"
#include "libcore/engine/module.h"
#include "libcore/kernel/privileges.h"
#include "tests/support/attach_methods.h"
#include "tests/support/bpf_requirements.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <stdarg.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the core logged since the last reset: error count and warnings, for "said once". */
static struct {
	int errors;
	char last_error[1024];
	char warnings[4096];
} mt_log;

static void mt_log_handler(enum ebpf_log_level level, const char *msg)
{
	if (level == EBPF_LOG_ERROR) {
		mt_log.errors++;
		snprintf(mt_log.last_error, sizeof(mt_log.last_error), "%s", msg);
	} else if (level == EBPF_LOG_WARNING) {
		size_t used = strlen(mt_log.warnings);

		snprintf(mt_log.warnings + used, sizeof(mt_log.warnings) - used, "%s\n", msg);
	}
	if (level <= EBPF_LOG_INFO)
		fprintf(stderr, "ebpf: %s\n", msg);
}

static inline void mt_log_reset(void)
{
	memset(&mt_log, 0, sizeof(mt_log));
	ebpf_log_set_handler(mt_log_handler);
}

static inline int mt_count(const char *haystack, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(haystack, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* A module restricted to `method` ("auto": its own order), counting only this process,
 * with extra options (key, value) pairs terminated by NULL. Not started. */
static inline struct module *mt_module(const char *name, const char *method, ...)
{
	struct module *m = module_new(module_find(name), NULL);
	char err[ERR_MAX] = "";
	va_list ap;

	if (!m) {
		CHECK(!"module exists");
		return NULL;
	}
	m->filter_tgid = getpid();
	if (strcmp(method, "auto")) {
		struct opt_value v = { .type = OPT_STRING, .string = method };
		struct option o = { .key = "AttachOrder", .values = &v, .nvalues = 1 };

		if (module_set_option(m, &o, err, sizeof(err)))
			fprintf(stderr, "AttachOrder %s: %s\n", method, err);
	}
	va_start(ap, method);
	for (const char *key = va_arg(ap, const char *); key; key = va_arg(ap, const char *)) {
		struct opt_value v = { .type = OPT_STRING, .string = va_arg(ap, const char *) };
		struct option o = { .key = key, .values = &v, .nvalues = 1 };

		CHECK(module_set_option(m, &o, err, sizeof(err)) == 0);
	}
	va_end(ap);
	return m;
}

/* The module could not start: it must be off as "unsupported", with one error that says
 * which methods were tried for which probe point. */
static inline void mt_check_unsupported(const struct module *m)
{
	CHECK(m->state == MODULE_UNSUPPORTED);
	CHECK(mt_log.errors == 1);
	CHECK(strstr(m->last_error, "no attach method works for") != NULL);
	CHECK(strstr(mt_log.last_error, m->last_error) != NULL);
	CHECK(strstr(m->last_error, "fentry") != NULL);
	CHECK(strstr(m->last_error, "kprobe") != NULL);
}

/* EBPF_EXPECT_OFF, set by the kernel matrix from tests/vm/unavailable.list: `method` cannot
 * work on this kernel, and the module must say so in one error containing this text. */
static inline const char *mt_expected_off(void)
{
	const char *e = getenv("EBPF_EXPECT_OFF");

	return e && e[0] ? e : NULL;
}

/* The module did not start with `method`: right for "auto" on a kernel without any method
 * (the error then names the whole sweep), or where the matrix expects this method off. */
static inline void mt_check_off(const struct module *m, const char *method)
{
	const char *expect = mt_expected_off();

	if (!expect) {
		CHECK(!strcmp(method, "auto")); /* an explicit method was promised */
		mt_check_unsupported(m);
		return;
	}
	printf("  off as expected on this kernel: the error must contain \"%s\"\n", expect);
	CHECK(m->state == MODULE_UNSUPPORTED);
	CHECK(mt_log.errors == 1);
	CHECK(strstr(mt_log.last_error, m->last_error) != NULL);
	CHECK(strstr(m->last_error, expect) != NULL);
}

/* Every enabled point of a started module runs on `method` (unless "auto"). */
static inline void mt_check_methods(const struct module *m, const char *method)
{
	char used[96];

	if (mt_expected_off())
		printf("  started, but EBPF_EXPECT_OFF says this kernel cannot: %s\n", mt_expected_off());
	CHECK(!mt_expected_off());

	for (int i = 0; i < m->probes.npoints; i++) {
		const struct probe_point *p = &m->probes.points[i];

		if (!p->enabled)
			continue;
		probe_point_method(p, used, sizeof(used));
		printf("  %s: %s via %s\n", m->label, p->name, used);
		if (strcmp(method, "auto"))
			CHECK(!strncmp(used, method, strlen(method)) && strchr(":+", used[strlen(method)]));
	}
}

static inline void mt_result(const char *test, const char *method, int failures_before, const char *detail)
{
	bool ok = testing_failures == failures_before;

	printf("%s %s %s%s%s%s\n", ok ? "PASS" : "FAIL", test, method, detail ? " (" : "", detail ? detail : "",
	       detail ? ")" : "");
	fflush(stdout);
}

/* Starts m, made by mt_module for `method`. When it stays off: that is checked as this
 * kernel's outcome for the method (mt_check_off), its error must contain one of
 * must_name (NULL-terminated; NULL: any error), the test's line for the method is
 * printed and m freed: false. Started: its points' methods are checked
 * (mt_check_methods): true. failures_before: testing_failures when the method began. */
static inline bool mt_start(struct module *m, const char *test, const char *method, int failures_before,
			    const char *const *must_name)
{
	bool named = !must_name;

	if (!module_start(m)) {
		mt_check_methods(m, method);
		return true;
	}
	printf("  %s via %s is off: %s\n", m->ops->name, method, m->last_error);
	mt_check_off(m, method);
	for (int i = 0; must_name && must_name[i]; i++)
		named = named || strstr(m->last_error, must_name[i]);
	CHECK(named);
	mt_result(test, method, failures_before,
		  testing_failures == failures_before ? "module unsupported on this kernel, as reported" : m->last_error);
	module_free(m);
	return false;
}

/* Module `name` made by mt_module for `method` and started, or NULL after a failed check
 * that prints why (for tests that need it running, not a method's outcome: mt_start). */
static inline struct module *mt_started(const char *name, const char *method)
{
	struct module *m = mt_module(name, method, NULL);

	if (m && module_start(m)) {
		printf("  %s did not start: %s\n", name, m->last_error);
		CHECK(!"the module starts");
		module_free(m);
		return NULL;
	}
	return m;
}

/* Root, BTF, tracefs (the classic tracepoint method and kprobe existence checks use it). */
static inline void mt_require_root(void)
{
	require_bpf_tracing("/sys/kernel/tracing/events");
	/* Scratch files live in /var/tmp, which a minimal initramfs may not have. */
	mkdir("/var", 0755);
	mkdir("/var/tmp", 01777);
}

/* The test cannot run at all: one SKIP line per method, so a runner counting lines per
 * method sees every one, then automake's SKIP. */
static inline void mt_skip_all(const char *test, const struct method_list *ml, const char *why)
{
	for (int i = 0; i < ml->n; i++)
		printf("SKIP %s %s (%s)\n", test, ml->names[i], why);
	SKIP("%s", why);
}

#endif
