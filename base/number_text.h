/* Numbers as text for names and messages: the shortest %g form that reads back as the same
 * double. "99" and "99.9" as plain %g writes them, but "99.99991" beside "99.99992" where
 * %g wrote "99.9999" for both: distinct values get distinct collectd names. */
#ifndef EBPF_BASE_NUMBER_TEXT_H
#define EBPF_BASE_NUMBER_TEXT_H

#include <stddef.h>

/* Writes v to buf (32 bytes hold any double) and returns buf. */
const char *number_text(double v, char *buf, size_t len);

/* For a list whose values must increase, where next came after prev but is not above it:
 * collectd's parser reads a number written with two decimal points as two numbers (99.9.9
 * as 99.9 and .9). When prev and next could be such a pair, writes "; collectd reads 99.9.9
 * as the two numbers 99.9 and .9" to buf (NUMBER_SPLIT_HINT_MAX bytes), else "". Returns
 * buf. */
#define NUMBER_SPLIT_HINT_MAX 200
const char *number_split_hint(double prev, double next, char *buf, size_t len);

#endif
