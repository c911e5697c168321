#!/bin/sh
# .ci/slowest-tests.sh BUILDDIR [N]: the N (default 15) slowest tests of that build's last
# `make check`, slowest first, from the "test-time:" line tests/support/lock_run.sh ends each
# test's .log with; then the sum of their run times (the kernel tests run one at a time under
# the test lock, so that sum is most of a pass's wall time).
# .ci/slowest-tests.sh --kernels VMDIR [N]: the same for the kernel matrix, from the
# "==== END <test> <method> rc=N time=Ns" lines of the VM consoles (VMDIR/<release>.log).
n=${3:-15}
list=$(mktemp)
trap 'rm -f "$list"' EXIT
if [ "$1" = --kernels ]; then
	for log in "$2"/*.log; do
		[ -f "$log" ] || continue
		rel=${log##*/}
		tr -d '\r' < "$log" | awk -v k="${rel%.log}" '$1 == "====" && $2 == "END" && $NF ~ /^time=/ {
			t = $NF; sub(/^time=/, "", t); sub(/s$/, "", t); print t, k, $3, $4 }'
	done | sort -k1,1nr > "$list"
	head -n "$n" "$list" | awk '{ printf "  %5d s  %s %s %s\n", $1, $2, $3, $4 }'
	awk '{ s += $1; n++ } END { printf "  %5d s  run time of all %d runs (the VMs run at once)\n", s, n }' "$list"
	exit 0
fi
dir=$1 n=${2:-15}
for log in "$dir"/tests/*/*.log; do
	[ -f "$log" ] || continue
	line=$(grep '^test-time: ' "$log" | tail -n 1)
	[ -n "$line" ] || continue
	# "test-time: RUN s ran, WAIT s waited for the lock"
	set -- $line
	printf '%s %s %s\n' "$2" "$5" "${log#"$dir"/}"
done | sort -k1,1nr > "$list"
head -n "$n" "$list" | awk '{ printf "  %5d s  (%4d s waiting for the lock)  %s\n", $1, $2, substr($3, 1, length($3) - 4) }'
awk '{ s += $1; n++ } END { printf "  %5d s  run time of all %d tests\n", s, n }' "$list"
