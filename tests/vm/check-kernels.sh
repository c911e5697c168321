#!/bin/sh
# check-kernels.sh BUILDDIR SRCDIR CACHE: `make check-kernels`. Fetches the kernels of
# kernels.list into CACHE, builds an initramfs per kernel with this build's tests, boots the
# kernels under qemu (all at once), and prints one line per kernel x
# test x method:
#   PASS: <kernel release> <test> <method>
# The expected lines come from tests.list, so a VM that stopped early shows as FAIL lines, not
# as fewer lines. SKIP counts as a failure: every listed method must run on every kernel.
# The lines also go to BUILDDIR/tests/vm/results (for .ci/run), VM consoles to <release>.log.
set -eu
builddir=$1 srcdir=$2 cache=$3
here="$srcdir/tests/vm"
out="$builddir/tests/vm"
mkdir -p "$out"

missing=""
for tool in qemu-system-x86_64 busybox apt-get apt-cache dpkg-deb xz zstd timeout; do
	command -v "$tool" > /dev/null || missing="$missing $tool"
done
if [ -n "$missing" ]; then
	echo "check-kernels: missing:$missing. Install them: apt-get install qemu-system-x86 busybox-static xz-utils zstd" >&2
	exit 1
fi

start=$(date +%s)
kernels=$(sh "$here/fetch-kernels.sh" "$here/kernels.list" "$cache")
echo "check-kernels: kernels ready after $(($(date +%s) - start)) s: $(for k in $kernels; do basename "$k"; done | tr '\n' ' ')" >&2

# Every kernel at once, one vCPU each: TCG is bound by the host's cores either way, and with
# no batches a short VM never waits for a long one to end before the next boots.
for k in $kernels; do
	rel=$(basename "$k")
	sh "$here/build-initramfs.sh" "$builddir" "$srcdir" "$k" "$out/$rel.cpio"
	echo "check-kernels: booting $rel" >&2
	(sh "$here/run-kernel.sh" "$k" "$out/$rel.cpio" "$out/$rel.log" && echo 0 > "$out/$rel.status" ||
		echo 1 > "$out/$rel.status") &
done
wait
echo "check-kernels: VMs done after $(($(date +%s) - start)) s" >&2

# Per kernel: the result of every test x method of tests.list, then any other RESULT line
# (a module that did not load).
: > "$out/results"
for k in $kernels; do
	rel=$(basename "$k")
	log="$out/$rel.log"
	tr -d '\r' < "$log" > "$log.txt" 2> /dev/null || : > "$log.txt"
	grep -v '^#' "$here/tests.list" | while read -r test methods; do
		[ -n "$test" ] || continue
		for method in $(echo "$methods" | tr , ' '); do
			r=$(awk -v k="$rel" -v t="$test" -v m="$method" '$1 == "RESULT" && $2 == k && $3 == t && $4 == m { print $5 }' "$log.txt")
			if [ -n "$r" ]; then
				echo "$r $rel $test $method"
			else
				echo "FAIL $rel $test $method (no result: the VM stopped before this run)"
			fi
			if [ -n "$r" ] && [ "$r" != PASS ]; then
				# The run's output, for the failure to be read here rather than in the log.
				echo "check-kernels: output of $rel $test $method:" >&2
				awk -v b="==== BEGIN $test $method" -v e="==== END $test $method" \
					'$0 == b { p = 1; next } index($0, e) == 1 { p = 0 } p { print "    | " $0 }' "$log.txt" >&2
			fi
		done
	done >> "$out/results"
	awk '$1 == "RESULT" && $3 ~ /^module:/ { print $5, $2, $3, $4 }' "$log.txt" >> "$out/results"
	rm -f "$log.txt"
done
sed 's/^\([A-Z]*\) /\1: /' "$out/results"

pass=$(grep -c '^PASS ' "$out/results" || true)
fail=$(grep -c '^FAIL ' "$out/results" || true)
skip=$(grep -c '^SKIP ' "$out/results" || true)
echo "check-kernels: $pass passed, $fail failed, $skip skipped in $(($(date +%s) - start)) s (consoles: $out/<release>.log)"
status=0
[ "$fail" = 0 ] || status=1
if [ "$skip" != 0 ]; then
	echo "check-kernels: a skipped run is a failure here: tests.list must list only methods that run" >&2
	status=1
fi
for k in $kernels; do
	[ "$(cat "$out/$(basename "$k").status")" = 0 ] || status=1
done
exit $status
