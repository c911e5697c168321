#include "libcore/read/series_name.h"

#include "base/text_hash.h"

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
		 char (*decoded)[DECODE_TEXT_MAX], uint8_t *ends)
{
	char texts[SERIES_MAX_LABELS][LABEL_VALUE_MAX], raw[1024], cpu_text[16], text[DECODE_TEXT_MAX];
	size_t used = 0;

	for (int i = 0; i < v->nlabels; i++) {
		char *to = decoded ? decoded[i] : text;
		uint16_t cpu_bytes = (uint16_t)(cpu > 0 ? cpu : 0); /* host order, as ebpf_exporter appends it */
		const uint8_t *bytes = v->labels[i].cpu_index ? (const uint8_t *)&cpu_bytes : key + v->labels[i].offset;

		if (!decoder_chain_decode_kept(v->labels[i].chain, bytes, v->labels[i].size, to, DECODE_TEXT_MAX))
			return false;
		label_value_safe(to, texts[i]);
	}
	if (cpu >= 0 && v->cpu_label)
		snprintf(cpu_text, sizeof(cpu_text), "cpu%d", cpu);
	raw[0] = '\0';
	if (v->type_instance) {
		fill_template(v, texts, cpu >= 0 && v->cpu_label ? cpu_text : NULL, raw, sizeof(raw));
	} else {
		for (int i = 0; i < v->nlabels; i++) {
			if (i)
				append(raw, sizeof(raw), &used, "-");
			append(raw, sizeof(raw), &used, texts[i]);
			if (ends)
				ends[i] = used < LABEL_VALUE_MAX ? (uint8_t)used : SERIES_ENDS_UNKNOWN;
		}
		if (cpu >= 0 && v->cpu_label) {
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
	/* A template, or a name that had to be cut: its labels cannot be told apart in it. */
	if (ends && v->nlabels && (v->type_instance || strcmp(raw, out)))
		ends[0] = SERIES_ENDS_UNKNOWN;
	return true;
}


/* text cut to at most max bytes (max >= 9): as it is when it fits, else its first max - 9
 * at most, ending with a whole character (a name stays valid UTF-8), '~' and 8 hex digits of
 * a hash of the whole (FNV-1a, as label_value.h cuts). */
static void cut_with_hash(const char *text, size_t max, char *out, size_t *used, size_t cap)
{
	char hash[16];
	char head[LABEL_VALUE_MAX];
	size_t keep = max - 9;

	if (strlen(text) <= max) {
		append(out, cap, used, text);
		return;
	}
	while (keep > 0 && ((unsigned char)text[keep] & 0xc0) == 0x80)
		keep--;
	snprintf(head, sizeof(head), "%.*s", (int)keep, text);
	snprintf(hash, sizeof(hash), "~%08x", text_hash32(text));
	append(out, cap, used, head);
	append(out, cap, used, hash);
}

void series_name_in_group(const char *group, const char *name, char out[LABEL_VALUE_MAX])
{
	size_t used = 0;

	out[0] = '\0';
	cut_with_hash(group, SERIES_GROUP_MAX, out, &used, LABEL_VALUE_MAX);
	append(out, LABEL_VALUE_MAX, &used, "/");
	cut_with_hash(name, LABEL_VALUE_MAX - 1 - used, out, &used, LABEL_VALUE_MAX);
}
