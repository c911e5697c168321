#!/bin/sh
# ebpf_exporter's configs under ebpf_exporter's own names: the real collectd loads a
# biolatency config and a syscalls config through <Program> ExporterConfig, the endpoint
# collectd-ebpf-prometheus serves its snapshot, Debian's real Prometheus server scrapes it.
# What Prometheus stores must be what ebpf_exporter exposes for those YAMLs, as its code
# makes it (exporter/exporter.go, histogram.go; written here from them, not from our output):
# - family ebpf_exporter_<name>, the YAML's help and labels (a histogram's last label is the
#   bucket, not a label), counters as named (syscalls_total), histograms as _bucket{le},
#   _sum, _count with le = keyer(bucket) for bucket_min .. bucket_max as its Go client writes
#   it (tests/exporter/go_le.py; checked against the Prometheus server's own le="1e+06");
# - counts exact: _count of bio_latency_seconds{device=<the test's loop>,operation="read"}
#   equals the reads /proc/diskstats counts, write_size_bytes and syscalls_total{syscall=
#   "write"} the 12 writes of write_n (7 of 100 bytes, 5 of 3000: le="128" 7, le="4096" 12,
#   _sum 15700).
# By default the configs are this project's equivalents of ebpf_exporter's examples
# (tests/exporter/exporter_biolatency.yaml, exporter_syscalls.yaml: same format, same names;
# nothing of ebpf_exporter is kept in this tree). With EBPF_EXPORTER=/path/to/its checkout,
# its examples/biolatency and examples/syscalls are used as they are (YAML unmodified, the
# .bpf.c compiled with collectd-ebpf-cc); syscalls then counts every process's calls: its
# names and labels are checked, and a count of 77 getsid calls, which the host hardly makes.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"
. "$top_srcdir/tests/prometheus/endpoint_lib.sh"

need_endpoint

NR=50 # O_DIRECT reads of 16 KiB of the loop device
GO_LE="$PY $top_srcdir/tests/exporter/go_le.py"
OBJ="$WORK/objects"
mkdir -p "$OBJ" && chmod 755 "$OBJ"
if [ -n "${EBPF_EXPORTER:-}" ]; then
	EX=$EBPF_EXPORTER/examples
	for n in biolatency syscalls; do
		(cd "$EX" && sh "$top_srcdir/tools/collectd-ebpf-cc.sh" -o "$OBJ/$n.bpf.o" "$n.bpf.c") > "$WORK/$n.cc" 2>&1 ||
			{ cat "$WORK/$n.cc" >&2; fail "examples/$n.bpf.c does not compile with collectd-ebpf-cc"; }
		cp "$EX/$n.yaml" "$OBJ/" && chmod 644 "$OBJ/$n.yaml" "$OBJ/$n.bpf.o"
	done
	BIO=$OBJ/biolatency.yaml SYS=$OBJ/syscalls.yaml SYS_PARAM=
	CONFIGS="biolatency syscalls"
	BIO_HELP="Block IO latency histogram"
else
	install_exporter_configs "$OBJ" exporter_biolatency exporter_syscalls
	BIO=$OBJ/exporter_biolatency.yaml SYS=$OBJ/exporter_syscalls.yaml
	CONFIGS="exporter_biolatency exporter_syscalls"
	BIO_HELP="Block IO latency by disk and operation"
fi

attach_loop 16
trap 'stop_endpoint; stop_prometheus; cleanup_loop' EXIT INT TERM
[ -n "${EBPF_EXPORTER:-}" ] || { start_gated_workload write_n 100:7 3000:5; SYS_PARAM="Param \"filter_tgid\" $WORKLOAD"; }

mkdir -m 0755 "$WORK/snap"
INTERVAL=0.5 write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$WORK/snap/snapshot"
  <Program "biolatency">
    ExporterConfig "$BIO"
  </Program>
  <Program "sys">
    ExporterConfig "$SYS"
    $SYS_PARAM
  </Program>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"
