#include "libcore/read/series_name.h"

#include <stdio.h>
#include <string.h>

/* Appends text to buf (cap bytes, NUL kept), cut at the end: no printf per label, which
 * costs more than the decoding over 10,000 keys. */
static void append(char *buf, size_t cap, size_t *used, const char *text)
{
	size_t n = strlen(text);

	if (*used + n >= cap)
		n = cap - 1 - *used;
	memcpy(buf + *used, text, n);
	*used += n;
	buf[*used] = '\0';
}

/* The TypeInstance template with %{label} (and %{cpu}) replaced by the labels' texts. */
static void fill_template(const struct series_view *v, char texts[][LABEL_VALUE_MAX], const char *cpu_text,
			  char *raw, size_t cap)
{
	size_t used = 0;

	raw[0] = '\0';
	for (const char *p = v->type_instance; *p && used + 1 < cap;) {
		const char *end, *text = NULL;

		if (p[0] == '%' && p[1] == '{' && (end = strchr(p, '}'))) {
			size_t n = (size_t)(end - p - 2);

			for (int i = 0; i < v->nlabels; i++)
				if (strlen(v->labels[i].name) == n && !strncmp(v->labels[i].name, p + 2, n))
					text = texts[i];
			if (!text && n == 3 && !strncmp(p + 2, "cpu", 3) && cpu_text)
				text = cpu_text;
			if (text) {
				append(raw, cap, &used, text);
				p = end + 1;
				continue;
			}
		}
		raw[used++] = *p++;
		raw[used] = '\0';
	}
}

bool series_name(const struct series_view *v, const uint8_t *key, int cpu, char out[LABEL_VALUE_MAX],
		 char (*decoded)[DECODE_TEXT_MAX])
{
	char texts[SERIES_MAX_LABELS][LABEL_VALUE_MAX], raw[1024], cpu_text[16], text[DECODE_TEXT_MAX];
	size_t used = 0;

	for (int i = 0; i < v->nlabels; i++) {
		char *to = decoded ? decoded[i] : text;

		if (!decoder_chain_decode_kept(v->labels[i].chain, key + v->labels[i].offset, v->labels[i].size, to,
					       DECODE_TEXT_MAX))
			return false;
		label_value_safe(to, texts[i]);
	}
	if (cpu >= 0)
		snprintf(cpu_text, sizeof(cpu_text), "cpu%d", cpu);
	raw[0] = '\0';
	if (v->type_instance) {
		fill_template(v, texts, cpu >= 0 ? cpu_text : NULL, raw, sizeof(raw));
	} else {
		for (int i = 0; i < v->nlabels; i++) {
			if (i)
				append(raw, sizeof(raw), &used, "-");
			append(raw, sizeof(raw), &used, texts[i]);
		}
		if (cpu >= 0) {
			if (used)
				append(raw, sizeof(raw), &used, "-");
			append(raw, sizeof(raw), &used, cpu_text);
		}
	}
	if (!v->type_instance && !v->nlabels && cpu < 0) {
		snprintf(out, LABEL_VALUE_MAX, "%s", v->lone_name);
		return true;
	}
	label_value_safe(raw, out);
	return true;
}


void series_name_in_group(const char *group, const char *name, char out[LABEL_VALUE_MAX])
{
	size_t len = strlen(name), room = len + 2 < LABEL_VALUE_MAX ? LABEL_VALUE_MAX - 2 - len : 0, used = 0;
	uint32_t h = 2166136261u; /* FNV-1a, as label_value.h cuts */
	char hash[16];

	out[0] = '\0';
	if (strlen(group) <= room || room < 9) {
		append(out, LABEL_VALUE_MAX, &used, group);
	} else {
		for (const char *p = group; *p; p++)
			h = (h ^ (unsigned char)*p) * 16777619u;
		snprintf(hash, sizeof(hash), "~%08x", h);
		used = room - 9;
		while (used > 0 && ((unsigned char)group[used] & 0xc0) == 0x80)
			used--; /* cut at a whole character: a name stays valid UTF-8 */
		memcpy(out, group, used);
		append(out, LABEL_VALUE_MAX, &used, hash);
	}
	append(out, LABEL_VALUE_MAX, &used, "/");
	append(out, LABEL_VALUE_MAX, &used, name);
}
