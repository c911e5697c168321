/* libFuzzer target for config option parsing of a <Module> block as the collectd plugin does
 * it (presentation_module_option: the plugin's Percentile/Bucket/BucketType, then libcore's
 * module_set_option, hence AttachOrder, Precision and every module's own keys; then
 * module_check_config and presentation_check), built with ASan and UBSan. The input picks a module and an
 * instance name, then a list of options: a key (one of the real ones, most of the time)
 * and typed values, as collectd's oconfig would hand them over: strings of any bytes,
 * numbers of any double (NaN, infinities, huge, negative), booleans. Every refusal must
 * come with a message; nothing may crash or read out of bounds. No BPF is loaded. */
#include "base/log.h"
#include "libcore/engine/module.h"
#include "plugin/presentation.h"
#include "base/err_max.h"

#include <stdlib.h>
#include <string.h>

static const char *const common_keys[] = { "AttachOrder", "Percentile", "Bucket", "BucketType", "Precision", NULL };
#define NCOMMON 5

/* The input, consumed from the front. */
struct input {
	const unsigned char *p;
	size_t n;
};

static unsigned int take_byte(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

/* A NUL-terminated string of up to 63 input bytes, in buf. */
static const char *take_string(struct input *in, char *buf, size_t len)
{
	size_t n = take_byte(in) % 64;

	if (n > in->n)
		n = in->n;
	if (n >= len)
		n = len - 1;
	memcpy(buf, in->p, n);
	buf[n] = '\0';
	in->p += n, in->n -= n;
	return buf;
}

static double take_number(struct input *in)
{
	static const double table[] = { 0, 1, -1, 0.5, 50, 95, 99, 99.9, 100, 100.0001, 1e-9, 1e9, 1e300, -1e300,
					4294967296.0, 18446744073709551616.0, 99.99991, 99.99992 };
	unsigned int b = take_byte(in);
	double d;

	if (b < 200 || in->n < sizeof(d))
		return table[b % (sizeof(table) / sizeof(table[0]))];
	memcpy(&d, in->p, sizeof(d)); /* any bit pattern: NaN, infinities, subnormals */
	in->p += sizeof(d), in->n -= sizeof(d);
	return d;
}

static const char *pick_key(const struct module_ops *ops, struct input *in, char *buf, size_t len)
{
	unsigned int b = take_byte(in);
	size_t nown = 0;

	while (ops->option_names && ops->option_names[nown])
		nown++;
	if (b < NCOMMON)
		return common_keys[b];
	if (b < 200 && nown)
		return ops->option_names[b % nown];
	return take_string(in, buf, len);
}

static void quiet(enum ebpf_log_level level, const char *msg)
{
	(void)level, (void)msg;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct input in = { data, size };
	const struct module_ops *ops;
	struct module *m;
	struct presentation pres;
	char instance[64], key[64], strings[8][64], err[ERR_MAX];
	size_t nmodules = 0;

	ebpf_log_set_handler(quiet);
	while (module_table[nmodules])
		nmodules++;
	ops = module_table[take_byte(&in) % nmodules];
	m = module_new(ops, take_string(&in, instance, sizeof(instance)));
	if (!m)
		return 0;
	presentation_init(&pres);
	while (in.n) {
		struct opt_value values[8];
		struct option o = { .key = pick_key(ops, &in, key, sizeof(key)), .values = values };

		o.nvalues = (int)(take_byte(&in) % 9);
		for (int i = 0; i < o.nvalues; i++) {
			unsigned int t = take_byte(&in) % 3;

			values[i] = (struct opt_value){ .type = t == 0 ? OPT_STRING : t == 1 ? OPT_NUMBER : OPT_BOOLEAN };
			if (t == 0)
				values[i].string = take_string(&in, strings[i], sizeof(strings[i]));
			else if (t == 1)
				values[i].number = take_number(&in);
			else
				values[i].boolean = take_byte(&in) & 1;
		}
		err[0] = '\0';
		if (presentation_module_option(&pres, m, &o, err, sizeof(err)) && !err[0])
			abort(); /* a refusal without a message */
	}
	err[0] = '\0';
	if (module_check_config(m, err, sizeof(err)) && !err[0])
		abort();
	err[0] = '\0';
	if (presentation_check(&pres, err, sizeof(err)) && !err[0])
		abort();
	module_free(m);
	return 0;
}
