/* Text helpers of libcore: bounded appends. */
#include "libcore/text_append.h"
#include "tests/testing.h"

/* Nothing is written past len, the cut text stays terminated, later appends are no-ops. */
static void test_append_bounded(void)
{
	char area[32];
	size_t used = 0;

	memset(area, 'G', sizeof(area));
	area[0] = '\0';
	text_appendf(area, 8, &used, "%s", "abc");
	CHECK_STR(area, "abc");
	CHECK_EQ_U64(used, 3);
	text_appendf(area, 8, &used, ", %s", "defghijk");
	CHECK_STR(area, "abc, de");
	CHECK_EQ_U64(used, 7);
	text_appendf(area, 8, &used, "%s", "more");
	CHECK_STR(area, "abc, de");
	CHECK_EQ_U64(used, 7);
	for (size_t i = 8; i < sizeof(area); i++)
		CHECK(area[i] == 'G');
}

int main(void)
{
	test_append_bounded();
	return testing_done();
}
