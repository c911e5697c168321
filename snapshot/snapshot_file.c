/* mkostemp */
#define _GNU_SOURCE
#include "snapshot/snapshot_file.h"
#include "base/text_rule.h"
#include "base/err_max.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int64_t snapshot_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- names --------------------------------------------------------------------------------- */

/* The one table of state names, indexed by enum snapshot_state. */
static const char *const state_names[] = {
	[SNAPSHOT_STATE_RUNNING] = "running",         [SNAPSHOT_STATE_DEGRADED] = "degraded",
	[SNAPSHOT_STATE_FAILED] = "failed",           [SNAPSHOT_STATE_UNSUPPORTED] = "unsupported",
	[SNAPSHOT_STATE_DISABLED] = "disabled",       [SNAPSHOT_STATE_CONFIGURED] = "configured",
};
#define NSTATES (int)(sizeof(state_names) / sizeof(state_names[0]))

static const char *const unit_names[] = {
	[SNAPSHOT_UNIT_NANOSECONDS] = "nanoseconds", [SNAPSHOT_UNIT_BYTES] = "bytes",
};
#define NUNITS (int)(sizeof(unit_names) / sizeof(unit_names[0]))

const char *snapshot_state_name(enum snapshot_state s)
{
	return (int)s > 0 && (int)s < NSTATES ? state_names[s] : "?";
}

const char *snapshot_unit_name(enum snapshot_unit u)
{
	return (int)u >= 0 && (int)u < NUNITS ? unit_names[u] : "?";
}

