/* key_cache: a key's remembered value comes back, every key is due for a refresh exactly once
 * in KEY_CACHE_REFRESH reads, and the cache stays within its room when keys churn. */
#include "libcore/read/key_cache.h"
#include "tests/support/testing.h"

#include <stdint.h>

struct key {
	uint64_t a;
	uint32_t b;
	uint32_t pad;
};

static struct key key_of(uint32_t i)
{
	return (struct key){ .a = 0x1000u + i * 7919u, .b = i };
}

static void test_remember_and_refresh(void)
{
	enum { KEYS = 200 };
	struct key_cache *c = key_cache_new(sizeof(struct key), KEYS);
	uint32_t misses[KEYS] = { 0 }, wrong = 0;

	CHECK(c != NULL);
	key_cache_next_read(c);
	for (uint32_t i = 0; i < KEYS; i++) {
		struct key k = key_of(i);

		CHECK_EQ_U64(key_cache_get(c, &k), 0); /* never seen */
		key_cache_put(c, i + 1);
	}
	/* Over KEY_CACHE_REFRESH reads each key is due once; otherwise its own value. */
	for (int read = 0; read < KEY_CACHE_REFRESH; read++) {
		key_cache_next_read(c);
		for (uint32_t i = 0; i < KEYS; i++) {
			struct key k = key_of(i);
			uint32_t v = key_cache_get(c, &k);

			if (!v) {
				misses[i]++;
				key_cache_put(c, i + 1);
			} else if (v != i + 1) {
				wrong++;
			}
		}
	}
	CHECK_EQ_U64(wrong, 0);
	for (uint32_t i = 0; i < KEYS; i++)
		CHECK_EQ_U64(misses[i], 1);
	key_cache_free(c);
}

static void test_bounded(void)
{
	struct key_cache *c = key_cache_new(sizeof(struct key), 8); /* room: 16 slots */
	uint32_t remembered = 0;

	key_cache_next_read(c);
	/* 100 new keys in one read: the room fills, nothing loops or overflows. */
	for (uint32_t i = 0; i < 100; i++) {
		struct key k = key_of(i);

		if (!key_cache_get(c, &k))
			key_cache_put(c, i + 1);
	}
	for (uint32_t i = 0; i < 100; i++) {
		struct key k = key_of(i);

		remembered += key_cache_get(c, &k) != 0;
	}
	CHECK(remembered > 0 && remembered < 16);
	/* The next read starts over: nothing is remembered, new keys fit again. */
	key_cache_next_read(c);
	remembered = 0;
	for (uint32_t i = 0; i < 100; i++) {
		struct key k = key_of(i);

		remembered += key_cache_get(c, &k) != 0;
	}
	CHECK_EQ_U64(remembered, 0);
	key_cache_free(c);
}

int main(void)
{
	test_remember_and_refresh();
	test_bounded();
	return testing_done();
}
