/* The set of counter series a module has sent (plugin/series_seen.h): each name is new once,
 * however many there are (the set grows), and names that join to the same text differently
 * are different series. */
#include "plugin/series_seen.h"
#include "tests/support/testing.h"

#include <stdio.h>

#define MANY 20000

int main(void)
{
	struct series_seen s = { 0 };
	char inst[32];
	int fresh = 0, again = 0;

	for (int i = 0; i < MANY; i++) {
		snprintf(inst, sizeof(inst), "loop%d-write", i);
		fresh += series_seen_add(&s, "operations", inst);
	}
	CHECK_EQ_U64(fresh, MANY);
	for (int i = 0; i < MANY; i++) {
		snprintf(inst, sizeof(inst), "loop%d-write", i);
		again += series_seen_add(&s, "operations", inst);
	}
	CHECK_EQ_U64(again, 0);
	CHECK(series_seen_add(&s, "total_bytes", "loop0-write")); /* another type, the same instance */
	CHECK(series_seen_add(&s, "ab", "c"));
	CHECK(series_seen_add(&s, "a", "bc"));
	CHECK(!series_seen_add(&s, "a", "bc"));
	CHECK(series_seen_add(&s, "derive", ""));
	CHECK(!series_seen_add(&s, "derive", ""));
	series_seen_free(&s);
	CHECK(series_seen_add(&s, "operations", "loop0-write")); /* a freed set starts empty */
	series_seen_free(&s);
	return testing_done();
}
