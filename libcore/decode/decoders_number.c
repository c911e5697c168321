/* Decoders of numbers and addresses: uint, hex, syscall, errno, inet_ip. */
#define _GNU_SOURCE /* strerrorname_np */
#include "libcore/decode/decoder_kind.h"
#include "libcore/decode/syscall_names.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
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
	int8_t s8;
	int16_t s16;
	int32_t s32;
	int64_t s64 = 0;

	switch (in->size) {
	case 1: memcpy(&s8, in->bytes, 1); return s8;
	case 2: memcpy(&s16, in->bytes, 2); return s16;
	case 4: memcpy(&s32, in->bytes, 4); return s32;
	case 8: memcpy(&s64, in->bytes, 8); return s64;
	}
	return 0;
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
	int64_t nr = decode_int(in);
	char buf[32];

	/* Signed: raw_syscalls report -1 for a task that is not in a syscall. */
	if (nr >= 0 && nr < SYSCALL_TABLE_SIZE)
		snprintf(out, outlen, "%s", syscall_name((unsigned int)nr, buf, sizeof(buf)));
	else
		snprintf(out, outlen, "sys_%" PRId64, nr);
}

const struct decoder_kind decoder_syscall = {
	.name = "syscall", .sizes = SIZES_UINT, .sizes_text = "1, 2, 4 or 8 bytes", .decode = syscall_decode,
};

/* 2 and -2 both read "ENOENT" (kernel functions return -errno, user space sees errno);
 * 0 and numbers without a name read as themselves. */
static void errno_decode(struct label_decoder *d, const struct decode_input *in, char *out, size_t outlen)
{
	int64_t v = decode_int(in);
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
	const char *name = mag > 0 && mag <= INT_MAX ? strerrorname_np((int)mag) : NULL;

	if (name)
		snprintf(out, outlen, "%s", name);
	else
		snprintf(out, outlen, "%" PRId64, v);
}

const struct decoder_kind decoder_errno = {
	.name = "errno", .sizes = SIZES_UINT, .sizes_text = "1, 2, 4 or 8 bytes", .decode = errno_decode,
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
