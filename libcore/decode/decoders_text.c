/* Decoders that make or rework text: string, static_map, regexp. */
#define _GNU_SOURCE /* qsort_r */
#include "libcore/decode/decoder_kind.h"
#include "libcore/decode/label_decoder.h"
#include "libcore/decode/regex_size.h"
#include "base/err_max.h"

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- string: a NUL-terminated char array (comm, a path, a name) ---- */

size_t decode_escape_byte(unsigned char ch, char esc[5])
{
	if (ch == '\\')
		return (size_t)snprintf(esc, 5, "\\\\");
	if (ch < 0x20 || ch > 0x7e)
		return (size_t)snprintf(esc, 5, "\\x%02x", ch);
	esc[0] = (char)ch;
	return 1;
}

static void string_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	size_t o = 0;

	for (size_t i = 0; i < in->size && in->bytes[i]; i++) {
		char esc[5];
		size_t n = decode_escape_byte(in->bytes[i], esc);

		if (o + n >= outlen)
			break;
		memcpy(out + o, esc, n);
		o += n;
	}
	out[o] = '\0';
}

const struct decoder_kind decoder_string = {
	.name = "string", .sizes = SIZES_ANY, .sizes_text = "1 to 256 bytes", .decode = string_decode,
};

/* ---- static_map: "0=read" "1=write" ---- */

struct map_entry {
	char *key, *text;
	int numeric;  /* the key is a number (decimal, 0x hex, negative): matched by value */
	int64_t num;
};

struct static_map {
	struct map_entry *v;
	int n;
	const char *unknown_prefix; /* "*=TEXT": a value without an entry reads as TEXT then the value */
};

/* A whole-text integer (as strtoll/strtoull base 0 read it) into *v: 0, else -1. */
static int parse_number(const char *s, int64_t *v)
{
	char *end;

	if (!*s)
		return -1;
	errno = 0;
	if (*s == '-') {
		*v = strtoll(s, &end, 0);
	} else {
		uint64_t u = strtoull(s, &end, 0);
		*v = (int64_t)u;
	}
	return (errno || *end) ? -1 : 0;
}

static void static_map_destroy(struct label_decoder *d)
{
	struct static_map *m = d->state;

	if (!m)
		return;
	for (int i = 0; i < m->n; i++)
		free(m->v[i].key);
	free(m->v);
	free(m);
	d->state = NULL;
}

/* A duplicate pair (entries `first` < `second` of m->v): the one whose second comes first in
 * the arguments, as a check of each entry against those before it would find it. */
struct dup {
	int first, second;
};

static void keep_earlier(struct dup *best, int first, int second)
{
	if (best->second < 0 || second < best->second || (second == best->second && first < best->first))
		best->first = first, best->second = second;
}

static int by_key(const void *a, const void *b, void *map)
{
	const struct static_map *sorting = map;
	int i = *(const int *)a, j = *(const int *)b, c = strcmp(sorting->v[i].key, sorting->v[j].key);

	return c ? c : (i > j) - (i < j);
}

static int by_number(const void *a, const void *b, void *map)
{
	const struct static_map *sorting = map;
	int i = *(const int *)a, j = *(const int *)b;
	int64_t x = sorting->v[i].num, y = sorting->v[j].num;

	return x != y ? (x > y) - (x < y) : (i > j) - (i < j);
}

/* Two entries mapping one value: the same key, or two numbers of one value ("1" and "0x1").
 * Sorted by key and by number (n log n: a map of 80,000 entries was 12 s compared pairwise),
 * equal neighbours are duplicates. 0, or -1 with err (out of memory: -1 with best unset). */
static int find_duplicate(const struct static_map *m, struct dup *best, char *err, size_t errlen)
{
	int *idx = malloc(((size_t)m->n + 1) * sizeof(*idx)), n = 0;

	best->first = best->second = -1;
	if (!idx) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < m->n; i++)
		if (m->v[i].text != m->unknown_prefix)
			idx[n++] = i;
	qsort_r(idx, (size_t)n, sizeof(*idx), by_key, (void *)m);
	for (int i = 1; i < n; i++)
		if (!strcmp(m->v[idx[i - 1]].key, m->v[idx[i]].key))
			keep_earlier(best, idx[i - 1], idx[i]);
	n = 0;
	for (int i = 0; i < m->n; i++)
		if (m->v[i].text != m->unknown_prefix && m->v[i].numeric)
			idx[n++] = i;
	qsort_r(idx, (size_t)n, sizeof(*idx), by_number, (void *)m);
	for (int i = 1; i < n; i++)
		if (m->v[idx[i - 1]].num == m->v[idx[i]].num)
			keep_earlier(best, idx[i - 1], idx[i]);
	free(idx);
	return 0;
}

