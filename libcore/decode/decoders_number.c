/* Decoders of numbers and addresses: uint, hex, syscall, errno, inet_ip; and what every
 * decoder shares (decoder_kind.h: reading a number, an argument as messages show it, the
 * ebpf_exporter flavour), here rather than beside the table in label_decoder.c, which
 * lists the decoders: a decoder never calls back into the table's file. */
#define _GNU_SOURCE /* strerrorname_np */
#include "libcore/decode/decoder_kind.h"
#include "libcore/decode/syscall_names.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t decode_uint(const struct decode_input *in)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64 = 0;

	switch (in->size) {
	case 1: memcpy(&u8, in->bytes, 1); return u8;
	case 2: memcpy(&u16, in->bytes, 2); return u16;
	case 4: memcpy(&u32, in->bytes, 4); return u32;
	case 8: memcpy(&u64, in->bytes, 8); return u64;
	}
	return 0;
}

int64_t decode_int(const struct decode_input *in)
{
	uint64_t u = decode_uint(in);
	unsigned int bits = (unsigned int)in->size * 8;

	if (bits == 0 || bits >= 64)
		return (int64_t)u; /* 8 bytes, or a size decode_uint reads as 0 */
	if (u >> (bits - 1)) /* the sign bit of a narrower number: extend it */
		u |= ~0ull << bits;
	return (int64_t)u;
}

/* decode_number_input() without the copy. */
static int number_input(const struct decode_input *in, int64_t *v)
{
	const char *s = (const char *)in->bytes;
	char *end;

	if (!in->is_text) {
		*v = decode_int(in);
		return 0;
	}
	if (!s[0] || (s[0] != '-' && (s[0] < '0' || s[0] > '9')))
		return -1;
	errno = 0;
	if (s[0] == '-')
		*v = strtoll(s, &end, 10);
	else /* uint's text of a u64 above INT64_MAX: the same bits as the bytes would give */
		*v = (int64_t)strtoull(s, &end, 10);
	return *end || errno ? -1 : 0;
}

int decode_number_input(const struct decode_input *in, int64_t *v, char *out, size_t outlen)
{
	if (!number_input(in, v))
		return 0;
	snprintf(out, outlen, "%s", (const char *)in->bytes);
	return -1;
}

void decode_name_or_number(const struct label_decoder *d, const char *name, const char *unknown, const char *number,
			   char *out, size_t outlen)
{
	if (name)
		snprintf(out, outlen, "%s", name);
	else
		snprintf(out, outlen, "%s%s", d->ebpf_exporter ? unknown : "", number);
}

const char *decoder_arg_shown(const struct label_decoder *d, const char *const *args, int i, char *buf,
			      size_t buflen)
{
	if (d->args_hidden)
		snprintf(buf, buflen, "entry %d", i + 1);
	else
		snprintf(buf, buflen, "\"%.*s\"", (int)(buflen > 3 ? buflen - 3 : 0), args[i]);
	return buf;
}

int decoder_flavour_arg(struct label_decoder *d, const char *const *args, int nargs, char *err, size_t errlen)
{
	if (nargs == 0)
		return 0;
	if (strcmp(args[0], "ebpf_exporter")) {
		snprintf(err, errlen, "unknown argument \"%s\": the only one is \"ebpf_exporter\" (a value without "
				      "a name prints as ebpf_exporter prints it)", args[0]);
		return -1;
	}
	d->ebpf_exporter = true;
	return 0;
}

static int flavour_create(struct label_decoder *d, const char *const *args, int nargs, char *err, size_t errlen)
{
	return decoder_flavour_arg(d, args, nargs, err, errlen);
}

static void uint_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	snprintf(out, outlen, "%" PRIu64, decode_uint(in));
}

const struct decoder_kind decoder_uint = {
	.name = "uint", .sizes = SIZES_UINT, .sizes_text = "1, 2, 4 or 8 bytes", .decode = uint_decode,
};

static void hex_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	static const char digits[] = "0123456789abcdef";
	size_t o = 0;

	for (size_t i = 0; i < in->size && o + 2 < outlen; i++) {
		out[o++] = digits[in->bytes[i] >> 4];
		out[o++] = digits[in->bytes[i] & 15];
	}
	out[o] = '\0';
}

const struct decoder_kind decoder_hex = {
	.name = "hex", .sizes = SIZES_ANY, .sizes_text = "1 to 256 bytes", .decode = hex_decode,
};

static void syscall_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	int64_t nr;
	char buf[32];

	if (decode_number_input(in, &nr, out, outlen))
		return;
	/* Signed: raw_syscalls report -1 for a task that is not in a syscall. */
	if (nr >= 0 && nr < SYSCALL_TABLE_SIZE && (!d->ebpf_exporter || syscall_table[nr]))
		snprintf(out, outlen, "%s", syscall_name((unsigned int)nr, buf, sizeof(buf)));
	else if (d->ebpf_exporter) /* it reads the number as unsigned */
		snprintf(out, outlen, "unknown_syscall:%" PRIu64, (uint64_t)nr);
	else
		snprintf(out, outlen, "sys_%" PRId64, nr);
}

const struct decoder_kind decoder_syscall = {
	.name = "syscall", .sizes = SIZES_UINT, .sizes_text = "1, 2, 4 or 8 bytes", .takes_text = true,
	.max_args = 1, .create = flavour_create, .decode = syscall_decode,
};

/* 2 and -2 both read "ENOENT" (kernel functions return -errno, user space sees errno);
 * 0 and numbers without a name read as themselves. */
static void errno_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	int64_t v;
	uint64_t mag;
	char number[24];

	if (decode_number_input(in, &v, out, outlen))
		return;
	mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
	snprintf(number, sizeof(number), "%" PRId64, v);
	decode_name_or_number(d, mag > 0 && mag <= INT_MAX ? strerrorname_np((int)mag) : NULL, "unknown:", number, out,
			      outlen);
}

const struct decoder_kind decoder_errno = {
	.name = "errno", .sizes = SIZES_UINT, .sizes_text = "1, 2, 4 or 8 bytes", .takes_text = true,
	.max_args = 1, .create = flavour_create, .decode = errno_decode,
};

/* Addresses in network order, as struct in_addr / in6_addr hold them. */
static void inet_ip_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	char text[INET6_ADDRSTRLEN];

	if (!inet_ntop(in->size == 4 ? AF_INET : AF_INET6, in->bytes, text, sizeof(text)))
		text[0] = '\0';
	snprintf(out, outlen, "%s", text);
}

const struct decoder_kind decoder_inet_ip = {
	.name = "inet_ip", .sizes = SIZE_BIT(4) | SIZE_BIT(16), .sizes_text = "4 (IPv4) or 16 (IPv6) bytes", .decode = inet_ip_decode,
};
