#include "libcore/programs/exporter_decoders.h"

#include "base/text_append.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum input { READS_BYTES, READS_NUMBER_TEXT, READS_TEXT };

struct exporter_decoder {
	const char *name;
	enum input input;
	const char *arg; /* the chain decoder's argument that gives ebpf_exporter's output, or NULL */
};

/* The ebpf_exporter decoders honoured here, with what each reads in its chain. Their
 * outputs match ebpf_exporter's (doc/programs.md), unnamed values included. */
static const struct exporter_decoder decoders[] = {
	{ "uint", READS_BYTES, NULL },
	{ "string", READS_BYTES, NULL },
	{ "hex", READS_BYTES, NULL },
	{ "inet_ip", READS_BYTES, NULL },
	/* its programs write the dev_t with user space's MKDEV; the name, else unknown:M:m */
	{ "majorminor", READS_BYTES, "ebpf_exporter" },
	{ "ksym", READS_BYTES, "ebpf_exporter" },
	/* frames joined by newlines, "??" below the kernel's first symbol */
	{ "kstack", READS_BYTES, "ebpf_exporter" },
	{ "syscall", READS_NUMBER_TEXT, "ebpf_exporter" },
	{ "errno", READS_NUMBER_TEXT, "ebpf_exporter" },
	{ "cgroup", READS_NUMBER_TEXT, "ebpf_exporter" },
	/* its first 4 bytes; an index without an interface as unknown:N */
	{ "ifname", READS_BYTES, "ebpf_exporter" },
	/* every 0 byte after the name one more '.', as ebpf_exporter reads the whole key part */
	{ "dname", READS_BYTES, "ebpf_exporter" },
	/* from the system's pci.ids; its lookups by the shorter hex widths, its unknown texts */
	{ "pci_vendor", READS_NUMBER_TEXT, "ebpf_exporter" },
	{ "pci_device", READS_NUMBER_TEXT, "ebpf_exporter" },
	{ "pci_class", READS_NUMBER_TEXT, "ebpf_exporter" },
	{ "pci_subclass", READS_NUMBER_TEXT, "ebpf_exporter" },
	{ "static_map", READS_TEXT, NULL },
	/* regexps: the first pattern that matches gives the label, none drops the label set */
	{ "regexp", READS_TEXT, NULL },
};

static const struct exporter_decoder *decoder_named(const char *name)
{
	for (size_t i = 0; i < sizeof(decoders) / sizeof(decoders[0]); i++)
		if (!strcmp(decoders[i].name, name))
			return &decoders[i];
	return NULL;
}

enum exporter_decoder_support exporter_decoder_support(const char *name)
{
	return decoder_named(name) ? EXPORTER_DECODER_HERE : EXPORTER_DECODER_UNKNOWN;
}

/* static_map's entries as the chain's arguments, and "*=unknown:" (what ebpf_exporter
 * prints for a value without an entry) unless allow_unknown. */
static int add_static_map(struct decoder_chain *chain, const struct exporter_decoder_spec *d,
			  char *err, size_t errlen)
{
	const char **args;
	int nargs = d->nstatic_map, r;

	if (!d->has_static_map) {
		snprintf(err, errlen, "this label: decoder static_map needs its static_map: entries (`1: read`)");
		return -1;
	}
	args = calloc((size_t)nargs + 1, sizeof(*args));
	if (!args) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(args, d->static_map, (size_t)nargs * sizeof(*args));
	if (!d->allow_unknown)
		args[nargs++] = "*=unknown:";
	if (nargs == 0) { /* an empty map with allow_unknown: every value as it is */
		free(args);
		return 0;
	}
	r = decoder_chain_add(chain, "static_map", args, nargs, err, errlen);
	free(args);
	return r;
}

int exporter_decoder_add(struct decoder_chain *chain, int position,
			 const struct exporter_decoder_spec *d, char *err, size_t errlen)
{
	const struct exporter_decoder *k = decoder_named(d->name);

	if (!k) {
		size_t used = 0;

		err[0] = '\0';
		text_appendf(err, errlen, &used, "this label: unknown decoder name; the decoders here:");
		for (size_t i = 0; i < sizeof(decoders) / sizeof(decoders[0]); i++)
			text_appendf(err, errlen, &used, "%s %s", i ? "," : "", decoders[i].name);
		return -1;
	}
	if (d->has_static_map && strcmp(d->name, "static_map")) {
		snprintf(err, errlen, "this label: static_map goes with decoder static_map, not %s", k->name);
		return -1;
	}
	if (d->allow_unknown_given && strcmp(d->name, "static_map")) {
		snprintf(err, errlen, "this label: allow_unknown goes with decoder static_map, not %s", k->name);
		return -1;
	}
	if (d->has_regexps && strcmp(d->name, "regexp")) {
		snprintf(err, errlen, "this label: regexps go with decoder regexp, not %s", k->name);
		return -1;
	}
	/* ebpf_exporter would run a byte decoder on the text before it, or parse raw bytes as
	 * a number's text; neither gives a label, so both are refused. */
	if (k->input == READS_BYTES && position > 0) {
		snprintf(err, errlen, "this label: decoder %s reads the key's bytes, so it must be the label's first "
				      "decoder", k->name);
		return -1;
	}
	if (k->input == READS_NUMBER_TEXT && position == 0) {
		snprintf(err, errlen, "this label: decoder %s reads a number's text: put `- name: uint` before it",
			 k->name);
		return -1;
	}
	if (k->input == READS_TEXT && position == 0) {
		snprintf(err, errlen, "this label: decoder %s reads text: put a decoder that makes it (uint, string, "
				      "...) before it", k->name);
		return -1;
	}
	if (!strcmp(d->name, "regexp")) {
		if (!d->nregexps) {
			snprintf(err, errlen, "this label: decoder regexp needs its regexps: a list of patterns "
					      "(`regexps: [\"^(kswapd).*$\"]`)");
			return -1;
		}
		return decoder_chain_add(chain, "regexps", d->regexps, d->nregexps, err, errlen);
	}
	if (k->input == READS_TEXT)
		return add_static_map(chain, d, err, errlen);
	return decoder_chain_add(chain, d->name, k->arg ? &k->arg : NULL, k->arg ? 1 : 0, err, errlen);
}
