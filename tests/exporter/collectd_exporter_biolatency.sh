#!/bin/sh
# ebpf_exporter's biolatency, as a user brings it: a config in its format whose device label
# is decoded by `majorminor` from the dev_t its programs write (user space's encoding, its
# MKDEV), read by <Program> ExporterConfig in the real collectd. The config and program are
# this project's own in that format (tests/exporter/exporter_biolatency.yaml, .bpf.c).
# NR O_DIRECT reads of 16 KiB of a new loop device must give:
# - the label `loopN` (the name in /proc/partitions, not a number nor unknown:M:m);
# - a count of exactly NR reads, as /proc/diskstats counts them, not the latency sum kept in
#   bucket bucket_max + 1; that sum is the -sum value instead (nanoseconds: whole microseconds).
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

command -v dd >/dev/null 2>&1 || skip "dd is missing"

NR=200
OBJ="$WORK/objects"
install_objects "$OBJ" tests/exporter/exporter_biolatency.bpf.o
cp "$top_srcdir/tests/exporter/exporter_biolatency.yaml" "$OBJ/" && chmod 644 "$OBJ/exporter_biolatency.yaml"
attach_loop 16

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  <Program "bio">
    ExporterConfig "$OBJ/exporter_biolatency.yaml"
  </Program>
</Plugin>
CONF

"$COLLECTD" -T -C "$WORK/collectd.conf" > "$WORK/t.out" 2>&1 || { cat "$WORK/t.out" >&2; fail "collectd -T refused the config"; }
pass "collectd -T takes the config with decoder majorminor"

start_collectd "$WORK/collectd.conf"
wait_for_log 'bio: complete attached' 10 || fail "the program did not attach"
S="derive-bio_latency-$DISK-read"
# One read makes the series exist before the measured run.
dd if="$LOOP" of=/dev/null bs=16k count=1 iflag=direct status=none || fail "dd read failed"
wait_for_csv bio "$S-count" 10 || { ls "$WORK/csv/itest/ebpf-bio/" >&2; fail "no $S-count: the device label is not $DISK"; }
pass "the device label reads $DISK"

diskstat_reads() { awk -v d="$DISK" '$3 == d { print $4 }' /proc/diskstats; }
settle() { wait_for_new_line bio "$S-count"; wait_for_new_line bio "$S-count"; }
settle
c0=$(csv_last bio "$S-count") s0=$(csv_last bio "$S-sum") d0=$(diskstat_reads)
dd if="$LOOP" of=/dev/null bs=16k count=$NR iflag=direct status=none || fail "dd read failed"
settle
c=$(($(csv_last bio "$S-count") - c0)) d=$(($(diskstat_reads) - d0))
echo "reads: counted $c, /proc/diskstats $d, dd $NR"
[ "$d" = "$NR" ] || fail "/proc/diskstats counted $d reads of $DISK, not the $NR dd made"
misses=$(csv_last bio derive-dropped-recursion)
[ "$c" = "$NR" ] || fail "counted $c reads, expected exactly $NR (kernel-skipped runs: ${misses:-0})"
pass "exactly $NR reads of $DISK in bio_latency_seconds (the sum key is not events)"
# The sum is kept in nanoseconds of seconds (doc/programs.md, Multiplier below 1): the
# program's microseconds times 1000, so a whole number of microseconds.
ds=$(($(csv_last bio "$S-sum") - s0))
[ "$ds" -gt 0 ] && [ "$ds" -lt 200000000000 ] && [ $((ds % 1000)) = 0 ] ||
	fail "the latency sum grew by $ds ns for $NR reads: not the program's microseconds"
pass "the latency sum (bucket bucket_max + 1) grew by $((ds / 1000)) us"
if ls "$WORK/csv/itest/ebpf-bio/" | grep -q -e "-[0-9]*_[0-9]*-read-"; then
	ls "$WORK/csv/itest/ebpf-bio/" >&2
	fail "a device reads as a number, not a name or unknown:M:m"
fi
stop_collectd
