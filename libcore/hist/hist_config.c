#include "libcore/hist/hist_config.h"
#include "bpf/include/hist_row.h"
#include "libcore/hist/number_text.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

void hist_config_init(struct hist_config *c)
{
	memset(c, 0, sizeof(*c));
	c->percentiles[c->npercentiles++] = 50;
	c->percentiles[c->npercentiles++] = 95;
	c->percentiles[c->npercentiles++] = 99;
	snprintf(c->bucket_type, sizeof(c->bucket_type), "bucket");
	c->precision = HIST_PRECISION_DEFAULT;
}

unsigned int hist_config_precision(const struct hist_config *c, unsigned int nrows)
{
	unsigned int p = c->precision;

	if (c->precision_from_user)
		return p;
	while (p > 0 && (unsigned long long)nrows * HIST_ROW_SIZE(p) > HIST_ROWS_BUDGET_BYTES)
		p--;
	return p;
}

static int set_precision(struct hist_config *c, const struct option *o, char *err, size_t errlen)
{
	double p;

	if (opt_expect_numbers(o, 1, 1, err, errlen) || (p = o->values[0].number) < 0 ||
	    p > HIST_PRECISION_MAX || p != (double)(int)p) {
		snprintf(err, errlen, "Precision takes one whole number from 0 to %d: 2^Precision sub-buckets per "
			 "power of two, percentiles within 2^-Precision (default %d: within 3.1%%; 0: log2, within a "
			 "factor of 2), e.g. Precision %d", HIST_PRECISION_MAX, HIST_PRECISION_DEFAULT, HIST_PRECISION_DEFAULT);
		return -1;
	}
	c->precision = (unsigned int)p;
	c->precision_from_user = true;
	return 1;
}

static int add_percentiles(struct hist_config *c, const struct option *o, char *err, size_t errlen)
{
	if (opt_expect_numbers(o, 1, 0, err, errlen))
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
		if (c->npercentiles >= HIST_MAX_PERCENTILES) {
			snprintf(err, errlen, "too many Percentile values: at most %d", HIST_MAX_PERCENTILES);
			return -1;
		}
		c->percentiles[c->npercentiles++] = p;
	}
	return 1;
}

static int add_bucket(struct hist_config *c, const struct option *o, char *err, size_t errlen)
{
	double lower, upper;

	if (opt_expect_numbers(o, 2, 2, err, errlen)) {
		char why[256];

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
	if (c->nbuckets >= HIST_MAX_BUCKETS) {
		snprintf(err, errlen, "too many Bucket options: at most %d", HIST_MAX_BUCKETS);
		return -1;
	}
	c->buckets[c->nbuckets++] = (struct hist_bucket){ .lower = lower, .upper = upper };
	return 1;
}

int hist_config_option(struct hist_config *c, const struct option *o, char *err, size_t errlen)
{
	if (!strcasecmp(o->key, "Percentile"))
		return add_percentiles(c, o, err, errlen);
	if (!strcasecmp(o->key, "Bucket"))
		return add_bucket(c, o, err, errlen);
	if (!strcasecmp(o->key, "Precision"))
		return set_precision(c, o, err, errlen);
	if (!strcasecmp(o->key, "BucketType")) {
		if (opt_expect_strings(o, 1, err, errlen) || o->nvalues != 1 || !o->values[0].string[0] ||
		    strlen(o->values[0].string) >= sizeof(c->bucket_type)) {
			snprintf(err, errlen, "BucketType takes one non-empty type name from types.db, e.g. BucketType \"bucket\"");
			return -1;
		}
		snprintf(c->bucket_type, sizeof(c->bucket_type), "%s", o->values[0].string);
		return 1;
	}
	return 0;
}
