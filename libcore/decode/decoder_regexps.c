/* regexps: ebpf_exporter's `regexp` decoder (its decoder/regexp.go), which keeps only the
 * label sets whose text a pattern matches:
 *
 *   Decode "regexps" "^(kswapd).*$" "^(systemd.*)$" "^.*$"
 *
 * The patterns are tried in order; the first that matches gives the label, its group 1 (a
 * pattern with one group) or the whole match (a pattern without). Text that no pattern
 * matches drops the key's label set (label_decoder.dropped): its values are not sent, and the
 * reader counts such keys (gauge-unmatched-<map>, series_read.c) where ebpf_exporter loses
 * them without a trace.
 *
 * The patterns are POSIX extended expressions, bounded as regexp's are (regex_size.h: no
 * backreference, no stacked repetitions, no huge unrolled size). ebpf_exporter compiles them
 * as Go's RE2; the syntax both read the same way is accepted, and what only Go has is refused
 * with the POSIX spelling (\d, (?:...), (?i), lazy *?), since glibc would read it otherwise
 * without a word (\d as the letter d). Where several matches start at one place, POSIX takes
 * the longest and Go the first alternative: `^(a|ab)` gives "ab" on "abc" here, "a" there. A
 * pattern with two groups or more is refused: ebpf_exporter never takes its match (only one
 * with a single group or none gives a label), so it can only be a mistake. */
#include "libcore/decode/decoder_kind.h"
#include "libcore/decode/label_decoder.h"
#include "libcore/decode/regex_size.h"
#include "base/err_max.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REGEXPS_MAX 64

struct regexps {
	int n;
	regex_t re[REGEXPS_MAX];
};

static void regexps_destroy(struct label_decoder *d)
{
	struct regexps *r = d->state;

	if (!r)
		return;
	for (int i = 0; i < r->n; i++)
		regfree(&r->re[i]);
	free(r);
	d->state = NULL;
}

/* What Go's syntax has and POSIX's reads otherwise, outside bracket expressions: the POSIX
 * spelling to use instead, or NULL when the pattern has none. */
static const char *go_only(const char *p)
{
	static const struct {
		const char *go, *posix;
	} escapes[] = {
		{ "\\d", "[0-9] for \\d" },    { "\\D", "[^0-9] for \\D" },
		{ "\\p", "a bracket expression such as [[:alpha:]] for \\p{...}" },
		{ "\\P", "a bracket expression such as [^[:alpha:]] for \\P{...}" },
		{ "\\A", "^ for \\A" },        { "\\z", "$ for \\z" },
		{ "\\Q", "each special character escaped for \\Q...\\E" },
		{ "\\x", "the character itself for \\x.." },
	};
	int bracket = 0;

	for (; *p; p++) {
		if (bracket) {
			const char *end;

			if (*p == ']' && bracket > 1) {
				bracket = 0;
				continue;
			}
			if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=') && (end = strchr(p + 2, ']')))
				p = end; /* [:alpha:] inside: its ']' does not close the bracket */
			bracket++;
			continue;
		}
		if (*p == '[') {
			bracket = 1;
			if (p[1] == '^')
				p++;
			continue;
		}
		if (*p == '\\' && p[1]) {
			for (size_t i = 0; i < sizeof(escapes) / sizeof(escapes[0]); i++)
				if (p[1] == escapes[i].go[1])
					return escapes[i].posix;
			p++;
			continue;
		}
		if (*p == '(' && p[1] == '?')
			return "a plain group for (?:...), and no flags such as (?i): write both cases, [Aa]";
		if ((*p == '*' || *p == '+' || *p == '?' || *p == '}') && p[1] == '?')
			return "a greedy repetition for the lazy *?, +?, ?? and {m,n}? (POSIX has no lazy ones)";
	}
	return NULL;
}

static int regexps_create(struct label_decoder *d, const char *const *args, int nargs, char *err, size_t errlen)
{
	struct regexps *r;

	if (nargs > REGEXPS_MAX) {
		snprintf(err, errlen, "at most %d patterns, it was given %d", REGEXPS_MAX, nargs);
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	d->state = r;
	for (int i = 0; i < nargs; i++) {
		const char *posix = go_only(args[i]);
		char shown[DECODER_ARG_SHOWN_MAX];
		int rc;

		decoder_arg_shown(d, args, i, shown, sizeof(shown));
		if (posix) {
			snprintf(err, errlen, "%s is Go's syntax (ebpf_exporter's), not POSIX extended: use %s", shown,
				 posix);
			goto fail;
		}
		if (regex_size_check(args[i], shown, err, errlen))
			goto fail;
		rc = regcomp(&r->re[i], args[i], REG_EXTENDED);
		if (rc) {
			char why[ERR_MAX];

			regerror(rc, &r->re[i], why, sizeof(why));
			snprintf(err, errlen, "%s is not a POSIX extended regular expression: %s", shown, why);
			goto fail;
		}
		r->n = i + 1;
		if (r->re[i].re_nsub > 1) {
			snprintf(err, errlen,
				 "%s has %zu groups: the label is the match of a pattern without a group or group 1 "
				 "of one with a single group (ebpf_exporter never takes a match with more); keep one",
				 shown, r->re[i].re_nsub);
			goto fail;
		}
	}
	return 0;
fail:
	regexps_destroy(d);
	return -1;
}

static void regexps_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	const struct regexps *r = d->state;
	const char *text = (const char *)in->bytes;
	regmatch_t m[2];

	for (int i = 0; i < r->n; i++) {
		const regmatch_t *g;
		size_t n;

		if (regexec(&r->re[i], text, 2, m, 0))
			continue;
		g = &m[r->re[i].re_nsub ? 1 : 0];
		n = g->rm_so >= 0 ? (size_t)(g->rm_eo - g->rm_so) : 0;
		snprintf(out, outlen, "%.*s", (int)n, n ? text + g->rm_so : "");
		d->dropped = false;
		return;
	}
	snprintf(out, outlen, "%s", text); /* what a caller that does not drop shows */
	d->dropped = true;
}

const struct decoder_kind decoder_regexps = {
	.name = "regexps", .sizes = 0, .takes_text = true, .may_drop = true, .min_args = 1, .max_args = 1 << 20,
	.create = regexps_create, .decode = regexps_decode, .destroy = regexps_destroy,
};
