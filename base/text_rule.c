#include "base/text_rule.h"

#include <stdint.h>
#include <string.h>

/* Decodes the character at s: its length (2 to 4), or 0 when s does not start a valid
 * UTF-8 sequence (RFC 3629: no overlong form, no surrogate, nothing above U+10FFFF). */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2, *cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, *cp = c & 0x0f, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, *cp = c & 0x07, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		/* the first continuation byte has the narrower range; a NUL ends the text */
		if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf))
			return 0;
		*cp = (*cp << 6) | (s[i] & 0x3f);
	}
	return n;
}

static bool refused_character(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

size_t text_unit(const char *s, bool *keep)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;
	size_t n;

	if (u[0] < 0x80) {
		*keep = !refused_character(u[0]);
		return 1;
	}
	n = utf8_decode(u, &cp);
	*keep = n && !refused_character(cp);
	return n ? n : 1;
}

/* The unit at s (n bytes) as form writes it, into w (at least 13 bytes). Returns its length. */
static size_t unit_text(const char *s, size_t n, bool keep, enum text_form form, char *w)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = 0;

	if (keep && !(*s == '\\' && form == TEXT_LOG)) {
		memcpy(w, s, n);
		return n;
	}
	if (form == TEXT_NAME) {
		w[0] = '_';
		return 1;
	}
	if (*s == '\\' || *s == '\n' || *s == '\t' || *s == '\r') {
		w[0] = '\\';
		w[1] = *s == '\n' ? 'n' : *s == '\t' ? 't' : *s == '\r' ? 'r' : '\\';
		return 2;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		w[len++] = '\\';
		w[len++] = 'x';
		w[len++] = hex[c >> 4];
		w[len++] = hex[c & 15];
	}
	return len;
}

size_t text_clean(char *out, size_t len, const char *in, enum text_form form)
{
	size_t used = 0, need = 0;
	bool cut = false;

	while (*in) {
		char w[16];
		bool keep;
		size_t n = text_unit(in, &keep), wl = unit_text(in, n, keep, form, w);

		if (!cut && used + wl < len) {
			memcpy(out + used, w, wl);
			used += wl;
		} else {
			cut = true; /* whole units only: nothing after the first that does not fit */
		}
		need += wl;
		in += n;
	}
	if (len)
		out[used] = '\0';
	return need;
}

int text_write_lines(FILE *f, const char *text, enum text_form form)
{
	while (*text) {
		char w[16];
		bool keep;
		size_t n = text_unit(text, &keep), wl;

		if (*text == '\n')
			w[0] = '\n', wl = 1;
		else
			wl = unit_text(text, n, keep, form, w);
		if (fwrite(w, 1, wl, f) != wl)
			return EOF;
		text += n;
	}
	return 0;
}
