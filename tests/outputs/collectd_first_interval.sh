#!/bin/sh
# A counter series born after the module's first read shows its first interval as a rate, in
# every writer (else 200 fsyncs in the first interval never appear: a DERIVE's first
# value yields no rate). The first time the plugin meets a series after a module's first read,
# it sends a 0 at the previous read's time, and the values from the next read on (never two
# values of one series in one read: collectd's write threads may write them in either order).
#
# The series: tests/programs/write_sizes.bpf.o counts write() calls by size for one command
# name, so derive-bytes_7 is born when the workload (dd under a name of its own) makes its N
# writes of 7 bytes, after the program's first read. One collectd sends to csv (raw values),
# rrdtool, write_graphite (StoreRates true) and the network plugin; a second collectd receives
# over the network and writes rates to csv (StoreRates true). Checked: csv has 0 then N; the
# graphite and network rates times the time between the two are N; rrdtool fetch has the burst.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"
. "$top_srcdir/tests/outputs/graphite_lib.sh"

command -v dd >/dev/null 2>&1 || skip "dd is missing"
cp "$STOCK_PLUGINDIR/network.so" "$WORK/plugins/" || skip "collectd plugin network.so missing from $STOCK_PLUGINDIR"
INTERVAL=2
N=200
SERIES=derive-bytes_7
OBJ="$WORK/objects"
install_objects "$OBJ" tests/programs/write_sizes.bpf.o
cp "$(command -v dd)" "$WORK/first_dd"
NET_PORT=$($GRAPHITE_CLIENT free-ports 1)

RECEIVER_PID=
first_cleanup() {
	[ -z "$RECEIVER_PID" ] || { kill "$RECEIVER_PID" 2>/dev/null || true; wait "$RECEIVER_PID" 2>/dev/null || true; }
	graphite_cleanup
}
trap first_cleanup EXIT INT TERM

start_carbon
start_graphite_web

# The receiver: network server, rates into a csv of its own.
mkdir -p "$WORK/receiver"
cat > "$WORK/receiver.conf" <<CONF
Hostname "receiver"
FQDNLookup false
Interval $INTERVAL
BaseDir "$WORK/receiver"
PIDFile "$WORK/receiver/collectd.pid"
PluginDir "$WORK/plugins"
TypesDB "$TYPESDB"
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$WORK/receiver.log"
</Plugin>
LoadPlugin network
<Plugin network>
  Listen "127.0.0.1" "$NET_PORT"
</Plugin>
LoadPlugin csv
<Plugin csv>
  DataDir "$WORK/receiver/csv"
  StoreRates true
</Plugin>
CONF
"$COLLECTD" -f -C "$WORK/receiver.conf" > "$WORK/receiver.stdout" 2>&1 &
RECEIVER_PID=$!
wait_for_log "Initialization complete" 20 "$WORK/receiver.log" || fail "the receiving collectd did not start"

{
	write_graphite_config | sed 's/StoreRates false/StoreRates true/'
	# The network plugin sends a packet when its 1452 bytes are full, which this program's few
	# series take several intervals to fill (the receiver once had t0's 0 and, 10 s later,
	# not t1's value): FlushInterval sends what is buffered every second, as a sender with
	# few values is configured.
	cat <<CONF
<LoadPlugin network>
  FlushInterval 1
</LoadPlugin>
<Plugin network>
  Server "127.0.0.1" "$NET_PORT"
</Plugin>
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
</Plugin>
CONF
} | write_config "$WORK/collectd.conf"
start_collectd "$WORK/collectd.conf"
# The program's first read is done once its map fill gauge is written; the workload's series
# is born after it.
wait_for_csv write_sizes percent-map_fill-writes 10 || fail "no first read of the program"
[ -z "$(csv_file write_sizes "$SERIES")" ] || fail "$SERIES exists before the workload"
"$WORK/first_dd" if=/dev/zero of=/dev/null bs=7 count=$N status=none || fail "dd failed"
wait_for_csv write_sizes "$SERIES" 10 || fail "no $SERIES after the workload"
CSV=$(csv_file write_sizes "$SERIES")
i=0
while [ "$(grep -c '^[0-9]' "$CSV")" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

# csv (raw): the 0 at the read before the workload, then N from the read after the one that met
# the series: two intervals later.
set -- $(grep '^[0-9]' "$CSV" | head -n 3 | tr ',' ' ')
[ $# = 6 ] || fail "$SERIES has fewer than 3 values: $(cat "$CSV")"
t0=$1 v0=$2 t1=$3 v1=$4
[ "$v0" = 0 ] && [ "$v1" = $N ] && [ "$6" = $N ] || fail "$SERIES in csv: $(cat "$CSV"), expected 0, then $N"
dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
awk -v d="$dt" -v i=$INTERVAL 'BEGIN { exit !(d > 1.5 * i && d < 2.5 * i) }' || fail "the 0 is $dt s before the value, not two intervals"
pass "csv: $SERIES is 0 at $t0 (the read before the workload), $N at $t1 ($dt s later)"

# network: the receiver's rate at t1, times the interval, is N.
RCSV=$(ls "$WORK/receiver/csv/itest/ebpf-write_sizes/$SERIES-"* 2>/dev/null | tail -n 1)
i=0
while ! grep -q "^$t1," "$RCSV" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1)); RCSV=$(ls "$WORK/receiver/csv/itest/ebpf-write_sizes/$SERIES-"* 2>/dev/null | tail -n 1)
done
rate=$(sed -n "s/^$t1,//p" "$RCSV" 2>/dev/null)
[ -n "$rate" ] || fail "the receiver has no $SERIES rate at $t1: $(cat "$RCSV" 2>/dev/null)"
# (csv prints times to the millisecond: the product is N within the rate times 2 ms)
awk -v r="$rate" -v d="$dt" -v n=$N 'BEGIN { e = r * d - n; exit !(e < r * 0.002 && -e < r * 0.002) }' ||
	fail "network: rate $rate at $t1 x $dt s is not $N"
