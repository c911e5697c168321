#!/bin/sh
# .ci/slowest-tests.sh BUILDDIR [N]: the N (default 15) slowest tests of that build's last
# `make check`, slowest first, from the "test-time:" line tests/support/lock_run.sh ends each
# test's .log with; then the sum of their run times (the kernel tests run one at a time under
# the test lock, so that sum is most of a pass's wall time).
# .ci/slowest-tests.sh --kernels VMDIR [N]: the same for the kernel matrix, from the
# "==== END <test> <method> rc=N time=Ns" lines of the VM consoles (VMDIR/<release>.log).
usage() { echo "usage: $0 BUILDDIR [N] | --kernels VMDIR [N]" >&2; exit 2; }
[ $# -ge 1 ] || usage
kernels=
if [ "$1" = --kernels ]; then
	kernels=1
	shift
	[ $# -ge 1 ] || usage
fi
dir=$1 n=${2:-15}
[ -d "$dir" ] || { echo "$0: $dir: no such directory" >&2; exit 2; }

# durations: one line per test or run, "<seconds> <what>".
durations() {
	if [ -n "$kernels" ]; then
		for log in "$dir"/*.log; do
			[ -f "$log" ] || continue
			rel=${log##*/}
			tr -d '\r' < "$log" | awk -v k="${rel%.log}" '$1 == "====" && $2 == "END" && $NF ~ /^time=/ {
				t = $NF; sub(/^time=/, "", t); sub(/s$/, "", t); print t, k, $3, $4 }'
		done
		return
	fi
	for log in "$dir"/tests/*/*.log; do
		line=$(grep '^test-time: ' "$log" 2> /dev/null | tail -n 1)
		[ -n "$line" ] || continue
		# "test-time: RUN s ran, WAIT s waited for the lock"
		set -- $line
		name=${log#"$dir"/}
		printf '%s (%4d s waiting for the lock)  %s\n' "$2" "$5" "${name%.log}"
	done
}

durations | sort -k1,1nr | awk -v n="$n" -v what="${kernels:+runs (the VMs run at once)}" '
	{ s += $1; c++ }
	NR <= n { t = $1; $1 = ""; printf "  %5d s %s\n", t, $0 }
	END { printf "  %5d s  run time of all %d %s\n", s, c, what == "" ? "tests" : what }'
