#!/bin/sh
# SEC("perf_event") programs in the real collectd: tests/exporter/perf_event_samples.bpf.c
# counts, per CPU, the samples of the perf event it is attached to. Loaded through a
# <Program> block with <PerfEvent> and through ExporterConfig with ebpf_exporter's
# perf_events (tests/exporter/perf_event_samples.yaml, llcstat's shape), and through the block
# collectd-ebpf-import prints of that YAML, it runs on the
# software event cpu-clock at 99 samples a second on each online CPU: every CPU counts, and
# the total grows at that rate (bounds wide for a loaded machine: more than 0, less than 10
# times 99 x CPUs x seconds). A hardware cache event on a machine without the CPU's
# performance counters (a VM without a PMU, as the test VM) keeps the program off with an
# error naming the event and the software event to use; with a PMU it attaches.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

OBJ="$WORK/objects"
install_exporter_configs "$OBJ" perf_event_samples
CPUS=$(online_cpus | wc -l)
FREQ=99

# conf NAME BODY: $WORK/NAME.conf with <Program "perf"> of that body.
conf() {
	write_config "$WORK/$1.conf" <<CONF
<Plugin ebpf>
  SnapshotFile ""
  <Program "perf">
$(printf '%b\n' "$2" | sed 's/^/    /')
  </Program>
</Plugin>
CONF
}

# samples_sum: the newest count of every CPU, summed; CPUS_COUNTING: how many CPUs have one.
samples_sum() {
	SUM=0 CPUS_COUNTING=0
	# derive-<cpu>-<date> from <Counter>, derive-samples-<cpu>-<date> from the YAML's metric,
	# derive-section_samples-<cpu>-<date> from exporter_perf_section.yaml's
	for f in "$WORK"/csv/itest/ebpf-perf/derive-[0-9]* "$WORK"/csv/itest/ebpf-perf/derive-samples-[0-9]* \
		"$WORK"/csv/itest/ebpf-perf/derive-section_samples-[0-9]*; do
		[ -f "$f" ] || continue
		v=$(tail -n 1 "$f" | cut -d, -f2)
		case "$v" in '' | value) continue ;; esac
		SUM=$((SUM + ${v%.*})) CPUS_COUNTING=$((CPUS_COUNTING + 1))
	done
}
every_cpu_counts() { samples_sum; [ "$CPUS_COUNTING" -eq "$CPUS" ] && [ "$SUM" -gt 0 ]; }

# runs NAME: collectd with NAME.conf; the program attaches, every CPU counts, and the sum
# after a measured time is within the bounds.
runs() {
	rm -rf "$WORK/csv" "$WORK/collectd.log"
	"$COLLECTD" -T -C "$WORK/$1.conf" > "$WORK/$1.t" 2>&1 || { cat "$WORK/$1.t" >&2; fail "$1: collectd -T refused it"; }
	start=$(date +%s)
	start_collectd "$WORK/$1.conf"
	wait_until 15 every_cpu_counts ||
		fail "$1: $CPUS_COUNTING of $CPUS CPUs have counted samples (sum $SUM) after 15 s: files $(ls "$WORK/csv/itest/ebpf-perf" 2>&1)"
	sleep 3
	samples_sum
	elapsed=$(($(date +%s) - start + 1))
	stop_collectd
	most=$((10 * FREQ * CPUS * elapsed))
	echo "$1: $SUM samples on $CPUS_COUNTING CPUs in at most $elapsed s at $FREQ a second each (expected about $((FREQ * CPUS * elapsed)), bound $most)"
	[ "$SUM" -gt 0 ] && [ "$SUM" -lt "$most" ] || fail "$1: $SUM samples is not within 0 and $most"
	grep -q "module \"perf\" is off" "$WORK/collectd.log" && fail "$1: the program went off"
	pass "$1: on_sample runs on cpu-clock on all $CPUS CPUs, $SUM samples in ${elapsed} s"
}

COUNTER='<Counter "samples_total">\n <Label "cpu">\n  Size 4\n </Label>\n</Counter>'
conf program "Object \"$OBJ/perf_event_samples.bpf.o\"\n<PerfEvent \"on_sample\">\n Type \"software\"\n Config \"cpu-clock\"\n SampleFrequency $FREQ\n</PerfEvent>\n$COUNTER"
runs program
conf exporter "ExporterConfig \"$OBJ/perf_event_samples.yaml\""
runs exporter
# The YAML printed as a <Program> block by collectd-ebpf-import: its perf_events as <PerfEvent>.
"$top_builddir/collectd-ebpf-import" "$OBJ/perf_event_samples.yaml" > "$WORK/imported.block" ||
	fail "collectd-ebpf-import refused perf_event_samples.yaml"
grep -q '<PerfEvent "on_sample">' "$WORK/imported.block" || { cat "$WORK/imported.block" >&2; fail "the imported block has no <PerfEvent>"; }
conf imported "$(grep -v '^#' "$WORK/imported.block" | sed '1d;$d')"
runs imported

