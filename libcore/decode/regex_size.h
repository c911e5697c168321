/* A bound on what a POSIX extended regular expression from a config costs to compile.
 * glibc's regcomp copies the tree of a repeated part once per repetition ("x+" is "xx*",
 * "(a{100}){100}" holds 10,000 copies of a), so a short pattern can take gigabytes:
 * "a+++++++++++++++++++++" did in the fuzzer. POSIX leaves adjacent duplication symbols
 * ("a+*", "a{2}{3}") undefined; both are refused here with a message that says so. So are
 * backreferences (\1 in the pattern, a glibc extension to EREs): matching them is
 * exponential, "^(.*)(.*)(.*)(.*)\1\2\3\4c$" took 13 s on 101 characters. */
#ifndef EBPF_CORE_REGEX_SIZE_H
#define EBPF_CORE_REGEX_SIZE_H

#include <stddef.h>

#define REGEX_SIZE_MAX 2000 /* atoms after expanding repetitions */

/* 0 if pattern is within the bound, else -1 with err, which names the pattern as `shown`
 * (decoder_arg_shown()). Syntax errors are left to regcomp. */
int regex_size_check(const char *pattern, const char *shown, char *err, size_t errlen);

#endif
