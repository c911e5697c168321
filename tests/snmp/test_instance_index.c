/* The index rule of the MIB's instances (snmp/instance_index.h): an instance of at most 48
 * bytes is its own index; a longer one is its first 34 bytes (less a cut UTF-8 character),
 * '~' and 13 base32hex digits of its FNV-1a 64-bit hash. The expected indexes were computed
 * apart from this code (a few lines of Python following the rule as the MIB states it), so
 * a change of head length, separator, hash or alphabet fails here. */
#include "snmp/instance_index.h"
#include "tests/support/testing.h"

/* The FNV-1a 64 test vectors of its authors. */
static void test_hash(void)
{
	CHECK_EQ_U64(instance_hash(""), 0xcbf29ce484222325ull);
	CHECK_EQ_U64(instance_hash("a"), 0xaf63dc4c8601ec8cull);
	CHECK_EQ_U64(instance_hash("foobar"), 0x85944171f73967e8ull);
}

static void check_index(const char *instance, const char *want)
{
	char out[INSTANCE_INDEX_MAX + 1];
	size_t n = instance_index(instance, out);

	CHECK_STR(out, want);
	CHECK_EQ_U64(n, strlen(want));
	CHECK(n <= INSTANCE_INDEX_MAX);
}

static void test_short_unchanged(void)
{
	char at_max[INSTANCE_INDEX_MAX + 1];

	check_index("", "");
	check_index("fsync", "fsync");
	check_index("system.slice_cron.service/fsync", "system.slice_cron.service/fsync");
	memset(at_max, 'c', INSTANCE_INDEX_MAX);
	at_max[INSTANCE_INDEX_MAX] = '\0';
	check_index(at_max, at_max); /* 48 bytes: served as before, same OID */
}

static void test_long(void)
{
	char docker[128], other[128], a49[50];

	/* A container's row: 96 bytes. The head keeps 14 digits of the container id (docker
	 * ps shows 12); rows of one container differ in the hash. */
	snprintf(docker, sizeof(docker), "system.slice_docker-%s%s%s%s.scope/fsync", "0123456789abcdef",
		 "0123456789abcdef", "0123456789abcdef", "0123456789abcdef");
	CHECK_EQ_U64(strlen(docker), 96);
	check_index(docker, "system.slice_docker-0123456789abcd~atmmkn27eg7ds");
	memcpy(other, docker, sizeof(other));
	memcpy(other + strlen(other) - 5, "write", 5);
	check_index(other, "system.slice_docker-0123456789abcd~81hb2bebffddi");

	memset(a49, 'a', 49);
	a49[49] = '\0';
	check_index(a49, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa~avmm8tc03afus"); /* one past the limit */
}

/* The 34-byte cut falls inside a 2-byte character: the character is left out whole, and
 * the index is one byte shorter (47), still valid UTF-8. */
static void test_utf8_cut(void)
{
	char s[64];

	snprintf(s, sizeof(s), "%.33s\xc3\xa9%s", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "tailtailtailtailtail");
	CHECK_EQ_U64(strlen(s), 55);
	check_index(s, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx~agcq97asa5aid");
}

int main(void)
{
	test_hash();
	test_short_unchanged();
	test_long();
	test_utf8_cut();
	return testing_done();
}
