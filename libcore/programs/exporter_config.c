#define _GNU_SOURCE /* asprintf */
#include "libcore/programs/exporter_config.h"
#include "libcore/programs/exporter_decoders.h"

#include "base/safe_file.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <yaml.h>

struct walk {
	const char *file;
	yaml_document_t *doc;
	struct program_config *c;
	char *err;
	size_t errlen;
};

static yaml_node_t *node_at(const struct walk *w, int index)
{
	return yaml_document_get_node(w->doc, index);
}

/* "FILE line N column M: ..." into err; -1. Messages say where and what was expected there,
 * never the file's text: the config may be readable by root only (a key such as
 * `db_password:` put there by mistake) and the log by everyone. */
static int fail(const struct walk *w, const yaml_node_t *n, const char *fmt, ...)
{
	char why[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (n)
		snprintf(w->err, w->errlen, "ExporterConfig \"%s\" line %lu column %lu: %s", w->file,
			 (unsigned long)n->start_mark.line + 1, (unsigned long)n->start_mark.column + 1, why);
	else
		snprintf(w->err, w->errlen, "ExporterConfig \"%s\": %s", w->file, why);
	return -1;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int expect(const struct walk *w, const yaml_node_t *n, yaml_node_type_t type, const char *field)
{
	static const char *const what[] = { [YAML_SCALAR_NODE] = "a value", [YAML_SEQUENCE_NODE] = "a list",
					    [YAML_MAPPING_NODE] = "a mapping (field: value lines)" };

	if (n && n->type == type)
		return 0;
	return fail(w, n, "%s must be %s", field, what[type]);
}

static int get_text(const struct walk *w, const yaml_node_t *n, const char *field, char *out, size_t outlen)
{
	const char *s = scalar(n);

	if (!s || !s[0] || strlen(s) >= outlen)
		return fail(w, n, "%s takes a non-empty text of at most %zu characters", field, outlen - 1);
	snprintf(out, outlen, "%s", s);
	return 0;
}

static int get_number(const struct walk *w, const yaml_node_t *n, const char *field, double min, double max,
		      bool whole, double *out)
{
	const char *s = scalar(n);
	char *end;
	double v;

	errno = 0;
	v = s ? strtod(s, &end) : 0;
	if (!s || !s[0] || *end || errno || !isfinite(v) || v < min || v > max || (whole && v != floor(v)))
		return fail(w, n, "%s takes a%s number from %g to %g", field, whole ? " whole" : "", min, max);
	*out = v;
	return 0;
}

static int get_bool(const struct walk *w, const yaml_node_t *n, const char *field, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on" }, *const no[] = { "false", "no", "off" };
	const char *s = scalar(n);

	for (int i = 0; s && i < 3; i++) {
		if (!strcasecmp(s, yes[i]))
			return *out = true, 0;
		if (!strcasecmp(s, no[i]))
			return *out = false, 0;
	}
	return fail(w, n, "%s takes true or false", field);
}

/* Fields ebpf_exporter reads that are not honoured here yet: the error says so, with why. */
static int not_yet(const struct walk *w, const yaml_node_t *n, const char *field, const char *why)
{
	return fail(w, n, "field \"%s\" is not supported yet (%s); remove it or use ebpf_exporter for this config",
		    field, why);
}

/* The key is not named: it may be anything (a password pasted into the wrong file). */
static int unknown(const struct walk *w, const yaml_node_t *n, const char *where, const char *valid)
{
	return fail(w, n, "unknown field in %s; ebpf_exporter's fields there: %s", where, valid);
}

/* One field of a mapping: read takes its value (k is its key, for the messages) into what
 * the mapping describes. read_number, read_text and read_list below serve many fields:
 * min, max and whole bound the number, offset is where in `into` the value goes. */
struct field {
	const char *key;
	int (*read)(const struct walk *w, const struct field *field, const yaml_node_t *k, const yaml_node_t *val,
		    void *into);
	double min, max;
	bool whole;
	size_t offset, size; /* size: read_text's room, its '\0' included */
};

/* A number field: the double at field->offset. */
static int read_number(const struct walk *w, const struct field *field, const yaml_node_t *k, const yaml_node_t *val,
		       void *into)
{
	return get_number(w, val, field->key, field->min, field->max, field->whole,
			  (double *)((char *)into + field->offset));
}

/* A text field: the char array of field->size at field->offset. */
static int read_text(const struct walk *w, const struct field *field, const yaml_node_t *k, const yaml_node_t *val,
		     void *into)
{
	return get_text(w, val, field->key, (char *)into + field->offset, field->size);
}

/* A list field, read once all fields are: its node, at field->offset. */
static int read_list(const struct walk *w, const struct field *field, const yaml_node_t *k, const yaml_node_t *val,
		     void *into)
{
	if (expect(w, val, YAML_SEQUENCE_NODE, field->key))
		return -1;
	*(const yaml_node_t **)((char *)into + field->offset) = val;
	return 0;
}

/* The fields of `type` these read, for the tables of struct field. */
#define NUMBER_FIELD(key, min, max, whole, type, member) { key, read_number, min, max, whole, offsetof(type, member) }
#define TEXT_FIELD(key, type, member) \
	{ key, read_text, .offset = offsetof(type, member), .size = sizeof(((type *)0)->member) }
#define LIST_FIELD(key, type, member) { key, read_list, .offset = offsetof(type, member) }

/* The fields a mapping takes, in field (ended by a NULL key). A key that is not a plain word
 * is refused with unnamed, or without it as the unknown field "?"; any other key not listed
 * is unknown in `where`, whose ebpf_exporter fields `valid` names. */
struct fields {
	const char *where, *valid, *unnamed;
	const struct field *field;
};

/* Every mapping of the config is read by this one loop, so that they all refuse a field
 * they do not know alike. */
static int walk_fields(const struct walk *w, const yaml_node_t *n, const struct fields *fs, void *into)
{
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = node_at(w, p->key), *val = node_at(w, p->value);
		const char *key = scalar(k);
		const struct field *f = fs->field;

		if (!key && fs->unnamed)
			return fail(w, k, "%s", fs->unnamed);
		while (key && f->key && strcmp(f->key, key))
			f++;
		if (!key || !f->key)
			return unknown(w, k, fs->where, fs->valid);
		if (f->read(w, f, k, val, into))
			return -1;
	}
	return 0;
}

/* ---- decoders (their meaning: exporter_decoders.c) ---- */

struct decoder_read {
	struct exporter_decoder_spec spec;
	char name[PROGRAM_NAME_MAX];
	char **entries; /* static_map's "value=text" */
	int nentries;
	const char **patterns; /* regexps' (the document's strings) */
	int npatterns;
};

static void decoder_read_free(struct decoder_read *d)
{
	for (int i = 0; i < d->nentries; i++)
		free(d->entries[i]);
	free(d->entries);
	d->entries = NULL;
	d->nentries = 0;
	free(d->patterns);
	d->patterns = NULL;
	d->npatterns = 0;
}

/* static_map and regexps: each at most once in a decoder, and of the node type it takes. */
static int once_in_decoder(const struct walk *w, const char *field_name, const yaml_node_t *k, const yaml_node_t *v,
			   bool given, yaml_node_type_t type)
{
	if (given)
		return fail(w, k, "%s appears twice in one decoder", field_name);
	return expect(w, v, type, field_name);
}

static int read_regexps(const struct walk *w, const struct field *field, const yaml_node_t *k, const yaml_node_t *seq,
			void *into)
{
	struct decoder_read *d = into;
	int n;

	if (once_in_decoder(w, field->key, k, seq, d->spec.has_regexps, YAML_SEQUENCE_NODE))
		return -1;
	n = (int)(seq->data.sequence.items.top - seq->data.sequence.items.start);
	d->patterns = calloc((size_t)n + 1, sizeof(*d->patterns));
	if (!d->patterns)
		return fail(w, seq, "out of memory");
	for (int i = 0; i < n; i++) {
		const yaml_node_t *item = node_at(w, seq->data.sequence.items.start[i]);
		const char *pattern = scalar(item);

		if (!pattern || !pattern[0])
			return fail(w, item, "regexps is a list of patterns, each a non-empty text");
		d->patterns[d->npatterns++] = pattern;
	}
	d->spec.has_regexps = true;
	return 0;
}

static int read_static_map(const struct walk *w, const struct field *field, const yaml_node_t *k, const yaml_node_t *m,
			   void *into)
{
	struct decoder_read *d = into;
	int n;

	if (once_in_decoder(w, field->key, k, m, d->spec.has_static_map, YAML_MAPPING_NODE))
		return -1;
	n = (int)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
	d->entries = calloc((size_t)n + 1, sizeof(*d->entries));
	if (!d->entries)
		return fail(w, m, "out of memory");
	for (int i = 0; i < n; i++) {
		const yaml_node_pair_t *p = &m->data.mapping.pairs.start[i];
		const char *key = scalar(node_at(w, p->key)), *text = scalar(node_at(w, p->value));

		if (!key || !text || !key[0] || !text[0] || strchr(key, '=') || !strcmp(key, "*"))
			return fail(w, node_at(w, p->key), "static_map entries are `value: text`, both non-empty, the "
							   "value without '=' and not \"*\"");
		if (asprintf(&d->entries[d->nentries], "%s=%s", key, text) < 0)
			return fail(w, m, "out of memory");
		d->nentries++;
	}
	d->spec.has_static_map = true;
	return 0;
}

static int read_allow_unknown(const struct walk *w, const struct field *field, const yaml_node_t *k,
			      const yaml_node_t *v, void *into)
{
	struct decoder_read *d = into;

	if (get_bool(w, v, "allow_unknown", &d->spec.allow_unknown))
		return -1;
	d->spec.allow_unknown_given = true;
	return 0;
}

static const struct field decoder_field[] = {
	TEXT_FIELD("name", struct decoder_read, name),
	{ "static_map", read_static_map },
	{ "allow_unknown", read_allow_unknown },
	{ "regexps", read_regexps },
	{ NULL },
};
static const struct fields decoder_fields = { "a decoder", "name, static_map, regexps, allow_unknown",
					      "a decoder's field names are plain words", decoder_field };

static int read_decoder(const struct walk *w, const yaml_node_t *n, struct decoder_read *d)
{
	memset(d, 0, sizeof(*d));
	if (expect(w, n, YAML_MAPPING_NODE, "a decoder") || walk_fields(w, n, &decoder_fields, d))
		return -1;
	if (!d->name[0])
		return fail(w, n, "a decoder needs a name: `- name: uint`");
	d->spec.name = d->name;
	d->spec.static_map = (const char *const *)d->entries;
	d->spec.nstatic_map = d->nentries;
	d->spec.regexps = d->patterns;
	d->spec.nregexps = d->npatterns;
	return 0;
}

/* The label's decoders, each taking the one before's output as in ebpf_exporter. */
static int build_chain(const struct walk *w, const yaml_node_t *seq, struct program_label *l)
{
	int n = (int)(seq->data.sequence.items.top - seq->data.sequence.items.start);
	char why[768];

	if (n == 0)
		return fail(w, seq, "this label has no decoders: give it at least `- name: uint`");
	if (n > DECODER_CHAIN_MAX)
		return fail(w, seq, "this label has %d decoders, at most %d", n, DECODER_CHAIN_MAX);
	for (int i = 0; i < n; i++) {
		const yaml_node_t *dn = node_at(w, seq->data.sequence.items.start[i]);
		struct decoder_read d;
		int r = read_decoder(w, dn, &d);

		if (!r && exporter_decoder_add(&l->decoders, i, &d.spec, why, sizeof(why)))
			r = fail(w, dn, "%s", why);
		decoder_read_free(&d);
		if (r)
			return -1;
	}
	return 0;
}

/* ---- labels ---- */

/* What a label's fields give: size_node when they give its size, decoders_node its
 * decoders' list, both read once all fields are. */
struct label_read {
	struct program_label *l;
	const yaml_node_t *size_node, *decoders_node;
};

static int read_label_name(const struct walk *w, const struct field *field, const yaml_node_t *k,
			   const yaml_node_t *val, void *into)
{
	struct program_label *l = ((struct label_read *)into)->l;

	if (get_text(w, val, "name", l->name, sizeof(l->name)))
		return -1;
	if (strchr(l->name, '}'))
		return fail(w, val, "a label's name has no '}'");
	return 0;
}

static int read_label_size(const struct walk *w, const struct field *field, const yaml_node_t *k,
			   const yaml_node_t *val, void *into)
{
	struct label_read *r = into;
	double v;

	if (get_number(w, val, "size", 1, DECODE_BYTES_MAX, true, &v))
		return -1;
	r->l->size = (uint32_t)v;
	r->size_node = val;
	return 0;
}

static int read_label_padding(const struct walk *w, const struct field *field, const yaml_node_t *k,
			      const yaml_node_t *val, void *into)
{
	struct label_read *r = into;
	double v;

	if (get_number(w, val, "padding", 0, 4096, true, &v))
		return -1;
	r->l->padding = (uint32_t)v;
	return 0;
}

static const struct field label_field[] = {
	{ "name", read_label_name },
	{ "size", read_label_size },
	{ "padding", read_label_padding },
	LIST_FIELD("decoders", struct label_read, decoders_node),
	{ NULL },
};
static const struct fields label_fields = { "a label", "name, size, padding, decoders",
					    "a label's field names are plain words", label_field };

/* The histogram's bucket label, checked only: the bucket index is the rest of the key
 * (Layout "key"), read as a plain number. */
static int check_bucket_label(const struct walk *w, const yaml_node_t *n, const yaml_node_t *decoders_node,
			      const struct program_label *l)
{
	const yaml_node_t *only = decoders_node->data.sequence.items.top - decoders_node->data.sequence.items.start == 1
					  ? node_at(w, decoders_node->data.sequence.items.start[0])
					  : NULL;
	struct decoder_read d;
	int bad = !only || read_decoder(w, only, &d) || strcmp(d.name, "uint");

	if (only)
		decoder_read_free(&d);
	if (bad)
		return only && w->err[0] ? -1
					 : fail(w, decoders_node, "the histogram's last label is its bucket index: its "
								  "decoders are `- name: uint` only");
	if (l->size != 1 && l->size != 2 && l->size != 4 && l->size != 8)
		return fail(w, n, "the bucket label has size %u: a bucket index is 1, 2, 4 or 8 bytes", l->size);
	if (l->padding)
		return not_yet(w, n, "padding", "after the bucket label: the bucket is the key's last part");
	return 0;
}

/* One label into l, or (is_bucket) the histogram's bucket label, checked only. */
static int read_label(const struct walk *w, const yaml_node_t *n, struct program_label *l, bool is_bucket)
{
	struct label_read r = { .l = l };
	char why[512];

	memset(l, 0, sizeof(*l));
	if (expect(w, n, YAML_MAPPING_NODE, "a label") || walk_fields(w, n, &label_fields, &r))
		return -1;
	if (!l->name[0])
		return fail(w, n, "a label needs a name");
	if (!r.size_node)
		return fail(w, n, "this label needs its size: the bytes of the key it reads");
	if (!r.decoders_node)
		return fail(w, n, "this label needs decoders (`- name: uint` for a number)");
	decoder_chain_init(&l->decoders, l->name);
	if (is_bucket)
		return check_bucket_label(w, n, r.decoders_node, l);
	/* While it is read the YAML's text stays out of the chain's messages; once it is (the
	 * chain is checked against the object later, without the YAML's lines), they name it. */
	l->decoders.hidden = true;
	if (build_chain(w, r.decoders_node, l))
		return -1;
	/* The size against what the first decoder reads, here with the YAML's line (the object's
	 * key is checked against the sizes when it loads). */
	if (decoder_chain_check(&l->decoders, l->size, why, sizeof(why)))
		return fail(w, r.size_node, "%s: change its size", why);
	l->decoders.hidden = false;
	return 0;
}

static int read_labels(const struct walk *w, const yaml_node_t *seq, struct program_view *v, bool histogram)
{
	int n = (int)(seq->data.sequence.items.top - seq->data.sequence.items.start);
	int nlabels = histogram ? n - 1 : n;

	if (histogram && n == 0)
		return fail(w, seq, "a histogram's labels end with its bucket index: `- name: bucket` `size: 8` "
				    "`decoders: [{name: uint}]`");
	if (nlabels > PROGRAM_MAX_LABELS)
		return fail(w, seq, "%d labels, at most %d", nlabels, PROGRAM_MAX_LABELS);
	for (int i = 0; i < n; i++) {
		const yaml_node_t *ln = node_at(w, seq->data.sequence.items.start[i]);
		struct program_label bucket;

		if (histogram && i == n - 1) {
			if (read_label(w, ln, &bucket, true))
				return -1;
			continue;
		}
		if (read_label(w, ln, &v->labels[i], false)) {
			decoder_chain_free(&v->labels[i].decoders);
			return -1;
		}
		v->nlabels = i + 1;
		for (int j = 0; j < i; j++)
			if (!strcmp(v->labels[j].name, v->labels[i].name))
				return fail(w, ln, "this label has the name of the label at line %lu: give each its own",
					    (unsigned long)node_at(w, seq->data.sequence.items.start[j])->start_mark.line + 1);
	}
	return 0;
}

/* ---- metrics ---- */

/* The collectd names (doc/programs.md): type instance = the metric's name without its unit
 * suffix, then each label's value. */
static void name_series(struct program_view *v, const char *metric, const char *suffix)
{
	size_t len = strlen(metric), slen = strlen(suffix), used;

	if (len > slen && !strcmp(metric + len - slen, suffix))
		len -= slen;
	used = (size_t)snprintf(v->type_instance, sizeof(v->type_instance), "%.*s", (int)len, metric);
	for (int i = 0; i < v->nlabels && used < sizeof(v->type_instance); i++)
		used += (size_t)snprintf(v->type_instance + used, sizeof(v->type_instance) - used, "-%%{%s}",
					 v->labels[i].name);
}

static struct program_view *new_view(const struct walk *w, const yaml_node_t *n, enum program_view_kind kind)
{
	struct program_view *v;

	if (w->c->nviews == PROGRAM_MAX_VIEWS) {
		fail(w, n, "at most %d metrics in one program", PROGRAM_MAX_VIEWS);
		return NULL;
	}
	v = &w->c->views[w->c->nviews++];
	program_view_init(v, kind); /* as a <Program>'s */
	return v;
}

/* What a metric's fields say beyond its map's name, used once all are read. */
struct metric_fields {
	struct program_view *v; /* its name, as the map's, is read into v->map */
	bool hist;
	const char *where; /* "a histogram" or "a counter", for the messages */
	const yaml_node_t *labels;
	bool help;
	char bucket_type[16];
	double min, max, mult;
	bool max_given;
	const yaml_node_t *bucket_keys; /* fixed: the list, read once the type is known */
};

static int read_metric_name(const struct walk *w, const struct field *field, const yaml_node_t *k,
			    const yaml_node_t *val, void *into)
{
	struct program_view *v = ((struct metric_fields *)into)->v;

	return get_text(w, val, "name (the map's name)", v->map, sizeof(v->map));
}

static int read_help(const struct walk *w, const struct field *field, const yaml_node_t *k, const yaml_node_t *val,
		     void *into)
{
	struct metric_fields *f = into;
	const char *s = scalar(val);
	size_t n;

	if (!s)
		return fail(w, val, "help takes a text");
	/* collectd has no help text: kept for the snapshot's readers (the Prometheus endpoint),
	 * whole UTF-8 characters up to PROGRAM_HELP_MAX - 1 bytes */
	n = strlen(s);
	if (n >= sizeof(f->v->help))
		for (n = sizeof(f->v->help) - 1; n && ((unsigned char)s[n] & 0xc0) == 0x80; n--)
			;
	snprintf(f->v->help, sizeof(f->v->help), "%.*s", (int)n, s);
	f->help = true;
	return 0;
}

static int read_perf_event_array(const struct walk *w, const struct field *field, const yaml_node_t *k,
				 const yaml_node_t *val, void *into)
{
	bool flag;

	if (get_bool(w, val, "perf_event_array", &flag))
		return -1;
	if (flag)
		return not_yet(w, k, "perf_event_array", "counters sent through a perf event array");
	return 0;
}

static int read_flush_interval(const struct walk *w, const struct field *field, const yaml_node_t *k,
			       const yaml_node_t *val, void *into)
{
	return not_yet(w, k, "flush_interval", "it goes with perf_event_array");
}

static const struct field counter_field[] = {
	{ "name", read_metric_name },
	{ "help", read_help },
	LIST_FIELD("labels", struct metric_fields, labels),
	{ "perf_event_array", read_perf_event_array },
	{ "flush_interval", read_flush_interval },
	{ NULL },
};
static const struct fields counter_fields = { "a counter", "name, help, perf_event_array, flush_interval, labels",
					      "a counter's field names are plain words", counter_field };

static int read_bucket_max(const struct walk *w, const struct field *field, const yaml_node_t *k,
			   const yaml_node_t *val, void *into)
{
	struct metric_fields *f = into;

	if (get_number(w, val, "bucket_max", 0, 1000000, true, &f->max))
		return -1;
	f->max_given = true;
	return 0;
}

static int read_bucket_multiplier(const struct walk *w, const struct field *field, const yaml_node_t *k,
				  const yaml_node_t *val, void *into)
{
	struct metric_fields *f = into;

	if (get_number(w, val, "bucket_multiplier", 0, 1e12, false, &f->mult))
		return -1;
	if (f->mult == 0)
		f->mult = 1; /* ebpf_exporter's default */
	return 0;
}

static const struct field histogram_field[] = {
	{ "name", read_metric_name },
	{ "help", read_help },
	LIST_FIELD("labels", struct metric_fields, labels),
	TEXT_FIELD("bucket_type", struct metric_fields, bucket_type),
	NUMBER_FIELD("bucket_min", 0, 1000000, true, struct metric_fields, min),
	{ "bucket_max", read_bucket_max },
	{ "bucket_multiplier", read_bucket_multiplier },
	LIST_FIELD("bucket_keys", struct metric_fields, bucket_keys),
	{ NULL },
};
static const struct fields histogram_fields = {
	"a histogram", "name, help, bucket_type, bucket_min, bucket_max, bucket_multiplier, bucket_keys, labels",
	"a histogram's field names are plain words", histogram_field
};

/* bucket_type fixed: the key's bucket is one of bucket_keys (the program writes the key of the
 * bucket a value falls in, upper bounds before bucket_multiplier), in increasing order; the
 * sum is in the bucket after the last key. Other bucket values are not events, as
 * ebpf_exporter reads only the listed ones; bucket_min and bucket_max are not used. */
static int set_fixed_buckets(const struct walk *w, const yaml_node_t *n, struct program_view *v,
			     const struct metric_fields *f)
{
	const yaml_node_t *seq = f->bucket_keys;
	int count = seq ? (int)(seq->data.sequence.items.top - seq->data.sequence.items.start) : 0;

	if (count < 1 || count > PROGRAM_MAX_FIXED_BOUNDS)
		return fail(w, seq ? seq : n, "this histogram: bucket_type fixed takes bucket_keys, a list of 1 to %d "
			    "bucket values in increasing order (%d given)", PROGRAM_MAX_FIXED_BOUNDS, count);
	v->buckets = SLOTS_FIXED;
	v->key_listed_only = true;
	v->nfixed_bounds = 0;
	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++) {
		const yaml_node_t *item = node_at(w, *i);
		double key;

		/* bucket_max's range: KeyRange writes it back (program_block_text.h) */
		if (get_number(w, item, "each of bucket_keys", 0, 1000000, true, &key))
			return -1;
		if (v->nfixed_bounds && key <= v->fixed_bounds[v->nfixed_bounds - 1])
			return fail(w, item, "this histogram: bucket_keys must increase (%g after %g): they are the "
				    "buckets' upper bounds", key, v->fixed_bounds[v->nfixed_bounds - 1]);
		v->fixed_bounds[v->nfixed_bounds++] = key;
	}
	v->key_range = true;
	v->key_min = (uint64_t)v->fixed_bounds[0];
	v->key_max = (uint64_t)v->fixed_bounds[v->nfixed_bounds - 1];
	return 0;
}

