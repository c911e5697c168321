#!/bin/sh
# Runs every fuzzer for FUZZ_SECONDS (default 20) on a scratch copy of its seed corpus
# (libFuzzer adds what it finds to its first corpus directory; the tree's seeds stay as
# they are). A crash, a sanitizer report, a leak or a failed round trip fails the test and
# leaves the input as tests/fuzz/crash-<hash> in the build tree.
set -eu
: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"
seconds=${FUZZ_SECONDS:-20}
work=$(mktemp -d /tmp/ebpf-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT

for name in snapshot mib_view config decoders object exporter_config; do
	bin="$top_builddir/tests/fuzz/fuzz_$name"
	[ -x "$bin" ] || { echo "SKIP: $bin not built: configure found no clang with libFuzzer" >&2; exit 77; }
	mkdir "$work/$name"
	max_len=4096
	run_seconds=$seconds
	extra=
	if [ "$name" = object ]; then
		# Real objects, as the build made them (the loader's test objects and users' programs).
		cp "$top_builddir"/tests/programs/*.bpf.o "$top_builddir"/contrib/programs/*.bpf.o "$work/$name/"
		# The whole object, not its first 64 KiB: the seeds' BTF (what program_resolve
		# reads) lies past that in the larger ones.
		max_len=1048576
		# It forks a checker per input and runs the whole check, program_resolve included:
		# 200-280 inputs a second on Debian 12, 36 in CI's Debian 13 container (775 inputs in
		# 20 s there, short of the 1000 every fuzzer must run). So it runs a fixed number of
		# inputs, 1500, with a time cap far above the slowest machine's need (42 s there)
		# that only a hang would reach: the work, not the machine's speed, decides the count.
		run_seconds=300
		extra="-runs=1500"
	else
		cp "$top_srcdir/tests/fuzz/corpus/$name/"* "$work/$name/"
	fi
	"$bin" $extra -max_total_time="$run_seconds" -max_len=$max_len -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="$top_builddir/tests/fuzz/crash-" "$work/$name" 2>"$work/$name.log" ||
		{ tail -n 60 "$work/$name.log" >&2; echo "FAIL: fuzz_$name found a problem" >&2; exit 1; }
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
	[ "${runs:-0}" -gt 1000 ] || { cat "$work/$name.log" >&2; echo "FAIL: fuzz_$name ran only ${runs:-0} inputs" >&2; exit 1; }
	secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$work/$name.log")
	echo "ok: fuzz_$name: $runs inputs in ${secs:-?}s, every check of fuzz_$name.c held"
done
