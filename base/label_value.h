/* Label values made safe for a collectd identifier (host/plugin-instance/type-instance),
 * by one rule for every label, whatever decoder made it:
 *   - '/' would split the identifier: a leading '/' is dropped and the others become '_',
 *     and "/" alone becomes "root", as collectd's own escape_slashes() does for mount
 *     points and cgroups ("/system.slice/ssh.service" -> "system.slice_ssh.service");
 *   - what base/text_rule.h's rule refuses (bytes that are not UTF-8, C0 and C1 controls,
 *     DEL, bidi controls, U+2028/U+2029) becomes '_', one per unit (TEXT_NAME); valid UTF-8
 *     is kept, so a name is always valid UTF-8 (Prometheus refuses a whole scrape that is
 *     not);
 *   - an empty value becomes "empty";
 *   - a value longer than LABEL_VALUE_MAX - 1 (127: DATA_MAX_NAME_LEN 128 with its NUL) is
 *     cut to at most 118 bytes, at the end of a whole character, followed by '~' and 8 hex
 *     digits of a hash (FNV-1a, 32 bits) of the whole value, so long values that share a
 *     beginning stay apart.
 * The same function serves a whole type instance built from several labels. */
#ifndef EBPF_BASE_LABEL_VALUE_H
#define EBPF_BASE_LABEL_VALUE_H

#include <stddef.h>

#define LABEL_VALUE_MAX 128 /* collectd's DATA_MAX_NAME_LEN */

/* Writes the safe form of in to out (LABEL_VALUE_MAX bytes). Returns out. */
char *label_value_safe(const char *in, char out[LABEL_VALUE_MAX]);
/* The safe form of a name that any process may choose and that is one word of a collectd
 * name (a command, `By "command"`): as label_value_safe, and a space, ':' and '#' '_' too,
 * so that it needs no quoting in unixsock's and exec's PUTVAL identifiers, in an rrdtool
 * graph DEF (':' separates its fields) or a shell, and cuts no Graphite path. */
char *label_value_word(const char *in, char out[LABEL_VALUE_MAX]);

#endif
