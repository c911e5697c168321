#!/bin/sh
# Programs written in other tools' styles load unmodified through <Program> in the real
# collectd, and count every block request of a loop device exactly as the kernel's own
# accounting (/proc/diskstats) does, for O_DIRECT reads and writes of known sizes:
# - ebpf_exporter's style (tests/programs/style_exporter.bpf.c): the exp2 bucket index last in
#   a hash key whose other parts are given by Size and Padding, u64 counts as values;
# - libbpf-tools' style (tests/programs/style_libbpf_tools.bpf.c): `struct hist { __u32
#   slots[40]; }` values with floor-log2 slots, `const volatile` knobs set by Param (only the
#   loop device), tp_btf and raw_tp twins of each probe of which <Probe> attaches one.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

command -v dd >/dev/null 2>&1 || skip "dd is missing"

NW=120   # writes of 64 KiB
NR=80    # reads of 16 KiB
OBJ="$WORK/objects"
install_objects "$OBJ" tests/programs/style_exporter.bpf.o tests/programs/style_libbpf_tools.bpf.o
attach_loop 32
# The kernel's dev_t as the block tracepoints see it: major << 20 | minor.
DEVT=$(awk -F: '{ print $1 * 1048576 + $2 }' "/sys/block/$DISK/dev")
echo "loop device $DISK (dev_t $DEVT)"

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  <Program "exporter">
    Object "$OBJ/style_exporter.bpf.o"
    <Histogram "io_latency">
      Layout "key"
      Buckets "exp2"
      Multiplier 0.000000001
      Type "latency"
      Percentile 50
      <Label "device">
        Size 4
        Decode "majorminor"
      </Label>
      <Label "op">
        Size 1
        Padding 3
        Decode "static_map" "0=read" "1=write" "2=flush" "3=discard"
      </Label>
    </Histogram>
  </Program>
  <Program "libbpf_tools">
    Object "$OBJ/style_libbpf_tools.bpf.o"
    Param "filter_dev" true
    Param "targ_dev" $DEVT
    <Probe "issue">
      Program "issue_btf" "issue_raw"
    </Probe>
    <Probe "complete">
      Program "done_raw" "done_btf"
    </Probe>
    <Histogram "hists">
      Layout "value"
      SlotsField "slots"
      Buckets "log2"
      Multiplier 0.000000001
      Type "latency"
      Percentile 50
      <Label "device">
        Field "dev"
        Decode "majorminor"
      </Label>
    </Histogram>
  </Program>
</Plugin>
CONF

start_collectd "$WORK/collectd.conf"
wait_for_log 'exporter: complete attached via tp_btf' 5 || fail "the ebpf_exporter-style program did not attach"
wait_for_log 'libbpf_tools: issue attached via tp_btf' 5 || fail "libbpf_tools: issue_btf did not attach"
wait_for_log 'libbpf_tools: complete attached via raw_tp' 5 || fail "libbpf_tools: done_raw did not attach"
pass "both programs loaded unmodified; of each twin pair the first listed attached"
# The twins not chosen are not in the kernel at all (each would time every request again).
if command -v bpftool >/dev/null 2>&1; then
	loaded=$(bpftool prog show 2>/dev/null | grep -c -E ' name (issue_btf|issue_raw|done_btf|done_raw) ' || true)
	[ "$loaded" = 2 ] || fail "$loaded of the four twin programs are loaded, expected the 2 chosen ones"
	pass "2 of the 4 twin programs are in the kernel"
fi

# One write and one read make every series exist before the measured run.
dd if=/dev/zero of="$LOOP" bs=64k count=1 oflag=direct status=none || fail "dd write failed"
dd if="$LOOP" of=/dev/null bs=16k count=1 iflag=direct status=none || fail "dd read failed"
wait_for_csv exporter "derive-$DISK-write-count" 10 || fail "no derive-$DISK-write-count from the exporter style"
wait_for_csv exporter "derive-$DISK-read-count" 10 || fail "no derive-$DISK-read-count from the exporter style"
wait_for_csv libbpf_tools "derive-$DISK-count" 10 || fail "no derive-$DISK-count from the libbpf-tools style"
[ -z "$(ls "$WORK/csv/itest/ebpf-libbpf_tools/" | grep -e '-count-' | grep -v -e "-$DISK-count-" -e '^derive-dropped')" ] ||
	fail "Param filter_dev/targ_dev did not keep other disks out: $(ls "$WORK/csv/itest/ebpf-libbpf_tools/")"