/* bucket_type and bucket_max as the view's slot convention. */
static int set_histogram_buckets(const struct walk *w, const yaml_node_t *n, struct program_view *v,
				 const struct metric_fields *f)
{
	if (!strcmp(f->bucket_type, "exp2") || !strcmp(f->bucket_type, "exp2zero")) {
		v->buckets = f->bucket_type[4] ? SLOTS_EXP2ZERO : SLOTS_EXP2;
		if (f->max > 64)
			return fail(w, n, "this histogram: bucket_max %g is beyond 2^64 for %s", f->max,
				    v->buckets == SLOTS_EXP2 ? "exp2" : "exp2zero");
	} else if (!strcmp(f->bucket_type, "linear")) {
		/* bucket k holds values k (the program's k = value / step): [k, k + 1) */
		v->buckets = SLOTS_LINEAR;
		v->linear_min = 1;
		v->linear_width = 1;
		v->linear_count = f->max >= 1 ? (uint32_t)f->max : 1;
	} else if (!strcmp(f->bucket_type, "fixed")) {
		return set_fixed_buckets(w, n, v, f);
	} else {
		return fail(w, n, "this histogram: unknown bucket_type; ebpf_exporter's are exp2, exp2zero, linear, "
				  "fixed");
	}
	return 0;
}

