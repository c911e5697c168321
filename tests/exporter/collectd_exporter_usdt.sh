#!/bin/sh
# A USDT probe through an ebpf_exporter config in the real collectd: <Program> ExporterConfig
# reads tests/exporter/exporter_usdt.yaml (this project's own config and program in that
# format), whose program is SEC("usdt/usdt_n:collectd_ebpf_test:tick") written with BPF_USDT.
# libbpf finds usdt_n in PATH and attaches at the probe's note; the workload fires the probe
# 101 times, its argument 1 on odd passes and 2 on even ones: exactly 51 and 50 in the label
# `arg`. Without usdt_n in PATH, the program stays off with an error naming the binary.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

N=101
OBJ="$WORK/objects"
install_exporter_configs "$OBJ" exporter_usdt
start_waiting_workload usdt_n $N
program_block() {
	cat <<CONF
<Plugin ebpf>
  SnapshotFile ""
  <Program "usdt">
    ExporterConfig "$OBJ/exporter_usdt.yaml"
    Param "filter_tgid" $WORKLOAD
  </Program>
</Plugin>
CONF
}
program_block | write_config "$WORK/collectd.conf"
# The same without the logfile: collectd -T's errors on stderr.
# (a file, not /dev/stdout, which the kernel matrix's initramfs has not).
write_config "$WORK/base.conf" < /dev/null
{ sed '/^LoadPlugin logfile/,/^<\/Plugin>/d' "$WORK/base.conf"; program_block; } > "$WORK/errors.conf"

# refused PATH WHAT ERROR-PART: collectd -T with that PATH fails, its error containing ERROR-PART.
refused() {
	if env PATH="$1" "$COLLECTD" -T -C "$WORK/errors.conf" > "$WORK/refused.out" 2>&1; then
		cat "$WORK/refused.out" >&2
		fail "$2: collectd -T accepted it"
	fi
	grep -qF -- "$3" "$WORK/refused.out" || { cat "$WORK/refused.out" >&2; fail "$2: the error does not say: $3"; }
	! grep -q 'no kprobes' "$WORK/refused.out" || { cat "$WORK/refused.out" >&2; fail "$2: the error blames kprobes, which USDT probes do not use"; }
	echo "$2: $(grep -m1 -o 'no attach method works.*' "$WORK/refused.out")"
}
refused "/usr/bin:/bin" "usdt_n not in PATH" \
	"failed to resolve full path for 'usdt_n': -2) [a binary named without a '/' in SEC() is looked for in collectd's PATH"
pass "without usdt_n in PATH, collectd -T stops naming the binary and where it was looked for"
mkdir -p "$WORK/bin" && cp "$top_builddir/tests/support/gai_n" "$WORK/bin/usdt_n"
refused "$WORK/bin:/usr/bin:/bin" "a usdt_n without the probe" \
	'[the binary has no USDT probes: `readelf -n BINARY`'
pass "a usdt_n without the probe stops collectd -T, saying so"

PATH="$top_builddir/tests/support:$PATH" "$COLLECTD" -T -C "$WORK/collectd.conf" > "$WORK/t.out" 2>&1 ||
	{ cat "$WORK/t.out" >&2; fail "collectd -T refused the config"; }
pass "collectd -T takes the ExporterConfig with its usdt program, usdt_n in PATH"

start_collectd "$WORK/collectd.conf" env PATH="$top_builddir/tests/support:$PATH"
wait_for_log 'usdt: count_tick attached via kprobe+usdt$' 10 || fail "count_tick did not attach as a USDT probe"
pass "count_tick attached at usdt_n's probe collectd_ebpf_test:tick (SEC(\"usdt/usdt_n:collectd_ebpf_test:tick\"), BPF_USDT)"
wait_for_csv usdt percent-map_fill-usdt_ticks_total 10 || fail "no first read of the program"
waiting_workload_go
for a in 1:51 2:50; do
	wait_until 10 csv_is usdt "derive-usdt_ticks-${a%:*}" "${a#*:}" ||
		fail "derive-usdt_ticks-${a%:*} is '$(csv_last usdt "derive-usdt_ticks-${a%:*}")', not the workload's ${a#*:} fires with argument ${a%:*}; series: $(ls "$WORK/csv/itest/ebpf-usdt/" | tr '\n' ' ')"
done
pass "the $N fires counted exactly by their argument: 51 with 1, 50 with 2"
stop_collectd
