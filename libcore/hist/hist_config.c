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
	return hist_config_precision_at_most(c, c->precision, nrows);
}

unsigned int hist_config_precision_at_most(const struct hist_config *c, unsigned int ceiling, unsigned int nrows)
{
	unsigned int p = c->precision < ceiling ? c->precision : ceiling;

	if (c->precision_from_user)
		return c->precision;
	while (p > 0 && (unsigned long long)nrows * HIST_ROW_SIZE(p) > HIST_ROWS_BUDGET_BYTES)
		p--;
	return p;
}

int hist_config_set_precision(struct hist_config *c, const struct option *o, char *err, size_t errlen)
{
	double p;

	/* In range before the whole-number test: converting NaN or a huge value to int is
	 * undefined (fuzz_config found NaN). */
	if (opt_expect_numbers(o, 1, 1, err, errlen) || !((p = o->values[0].number) >= 0 && p <= HIST_PRECISION_MAX) ||
	    p != (double)(int)p) {
		snprintf(err, errlen, "%s takes one whole number from 0 to %d: 2^%s sub-buckets per power of two, "
			 "percentiles within 2^-%s (%d: within 3.1%%; 0: log2, within a factor of 2), e.g. %s %d", o->key,
			 HIST_PRECISION_MAX, o->key, o->key, HIST_PRECISION_DEFAULT, o->key, HIST_PRECISION_DEFAULT);
		return -1;
	}
	c->precision = (unsigned int)p;
	c->precision_from_user = true;
	return 1;
}

int hist_config_option(struct hist_config *c, const struct option *o, char *err, size_t errlen)
{
	if (!strcasecmp(o->key, HIST_PRECISION_KEY))
		return hist_config_set_precision(c, o, err, errlen);
	return 0;
}