static int finish_histogram(const struct walk *w, const yaml_node_t *n, struct program_view *v,
			    const struct metric_fields *f)
{
	if (!f->labels)
		return fail(w, n, "this histogram has no labels: they end with its bucket index (`- name: bucket`, "
			    "`size: 8`, `decoders: [{name: uint}]`)");
	v->layout = HIST_LAYOUT_KEY;
	v->multiplier = f->mult;
	if (f->bucket_keys && strcmp(f->bucket_type, "fixed"))
		return fail(w, f->bucket_keys, "this histogram: bucket_keys are for bucket_type fixed only");
	if (set_histogram_buckets(w, n, v, f))
		return -1;
	if (v->buckets == SLOTS_FIXED)
		; /* its key range is its bucket_keys' */
	else if (!f->max_given || f->max <= f->min)
		return fail(w, n, "this histogram: bucket_max must be above bucket_min (%g .. %g)", f->min, f->max);
	else {
		v->key_range = true;
		v->key_min = (uint64_t)f->min;
		v->key_max = (uint64_t)f->max;
	}
	snprintf(v->type, sizeof(v->type), "%s",
		 strlen(v->map) > 8 && !strcmp(v->map + strlen(v->map) - 8, "_seconds") ? "latency" : "gauge");
	name_series(v, v->map, "_seconds");
	return 0;
}

