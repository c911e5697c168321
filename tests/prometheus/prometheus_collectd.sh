#!/bin/sh
# collectd-ebpf-prometheus between the real collectd and Debian's real Prometheus server:
# - the syscalls module By "cgroup": two cgroups with 300 and 120 fsync calls; Prometheus has
#   exactly 300 and 120 as the per-cgroup fsync histogram's _count, as the calls counter, and
#   as sum by (cgroup) (...) of them, labels cgroup and syscall apart;
# - 100 legacy nanosleep calls of 2 ms (sleep_n) in a cgroup of their own (host-wide, Go
#   programs such as Prometheus itself call nanosleep too), all in one read of the plugin:
#   histogram_quantile(0.99, ...) over its _bucket series (--buckets=all: every slot) within
#   5% of the plugin's own p99 of that read, the same events;
# - the block module on a loop device of the test: a latency histogram per disk and op, its
#   write _count exactly the O_DIRECT writes;
# - a scrape in text format passes promtool check metrics; the OpenMetrics one ends in # EOF
#   (the server itself scrapes OpenMetrics: up 1).
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"
. "$top_srcdir/tests/prometheus/endpoint_lib.sh"

need_endpoint

NW=64 # O_DIRECT writes of 4 KiB on the loop device
attach_loop 16
test_cgroups ebpf-it-prom a b s1 s2 s3
stop_all() {
	stop_endpoint
	stop_prometheus
	detach_loop
}
CG_BEFORE_REMOVAL=stop_all
FSYNC_N="$top_builddir/tests/support/fsync_n"
SLEEP_N="$top_builddir/tests/support/sleep_n"

mkdir -m 0755 "$WORK/snap"
INTERVAL=0.5 write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$WORK/snap/snapshot"
  <Module "syscalls">
    Latency "fsync" "nanosleep"
    Percentile 99
    By "cgroup"
    CgroupDepth 2
    Cgroup "/$PARENT/*"
    CgroupPrecision 5
  </Module>
  <Module "block">
    Disk "$DISK"
  </Module>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"
start_endpoint "$WORK/snap/snapshot" --buckets=all
start_prometheus

