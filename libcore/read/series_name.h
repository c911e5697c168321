/* The name of a key's series (series_view.h): TypeInstance with %{label} replaced, or the
 * labels joined by "-" (and "cpu<N>" last with a CPU label). Each label's value is made safe
 * for collectd on its own (label_value.h: the cgroup "/" is "root" wherever the label
 * stands, a leading '/' is dropped from each label, not only from the name's start); the
 * whole name then only keeps to collectd's length and to what the TypeInstance text itself
 * holds. A view without labels names its one series lone_name. */
#ifndef EBPF_READ_SERIES_NAME_H
#define EBPF_READ_SERIES_NAME_H

#include <stdbool.h>
#include <stdint.h>

#include "base/label_value.h"
#include "libcore/decode/label_decoder.h"
#include "libcore/read/series_view.h"

/* The name of key's series into out (cpu >= 0: the series of that CPU's copy); `decoded`,
 * when not NULL, gets each label's text as its chain made it (what an entry hook sees);
 * `ends` (SERIES_LABEL_SPANS of them), when not NULL, where each label's text ends in out
 * and, from ends[SERIES_MAX_LABELS] on, where each starts (labels joined by "-", or where a
 * TypeInstance template puts them), so that the labels travel apart too (metric_labels,
 * module.h); ends[0] SERIES_ENDS_UNKNOWN when they cannot be told apart (a template that
 * names a label twice or not at all, a name cut to fit or made safe).
 * False: a decoder dropped the key's label set (regexps). */
bool series_name(const struct series_view *v, const uint8_t *key, int cpu, char out[LABEL_VALUE_MAX],
		 char (*decoded)[DECODE_TEXT_MAX], uint8_t *ends);

/* The longest group in a series name: a longer one is cut to SERIES_GROUP_MAX characters
 * ('~' and a hash of it at the end, as label_value.h cuts), whatever the name after it, so
 * that a group is one text in all its series (one collectd plugin_instance per cgroup)
 * and leaves the name at least 63 characters. */
#define SERIES_GROUP_MAX 63

/* "<group>/<name>" into out: the group cut to SERIES_GROUP_MAX, then the name cut as
 * label_value.h cuts to what is left of collectd's 127 characters, so that the snapshot
 * (SNMP, the terminal view) keeps the whole too; the '/' is collectd's plugin_instance cut
 * (the front-end's), which no label can hold. */
void series_name_in_group(const char *group, const char *name, char out[LABEL_VALUE_MAX]);

#endif
