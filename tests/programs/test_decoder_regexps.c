/* The regexps decoder (libcore/decode/decoder_regexps.c, ebpf_exporter's regexp): of the
 * first pattern that matches, group 1 or the whole match; text no pattern matches drops the
 * key's label set; Go-only syntax, patterns with two groups, too many patterns and the
 * bounds regexp has are refused with the fix. */
#include "libcore/decode/label_decoder.h"
#include "tests/support/testing.h"
#include "tests/programs/decode_spec.h"
#include "base/err_max.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char comm_kswapd[16] = "kswapd0", comm_systemd[16] = "systemd-journal", comm_bash[16] = "bash";

static void test_decode(void)
{
	/* ebpf_exporter's own example's three patterns, in its order */
	const char *example = "string|regexps ^(kswapd).*$ ^(systemd.*)$ ^.*$";

	CHECK_STR(decode(example, comm_kswapd, 16), "kswapd");
	CHECK_STR(decode(example, comm_systemd, 16), "systemd-journal");
	CHECK_STR(decode(example, comm_bash, 16), "bash"); /* the last: the whole match */
	/* the first pattern that matches wins, even where a later one would match too */
	CHECK_STR(decode("string|regexps ^(k) ^(kswapd)", comm_kswapd, 16), "k");
	/* no pattern matches: the label set is dropped */
	CHECK_STR(decode("string|regexps ^(kswapd).*$ ^(systemd.*)$", comm_bash, 16), "<dropped>");
	CHECK_STR(decode("string|regexps ^x", "", 1), "<dropped>");
	/* a match anywhere, not only from the start (Go's FindSubmatch) */
	CHECK_STR(decode("string|regexps wap", comm_kswapd, 16), "wap");
	/* a group that took no part: the empty text, as ebpf_exporter's nil submatch */
	CHECK_STR(decode("string|regexps ^(x)?bash", comm_bash, 16), "");
	/* its output feeds the next decoder */
	CHECK_STR(decode("string|regexps ^(kswapd)|static_map kswapd=reclaim", comm_kswapd, 16), "reclaim");
	/* a drop stops the chain: static_map's "*=" would have named it otherwise */
	CHECK_STR(decode("string|regexps ^(kswapd)|static_map *=seen:", comm_bash, 16), "<dropped>");
	/* a number's text, after uint */
	{
		uint32_t v = 4096;

		CHECK_STR(decode("uint|regexps ^(4)0 ^(40)", &v, 4), "4");
		v = 123;
		CHECK_STR(decode("uint|regexps ^4", &v, 4), "<dropped>");
	}
}

/* The same decoder through the chain's two entries, and what the reader asks of it. */
static void test_chain(void)
{
	const char *args[] = { "^(kswapd)" };
	struct decoder_chain c, plain;
	char err[ERR_MAX], out[DECODE_TEXT_MAX];

	decoder_chain_init(&c, "comm");
	CHECK(decoder_chain_add(&c, "string", NULL, 0, err, sizeof(err)) == 0);
	CHECK(!decoder_chain_may_drop(&c));
	CHECK(decoder_chain_add(&c, "regexps", args, 1, err, sizeof(err)) == 0);
	CHECK(decoder_chain_may_drop(&c));
	CHECK(decoder_chain_check(&c, 16, err, sizeof(err)) == 0);
	CHECK(decoder_chain_decode_kept(&c, comm_kswapd, 16, out, sizeof(out)));
	CHECK_STR(out, "kswapd");
	/* dropped: out holds the text the decoder was given, which a caller that does not
	 * drop (decoder_chain_decode) shows */
	CHECK(!decoder_chain_decode_kept(&c, comm_bash, 16, out, sizeof(out)));
	CHECK_STR(out, "bash");
	CHECK_STR(decoder_chain_decode(&c, comm_bash, 16, out, sizeof(out)), "bash");
	/* kept again after a drop: the flag is the last decode's, not sticky */
	CHECK(decoder_chain_decode_kept(&c, comm_kswapd, 16, out, sizeof(out)));
	CHECK_STR(decoder_chain_line(&c, 1), "\"regexps\" \"^(kswapd)\"");
	decoder_chain_free(&c);

	decoder_chain_init(&plain, "comm");
	CHECK(decoder_chain_add(&plain, "string", NULL, 0, err, sizeof(err)) == 0);
	CHECK(decoder_chain_add(&plain, "regexp", args, 1, err, sizeof(err)) == 0);
	CHECK(!decoder_chain_may_drop(&plain)); /* regexp passes text on, never drops */
	CHECK(decoder_chain_decode_kept(&plain, comm_bash, 16, out, sizeof(out)));
	decoder_chain_free(&plain);
}

static void test_refused(void)
{
	const char *digit[] = { "^cpu\\d+$" }, *noncap[] = { "^(?:kswapd)" }, *flags[] = { "(?i)bash" };
	const char *lazy[] = { "^(.*?)d" }, *two[] = { "^(a)(b)" }, *bad[] = { "(" }, *backref[] = { "(a)\\1" };
	const char *bracketed[] = { "^[\\d]$" }, *classes[] = { "^[[:digit:]]+\\.x$" };
	const char *many[65];

	CHECK_STR(add_error("string", "regexps", digit, 1),
		  "label \"l\": decoder regexps: \"^cpu\\d+$\" is Go's syntax (ebpf_exporter's), not POSIX extended: "
		  "use [0-9] for \\d");
	CHECK_STR(add_error("string", "regexps", noncap, 1),
		  "label \"l\": decoder regexps: \"^(?:kswapd)\" is Go's syntax (ebpf_exporter's), not POSIX extended: "
		  "use a plain group for (?:...), and no flags such as (?i): write both cases, [Aa]");
	CHECK(strstr(add_error("string", "regexps", flags, 1), "(?i)") != NULL);
	CHECK_STR(add_error("string", "regexps", lazy, 1),
		  "label \"l\": decoder regexps: \"^(.*?)d\" is Go's syntax (ebpf_exporter's), not POSIX extended: "
		  "use a greedy repetition for the lazy *?, +?, ?? and {m,n}? (POSIX has no lazy ones)");
	CHECK_STR(add_error("string", "regexps", two, 1),
		  "label \"l\": decoder regexps: \"^(a)(b)\" has 2 groups: the label is the match of a pattern without "
		  "a group or group 1 of one with a single group (ebpf_exporter never takes a match with more); keep "
		  "one");
	CHECK_STR(add_error("string", "regexps", bad, 1),
		  "label \"l\": decoder regexps: \"(\" is not a POSIX extended regular expression: Unmatched ( or \\(");
	CHECK(strstr(add_error("string", "regexps", backref, 1), "has a backreference") != NULL);
	/* inside brackets a backslash is itself in POSIX: not Go's \d there (nor taken for it) */
	CHECK_STR(add_error("string", "regexps", bracketed, 1), "<accepted>");
	CHECK_STR(add_error("string", "regexps", classes, 1), "<accepted>");
	CHECK_STR(add_error("string", "regexps", NULL, 0),
		  "label \"l\": decoder regexps needs at least 1 argument");
	for (int i = 0; i < 65; i++)
		many[i] = "^a";
	CHECK_STR(add_error("string", "regexps", many, 64), "<accepted>");
	CHECK_STR(add_error("string", "regexps", many, 65), "label \"l\": decoder regexps: at most 64 patterns, it was given 65");
	/* it reads text: first in a chain, the size check says what to put before it */
	CHECK_STR(decode("regexps ^a", "abc", 3), "<size error>");
}

int main(void)
{
	test_decode();
	test_chain();
	test_refused();
	return testing_done();
}