static int static_map_create(struct label_decoder *d, const char *const *args, int nargs, char *err, size_t errlen)
{
	struct static_map *m = calloc(1, sizeof(*m));
	struct dup dup;

	d->state = m;
	if (!m || !(m->v = calloc(nargs, sizeof(*m->v)))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (int i = 0; i < nargs; i++) {
		const char *eq = strchr(args[i], '=');
		struct map_entry *e = &m->v[m->n];

		if (!eq || eq == args[i] || !eq[1]) {
			char shown[DECODER_ARG_SHOWN_MAX];

			snprintf(err, errlen, "%s is not value=text: write each entry as \"0=read\"",
				 decoder_arg_shown(d, args, i, shown, sizeof(shown)));
			goto fail;
		}
		if (!(e->key = strdup(args[i]))) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		m->n++;
		e->key[eq - args[i]] = '\0';
		e->text = e->key + (eq - args[i]) + 1;
		e->numeric = !parse_number(e->key, &e->num);
		if (!strcmp(e->key, "*")) {
			if (m->unknown_prefix) {
				snprintf(err, errlen, "\"*\" (the prefix of values without an entry) is given twice");
				goto fail;
			}
			m->unknown_prefix = e->text;
		}
	}
	if (find_duplicate(m, &dup, err, errlen))
		goto fail;
	if (dup.second >= 0) {
		/* m->v[i] is args[i]: every argument made an entry. */
		const struct map_entry *a = &m->v[dup.first], *b = &m->v[dup.second];

		if (d->args_hidden)
			snprintf(err, errlen, "entries %d and %d map the same value: keep one", dup.first + 1,
				 dup.second + 1);
		else
			snprintf(err, errlen, "value \"%s\" is mapped twice (\"%s=%s\" and \"%s\")", b->key, a->key,
				 a->text, args[dup.second]);
		goto fail;
	}
	return 0;
fail:
	static_map_destroy(d);
	return -1;
}

static void static_map_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	const struct static_map *m = d->state;
	uint64_t u = 0;
	int64_t s = 0, t = 0;
	int text_is_number = 0;

	if (in->is_text)
		text_is_number = !parse_number((const char *)in->bytes, &t);
	else
		u = decode_uint(in), s = decode_int(in);
	for (int i = 0; i < m->n; i++) {
		const struct map_entry *e = &m->v[i];
		int hit = e->text == m->unknown_prefix ? 0 : in->is_text ? (!strcmp(e->key, (const char *)in->bytes) ||
					 (e->numeric && text_is_number && e->num == t))
				      : (e->numeric && ((uint64_t)e->num == u || e->num == s));

		if (hit) {
			snprintf(out, outlen, "%s", e->text);
			return;
		}
	}
	if (in->is_text)
		snprintf(out, outlen, "%s%s", m->unknown_prefix ? m->unknown_prefix : "", (const char *)in->bytes);
	else
		snprintf(out, outlen, "%s%" PRIu64, m->unknown_prefix ? m->unknown_prefix : "", u);
}

const struct decoder_kind decoder_static_map = {
	.name = "static_map", .sizes = SIZES_UINT, .sizes_text = "1, 2, 4 or 8 bytes", .takes_text = true,
	.min_args = 1, .max_args = 1 << 20,
	.create = static_map_create, .decode = static_map_decode, .destroy = static_map_destroy,
};

/* ---- regexp: POSIX ERE on the text ---- */

/* regexec costs about a microsecond; the texts of one label repeat from key to key and read
 * to read (a few hundred comms, units, paths), so results are remembered: REGEXP_MEMO_SLOTS
 * slots, direct-mapped by a hash of the text (a new text takes its slot's place), each
 * holding the text and its result (at most 2 x DECODE_TEXT_MAX bytes a slot). */
#define REGEXP_MEMO_SLOTS 1024

struct regexp_memo {
	char *in, *out;
};

struct regexp {
	regex_t re;
	char *replacement; /* NULL: the output is group 1, or the match when there is no group */
	struct regexp_memo memo[REGEXP_MEMO_SLOTS];
};

static void regexp_destroy(struct label_decoder *d)
{
	struct regexp *r = d->state;

	if (!r)
		return;
	regfree(&r->re);
	free(r->replacement);
	for (int i = 0; i < REGEXP_MEMO_SLOTS; i++) {
		free(r->memo[i].in);
		free(r->memo[i].out);
	}
	free(r);
	d->state = NULL;
}

