/* Label decoders: how the bytes of one key part of a user's map become the text of a collectd
 * label (`<Label "device"> Field "dev"  Decode "majorminor" </Label>`).
 *
 * A label has a chain of decoders, applied in order: the first one reads the key part's raw
 * bytes, each later one the text the one before made (`Decode "uint"` then
 * `Decode "static_map" "0=read" "1=write"`). Everything that can be wrong with a chain is
 * found at config time, before anything loads:
 *   decoder_chain_add()   unknown decoder, bad arguments, a decoder that cannot take the
 *                         input it would get at its place in the chain;
 *   decoder_chain_check() the key part's size against what the first decoder accepts
 *                         ("decoder majorminor needs 4 or 8 bytes, label \"device\" has 2").
 * Decoding never fails: a value a decoder cannot name comes out as its number (ksym "0x...",
 * majorminor "8_16", cgroup "12345", errno "-4095").
 *
 * Decoders, their inputs and outputs (README, "Label decoders"):
 *   uint        1, 2, 4, 8 bytes, host order       -> decimal
 *   hex         1..256 bytes                        -> the bytes in memory order, "0a1b"
 *   string      1..256 bytes, ends at the first NUL -> text; bytes outside ' '..'~' and '\'
 *                                                      as \xNN and \\
 *   syscall     1, 2, 4, 8 bytes, or a number's text -> "openat" (this architecture's table)
 *   errno       1, 2, 4, 8 bytes, signed, or text   -> "ENOENT" for 2 and -2
 *   majorminor  4, 8 bytes; argument "kernel" (default: MKDEV, major << 20 | minor, as
 *               block tracepoints and s_dev), "stat" (new_encode_dev/huge_encode_dev,
 *               as stat's st_dev) or "ebpf_exporter" (stat's, first 4 bytes, unknown as
 *               "unknown:M:m")             -> the disk's name in /proc/diskstats, "loop0"
 *   ksym        8 bytes                             -> the kernel symbol holding the address
 *   kstack      a multiple of 8 bytes (bpf_get_stack's addresses, up to the first 0) -> each
 *               frame's symbol, joined by ';' ("ebpf_exporter": by '\n', "??" below every
 *               symbol; decoders_system.c)
 *   static_map  1, 2, 4, 8 bytes or text; "value=text" arguments -> the text, else the value
 *               (after the TEXT of a "*=TEXT" argument: ebpf_exporter's "unknown:" prefix)
 *   regexp      text; "pattern" [replacement]       -> group 1 (or the match), or the
 *                                                      replacement with \0..\9; else unchanged
 *   regexps     text; "pattern"...                  -> of the first pattern that matches,
 *               group 1 (or the match); no match drops the key's label set (ebpf_exporter's
 *               regexp, decoder_regexps.c)
 *   cgroup      8 bytes (cgroup id), or its text    -> the path under the cgroup2 mount
 * syscall, errno, cgroup and ksym take the argument "ebpf_exporter": a value without a name
 * then prints as ebpf_exporter prints it (unknown_syscall:N, unknown:N, unknown_cgroup_id:N,
 * unknown_addr:0x..., and ksym names a symbol's own address only). After another decoder,
 * syscall, errno and cgroup read its text as a decimal number (`uint` makes "59"), as
 * ebpf_exporter's chains do; text that is not a number passes on unchanged.
 *   inet_ip     4 or 16 bytes                       -> "10.0.0.1", "2001:db8::1"
 *   ifname      1, 2, 4, 8 bytes, or a number's text -> the interface's name, "eth0"
 *   dname       1..256 bytes, DNS wire format       -> "example.com" (bytes escaped as string's)
 *   pci_vendor, pci_device, pci_class, pci_subclass: 1, 2, 4, 8 bytes or a number's text
 *               (vendor, vendor << 16 | device, class, class << 8 | subclass) -> the name in
 *               pci.ids ("Intel Corporation"); argument: the path of another pci.ids
 * ifname, dname and pci_* take "ebpf_exporter" too (unknown:N; dname's every 0 byte a '.';
 * "unknown pci vendor: 0x..." and its lookups by shorter hex widths).
 * A label without Decode lines reads as "uint" when its size is 1, 2, 4 or 8, else "hex".
 *
 * Caches, all bounded: ksym and kstack load /proc/kallsyms once per process, at config time,
 * into a sorted table (one entry per kernel symbol, shared by every ksym and kstack decoder);
 * cgroup keeps at most CGROUP_CACHE_SLOTS paths per decoder, majorminor at most
 * DISK_NAMES_MAX disk names,
 * regexp at most REGEXP_MEMO_SLOTS results, ifname IF_NAMES_SLOTS names (asked again after
 * each next_read); pci_* read the system's pci.ids once per process (a file given as argument
 * once per decoder), at config time, at most PCI_IDS_FILE_MAX bytes. A chain (its caches) is
 * used by one thread at a time: the engine reads a program's maps in that program's read
 * callback.
 * bench/decode_cost: 10,000 keys of two decoded labels take 1 to 2.5 ms CPU per read. */
