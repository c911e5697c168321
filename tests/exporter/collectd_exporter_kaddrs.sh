#!/bin/sh
# ebpf_exporter's kaddrs in the real collectd: <Program> ExporterConfig reads
# tests/exporter/exporter_kaddrs.yaml (this project's own config and program in that format),
# whose kaddrs name vfs_read. The loader writes vfs_read's address from /proc/kallsyms into
# the program's `const volatile u64 kaddr_vfs_read` before load; the program sends its high
# and low 32 bits as counters, equal to kallsyms' address, and counts its reads of the
# kernel's bytes there, which succeed. A symbol that is not in kallsyms, and a program without
# the kaddr_ global, stop collectd -T with an error naming them.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

OBJ="$WORK/objects"
install_objects "$OBJ" tests/exporter/exporter_kaddrs.bpf.o tests/exporter/exporter_syscalls.bpf.o
cp "$top_srcdir/tests/exporter/exporter_kaddrs.yaml" "$OBJ/" && chmod 644 "$OBJ/exporter_kaddrs.yaml"
addr=$(awk '$3 == "vfs_read" && NF == 3 { a = $1 } END { print a }' /proc/kallsyms)
[ -n "$addr" ] && [ "$addr" != 0000000000000000 ] || skip "kallsyms shows no address of vfs_read"
HIGH=$((0x${addr%????????}))
LOW=$((0x${addr#????????}))

# program_conf YAML OBJECT [nolog]: $WORK/YAML.conf, its errors on stderr with nolog.
program_conf() {
	if [ "${3:-}" = nolog ]; then
		write_config /dev/stdout < /dev/null | sed '/^LoadPlugin logfile/,/^<\/Plugin>/d' > "$WORK/$1.conf"
	else
		write_config "$WORK/$1.conf" < /dev/null
	fi
	cat >> "$WORK/$1.conf" <<CONF
<Plugin ebpf>
  <Program "kaddrs">
    ExporterConfig "$OBJ/$1.yaml"
    Object "$OBJ/$2.bpf.o"
  </Program>
</Plugin>
CONF
}

program_conf exporter_kaddrs exporter_kaddrs
"$COLLECTD" -T -C "$WORK/exporter_kaddrs.conf" > "$WORK/t.out" 2>&1 || { cat "$WORK/t.out" >&2; fail "collectd -T refused the config"; }
pass "collectd -T takes the config with its kaddrs"

start_collectd "$WORK/exporter_kaddrs.conf"
wait_for_log 'kaddrs: show_kaddr attached' 10 || fail "the program did not attach"
for i in 1 2 3; do sh -c 'echo $PPID' > /dev/null; done # getppid() runs the program
wait_until 5 csv_is kaddrs derive-kaddr_halves-high $HIGH ||
	fail "derive-kaddr_halves-high is $(csv_last kaddrs derive-kaddr_halves-high), expected $HIGH (vfs_read at $addr)"
wait_until 5 csv_is kaddrs derive-kaddr_halves-low $LOW ||
	fail "derive-kaddr_halves-low is $(csv_last kaddrs derive-kaddr_halves-low), expected $LOW (vfs_read at $addr)"
pass "kaddr_vfs_read holds vfs_read's address from kallsyms, $addr"
reads_made() { [ "$(csv_last kaddrs derive-kaddr_reads)" -gt 0 ] 2>/dev/null; }
wait_until 5 reads_made || fail "derive-kaddr_reads is '$(csv_last kaddrs derive-kaddr_reads)': the program read nothing at that address"
pass "the program read the kernel's bytes at that address $(csv_last kaddrs derive-kaddr_reads) times"
stop_collectd

# refused NAME OBJECT YAML-KADDRS WHOLE-ERROR: collectd -T fails with that one error.
refused() {
	sed "s/^  - vfs_read\$/  - $3/" "$OBJ/exporter_kaddrs.yaml" > "$OBJ/$1.yaml"
	program_conf "$1" "$2" nolog
	if "$COLLECTD" -T -C "$WORK/$1.conf" > "$WORK/$1.out" 2>&1; then
		cat "$WORK/$1.out" >&2
		fail "$1: collectd -T accepted it"
	fi
	grep -qxF -- "$4" "$WORK/$1.out" || { cat "$WORK/$1.out" >&2; fail "$1: the error is not: $4"; }
}
refused no_symbol exporter_kaddrs no_such_symbol_here \
	"ebpf plugin: <Program \"kaddrs\">: KernelAddress: kernel symbol \"no_such_symbol_here\" is not in /proc/kallsyms (a symbol of the kernel itself, not of a module; data symbols are there only with CONFIG_KALLSYMS_ALL) (in $OBJ/exporter_kaddrs.bpf.o)"
pass "a symbol kallsyms does not have stops collectd -T, named"
refused no_global exporter_syscalls vfs_write \
	"ebpf plugin: <Program \"kaddrs\">: KernelAddress \"vfs_write\": the object has no global kaddr_vfs_write (its globals: filter_tgid; declare \`const volatile u64 kaddr_vfs_write\`) (in $OBJ/exporter_syscalls.bpf.o)"
pass "an object without the kaddr_ global stops collectd -T, naming the global to declare"