# diskstats: completed reads ($4), writes ($8), discards ($15), flushes ($19) of the disk.
diskstat() { awk -v d="$DISK" -v f="$1" '$3 == d { print $f }' /proc/diskstats; }
counts() {
	echo "$(csv_last exporter "derive-$DISK-read-count") $(csv_last exporter "derive-$DISK-write-count")" \
		"$(csv_last libbpf_tools "derive-$DISK-count")" \
		"$(diskstat 4) $(diskstat 8) $(diskstat 15) $(diskstat 19)"
}
# Two reads after the IO ended: every completion is in the maps and in the csv files.
settle() {
	wait_for_new_line libbpf_tools "derive-$DISK-count"; wait_for_new_line libbpf_tools "derive-$DISK-count"
	wait_for_new_line exporter "derive-$DISK-write-count"
}
# Exact, unless the kernel skipped runs of the programs, which it counts (recursion misses).
misses() { v=$(csv_last "$1" derive-dropped-recursion); echo "${v:-0}"; }
exact() { # NAME COUNTED EXPECTED PROGRAM: 0 when exact, else says how and returns 1
	[ "$2" = "$3" ] && return 0
	m=$(misses "$4")
	[ "$2" -lt "$3" ] && [ $(($2 + m)) -ge "$3" ] && { echo "  $1: $2 of $3, $m runs skipped by the kernel (counted)"; return 0; }
	echo "  $1: counted $2, /proc/diskstats $3 ($m runs skipped by the kernel)"
	return 1
}
# One measurement: dd's IO, then each style's counts against /proc/diskstats.
measure() {
	settle
	set -- $(counts)
	er0=$1 ew0=$2 lt0=$3 dr0=$4 dw0=$5 dd0=$6 df0=$7
	dd if=/dev/zero of="$LOOP" bs=64k count=$NW oflag=direct status=none || fail "dd write failed"
	dd if="$LOOP" of=/dev/null bs=16k count=$NR iflag=direct status=none || fail "dd read failed"
	settle
	set -- $(counts)
	er=$(($1 - er0)) ew=$(($2 - ew0)) lt=$(($3 - lt0)) dr=$(($4 - dr0)) dw=$(($5 - dw0)) dx=$(($6 - dd0 + $7 - df0))
	echo "diskstats: +$dr reads, +$dw writes, +$dx discards and flushes; exporter: +$er reads, +$ew writes; libbpf_tools: +$lt requests"
	[ "$dw" -ge "$NW" ] && [ "$dr" -ge "$NR" ] || fail "diskstats counted fewer requests than dd made"
	ok=0
	exact "exporter reads" "$er" "$dr" exporter || ok=1
	exact "exporter writes" "$ew" "$dw" exporter || ok=1
	exact "libbpf_tools requests" "$lt" "$((dr + dw + dx))" libbpf_tools || ok=1
	return $ok
}
# Under heavy interrupt load the kernel can skip a program's run without counting it
# (doc/modules.md, Known limits; seen once in CI's first pass with builds beside): the
# IO is then measured again, and a count that is off in all three measurements fails.
attempt=1
until measure; do
	[ "$attempt" -lt 3 ] || fail "the styles' counts differ from /proc/diskstats in 3 measurements (above)"
	attempt=$((attempt + 1))
	echo "  off under load: measuring again ($attempt of 3)"
done
pass "both styles counted the loop device's requests as /proc/diskstats did"

for s in "exporter latency-$DISK-write-50" "exporter latency-$DISK-read-50" "libbpf_tools latency-$DISK-50"; do
	v=$(csv_last $s)
	awk -v v="$v" 'BEGIN { exit !(v > 0 && v < 10) }' || fail "$s = '$v' s is not a request latency"
done
pass "latency percentiles in seconds ($(csv_last exporter "latency-$DISK-write-50") s, $(csv_last libbpf_tools "latency-$DISK-50") s)"
# Neither style keeps the sum of the latencies: no mean, rather than a made-up 0.
means=$(ls "$WORK/csv/itest/ebpf-exporter" "$WORK/csv/itest/ebpf-libbpf_tools" | grep -e '-average-' || true)
[ -z "$means" ] || fail "histograms without a sum sent a mean: $means"
pass "no mean from histograms without a sum"
stop_collectd