static int read_metric(const struct walk *w, const yaml_node_t *n, enum program_view_kind kind)
{
	struct metric_fields f = { .hist = kind == VIEW_KIND_HISTOGRAM, .mult = 1 };
	struct program_view *v;

	f.where = f.hist ? "a histogram" : "a counter";
	if (expect(w, n, YAML_MAPPING_NODE, f.where) || !(f.v = v = new_view(w, n, kind)))
		return -1;
	if (walk_fields(w, n, f.hist ? &histogram_fields : &counter_fields, &f))
		return -1;
	if (!v->map[0])
		return fail(w, n, "%s needs a name (the map's name too)", f.where);
	if (!f.help)
		return fail(w, n, "this metric needs help (ebpf_exporter requires it)");
	/* ebpf_exporter's name for it: its namespace, then the metric's name (fits: map is
	 * shorter than PROGRAM_NAME_MAX) */
	memcpy(v->family, "ebpf_exporter_", 14);
	memcpy(v->family + 14, v->map, strlen(v->map) + 1);
	if (f.labels && read_labels(w, f.labels, v, f.hist))
		return -1;
	if (f.hist)
		return finish_histogram(w, n, v, &f);
	/* ebpf_exporter: a per-CPU map's counter whose last label is "cpu" has a value per CPU,
	 * the CPU's index appended to the key as 2 bytes (program_config.h, CPUIndex) */
	if (v->nlabels && !strcmp(v->labels[v->nlabels - 1].name, "cpu"))
		v->labels[v->nlabels - 1].cpu_index = true;
	snprintf(v->type, sizeof(v->type), "derive");
	name_series(v, v->map, "_total");
	return 0;
}