# run CGROUP COUNT: fsync_n COUNT times from inside the cgroup.
run() { sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3"' sh "$CG_ROOT/$PARENT/$1" "$FSYNC_N" "$2" || fail "the workload in $1 failed"; }
run a 300
run b 120
dd if=/dev/zero of="$LOOP" bs=4096 count=$NW oflag=direct status=none || fail "dd on $LOOP failed"

A="${PARENT}_a" B="${PARENT}_b"
COUNT_A="collectd_ebpf_syscalls_latency_seconds_count{cgroup=\"$A\",syscall=\"fsync\"}"
COUNT_B="collectd_ebpf_syscalls_latency_seconds_count{cgroup=\"$B\",syscall=\"fsync\"}"
wait_until 20 prom_is "$COUNT_A" 300 || pfail "Prometheus has '$(prom_value "$COUNT_A")' for $COUNT_A, not 300"
wait_until 10 prom_is "$COUNT_B" 120 || pfail "Prometheus has '$(prom_value "$COUNT_B")' for $COUNT_B, not 120"
prom_is "collectd_ebpf_syscalls_calls_total{cgroup=\"$A\",syscall=\"fsync\"}" 300 ||
	pfail "calls_total of $A fsync is '$(prom_value "collectd_ebpf_syscalls_calls_total{cgroup=\"$A\",syscall=\"fsync\"}")', not 300"
sums=$(prom_query "sum by (cgroup) (collectd_ebpf_syscalls_latency_seconds_count{cgroup=~\"${PARENT}_.*\",syscall=\"fsync\"})" | sort | tr '\n' ' ')
[ "$sums" = "{cgroup=\"$A\"} 300 {cgroup=\"$B\"} 120 " ] || pfail "sum by (cgroup) of the fsync _count: $sums"
pass "per cgroup in Prometheus: fsync _count and calls_total 300 and 120; sum by (cgroup): $sums"

# The block histogram per disk and op: the test's writes, each one request (4 KiB, O_DIRECT).
W="collectd_ebpf_block_latency_seconds_count{disk=\"$DISK\",op=\"write\"}"
wait_until 10 prom_is "$W" $NW || pfail "Prometheus has '$(prom_value "$W")' for $W, not $NW: $(prom_query "collectd_ebpf_block_latency_seconds_count")"
inf=$(prom_value "collectd_ebpf_block_latency_seconds_bucket{disk=\"$DISK\",op=\"write\",le=\"+Inf\"}")
[ "$inf" = $NW ] || pfail "the +Inf bucket of $DISK write is '$inf', not $NW"
pass "block: $W = $NW, +Inf bucket $inf"

# 100 sleeps of 2 ms in a cgroup of their own, started right after a read so that the next
# read holds them all: the plugin's own p99 of that read (the snapshot line's 12th field, in
# ns; the 8th is the read's count, the 6th the lifetime one) and Prometheus' over the same
# 100 events, from the same slots. A read that cut the workload in two: again in the next
# cgroup (the machine is shared, and its load makes sleeps of 2 ms anything but 2 ms).
written() { sed -n 's/^written\t//p' "$WORK/snap/snapshot"; }
p99_read() {
	awk -F'\t' -v i="$S/nanosleep" '$1 == "histogram" && $2 == "latency" && $3 == i { print $6, $8, $12 }' "$WORK/snap/snapshot"
}
rewritten() { [ "$(written)" != "$1" ]; }
# counted: the snapshot has the 100 sleeps; the line's fields as read then in `got`
counted() { got=$(p99_read); [ "${got%% *}" = 100 ]; }
for s in s1 s2 s3; do
	S="${PARENT}_$s"
	w=$(written)
	wait_until 5 rewritten "$w" || fail "collectd stopped writing the snapshot"
	sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" 100 2000' sh "$CG_ROOT/$PARENT/$s" "$SLEEP_N" > "$WORK/sleep.truth" ||
		fail "sleep_n failed"
	wait_until 5 counted || fail "the snapshot has no 100 nanosleep calls for $S: $(p99_read)"
	set -- $got
	[ "$2" = 100 ] && break
	echo "$s: a read cut the workload ($2 of 100 in the last read); again in the next cgroup" >&2
	S=
done
[ -n "$S" ] || fail "three workloads in a row were cut by a read"
own=$(awk -v v="$3" 'BEGIN { print v / 1e9 }')
NS="collectd_ebpf_syscalls_latency_seconds_count{syscall=\"nanosleep\",cgroup=\"$S\"}"
wait_until 10 prom_is "$NS" 100 || pfail "Prometheus has '$(prom_value "$NS")' for $NS, not 100"
q=$(prom_value "histogram_quantile(0.99, collectd_ebpf_syscalls_latency_seconds_bucket{syscall=\"nanosleep\",cgroup=\"$S\"})")
awk -v q="$q" -v o="$own" 'BEGIN { exit !(q > 0 && o > 0 && (q - o) / o < 0.05 && (o - q) / o < 0.05) }' ||
	pfail "histogram_quantile(0.99) is '$q' s, the plugin's p99 $own s: more than 5% apart (sleep_n's own p50 p90 p99: $(cat "$WORK/sleep.truth"))"
pass "nanosleep p99 of the same 100 sleeps: Prometheus $q s, the plugin $own s (sleep_n measured p50 p90 p99 $(cat "$WORK/sleep.truth"))"

# The page itself: promtool's lint on the text format, # EOF on OpenMetrics.
curl -sf "$METRICS" > "$WORK/scrape.txt" || fail "no scrape"
"$PROMTOOL" check metrics < "$WORK/scrape.txt" > "$WORK/promtool.out" 2>&1 ||
	fail "promtool check metrics: $(head -20 "$WORK/promtool.out")"
curl -sf -D "$WORK/om.headers" -H 'Accept: application/openmetrics-text; version=1.0.0' "$METRICS" > "$WORK/scrape.om" || fail "no OpenMetrics scrape"
grep -qi '^Content-Type: application/openmetrics-text; version=1.0.0' "$WORK/om.headers" || fail "OpenMetrics content type: $(cat "$WORK/om.headers")"
[ "$(tail -n 1 "$WORK/scrape.om")" = "# EOF" ] || fail "the OpenMetrics page does not end in # EOF"
prom_is 'up{job="collectd"}' 1 || pfail "Prometheus' up for the endpoint is '$(prom_value 'up{job="collectd"}')'"
pass "promtool check metrics clean on $(wc -l < "$WORK/scrape.txt") lines; OpenMetrics ends in # EOF; up 1"
cp "$WORK/snap/snapshot" "$WORK/snapshot.last" # with KEEP_WORK=1: what the docs' scrape is of
stop_collectd
