#!/bin/sh
# Runs every fuzzer on a scratch copy of its seed corpus (libFuzzer adds what it finds to
# its first corpus directory; the tree's seeds stay as they are), in two parts: a fixed
# number of inputs (FUZZ_RUNS, default 2000), so that the work, not the machine's load,
# decides how much is checked, then FUZZ_SECONDS (default 8) more on the corpus the first
# part grew. A time alone was not enough: CI's sanitized pass gives each fuzzer 2 s, and
# fuzz_mib_tree, beside two CPU-bound tests, once ran 151 inputs in them (16 a second; 11,000
# on an idle machine). A crash, a sanitizer report, a leak or a failed round trip fails the
# test and leaves the input as tests/fuzz/crash-<hash> in the build tree.
set -eu
: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"
seconds=${FUZZ_SECONDS:-8}
min_runs=${FUZZ_RUNS:-2000}
work=$(mktemp -d /tmp/ebpf-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT

for name in snapshot mib_tree config decoders object exporter_config; do
	bin="$top_builddir/tests/fuzz/fuzz_$name"
	[ -x "$bin" ] || { echo "SKIP: $bin not built: configure found no clang with libFuzzer" >&2; exit 77; }
	mkdir "$work/$name"
	max_len=4096
	runs_needed=$min_runs
	if [ "$name" = object ]; then
		# Real objects, as the build made them (the loader's test objects and users' programs).
		# One of each name: a build tree from before the tests moved to tests/<component>/
		# still has the exporter objects in tests/programs/ too.
		for o in "$top_builddir"/tests/programs/*.bpf.o "$top_builddir"/tests/exporter/*.bpf.o \
			"$top_builddir"/contrib/programs/*.bpf.o; do
			[ -e "$work/$name/${o##*/}" ] || cp "$o" "$work/$name/"
		done
		# The whole object, not its first 64 KiB: the seeds' BTF (what program_resolve
		# reads) lies past that in the larger ones.
		max_len=1048576
		# It forks a checker per input and runs the whole check, program_resolve included:
		# 200-280 inputs a second on Debian 12, 36 in CI's Debian 13 container. So its
		# fixed part is 1500 inputs (42 s there).
		runs_needed=1500
	else
		cp "$top_srcdir/tests/fuzz/corpus/$name/"* "$work/$name/"
	fi
	# The fixed part's time cap is far above the slowest machine's need; only a hang reaches it.
	"$bin" -runs="$runs_needed" -max_total_time=600 -max_len=$max_len -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="$top_builddir/tests/fuzz/crash-" "$work/$name" 2>"$work/$name.log" &&
	"$bin" -max_total_time="$seconds" -max_len=$max_len -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="$top_builddir/tests/fuzz/crash-" "$work/$name" 2>>"$work/$name.log" ||
		{ tail -n 60 "$work/$name.log" >&2; echo "FAIL: fuzz_$name found a problem" >&2; exit 1; }
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log" | awk '{ n += $1 } END { print n + 0 }')
	fixed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log" | head -n 1)
	[ "${fixed:-0}" -ge "$runs_needed" ] || { cat "$work/$name.log" >&2; echo "FAIL: fuzz_$name ran only ${fixed:-0} of its $runs_needed fixed inputs" >&2; exit 1; }
	secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$work/$name.log" | awk '{ n += $1 } END { print n + 0 }')
	echo "ok: fuzz_$name: $runs inputs in ${secs}s, every check of fuzz_$name.c held"
done
