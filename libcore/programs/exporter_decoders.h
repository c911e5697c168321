/* ebpf_exporter's label decoders (`decoders: [{name: uint}, {name: syscall}]`) as this
 * project's decoder chains (libcore/decode/label_decoder.h), with ebpf_exporter's semantics:
 * each decoder takes the one before's output; the ones that read bytes (uint, string, hex,
 * inet_ip, ksym, kstack, majorminor) come first, the ones that read text (syscall, errno and cgroup a
 * number's text, static_map and regexp any text) after one that makes it; regexp (this
 * project's regexps) drops the key's label set when no pattern matches; a value without a name prints
 * as ebpf_exporter prints it (the decoders' "ebpf_exporter" argument). The YAML is read by
 * exporter_config.c; this file knows only what each decoder means. */
#ifndef EBPF_PROGRAMS_EXPORTER_DECODERS_H
#define EBPF_PROGRAMS_EXPORTER_DECODERS_H

#include <stdbool.h>
#include <stddef.h>

#include "libcore/decode/label_decoder.h"

/* One decoder of a YAML label, as read. */
struct exporter_decoder_spec {
	const char *name;
	const char *const *static_map; /* "value=text" entries (static_map only) */
	int nstatic_map;
	const char *const *regexps; /* patterns (regexp only) */
	int nregexps;
	bool has_static_map, allow_unknown, allow_unknown_given, has_regexps;
};

/* What ebpf_exporter's decoder `name` is here. */
enum exporter_decoder_support {
	EXPORTER_DECODER_HERE,    /* honoured, with its semantics (all 18 of ebpf_exporter's) */
	EXPORTER_DECODER_UNKNOWN, /* not one of ebpf_exporter's */
};
enum exporter_decoder_support exporter_decoder_support(const char *name);

/* Appends decoder d, the position-th (0: first) of the chain's label, to chain. 0, or -1
 * with err saying what is wrong and the fix (without the file and line: the caller adds
 * them; nor the config's text: "this label"). */
int exporter_decoder_add(struct decoder_chain *chain, int position,
			 const struct exporter_decoder_spec *d, char *err, size_t errlen);

#endif