static int read_metric_list(const struct walk *w, const yaml_node_t *seq, const char *key,
			    enum program_view_kind kind)
{
	if (expect(w, seq, YAML_SEQUENCE_NODE, key))
		return -1;
	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++)
		if (read_metric(w, node_at(w, *i), kind))
			return -1;
	return 0;
}

static int read_counters(const struct walk *w, const struct field *field, const yaml_node_t *k, const yaml_node_t *val,
			 void *into)
{
	return read_metric_list(w, val, "counters", VIEW_KIND_COUNTER);
}

static int read_histograms(const struct walk *w, const struct field *field, const yaml_node_t *k,
			   const yaml_node_t *val, void *into)
{
	return read_metric_list(w, val, "histograms", VIEW_KIND_HISTOGRAM);
}

static const struct field metrics_field[] = {
	{ "counters", read_counters },
	{ "histograms", read_histograms },
	{ NULL },
};
static const struct fields metrics_fields = { "metrics", "counters, histograms", NULL, metrics_field };

static int read_metrics(const struct walk *w, const struct field *field, const yaml_node_t *k, const yaml_node_t *n,
			void *into)
{
	if (expect(w, n, YAML_MAPPING_NODE, "metrics"))
		return -1;
	return walk_fields(w, n, &metrics_fields, NULL);
}