static int regexp_create(struct label_decoder *d, const char *const *args, int nargs, char *err, size_t errlen)
{
	struct regexp *r = calloc(1, sizeof(*r));
	char shown[DECODER_ARG_SHOWN_MAX], shown_rep[DECODER_ARG_SHOWN_MAX];
	int rc;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	decoder_arg_shown(d, args, 0, shown, sizeof(shown));
	if (nargs > 1)
		decoder_arg_shown(d, args, 1, shown_rep, sizeof(shown_rep));
	if (regex_size_check(args[0], shown, err, errlen)) {
		free(r);
		return -1;
	}
	rc = regcomp(&r->re, args[0], REG_EXTENDED);
	if (rc) {
		char why[ERR_MAX];

		regerror(rc, &r->re, why, sizeof(why));
		snprintf(err, errlen, "%s is not a POSIX extended regular expression: %s", shown, why);
		free(r);
		return -1;
	}
	d->state = r;
	if (nargs == 1) {
		if (r->re.re_nsub > 1) {
			snprintf(err, errlen,
				 "%s has %zu groups; without a replacement the label is group 1: keep one group, "
				 "or add a replacement such as \"\\1-\\2\"",
				 shown, r->re.re_nsub);
			goto fail;
		}
		return 0;
	}
	for (const char *p = args[1]; *p; p++) {
		if (*p != '\\')
			continue;
		if (p[1] >= '0' && p[1] <= '9' && (size_t)(p[1] - '0') > r->re.re_nsub) {
			snprintf(err, errlen, "replacement %s uses \\%c but %s has %zu group%s", shown_rep, p[1], shown,
				 r->re.re_nsub, r->re.re_nsub == 1 ? "" : "s");
			goto fail;
		}
		if (p[1] == '\0' || !((p[1] >= '0' && p[1] <= '9') || p[1] == '\\')) {
			snprintf(err, errlen, "replacement %s: a backslash comes before a digit (\\1) or another "
				 "backslash (\\\\)", shown_rep);
			goto fail;
		}
		p++;
	}
	if (!(r->replacement = strdup(args[1]))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return 0;
fail:
	regexp_destroy(d);
	return -1;
}

static void append(char *out, size_t outlen, size_t *o, const char *s, size_t n)
{
	if (*o + n >= outlen)
		n = outlen - 1 - *o;
	memcpy(out + *o, s, n);
	*o += n;
	out[*o] = '\0';
}

/* Group 1 (or the match); with a replacement, the text with its first match replaced, as
 * sed's s/pattern/replacement/. Text that does not match passes unchanged. */
static void regexp_apply(const struct regexp *r, const char *text, char *out, size_t outlen)
{
	regmatch_t m[10];
	size_t o = 0;

	out[0] = '\0';
	if (regexec(&r->re, text, 10, m, 0)) {
		append(out, outlen, &o, text, strlen(text));
		return;
	}
	if (!r->replacement) {
		const regmatch_t *g = &m[r->re.re_nsub ? 1 : 0];

		if (g->rm_so >= 0)
			append(out, outlen, &o, text + g->rm_so, (size_t)(g->rm_eo - g->rm_so));
		return;
	}
	append(out, outlen, &o, text, (size_t)m[0].rm_so);
	for (const char *p = r->replacement; *p; p++) {
		if (*p == '\\' && p[1] == '\\') {
			append(out, outlen, &o, "\\", 1);
			p++;
		} else if (*p == '\\') {
			const regmatch_t *g = &m[p[1] - '0'];

			if (g->rm_so >= 0)
				append(out, outlen, &o, text + g->rm_so, (size_t)(g->rm_eo - g->rm_so));
			p++;
		} else {
			append(out, outlen, &o, p, 1);
		}
	}
	append(out, outlen, &o, text + m[0].rm_eo, strlen(text + m[0].rm_eo));
}

static void regexp_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	struct regexp *r = d->state;
	const char *text = (const char *)in->bytes;
	uint64_t h = 14695981039346656037ull;
	struct regexp_memo *slot;
	char result[DECODE_TEXT_MAX];

	for (const char *p = text; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	slot = &r->memo[h % REGEXP_MEMO_SLOTS];
	if (slot->in && !strcmp(slot->in, text)) {
		snprintf(out, outlen, "%s", slot->out);
		return;
	}
	regexp_apply(r, text, result, sizeof(result));
	snprintf(out, outlen, "%s", result);
	free(slot->in);
	free(slot->out);
	slot->in = strdup(text);
	slot->out = strdup(result);
	if (!slot->in || !slot->out) {
		free(slot->in);
		free(slot->out);
		slot->in = slot->out = NULL;
	}
}

const struct decoder_kind decoder_regexp = {
	.name = "regexp", .sizes = 0, .takes_text = true, .min_args = 1, .max_args = 2,
	.create = regexp_create, .decode = regexp_decode, .destroy = regexp_destroy,
};
