#include "libcore/hist/hist_config.h"
#include "bpf/include/hist_row.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

void hist_config_init(struct hist_config *c)
{
	memset(c, 0, sizeof(*c));
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

	/* In range before the whole-number test: converting NaN or a huge value to int is
	 * undefined (fuzz_config found NaN). */
	if (opt_expect_numbers(o, 1, 1, err, errlen) || !((p = o->values[0].number) >= 0 && p <= HIST_PRECISION_MAX) ||
	    p != (double)(int)p) {
		snprintf(err, errlen, "Precision takes one whole number from 0 to %d: 2^Precision sub-buckets per "
			 "power of two, percentiles within 2^-Precision (default %d: within 3.1%%; 0: log2, within a "
			 "factor of 2), e.g. Precision %d", HIST_PRECISION_MAX, HIST_PRECISION_DEFAULT, HIST_PRECISION_DEFAULT);
		return -1;
	}
	c->precision = (unsigned int)p;
	c->precision_from_user = true;
	return 1;
}

int hist_config_option(struct hist_config *c, const struct option *o, char *err, size_t errlen)
{
	if (!strcasecmp(o->key, HIST_PRECISION_KEY))
		return set_precision(c, o, err, errlen);
	return 0;
}
