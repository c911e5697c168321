/* Text helpers of libcore: bounded appends, the one rule for names and text
 * (base/text_rule.h), escaping for the log. */
#include "base/label_value.h"
#include "base/log.h"
#include "base/text_append.h"
#include "base/text_rule.h"
#include "libcore/read/series_name.h"
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
	log_escape(out, sizeof(out), "caf\xc3\xa9 ok"); /* valid UTF-8 passes */
	CHECK_STR(out, "caf\xc3\xa9 ok");
	/* cut rather than overrun, and never in the middle of an escape */
	log_escape(out, 6, "ab\n\n\n");
	CHECK_STR(out, "ab\\n");
}

/* The rule, byte by byte: each input as the log (TEXT_LOG), a second showing (TEXT_SHOW) and
 * collectd's names (label_value_safe(), TEXT_NAME) write it. */
static const struct {
	const char *in, *log, *show, *name;
} rule_table[] = {
	/* valid UTF-8 kept: Latin, CJK, a 4-byte character, U+FFFD itself */
	{ "caf\xc3\xa9", "caf\xc3\xa9", "caf\xc3\xa9", "caf\xc3\xa9" },
	{ "\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac" },
	{ "\xf0\x9f\x90\xa7!", "\xf0\x9f\x90\xa7!", "\xf0\x9f\x90\xa7!", "\xf0\x9f\x90\xa7!" },
	{ "\xef\xbf\xbd", "\xef\xbf\xbd", "\xef\xbf\xbd", "\xef\xbf\xbd" },
	/* C0, DEL and backslash: the escapes the log always had */
	{ "a\nb\tc\rd\x1b[31m\x07\x7f", "a\\nb\\tc\\rd\\x1b[31m\\x07\\x7f", "a\\nb\\tc\\rd\\x1b[31m\\x07\\x7f", "a_b_c_d_[31m__" },
	{ "a\\x1b", "a\\\\x1b", "a\\x1b", "a\\x1b" },
	/* bytes that are not UTF-8: lone bytes, a stray continuation, overlong forms, a
	 * surrogate, above U+10FFFF, truncated sequences */
	{ "\xff\xfe", "\\xff\\xfe", "\\xff\\xfe", "__" },
	{ "a\x80" "b", "a\\x80b", "a\\x80b", "a_b" },
	{ "\xc0\xaf", "\\xc0\\xaf", "\\xc0\\xaf", "__" },
	{ "\xe0\x80\xaf", "\\xe0\\x80\\xaf", "\\xe0\\x80\\xaf", "___" },
	{ "\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf", "\\xf0\\x80\\x80\\xaf", "____" },
	{ "\xed\xa0\x80", "\\xed\\xa0\\x80", "\\xed\\xa0\\x80", "___" },
	{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", "\\xf4\\x90\\x80\\x80", "____" },
	{ "x\xe2\x80", "x\\xe2\\x80", "x\\xe2\\x80", "x__" },
	{ "\xe2\x80y", "\\xe2\\x80y", "\\xe2\\x80y", "__y" },
	/* C1 controls as UTF-8: U+0080, U+009B (CSI), U+009F; U+00A0 is kept */
	{ "\xc2\x80\xc2\x9b""31m\xc2\x9f\xc2\xa0", "\\xc2\\x80\\xc2\\x9b""31m\\xc2\\x9f\xc2\xa0",
	  "\\xc2\\x80\\xc2\\x9b""31m\\xc2\\x9f\xc2\xa0", "__31m_\xc2\xa0" },
	/* bidi controls: U+202E RLO, U+202A, U+2066, U+2069, U+200E, U+200F, U+061C */
	{ "ab\xe2\x80\xaetxt.exe", "ab\\xe2\\x80\\xaetxt.exe", "ab\\xe2\\x80\\xaetxt.exe", "ab_txt.exe" },
	{ "\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c",
	  "\\xe2\\x80\\xaa\\xe2\\x81\\xa6\\xe2\\x81\\xa9\\xe2\\x80\\x8e\\xe2\\x80\\x8f\\xd8\\x9c",
	  "\\xe2\\x80\\xaa\\xe2\\x81\\xa6\\xe2\\x81\\xa9\\xe2\\x80\\x8e\\xe2\\x80\\x8f\\xd8\\x9c", "______" },
	/* the line and paragraph separators; their neighbours U+2027, U+202F are kept */
	{ "a\xe2\x80\xa8""b\xe2\x80\xa9""c\xe2\x80\xa7\xe2\x80\xaf", "a\\xe2\\x80\\xa8""b\\xe2\\x80\\xa9""c\xe2\x80\xa7\xe2\x80\xaf",
	  "a\\xe2\\x80\\xa8""b\\xe2\\x80\\xa9""c\xe2\x80\xa7\xe2\x80\xaf", "a_b_c\xe2\x80\xa7\xe2\x80\xaf" },
};

static void test_text_rule(void)
{
	char out[256], name[LABEL_VALUE_MAX];

	for (size_t i = 0; i < sizeof(rule_table) / sizeof(rule_table[0]); i++) {
		CHECK_EQ_U64(text_clean(out, sizeof(out), rule_table[i].in, TEXT_LOG), strlen(rule_table[i].log));
		CHECK_STR(out, rule_table[i].log);
		log_escape(out, sizeof(out), rule_table[i].in);
		CHECK_STR(out, rule_table[i].log);
		text_clean(out, sizeof(out), rule_table[i].in, TEXT_SHOW);
		CHECK_STR(out, rule_table[i].show);
		CHECK_STR(label_value_safe(rule_table[i].in, name), rule_table[i].name);
	}
	/* cut at a whole unit: never half a character, never half an escape */
	CHECK_EQ_U64(text_clean(out, 6, "ab\xc3\xa9\xc3\xa9", TEXT_LOG), 6);
	CHECK_STR(out, "ab\xc3\xa9");
	text_clean(out, 8, "ab\xff\xfe", TEXT_LOG);
	CHECK_STR(out, "ab\\xff");
}

/* A command's name (By "command"): the rule, and a space, ':' and '#' as '_' (a comm may hold
 * any byte but NUL); a cut UTF-8 character at the kernel's 15 bytes is '_' as any stray byte. */
static void test_command_word(void)
{
	char name[LABEL_VALUE_MAX];

	CHECK_STR(label_value_word("io b", name), "io_b");
	CHECK_STR(label_value_word("io:c#", name), "io_c_");
	CHECK_STR(label_value_word("reader#0", name), "reader_0");
	CHECK_STR(label_value_word("kworker/u4:2", name), "kworker_u4_2");
	CHECK_STR(label_value_word("caf\xc3\xa9 \x1b[2J", name), "caf\xc3\xa9__[2J");
	CHECK_STR(label_value_word("abcdefghijklm\xc3", name), "abcdefghijklm_");
	CHECK_STR(label_value_word("", name), "empty");
}

/* A long name is cut at a whole character before its hash: a name stays valid UTF-8. */
static void test_long_name_utf8(void)
{
	char in[200] = "", name[LABEL_VALUE_MAX];
	bool keep;

	for (int i = 0; i < 60; i++)
		strcat(in, "\xc3\xa9"); /* 120 bytes of 2-byte characters */
	strcat(in, "\xe6\x97\xa5xxxxxxxx"); /* 131 bytes */
	label_value_safe(in, name);
	CHECK(strlen(name) <= LABEL_VALUE_MAX - 1);
	CHECK(strchr(name, '~') != NULL);
	for (const char *p = name; *p;) {
		p += text_unit(p, &keep);
		CHECK(keep);
	}
	CHECK(!strncmp(name, in, strchr(name, '~') - name));
}

/* A long cgroup and a long row name in a series name are cut at a whole character too. */
static void test_group_name_utf8(void)
{
	char group[200] = "a", name[200] = "b", out[LABEL_VALUE_MAX];
	bool keep;

	for (int i = 0; i < 60; i++) { /* 2-byte characters at odd offsets: a cut at 54 splits one */
		strcat(group, "\xc3\xa9");
		strcat(name, "\xc3\xa9");
	}
	series_name_in_group(group, name, out);
	CHECK(strchr(out, '~') != NULL && strchr(out, '/') != NULL);
	for (const char *p = out; *p;) {
		p += text_unit(p, &keep);
		CHECK(keep);
	}
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
	test_text_rule();
	test_command_word();
	test_long_name_utf8();
	test_group_name_utf8();
	test_log_is_escaped();
	return testing_done();
}
