/* Text helpers of libcore: bounded appends, escaping for the log. */
#include "base/log.h"
#include "base/text_append.h"
#include "tests/support/testing.h"

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

/* Whatever the kernel hands us (a process name is anyone's to choose) stays on one log
 * line and cannot pose as another message. */
static void test_log_escape(void)
{
	char out[64];

	log_escape(out, sizeof(out), "x\nERROR: forged");
	CHECK_STR(out, "x\\nERROR: forged");
	log_escape(out, sizeof(out), "a\tb\rc\033[31md\x7f\\e");
	CHECK_STR(out, "a\\tb\\rc\\x1b[31md\\x7f\\\\e");
	log_escape(out, sizeof(out), "caf\xc3\xa9 ok"); /* UTF-8 passes */
	CHECK_STR(out, "caf\xc3\xa9 ok");
	/* cut rather than overrun, and never in the middle of an escape */
	log_escape(out, 6, "ab\n\n\n");
	CHECK_STR(out, "ab\\n");
}

/* The log itself: a message carrying a newline arrives escaped. */
static char logged[256];
static void capture(enum ebpf_log_level level, const char *msg)
{
	snprintf(logged, sizeof(logged), "%s", msg);
}

static void test_log_is_escaped(void)
{
	ebpf_log_set_handler(capture);
	ebpf_log(EBPF_LOG_WARNING, "process: OOM kill: victim pid %u (%s)", 7u, "x\nERROR: forge");
	CHECK_STR(logged, "process: OOM kill: victim pid 7 (x\\nERROR: forge)");
	ebpf_log_set_handler(NULL);
}

int main(void)
{
	test_append_bounded();
	test_log_escape();
	test_log_is_escaped();
	return testing_done();
}
