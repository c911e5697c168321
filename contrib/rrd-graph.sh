#!/bin/sh
# Draws one series of the ebpf plugin from collectd's own rrdtool files: its latency
# percentiles and mean as lines, its Bucket rates stacked (each band one bucket, so the top
# edge is the total rate and the bands show how it splits by latency), and the same rates as
# a heatmap (one row per bucket, fastest at the bottom; each cell coloured by the bucket's
# rate as a fraction of the highest rate any bucket had in the graph, in halvings).
#
#   sh contrib/rrd-graph.sh [-o PREFIX] [-s START] [-W WIDTH] [-H HEIGHT] [-t BUCKETTYPE] DIR SERIES
#
# DIR is the rrdtool plugin's DataDir/<host>/<plugin instance>, e.g.
# /var/lib/collectd/rrd/$(hostname)/ebpf-syscalls; SERIES the part of the file names after
# the type: fsync for latency-fsync-99.rrd and bucket-fsync-0_0.001.rrd. Writes
# PREFIX-latency.png, PREFIX-buckets.png and PREFIX-heatmap.png (default PREFIX: ./SERIES),
# WIDTH x HEIGHT pixels each (default 800 x 300, the whole image), over START (rrdtool's
# --start, default -1h) to now, and prints each file and data source it drew as "FILE:DS",
# one a line, and the heatmap's peak rate on stderr.
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

# rrd ARGS...: rrdtool ARGS, tried again (for up to 2 s) while a running collectd's rrdtool
# plugin holds the lock of a file it is writing: rrdtool does not wait for it.
rrd() {
	tries=1
	until rrdtool "$@" 2> "$errors"; do
		if ! grep -q 'could not lock RRD' "$errors" || [ $tries -ge 10 ]; then
			cat "$errors" >&2
			return 1
		fi
		tries=$((tries + 1))
		sleep 0.2
	done
}

# Each file's data source: collectd writes one, "value", for these types.
ds_of() {
	info=$(rrd info "$1") || die "rrdtool info $1 failed"
	printf '%s\n' "$info" | grep -q '^ds\[value\]\.type' || die "$1 has no data source \"value\" (not written by collectd's rrdtool plugin?)"
	echo value
}

colors="1f77b4 2ca02c bcbd22 ff7f0e d62728 9467bd 8c564b e377c2"
color() { echo "$colors" | cut -d' ' -f$(( ($1 - 1) % 8 + 1 )); }
# range SUFFIX: a bucket's bounds as its legend, "(0.001, 0.01] s".
range() { echo "($(echo "$1" | sed 's/_/, /')] s"; }
# def I FILE: the DEF of vI, noting FILE:DS as drawn.
def() {
	ds=$(ds_of "$2")
	echo "$2:$ds" >> "$list"
	echo "DEF:v$1=$2:$ds:AVERAGE"
}

# render OUT TITLE LABEL RRDTOOL-ARGS...: one PNG of the common size and time range; what it
# PRINTs is in $printed.
render() {
	out=$1 title=$2 label=$3
	shift 3
	rrd graph "$out" --start "$start" --end "$end" --width "$width" --height "$height" --full-size-mode \
		--title "$title" --vertical-label "$label" "$@" > "$printed" ||
		die "rrdtool graph $out failed"
	echo "$out" >> "$made"
}

# graph OUT TITLE LABEL line|area: percentiles as lines or buckets stacked, from the
# (suffix, file) list on stdin.
graph() {
	out=$1 title=$2 label=$3 kind=$4
	set --
	i=0
	while read -r suffix f; do
		i=$((i + 1))
		case $kind in
		line) legend=$([ "$suffix" = average ] && echo mean || echo "p$suffix")
		      draw="LINE2:v$i#$(color $i):$legend" ;;
		area) draw="AREA:v$i#$(color $i):$(range "$suffix")$([ $i -gt 1 ] && echo :STACK || true)" ;;
		esac
		d=$(def $i "$f")
		set -- "$@" "$d" "$draw"
	done
	render "$out" "$title" "$label" --lower-limit 0 "$@"
}