wait_for_log 'biolatency: .* attached' 10 || fail "biolatency did not attach"
wait_for_log 'sys: .* attached' 10 || fail "the syscalls config did not attach"
diskstat_reads() { awk -v d="$DISK" '$3 == d { print $4 }' /proc/diskstats; }
d0=$(diskstat_reads) # udev's probe of the new disk is over (attach_loop): from here both count
start_endpoint "$WORK/snap/snapshot"
start_prometheus

dd if="$LOOP" of=/dev/null bs=16k count=$NR iflag=direct status=none || fail "dd read failed"
d=$(($(diskstat_reads) - d0))
[ "$d" -ge "$NR" ] || fail "/proc/diskstats counted $d reads of $DISK, fewer than the $NR dd made"
[ -n "${EBPF_EXPORTER:-}" ] || { echo go >&7; wait "$WORKLOAD" || fail "the workload failed"; }

# ---- biolatency: names, labels, le, counts ------------------------------------------------
BIO_SEL="device=\"$DISK\",operation=\"read\""
wait_until 20 prom_is "ebpf_exporter_bio_latency_seconds_count{$BIO_SEL}" "$d" ||
	pfail "Prometheus has '$(prom_value "ebpf_exporter_bio_latency_seconds_count{$BIO_SEL}")' as ebpf_exporter_bio_latency_seconds_count{$BIO_SEL}, /proc/diskstats $d reads"
pass "ebpf_exporter_bio_latency_seconds_count{$BIO_SEL} is $d in Prometheus, as /proc/diskstats (dd: $NR)"

# stored NAME-REGEX SELECTOR: what Prometheus stores, "name label=value,..." a line (le last
# when there is one), without the labels the server adds (instance, job).
stored() {
	prom_query "{__name__=~\"$1\"$2}" | $PY -c '
import re, sys
for line in sys.stdin:
    labels = dict(re.findall(r"(\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"", line.rsplit(" ", 1)[0]))
    name = labels.pop("__name__"); labels.pop("instance", None); labels.pop("job", None)
    le = labels.pop("le", None)
    print(name, ",".join("%s=%s" % kv for kv in sorted(labels.items())) + ("" if le is None else ",le=" + le))' | sort
}
{
	$GO_LE exp2 0 27 0.000001 | sed "s/^/ebpf_exporter_bio_latency_seconds_bucket device=$DISK,operation=read,le=/"
	echo "ebpf_exporter_bio_latency_seconds_bucket device=$DISK,operation=read,le=+Inf"
	echo "ebpf_exporter_bio_latency_seconds_count device=$DISK,operation=read"
	echo "ebpf_exporter_bio_latency_seconds_sum device=$DISK,operation=read"
} | sort > "$WORK/bio.want"
stored 'ebpf_exporter_bio_latency_seconds.*' ",device=\"$DISK\",operation=\"read\"" > "$WORK/bio.got"
diff "$WORK/bio.want" "$WORK/bio.got" > "$WORK/bio.diff" || { cat "$WORK/bio.diff" >&2; fail "the biolatency series of $DISK reads are not ebpf_exporter's (diff: want, got)"; }
pass "biolatency: the $(wc -l < "$WORK/bio.want") series ebpf_exporter makes for $DISK reads, le 1e-06 .. 134.217728 and +Inf"
stored 'ebpf_exporter_bio_latency_seconds.*' "" | awk '{ n = split($2, l, ","); s = ""
	for (i = 1; i <= n; i++) { sub(/=.*/, "", l[i]); s = s l[i] "," } print $1, s }' | sort -u > "$WORK/bio.names"
printf '%s\n' "ebpf_exporter_bio_latency_seconds_bucket device,operation,le," \
	"ebpf_exporter_bio_latency_seconds_count device,operation," "ebpf_exporter_bio_latency_seconds_sum device,operation," > "$WORK/bio.names.want"
diff "$WORK/bio.names.want" "$WORK/bio.names" >&2 || fail "biolatency's series (every disk) have label names other than ebpf_exporter's"
inf=$(prom_value "ebpf_exporter_bio_latency_seconds_bucket{$BIO_SEL,le=\"+Inf\"}")
top=$(prom_value "ebpf_exporter_bio_latency_seconds_bucket{$BIO_SEL,le=\"134.217728\"}")
[ "$inf" = "$d" ] && [ "$top" = "$d" ] || fail "le=\"+Inf\" is $inf and le=\"134.217728\" $top, not the $d reads"
q=$(prom_query "histogram_quantile(0.5, ebpf_exporter_bio_latency_seconds_bucket{$BIO_SEL})" | awk '{ print $NF }')
echo "histogram_quantile(0.5) of $DISK reads: $q s"
case $q in "" | NaN | 0) fail "histogram_quantile(0.5, ...) of the reads is '$q'" ;; esac
pass "+Inf and the top bucket hold all $d reads; histogram_quantile works on the buckets ($q s)"