/* What a perf_events entry's fields give: type and config -1 until given. */
struct perf_event_read {
	double type, config, period, frequency;
	char target[PROGRAM_NAME_MAX];
};

static const struct field perf_event_field[] = {
	NUMBER_FIELD("type", 0, UINT32_MAX, true, struct perf_event_read, type),
	NUMBER_FIELD("name", 0, 9007199254740992.0, true, struct perf_event_read, config),
	TEXT_FIELD("target", struct perf_event_read, target),
	NUMBER_FIELD("sample_period", 1, 1e15, true, struct perf_event_read, period),
	NUMBER_FIELD("sample_frequency", 1, 1e15, true, struct perf_event_read, frequency),
	{ NULL },
};
static const struct fields perf_event_fields = { "a perf_events entry",
						 "type, name, target, sample_period, sample_frequency", NULL,
						 perf_event_field };

/* One entry of perf_events: ebpf_exporter's type (perf_event_attr.type), name (its
 * config, a number), target (the SEC("perf_event") program it runs) and sample_period or
 * sample_frequency; checked as a <PerfEvent> block is (perf_event_config.h). */
static int read_perf_event(const struct walk *w, const yaml_node_t *n)
{
	struct perf_event_read r = { .type = -1, .config = -1 };
	struct program_perf_event *e;
	char why[512];

	if (expect(w, n, YAML_MAPPING_NODE, "a perf_events entry") || walk_fields(w, n, &perf_event_fields, &r))
		return -1;
	if (r.type < 0 || r.config < 0 || !r.target[0])
		return fail(w, n, "a perf_events entry needs type, name (the event's config number) and target (the "
				  "SEC(\"perf_event\") program it runs)");
	e = program_model_new_perf_event(w->c, why, sizeof(why));
	if (!e || perf_event_set(e, r.target, (uint32_t)r.type, (uint64_t)r.config, (uint64_t)r.period,
				 (uint64_t)r.frequency, why, sizeof(why)))
		return fail(w, n, "this perf_events entry: %s", why);
	return 0;
}