# The heatmap's colours, hottest first: a cell whose rate r is in (LOW, HIGH] x peak, where
# peak is the highest rate of any bucket in the graph. A cell with r = 0 is white, one
# without data grey.
heat_levels() {
	cat <<-LEVELS
	0.5 1 b10026 (1/2, 1]
	0.25 0.5 e31a1c (1/4, 1/2]
	0.125 0.25 fc4e2a (1/8, 1/4]
	0.0625 0.125 fd8d3c (1/16, 1/8]
	0.03125 0.0625 feb24c (1/32, 1/16]
	0.015625 0.03125 fed976 (1/64, 1/32]
	0 0.015625 ffffb2 (0, 1/64]
	LEVELS
}

# heatmap OUT TITLE: the bucket rates of the (suffix, file) list on stdin, one row each,
# fastest at the bottom. rrdtool colours an area, not a point, so each row is a stack of one
# area per colour, each 1 high where the bucket's rate falls in its range and 0 elsewhere:
# exactly one of them is 1 at every step, so every row is 1 high and shows its colour.
heatmap() {
	out=$1 title=$2
	set --
	n=0 all= rows=
	while read -r suffix f; do
		n=$((n + 1))
		d=$(def $n "$f")
		set -- "$@" "$d"
		all=${all:+$all,}v$n$([ $n -gt 1 ] && echo ,MAXNAN || true)
		rows="$rows$n $(range "$suffix")
"
	done
	set -- "$@" "CDEF:all=$all" "VDEF:peak=all,MAXIMUM" PRINT:peak:%.10lg
	i=0
	while [ $i -lt $n ]; do
		i=$((i + 1))
		# vI as a fraction of the peak (a peak of 0 has only zero cells: divide by 1).
		set -- "$@" "CDEF:f$i=v$i,peak,0,GT,peak,1,IF,/" "CDEF:u$i=v$i,UN" "CDEF:z$i=v$i,UN,0,v$i,0,LE,IF"
		if [ $i = 1 ]; then
			set -- "$@" "AREA:u$i#bdbdbd:no data" "AREA:z$i#ffffff:0:STACK"
		else
			set -- "$@" "AREA:u$i#bdbdbd::STACK" "AREA:z$i#ffffff::STACK"
		fi
		k=0
		while read -r low high colour legend; do
			k=$((k + 1))
			set -- "$@" "CDEF:h${i}_$k=v$i,UN,0,f$i,$low,GT,f$i,$high,LE,*,IF" \
				"AREA:h${i}_$k#$colour:$([ $i = 1 ] && echo "$legend x peak" || true):STACK"
		done <<-LEVELS
		$(heat_levels)
		LEVELS
	done
	set -- "$@" "COMMENT:\n" "COMMENT:peak rate (any bucket)\: " "GPRINT:peak:%.3lf events/s\n" "COMMENT:rows, fastest at the bottom\:"
	while read -r row; do
		[ -z "$row" ] || set -- "$@" "COMMENT:  $row"
	done <<-ROWS
	$rows
	ROWS
	# A line between rows.
	i=1
	while [ $i -lt $n ]; do
		set -- "$@" "HRULE:$i#909090"
		i=$((i + 1))
	done
	render "$out" "$title" buckets --lower-limit 0 --upper-limit "$n" --rigid --y-grid none "$@"
	sed -n 2p "$printed"
}

list=$(mktemp) made=$(mktemp) printed=$(mktemp) errors=$(mktemp)
trap 'rm -f "$list" "$made" "$printed" "$errors"' EXIT
# One end for all graphs, so that they show the same time range.
end=$(date +%s)
[ -z "$latency" ] || printf '%s\n' "$latency" | graph "$prefix-latency.png" "$series latency" seconds line
if [ -n "$buckets" ]; then
	printf '%s\n' "$buckets" | graph "$prefix-buckets.png" "$series by latency (stacked)" "events/s" area
	peak=$(printf '%s\n' "$buckets" | heatmap "$prefix-heatmap.png" "$series by latency (heatmap)")
	case $peak in
	*[nN]a[nN]*) echo "heatmap: no bucket has a value from $start to now (all grey)" >&2 ;;
	*) echo "heatmap peak: $peak events/s" >&2 ;;
	esac
fi
# Each file and data source once, in the order first drawn.
awk '!seen[$0]++' "$list"
sed 's/^/wrote /' "$made" >&2
