/* For the decoder tests: bytes through a chain written as one string, "uint",
 * "string|regexps ^(ssh).*$ ^x": a decoder per '|', its arguments after spaces. The text,
 * "<config error>" or "<size error>" (the message on stderr), or "<dropped>" when the
 * chain drops the key's label set. */
#ifndef EBPF_TESTS_DECODE_SPEC_H
#define EBPF_TESTS_DECODE_SPEC_H

#include "libcore/decode/label_decoder.h"
#include "base/err_max.h"

#include <stdio.h>
#include <string.h>

static inline const char *decode(const char *spec, const void *bytes, size_t size)
{
	static char out[DECODE_TEXT_MAX];
	struct decoder_chain c;
	char copy[512], err[ERR_MAX], *save1, *save2;

	decoder_chain_init(&c, "test");
	snprintf(copy, sizeof(copy), "%s", spec);
	for (char *part = strtok_r(copy, "|", &save1); part; part = strtok_r(NULL, "|", &save1)) {
		const char *args[16];
		int nargs = 0;
		char *name = strtok_r(part, " ", &save2);

		for (char *a = strtok_r(NULL, " ", &save2); a && nargs < 16; a = strtok_r(NULL, " ", &save2))
			args[nargs++] = a;
		if (decoder_chain_add(&c, name, args, nargs, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", spec, err);
			snprintf(out, sizeof(out), "<config error>");
			decoder_chain_free(&c);
			return out;
		}
	}
	if (decoder_chain_check(&c, size, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", spec, err);
		snprintf(out, sizeof(out), "<size error>");
	} else if (!decoder_chain_decode_kept(&c, bytes, size, out, sizeof(out))) {
		snprintf(out, sizeof(out), "<dropped>");
	}
	decoder_chain_free(&c);
	return out;
}

/* The error of adding decoder name(args) to a chain that holds `before` first (NULL: none),
 * or "<accepted>". */
static inline const char *add_error(const char *before, const char *name, const char *const *args, int nargs)
{
	static char err[ERR_MAX];
	struct decoder_chain c;

	snprintf(err, sizeof(err), "<accepted>");
	decoder_chain_init(&c, "l");
	if (!(before && decoder_chain_add(&c, before, NULL, 0, err, sizeof(err))))
		if (!decoder_chain_add(&c, name, args, nargs, err, sizeof(err)))
			snprintf(err, sizeof(err), "<accepted>");
	decoder_chain_free(&c);
	return err;
}

#endif
