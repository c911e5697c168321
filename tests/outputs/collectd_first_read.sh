#!/bin/sh
# A counter series the module meets at its first read shows that first interval as a rate:
# every counter was 0 when the module started, so the plugin sends that 0 at the start's time
# before the first read's value (else a DERIVE's first value yields no rate, and every
# collectd start or restart lost up to an interval of every counter in the graphs).
#
# A workload runs before collectd starts and through its first reads: dd under a name of its
# own writing 7-byte blocks (tests/programs/write_sizes.bpf.o counts them for that name), so
# that derive-bytes_7 has events when the program is first read (two modules loaded after it
# delay that). Checked: csv's first value
# is 0, at least a second before the first read's; the rrdtool file's rates over its steps
# have the first read's step as a rate.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

command -v dd >/dev/null 2>&1 || skip "dd is missing"
INTERVAL=2
SERIES=derive-bytes_7
OBJ="$WORK/objects"
install_objects "$OBJ" tests/programs/write_sizes.bpf.o
cp "$(command -v dd)" "$WORK/first_dd"
LOAD_PID=
trap '[ -z "$LOAD_PID" ] || kill "$LOAD_PID" 2>/dev/null || true; cleanup' EXIT INT TERM

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile ""
  <Program "write_sizes">
    Object "$OBJ/write_sizes.bpf.o"
    Param "comm" "first_dd"
    <Counter "writes">
      <Label "size">
        Size 8
      </Label>
      TypeInstance "bytes_%{size}"
    </Counter>
  </Program>
  # Loaded after the program (modules start in order) and read only once all have started:
  # the program counts for a while before its first read, as with the default set.
  <Module "syscalls">
    Latency "all"
  </Module>
  <Module "vfs">
  </Module>
</Plugin>
CONF
# 100 writes every 0.1 s, from before the start on.
sh -c 'while :; do "$1" if=/dev/zero of=/dev/null bs=7 count=100 status=none; sleep 0.1; done' sh "$WORK/first_dd" &
LOAD_PID=$!
start_collectd "$WORK/collectd.conf"
wait_for_csv write_sizes "$SERIES" 10 || fail "no $SERIES"
CSV=$(csv_file write_sizes "$SERIES")
i=0
while [ "$(grep -c '^[0-9]' "$CSV")" -lt 4 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill "$LOAD_PID"
LOAD_PID=
stop_collectd

set -- $(grep '^[0-9]' "$CSV" | head -n 2 | tr ',' ' ')
t0=$1 v0=$2 t1=$3 v1=$4
[ "$v0" = 0 ] || fail "$SERIES's first value in csv is $v0, not the 0 of the module's start: $(head -n 4 "$CSV" | tr '\n' ' ')"
[ "$v1" -gt 0 ] || fail "$SERIES's first read is $v1: the workload was not counted before it"
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 1) }' || fail "the 0 at $t0 is less than a second before the first read at $t1"
pass "csv: $SERIES is 0 at $t0 (the module's start), $v1 at $t1 (the read after the one that met it)"

RRD="$WORK/rrd/itest/ebpf-write_sizes/$SERIES.rrd"
[ -f "$RRD" ] || fail "no $RRD"
r0=$(awk -v t="$t0" 'BEGIN { printf "%d", int(t + 0.5) }')
r1=$(awk -v t="$t1" 'BEGIN { printf "%d", int(t + 0.5) }')
"$RRDTOOL" fetch "$RRD" AVERAGE --start $((r0 - 10)) --end $((r1 + 10)) > "$WORK/fetch.out" || fail "rrdtool fetch failed"
# The step that ends at or after the first read (the rrdtool plugin rounds each time to the
# nearest second) has a rate: without the 0 it is unknown, a DERIVE's first value giving none.
first=$(awk -v r="$r1" -F': ' '/^[0-9]+:/ && $1 + 0 >= r { print $2; exit }' "$WORK/fetch.out")
awk -v v="$first" 'BEGIN { exit !(v + 0 > 0) }' ||
	{ sed 's/^/  fetch: /' "$WORK/fetch.out"; fail "rrdtool has '$first' for the first read's step: the first interval is lost from the graph"; }
pass "rrdtool: the first read's step is $first writes/s"