/* Index of name in names[0..n), from `from` on; -1 if absent. */
static int name_index(const char *const *names, int from, int n, const char *name)
{
	for (int i = from; i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return i;
	return -1;
}

/* ---- building a module's record ------------------------------------------------------------ */

void snapshot_module_clear_values(struct snapshot_module *sm)
{
	sm->ncounters = 0;
	sm->nhistograms = 0;
	sm->ngauges = 0;
	sm->nbuckets = 0;
	sm->nbounds = 0;
	sm->label_len = sm->label_at = 0;
	sm->label_n = 0;
}

void snapshot_module_release(struct snapshot_module *sm)
{
	free(sm->counters);
	free(sm->histograms);
	free(sm->buckets);
	sm->counters = NULL;
	sm->histograms = NULL;
	sm->buckets = NULL;
	sm->ncounters = sm->counters_cap = 0;
	sm->nhistograms = sm->histograms_cap = 0;
	free(sm->gauges);
	sm->gauges = NULL;
	sm->ngauges = sm->gauges_cap = 0;
	sm->nbuckets = sm->buckets_cap = 0;
	free(sm->bounds);
	sm->bounds = NULL;
	sm->nbounds = sm->bounds_cap = 0;
	free(sm->label_text);
	sm->label_text = NULL;
	sm->label_len = sm->label_cap = sm->label_at = 0;
	sm->label_n = 0;
}

/* Grows *array to hold one more element of size `size`. 0 or -ENOMEM. */
static int grow(void **array, int n, int *cap, size_t size)
{
	void *p;
	int ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	p = realloc(*array, (size_t)ncap * size);
	if (!p)
		return -ENOMEM;
	*array = p;
	*cap = ncap;
	return 0;
}

bool snapshot_label_name_ok(const char *name)
{
	const char *p = name + (*name == '@');

	if ((*p < 'a' || *p > 'z') && (*p < 'A' || *p > 'Z') && *p != '_')
		return false;
	return strlen(name) < SNAPSHOT_LABEL_NAME_MAX &&
	       strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == strlen(p);
}

int snapshot_labels(const struct snapshot_module *sm, const struct snapshot_labels *l, const char **names,
		    const char **values, int max)
{
	const char *p = sm->label_text ? sm->label_text + l->at : NULL;
	int n = 0;

	for (; p && n < l->n && n < max; n++) {
		names[n] = p;
		p += strlen(p) + 1;
		values[n] = p;
		p += strlen(p) + 1;
	}
	return n;
}

const char *snapshot_label(const struct snapshot_module *sm, const struct snapshot_labels *l, const char *name)
{
	const char *names[SNAPSHOT_MAX_LABELS], *values[SNAPSHOT_MAX_LABELS];
	int n = snapshot_labels(sm, l, names, values, SNAPSHOT_MAX_LABELS);

	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return values[i];
	return NULL;
}

int snapshot_module_label(struct snapshot_module *sm, const char *name, const char *value)
{
	struct snapshot_labels staged = { .at = sm->label_at, .n = sm->label_n };
	size_t nlen = strlen(name) + 1, vlen = strlen(value) + 1;

	if (!snapshot_label_name_ok(name) || vlen > SNAPSHOT_LABEL_VALUE_MAX || sm->label_n >= SNAPSHOT_MAX_LABELS ||
	    snapshot_label(sm, &staged, name))
		return -EINVAL;
	if (sm->label_len + nlen + vlen > sm->label_cap) {
		uint32_t cap = sm->label_cap ? sm->label_cap : 4096;
		char *p;

		while (sm->label_len + nlen + vlen > cap)
			cap *= 2;
		if (!(p = realloc(sm->label_text, cap)))
			return -ENOMEM;
		sm->label_text = p;
		sm->label_cap = cap;
	}
	memcpy(sm->label_text + sm->label_len, name, nlen);
	memcpy(sm->label_text + sm->label_len + nlen, value, vlen);
	sm->label_len += (uint32_t)(nlen + vlen);
	sm->label_n++;
	return 0;
}

/* The labels staged for the record being added, and none for the next. */
static struct snapshot_labels take_labels(struct snapshot_module *sm)
{
	struct snapshot_labels l = { .at = sm->label_at, .n = sm->label_n };

	sm->label_at = sm->label_len;
	sm->label_n = 0;
	return l;
}

int snapshot_module_add_counter(struct snapshot_module *sm, const char *metric, const char *instance,
				uint64_t value)
{
	struct snapshot_counter *c;

	if (grow((void **)&sm->counters, sm->ncounters, &sm->counters_cap, sizeof(*c))) {
		take_labels(sm); /* not the next record's */
		return -ENOMEM;
	}
	c = &sm->counters[sm->ncounters++];
	snprintf(c->metric, sizeof(c->metric), "%s", metric);
	snprintf(c->instance, sizeof(c->instance), "%s", instance);
	c->value = value;
	c->labels = take_labels(sm);
	return 0;
}

int snapshot_module_add_gauge(struct snapshot_module *sm, const char *metric, const char *instance, double value)
{
	struct snapshot_gauge *g;

	if (grow((void **)&sm->gauges, sm->ngauges, &sm->gauges_cap, sizeof(*g))) {
		take_labels(sm);
		return -ENOMEM;
	}
	g = &sm->gauges[sm->ngauges++];
	snprintf(g->metric, sizeof(g->metric), "%s", metric);
	snprintf(g->instance, sizeof(g->instance), "%s", instance);
	g->value = value;
	g->labels = take_labels(sm);
	return 0;
}

struct snapshot_histogram *snapshot_module_add_histogram(struct snapshot_module *sm, const char *metric,
							 const char *instance)
{
	struct snapshot_histogram *h;

	if (grow((void **)&sm->histograms, sm->nhistograms, &sm->histograms_cap, sizeof(*h))) {
		take_labels(sm);
		return NULL;
	}
	h = &sm->histograms[sm->nhistograms++];
	memset(h, 0, sizeof(*h));
	snprintf(h->metric, sizeof(h->metric), "%s", metric);
	snprintf(h->instance, sizeof(h->instance), "%s", instance);
	h->mean = h->p50 = h->p95 = h->p99 = NAN;
	h->first_bucket = sm->nbuckets;
	h->first_bound = sm->nbounds;
	h->labels = take_labels(sm);
	return h;
}

int snapshot_module_add_bucket(struct snapshot_module *sm, unsigned int slot, uint64_t count)
{
	if (!sm->nhistograms || grow((void **)&sm->buckets, sm->nbuckets, &sm->buckets_cap, sizeof(*sm->buckets)))
		return -ENOMEM;
	sm->buckets[sm->nbuckets++] = (struct snapshot_bucket){ .slot = slot, .count = count };
	sm->histograms[sm->nhistograms - 1].nbuckets++;
	return 0;
}

const struct snapshot_bucket *snapshot_buckets(const struct snapshot_module *sm, const struct snapshot_histogram *h)
{
	return sm->buckets ? sm->buckets + h->first_bucket : NULL; /* no arithmetic on NULL */
}

/* A bound's `le`: a decimal number as the exposition formats read it, no longer than the
 * field. */
static bool bound_text_ok(const char *le, double *value)
{
	char *end;

	if (!le[0] || strlen(le) >= SNAPSHOT_BOUND_TEXT || strspn(le, "0123456789.e+-") != strlen(le))
		return false;
	*value = strtod(le, &end);
	return !*end && isfinite(*value);
}

int snapshot_module_add_bound(struct snapshot_module *sm, const char *le, uint64_t count)
{
	struct snapshot_histogram *h = sm->nhistograms ? &sm->histograms[sm->nhistograms - 1] : NULL;
	double v;

	if (!h || !bound_text_ok(le, &v) || (h->nbounds && v <= strtod(sm->bounds[sm->nbounds - 1].le, NULL)))
		return -EINVAL;
	if (grow((void **)&sm->bounds, sm->nbounds, &sm->bounds_cap, sizeof(*sm->bounds)))
		return -ENOMEM;
	sm->bounds[sm->nbounds] = (struct snapshot_bound){ .count = count };
	snprintf(sm->bounds[sm->nbounds++].le, SNAPSHOT_BOUND_TEXT, "%s", le);
	h->nbounds++;
	return 0;
}

const struct snapshot_bound *snapshot_bounds(const struct snapshot_module *sm, const struct snapshot_histogram *h)
{
	return sm->bounds ? sm->bounds + h->first_bound : NULL;
}

void snapshot_bucket_bounds(const struct snapshot_histogram *h, const struct snapshot_bucket *b, double *lower,
			    double *upper)
{
	*lower = (double)hist_slot_lower_bound(h->precision, b->slot);
	*upper = b->slot >= HIST_LAST_SLOT(h->precision) ? INFINITY : (double)hist_slot_upper_bound(h->precision, b->slot);
}

/* ---- writing ----------------------------------------------------------------------------------- */

/* A string field: TAB, newline and backslash in the format's escapes, and what else
 * base/text_rule.h's rule refuses as the text "\xHH" (its backslash written \\, so a reader
 * reads "\xHH"): the file is valid UTF-8 without controls, whatever reached the writer. The
 * text a reader gets back is cut, at a whole character or escape, to less than `cap` bytes
 * (the reader's field: escapes make a text longer than it was) so that it reads back. */
static void put_text(FILE *f, const char *s, size_t cap)
{
	size_t back = 0; /* bytes a reader gets back so far */

	while (*s) {
		bool keep;
		size_t n = text_unit(s, &keep), len = keep || *s == '\t' || *s == '\n' ? n : 4 * n;

		if (back + len >= cap)
			break;
		back += len;
		if (*s == '\t')
			fputs("\\t", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '\\')
			fputs("\\\\", f);
		else if (keep)
			fwrite(s, 1, n, f);
		else
			for (size_t i = 0; i < n; i++)
				fprintf(f, "\\\\x%02x", (unsigned char)s[i]);
		s += n;
	}
}

static void put_string_cut(FILE *f, const char *s, size_t cap)
{
	fputc('\t', f);
	put_text(f, s, cap);
}

/* A field the reader reads into an array (its size the cap), or a name of ours (no cap). */
#define put_field(f, array) put_string_cut((f), (array), sizeof(array))
#define put_string(f, s) put_string_cut((f), (s), SIZE_MAX)

/* Percentiles and means: "-" for an empty interval, so that nobody reads a made-up 0. */
static void put_double(FILE *f, double v)
{
	if (isnan(v))
		fputs("\t-", f);
	else if (isinf(v))
		fputs("\tinf", f);
	else
		fprintf(f, "\t%.17g", v);
}

/* A record's labels, each "\tname=value", and its line's end. */
static void put_labels_end(FILE *f, const struct snapshot_module *sm, const struct snapshot_labels *l)
{
	const char *names[SNAPSHOT_MAX_LABELS], *values[SNAPSHOT_MAX_LABELS];
	int n = snapshot_labels(sm, l, names, values, SNAPSHOT_MAX_LABELS);

	for (int i = 0; i < n; i++) {
		put_string(f, names[i]); /* checked by snapshot_module_label(): no escapes */
		fputc('=', f);
		put_text(f, values[i], SNAPSHOT_LABEL_VALUE_MAX);
	}
	fputc('\n', f);
}

static void write_histogram(FILE *f, const struct snapshot_module *sm, const struct snapshot_histogram *h)
{
	const struct snapshot_bucket *b = snapshot_buckets(sm, h);
	const struct snapshot_bound *own = snapshot_bounds(sm, h);

	fputs("histogram", f);
	put_field(f, h->metric);
	put_field(f, h->instance);
	put_string(f, snapshot_unit_name(h->unit));
	fprintf(f, "\t%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64, h->precision, h->count, h->sum, h->interval_count);
	put_double(f, h->mean);
	put_double(f, h->p50);
	put_double(f, h->p95);
	put_double(f, h->p99);
	put_labels_end(f, sm, &h->labels);
	for (int i = 0; i < h->nbuckets; i++)
		fprintf(f, "bucket\t%u\t%" PRIu64 "\n", b[i].slot, b[i].count);
	for (int i = 0; i < h->nbounds; i++) /* checked by snapshot_module_add_bound(): no escapes */
		fprintf(f, "bound\t%s\t%" PRIu64 "\n", own[i].le, own[i].count);
}

const char *snapshot_event_field(const struct snapshot_event *e, const char *name)
{
	for (int i = 0; i < e->nfields; i++)
		if (!strcmp(e->fields[i].name, name))
			return e->fields[i].value;
	return NULL;
}

static void write_event(FILE *f, const struct snapshot_event *e)
{
	fprintf(f, "event\t%" PRIu64 "\t%" PRIu64 "\t%" PRId64, e->run, e->seq, e->time_us);
	put_field(f, e->kind);
	put_field(f, e->severity);
	put_field(f, e->module);
	put_field(f, e->subject);
	put_field(f, e->message);
	for (int i = 0; i < e->nfields && i < SNAPSHOT_EVENT_MAX_FIELDS; i++) {
		/* name=value, each cut to its own field; the plugin's own names have no '=': a
		 * reader splits at the first one. */
		put_field(f, e->fields[i].name);
		fputc('=', f);
		put_text(f, e->fields[i].value, sizeof(e->fields[i].value));
	}
	fputc('\n', f);
}

int snapshot_write_stream(FILE *f, const struct snapshot_module *const *modules, int nmodules,
			  int64_t written_us)
{
	return snapshot_write_stream_events(f, modules, nmodules, NULL, 0, written_us);
}

int snapshot_write_stream_events(FILE *f, const struct snapshot_module *const *modules, int nmodules,
				 const struct snapshot_event *events, int nevents, int64_t written_us)
{
	/* A write that fails leaves its errno (ENOSPC: a full disk) for the error below; stdio
	 * tries again with each later write and fails the same way. */
	errno = 0;
	fprintf(f, SNAPSHOT_MAGIC "\t%d\nwritten\t%" PRId64 "\n", SNAPSHOT_FORMAT_VERSION, written_us);
	for (int i = 0; i < nmodules; i++) {
		const struct snapshot_module *sm = modules[i];

		fputs("module", f);
		put_field(f, sm->label);
		put_string(f, snapshot_state_name(sm->state));
		fprintf(f, "\t%" PRId64, sm->discontinuity_us);
		put_field(f, sm->methods);
		put_field(f, sm->error);
		fputc('\n', f);
		for (int c = 0; c < sm->ncounters; c++) {
			fputs("counter", f);
			put_field(f, sm->counters[c].metric);
			put_field(f, sm->counters[c].instance);
			fprintf(f, "\t%" PRIu64, sm->counters[c].value);
			put_labels_end(f, sm, &sm->counters[c].labels);
		}
		for (int g = 0; g < sm->ngauges; g++) {
			fputs("gauge", f);
			put_field(f, sm->gauges[g].metric);
			put_field(f, sm->gauges[g].instance);
			put_double(f, sm->gauges[g].value);
			put_labels_end(f, sm, &sm->gauges[g].labels);
		}
		for (int h = 0; h < sm->nhistograms; h++)
			write_histogram(f, sm, &sm->histograms[h]);
	}
	for (int i = nevents > SNAPSHOT_MAX_EVENTS ? nevents - SNAPSHOT_MAX_EVENTS : 0; i < nevents; i++)
		write_event(f, &events[i]);
	fputs("end\n", f);
	return ferror(f) ? -(errno ? errno : EIO) : 0;
}

/* A temporary name next to `name`, created with O_EXCL and O_NOFOLLOW in dirfd: nothing
 * that was there (a link someone planted) is opened. */
static int create_temp_at(int dirfd, const char *name, char *tmp, size_t len)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";

	for (int attempt = 0; attempt < 100; attempt++) {
		struct timespec ts;
		unsigned long r;
		char suffix[7];
		int fd;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = (unsigned long)ts.tv_nsec * 2654435761u ^ (unsigned long)getpid() << 16 ^ (unsigned long)attempt;
		for (int i = 0; i < 6; i++, r /= 36)
			suffix[i] = digits[r % 36];
		suffix[6] = '\0';
		snprintf(tmp, len, ".%s.%s", name, suffix);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

int snapshot_write_file_at(int dirfd, const char *name, gid_t gid, const struct snapshot_module *const *modules,
			   int nmodules, const struct snapshot_event *events, int nevents, int64_t written_us,
			   char *err, size_t errlen)
{
	char tmp[4096];
	int fd, e;
	FILE *f;

	/* Same directory as the target: rename() is atomic only within one filesystem. O_CLOEXEC:
	 * collectd's exec plugin forks while our read threads write. */
	fd = create_temp_at(dirfd, name, tmp, sizeof(tmp));
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a temporary file next to %s: %s", name, strerror(errno));
		return -1;
	}
	/* Readable by the subagent's group only: the values can reveal what processes do. */
	if (fchmod(fd, 0640) || (gid != (gid_t)-1 && fchown(fd, (uid_t)-1, gid))) {
		snprintf(err, errlen, "cannot set mode 0640 and group %u on %s: %s", (unsigned)gid, tmp,
			 strerror(errno));
		goto fail_fd;
	}
	f = fdopen(fd, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		goto fail_fd;
	}
	e = snapshot_write_stream_events(f, modules, nmodules, events, nevents, written_us);
	if (fclose(f) || e) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(e ? -e : errno));
		unlinkat(dirfd, tmp, 0);
		return -1;
	}
	if (renameat(dirfd, tmp, dirfd, name)) {
		snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, name, strerror(errno));
		unlinkat(dirfd, tmp, 0);
		return -1;
	}
	return 0;

