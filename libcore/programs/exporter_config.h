/* ebpf_exporter's config format (cloudflare/ebpf_exporter v2: `<name>.yaml` beside
 * `<name>.bpf.o`) read into a `<Program>` block's views, so that its configs run unmodified:
 *
 *   <Program "syscalls">
 *     ExporterConfig "/etc/collectd/ebpf.d/syscalls.yaml"   # Object: syscalls.bpf.o beside it
 *   </Program>
 *
 * The YAML is parsed with libyaml. What it maps onto (doc/programs.md, "ebpf_exporter's
 * configs"):
 *   metrics.counters[]    -> a <Counter> of the map named like the metric, Type "derive"
 *   metrics.histograms[]  -> a <Histogram> with Layout "key": the last label is the bucket
 *                            index; bucket_type exp2 / exp2zero / linear; bucket_multiplier
 *                            is Multiplier; buckets outside bucket_min..bucket_max are not
 *                            events, bucket_max + 1 holds the sum
 *   labels[]              -> <Label> Size/Padding with the decoders as a chain, each taking
 *                            the one before's output (`uint` then `syscall`)
 *   kaddrs[]              -> KernelAddress (kernel_addresses.h)
 *   cgroup_id_map         -> CgroupIdMap (cgroup_id_map.h)
 * Every field ebpf_exporter reads that is not honoured here yet, and every field it does not
 * read, is an error naming the field and the line. */
#ifndef EBPF_PROGRAMS_EXPORTER_CONFIG_H
#define EBPF_PROGRAMS_EXPORTER_CONFIG_H

#include <stddef.h>

#include "libcore/programs/program_model.h"

/* The largest config read (ebpf_exporter's largest example is 3 KB), and how deeply its
 * lists and mappings may nest (its configs nest 8), checked before libyaml loads it. */
#define EXPORTER_CONFIG_MAX_BYTES (64u << 10)
#define EXPORTER_CONFIG_MAX_DEPTH 64

/* Adds the views of the YAML file at path to c (after any it has). The file is read as the
 * BPF object is (base/safe_file.h): no symbolic link, a regular file owned by root or the
 * process's user and not writable by group or others, in directories only they can change,
 * at most EXPORTER_CONFIG_MAX_BYTES. 0, or -1 with err naming the file, its line and column
 * and what is expected there; never the file's text (it may be readable by root only). */
int exporter_config_read(const char *path, struct program_config *c, char *err, size_t errlen);

/* The same for YAML text in memory (the fuzzer's and unit tests' entry; the nesting is
 * checked, the size is the reader's); `name` is for messages. */
int exporter_config_parse(const char *name, const unsigned char *text, size_t len, struct program_config *c,
			  char *err, size_t errlen);

/* The object ebpf_exporter loads for config `path`: "x.yaml" -> "x.bpf.o". 0, or -1 when
 * path does not end in ".yaml" or out is too small. */
int exporter_object_path(const char *path, char *out, size_t outlen);

#endif
