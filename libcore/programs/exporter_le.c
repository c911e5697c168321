#include "libcore/programs/exporter_le.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double keyer(const struct program_view *v, uint64_t key)
{
	double m = v->multiplier > 0 ? v->multiplier : 1;

	switch (v->buckets) {
	case SLOTS_EXP2: return ldexp(1, (int)key) * m;
	case SLOTS_EXP2ZERO: return key ? ldexp(1, (int)key - 1) * m : 0;
	default: return (double)key * m; /* linear, fixed */
	}
}

int exporter_buckets(const struct program_view *v, struct exporter_bucket *out, int max)
{
	int n = 0;

	if (v->buckets == SLOTS_FIXED) {
		if (v->nfixed_bounds > max)
			return -1;
		for (int i = 0; i < v->nfixed_bounds; i++, n++)
			out[n] = (struct exporter_bucket){ .key = (uint64_t)v->fixed_bounds[i],
							   .le = keyer(v, (uint64_t)v->fixed_bounds[i]) };
		return n;
	}
	if (v->key_max - v->key_min >= (uint64_t)max)
		return -1;
	for (uint64_t k = v->key_min; k <= v->key_max; k++, n++)
		out[n] = (struct exporter_bucket){ .key = k, .le = keyer(v, k) };
	return n;
}

void exporter_float_text(double x, char *buf, size_t len)
{
	char e[40], digits[24], *p, *o = buf;
	int nd = 0, exp, dp, prec;

	if (x == 0 || isnan(x) || isinf(x)) {
		snprintf(buf, len, "%s", x == 0 ? "0" : isnan(x) ? "NaN" : x > 0 ? "+Inf" : "-Inf");
		return;
	}
	/* the shortest digits that read back as x: d.ddde[+-]XX */
	for (prec = 1; prec <= 17; prec++) {
		snprintf(e, sizeof(e), "%.*e", prec - 1, x);
		if (strtod(e, NULL) == x)
			break;
	}
	p = e;
	if (*p == '-')
		*o++ = *p++;
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			digits[nd++] = *p;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
	exp = atoi(p + 1);
	dp = exp + 1; /* the decimal point after digit dp */
	len -= (size_t)(o - buf);
	if (exp < -4 || exp >= 6) /* Go's %e: at least two exponent digits */
		snprintf(o, len, "%c%s%se%c%02d", digits[0], nd > 1 ? "." : "", digits + 1, exp < 0 ? '-' : '+', abs(exp));
	else if (dp <= 0)
		snprintf(o, len, "0.%.*s%s", -dp, "0000", digits);
	else if (nd <= dp)
		snprintf(o, len, "%s%.*s", digits, dp - nd, "000000");
	else
		snprintf(o, len, "%.*s.%s", dp, digits, digits + dp);
}