static int read_perf_events(const struct walk *w, const struct field *field, const yaml_node_t *k,
			    const yaml_node_t *seq, void *into)
{
	if (expect(w, seq, YAML_SEQUENCE_NODE, "perf_events"))
		return -1;
	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++)
		if (read_perf_event(w, node_at(w, *i)))
			return -1;
	return 0;
}

/* kaddrs: kernel symbols whose addresses go into the globals kaddr_<symbol> before load
 * (KernelAddress, program_resolve.c). */
static int read_kaddrs(const struct walk *w, const struct field *field, const yaml_node_t *k, const yaml_node_t *seq,
		       void *into)
{
	char why[256];

	if (expect(w, seq, YAML_SEQUENCE_NODE, "kaddrs"))
		return -1;
	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++) {
		const yaml_node_t *item = node_at(w, *i);
		const char *symbol = scalar(item);

		if (!symbol)
			return fail(w, item, "kaddrs is a list of kernel symbol names");
		if (program_model_add_kaddr(w->c, symbol, why, sizeof(why)))
			return fail(w, item, "kaddrs: %s", why);
	}
	return 0;
}

/* What cgroup_id_map's fields give. */
struct cgroup_id_map_read {
	const char *name, *type, *patterns[CGROUP_ID_MAP_PATTERNS + 1];
	int npatterns;
};

static int read_map_name(const struct walk *w, const struct field *field, const yaml_node_t *k, const yaml_node_t *v,
			 void *into)
{
	if (!scalar(v))
		return fail(w, v, "cgroup_id_map: name takes a value");
	((struct cgroup_id_map_read *)into)->name = scalar(v);
	return 0;
}

static int read_map_type(const struct walk *w, const struct field *field, const yaml_node_t *k, const yaml_node_t *v,
			 void *into)
{
	if (!scalar(v))
		return fail(w, v, "cgroup_id_map: type takes a value");
	((struct cgroup_id_map_read *)into)->type = scalar(v)[0] ? scalar(v) : "hash";
	return 0;
}

static int read_map_regexps(const struct walk *w, const struct field *field, const yaml_node_t *k, const yaml_node_t *v,
			    void *into)
{
	struct cgroup_id_map_read *m = into;

	if (expect(w, v, YAML_SEQUENCE_NODE, "regexps"))
		return -1;
	for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
		if (m->npatterns == CGROUP_ID_MAP_PATTERNS || !scalar(node_at(w, *i)))
			return fail(w, node_at(w, *i), "cgroup_id_map: regexps is a list of at most %d patterns",
				    CGROUP_ID_MAP_PATTERNS);
		m->patterns[m->npatterns++] = scalar(node_at(w, *i));
	}
	return 0;
}

static const struct field cgroup_id_map_field[] = {
	{ "name", read_map_name },
	{ "type", read_map_type },
	{ "regexps", read_map_regexps },
	{ NULL },
};
static const struct fields cgroup_id_map_fields = { "cgroup_id_map", "name, type, regexps", NULL,
						    cgroup_id_map_field };

/* cgroup_id_map: name, type (hash, ebpf_exporter's default, or cgrp_storage), regexps
 * (CgroupIdMap, cgroup_id_map.h). */
static int read_cgroup_id_map(const struct walk *w, const struct field *field, const yaml_node_t *k,
			      const yaml_node_t *n, void *into)
{
	struct cgroup_id_map_read m = { .type = "hash" };
	char why[768];

	if (expect(w, n, YAML_MAPPING_NODE, "cgroup_id_map") || walk_fields(w, n, &cgroup_id_map_fields, &m))
		return -1;
	if (!m.name || !m.name[0])
		return fail(w, n, "cgroup_id_map needs the name of the program's map");
	if (program_model_set_cgroup_ids(w->c, m.name, m.type, m.patterns, m.npatterns, why, sizeof(why)))
		return fail(w, n, "cgroup_id_map: %s", why);
	return 0;
}

/* ebpf_exporter's tracing: spans a program writes into a ring buffer, which ebpf_exporter
 * sends to an OpenTelemetry collector. collectd has nothing to send a span to, and counting
 * them would drop what they are for (their durations and parent links), so the section is
 * refused; the fix depends on whether the config has metrics besides. */
