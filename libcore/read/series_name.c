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

/* A label's span in the name: end, and start at SERIES_MAX_LABELS on (series_name.h); a
 * span beyond what a byte holds is unknown. */
static void set_span(uint8_t *ends, int i, size_t start, size_t end)
{
	if (!ends)
		return;
	ends[i] = end < LABEL_VALUE_MAX ? (uint8_t)end : SERIES_ENDS_UNKNOWN;
	ends[SERIES_MAX_LABELS + i] = start < LABEL_VALUE_MAX ? (uint8_t)start : SERIES_ENDS_UNKNOWN;
}

/* The TypeInstance template with %{label} (and %{cpu}) replaced by the labels' texts; each
 * label's span into ends when the template names it once. */
static void fill_template(const struct series_view *v, char texts[][LABEL_VALUE_MAX], const char *cpu_text,
			  char *raw, size_t cap, uint8_t *ends)
{
	size_t used = 0;
	int seen[SERIES_MAX_LABELS] = { 0 };

	raw[0] = '\0';
	for (const char *p = v->type_instance; *p && used + 1 < cap;) {
		const char *end, *text = NULL;

		if (p[0] == '%' && p[1] == '{' && (end = strchr(p, '}'))) {
			size_t n = (size_t)(end - p - 2);

			int label = -1;

			for (int i = 0; i < v->nlabels; i++)
				if (strlen(v->labels[i].name) == n && !strncmp(v->labels[i].name, p + 2, n))
					text = texts[label = i];
			if (!text && n == 3 && !strncmp(p + 2, "cpu", 3) && cpu_text)
				text = cpu_text;
			if (text) {
				size_t start = used;

				append(raw, cap, &used, text);
				if (label >= 0 && !seen[label]++)
					set_span(ends, label, start, used);
				p = end + 1;
				continue;
			}
		}
		raw[used++] = *p++;
		raw[used] = '\0';
	}
	for (int i = 0; ends && i < v->nlabels; i++)
		if (seen[i] != 1)
			ends[0] = SERIES_ENDS_UNKNOWN;
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
	if (cpu >= 0 && v->copies == COPIES_APART)
		snprintf(cpu_text, sizeof(cpu_text), "cpu%d", cpu);
	raw[0] = '\0';
	if (v->type_instance) {
		fill_template(v, texts, cpu >= 0 && v->copies == COPIES_APART ? cpu_text : NULL, raw, sizeof(raw), ends);
	} else {
		for (int i = 0; i < v->nlabels; i++) {
			size_t start;

			if (i)
				append(raw, sizeof(raw), &used, "-");
			start = used;
			append(raw, sizeof(raw), &used, texts[i]);
			set_span(ends, i, start, used);
		}
		if (cpu >= 0 && v->copies == COPIES_APART) {
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
	/* A name that had to be cut or made safe: its labels cannot be told apart in it. */
	if (ends && v->nlabels && strcmp(raw, out))
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
