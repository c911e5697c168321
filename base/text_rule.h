/* The one rule for names and text from outside (a cgroup directory's name, a process's comm,
 * a YAML key, a snapshot file): every writer of this project (collectd's names, the log,
 * notifications, the snapshot, SNMP, the terminal view, the tools) lets text through it.
 *
 * The text is decoded as UTF-8 into units: a whole character, or one byte that does not
 * start a valid one (a stray continuation byte, an overlong form, a surrogate, a code point
 * above U+10FFFF, a truncated sequence). A unit is refused when it is such a byte, or a
 * character that could drive a terminal, start a line or reorder what a reader sees:
 *   - C0 controls (below U+0020) and DEL (U+007F);
 *   - C1 controls (U+0080..U+009F; U+009B is a terminal's CSI);
 *   - bidi controls: U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069;
 *   - the line and paragraph separators U+2028 and U+2029.
 * Every other character is kept as it is ("café", CJK). What a refused unit becomes is the
 * form's, each visible and ASCII:
 *   TEXT_LOG   newline, TAB and CR as \n \t \r, any other refused unit byte by byte as \xHH
 *              (ESC: \x1b; U+009B: \xc2\x9b), and '\' as \\ so that an escape cannot be
 *              forged: the log, events, error messages;
 *   TEXT_SHOW  as TEXT_LOG but '\' kept, for text that was escaped once already (an event's
 *              message, the snapshot's fields) shown again: the subagent, the terminal view;
 *   TEXT_NAME  '_' for each refused unit: collectd's identifiers (base/label_value.h).
 * The output is valid UTF-8 with none of the refused characters, whatever the input. */
#ifndef EBPF_BASE_TEXT_RULE_H
#define EBPF_BASE_TEXT_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum text_form { TEXT_LOG, TEXT_SHOW, TEXT_NAME };

/* The length in bytes (1 to 4) of the unit at s (s[0] != '\0'), and in *keep whether the
 * rule keeps it. */
size_t text_unit(const char *s, bool *keep);

/* Copies in to out (len bytes) under the rule in form: cut at a whole unit or escape,
 * never overrun, always terminated (len > 0). Returns the length the whole text needs (as
 * snprintf): a value >= len means out was cut. */
size_t text_clean(char *out, size_t len, const char *in, enum text_form form);

/* Writes text to f under the rule in form, its newlines kept as newlines: a screen of
 * lines. Returns 0, or EOF on a write error. */
int text_write_lines(FILE *f, const char *text, enum text_form form);

#endif
