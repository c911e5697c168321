/* libFuzzer target for the label decoders (libcore/decode/label_decoder.h), built with ASan
 * and UBSan: a decoder chain and a key part, both from the input.
 *
 * Input: byte 0: the number of Decode lines (0..3); per line a byte naming the decoder
 * (one more than there are: an unknown name) and a byte giving its argument count (0..3),
 * then each argument as a length byte (0..31) and that many bytes (a pci_* decoder's path
 * argument reads that file when it is a regular one); what is left is the key
 * part (at most 300 bytes: more than any decoder takes, so the size check is fuzzed too).
 *
 * Whatever the chain: a refused one says why; an accepted one decodes any bytes of the
 * checked size to text that fits DECODE_TEXT_MAX, the same text when decoded again (the
 * caches give what a fresh lookup gave), and label_value_safe() makes that text a value
 * collectd takes (1..127 characters, no '/', no control character). */
#include "libcore/decode/label_decoder.h"
#include "base/label_value.h"
#include "base/err_max.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = { "uint",       "hex",        "string",    "syscall",      "errno",
				     "majorminor", "ksym",       "static_map", "regexp",      "cgroup",
				     "inet_ip",    "regexps",    "ifname",     "dname",       "pci_vendor",
				     "pci_device", "pci_class",  "pci_subclass", "kstack",      "no_such" };
#define NNAMES (sizeof(names) / sizeof(names[0]))

struct reader {
	const unsigned char *p;
	size_t left;
};

static int next_byte(struct reader *r, unsigned char *b)
{
	if (!r->left)
		return -1;
	*b = *r->p++;
	r->left--;
	return 0;
}

static int has_backreference(const char *pattern)
{
	for (const char *p = strchr(pattern, '\\'); p && p[1]; p = strchr(p + 2, '\\'))
		if (p[1] >= '1' && p[1] <= '9')
			return 1;
	return 0;
}

static void check_value(const char *text)
{
	char safe[LABEL_VALUE_MAX];
	size_t n;

	label_value_safe(text, safe);
	n = strlen(safe);
	if (n == 0 || n > LABEL_VALUE_MAX - 1 || strchr(safe, '/')) {
		fprintf(stderr, "label_value_safe(\"%s\") gave \"%s\"\n", text, safe);
		abort();
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)safe[i] < 0x20 || safe[i] == 0x7f) {
			fprintf(stderr, "label_value_safe(\"%s\") left a control character\n", text);
			abort();
		}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct reader r = { data, size };
	struct decoder_chain c;
	char args_buf[3][32], err[ERR_MAX], out[DECODE_TEXT_MAX], again[DECODE_TEXT_MAX];
	unsigned char nlines, b;

	if (next_byte(&r, &nlines))
		return 0;
	decoder_chain_init(&c, "fuzz");
	for (int line = 0; line < nlines % 4; line++) {
		const char *args[3];
		unsigned char which, nargs;

		if (next_byte(&r, &which) || next_byte(&r, &nargs))
			goto out;
		nargs %= 4;
		for (int a = 0; a < nargs; a++) {
			size_t len;

			if (next_byte(&r, &b))
				goto out;
			len = b % 32;
			if (len > r.left)
				goto out;
			memcpy(args_buf[a], r.p, len);
			args_buf[a][len] = '\0';
			r.p += len;
			r.left -= len;
			/* glibc's matcher backtracks exponentially on back-references in a pattern; a
			 * pattern is the admin's own config, so that cost is theirs, not a bug here. */
			if (which % NNAMES == 8 && a == 0 && has_backreference(args_buf[a]))
				goto out;
			args[a] = args_buf[a];
		}
		err[0] = '\0';
		if (decoder_chain_add(&c, names[which % NNAMES], args, nargs, err, sizeof(err))) {
			if (!err[0])
				abort(); /* a refusal must say why */
			goto out;
		}
	}
	if (r.left > 300)
		r.left = 300;
	err[0] = '\0';
	if (decoder_chain_check(&c, r.left, err, sizeof(err))) {
		if (!err[0])
			abort();
		goto out;
	}
	decoder_chain_decode(&c, r.p, r.left, out, sizeof(out));
	decoder_chain_decode(&c, r.p, r.left, again, sizeof(again));
	if (strlen(out) >= sizeof(out) || strcmp(out, again)) {
		fprintf(stderr, "decoded twice: \"%s\" then \"%s\"\n", out, again);
		abort();
	}
	check_value(out);
	/* A small output buffer cuts the text and stays terminated. */
	decoder_chain_decode(&c, r.p, r.left, again, 5);
	if (strlen(again) > 4 || strncmp(again, out, strlen(again)))
		abort();
out:
	decoder_chain_free(&c);
	return 0;
}
