#!/bin/sh
# collectd for a --enable-sanitizers build: the tests run this as $COLLECTD. collectd is not
# built with ASan, so the runtime ebpf.so links against must be the process's first library
# (LD_PRELOAD), or ASan refuses to start when collectd dlopen()s the plugin.
# detect_leaks=0: collectd's own allocations at exit are not ours to judge (the unit and BPF
# tests run our code with leak detection on). exitcode=86: a sanitizer report ends collectd
# with a status no test expects (collectd -T exits 1 on a config error), and lib.sh fails a
# test whose logs hold one.
: "${SANITIZER_RUNTIME:?set by make check in a --enable-sanitizers build}" "${REAL_COLLECTD:?}"
LD_PRELOAD="$SANITIZER_RUNTIME${LD_PRELOAD:+:$LD_PRELOAD}" \
ASAN_OPTIONS="detect_leaks=0:exitcode=86${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
UBSAN_OPTIONS="print_stacktrace=1:exitcode=86${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
	exec "$REAL_COLLECTD" "$@"
