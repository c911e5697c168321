#include "libcore/decode/regex_size.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct scan {
	const char *p;
	int stacked; /* an adjacent duplication symbol was seen */
	int backref; /* \1 .. \9 outside a bracket expression */
};

static int is_quantifier(const char *p)
{
	return *p == '*' || *p == '+' || *p == '?' || (*p == '{' && p[1] >= '0' && p[1] <= '9');
}

/* The factor of the quantifier at s->p (1 if none), which is consumed. */
static double quantifier(struct scan *s)
{
	double f = 1;
	int seen = 0;

	while (is_quantifier(s->p)) {
		if (seen++)
			s->stacked = 1;
		if (*s->p == '{') {
			char *end;
			long lo = strtol(s->p + 1, &end, 10), hi = lo;

			if (*end == ',')
				hi = end[1] == '}' ? lo + 1 : strtol(end + 1, &end, 10);
			else if (*end != '}')
				return f; /* a syntax error: regcomp reports it */
			end = strchr(end, '}');
			s->p = end ? end + 1 : s->p + strlen(s->p);
			f *= (double)(hi > lo ? hi : lo) + 1;
		} else {
			s->p++;
			f *= 2; /* "x+" compiles as "xx*" */
		}
	}
	return f;
}

/* The size of the alternatives from s->p up to an unmatched ')' or the end. */
static double sequence(struct scan *s, int depth)
{
	double total = 0;

	while (*s->p && *s->p != ')') {
		double atom = 1;

		if (*s->p == '|') {
			s->p++;
			continue;
		}
		if (*s->p == '(') {
			s->p++;
			atom = depth < 100 ? sequence(s, depth + 1) : 1;
			if (*s->p == ')')
				s->p++;
		} else if (*s->p == '[') {
			/* A bracket expression: "[]a]" and "[^]a]" hold a ']' first. */
			s->p++;
			if (*s->p == '^')
				s->p++;
			if (*s->p == ']')
				s->p++;
			while (*s->p && *s->p != ']')
				s->p += (s->p[0] == '[' && (s->p[1] == ':' || s->p[1] == '.' || s->p[1] == '=') &&
					 strchr(s->p + 2, ']')) ? (size_t)(strchr(s->p + 2, ']') - s->p) + 1 : 1;
			if (*s->p)
				s->p++;
		} else if (*s->p == '\\' && s->p[1]) {
			if (s->p[1] >= '1' && s->p[1] <= '9')
				s->backref = 1;
			s->p += 2;
		} else {
			s->p++;
		}
		total += atom * quantifier(s);
		if (total > 1e12)
			total = 1e12;
	}
	return total;
}

int regex_size_check(const char *pattern, const char *shown, char *err, size_t errlen)
{
	struct scan s = { pattern, 0, 0 };
	double size = 0;

	while (*s.p) {
		size += sequence(&s, 0);
		if (*s.p == ')')
			s.p++; /* unmatched: regcomp says so, or takes it as a literal */
	}
	if (s.backref) {
		snprintf(err, errlen,
			 "%s has a backreference (\\1 .. \\9), which POSIX extended expressions do not have and "
			 "which can take glibc seconds on a short text a process controls (its comm): match the part "
			 "again instead, or use the groups in the replacement (\"\\1\")",
			 shown);
		return -1;
	}
	if (s.stacked) {
		snprintf(err, errlen,
			 "%s has two repetition operators in a row (as \"a+*\"), which POSIX leaves undefined: "
			 "keep one, or group the part (\"(a+)*\")",
			 shown);
		return -1;
	}
	if (size > REGEX_SIZE_MAX) {
		snprintf(err, errlen,
			 "%s repeats too much (%.0f parts once repetitions are unrolled, at most %d): use smaller "
			 "counts in {m,n}, or fewer nested repetitions",
			 shown, size, REGEX_SIZE_MAX);
		return -1;
	}
	return 0;
}
