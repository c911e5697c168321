#!/bin/sh
# Draws one series of the ebpf plugin from collectd's own rrdtool files: its latency
# percentiles and mean as lines, and its Bucket rates stacked (each band one bucket, so
# the top edge is the total rate and the bands show how it splits by latency).
#
#   sh contrib/rrd-graph.sh [-o PREFIX] [-s START] [-W WIDTH] [-H HEIGHT] [-t BUCKETTYPE] DIR SERIES
#
# DIR is the rrdtool plugin's DataDir/<host>/<plugin instance>, e.g.
# /var/lib/collectd/rrd/$(hostname)/ebpf-syscalls; SERIES the part of the file names after
# the type: fsync for latency-fsync-99.rrd and bucket-fsync-0_0.001.rrd. Writes
# PREFIX-latency.png and PREFIX-buckets.png (default PREFIX: ./SERIES), WIDTH x HEIGHT
# pixels each (default 800 x 300, the whole image), over START (rrdtool's --start, default
# -1h) to now, and prints each file and data source it drew as "FILE:DS", one a line.
set -eu
prog=rrd-graph.sh
die() { echo "$prog: $*" >&2; exit 1; }
usage() { echo "usage: $prog [-o PREFIX] [-s START] [-W WIDTH] [-H HEIGHT] [-t BUCKETTYPE] DIR SERIES" >&2; exit 2; }

prefix= start=-1h width=800 height=300 btype=bucket
while getopts o:s:W:H:t:h opt; do
	case $opt in
	o) prefix=$OPTARG ;;
	s) start=$OPTARG ;;
	W) width=$OPTARG ;;
	H) height=$OPTARG ;;
	t) btype=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 2 ] || usage
dir=$1 series=$2
prefix=${prefix:-./$series}
case "$width$height" in *[!0-9]*|"") die "-W and -H take a number of pixels, e.g. -W 800 -H 300" ;; esac
[ "$width" -ge 200 ] && [ "$height" -ge 100 ] || die "-W $width -H $height: the graph needs at least 200 x 100 pixels"
command -v rrdtool > /dev/null || die "rrdtool is not installed (apt-get install rrdtool)"
[ -d "$dir" ] || die "no directory $dir: give the rrdtool plugin's DataDir/<host>/<plugin instance>, e.g. /var/lib/collectd/rrd/$(hostname)/ebpf-syscalls"

# files TYPE PATTERN: the series' files of one type whose suffix (after TYPE-SERIES-) matches
# the extended regex PATTERN, as "SUFFIX FILE" lines.
files() {
	for f in "$dir/$1-$series-"*.rrd; do
		[ -f "$f" ] || continue
		suffix=${f##*/"$1-$series-"}; suffix=${suffix%.rrd}
		printf '%s\n' "$suffix" | grep -Eqx "$2" && printf '%s %s\n' "$suffix" "$f"
	done
	return 0
}
# Percentiles in their numeric order, the mean last; buckets by their lower bound.
latency=$(files latency '[0-9.]+' | sort -g; files latency average)
buckets=$(files "$btype" '[0-9.e+-]+_([0-9.e+-]+|inf)' | sort -t_ -k1,1g)
if [ -z "$latency" ] && [ -z "$buckets" ]; then
	there=$(ls "$dir" | sed -n 's/^latency-\(.*\)-average\.rrd$/\1/p' | tr '\n' ' ')
	die "no latency-$series-*.rrd or $btype-$series-*.rrd in $dir (series with a latency there: ${there:-none}; a series needs Percentile or Bucket options and one interval with events)"
fi

# Each file's data source: collectd writes one, "value", for these types.
ds_of() {
	rrdtool info "$1" | grep -q '^ds\[value\]\.type' || die "$1 has no data source \"value\" (not written by collectd's rrdtool plugin?)"
	echo value
}

colors="1f77b4 2ca02c bcbd22 ff7f0e d62728 9467bd 8c564b e377c2"
color() { echo "$colors" | cut -d' ' -f$(( ($1 - 1) % 8 + 1 )); }

# graph OUT TITLE LABEL LINES-OR-AREAS: one rrdtool graph of the (suffix, file) list on stdin.
graph() {
	out=$1 title=$2 label=$3 kind=$4
	set --
	i=0
	while read -r suffix f; do
		i=$((i + 1))
		ds=$(ds_of "$f")
		case $kind in
		line) legend=$([ "$suffix" = average ] && echo mean || echo "p$suffix")
		      draw="LINE2:v$i#$(color $i):$legend" ;;
		area) legend="($(echo "$suffix" | sed 's/_/, /')] s"
		      draw="AREA:v$i#$(color $i):$legend$([ $i -gt 1 ] && echo :STACK || true)" ;;
		esac
		set -- "$@" "DEF:v$i=$f:$ds:AVERAGE" "$draw"
		echo "$f:$ds" >> "$list"
	done
	rrdtool graph "$out" --start "$start" --end now --width "$width" --height "$height" --full-size-mode \
		--title "$title" --vertical-label "$label" --lower-limit 0 "$@" > /dev/null ||
		die "rrdtool graph $out failed"
	echo "$out" >> "$made"
}

list=$(mktemp) made=$(mktemp)
trap 'rm -f "$list" "$made"' EXIT
[ -z "$latency" ] || printf '%s\n' "$latency" | graph "$prefix-latency.png" "$series latency" seconds line
[ -z "$buckets" ] || printf '%s\n' "$buckets" | graph "$prefix-buckets.png" "$series by latency (stacked)" "events/s" area
cat "$list"
sed 's/^/wrote /' "$made" >&2
