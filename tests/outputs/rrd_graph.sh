#!/bin/sh
# contrib/rrd-graph.sh on the RRD files a real collectd writes: fsync latency percentiles
# as lines, bucket rates stacked and as a heatmap, three PNGs of exactly the size asked for,
# drawn from every latency and bucket file of the series (and only from files and data
# sources that exist); the heatmap's peak, which its colours are fractions of, is the
# highest bucket rate collectd stored; a missing directory or series is a clear error.
. "$top_srcdir/tests/support/lib.sh"

RRDTOOL=${RRDTOOL:-$(command -v rrdtool || true)}
[ -n "$RRDTOOL" ] || fail "rrdtool is not installed (contrib/debian-setup.sh installs it)"
FSYNC_N="$top_builddir/tests/support/fsync_n"
GRAPH="$top_srcdir/contrib/rrd-graph.sh"

write_config "$WORK/collectd.conf" <<'CONF'
<Plugin ebpf>
  SnapshotFile ""
  <Module "syscalls">
    Latency "fsync"
    Percentile 50
    Percentile 99
    Bucket 0 0.0001
    Bucket 0.0001 0.001
    Bucket 0.001 0.01
    Bucket 0.01 0
  </Module>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"
for i in 1 2 3 4 5 6; do "$FSYNC_N" 40; sleep 1; done
DIR="$WORK/rrd/itest/ebpf-syscalls"
[ -f "$DIR/latency-fsync-99.rrd" ] || fail "collectd wrote no latency-fsync-99.rrd"

t0=$(date +%s)
sh "$GRAPH" -o "$WORK/fsync" -W 640 -H 240 -s -1min "$DIR" fsync > "$WORK/drawn" 2> "$WORK/graph.err" ||
	{ cat "$WORK/graph.err" >&2; fail "rrd-graph.sh failed"; }
cat "$WORK/drawn" "$WORK/graph.err"

# png_size FILE: "WIDTH HEIGHT" from the IHDR chunk, after checking the PNG signature.
png_size() {
	[ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = 89504e470d0a1a0a ] || { echo "not a PNG"; return; }
	od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%d %d\n", $1 * 16777216 + $2 * 65536 + $3 * 256 + $4, $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }'
}
for g in latency buckets heatmap; do
	[ -s "$WORK/fsync-$g.png" ] || fail "no $WORK/fsync-$g.png"
	size=$(png_size "$WORK/fsync-$g.png")
	[ "$size" = "640 240" ] || fail "fsync-$g.png is $size, expected 640 240"
done
pass "three PNGs of 640 x 240 pixels"

# Every file it names exists and has the data source it names; together they are all the
# series' latency and bucket files.
while IFS= read -r line; do
	f=${line%:*} ds=${line##*:}
	[ -f "$f" ] || fail "it drew $f, which does not exist"
	"$RRDTOOL" info "$f" | grep -q "^ds\[$ds\]\.type" || fail "$f has no data source $ds"
done < "$WORK/drawn"
ls "$DIR"/latency-fsync-*.rrd "$DIR"/bucket-fsync-*.rrd | sort > "$WORK/expected"
sed 's/:[^:]*$//' "$WORK/drawn" | sort > "$WORK/named"
cmp -s "$WORK/expected" "$WORK/named" || { diff "$WORK/expected" "$WORK/named" >&2; fail "the graphs do not draw exactly the series' files"; }
[ "$(grep -c '/latency-fsync-' "$WORK/drawn")" = 3 ] || fail "expected p50, p99 and the mean"
grep -q '/bucket-fsync-' "$WORK/drawn" || fail "no bucket file drawn"
# Stacked from the fastest bucket up: lower bounds ascending.
sed -n 's|.*/bucket-fsync-\([^_]*\)_.*|\1|p' "$WORK/drawn" | sort -c -g || fail "buckets not in order of their lower bound"
# And the latency drawn is a real number of seconds collectd stored.
"$RRDTOOL" fetch "$DIR/latency-fsync-99.rrd" AVERAGE -s -10min | awk -F: 'NR > 2 && $2 !~ /nan/ { ok = 1 } END { exit !ok }' ||
	fail "latency-fsync-99.rrd holds no value"
pass "every file and data source drawn exists: $(wc -l < "$WORK/drawn") series"

# The heatmap colours each cell by its rate over the peak: the peak must be the highest rate
# of any bucket file over the graph's minute (which holds [t0 - 50 s, t0]), and one that
# collectd stored (seen over a wider window).
peak=$(sed -n 's/^heatmap peak: \([0-9.e+-]*\) events\/s$/\1/p' "$WORK/graph.err")
[ -n "$peak" ] || fail "rrd-graph.sh printed no heatmap peak"
# rates FROM TO: every known bucket rate stored between the two times, one a line.
rates() {
	for f in "$DIR"/bucket-fsync-*.rrd; do
		"$RRDTOOL" fetch "$f" AVERAGE -s "$1" -e "$2" | awk -F': ' 'NR > 2 && $2 !~ /nan/ { printf "%.10g\n", $2 }'
	done
}
inside=$(rates $((t0 - 50)) "$t0" | sort -g | tail -n 1)
awk -v p="$peak" -v m="$inside" 'BEGIN { exit !(m > 0 && p >= m * (1 - 1e-6)) }' ||
	fail "heatmap peak $peak is below the highest bucket rate $inside in the graph's window"
rates $((t0 - 70)) now | awk -v p="$peak" '$1 >= p * (1 - 1e-6) && $1 <= p * (1 + 1e-6) { found = 1 } END { exit !found }' ||
	fail "heatmap peak $peak is no bucket rate collectd stored"
pass "heatmap peak $peak events/s is the highest bucket rate stored"

if sh "$GRAPH" "$WORK/nonexistent" fsync 2> "$WORK/nodir.err"; then fail "a missing directory exited 0"; fi
grep -q "no directory $WORK/nonexistent: give the rrdtool plugin's DataDir" "$WORK/nodir.err" ||
	fail "unclear error for a missing directory: $(cat "$WORK/nodir.err")"
if sh "$GRAPH" -o "$WORK/x" "$DIR" nosuch 2> "$WORK/noseries.err"; then fail "an unknown series exited 0"; fi
grep -q "no latency-nosuch-\*.rrd or bucket-nosuch-\*.rrd in $DIR (series with a latency there: fsync" "$WORK/noseries.err" ||
	fail "unclear error for an unknown series: $(cat "$WORK/noseries.err")"
[ ! -e "$WORK/x-latency.png" ] || fail "a PNG was written for an unknown series"
pass "missing directory and unknown series give clear errors"
stop_collectd
# The graphs of this run stay in the build tree, to look at.
cp "$WORK/fsync-latency.png" "$WORK/fsync-buckets.png" "$WORK/fsync-heatmap.png" "$top_builddir/tests/outputs/"
