/* A user's `<Program>` block as data: what the configuration says, before any BPF object is
 * opened. program_config_parse() checks everything the block's text alone can tell (keys,
 * value types, names, decoder arguments, ranges) and fills the model (program_model.h); it
 * only notes ExporterConfig's path: program_module_config() reads that YAML into the same
 * model (exporter_config.h) and checks the whole; program_resolve.h then checks it against
 * the object's BTF.
 *
 *   <Program "sync_latency">
 *     Object "/etc/collectd/ebpf.d/sync_latency.bpf.o"
 *     ExporterConfig "/etc/collectd/ebpf.d/biolatency.yaml"   (its views; Object defaults to
 *                       the .bpf.o beside it, exporter_config.h)
 *     Param "min_us" 10
 *     KernelAddress "bpf_jit_current"   (its address into the global kaddr_bpf_jit_current,
 *                       kernel_addresses.h; ebpf_exporter's kaddrs)
 *     CgroupIdMap "map" "hash"|"cgrp_storage" "pattern"...   (cgroup_id_map.h)
 *     <Probe "sync"> Program "sync_fentry" "sync_kprobe" "sync_tp" </Probe>
 *     <PerfEvent "on_sample"> Type "software" Config "cpu-clock" SampleFrequency 99 </PerfEvent>
 *                       (what runs a SEC("perf_event") program: perf_event_config.h)
 *     Skip "debug_prog"
 *     AllowProgramType "xdp"            AllowHelper "bpf_send_signal"
 *     <Histogram "map"> Layout "value"|"key"  SlotsField  SumField  Buckets  Multiplier
 *                       Type  Precision  <Label>...  PerCPU  MaxSeries  TypeInstance
 *                       </Histogram>
 *     (the collectd plugin also takes Percentile, Bucket, BucketType in <Histogram>: it takes
 *     them out before the block gets here, plugin/presentation.h)
 *     <Counter "map"> / <Gauge "map">   Type  ValueField  <Label "name"> Field | Size [Padding]
 *                       Decode... </Label>  TypeInstance "%{label}"  MaxSeries  PerCPU
 *   </Program>
 */
#ifndef EBPF_PROGRAMS_PROGRAM_CONFIG_H
#define EBPF_PROGRAMS_PROGRAM_CONFIG_H

#include "libcore/programs/program_model.h"

/* Parses a `<Program "name">` block (its node: key "Program", the name as its value) into c:
 * the block only, neither its ExporterConfig's YAML nor the checks of the whole
 * (program_model_check()). 0, or -1 with err naming the block, the line and the fix. The
 * config is zeroed first; free it with program_config_free() either way. */
int program_config_parse(const struct conf_node *block, struct program_config *c, char *err, size_t errlen);

#endif
