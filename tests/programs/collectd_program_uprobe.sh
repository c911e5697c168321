#!/bin/sh
# doc/programs.md's uprobe example, contrib/programs/gai_latency.bpf.c (SEC("uprobe/libc.so.6:
# getaddrinfo") and its uretprobe, written with BPF_UPROBE and BPF_URETPROBE), built with
# collectd-ebpf-cc as users build it (on Debian 12's libbpf 1.1, which lacks those macros, the
# tool supplies them) and run from its shipped .conf in the real collectd: a workload's 137
# getaddrinfo() calls are exactly 137 latency samples, both probes attached as uprobes.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

N=137
OBJ="$WORK/objects"
install_objects "$OBJ" contrib/programs/gai_latency.bpf.o
start_waiting_workload gai_n $N
# The shipped block, the object where the test put it, counting the workload's process only.
shipped_program_config gai_latency filter_tgid "$WORKLOAD"
start_collectd "$WORK/collectd.conf"
for p in gai_enter:uprobe gai_exit:uretprobe; do
	wait_for_log "gai_latency: ${p%:*} attached via kprobe+${p#*:}\$" 10 || fail "${p%:*} did not attach as a ${p#*:}"
done
pass "gai_enter and gai_exit attached as uprobe and uretprobe (SEC(\"uprobe/libc.so.6:getaddrinfo\"), BPF_UPROBE/BPF_URETPROBE)"
wait_for_csv gai_latency percent-map_fill-start_at 10 || fail "no first read of gai_latency"
waiting_workload_go
wait_until 15 csv_is gai_latency derive-getaddrinfo-count $N ||
	fail "derive-getaddrinfo-count is '$(csv_last gai_latency derive-getaddrinfo-count)', not the workload's $N calls; series: $(ls "$WORK/csv/itest/ebpf-gai_latency/" | tr '\n' ' ')"
pass "gai_latency counted exactly the workload's $N getaddrinfo() calls"
for s in latency-getaddrinfo-50 latency-getaddrinfo-99 latency-getaddrinfo-average; do
	wait_for_csv gai_latency "$s" 5 || fail "no $s"
	v=$(csv_last gai_latency "$s")
	awk -v v="$v" 'BEGIN { exit !(v > 0 && v < 1) }' || fail "$s is '$v', not a plausible getaddrinfo time in seconds"
done
pass "getaddrinfo latency p50 $(csv_last gai_latency latency-getaddrinfo-50) s, p99 $(csv_last gai_latency latency-getaddrinfo-99) s, mean $(csv_last gai_latency latency-getaddrinfo-average) s"
stop_collectd