# The Go client's own le text, as go_le.py writes it: Prometheus' response size buckets.
curl -sf "$PROMETHEUS_URL/metrics" | grep -q 'prometheus_http_response_size_bytes_bucket{.*le="1e+06"}' &&
	[ "$($GO_LE text 1000000)" = "1e+06" ] || fail "the Prometheus server's own le text is not go_le.py's (1e+06)"

# ---- syscalls ---------------------------------------------------------------------------------
curl -sf "$METRICS" > "$WORK/scrape.txt" || fail "no scrape of $METRICS"
if [ -n "${EBPF_EXPORTER:-}" ]; then
	stored 'ebpf_exporter_sys.*' "" | awk '{ n = split($2, l, ","); s = ""
		for (i = 1; i <= n; i++) { sub(/=.*/, "", l[i]); s = s l[i] "," } print $1, s }' | sort -u > "$WORK/sys.names"
	printf '%s\n' "ebpf_exporter_syscall_errors_total errno," "ebpf_exporter_syscalls_total syscall," > "$WORK/sys.names.want"
	diff "$WORK/sys.names.want" "$WORK/sys.names" >&2 || fail "the syscalls example's series are not ebpf_exporter's names and labels"
	pass "syscalls example: ebpf_exporter_syscalls_total{syscall}, ebpf_exporter_syscall_errors_total{errno}"
	# It counts every process: a count of a syscall the host hardly makes, getsid
	GETSID='ebpf_exporter_syscalls_total{syscall="getsid"}'
	g0=$(prom_value "$GETSID")
	$PY -c 'import os
for _ in range(77): os.getsid(0)' || fail "the getsid workload failed"
	wait_until 10 prom_is "$GETSID" $((${g0:-0} + 77)) || fail "$GETSID went from ${g0:-0} to $(prom_value "$GETSID"), not by 77"
	pass "syscalls example: $GETSID grew by exactly the workload's 77 calls"
	grep -qx '# HELP ebpf_exporter_syscalls_total Total number of executed syscalls by name' "$WORK/scrape.txt" ||
		fail "no HELP of ebpf_exporter_syscalls_total with the YAML's help"
