#include "plugin/presentation.h"

#include "libcore/engine/module.h"
#include "base/number_text.h"
#include "libcore/hist/hist_config.h"
#include "base/err_max.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const presentation_keys[] = { "Percentile", "Bucket", "BucketType", NULL };

void presentation_init(struct presentation *p)
{
	memset(p, 0, sizeof(*p));
	p->percentiles[p->npercentiles++] = 50;
	p->percentiles[p->npercentiles++] = 95;
	p->percentiles[p->npercentiles++] = 99;
	snprintf(p->bucket_type, sizeof(p->bucket_type), "bucket");
}

/* The values of one Percentile line increase: a number written with two decimal points
 * reaches the plugin as two, the second below the first (number_split_hint()). 0, or -1
 * with err naming both. */
static int percentiles_increase(const struct option *o, char *err, size_t errlen)
{
	for (int i = 1; i < o->nvalues; i++) {
		double prev = o->values[i - 1].number, p = o->values[i].number;
		char a[32], b[32], hint[NUMBER_SPLIT_HINT_MAX];

		if (p >= prev) /* a repeat is add_percentiles()'s to name */
			continue;
		snprintf(err, errlen, "Percentile %s after %s: the values of one Percentile line must increase%s: "
			 "write each percentile as one number, in increasing order, e.g. Percentile 50 99.9",
			 number_text(p, b, sizeof(b)), number_text(prev, a, sizeof(a)),
			 number_split_hint(prev, p, hint, sizeof(hint)));
		return -1;
	}
	return 0;
}

static int add_percentiles(struct presentation *c, const struct option *o, char *err, size_t errlen)
{
	if (opt_expect_numbers(o, 1, 0, err, errlen) || percentiles_increase(o, err, errlen))
		return -1;
	if (!c->percentiles_from_user) {
		c->npercentiles = 0;
		c->percentiles_from_user = true;
	}
	for (int i = 0; i < o->nvalues; i++) {
		double p = o->values[i].number;

		if (!(p > 0 && p < 100)) {
			snprintf(err, errlen, "Percentile %g is out of range: use a number above 0 and below 100, e.g. Percentile 99", p);
			return -1;
		}
		for (int j = 0; j < c->npercentiles; j++)
			if (c->percentiles[j] == p) {
				char t[32];

				snprintf(err, errlen, "Percentile %s is given twice: each value names one series, "
					 "remove the repeat", number_text(p, t, sizeof(t)));
				return -1;
			}
		if (c->npercentiles >= PRESENTATION_MAX_PERCENTILES) {
			snprintf(err, errlen, "too many Percentile values: at most %d", PRESENTATION_MAX_PERCENTILES);
			return -1;
		}
		c->percentiles[c->npercentiles++] = p;
	}
	return 1;
}

static int add_bucket(struct presentation *c, const struct option *o, char *err, size_t errlen)
{
	double lower, upper;

	if (opt_expect_numbers(o, 2, 2, err, errlen)) {
		char why[ERR_MAX];

		snprintf(why, sizeof(why), "%s", err); /* names the argument that is wrong */
		snprintf(err, errlen, "Bucket takes two numbers, lower and upper bound (0 for none), e.g. Bucket 0 0.001: %s",
			 why);
		return -1;
	}
	lower = o->values[0].number;
	upper = o->values[1].number;
	if (lower < 0 || upper < 0 || (upper != 0 && upper <= lower)) {
		snprintf(err, errlen, "Bucket %g %g is invalid: need 0 <= lower < upper, or upper 0 for no upper bound", lower, upper);
		return -1;
	}
	for (int j = 0; j < c->nbuckets; j++)
		if (c->buckets[j].lower == lower && c->buckets[j].upper == upper) {
			char lo[32], hi[32];

			snprintf(err, errlen, "Bucket %s %s is given twice: each names one series, remove the repeat",
				 number_text(lower, lo, sizeof(lo)), number_text(upper, hi, sizeof(hi)));
			return -1;
		}
	if (c->nbuckets >= PRESENTATION_MAX_BUCKETS) {
		snprintf(err, errlen, "too many Bucket options: at most %d", PRESENTATION_MAX_BUCKETS);
		return -1;
	}
	c->buckets[c->nbuckets++] = (struct presentation_bucket){ .lower = lower, .upper = upper };
	return 1;
}

static int set_bucket_type(struct presentation *c, const struct option *o, char *err, size_t errlen)
{
	if (opt_expect_strings(o, 1, err, errlen) || o->nvalues != 1 || !o->values[0].string[0] ||
	    strlen(o->values[0].string) >= sizeof(c->bucket_type)) {
		snprintf(err, errlen, "BucketType takes one non-empty type name from types.db, e.g. BucketType \"bucket\"");
		return -1;
	}
	snprintf(c->bucket_type, sizeof(c->bucket_type), "%s", o->values[0].string);
	return 1;
}

int presentation_option(struct presentation *p, const struct option *o, char *err, size_t errlen)
{
	if (!strcasecmp(o->key, "Percentile"))
		return add_percentiles(p, o, err, errlen);
	if (!strcasecmp(o->key, "Bucket"))
		return add_bucket(p, o, err, errlen);
	if (!strcasecmp(o->key, "BucketType"))
		return set_bucket_type(p, o, err, errlen);
	return 0;
}

