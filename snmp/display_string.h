/* DisplayString (RFC 2579) holds at most 255 octets; module errors and the snapshot error
 * run to 1023. A longer string is cut to fit, on a UTF-8 character boundary (a process or
 * path name inside an error may be UTF-8), and ends in "..." so that nobody takes the cut
 * text for the whole message. What base/text_rule.h's rule refuses (a control, a bidi
 * control, a byte that is not UTF-8) is shown as \xHH (TEXT_SHOW): a string the MIB serves is
 * valid UTF-8 that drives no terminal. */
#ifndef EBPF_SNMP_DISPLAY_STRING_H
#define EBPF_SNMP_DISPLAY_STRING_H

#include <stddef.h>

#define DISPLAY_STRING_MAX 255

/* Copies src to dst (DISPLAY_STRING_MAX + 1 bytes), cut as above when it is longer. */
void display_string(char dst[DISPLAY_STRING_MAX + 1], const char *src);

#endif
