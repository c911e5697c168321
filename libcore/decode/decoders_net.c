/* Decoders of network names: ifname (interface indexes), dname (DNS names in wire format). */
#include "libcore/decode/decoder_kind.h"
#include "libcore/decode/if_names.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ifname: an interface index -> the interface's name ---- */

static int ifname_create(struct label_decoder *d, const char *const *args, int nargs, char *err, size_t errlen)
{
	struct if_names *c;

	if (decoder_flavour_arg(d, args, nargs, err, errlen))
		return -1;
	if (!(c = malloc(sizeof(*c)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if_names_init(c);
	d->state = c;
	return 0;
}

static void ifname_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	int64_t v;
	char number[24];
	const char *name = NULL;

	if (!in->is_text && d->ebpf_exporter && in->size >= 4) {
		uint32_t idx; /* ebpf_exporter reads the first 4 bytes, whatever the label's size */

		memcpy(&idx, in->bytes, 4);
		v = idx;
	} else if (!in->is_text) {
		v = (int64_t)decode_uint(in);
	} else if (decode_number_input(in, &v, out, outlen)) {
		return;
	}
	if (v > 0 && v <= UINT32_MAX)
		name = if_name(d->state, (uint32_t)v);
	snprintf(number, sizeof(number), "%" PRIu64, (uint64_t)v);
	decode_name_or_number(d, name, "unknown:", number, out, outlen);
}

static void ifname_destroy(struct label_decoder *d)
{
	free(d->state);
	d->state = NULL;
}

/* An interface renamed or deleted since the last read (if_names.h). */
static void ifname_next_read(struct label_decoder *d)
{
	if_names_expire(d->state);
}

const struct decoder_kind decoder_ifname = {
	.name = "ifname", .sizes = SIZES_UINT, .sizes_text = "1, 2, 4 or 8 bytes", .takes_text = true,
	.max_args = 1, .create = ifname_create, .decode = ifname_decode, .destroy = ifname_destroy,
	.next_read = ifname_next_read,
};

/* ---- dname: a DNS name in wire format ("\x07example\x03com\x00") -> "example.com" ---- */

/* Appends the bytes of in, escaped as the string decoder escapes them; false when out is full. */
static bool put_escaped(char *out, size_t outlen, size_t *o, const unsigned char *bytes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char esc[5];
		size_t len = decode_escape_byte(bytes[i], esc);

		if (*o + len >= outlen)
			return false;
		memcpy(out + *o, esc, len);
		*o += len;
	}
	return true;
}

/* Each label's length byte becomes a '.', the first one dropped. The name ends at its root
 * label (a 0 length), or, with "ebpf_exporter", at the end of the key part: as ebpf_exporter
 * reads it, each 0 byte after the name is one more '.' ("example.com.." for a name and two
 * 0s). An empty name is ".". A label longer than what is left of the key part: the key
 * part's bytes unchanged (escaped), as ebpf_exporter gives them. */
static void dname_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	size_t o = 0, off, end = 0;

	/* Where the name ends, or that it is malformed, before any text: a cut text is then
	 * the start of the whole one. */
	while (end < in->size && (in->bytes[end] || d->ebpf_exporter)) {
		if (end + 1 + in->bytes[end] > in->size) { /* malformed: the input as it is */
			put_escaped(out, outlen, &o, in->bytes, in->size);
			out[o] = '\0';
			return;
		}
		end += 1 + in->bytes[end];
	}
	if (end == 0 && (!d->ebpf_exporter || in->size == 0)) {
		snprintf(out, outlen, ".");
		return;
	}
	for (off = 0; off < end; off += 1 + in->bytes[off])
		if ((off > 0 && !put_escaped(out, outlen, &o, (const unsigned char *)".", 1)) ||
		    !put_escaped(out, outlen, &o, in->bytes + off + 1, in->bytes[off]))
			break; /* out is full: the text cut */
	out[o] = '\0';
}

static int dname_create(struct label_decoder *d, const char *const *args, int nargs, char *err, size_t errlen)
{
	return decoder_flavour_arg(d, args, nargs, err, errlen);
}

const struct decoder_kind decoder_dname = {
	.name = "dname", .sizes = SIZES_ANY, .sizes_text = "1 to 256 bytes", .max_args = 1,
	.create = dname_create, .decode = dname_decode,
};
