#!/bin/sh
# ebpf_exporter configs (ExporterConfig) of every decoder and feature the collectd_exporter_*
# and collectd_perf_event tests count, in the SNMP tables, with the real daemons (snmpd as
# AgentX master, the subagent as nobody, collectd with the plugin). This project's own configs
# and programs in ebpf_exporter's format (tests/exporter/*.yaml, .bpf.c), run by collectds one
# after the other under the same snmpd and subagent, with the workloads of those tests. Over
# SNMP, every row equal to what collectd dispatched (its csv files) and to the values those
# tests expect:
# - string then regexp (exporter_comm): ebpfCounterTable comm.marked_closes_total rows
#   marked_closes-worker = 7 (worker-1's 3 and worker-2's 4) and marked_closes-dbsync = 5, no
#   other row; "other" dropped, counted in ebpfGaugeTable comm.unmatched.marked_closes_total = 1;
# - kaddrs (exporter_kaddrs): kaddr_halves-high and -low are vfs_read's address in kallsyms;
# - cgroup_id_map, uint then cgroup (exporter_cgroup_ids): marked_closes_kept-<parent>_keep = 5,
#   marked_closes_unkept-<parent>_other = 6, the gauge cgroup_ids.cgroup_id_map = 1; then 2
#   with keep2 made while collectd runs, its 4 closes kept, and 1 again once it is removed;
# - majorminor and an exp2 histogram in seconds (exporter_biolatency): ebpfHistTable
#   bio.latency.bio_latency-loopN-read counts exactly NR more after NR O_DIRECT reads, its count
#   and sum equal to collectd's -count and -sum;
# - exp2zero, linear and fixed buckets (exporter_buckets: the values 0 twice, 3 three times,
#   7 five times, 999 once): ebpfHistTable buckets.gauge.close_values_exp2zero and _linear
#   count 11 and sum 1043, _fixed 6 (7's bucket is not among its bucket_keys) and 1043, as
#   collectd's, and their ebpfBucketTable rows are exactly the buckets that hold those values;
# - a perf_event program with a per-CPU label (perf_event_samples, cpu-clock at 99 a second):
#   one row samples-<cpu> per online CPU, each equal to collectd's at one moment (they grow);
# - a USDT probe (exporter_usdt) and a uprobe on libc (exporter_uprobe): their fires by
#   argument, exactly;
# - ifname, pci_vendor, pci_subclass, dname (exporter_names.bpf.c under configs of fewer
#   labels the test writes, so that most instances are their own index): the names and the
#   texts of unknown ids, 3 closes as "known" and 4 as "other" in each; the one text longer
#   than 48 bytes (an unknown subclass) served under the MIB's head + hash index; errno,
#   inet_ip, hex, ksym, pci_device, pci_class and inet_ip of IPv6 (exporter_codes.bpf.c) the
#   same, among them EACCES-127.0.0.1-be-vfs_read 3 and the 48-byte
#   ENOENT-1.2.3.4-0a-unknown_addr:0x1 (the longest instance that is its own index) 4;
# - kstack (exporter_kstack) and the four decoders in one config (exporter_names): their
#   instances are longer than 48 bytes: collectd counts them exactly (7 renames; 3 and 4
#   closes), and each is served with that count under the index the MIB's rule gives, its
#   whole instance in ebpfCounterFullInstance, not logged as left out.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/snmp_lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

command -v dd >/dev/null 2>&1 || skip "dd is missing"
cgroup2_root
addr=$(awk '$3 == "vfs_read" && NF == 3 { a = $1 } END { print a }' /proc/kallsyms)
[ -n "$addr" ] && [ "$addr" != 0000000000000000 ] || skip "kallsyms shows no address of vfs_read"

OBJ="$WORK/objects"
install_exporter_configs "$OBJ" exporter_comm exporter_kaddrs exporter_cgroup_ids exporter_biolatency \
	perf_event_samples exporter_buckets exporter_names exporter_codes exporter_kstack exporter_usdt exporter_uprobe
attach_loop 16
PARENT=ebpf-it-cgid-$$
CG="$CG_ROOT/$PARENT"
mkdir "$CG" "$CG/keep" "$CG/other" || sfail "cannot make the cgroups under $CG"
trap 'rmdir "$CG/keep2" "$CG/keep" "$CG/other" "$CG" 2>/dev/null || true; detach_loop; snmp_cleanup' EXIT INT TERM
CLOSE_N="$top_builddir/tests/support/close_n"

start_snmp

