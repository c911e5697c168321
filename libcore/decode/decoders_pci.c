/* Decoders of PCI ids from pci.ids (pci_ids.h): pci_vendor, pci_device, pci_class,
 * pci_subclass. Each reads a number: the key part's bytes (unsigned), or, after another
 * decoder, its decimal text (`uint` then `pci_vendor`, as ebpf_exporter's chains are written).
 *
 * The numbers: a vendor 0x8086; a device vendor << 16 | device (0x80861000); a class 0x02; a
 * subclass class << 8 | subclass (0x0200). A number without a name prints in hex at its
 * width ("0x8087"), or with "ebpf_exporter" as it prints it ("unknown pci vendor: 0x8087",
 * "unknown pci subclass: 0x0b (class 0x01)"). ebpf_exporter looks ids up by the text of a
 * shorter width (vendors "%02x", devices "%04x"), so it names no vendor below 0x1000 and
 * no device of one: its flavour does the same, so that its configs give its labels. */
#include "libcore/decode/decoder_kind.h"
#include "libcore/decode/pci_ids.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pci_decoder {
	const struct pci_ids *ids; /* the system's, or own */
	struct pci_ids own;        /* a pci.ids given as argument */
};

/* Arguments: "ebpf_exporter" and/or the path of a pci.ids file (default: the system's). */
static int pci_create(struct label_decoder *d, const char *const *args, int nargs, char *err, size_t errlen)
{
	struct pci_decoder *p;
	const char *path = NULL;

	for (int i = 0; i < nargs; i++) {
		if (!strcmp(args[i], "ebpf_exporter") && !d->ebpf_exporter) {
			d->ebpf_exporter = true;
		} else if (args[i][0] == '/' && !path) {
			path = args[i];
		} else {
			snprintf(err, errlen, "unknown argument \"%s\": the arguments are \"ebpf_exporter\" (an unknown id "
					      "prints as ebpf_exporter prints it) and the absolute path of a pci.ids file",
				 args[i]);
			return -1;
		}
	}
	if (!(p = calloc(1, sizeof(*p)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* Read now, at config time: a missing pci.ids is a config error, not a column of ids. */
	if (path ? pci_ids_load(&p->own, path, err, errlen) : !(p->ids = pci_ids_system(err, errlen))) {
		free(p);
		return -1;
	}
	if (path)
		p->ids = &p->own;
	d->state = p;
	return 0;
}

static void pci_destroy(struct label_decoder *d)
{
	struct pci_decoder *p = d->state;

	if (p)
		pci_ids_free(&p->own);
	free(p);
	d->state = NULL;
}

/* The number to name: 0, or -1 when the input is text that is not a number (copied to out). */
static int pci_number(const struct decode_input *in, int64_t *v, char *out, size_t outlen)
{
	if (!in->is_text) {
		*v = (int64_t)decode_uint(in); /* unsigned: a 2-byte 0x8086 is no negative number */
		return 0;
	}
	return decode_number_input(in, v, out, outlen);
}

/* v in hex as Go's fmt "%0<width>x" writes it: zero-padded, a '-' before a negative one. */
static void go_hex(char *buf, size_t len, int64_t v, int width)
{
	if (v < 0)
		snprintf(buf, len, "-%0*" PRIx64, width > 1 ? width - 1 : 0, -(uint64_t)v);
	else
		snprintf(buf, len, "%0*" PRIx64, width, (uint64_t)v);
}

/* The name of v of kind in d's pci.ids when v lies in lo..hi (the ids whose text ebpf_exporter
 * or this code looks up), else NULL. */
static const char *pci_name(const struct label_decoder *d, enum pci_id_kind kind, int64_t v, int64_t lo, int64_t hi)
{
	const struct pci_decoder *p = d->state;

	return v >= lo && v <= hi ? pci_ids_name(p->ids, kind, (uint32_t)v) : NULL;
}

/* The label for one kind: its name, else its number as the flavour prints it. */
static void pci_label(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen,
		      enum pci_id_kind kind, const char *what, int width, int64_t max, int exporter_width,
		      int64_t exporter_min)
{
	int64_t v;
	const char *name;
	char hex[24];

	if (pci_number(in, &v, out, outlen))
		return;
	name = d->ebpf_exporter ? pci_name(d, kind, v, exporter_min, max) : pci_name(d, kind, v, 0, max);
	go_hex(hex, sizeof(hex), v, d->ebpf_exporter ? exporter_width : width);
	if (name)
		snprintf(out, outlen, "%s", name);
	else if (d->ebpf_exporter)
		snprintf(out, outlen, "unknown pci %s: 0x%s", what, hex);
	else
		snprintf(out, outlen, "0x%s", hex);
}

static void pci_vendor_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	pci_label(d, in, out, outlen, PCI_ID_VENDOR, "vendor", 4, 0xffff, 2, 0x1000);
}

static void pci_device_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	pci_label(d, in, out, outlen, PCI_ID_DEVICE, "device", 8, 0xffffffff, 4, 0x10000000);
}

static void pci_class_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	pci_label(d, in, out, outlen, PCI_ID_CLASS, "class", 2, 0xff, 2, 0);
}

/* Ask for the class first: ebpf_exporter names an unknown class as such, and an unknown
 * subclass of a known class with both numbers. */
static void pci_subclass_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	int64_t v, class;
	const char *name;
	char class_hex[24];

	if (!d->ebpf_exporter) {
		pci_label(d, in, out, outlen, PCI_ID_SUBCLASS, "subclass", 4, 0xffff, 4, 0);
		return;
	}
	if (pci_number(in, &v, out, outlen))
		return;
	class = v >> 8;
	go_hex(class_hex, sizeof(class_hex), class, 2);
	if (!pci_name(d, PCI_ID_CLASS, class, 0, 0xff)) {
		snprintf(out, outlen, "unknown pci class: 0x%s", class_hex);
		return;
	}
	name = pci_name(d, PCI_ID_SUBCLASS, class << 8 | (v & 0xff), 0, 0xffff);
	if (name)
		snprintf(out, outlen, "%s", name);
	else
		snprintf(out, outlen, "unknown pci subclass: 0x%02x (class 0x%s)", (unsigned int)(v & 0xff), class_hex);
}

#define PCI_DECODER(kind_name, decode_fn)                                                                       \
	{                                                                                                     \
		.name = kind_name, .sizes = SIZES_UINT, .sizes_text = "1, 2, 4 or 8 bytes", .takes_text = true, \
		.max_args = 2, .create = pci_create, .decode = decode_fn, .destroy = pci_destroy,             \
	}

const struct decoder_kind decoder_pci_vendor = PCI_DECODER("pci_vendor", pci_vendor_decode);
const struct decoder_kind decoder_pci_device = PCI_DECODER("pci_device", pci_device_decode);
const struct decoder_kind decoder_pci_class = PCI_DECODER("pci_class", pci_class_decode);
const struct decoder_kind decoder_pci_subclass = PCI_DECODER("pci_subclass", pci_subclass_decode);
