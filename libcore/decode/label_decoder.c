#include "libcore/decode/label_decoder.h"

#include "libcore/decode/decoder_kind.h"
#include "base/err_max.h"
#include "base/text_append.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every label decoder, in the order users are told them: a decoder is its definition
 * (const struct decoder_kind decoder_<name>, in a decoders_*.c file), one entry here and its
 * test (doc/contributing.md, "Adding a label decoder"). */
#define LABEL_DECODERS(X)                                                                          \
	X(uint) X(hex) X(string) X(syscall) X(errno) X(majorminor) X(ksym) X(static_map) X(regexp) \
	X(cgroup) X(inet_ip) X(regexps) X(ifname) X(dname) X(pci_vendor) X(pci_device) X(pci_class)  \
	X(pci_subclass) X(kstack)
#define DECLARE(name) extern const struct decoder_kind decoder_##name;
LABEL_DECODERS(DECLARE)
#define ENTRY(name) &decoder_##name,
static const struct decoder_kind *const kinds[] = { LABEL_DECODERS(ENTRY) };
#define NKINDS ((int)(sizeof(kinds) / sizeof(kinds[0])))

static const struct decoder_kind *kind_named(const char *name)
{
	for (int i = 0; i < NKINDS; i++)
		if (!strcmp(kinds[i]->name, name))
			return kinds[i];
	return NULL;
}

const char *label_decoder_sizes(const char *name)
{
	const struct decoder_kind *k = kind_named(name);

	return k && k->sizes ? k->sizes_text : NULL;
}

void decoder_chain_init(struct decoder_chain *c, const char *label)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->label, sizeof(c->label), "%s", label ? label : "");
}

/* The label as messages name it: `label "NAME"`, or `this label` while the chain's text is
 * hidden (decoder_chain.hidden). */
static const char *label_shown(const struct decoder_chain *c, char *buf, size_t buflen)
{
	if (c->hidden)
		return "this label";
	snprintf(buf, buflen, "label \"%s\"", c->label);
	return buf;
}
#define LABEL_SHOWN(c) label_shown((c), (char[sizeof((c)->label) + 16]){ 0 }, sizeof((c)->label) + 16)

/* One value quoted for a collectd configuration: '"' and '\\' escaped (collectd's own
 * parser takes them so). */
static void quote_value(char *out, size_t outlen, size_t *used, const char *v)
{
	text_appendf(out, outlen, used, "%s\"", *used ? " " : "");
	for (; *v; v++)
		text_appendf(out, outlen, used, "%s%c", *v == '"' || *v == '\\' ? "\\" : "", *v);
	text_appendf(out, outlen, used, "\"");
}

/* The Decode line's values, quoted (decoder_chain_line()); NULL when out of memory. */
static char *decoder_line(const char *name, const char *const *args, int nargs)
{
	size_t len = 3 + 2 * strlen(name), used = 0;
	char *line;

	for (int i = 0; i < nargs; i++)
		len += 3 + 2 * strlen(args[i]);
	line = malloc(len + 1);
	if (!line)
		return NULL;
	line[0] = '\0';
	quote_value(line, len + 1, &used, name);
	for (int i = 0; i < nargs; i++)
		quote_value(line, len + 1, &used, args[i]);
	return line;
}

/* "unknown decoder", with the names of all there are to choose from. */
static void explain_unknown(const struct decoder_chain *c, const char *name, char *err, size_t errlen)
{
	size_t used = 0;

	if (c->hidden)
		text_appendf(err, errlen, &used, "%s: unknown decoder name; the decoders are", LABEL_SHOWN(c));
	else
		text_appendf(err, errlen, &used, "%s: unknown decoder \"%s\"; the decoders are", LABEL_SHOWN(c), name);
	for (int i = 0; i < NKINDS; i++)
		text_appendf(err, errlen, &used, "%s %s", i ? "," : "", kinds[i]->name);
}

/* Whether decoder k may take nargs arguments; -1 with what it takes when not. */
static int check_nargs(const struct decoder_chain *c, const struct decoder_kind *k, int nargs, char *err,
		       size_t errlen)
{
	if (nargs >= k->min_args && nargs <= k->max_args)
		return 0;
	if (k->max_args == 0)
		snprintf(err, errlen, "%s: decoder %s takes no arguments, it was given %d", LABEL_SHOWN(c), k->name,
			 nargs);
	else if (k->min_args == k->max_args)
		snprintf(err, errlen, "%s: decoder %s takes %d argument%s, it was given %d", LABEL_SHOWN(c),
			 k->name, k->min_args, k->min_args == 1 ? "" : "s", nargs);
	else if (k->max_args > 16) /* as many as one likes: only the least is worth saying */
		snprintf(err, errlen, "%s: decoder %s needs at least %d argument%s", LABEL_SHOWN(c), k->name,
			 k->min_args, k->min_args == 1 ? "" : "s");
	else
		snprintf(err, errlen, "%s: decoder %s takes %d to %d arguments, it was given %d", LABEL_SHOWN(c),
			 k->name, k->min_args, k->max_args, nargs);
	return -1;
}

/* A decoder of kind k made from its arguments, with its Decode line kept for the config
 * it is printed back as; NULL with the reason in err. */