# run_config MODULE YAML PROGRAM [MODULE YAML PROGRAM]...: collectd (the one before stopped)
# with a <Program "MODULE"> reading $OBJ/YAML.yaml for each triple, publishing the snapshot
# the subagent serves; until each PROGRAM is attached (PROGRAM "": a perf_event program, which
# logs no attach point) and each module's row says running. The collectd before's log is
# kept in collectd.before.log: collectd.log is this one's, waited on and shown on failure.
# PROGRAM_LINES: lines each <Program> block also gets (Param ...), none when empty.
PROGRAM_LINES=
program_blocks() {
	while [ $# -ge 3 ]; do
		printf '  <Program "%s">\n    ExporterConfig "%s"\n%s  </Program>\n' "$1" "$OBJ/$2.yaml" \
			"${PROGRAM_LINES:+$PROGRAM_LINES
}"
		shift 3
	done
}
run_config() {
	if [ -n "$COLLECTD_PID" ]; then
		stop_collectd
		cat "$WORK/collectd.log" >> "$WORK/collectd.before.log" && rm "$WORK/collectd.log"
	fi
	conf="$WORK/$1.conf"
	{
		printf '<Plugin ebpf>\n  SnapshotFile "%s"\n  SnapshotGroup "nogroup"\n' "$SNAP"
		program_blocks "$@"
		echo '</Plugin>'
	} | write_config "$conf"
	start_collectd "$conf"
	while [ $# -ge 3 ]; do
		[ -z "$3" ] || wait_for_log "$1: $3 attached" 10 || sfail "$1: $3 did not attach"
		wait_module_running "$1"
		shift 3
	done
}

run_config comm exporter_comm count_close
echo go | "$CLOSE_N" worker-1:3 worker-2:4 dbsync:5 other:6 || sfail "the workload failed"
snmp_counter_as_csv comm marked_closes_total derive-marked_closes-worker 7
snmp_counter_as_csv comm marked_closes_total derive-marked_closes-dbsync 5
rows=$(snmp_rows "$EBPF_COUNTER_VALUE" comm marked_closes_total)
[ "$rows" = 2 ] || sfail "comm/marked_closes_total has $rows rows over SNMP, expected worker and dbsync"
snmp_as_csv "$EBPF_GAUGE_VALUE" comm unmatched marked_closes_total gauge-unmatched-marked_closes_total 1
pass "regexp: 2 rows, worker 7 and dbsync 5; other's key dropped, ebpfGaugeTable comm.unmatched.marked_closes_total = 1"

run_config kaddrs exporter_kaddrs show_kaddr
for i in 1 2 3; do sh -c 'echo $PPID' > /dev/null; done # getppid() runs the program
snmp_counter_as_csv kaddrs kaddr_halves_total derive-kaddr_halves-high $((0x${addr%????????}))
snmp_counter_as_csv kaddrs kaddr_halves_total derive-kaddr_halves-low $((0x${addr#????????}))
pass "kaddrs: the halves of kaddr_vfs_read over SNMP are vfs_read's address in kallsyms, $addr"

run_config cgids exporter_cgroup_ids count_close
snmp_as_csv "$EBPF_GAUGE_VALUE" cgids cgroup_ids cgroup_id_map gauge-cgroup_ids-cgroup_id_map 1
close_in_cgroup "$CG/keep" w 5
close_in_cgroup "$CG/other" w 6
snmp_counter_as_csv cgids marked_closes_kept_total derive-marked_closes_kept-${PARENT}_keep 5
snmp_counter_as_csv cgids marked_closes_unkept_total derive-marked_closes_unkept-${PARENT}_other 6
rows=$(snmp_rows "$EBPF_COUNTER_VALUE" cgids marked_closes_kept_total)
[ "$rows" = 1 ] || sfail "cgids/marked_closes_kept_total has $rows rows over SNMP, expected keep's only"
pass "cgroup_id_map: keep's 5 closes the one kept row, other's 6 unkept, 1 id in the map"
mkdir "$CG/keep2" || sfail "cannot make $CG/keep2"
snmp_as_csv "$EBPF_GAUGE_VALUE" cgids cgroup_ids cgroup_id_map gauge-cgroup_ids-cgroup_id_map 2
close_in_cgroup "$CG/keep2" w 4
snmp_counter_as_csv cgids marked_closes_kept_total derive-marked_closes_kept-${PARENT}_keep2 4
rmdir "$CG/keep2" || sfail "cannot remove $CG/keep2"
snmp_as_csv "$EBPF_GAUGE_VALUE" cgids cgroup_ids cgroup_id_map gauge-cgroup_ids-cgroup_id_map 1
pass "cgroup_id_map: keep2, made while collectd ran, in the map (2 ids) and its 4 closes kept; removed, 1 id"

run_config bio exporter_biolatency complete
S=bio_latency-$DISK-read
# One read makes the series exist; then two reads of collectd with no IO before counting.
dd if="$LOOP" of=/dev/null bs=16k count=1 iflag=direct status=none || sfail "dd read failed"
wait_for_csv bio "derive-$S-count" 10 || sfail "no derive-$S-count: $(ls "$WORK/csv/itest/ebpf-bio/" | tr '\n' ' ')"
settle() { wait_for_new_line bio "derive-$S-count"; wait_for_new_line bio "derive-$S-count"; }
# bio_as_csv: the histogram's count and sum over SNMP equal collectd's; its count in C.
bio_as_csv() {
	C=$(csv_last bio "derive-$S-count")
	snmp_as_csv "$EBPF_HIST_COUNT" bio latency "$S" "derive-$S-count" "$C"
	snmp_as_csv "$EBPF_HIST_SUM" bio latency "$S" "derive-$S-sum" "$(csv_last bio "derive-$S-sum")"
}
settle
bio_as_csv
c0=$C
NR=200
dd if="$LOOP" of=/dev/null bs=16k count=$NR iflag=direct status=none || sfail "dd read failed"
settle
bio_as_csv
[ $((C - c0)) = $NR ] || sfail "ebpfHistCount of bio/latency/$S grew by $((C - c0)), expected exactly $NR reads"
pass "majorminor: ebpfHistTable bio.latency.$S counts exactly $NR more reads, count and sum as collectd's"

run_config perf perf_event_samples ""
rows_per_cpu() { [ "$(snmp_rows "$EBPF_COUNTER_VALUE" perf samples_total)" = "$(online_cpus | wc -l)" ]; }
wait_until 10 rows_per_cpu ||
	sfail "perf/samples_total has $(snmp_rows "$EBPF_COUNTER_VALUE" perf samples_total) rows over SNMP, expected one per online CPU ($(online_cpus | wc -l))"
for cpu in $(online_cpus); do
	snmp_counter_follows_csv perf samples_total derive-samples-$cpu
done
pass "perf_event: one ebpfCounterTable row per online CPU, each equal to collectd's samples-<cpu>"

run_config buckets exporter_buckets count_close
echo go | "$CLOSE_N" v0:2 v3:3 v7:5 v999:1 || sfail "the workload failed"
# The bucket rows ("lower upper count", whole numbers: (lower, upper]), exactly: exp2zero's
# bucket 0 (the value 0) reads (0, 1], 3 is in (2, 4], 7 in (4, 8], and 999 in the last
# bucket, 10: (256, 512]; linear's bucket k holds the value k, (k - 1, k], 999 in bucket 10;
# fixed's bucket 0 reads as exp2zero's, bucket 5 ((0, 5]) and bucket 100 ((5, 100], 999's)
# each in the slot of its middle, 3 and 53, and 7 nowhere (its bucket 7 is not listed).
EXP2ZERO='0 1 2;2 4 3;4 8 5;256 512 1;'
LINEAR='0 1 2;2 3 3;6 7 5;9 10 1;'
FIXED='0 1 2;2 3 3;52 53 1;'
for h in close_values_exp2zero:11 close_values_linear:11 close_values_fixed:6; do
	n=${h#*:} h=${h%:*}
	snmp_as_csv "$EBPF_HIST_COUNT" buckets gauge $h derive-$h-count "$n"
	snmp_as_csv "$EBPF_HIST_SUM" buckets gauge $h derive-$h-sum 1043
	snmp_buckets buckets gauge $h "$WORK/$h"
	rows=$(tr '\n' ';' < "$WORK/$h")
	case $h in *exp2zero) want=$EXP2ZERO ;; *linear) want=$LINEAR ;; *) want=$FIXED ;; esac
	[ "$rows" = "$want" ] || sfail "the bucket rows of buckets/gauge/$h are '$rows', expected '$want'"
	pass "ebpfHistTable buckets.gauge.$h: $n values summing to 1043, as collectd's; its bucket rows $rows"
done
# The names and codes decoders' labels together make instances too long for the index: each
# decoder also in a config of its own over the same object, the other values read by uint
# from their first byte (names: 1 for "known", 240 for "other"; codes: the errno, 13 or 2) or
# skipped as padding, so that its instances fit.
# variant_yaml NAME OBJECT: $OBJ/NAME.yaml, the counter marked_closes_total with the labels
# on stdin (a line each: name size padding decoder...), and $OBJ/OBJECT.bpf.o beside it.
variant_yaml() {
	{
		printf 'metrics:\n  counters:\n    - name: marked_closes_total\n      help: close() of the marker fd, by one of its ids\n      labels:\n'
		while read -r label size padding decoders; do
			printf '        - name: %s\n          size: %s\n          padding: %s\n          decoders:\n' "$label" "$size" "$padding"
			for d in $decoders; do printf '            - name: %s\n' "$d"; done
		done
	} > "$OBJ/$1.yaml"
	[ "$2" != exporter_codes ] || printf 'kaddrs:\n  - vfs_read\n' >> "$OBJ/$1.yaml"
	cp "$OBJ/$2.bpf.o" "$OBJ/$1.bpf.o" && chmod 644 "$OBJ/$1.yaml" "$OBJ/$1.bpf.o"
}
variant_yaml names_ifname exporter_names <<LABELS
interface 4 20 ifname
LABELS
variant_yaml names_vendor exporter_names <<LABELS
interface 1 3 uint
vendor 4 16 uint pci_vendor
LABELS
variant_yaml names_subclass exporter_names <<LABELS
interface 1 7 uint
subclass 2 14 uint pci_subclass
LABELS
variant_yaml names_dname exporter_names <<LABELS
interface 1 11 uint
qname 12 0 dname
LABELS
variant_yaml codes_short exporter_codes <<LABELS
errno 8 0 uint errno
addr 4 0 inet_ip
tag 1 3 hex
function 8 24 ksym
LABELS
variant_yaml codes_device exporter_codes <<LABELS
errno 1 23 uint
device 4 20 uint pci_device
LABELS
variant_yaml codes_class exporter_codes <<LABELS
errno 1 27 uint
class 1 19 uint pci_class
LABELS
variant_yaml codes_ip6 exporter_codes <<LABELS
errno 1 31 uint
addr6 16 0 inet_ip
LABELS
run_config names_ifname names_ifname count_close names_vendor names_vendor count_close \
	names_subclass names_subclass count_close names_dname names_dname count_close \
	codes_short codes_short count_close codes_device codes_device count_close codes_class codes_class count_close \
	codes_ip6 codes_ip6 count_close
echo go | "$CLOSE_N" known:3 other:4 || sfail "the workload failed"
snmp_counter_as_csv names_ifname marked_closes_total derive-marked_closes-lo 3
snmp_counter_as_csv names_ifname marked_closes_total derive-marked_closes-unknown:2147483632 4
snmp_counter_as_csv names_vendor marked_closes_total "derive-marked_closes-1-Intel Corporation" 3
snmp_counter_as_csv names_vendor marked_closes_total "derive-marked_closes-240-unknown pci vendor: 0x8087" 4
snmp_counter_as_csv names_subclass marked_closes_total "derive-marked_closes-1-Ethernet controller" 3
snmp_counter_as_csv names_dname marked_closes_total derive-marked_closes-1-example.com 3
snmp_counter_as_csv names_dname marked_closes_total derive-marked_closes-240-abc.xyz.... 4
snmp_counter_as_csv codes_short marked_closes_total derive-marked_closes-EACCES-127.0.0.1-be-vfs_read 3
OTHER=marked_closes-ENOENT-1.2.3.4-0a-unknown_addr:0x1
[ ${#OTHER} = 48 ] || sfail "$OTHER is ${#OTHER} bytes, the test means the index's 48"
snmp_counter_as_csv codes_short marked_closes_total derive-$OTHER 4
snmp_counter_as_csv codes_device marked_closes_total "derive-marked_closes-13-Virtio network device" 3
snmp_counter_as_csv codes_device marked_closes_total "derive-marked_closes-2-unknown pci device: 0xdeadbeef" 4
snmp_counter_as_csv codes_class marked_closes_total "derive-marked_closes-13-Network controller" 3
snmp_counter_as_csv codes_class marked_closes_total "derive-marked_closes-2-unknown pci class: 0xfe" 4
snmp_counter_as_csv codes_ip6 marked_closes_total derive-marked_closes-13-::1 3
snmp_counter_as_csv codes_ip6 marked_closes_total derive-marked_closes-2-2001:db8::1 4
for m in names_ifname names_vendor names_dname codes_short codes_device codes_class codes_ip6; do
	rows=$(snmp_rows "$EBPF_COUNTER_VALUE" $m marked_closes_total)
	[ "$rows" = 2 ] || sfail "$m/marked_closes_total has $rows rows over SNMP, expected known's and other's"
done
LONG="marked_closes-240-unknown pci subclass: 0x0b (class 0x01)"
wait_until 10 csv_is names_subclass "derive-$LONG" 4 ||
	sfail "collectd's derive-$LONG is '$(csv_last names_subclass "derive-$LONG")', expected 4"
rows=$(snmp_rows "$EBPF_COUNTER_VALUE" names_subclass marked_closes_total)
[ "$rows" = 2 ] || sfail "names_subclass/marked_closes_total has $rows rows over SNMP, expected known's and other's"
snmp_long_served names_subclass marked_closes_total "$LONG" 4
pass "ifname, pci_vendor, pci_subclass, dname, errno, inet_ip, hex, ksym, pci_device, pci_class: each name and unknown text served as collectd counted it"

# kstack's and the four names decoders' label sets: longer than 48 bytes, served under the
# MIB's head + hash index.
run_config kstack exporter_kstack count_rename names exporter_names count_close
echo go | "$CLOSE_N" kstk:0 kstx:0 kstk:0 kstk:0 kstx:0 kstk:0 kstk:0 kstx:0 kstk:0 kstk:0 || sfail "the workload failed"
echo go | "$CLOSE_N" known:3 other:4 || sfail "the workload failed"
DIR="$WORK/csv/itest/ebpf-kstack"
one_stack() { [ "$(ls "$DIR" 2>/dev/null | grep -c '^derive-kstk_renames-')" = 1 ]; }
wait_until 10 one_stack || sfail "not one kstk_renames series: $(ls "$DIR" 2>&1 | tr '\n' ' ')"
SERIES=$(ls "$DIR" | sed -n 's/^\(derive-kstk_renames-.*\)-[0-9]\{4\}-[0-9]\{2\}-[0-9]\{2\}$/\1/p')
wait_until 10 csv_is kstack "$SERIES" 7 || sfail "collectd's $SERIES is '$(csv_last kstack "$SERIES")', expected 7"
KNOWN="marked_closes-lo-Intel Corporation-Ethernet controller-example.com"
OTHER="marked_closes-unknown:2147483632-unknown pci vendor: 0x8087-unknown pci subclass: 0x0b (class 0x01)-abc.xyz...."
wait_until 10 csv_is names "derive-$KNOWN" 3 || sfail "collectd's derive-$KNOWN is '$(csv_last names "derive-$KNOWN")', expected 3"
wait_until 10 csv_is names "derive-$OTHER" 4 || sfail "collectd's derive-$OTHER is '$(csv_last names "derive-$OTHER")', expected 4"
snmp_long_served kstack kstk_renames_total "${SERIES#derive-}" 7
snmp_long_served names marked_closes_total "$KNOWN" 3
snmp_long_served names marked_closes_total "$OTHER" 4
pass "kstack and the names decoders' long label sets served under head + hash indexes, as collectd counted them"

# A USDT probe (exporter_usdt: SEC("usdt/usdt_n:collectd_ebpf_test:tick"), its argument as the
# label): usdt_n fires it 101 times, 51 with 1 and 50 with 2; libbpf finds usdt_n in
# collectd's PATH.
start_waiting_workload usdt_n 101
PROGRAM_LINES="    Param \"filter_tgid\" $WORKLOAD"
PATH="$top_builddir/tests/support:$PATH" run_config usdt exporter_usdt count_tick
PROGRAM_LINES=
waiting_workload_go
snmp_counter_as_csv usdt usdt_ticks_total derive-usdt_ticks-1 51
snmp_counter_as_csv usdt usdt_ticks_total derive-usdt_ticks-2 50
pass "usdt: the probe's 101 fires served by argument, 51 and 50, as collectd counted them"

# A uprobe on a library (exporter_uprobe: SEC("uprobe/libc.so.6:getaddrinfo"), the service's
# port as the label): gai_n calls getaddrinfo("localhost", "80") 37 times.
exec 7>&- && rm -f "$WORK/go" # the USDT workload's fifo: done with
start_waiting_workload gai_n 37
PROGRAM_LINES="    Param \"filter_tgid\" $WORKLOAD"
run_config uprobe exporter_uprobe count_gai
PROGRAM_LINES=
waiting_workload_go
snmp_counter_as_csv uprobe gai_calls_total derive-gai_calls-80 37
pass "uprobe: getaddrinfo's 37 calls served by port, as collectd counted them"
stop_collectd