fail_fd:
	close(fd);
	unlinkat(dirfd, tmp, 0);
	return -1;
}

int snapshot_write_file(const char *path, gid_t gid, const struct snapshot_module *const *modules,
			int nmodules, int64_t written_us, char *err, size_t errlen)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	int dirfd, r;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	else
		snprintf(dir, sizeof(dir), ".");
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		snprintf(err, errlen, "cannot create a temporary file next to %s: %s", path, strerror(errno));
		return -1;
	}
	r = snapshot_write_file_at(dirfd, slash ? slash + 1 : path, gid, modules, nmodules, NULL, 0, written_us, err,
				   errlen);
	close(dirfd);
	return r;
}

FILE *snapshot_open_file(const char *path, struct stat *st, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), e;
	FILE *f;

	if (fd < 0) {
		e = errno;
		snprintf(why, len, "cannot open %s: %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	e = EINVAL;
	if (fstat(fd, st)) {
		e = errno;
		snprintf(why, len, "cannot stat %s: %s", path, strerror(e));
	} else if (!S_ISREG(st->st_mode))
		snprintf(why, len, "%s is not a regular file: SnapshotFile names the file the plugin writes", path);
	else if (st->st_size > (off_t)SNAPSHOT_MAX_BYTES) {
		e = EFBIG;
		snprintf(why, len, "%s is larger than 16 MiB: not a snapshot of the plugin", path);
	} else if ((f = fdopen(fd, "r")))
		return f;
	else {
		e = errno;
		snprintf(why, len, "cannot read %s: %s", path, strerror(e));
	}
	close(fd);
	errno = e;
	return NULL;
}

/* ---- parsing ----------------------------------------------------------------------------------- */

/* The longest record: a histogram line with all its labels (longer than an event line
 * with all its fields). */
#define MAX_FIELDS (12 + SNAPSHOT_MAX_LABELS)
#define STR_(x) #x
#define STR(x) STR_(x)

/* Splits line (modified in place) at TABs and undoes the escapes. Returns the field count. */
static int split_fields(char *line, char **fields)
{
	int n = 0;
	char *r = line, *w = line;

	fields[n++] = w;
	for (; *r && *r != '\n'; r++) {
		if (*r == '\t') {
			*w++ = '\0';
			if (n == MAX_FIELDS)
				return MAX_FIELDS + 1;
			fields[n++] = w;
		} else if (*r == '\\' && r[1]) {
			r++;
			*w++ = *r == 't' ? '\t' : *r == 'n' ? '\n' : *r;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return n;
}

/* Numbers are read back only in the forms the writer writes ("%" PRIu64, "%" PRId64,
 * "%.17g"): strtoull alone would take " -5" (as 2^64 - 5), "+1" and "0x1p9". */
static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int parse_u64(const char *s, uint64_t *out)
{
	if (!all_digits(s))
		return -1;
	errno = 0;
	*out = strtoull(s, NULL, 10);
	return errno ? -1 : 0;
}

static int parse_i64(const char *s, int64_t *out)
{
	if (!all_digits(s[0] == '-' ? s + 1 : s))
		return -1;
	errno = 0;
	*out = strtoll(s, NULL, 10);
	return errno ? -1 : 0;
}

/* [-]digits[.digits][e[+-]digits], or "inf", or "-" for no value. */
static bool plain_decimal(const char *s)
{
	size_t n;

	s += *s == '-';
	n = strspn(s, "0123456789");
	if (n == 0)
		return false;
	s += n;
	if (*s == '.') {
		n = strspn(++s, "0123456789");
		if (n == 0)
			return false;
		s += n;
	}
	if (*s == 'e') {
		s++;
		s += *s == '-' || *s == '+';
		n = strspn(s, "0123456789");
		if (n == 0)
			return false;
		s += n;
	}
	return *s == '\0';
}

static int parse_double(const char *s, double *out)
{
	if (!strcmp(s, "-")) {
		*out = NAN;
		return 0;
	}
	if (!strcmp(s, "inf")) {
		*out = INFINITY;
		return 0;
	}
	if (!plain_decimal(s))
		return -1;
	*out = strtod(s, NULL);
	return 0;
}

static int copy_field(char *dst, size_t len, const char *src)
{
	if (strlen(src) >= len)
		return -1;
	memcpy(dst, src, strlen(src) + 1);
	return 0;
}

struct parser {
	struct snapshot *s;
	int modules_cap;
	int rows;                             /* lines after the module lines */
	struct snapshot_module *module;       /* the last module line */
	struct snapshot_histogram *histogram; /* the last histogram line */
	char why[ERR_MAX];                        /* a message with a number in it */
};

static const char *parse_module(struct parser *p, char **f, int n)
{
	struct snapshot_module *sm;
	int state;

	if (n != 6)
		return "a module line has 6 fields";
	if (p->s->nmodules == SNAPSHOT_MAX_MODULES)
		return "more than " STR(SNAPSHOT_MAX_MODULES) " modules: not a snapshot of the plugin";
	if (grow((void **)&p->s->modules, p->s->nmodules, &p->modules_cap, sizeof(*sm)))
		return "out of memory";
	sm = &p->s->modules[p->s->nmodules++];
	memset(sm, 0, sizeof(*sm));
	p->module = sm;
	p->histogram = NULL;
	if (copy_field(sm->label, sizeof(sm->label), f[1]) || !sm->label[0] ||
	    copy_field(sm->methods, sizeof(sm->methods), f[4]) || copy_field(sm->error, sizeof(sm->error), f[5]))
		return "a module field is empty or too long";
	sm->methods_set = true;
	state = name_index(state_names, 1, NSTATES, f[2]);
	if (state < 0)
		return "unknown module state";
	sm->state = (enum snapshot_state)state;
	if (parse_i64(f[3], &sm->discontinuity_us))
		return "bad discontinuity time";
	return NULL;
}

/* Fields f[from..n) as the labels of the record about to be added. */
static const char *parse_labels(struct parser *p, char **f, int from, int n)
{
	for (int i = from; i < n; i++) {
		char *eq = strchr(f[i], '=');

		if (!eq)
			return "a label is not name=value";
		*eq = '\0';
		if (!snapshot_label_name_ok(f[i]))
			return "a label name is not [A-Za-z_][A-Za-z0-9_]* (or that after '@') or too long";
		switch (snapshot_module_label(p->module, f[i], eq + 1)) {
		case 0: break;
		case -ENOMEM: return "out of memory";
		default: return "a label given twice or its value too long";
		}
	}
	return NULL;
}

static const char *parse_counter(struct parser *p, char **f, int n)
{
	uint64_t v;
	const char *why;

	if (n < 4)
		return "a counter line has 4 fields and its labels";
	if (!p->module)
		return "counter before any module line";
	if (strlen(f[1]) >= sizeof(p->module->counters->metric) || strlen(f[2]) >= sizeof(p->module->counters->instance))
		return "counter name too long";
	if (parse_u64(f[3], &v))
		return "bad counter value";
	if ((why = parse_labels(p, f, 4, n)))
		return why;
	return snapshot_module_add_counter(p->module, f[1], f[2], v) ? "out of memory" : NULL;
}

static const char *parse_gauge(struct parser *p, char **f, int n)
{
	double v;
	const char *why;

	if (n < 4)
		return "a gauge line has 4 fields and its labels";
	if (!p->module)
		return "gauge before any module line";
	if (strlen(f[1]) >= sizeof(p->module->gauges->metric) || strlen(f[2]) >= sizeof(p->module->gauges->instance))
		return "gauge name too long";
	if (parse_double(f[3], &v) || !isfinite(v))
		return "bad gauge value";
	if ((why = parse_labels(p, f, 4, n)))
		return why;
	return snapshot_module_add_gauge(p->module, f[1], f[2], v) ? "out of memory" : NULL;
}

static const char *parse_histogram(struct parser *p, char **f, int n)
{
	struct snapshot_histogram *h;
	uint64_t precision;
	int unit;
	const char *why;

	if (n < 12)
		return "a histogram line has 12 fields and its labels";
	if (!p->module)
		return "histogram before any module line";
	if (strlen(f[1]) >= sizeof(h->metric) || strlen(f[2]) >= sizeof(h->instance))
		return "histogram name too long";
	if ((why = parse_labels(p, f, 12, n)))
		return why;
	h = snapshot_module_add_histogram(p->module, f[1], f[2]);
	if (!h)
		return "out of memory";
	p->histogram = h;
	unit = name_index(unit_names, 0, NUNITS, f[3]);
	if (unit < 0)
		return "unknown histogram unit";
	h->unit = (enum snapshot_unit)unit;
	if (parse_u64(f[4], &precision) || precision > HIST_PRECISION_MAX)
		return "bad histogram precision";
	h->precision = (unsigned int)precision;
	if (parse_u64(f[5], &h->count) || parse_u64(f[6], &h->sum) || parse_u64(f[7], &h->interval_count))
		return "bad histogram count or sum";
	if (parse_double(f[8], &h->mean) || parse_double(f[9], &h->p50) || parse_double(f[10], &h->p95) ||
	    parse_double(f[11], &h->p99))
		return "bad histogram mean or percentile";
	return NULL;
}

static const char *parse_bucket(struct parser *p, char **f, int n)
{
	struct snapshot_histogram *h = p->histogram;
	uint64_t slot, count;

	if (n != 3)
		return "a bucket line has 3 fields";
	if (!h || h != &p->module->histograms[p->module->nhistograms - 1])
		return "bucket before any histogram line";
	if (parse_u64(f[1], &slot) || slot >= HIST_NSLOTS(h->precision) || parse_u64(f[2], &count))
		return "bad bucket slot or count";
	/* Increasing slots: each is one row of the MIB's bucket table, indexed by slot. */
	if (h->nbuckets && snapshot_buckets(p->module, h)[h->nbuckets - 1].slot >= slot)
		return "bucket slots out of order";
	return snapshot_module_add_bucket(p->module, (unsigned int)slot, count) ? "out of memory" : NULL;
}

static const char *parse_bound(struct parser *p, char **f, int n)
{
	struct snapshot_histogram *h = p->histogram;
	uint64_t count;
	int e;

	if (n != 3)
		return "a bound line has 3 fields";
	if (!h || h != &p->module->histograms[p->module->nhistograms - 1])
		return "bound before any histogram line";
	if (parse_u64(f[2], &count))
		return "bad bound count";
	e = snapshot_module_add_bound(p->module, f[1], count);
	return e == -ENOMEM ? "out of memory" : e ? "bad bound: not a number, or not above the one before" : NULL;
}

static const char *parse_event(struct parser *p, char **f, int n)
{
	struct snapshot_event *e;

	if (n < 9)
		return "an event line has at least 9 fields";
	if (n > 9 + SNAPSHOT_EVENT_MAX_FIELDS)
		return "an event line has more fields than the bound (SNAPSHOT_EVENT_MAX_FIELDS)";
	if (p->s->nevents == SNAPSHOT_MAX_EVENTS)
		return "more event lines than the bound (SNAPSHOT_MAX_EVENTS)";
	if (!p->s->events && !(p->s->events = calloc(SNAPSHOT_MAX_EVENTS, sizeof(*p->s->events))))
		return "out of memory";
	e = &p->s->events[p->s->nevents++];
	memset(e, 0, sizeof(*e));
	if (parse_u64(f[1], &e->run) || parse_u64(f[2], &e->seq) || parse_i64(f[3], &e->time_us))
		return "bad event run, sequence or time";
	if (p->s->nevents > 1) {
		const struct snapshot_event *prev = &e[-1];

		if (e->run < prev->run || (e->run == prev->run && e->seq <= prev->seq))
			return "event lines out of order";
	}
	if (copy_field(e->kind, sizeof(e->kind), f[4]) || !e->kind[0] ||
	    copy_field(e->severity, sizeof(e->severity), f[5]) || copy_field(e->module, sizeof(e->module), f[6]) ||
	    copy_field(e->subject, sizeof(e->subject), f[7]) || copy_field(e->message, sizeof(e->message), f[8]))
		return "an event field is empty or too long";
	for (int i = 9; i < n; i++) {
		struct snapshot_event_field *ef = &e->fields[e->nfields++];
		const char *eq = strchr(f[i], '=');

		if (!eq || eq == f[i] || (size_t)(eq - f[i]) >= sizeof(ef->name) ||
		    copy_field(ef->value, sizeof(ef->value), eq + 1))
			return "an event field is not name=value or too long";
		memcpy(ef->name, f[i], (size_t)(eq - f[i]));
		ef->name[eq - f[i]] = '\0';
	}
	return NULL;
}

static const char *parse_line(struct parser *p, int lineno, char *line, size_t len, int *ended)
{
	char *f[MAX_FIELDS];
	int n;

	/* The fields are C strings: a NUL would hide the rest of the line ("end\0..."). */
	if (strlen(line) != len)
		return "NUL byte in the line";
	n = split_fields(line, f);
	if (n > MAX_FIELDS)
		return "too many fields";
	if (lineno == 1) {
		char version[16]; /* exactly as written: "1abc" and "01" are no version 1 */

		snprintf(version, sizeof(version), "%d", SNAPSHOT_FORMAT_VERSION);
		if (n != 2 || strcmp(f[0], SNAPSHOT_MAGIC))
			return "not a collectd-ebpf snapshot";
		if (strcmp(f[1], version)) {
			snprintf(p->why, sizeof(p->why),
				 "unsupported format version %.12s: this reader reads snapshot format version %d "
				 "only; the plugin and its readers must come from one release of collectd-ebpf",
				 f[1], SNAPSHOT_FORMAT_VERSION);
			return p->why;
		}
		return NULL;
	}
	if (*ended)
		return "text after the end line";
	if (!strcmp(f[0], "written"))
		return n == 2 && !parse_i64(f[1], &p->s->written_us) ? NULL : "bad written line";
	if (!strcmp(f[0], "module"))
		return parse_module(p, f, n);
	if (strcmp(f[0], "end") && ++p->rows > SNAPSHOT_MAX_ROWS)
		return "more than " STR(SNAPSHOT_MAX_ROWS) " rows: not a snapshot of the plugin";
	if (!strcmp(f[0], "counter"))
		return parse_counter(p, f, n);
	if (!strcmp(f[0], "gauge"))
		return parse_gauge(p, f, n);
	if (!strcmp(f[0], "histogram"))
		return parse_histogram(p, f, n);
	if (!strcmp(f[0], "bucket"))
		return parse_bucket(p, f, n);
	if (!strcmp(f[0], "bound"))
		return parse_bound(p, f, n);
	if (!strcmp(f[0], "event"))
		return parse_event(p, f, n);
	if (!strcmp(f[0], "end") && n == 1) {
		*ended = 1;
		return NULL;
	}
	/* Unknown record types are an error in version 1; a later version bumps the number. */
	return "unknown record type";
}

int snapshot_parse(FILE *f, struct snapshot *out, char *err, size_t errlen)
{
	struct parser p = { .s = out };
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, ended = 0;
	const char *why = NULL;
	ssize_t len;

	size_t bytes = 0;

	memset(out, 0, sizeof(*out));
	while (!why && (len = getline(&line, &cap, f)) > 0) {
		bytes += (size_t)len;
		why = bytes > SNAPSHOT_MAX_BYTES ? "more than 16 MiB: not a snapshot of the plugin"
						 : parse_line(&p, ++lineno, line, (size_t)len, &ended);
	}
	free(line);
	if (!why && lineno == 0)
		why = "empty file";
	else if (!why && !ended)
		why = "no end line (file truncated)";
	if (why) {
		snprintf(err, errlen, "line %d: %s", lineno, why);
		snapshot_free(out);
		return -1;
	}
	return 0;
}

void snapshot_free(struct snapshot *s)
{
	for (int i = 0; i < s->nmodules; i++)
		snapshot_module_release(&s->modules[i]);
	free(s->modules);
	free(s->events);
	memset(s, 0, sizeof(*s));
}