static struct label_decoder *decoder_new(const struct decoder_chain *c, const struct decoder_kind *k,
					 const char *const *args, int nargs, char *err, size_t errlen)
{
	struct label_decoder *d = calloc(1, sizeof(*d));
	char msg[ERR_MAX];

	if (!d) {
		snprintf(err, errlen, "%s: out of memory", LABEL_SHOWN(c));
		return NULL;
	}
	d->kind = k;
	d->args_hidden = c->hidden;
	if (k->create && k->create(d, args, nargs, msg, sizeof(msg))) {
		snprintf(err, errlen, "%s: decoder %s: %s", LABEL_SHOWN(c), k->name, msg);
		free(d);
		return NULL;
	}
	d->line = decoder_line(k->name, args, nargs);
	if (!d->line) {
		snprintf(err, errlen, "%s: out of memory", LABEL_SHOWN(c));
		if (k->destroy)
			k->destroy(d);
		free(d);
		return NULL;
	}
	return d;
}

int decoder_chain_add(struct decoder_chain *c, const char *name, const char *const *args, int nargs, char *err,
		      size_t errlen)
{
	const struct decoder_kind *k = kind_named(name);
	struct label_decoder *d;

	if (!k) {
		explain_unknown(c, name, err, errlen);
		return -1;
	}
	if (c->n == DECODER_CHAIN_MAX) {
		snprintf(err, errlen, "%s: more than %d Decode lines", LABEL_SHOWN(c), DECODER_CHAIN_MAX);
		return -1;
	}
	if (c->n > 0 && !k->takes_text) {
		snprintf(err, errlen,
			 "%s: decoder %s reads the key's bytes, so it must be the first Decode of the label "
			 "(here it follows %s, which makes text)",
			 LABEL_SHOWN(c), name, c->d[c->n - 1]->kind->name);
		return -1;
	}
	if (check_nargs(c, k, nargs, err, errlen))
		return -1;
	d = decoder_new(c, k, args, nargs, err, errlen);
	if (!d)
		return -1;
	c->d[c->n++] = d;
	return 0;
}

const char *decoder_chain_line(const struct decoder_chain *c, int i)
{
	return c->d[i]->line;
}

int decoder_chain_check(const struct decoder_chain *c, size_t size, char *err, size_t errlen)
{
	const struct decoder_kind *k;

	if (size == 0) {
		snprintf(err, errlen, "%s has 0 bytes: give it a Field or a Size", LABEL_SHOWN(c));
		return -1;
	}
	if (c->n == 0) {
		if (size > DECODE_BYTES_MAX) {
			snprintf(err, errlen, "%s has %zu bytes, more than the %d a label can show", LABEL_SHOWN(c),
				 size, DECODE_BYTES_MAX);
			return -1;
		}
		return 0;
	}
	k = c->d[0]->kind;
	if (!k->sizes) {
		snprintf(err, errlen,
			 "decoder %s works on text, %s has raw bytes: put a decoder that makes text "
			 "(uint, string, hex, ...) before it",
			 k->name, LABEL_SHOWN(c));
		return -1;
	}
	if (k->sizes == SIZES_ANY ? size > DECODE_BYTES_MAX || (k->size_step && size % k->size_step)
				  : (size > 31 || !(k->sizes & SIZE_BIT(size)))) {
		snprintf(err, errlen, "decoder %s needs %s, %s has %zu", k->name, k->sizes_text, LABEL_SHOWN(c),
			 size);
		return -1;
	}
	return 0;
}

/* A label without Decode lines: its number, or its bytes in hex. */
static void decode_default(const struct decode_input *in, char *out, size_t outlen)
{
	if (in->size <= 8 && (SIZES_UINT & SIZE_BIT(in->size)))
		decoder_uint.decode(NULL, in, out, outlen);
	else
		decoder_hex.decode(NULL, in, out, outlen);
}

bool decoder_chain_decode_kept(struct decoder_chain *c, const void *bytes, size_t size, char *out, size_t outlen)
{
	/* Two buffers in turn: each decoder reads what the one before wrote. */
	char buf[2][DECODE_TEXT_MAX];
	struct decode_input in = { bytes, size, false };
	int cur = 0;

	if (outlen == 0)
		return true;
	if (c->n == 0) {
		decode_default(&in, out, outlen);
		return true;
	}
	for (int i = 0; i < c->n; i++) {
		char *dst = i == c->n - 1 ? out : buf[cur];
		size_t dstlen = i == c->n - 1 ? outlen : sizeof(buf[cur]);

		dst[0] = '\0';
		c->d[i]->kind->decode(c->d[i], &in, dst, dstlen);
		if (c->d[i]->kind->may_drop && c->d[i]->dropped) {
			if (dst != out)
				snprintf(out, outlen, "%s", dst);
			return false;
		}
		in.bytes = (const unsigned char *)dst;
		in.size = strlen(dst);
		in.is_text = true;
		cur ^= 1;
	}
	return true;
}

const char *decoder_chain_decode(struct decoder_chain *c, const void *bytes, size_t size, char *out, size_t outlen)
{
	decoder_chain_decode_kept(c, bytes, size, out, outlen);
	return out;
}

void decoder_chain_next_read(struct decoder_chain *c)
{
	for (int i = 0; i < c->n; i++)
		if (c->d[i]->kind->next_read)
			c->d[i]->kind->next_read(c->d[i]);
}

bool decoder_chain_may_drop(const struct decoder_chain *c)
{
	for (int i = 0; i < c->n; i++)
		if (c->d[i]->kind->may_drop)
			return true;
	return false;
}

void decoder_chain_free(struct decoder_chain *c)
{
	for (int i = 0; i < c->n; i++) {
		if (c->d[i]->kind->destroy)
			c->d[i]->kind->destroy(c->d[i]);
		free(c->d[i]->line);
		free(c->d[i]);
	}
	c->n = 0;
}