pass "network -> receiving collectd -> csv StoreRates true: $rate/s at $t1, x $dt s = $N"

# graphite (StoreRates true): the point of t1, in whole seconds (write_graphite rounds t1 to
# the nearest; csv printed it to the millisecond, so either neighbour of the printed value).
G=itest.ebpf-write_sizes.$SERIES
near_t1='$2 > t - 1 && $2 < t + 1'
i=0
until g_render "$G" -5min | awk -v t="$t1" "$near_t1 { f = 1 } END { exit !f }"; do
	i=$((i + 1)); [ $i -lt 50 ] || gfail "graphite has no point of $G at $t1: $(g_render "$G" -5min | tr '\n' ' ')"
	sleep 0.2
done
set -- $(g_render "$G" -5min | awk -v t="$t1" "$near_t1 { print \$2, \$3 }" | tail -n 1)
sec=$1 grate=$2
awk -v r="$grate" -v d="$dt" -v n=$N 'BEGIN { e = r * d - n; exit !(e < r * 0.002 && -e < r * 0.002) }' ||
	gfail "graphite: rate $grate at $sec x $dt s is not $N"
pass "write_graphite StoreRates true -> carbon -> graphite-web: $grate/s at $sec, x $dt s = $N"

# rrdtool: rrdtool fetch shows the burst. The rrdtool plugin updates at whole seconds, each
# value's time rounded to the nearest (collectd's CDTIME_T_TO_TIME_T; truncating instead, as
# this test once did, failed when t0 and t1 rounded different ways: 200 / 3 s, not 200 / 4 s):
# the rate N / (round(t1) - round(t0)) is exactly the value of each step that lies wholly
# between them (there is one: they are two steps apart); a step cut by t0 or t1 averages over
# its known part, so rate x step over all the rows is N give or take a step's share.
stop_collectd
RRD="$WORK/rrd/itest/ebpf-write_sizes/$SERIES.rrd"
[ -f "$RRD" ] || fail "no $RRD"
r0=$(awk -v t="$t0" 'BEGIN { printf "%d", int(t + 0.5) }')
r1=$(awk -v t="$t1" 'BEGIN { printf "%d", int(t + 0.5) }')
"$RRDTOOL" fetch "$RRD" AVERAGE --start $((r0 - 10)) --end $((r1 + 10)) > "$WORK/fetch.out" || fail "rrdtool fetch failed"
sed 's/^/  fetch: /' "$WORK/fetch.out"
whole=$(awk -v a="$r0" -v b="$r1" -v step=$INTERVAL -v n=$N '
	/^[0-9]+:/ { s = $1 + 0; if (s - step >= a && s <= b) { r = n / (b - a); if ($2 + 0 > r * (1 - 1e-9) && $2 + 0 < r * (1 + 1e-9)) k++; else bad = bad " " $1 $2 } }
	END { if (bad != "" || k == 0) { print "steps within (t0, t1] not at " n / (b - a) ":" bad; exit 1 } print k }' "$WORK/fetch.out") ||
	fail "rrdtool fetch: $whole"
events=$(awk -v step=$INTERVAL '/^[0-9]+:/ && $2 != "-nan" && $2 != "nan" { s += $2 * step } END { printf "%.3f", s }' "$WORK/fetch.out")
awk -v e="$events" -v n=$N 'BEGIN { exit !(e >= n / 2 && e <= 2 * n) }' ||
	fail "rrdtool fetch: rate x step over the rows is $events, not the burst of $N"
pass "rrdtool fetch: the first interval's $N writes show as rates ($whole steps at exactly $N / $((r1 - r0)) s, $events events over the rows)"