#ifndef EBPF_CORE_LABEL_DECODER_H
#define EBPF_CORE_LABEL_DECODER_H

#include <stdbool.h>
#include <stddef.h>

#define DECODE_BYTES_MAX 256                        /* the largest key part hex and string take */
#define DECODE_TEXT_MAX (4 * DECODE_BYTES_MAX + 1)  /* any decoder's output fits, with its NUL */
#define DECODER_CHAIN_MAX 8

struct label_decoder;

struct decoder_chain {
	char label[64];  /* for messages */
	/* Set while the chain is built from a file whose text must not reach the log
	 * (ExporterConfig: it may be readable by root only): messages say "this label", and its
	 * decoders name an argument by its place ("entry 2"), not its text. */
	bool hidden;
	struct label_decoder *d[DECODER_CHAIN_MAX];
	int n;
};

/* An empty chain for label `label`. */
void decoder_chain_init(struct decoder_chain *c, const char *label);
/* Appends decoder `name` with its arguments (a `Decode "name" "arg"...` line). 0, or -1 with
 * err saying what is wrong and how to fix it; the chain is unchanged then. */
int decoder_chain_add(struct decoder_chain *c, const char *name, const char *const *args, int nargs, char *err,
		      size_t errlen);
/* Whether the chain can read a key part of `size` bytes. 0, or -1 with err. */
int decoder_chain_check(const struct decoder_chain *c, size_t size, char *err, size_t errlen);
/* The label's text for the key part's bytes (size as checked), in out (DECODE_TEXT_MAX
 * bytes is always enough; a smaller out cuts the text). Returns out. The text is not yet
 * safe for a collectd identifier: see label_value_safe(). */
const char *decoder_chain_decode(struct decoder_chain *c, const void *bytes, size_t size, char *out, size_t outlen);
/* The same, and whether the key's label set is kept: false when a decoder of the chain drops
 * it (regexps: no pattern matched; out then holds the text that decoder was given). */
bool decoder_chain_decode_kept(struct decoder_chain *c, const void *bytes, size_t size, char *out, size_t outlen);
/* Whether some key's label set may be dropped (the chain has a regexps decoder). */
bool decoder_chain_may_drop(const struct decoder_chain *c);
void decoder_chain_free(struct decoder_chain *c);
/* A new read: decoders that remember what the system said (majorminor's disk names,
 * ifname's interface names) ask it again. The series reader calls it at every read
 * (series_reader_read), also where its key cache decodes a key once in KEY_CACHE_REFRESH
 * reads: without it a name would stay the one of the decoder's first read. */
void decoder_chain_next_read(struct decoder_chain *c);
/* Decoder i's `Decode` line values, quoted as a collectd configuration writes them:
 * "\"uint\"", "\"static_map\" \"1=stdout\" \"*=unknown:\"". Given to decoder_chain_add()
 * in that order, they make the same decoder. */
const char *decoder_chain_line(const struct decoder_chain *c, int i);

/* The accepted raw sizes of decoder `name` as the messages spell them ("4 or 8 bytes"),
 * or NULL for an unknown name or a decoder that reads text only. */
const char *label_decoder_sizes(const char *name);

#endif
