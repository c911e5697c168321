#include "instance_index.h"

#include <string.h>

static const char digits[] = "0123456789abcdefghijklmnopqrstuv"; /* base32hex, RFC 4648 */

uint64_t instance_hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

size_t instance_index(const char *instance, char out[INSTANCE_INDEX_MAX + 1])
{
	size_t n = strlen(instance);
	uint64_t h;

	if (n <= INSTANCE_INDEX_MAX) {
		memcpy(out, instance, n + 1);
		return n;
	}
	/* instance[n] is the first byte left out; a continuation byte (10xxxxxx) there means its
	 * character began inside the head: leave that character out whole, so that the index
	 * is text an NMS can show. */
	n = INSTANCE_INDEX_HEAD;
	while (n > 0 && ((unsigned char)instance[n] & 0xc0) == 0x80)
		n--;
	memcpy(out, instance, n);
	out[n++] = '~';
	h = instance_hash(instance);
	/* 13 digits hold 65 bits: the first has the top 4. */
	for (int shift = 5 * (INSTANCE_HASH_DIGITS - 1); shift >= 0; shift -= 5)
		out[n++] = digits[(h >> shift) & 31];
	out[n] = '\0';
	return n;
}