static int refuse_tracing(const struct walk *w, const struct field *field, const yaml_node_t *k, const yaml_node_t *val,
			  void *into)
{
	const yaml_node_t *root = yaml_document_get_root_node(w->doc);
	bool has_metrics = false;

	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const char *key = scalar(node_at(w, p->key));

		has_metrics |= key && !strcmp(key, "metrics");
	}
	if (has_metrics)
		return fail(w, k, "field \"tracing\" is not supported: its spans (written into a ring buffer for "
				  "ebpf_exporter to send to an OpenTelemetry collector) have no place in collectd; delete "
				  "the tracing: section to load this config's metrics without its spans (the program's "
				  "ring buffer is then left unread), or run the config with ebpf_exporter");
	return fail(w, k, "field \"tracing\" is not supported: its spans (written into a ring buffer for "
			  "ebpf_exporter to send to an OpenTelemetry collector) have no place in collectd, and this "
			  "config has no metrics: besides them; run it with ebpf_exporter (ExporterConfig loads the "
			  "counters and histograms of metrics:)");
}

static const struct field config_field[] = {
	{ "metrics", read_metrics },
	{ "kaddrs", read_kaddrs },
	{ "cgroup_id_map", read_cgroup_id_map },
	{ "perf_events", read_perf_events },
	{ "tracing", refuse_tracing },
	{ NULL },
};
static const struct fields config_fields = { "the config", "metrics, kaddrs, cgroup_id_map, perf_events, tracing",
					     "the config's field names are plain words", config_field };

static int read_root(const struct walk *w, const yaml_node_t *root)
{
	int before = w->c->nviews;

	if (!root)
		return fail(w, NULL, "the file is empty; an ebpf_exporter config has metrics: counters/histograms");
	if (expect(w, root, YAML_MAPPING_NODE, "the config") || walk_fields(w, root, &config_fields, NULL))
		return -1;
	if (w->c->nviews == before)
		return fail(w, root, "no metrics: an ebpf_exporter config has metrics: counters/histograms");
	return 0;
}

/* libyaml's loader (and its scanner under it) takes time quadratic in how deeply flow
 * collections nest: "[[[[..." of 250 KB held collectd's configuration for 48 s. So the
 * document's events are read first, counting how deeply its lists and mappings nest, and
 * one deeper than EXPORTER_CONFIG_MAX_DEPTH is refused there, after at most that many
 * levels, before the loader builds anything. 0, or -1 with err. */
static int check_depth(const char *name, const unsigned char *text, size_t len, char *err, size_t errlen)
{
	yaml_parser_t parser;
	int depth = 0, r = 0;
	bool end = false;

	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "ExporterConfig \"%s\": out of memory", name);
		return -1;
	}
	yaml_parser_set_input_string(&parser, text, len);
	while (!end && !r) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&parser, &ev))
			break; /* the loader below reports it, as it always has */
		if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
			if (++depth > EXPORTER_CONFIG_MAX_DEPTH) {
				snprintf(err, errlen, "ExporterConfig \"%s\" line %lu column %lu: lists and mappings nested "
					 "more than %d deep; an ebpf_exporter config nests 9 (the config, metrics, "
					 "counters, a counter, labels, a label, decoders, a decoder, static_map): unnest it", name,
					 (unsigned long)ev.start_mark.line + 1, (unsigned long)ev.start_mark.column + 1,
					 EXPORTER_CONFIG_MAX_DEPTH);
				r = -1;
			}
		} else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		/* The loader reads the first document only; so does this. */
		end = ev.type == YAML_DOCUMENT_END_EVENT || ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return r;
}

int exporter_config_parse(const char *name, const unsigned char *text, size_t len, struct program_config *c,
			  char *err, size_t errlen)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct walk w = { name, &doc, c, err, errlen };
	int r;

	err[0] = '\0';
	if (check_depth(name, text, len, err, errlen))
		return -1;
	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "ExporterConfig \"%s\": out of memory", name);
		return -1;
	}
	yaml_parser_set_input_string(&parser, text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		/* libyaml's problem is its own words, never the document's text. */
		snprintf(err, errlen, "ExporterConfig \"%s\" line %lu column %lu: not YAML: %s", name,
			 (unsigned long)parser.problem_mark.line + 1, (unsigned long)parser.problem_mark.column + 1,
			 parser.problem ? parser.problem : "unreadable");
		yaml_parser_delete(&parser);
		return -1;
	}
	c->text_hidden = true;
	r = read_root(&w, yaml_document_get_root_node(&doc));
	c->text_hidden = false;
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return r;
}

/* What a user who could write the config could do; the read as the BPF object's (safe_file.h). */
static const struct safe_file_kind config_kind = {
	"ExporterConfig", "choose the maps collectd reads and the labels it logs and sends",
	EXPORTER_CONFIG_MAX_BYTES, "the 64 KiB (65536 bytes) an ebpf_exporter config may have (ebpf_exporter's largest example is "
				     "3 KB)",
};

int exporter_config_read(const char *path, struct program_config *c, char *err, size_t errlen)
{
	void *text;
	size_t len;
	int r;

	if (safe_file_read(&config_kind, path, geteuid(), &text, &len, err, errlen))
		return -1;
	r = exporter_config_parse(path, text, len, c, err, errlen);
	free(text);
	return r;
}

int exporter_object_path(const char *path, char *out, size_t outlen)
{
	size_t len = strlen(path);

	if (len <= 5 || strcmp(path + len - 5, ".yaml") || len - 5 + 7 > outlen)
		return -1;
	snprintf(out, outlen, "%.*s.bpf.o", (int)(len - 5), path);
	return 0;
}
