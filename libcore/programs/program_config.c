#include "libcore/programs/program_config.h"

#include "base/number_text.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* A name argument: one string that fits. */
static int get_name(const struct option *o, char *out, size_t outlen, char *err, size_t errlen)
{
	if (opt_expect_strings(o, 1, err, errlen))
		return -1;
	if (o->nvalues != 1 || !o->values[0].string[0] || strlen(o->values[0].string) >= outlen) {
		snprintf(err, errlen, "option \"%s\" takes one non-empty name of at most %zu characters", o->key,
			 outlen - 1);
		return -1;
	}
	snprintf(out, outlen, "%s", o->values[0].string);
	return 0;
}

/* A whole number in [min, max]. */
static int get_count(const struct option *o, double min, double max, uint32_t *out, char *err, size_t errlen)
{
	double v;

	if (opt_expect_numbers(o, 1, 1, err, errlen))
		return -1;
	v = o->values[0].number;
	if (v != floor(v) || v < min || v > max) {
		snprintf(err, errlen, "option \"%s\" takes a whole number from %g to %g, got %g", o->key, min, max, v);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int parse_label(const struct conf_node *n, struct program_label *l, char *err, size_t errlen)
{
	bool sized = false;

	if (get_name(&n->opt, l->name, sizeof(l->name), err, errlen))
		return -1;
	decoder_chain_init(&l->decoders, l->name);
	for (int i = 0; i < n->nchildren; i++) {
		const struct option *o = &n->children[i].opt;
		const char *args[DECODER_CHAIN_MAX];

		if (!strcasecmp(o->key, "Field")) {
			if (get_name(o, l->field, sizeof(l->field), err, errlen))
				return -1;
		} else if (!strcasecmp(o->key, "Size")) {
			if (get_count(o, 1, DECODE_BYTES_MAX, &l->size, err, errlen))
				return -1;
			sized = true;
		} else if (!strcasecmp(o->key, "Padding")) {
			if (get_count(o, 0, 4096, &l->padding, err, errlen))
				return -1;
		} else if (!strcasecmp(o->key, "CPUIndex")) {
			if (o->nvalues != 1 || o->values[0].type != OPT_BOOLEAN) {
				snprintf(err, errlen, "<Label \"%s\">: CPUIndex takes true or false (true: on a per-CPU map "
						      "the label is the CPU of each copy, Size 2, as ebpf_exporter's last label "
						      "\"cpu\")", l->name);
				return -1;
			}
			l->cpu_index = o->values[0].boolean;
		} else if (!strcasecmp(o->key, "Decode")) {
			int nargs = o->nvalues - 1;

			if (opt_expect_strings(o, 1, err, errlen))
				return -1;
			if (nargs > DECODER_CHAIN_MAX) {
				snprintf(err, errlen, "Decode \"%s\" has %d arguments, at most %d", o->values[0].string, nargs,
					 DECODER_CHAIN_MAX);
				return -1;
			}
			for (int a = 0; a < nargs; a++)
				args[a] = o->values[a + 1].string;
			if (decoder_chain_add(&l->decoders, o->values[0].string, args, nargs, err, errlen))
				return -1;
		} else {
			snprintf(err, errlen, "unknown option \"%s\" in <Label \"%s\">; valid: Field, Size, Padding, Decode, CPUIndex",
				 o->key, l->name);
			return -1;
		}
	}
	if (!l->field[0] == !sized) {
		snprintf(err, errlen,
			 "<Label \"%s\"> needs either Field \"member\" (a member of the key's struct) or Size N "
			 "(bytes of the key), not %s",
			 l->name, sized ? "both" : "neither");
		return -1;
	}
	if (l->field[0] && l->padding) {
		snprintf(err, errlen, "<Label \"%s\">: Padding goes with Size; a Field's place comes from BTF", l->name);
		return -1;
	}
	return 0;
}

static int parse_buckets(const struct option *o, struct program_view *v, char *err, size_t errlen)
{
	const char *name;
	int s;

	if (o->nvalues < 1 || o->values[0].type != OPT_STRING) {
		snprintf(err, errlen, "Buckets takes a slot convention: native, log2, bcc_log2, exp2, exp2zero, "
				      "linear MIN WIDTH COUNT, fixed BOUND...");
		return -1;
	}
	name = o->values[0].string;
	for (s = 0; s <= SLOTS_FIXED; s++)
		if (!strcasecmp(name, slot_convention_name((enum slot_convention)s)))
			break;
	if (s > SLOTS_FIXED) {
		snprintf(err, errlen, "Buckets \"%s\" is not a slot convention; valid: native, log2, bcc_log2, exp2, "
				      "exp2zero, linear MIN WIDTH COUNT, fixed BOUND...", name);
		return -1;
	}
	v->buckets = (enum slot_convention)s;
	for (int i = 1; i < o->nvalues; i++)
		if (o->values[i].type != OPT_NUMBER) {
			snprintf(err, errlen, "Buckets \"%s\": argument %d is not a number", name, i + 1);
			return -1;
		}
	if (v->buckets == SLOTS_LINEAR) {
		double count = o->nvalues == 4 ? o->values[3].number : 0;

		if (o->nvalues != 4 || !(o->values[2].number > 0) || o->values[1].number < 0 || count < 1 ||
		    count > 100000 || count != (double)(uint32_t)count) {
			snprintf(err, errlen, "Buckets \"linear\" takes MIN (0 or more), a WIDTH above 0 and a COUNT of "
					      "slots (1 to 100000), as bpftrace's lhist: Buckets \"linear\" 0 10 20 counts "
					      "[0, 10), [10, 20) ... [190, 200) in slots 1 to 20, below 0 in slot 0, 200 and "
					      "more in slot 21");
			return -1;
		}
		v->linear_min = o->values[1].number;
		v->linear_width = o->values[2].number;
		v->linear_count = (uint32_t)count;
	} else if (v->buckets == SLOTS_FIXED) {
		if (o->nvalues < 2 || o->nvalues - 1 > PROGRAM_MAX_FIXED_BOUNDS) {
			snprintf(err, errlen, "Buckets \"fixed\" takes 1 to %d upper bounds, in increasing order",
				 PROGRAM_MAX_FIXED_BOUNDS);
			return -1;
		}
		for (int i = 1; i < o->nvalues; i++) {
			if (i > 1 && !(o->values[i].number > o->values[i - 1].number)) {
				char hint[NUMBER_SPLIT_HINT_MAX];

				snprintf(err, errlen, "Buckets \"fixed\": bounds must increase (%g after %g)%s",
					 o->values[i].number, o->values[i - 1].number,
					 number_split_hint(o->values[i - 1].number, o->values[i].number, hint, sizeof(hint)));
				return -1;
			}
			v->fixed_bounds[v->nfixed_bounds++] = o->values[i].number;
		}
	} else if (o->nvalues != 1) {
		snprintf(err, errlen, "Buckets \"%s\" takes no arguments", name);
		return -1;
	}
	return 0;
}

/* KeyRange MIN MAX (Layout "key", ebpf_exporter's bucket_min and bucket_max): bucket
 * indexes MIN to MAX are events, MAX + 1 holds the sum, any other is not read. */
static int parse_key_range(const struct option *o, struct program_view *v, char *err, size_t errlen)
{
	if (o->nvalues != 2 || o->values[0].type != OPT_NUMBER || o->values[1].type != OPT_NUMBER ||
	    o->values[0].number < 0 || o->values[1].number < o->values[0].number || o->values[1].number > 1000000 ||
	    o->values[0].number != floor(o->values[0].number) || o->values[1].number != floor(o->values[1].number)) {
		snprintf(err, errlen, "KeyRange takes the first and last bucket index that are events, whole numbers "
				      "from 0 to 1000000, the last not below the first (ebpf_exporter's bucket_min and "
				      "bucket_max, or its fixed bucket_keys' first and last; the index after the last "
				      "holds the sum): KeyRange 0 27");
		return -1;
	}
	v->key_range = true;
	v->key_min = (uint64_t)o->values[0].number;
	v->key_max = (uint64_t)o->values[1].number;
	return 0;
}

/* ListedKeysOnly true|false (Layout "key" with Buckets "fixed", ebpf_exporter's bucket_keys):
 * only a bucket value equal to one of the bounds is an event, as ebpf_exporter reads those
 * keys and no other; false (the default) counts any value in the bucket of the first bound
 * at or above it. */
static int parse_listed_keys_only(const struct option *o, struct program_view *v, char *err, size_t errlen)
{
	if (o->nvalues != 1 || o->values[0].type != OPT_BOOLEAN) {
		snprintf(err, errlen, "ListedKeysOnly takes true or false: ListedKeysOnly true");
		return -1;
	}
	v->key_listed_only = o->values[0].boolean;
	return 0;
}

/* Each map block's keys, in the order an "unknown option" message lists them. */
static const char *const histogram_keys[] = { "Layout", "SlotsField", "SumField", "Buckets", "KeyRange", "ListedKeysOnly", "Multiplier", "Type",
					      HIST_PRECISION_KEY, "<Label>", "TypeInstance", "MaxSeries", "ReclaimAfter", "PerCPU",
					      NULL };
static const char *const value_keys[] = { "Type", "ValueField", "<Label>", "TypeInstance", "MaxSeries", "ReclaimAfter", "PerCPU",
					  NULL };

/* The option parsers below that share hist_config_option's answer: 1 the option was theirs
 * and is valid, 0 it is not theirs, -1 theirs and invalid (err set). ours() turns a
 * 0-or--1 parse into that. */
static int ours(int r)
{
	return r ? -1 : 1;
}

/* <Label>: one more, under the cap, with a name not used yet in this map block. */
static int add_view_label(const struct conf_node *n, struct program_view *v, char *err, size_t errlen)
{
	if (v->nlabels == PROGRAM_MAX_LABELS) {
		snprintf(err, errlen, "at most %d labels per map", PROGRAM_MAX_LABELS);
		return -1;
	}
	for (int i = 0; i < v->nlabels; i++)
		if (n->opt.nvalues && n->opt.values[0].type == OPT_STRING &&
		    !strcasecmp(v->labels[i].name, n->opt.values[0].string)) {
			snprintf(err, errlen, "<Label \"%s\"> appears twice", v->labels[i].name);
			return -1;
		}
	return parse_label(n, &v->labels[v->nlabels++], err, errlen);
}

/* The words of PerCPU and Layout, each at its enum's value. */
static const char *const percpu_names[] = { [PERCPU_SUM] = "sum", [PERCPU_LABEL] = "label", NULL };
static const char *const layout_names[] = { [HIST_LAYOUT_VALUE] = "value", [HIST_LAYOUT_KEY] = "key", NULL };

/* One string, one of names (ended by NULL): its index, or -1 with usage in err. */
static int get_one_of(const struct option *o, const char *const *names, const char *usage, char *err, size_t errlen)
{
	if (opt_expect_strings(o, 1, err, errlen))
		return -1;
	for (int i = 0; o->nvalues == 1 && names[i]; i++)
		if (!strcasecmp(o->values[0].string, names[i]))
			return i;
	snprintf(err, errlen, "%s", usage);
	return -1;
}

static int parse_percpu(const struct option *o, struct program_view *v, char *err, size_t errlen)
{
	int i = get_one_of(o, percpu_names, "PerCPU takes \"sum\" (the CPUs added up) or \"label\" (a cpu label)", err,
			   errlen);

	if (i < 0)
		return -1;
	v->percpu = (enum percpu_mode)i;
	v->percpu_given = true;
	return 0;
}

static int parse_layout(const struct option *o, struct program_view *v, char *err, size_t errlen)
{
	int i = get_one_of(o, layout_names,
			   "Layout takes \"value\" (a slot array in the map's value) or \"key\" (the bucket index is "
			   "the last part of the key)",
			   err, errlen);

	if (i < 0)
		return -1;
	v->layout = (enum hist_layout)i;
	return 0;
}

static int parse_multiplier(const struct option *o, struct program_view *v, char *err, size_t errlen)
{
	if (opt_expect_numbers(o, 1, 1, err, errlen))
		return -1;
	if (!(o->values[0].number > 0) || !isfinite(o->values[0].number)) {
		snprintf(err, errlen, "Multiplier takes a number above 0 (slot unit -> collectd unit, e.g. "
				      "0.000000001 for ns -> s), got %g", o->values[0].number);
		return -1;
	}
	v->multiplier = o->values[0].number;
	return 0;
}

/* The options every map block takes (ValueField only those that are not histograms). */
static int parse_view_series_option(const struct option *o, struct program_view *v, char *err, size_t errlen)
{
	if (!strcasecmp(o->key, "Type"))
		return ours(get_name(o, v->type, sizeof(v->type), err, errlen));
	if (!strcasecmp(o->key, "TypeInstance"))
		return ours(get_name(o, v->type_instance, sizeof(v->type_instance), err, errlen));
	if (!strcasecmp(o->key, "MaxSeries"))
		return ours(get_count(o, 1, 1000000, &v->max_series, err, errlen));
	if (!strcasecmp(o->key, "ReclaimAfter"))
		return ours(get_count(o, 0, 1000000, &v->reclaim_after, err, errlen));
	if (!strcasecmp(o->key, "PerCPU"))
		return ours(parse_percpu(o, v, err, errlen));
	if (v->kind != VIEW_KIND_HISTOGRAM && !strcasecmp(o->key, "ValueField"))
		return ours(get_name(o, v->value_field, sizeof(v->value_field), err, errlen));
	return 0;
}

/* The options only a <Histogram> block takes. */
static int parse_histogram_option(const struct option *o, struct program_view *v, char *err, size_t errlen)
{
	if (!strcasecmp(o->key, "Layout"))
		return ours(parse_layout(o, v, err, errlen));
	if (!strcasecmp(o->key, "SlotsField"))
		return ours(get_name(o, v->slots_field, sizeof(v->slots_field), err, errlen));
	if (!strcasecmp(o->key, "SumField"))
		return ours(get_name(o, v->sum_field, sizeof(v->sum_field), err, errlen));
	if (!strcasecmp(o->key, "Buckets"))
		return ours(parse_buckets(o, v, err, errlen));
	if (!strcasecmp(o->key, "KeyRange"))
		return ours(parse_key_range(o, v, err, errlen));
	if (!strcasecmp(o->key, "ListedKeysOnly"))
		return ours(parse_listed_keys_only(o, v, err, errlen));
	if (!strcasecmp(o->key, "Multiplier"))
		return ours(parse_multiplier(o, v, err, errlen));
	return hist_config_option(&v->hist, o, err, errlen);
}

static int parse_view_option(const struct conf_node *n, struct program_view *v, char *err, size_t errlen)
{
	const struct option *o = &n->opt;
	bool hist = v->kind == VIEW_KIND_HISTOGRAM;
	int r;

	if (!strcasecmp(o->key, "Label"))
		return add_view_label(n, v, err, errlen);
	if (n->nchildren) {
		snprintf(err, errlen, "\"%s\" is not a block; only <Label> is", o->key);
		return -1;
	}
	r = parse_view_series_option(o, v, err, errlen);
	if (!r && hist)
		r = parse_histogram_option(o, v, err, errlen);
	if (r)
		return r < 0 ? -1 : 0;
	opt_refuse_unknown(o->key, hist ? histogram_keys : value_keys, "valid", err, errlen);
	return -1;
}

static int parse_view(const struct conf_node *n, enum program_view_kind kind, struct program_view *v, char *err,
		      size_t errlen)
{
	const char *block = program_view_kind_name(kind);
	char why[768];

	program_view_init(v, kind);
	if (n->opt.nvalues != 1 || n->opt.values[0].type != OPT_STRING || !n->opt.values[0].string[0] ||
	    strlen(n->opt.values[0].string) >= sizeof(v->map)) {
		snprintf(err, errlen, "<%s> takes the map's name: <%s \"my_map\">", block, block);
		return -1;
	}
	snprintf(v->map, sizeof(v->map), "%s", n->opt.values[0].string);
	for (int i = 0; i < n->nchildren; i++)
		if (parse_view_option(&n->children[i], v, why, sizeof(why))) {
			snprintf(err, errlen, "<%s \"%s\">: %s", block, v->map, why);
			return -1;
		}
	if (!v->type[0])
		snprintf(v->type, sizeof(v->type), "%s", kind == VIEW_KIND_COUNTER ? "derive" : "gauge");
	if (kind == VIEW_KIND_HISTOGRAM && v->layout == HIST_LAYOUT_VALUE && !v->slots_field[0]) {
		snprintf(err, errlen, "<Histogram \"%s\">: Layout \"value\" needs SlotsField (the slot array's member)",
			 v->map);
		return -1;
	}
	if (kind == VIEW_KIND_HISTOGRAM && v->layout == HIST_LAYOUT_KEY && (v->slots_field[0] || v->sum_field[0])) {
		snprintf(err, errlen, "<Histogram \"%s\">: with Layout \"key\" the bucket index is the key's last part; "
				      "SlotsField and SumField belong to Layout \"value\"", v->map);
		return -1;
	}
	if (kind == VIEW_KIND_HISTOGRAM && v->layout == HIST_LAYOUT_VALUE && v->key_range) {
		snprintf(err, errlen, "<Histogram \"%s\">: KeyRange is the range of bucket indexes in the key: it goes "
				      "with Layout \"key\"", v->map);
		return -1;
	}
	if (kind == VIEW_KIND_HISTOGRAM && v->key_listed_only && (v->layout != HIST_LAYOUT_KEY || v->buckets != SLOTS_FIXED)) {
		snprintf(err, errlen, "<Histogram \"%s\">: ListedKeysOnly picks the key's bucket values that are "
				      "events among fixed bounds: it goes with Layout \"key\" and Buckets \"fixed\"", v->map);
		return -1;
	}
	if (kind == VIEW_KIND_HISTOGRAM && v->layout == HIST_LAYOUT_KEY && v->buckets == SLOTS_NATIVE) {
		snprintf(err, errlen, "<Histogram \"%s\">: the native layout is a row in the value (Layout \"value\"); "
				      "with Layout \"key\" name the convention: Buckets \"exp2\", \"log2\", ...", v->map);
		return -1;
	}
	return 0;
}

static int parse_probe(const struct conf_node *n, struct program_probe *p, char *err, size_t errlen)
{
	if (get_name(&n->opt, p->name, sizeof(p->name), err, errlen))
		return -1;
	for (int i = 0; i < n->nchildren; i++) {
		const struct option *o = &n->children[i].opt;

		if (strcasecmp(o->key, "Program") || opt_expect_strings(o, 1, err, errlen)) {
			snprintf(err, errlen, "<Probe \"%s\">: only `Program \"name\" ...` lines (the alternatives, in "
					      "order), got \"%s\"", p->name, o->key);
			return -1;
		}
		for (int a = 0; a < o->nvalues; a++) {
			if (p->nprograms == PROGRAM_MAX_ALTERNATIVES) {
				snprintf(err, errlen, "<Probe \"%s\">: at most %d programs", p->name,
					 PROGRAM_MAX_ALTERNATIVES);
				return -1;
			}
			snprintf(p->programs[p->nprograms++], PROGRAM_NAME_MAX, "%s", o->values[a].string);
		}
	}
	if (!p->nprograms) {
		snprintf(err, errlen, "<Probe \"%s\"> lists no programs: Program \"first_choice\" \"fallback\"", p->name);
		return -1;
	}
	return 0;
}

static int parse_param(const struct option *o, struct program_param *p, char *err, size_t errlen)
{
	if (o->nvalues != 2 || o->values[0].type != OPT_STRING) {
		snprintf(err, errlen, "Param takes a global's name and a number, string, true or false: "
				      "Param \"min_us\" 10, Param \"targ_per_disk\" true");
		return -1;
	}
	snprintf(p->name, sizeof(p->name), "%s", o->values[0].string);
	/* libbpf-tools' knobs are `const volatile bool`: true/false is the number 1/0, which
	 * fits a bool (a 1-byte integer in BTF) and any integer global alike. */
	p->is_number = o->values[1].type == OPT_NUMBER || o->values[1].type == OPT_BOOLEAN;
	p->number = o->values[1].type == OPT_BOOLEAN ? (o->values[1].boolean ? 1 : 0) : o->values[1].number;
	if (!p->is_number)
		snprintf(p->text, sizeof(p->text), "%s", o->values[1].string);
	return 0;
}

/* AllowProgramType / AllowHelper names, kept in the config so the policy can point at them. */
static int add_policy_names(struct program_config *c, const struct option *o, bool types, char *err, size_t errlen)
{
	int *n = types ? &c->policy.nprogram_types : &c->policy.nhelpers;
	const char **list = types ? c->policy.program_types : c->policy.helpers;

	if (opt_expect_strings(o, 1, err, errlen))
		return -1;
	for (int i = 0; i < o->nvalues; i++) {
		char *slot;

		if (*n == POLICY_MAX_ALLOWED) {
			snprintf(err, errlen, "%s: at most %d names", o->key, POLICY_MAX_ALLOWED);
			return -1;
		}
		slot = c->policy_names[(types ? 0 : POLICY_MAX_ALLOWED) + *n];
		snprintf(slot, PROGRAM_NAME_MAX, "%s", o->values[i].string);
		list[(*n)++] = slot;
	}
	return 0;
}

static int parse_object(const struct option *o, struct program_config *c, char *err, size_t errlen)
{
	if (opt_expect_strings(o, 1, err, errlen) || o->nvalues != 1 || o->values[0].string[0] != '/') {
		snprintf(err, errlen, "Object takes the absolute path of a compiled BPF object (collectd-ebpf-cc "
				      "makes one): Object \"/etc/collectd/ebpf.d/prog.bpf.o\"");
		return -1;
	}
	snprintf(c->object, sizeof(c->object), "%s", o->values[0].string);
	return 0;
}

/* Whether path names an ELF file (a compiled object, NAME.bpf.o): by its name, or by its first
 * bytes, for the message only. Not through a link (the config is then refused as one when it
 * is read, exporter_config.h), and a FIFO does not hang collectd: O_NONBLOCK. */
static bool is_elf(const char *path, size_t len)
{
	unsigned char magic[4] = { 0 };
	int fd;

	if (len > 2 && !strcmp(path + len - 2, ".o"))
		return true;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return false;
	if (read(fd, magic, sizeof(magic)) != (ssize_t)sizeof(magic))
		magic[0] = 0;
	close(fd);
	return !memcmp(magic, "\177ELF", 4);
}

/* ExporterConfig's path, which names ebpf_exporter's object too (NAME.bpf.o beside NAME.yaml):
 * what is wrong with it, said with the path. */
static int parse_exporter_config(const struct option *o, struct program_config *c, char *err, size_t errlen)
{
	static const char usage[] = "ExporterConfig takes the absolute path of one ebpf_exporter config, "
				    "once: ExporterConfig \"/etc/collectd/ebpf.d/biolatency.yaml\"";
	const char *path = o->nvalues == 1 && o->values[0].type == OPT_STRING ? o->values[0].string : NULL;
	size_t len = path ? strlen(path) : 0;

	if (!path || !len) {
		snprintf(err, errlen, "%s", usage);
		return -1;
	}
	if (c->exporter_config[0]) {
		snprintf(err, errlen, "ExporterConfig \"%.200s\" after ExporterConfig \"%.200s\": a <Program> block loads one "
			 "config; give each its own <Program>. %s", path, c->exporter_config, usage);
		return -1;
	}
	if (path[0] != '/' || len >= sizeof(c->exporter_config)) {
		snprintf(err, errlen, "ExporterConfig \"%.400s\": %s. %s", path,
			 path[0] != '/' ? "not an absolute path" : "the path is too long", usage);
		return -1;
	}
	if (is_elf(path, len)) {
		const char *base = strrchr(path, '/') + 1;
		int stem = (int)(len - (size_t)(base - path)), upto;

		if (stem > 6 && !strcmp(path + len - 6, ".bpf.o"))
			stem -= 6;
		stem = stem < 100 ? stem : 100; /* the message's room; a name is shorter */
		upto = (int)(base - path) + stem < 300 ? (int)(base - path) + stem : 300;
		snprintf(err, errlen, "ExporterConfig \"%.300s\": an ELF file (a compiled object) where an ebpf_exporter config "
			 "(YAML) is expected: give its config, ExporterConfig \"%.*s.yaml\"; the plugin loads the object "
			 "beside it by its name (%.*s.bpf.o), as ebpf_exporter does", path, upto, path, stem, base);
		return -1;
	}
	if (len <= 5 || strcmp(path + len - 5, ".yaml")) {
		const char *dot = strrchr(path, '.');
		int stem = dot && !strchr(dot, '/') ? (int)(dot - path) : (int)len;

		if (access(path, F_OK))
			snprintf(err, errlen, "ExporterConfig \"%.400s\": %s; an ebpf_exporter config is a file NAME.yaml "
				 "beside its object NAME.bpf.o. %s", path, errno == ENOENT ? "no such file" : strerror(errno),
				 usage);
		else
			snprintf(err, errlen, "ExporterConfig \"%.400s\": its name must end in .yaml, as ebpf_exporter names "
				 "its configs: the plugin loads the object beside it by that name (NAME.bpf.o beside "
				 "NAME.yaml); rename it to \"%.*s.yaml\"", path, stem < 400 ? stem : 400, path);
		return -1;
	}
	snprintf(c->exporter_config, sizeof(c->exporter_config), "%s", path);
	return 0;
}

static int add_skips(const struct option *o, struct program_config *c, char *err, size_t errlen)
{
	if (opt_expect_strings(o, 1, err, errlen))
		return -1;
	for (int i = 0; i < o->nvalues; i++) {
		if (c->nskip == PROGRAM_MAX_SKIPS) {
			snprintf(err, errlen, "Skip: at most %d programs", PROGRAM_MAX_SKIPS);
			return -1;
		}
		snprintf(c->skip[c->nskip++], PROGRAM_NAME_MAX, "%s", o->values[i].string);
	}
	return 0;
}

static int add_kernel_addresses(const struct option *o, struct program_config *c, char *err, size_t errlen)
{
	if (opt_expect_strings(o, 1, err, errlen))
		return -1;
	for (int i = 0; i < o->nvalues; i++)
		if (program_model_add_kaddr(c, o->values[i].string, err, errlen))
			return -1;
	return 0;
}

static int parse_cgroup_id_map(const struct option *o, struct program_config *c, char *err, size_t errlen)
{
	const char *patterns[CGROUP_ID_MAP_PATTERNS + 1];

	if (opt_expect_strings(o, 2, err, errlen) || o->nvalues > CGROUP_ID_MAP_PATTERNS + 2) {
		snprintf(err, errlen, "CgroupIdMap takes a map, its type and up to %d patterns: CgroupIdMap "
				      "\"cgroup_id_map\" \"hash\" \"^.*(system.slice/.*)$\"", CGROUP_ID_MAP_PATTERNS);
		return -1;
	}
	for (int i = 2; i < o->nvalues; i++)
		patterns[i - 2] = o->values[i].string;
	return program_model_set_cgroup_ids(c, o->values[0].string, o->values[1].string, patterns,
					    o->nvalues - 2, err, errlen);
}

/* <Histogram>, <Counter> or <Gauge>: one more map block, under the cap. */
static int add_view(const struct conf_node *n, struct program_config *c, char *err, size_t errlen)
{
	const char *key = n->opt.key;
	enum program_view_kind k = !strcasecmp(key, "Histogram") ? VIEW_KIND_HISTOGRAM
				   : !strcasecmp(key, "Gauge")   ? VIEW_KIND_GAUGE
								 : VIEW_KIND_COUNTER;

	if (c->nviews == PROGRAM_MAX_VIEWS) {
		snprintf(err, errlen, "at most %d map blocks", PROGRAM_MAX_VIEWS);
		return -1;
	}
	return parse_view(n, k, &c->views[c->nviews++], err, errlen);
}

static int parse_line(const struct conf_node *n, struct program_config *c, char *err, size_t errlen)
{
	const struct option *o = &n->opt;

	if (!strcasecmp(o->key, "Object"))
		return parse_object(o, c, err, errlen);
	if (!strcasecmp(o->key, "ExporterConfig"))
		return parse_exporter_config(o, c, err, errlen);
	if (!strcasecmp(o->key, "Param")) {
		if (c->nparams == PROGRAM_MAX_PARAMS) {
			snprintf(err, errlen, "at most %d Param lines", PROGRAM_MAX_PARAMS);
			return -1;
		}
		return parse_param(o, &c->params[c->nparams++], err, errlen);
	}
	if (!strcasecmp(o->key, "Probe")) {
		if (c->nprobes == PROGRAM_MAX_PROBES) {
			snprintf(err, errlen, "at most %d <Probe> blocks", PROGRAM_MAX_PROBES);
			return -1;
		}
		return parse_probe(n, &c->probes[c->nprobes++], err, errlen);
	}
	if (!strcasecmp(o->key, "PerfEvent")) {
		struct program_perf_event *e = program_model_new_perf_event(c, err, errlen);

		return e ? perf_event_parse_block(n, e, err, errlen) : -1;
	}
	if (!strcasecmp(o->key, "Skip"))
		return add_skips(o, c, err, errlen);
	if (!strcasecmp(o->key, "KernelAddress"))
		return add_kernel_addresses(o, c, err, errlen);
	if (!strcasecmp(o->key, "CgroupIdMap"))
		return parse_cgroup_id_map(o, c, err, errlen);
	if (!strcasecmp(o->key, "AllowProgramType") || !strcasecmp(o->key, "AllowHelper"))
		return add_policy_names(c, o, !strcasecmp(o->key, "AllowProgramType"), err, errlen);
	if (!strcasecmp(o->key, "Histogram") || !strcasecmp(o->key, "Counter") || !strcasecmp(o->key, "Gauge"))
		return add_view(n, c, err, errlen);
	snprintf(err, errlen, "unknown option \"%s\"; valid: Object, Param, <Probe>, Skip, AllowProgramType, "
			      "AllowHelper, <Histogram>, <Counter>, <Gauge>, ExporterConfig, KernelAddress, CgroupIdMap, "
			      "<PerfEvent>", o->key);
	return -1;
}

int program_config_parse(const struct conf_node *block, struct program_config *c, char *err, size_t errlen)
{
	char why[900];

	memset(c, 0, sizeof(*c));
	if (block->opt.nvalues != 1 || block->opt.values[0].type != OPT_STRING || !block->opt.values[0].string[0] ||
	    strlen(block->opt.values[0].string) >= sizeof(c->name) || strchr(block->opt.values[0].string, '/')) {
		snprintf(err, errlen, "<Program> takes one name (collectd's plugin instance, no '/'): "
				      "<Program \"sync_latency\">");
		return -1;
	}
	snprintf(c->name, sizeof(c->name), "%s", block->opt.values[0].string);
	for (int i = 0; i < block->nchildren; i++)
		if (parse_line(&block->children[i], c, why, sizeof(why))) {
			snprintf(err, errlen, "<Program \"%s\">: %s", c->name, why);
			return -1;
		}
	return 0;
}
