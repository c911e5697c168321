/* What each label decoder (label_decoder.h) provides to the chain: its name, the inputs it
 * takes, and create/decode/free. One table lists them all (label_decoder.c); each decoder
 * lives in the file of its kind (decoders_number.c, decoders_text.c, decoders_system.c,
 * decoders_net.c, decoders_pci.c) or in its own (decoder_<name>.c). The helpers below are
 * decoders_number.c's, except decode_escape_byte (decoders_text.c). */
#ifndef EBPF_CORE_DECODER_KIND_H
#define EBPF_CORE_DECODER_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Raw sizes a decoder accepts: one bit per size 1..31, or any size up to DECODE_BYTES_MAX. */
#define SIZE_BIT(n) (1u << (n))
#define SIZES_UINT (SIZE_BIT(1) | SIZE_BIT(2) | SIZE_BIT(4) | SIZE_BIT(8))
#define SIZES_ANY 0xffffffffu

/* The input of one decoder: the key part's bytes (first decoder) or the text the decoder
 * before it made (NUL-terminated, size == strlen). */
struct decode_input {
	const unsigned char *bytes;
	size_t size;
	bool is_text;
};

struct label_decoder;

struct decoder_kind {
	const char *name;
	unsigned int sizes;      /* raw sizes taken, 0: text only */
	unsigned int size_step;  /* with SIZES_ANY: the size must be a multiple of it (kstack's 8) */
	const char *sizes_text;  /* "4 or 8 bytes", for messages */
	bool takes_text;         /* may follow another decoder */
	bool may_drop;           /* may drop the key's label set (label_decoder.dropped) */
	int min_args, max_args;
	/* Reads the arguments into d->state. 0, or -1 with err (the message names the decoder). */
	int (*create)(struct label_decoder *d, const char *const *args, int nargs, char *err, size_t errlen);
	/* Writes the text for in to out (outlen >= 1), cut if it does not fit. */
	void (*decode)(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen);
	void (*destroy)(struct label_decoder *d);
	/* May be NULL. A reader that wants answers as of this read (a disk replugged since the
	 * last one) calls it once per read, through decoder_chain_next_read(). */
	void (*next_read)(struct label_decoder *d);
};

struct label_decoder {
	const struct decoder_kind *kind;
	void *state;
	/* Argument "ebpf_exporter": a value without a name prints as ebpf_exporter prints it
	 * ("unknown_syscall:N", "unknown:N", "unknown_cgroup_id:N", "unknown_addr:0x..."), so
	 * that its configs (ExporterConfig) give its label values. */
	bool ebpf_exporter;
	/* Set by the decode of a kind that may_drop: the text it was given drops the key's
	 * label set (regexps: no pattern matched), and the chain stops there. */
	bool dropped;
	/* Its `Decode` line's values as the configuration writes them ("\"uint\"",
	 * "\"static_map\" \"0=read\""), so that a chain can be printed back
	 * (decoder_chain_line(), collectd-ebpf-import). */
	char *line;
	/* The chain's hidden (label_decoder.h), when it was made: create's messages name an
	 * argument with decoder_arg_shown(). */
	bool args_hidden;
};

/* Argument i of args as create's messages name it, in buf: "\"TEXT\"", or "entry I+1"
 * when d->args_hidden. Returns buf. */
const char *decoder_arg_shown(const struct label_decoder *d, const char *const *args, int i, char *buf,
			      size_t buflen);
#define DECODER_ARG_SHOWN_MAX 320 /* a buffer for it: the text cut to fit */

/* The key part read as an unsigned number in host order; size is 1, 2, 4 or 8. */
uint64_t decode_uint(const struct decode_input *in);
/* The same, sign-extended from its size. */
int64_t decode_int(const struct decode_input *in);
/* The number a decoder that names numbers (syscall, errno, cgroup) reads: the key part's
 * bytes, signed, or, after another decoder, that decoder's text as a decimal number
 * (`uint` makes "59", `syscall` names it: ebpf_exporter's chains). 0, or -1 for text that
 * is not a whole number, which is passed on unchanged: copied to out, the decoder's label. */
int decode_number_input(const struct decode_input *in, int64_t *v, char *out, size_t outlen);
/* The label of a number a decoder names: its name when it has one, else the number (text),
 * after `unknown` in ebpf_exporter's flavour ("unknown:", "unknown_cgroup_id:"). */
void decode_name_or_number(const struct label_decoder *d, const char *name, const char *unknown, const char *number,
			   char *out, size_t outlen);
/* A byte of text as the string decoder writes it, in esc: itself; a backslash doubled;
 * outside ' '..'~' as \xNN. Returns its length (1 to 4). */
size_t decode_escape_byte(unsigned char ch, char esc[5]);
/* The optional argument "ebpf_exporter" (sets d->ebpf_exporter): 0, or -1 with err. */
int decoder_flavour_arg(struct label_decoder *d, const char *const *args, int nargs, char *err, size_t errlen);

#endif
