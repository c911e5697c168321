/* A program's configuration written back as the `<Program>` block that configures it, for
 * users to read or edit (collectd-ebpf-import prints an ExporterConfig's block with it).
 * program_config_parse() of the text gives the same views: each map block with every setting
 * that differs from a `<Program>` block's default (Type and TypeInstance always), its
 * labels with Field or Size/Padding and their Decode lines (decoder_chain_line()). Written:
 * the name, Object and the map blocks; Param, Probe, Skip and the Allow lines are not (no
 * ExporterConfig sets them). */
#ifndef EBPF_PROGRAMS_PROGRAM_BLOCK_TEXT_H
#define EBPF_PROGRAMS_PROGRAM_BLOCK_TEXT_H

#include <stdio.h>

#include "libcore/programs/program_model.h"

/* Writes c's block to f. 0, or -1 when f fails. */
int program_block_write(FILE *f, const struct program_config *c);

/* The shortest decimal text (no exponent: collectd's configuration parser wants none) that
 * reads back as v, in out; "%.17g" where none of up to 40 decimals does. Returns out. */
const char *program_number_text(double v, char *out, size_t outlen);

#endif
