/* Decoders that ask the running system: majorminor (disk names), ksym and kstack (kernel
 * symbols), cgroup (cgroup paths). Their caches are bounded (label_decoder.h). */
#include "libcore/decode/cgroup_paths.h"
#include "libcore/decode/decoder_kind.h"
#include "libcore/decode/disk_names.h"
#include "libcore/decode/ksym_table.h"
#include "base/text_append.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

/* ---- majorminor: a dev_t -> the disk's name as in /proc/diskstats ---- */

struct majorminor {
	int stat_encoding; /* 0: the kernel's MKDEV; 1: stat's new_encode_dev/huge_encode_dev */
	struct disk_names names;
};

static int majorminor_create(struct label_decoder *d, const char *const *args, int nargs, char *err, size_t errlen)
{
	struct majorminor *m;
	int stat_encoding = 0;

	if (nargs == 1 && !strcmp(args[0], "stat"))
		stat_encoding = 1;
	else if (nargs == 1 && !strcmp(args[0], "ebpf_exporter"))
		/* ebpf_exporter's programs write new_encode_dev (their MKDEV is user space's),
		 * and it reads the first 4 bytes only */
		stat_encoding = 1, d->ebpf_exporter = true;
	else if (nargs == 1 && strcmp(args[0], "kernel")) {
		snprintf(err, errlen,
			 "unknown dev_t encoding \"%s\": \"kernel\" (major << 20 | minor, as block tracepoints and "
			 "s_dev hold it; the default), \"stat\" (as stat()'s st_dev) or \"ebpf_exporter\" (stat's in "
			 "the first 4 bytes, an unknown disk as \"unknown:MAJOR:MINOR\")",
			 args[0]);
		return -1;
	}
	if (!(m = calloc(1, sizeof(*m)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	m->stat_encoding = stat_encoding;
	d->state = m;
	return 0;
}

static void majorminor_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	struct majorminor *m = d->state;
	uint64_t v = decode_uint(in);
	uint64_t major, minor;

	if (d->ebpf_exporter) {
		uint32_t v32;
		const char *name;

		memcpy(&v32, in->bytes, 4);
		major = gnu_dev_major(v32);
		minor = gnu_dev_minor(v32);
		name = disk_name(&m->names, (uint32_t)(major << 20 | minor));
		if (name == m->names.unresolved) /* no disk of that number: as ebpf_exporter prints it */
			snprintf(out, outlen, "unknown:%" PRIu64 ":%" PRIu64, major, minor);
		else
			snprintf(out, outlen, "%s", name);
		return;
	}

	if (m->stat_encoding) {
		/* glibc's major()/minor() read both new_encode_dev (32 bits) and huge_encode_dev. */
		major = gnu_dev_major(v);
		minor = gnu_dev_minor(v);
	} else {
		major = (v >> 20) & 0xfff;
		minor = v & 0xfffff;
		if (v >> 32)
			major = 1u << 12; /* no kernel dev_t: named by its number below */
	}
	if (major < (1u << 12) && minor < (1u << 20))
		snprintf(out, outlen, "%s", disk_name(&m->names, (uint32_t)(major << 20 | minor)));
	else
		snprintf(out, outlen, "0x%" PRIx64, v);
}

static void majorminor_destroy(struct label_decoder *d)
{
	struct majorminor *m = d->state;

	if (m)
		disk_names_free(&m->names);
	free(m);
	d->state = NULL;
}

/* A hot-replugged disk can get a freed dev_t under another name (disk_names.h). */
static void majorminor_next_read(struct label_decoder *d)
{
	struct majorminor *m = d->state;

	disk_names_expire(&m->names);
}

const struct decoder_kind decoder_majorminor = {
	.name = "majorminor", .sizes = SIZE_BIT(4) | SIZE_BIT(8), .sizes_text = "4 or 8 bytes", .max_args = 1,
	.create = majorminor_create, .decode = majorminor_decode, .destroy = majorminor_destroy,
	.next_read = majorminor_next_read,
};

/* ---- ksym: a kernel address -> the symbol that holds it ---- */

static int ksym_create(struct label_decoder *d, const char *const *args, int nargs, char *err, size_t errlen)
{
	if (decoder_flavour_arg(d, args, nargs, err, errlen))
		return -1;
	/* Loaded now, at config time: the first read stays cheap and a kallsyms without
	 * addresses is a config error, not a column of 0x... labels. */
	d->state = (void *)ksym_table_kernel(err, errlen);
	return d->state ? 0 : -1;
}

static void ksym_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	uint64_t addr = decode_uint(in);
	const char *name = d->ebpf_exporter ? ksym_table_exact(d->state, addr) : ksym_table_find(d->state, addr);

	if (name && d->ebpf_exporter) /* a module's symbol with its "\t[module]", as kallsyms lists it */
		snprintf(out, outlen, "%s%s", name, ksym_name_module(name));
	else if (name)
		snprintf(out, outlen, "%s", name);
	else if (d->ebpf_exporter) /* it names a symbol's own address only */
		snprintf(out, outlen, "unknown_addr:0x%" PRIx64, addr);
	else
		snprintf(out, outlen, "0x%" PRIx64, addr);
}

const struct decoder_kind decoder_ksym = {
	.name = "ksym", .sizes = SIZE_BIT(8), .sizes_text = "8 bytes", .max_args = 1, .create = ksym_create,
	.decode = ksym_decode,
};

/* ---- kstack: a kernel stack -> the names of its frames' functions ---- */

/* The key part holds the u64 addresses bpf_get_stack writes, innermost frame first; the
 * stack ends at its first 0 address (bpf_get_stack leaves the rest of a short stack zeroed)
 * or at the key part's end. Each frame is named by the nearest symbol at or below its
 * address, from ksym's table (created by ksym_create: no cache grows with the stacks seen).
 *   own text:         frames joined by ';' (one character, readable in a collectd type
 *                     instance, which turns a newline into '_' like the '_' in names); a
 *                     frame outside the kernel's symbols as "0x..." (ksym's rule).
 *   "ebpf_exporter":  frames joined by a newline, a module's symbol with its "\t[module]",
 *                     a frame below the first symbol as "??", one past the last symbol
 *                     named by the last (ebpf_exporter's kstack).
 * Innermost first in both: the text collectd cuts to 127 characters keeps the frames that
 * tell stacks apart soonest. An empty stack is the empty text. */
#define KSTACK_FRAME_SIZE 8

static void kstack_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	const struct ksym_table *t = d->state;
	const char *sep = d->ebpf_exporter ? "\n" : ";";
	size_t used = 0;

	out[0] = '\0';
	for (size_t off = 0; off + KSTACK_FRAME_SIZE <= in->size; off += KSTACK_FRAME_SIZE) {
		uint64_t addr;
		const char *name;

		memcpy(&addr, in->bytes + off, sizeof(addr));
		if (addr == 0)
			break;
		name = d->ebpf_exporter ? ksym_table_at_or_below(t, addr) : ksym_table_find(t, addr);
		if (name)
			text_appendf(out, outlen, &used, "%s%s%s", off ? sep : "", name,
				     d->ebpf_exporter ? ksym_name_module(name) : "");
		else if (d->ebpf_exporter)
			text_appendf(out, outlen, &used, "%s??", off ? sep : "");
		else
			text_appendf(out, outlen, &used, "%s0x%" PRIx64, off ? sep : "", addr);
	}
}