else
	wait_until 10 prom_is 'ebpf_exporter_write_size_bytes_count{fd="unknown:3"}' 12 ||
		pfail "ebpf_exporter_write_size_bytes_count{fd=\"unknown:3\"} is '$(prom_value 'ebpf_exporter_write_size_bytes_count{fd="unknown:3"}')', not 12"
	prom_is 'ebpf_exporter_syscalls_total{syscall="write"}' 12 ||
		fail "ebpf_exporter_syscalls_total{syscall=\"write\"} is '$(prom_value 'ebpf_exporter_syscalls_total{syscall="write"}')', not 12"
	for want in 'le="64"} 0' 'le="128"} 7' 'le="2048"} 7' 'le="4096"} 12' 'le="1.048576e+06"} 12'; do
		v=$(prom_value "ebpf_exporter_write_size_bytes_bucket{fd=\"unknown:3\",${want%\} *}}")
		[ "$v" = "${want##* }" ] || fail "ebpf_exporter_write_size_bytes_bucket{fd=\"unknown:3\",${want%\} *}} is '$v', not ${want##* }"
	done
	prom_is 'ebpf_exporter_write_size_bytes_sum{fd="unknown:3"}' 15700 || fail "write_size_bytes_sum is not 15700"
	{
		$GO_LE exp2 0 20 1 | sed "s/^/ebpf_exporter_write_size_bytes_bucket fd=unknown:3,le=/"
		printf '%s\n' "ebpf_exporter_write_size_bytes_bucket fd=unknown:3,le=+Inf" \
			"ebpf_exporter_write_size_bytes_count fd=unknown:3" "ebpf_exporter_write_size_bytes_sum fd=unknown:3"
	} | sort > "$WORK/ws.want"
	stored 'ebpf_exporter_write_size_bytes.*' "" > "$WORK/ws.got"
	diff "$WORK/ws.want" "$WORK/ws.got" > "$WORK/ws.diff" || { cat "$WORK/ws.diff" >&2; fail "the write_size_bytes series are not ebpf_exporter's"; }
	stored 'ebpf_exporter_syscalls.*' "" | grep -v '^ebpf_exporter_syscalls_total syscall=[a-z_0-9]*$' >&2 &&
		fail "a syscalls_total series with labels other than syscall"
	grep -qx '# HELP ebpf_exporter_syscalls_total System calls of one process by name' "$WORK/scrape.txt" ||
		fail "no HELP of ebpf_exporter_syscalls_total with the YAML's help"
	pass "syscalls: syscalls_total{syscall=\"write\"} 12, write_size_bytes{fd=\"unknown:3\"}: 12 writes, le=\"128\" 7, le=\"4096\" 12, _sum 15700, the $(wc -l < "$WORK/ws.want") series of ebpf_exporter"
fi

# ---- ebpf_exporter's own: enabled_configs{name}, named by the YAML's file name ----------------
prom_query 'ebpf_exporter_enabled_configs' | sed -e 's/,instance="[^"]*"//' -e 's/,job="[^"]*"//' | sort > "$WORK/configs.got"
for c in $CONFIGS; do echo "{__name__=\"ebpf_exporter_enabled_configs\",name=\"$c\"} 1"; done | sort > "$WORK/configs.want"
diff "$WORK/configs.want" "$WORK/configs.got" >&2 || fail "ebpf_exporter_enabled_configs is not one series of 1 per config"
grep -qx '# HELP ebpf_exporter_enabled_configs The set of enabled configs' "$WORK/scrape.txt" ||
	fail "no HELP of ebpf_exporter_enabled_configs as ebpf_exporter's"
pass "ebpf_exporter_enabled_configs{name} 1 for $CONFIGS"

# ---- the page: HELP, TYPE, lint, OpenMetrics ----------------------------------------------------
grep -qx "# HELP ebpf_exporter_bio_latency_seconds $BIO_HELP" "$WORK/scrape.txt" &&
	grep -qx '# TYPE ebpf_exporter_bio_latency_seconds histogram' "$WORK/scrape.txt" &&
	grep -qx '# TYPE ebpf_exporter_syscalls_total counter' "$WORK/scrape.txt" ||
	{ grep '^# .*ebpf_exporter_' "$WORK/scrape.txt" >&2; fail "HELP and TYPE are not ebpf_exporter's"; }
"$PROMTOOL" check metrics < "$WORK/scrape.txt" > "$WORK/promtool.out" 2>&1 ||
	{ cat "$WORK/promtool.out" >&2; fail "promtool check metrics refuses the page"; }
curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' "$METRICS" > "$WORK/scrape.om" || fail "no OpenMetrics scrape"
grep -qx '# TYPE ebpf_exporter_syscalls counter' "$WORK/scrape.om" && grep -q '^ebpf_exporter_syscalls_total{syscall=' "$WORK/scrape.om" ||
	fail "OpenMetrics: ebpf_exporter_syscalls_total is not a counter family ebpf_exporter_syscalls"
pass "HELP and TYPE as ebpf_exporter's, promtool check metrics clean, OpenMetrics names the counter's family without _total"