# ebpf_exporter's sections that name their event (llcstat's SEC("perf_event/type=0,config=3,
# frequency=1")), with no perf_events: entry (tests/exporter/exporter_perf_section.yaml):
# on_sample runs on its section's cpu-clock at 99 a second, on every CPU, counted as above;
# on_miss's hardware event is replaced by a <PerfEvent> block of a software event, and counts.
install_exporter_configs "$OBJ" exporter_perf_section
conf section "ExporterConfig \"$OBJ/exporter_perf_section.yaml\"\n<PerfEvent \"on_miss\">\n Type \"software\"\n Config \"cpu-clock\"\n SampleFrequency $FREQ\n</PerfEvent>"
runs section
replaced=$(cat "$WORK"/csv/itest/ebpf-perf/derive-section_misses-[0-9]* 2>/dev/null | grep -c '^[0-9.]*,[1-9]') ||
	fail "section: on_miss, its section's event replaced by <PerfEvent>, counted nothing: $(ls "$WORK/csv/itest/ebpf-perf")"
pass "section: on_miss runs on the <PerfEvent> that replaces its section's event ($replaced values above 0)"
# Its section's own hardware event: on this machine's PMU, or the error that there is none.
conf section_hw "ExporterConfig \"$OBJ/exporter_perf_section.yaml\""
rm -f "$WORK/collectd.log"
if grep -qx 4 /sys/bus/event_source/devices/*/type; then
	"$COLLECTD" -T -C "$WORK/section_hw.conf" > "$WORK/section_hw.t" 2>&1 || { cat "$WORK/section_hw.t" >&2; fail "section_hw: this machine has a PMU, yet collectd -T refused the section's cache misses event"; }
	pass "section_hw: this machine has a PMU, and the section's cache misses event attached"
else
	"$COLLECTD" -T -C "$WORK/section_hw.conf" > "$WORK/section_hw.t" 2>&1 && { cat "$WORK/section_hw.t" >&2; fail "section_hw: no PMU here, yet collectd -T started on_miss"; }
	cpu0=$(cut -d, -f1 /sys/devices/system/cpu/online | cut -d- -f1)
	grep -F 'program "on_miss" (SEC("perf_event/type=0,config=3,frequency=1")): this machine has no hardware event cache-misses (perf_event_open on CPU '"$cpu0"': ' "$WORK/collectd.log" |
		grep -F 'the kernel refused it because it has no PMU' |
		grep -qF 'count a software event instead (Type "software" Config "cpu-clock" in a <PerfEvent "on_miss"> block, which replaces the section'"'"'s event)' ||
		fail "section_hw: collectd -T's error does not name the section, the PMU and the fix"
	pass "section_hw: no PMU here: $(grep -o 'program "on_miss".*' "$WORK/collectd.log" | head -n 1)"
fi

# A hardware cache event: on this machine's PMU, or the error that there is none.
conf hw_cache "Object \"$OBJ/perf_event_samples.bpf.o\"\n<PerfEvent \"on_sample\">\n Type \"hw_cache\"\n Config \"LLC-load-misses\"\n SamplePeriod 10000\n</PerfEvent>\n$COUNTER"
rm -f "$WORK/collectd.log"
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	"$COLLECTD" -T -C "$WORK/hw_cache.conf" > "$WORK/hw_cache.t" 2>&1 || { cat "$WORK/hw_cache.t" >&2; fail "hw_cache: this machine has a PMU, yet collectd -T refused LLC-load-misses"; }
	pass "hw_cache: this machine has a PMU, and LLC-load-misses attached"
	exit 0
fi
cpu0=$(cut -d, -f1 /sys/devices/system/cpu/online | cut -d- -f1)
expected="<PerfEvent \"on_sample\">: this machine has no hw_cache event LLC-load-misses (perf_event_open on CPU $cpu0: "
fix='count a software event instead (Type "software" Config "cpu-clock")'
# has_error FILE: FILE has the error, with the fix.
has_error() { grep -F -- "$expected" "$1" | grep -qF -- "$fix"; }
if "$COLLECTD" -T -C "$WORK/hw_cache.conf" > "$WORK/hw_cache.t" 2>&1; then
	cat "$WORK/hw_cache.t" >&2
	fail "hw_cache: no PMU here, yet collectd -T started the program"
fi
has_error "$WORK/collectd.log" || fail "hw_cache: collectd -T's error is not \"$expected...$fix\""
pass "hw_cache: no PMU here: collectd -T stops with: $(grep -o '<PerfEvent.*' "$WORK/collectd.log" | head -n 1)"
rm -f "$WORK/collectd.log"
start_collectd "$WORK/hw_cache.conf"
wait_for_log 'module "perf" is off' 10 || fail "hw_cache: no PMU here, yet the program did not go off in collectd"
stop_collectd
has_error "$WORK/collectd.log" || fail "hw_cache: collectd's log has not the error \"$expected...$fix\""
pass "hw_cache: collectd keeps the program off with the same error"