const struct decoder_kind decoder_kstack = {
	.name = "kstack", .sizes = SIZES_ANY, .size_step = KSTACK_FRAME_SIZE,
	.sizes_text = "a multiple of 8 bytes (one u64 address a frame), at most 256 (32 frames)", .max_args = 1,
	.create = ksym_create, .decode = kstack_decode,
};

/* ---- cgroup: a cgroup id -> its path under the cgroup2 mount ---- */

static int cgroup_create(struct label_decoder *d, const char *const *args, int nargs, char *err, size_t errlen)
{
	struct cgroup_paths *c;

	if (decoder_flavour_arg(d, args, nargs, err, errlen))
		return -1;
	c = malloc(sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (cgroup_paths_init(c, NULL, err, errlen)) {
		free(c);
		return -1;
	}
	d->state = c;
	return 0;
}

static void cgroup_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	int64_t v;
	char number[24];

	if (decode_number_input(in, &v, out, outlen))
		return;
	snprintf(number, sizeof(number), "%" PRIu64, (uint64_t)v);
	decode_name_or_number(d, cgroup_path(d->state, (uint64_t)v), "unknown_cgroup_id:", number, out, outlen);
}

static void cgroup_destroy(struct label_decoder *d)
{
	if (d->state)
		cgroup_paths_free(d->state);
	free(d->state);
	d->state = NULL;
}

/* 8 bytes raw; after `uint`, its number (ebpf_exporter's cfs-throttling keys a 4-byte id). */
const struct decoder_kind decoder_cgroup = {
	.name = "cgroup", .sizes = SIZE_BIT(8), .sizes_text = "8 bytes", .takes_text = true, .max_args = 1,
	.create = cgroup_create, .decode = cgroup_decode, .destroy = cgroup_destroy,
};