void presentation_add_keys(char *err, size_t errlen)
{
	opt_refusal_add_keys(err, errlen, presentation_keys, HIST_PRECISION_KEY);
}

int presentation_module_option(struct presentation *p, struct module *m, const struct option *o, char *err,
			       size_t errlen)
{
	int r = presentation_option(p, o, err, errlen);

	if (r)
		return r < 0 ? -1 : 0;
	if (module_set_option(m, o, err, errlen)) {
		presentation_add_keys(err, errlen);
		return -1;
	}
	return 0;
}

int presentation_check(const struct presentation *p, char *err, size_t errlen)
{
	if (p->nbuckets == 0 && strcmp(p->bucket_type, "bucket")) {
		snprintf(err, errlen, "BucketType \"%s\" without any Bucket has no effect; add e.g. Bucket 0 0.001, or "
			 "remove BucketType", p->bucket_type);
		return -1;
	}
	return 0;
}

/* A block's name for messages: its first value when that is a string (the core refuses
 * any other name on its own). */
static const char *block_name(const struct conf_node *n)
{
	return n->opt.nvalues >= 1 && n->opt.values[0].type == OPT_STRING ? n->opt.values[0].string : "?";
}

/* One <Histogram>: its presentation lines into p (*given: whether it had any), the others,
 * known to the core or not, into out's new list of lines. 0, or -1 with err (without the program's and histogram's
 * names). */
static int take_histogram(const struct conf_node *h, struct conf_node *out, struct presentation *p, bool *given,
			  char *err, size_t errlen)
{
	struct conf_node *kept = calloc(h->nchildren ? h->nchildren : 1, sizeof(*kept));

	*out = *h;
	out->children = kept;
	out->nchildren = 0;
	*given = false;
	if (!kept) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < h->nchildren; i++) {
		const struct conf_node *line = &h->children[i];
		int r = line->nchildren ? 0 : presentation_option(p, &line->opt, err, errlen);

		if (r < 0)
			return -1;
		if (r > 0) {
			*given = true;
			continue;
		}
		kept[out->nchildren++] = *line; /* the core's, or refused by the core */
	}
	return presentation_check(p, err, errlen);
}

static bool is_histogram(const struct conf_node *n)
{
	return !strcasecmp(n->opt.key, "Histogram");
}

/* Histogram h's own set (it gave some of the keys) into set's list. */
static int add_map_presentation(struct presentation_set *set, const char *map, const struct presentation *p)
{
	struct map_presentation *more = realloc(set->maps, (size_t)(set->nmaps + 1) * sizeof(*more));

	if (!more)
		return -1;
	set->maps = more;
	more[set->nmaps].p = *p;
	if (!(more[set->nmaps].map = strdup(map)))
		return -1;
	set->nmaps++;
	return 0;
}

int presentation_take_program(const struct conf_node *block, struct conf_node *out, struct presentation_set *set,
			      char *err, size_t errlen)
{
	struct conf_node *lines = calloc(block->nchildren ? block->nchildren : 1, sizeof(*lines));
	bool first = true;
	char why[ERR_MAX];

	presentation_set_init(set);
	*out = *block;
	out->children = lines;
	out->nchildren = 0;
	if (!lines) {
		snprintf(err, errlen, "<Program \"%s\">: out of memory", block_name(block));
		return -1;
	}
	for (int i = 0; i < block->nchildren; i++) {
		const struct conf_node *n = &block->children[i];
		struct presentation own;
		bool given;

		lines[out->nchildren++] = *n;
		if (!is_histogram(n))
			continue;
		presentation_init(&own);
		if (take_histogram(n, &lines[out->nchildren - 1], &own, &given, why, sizeof(why))) {
			snprintf(err, errlen, "<Program \"%s\">: <Histogram \"%s\">: %s", block_name(block), block_name(n),
				 why);
			goto fail;
		}
		if (first)
			set->all = own; /* a later histogram that gives none takes the first's */
		else if (given && add_map_presentation(set, block_name(n), &own)) {
			snprintf(err, errlen, "<Program \"%s\">: out of memory", block_name(block));
			goto fail;
		}
		first = false;
	}
	return 0;
fail:
	presentation_program_free(out);
	presentation_set_free(set);
	return -1;
}

void presentation_set_init(struct presentation_set *set)
{
	presentation_init(&set->all);
	set->maps = NULL;
	set->nmaps = 0;
}

const struct presentation *presentation_for(const struct presentation_set *set, const char *map)
{
	for (int i = 0; map && i < set->nmaps; i++)
		if (!strcmp(set->maps[i].map, map))
			return &set->maps[i].p;
	return &set->all;
}

void presentation_set_free(struct presentation_set *set)
{
	for (int i = 0; i < set->nmaps; i++)
		free(set->maps[i].map);
	free(set->maps);
	set->maps = NULL;
	set->nmaps = 0;
}

void presentation_program_free(struct conf_node *out)
{
	for (int i = 0; i < out->nchildren; i++)
		if (is_histogram(&out->children[i]))
			free((void *)out->children[i].children);
	free((void *)out->children);
	out->children = NULL;
	out->nchildren = 0;
}
