#!/bin/sh
# Bad input through the real collectd: a misspelled module, an unknown option, a bad
# value, and a run without privileges each give one clear error that names the problem
# and the fix. (`collectd -t` in 5.12 checks syntax only and never calls plugins; `-T`
# loads them, so that is what validates a plugin's config.)
. "$top_srcdir/tests/support/lib.sh"

# expect_config_error NAME EXPECTED-TEXT: collectd -T must fail and print the text.
expect_config_error() {
	name=$1; expected=$2
	conf="$WORK/$name.conf"
	# Without a logfile, messages go to stderr where -T shows them.
	sed '/^LoadPlugin logfile/,/^<\/Plugin>/d' > "$conf"
	if "$COLLECTD" -T -C "$conf" > "$WORK/$name.out" 2>&1; then
		cat "$WORK/$name.out" >&2
		fail "$name: collectd -T accepted a bad configuration"
	fi
	grep -qF -- "$expected" "$WORK/$name.out" || { cat "$WORK/$name.out" >&2; fail "$name: expected: $expected"; }
	pass "$name: $(grep -F -- "$expected" "$WORK/$name.out" | head -n 1)"
}

write_config /dev/stdout <<'CONF' | expect_config_error misspelled_module 'unknown module "syscals"; valid modules: syscalls'
<Plugin ebpf>
  <Module "syscals">
  </Module>
</Plugin>
CONF

write_config /dev/stdout <<'CONF' | expect_config_error unknown_option 'module "syscalls": unknown option "Latencyy"; valid options: Latency, By, CgroupDepth, Cgroup, CgroupIgnoreSelected, MaxSeries, CgroupPrecision, CgroupCalls, AttachOrder, Percentile, Bucket, BucketType'
<Plugin ebpf>
  <Module "syscalls">
    Latencyy "fsync"
  </Module>
</Plugin>
CONF

# A configuration error quotes what the user wrote: an OSC title sequence, BEL, a newline
# and a C1 CSI (U+009B) in a <Program>'s Object reach collectd's log escaped by
# base/text_rule.h's rule (\xHH, \n): one line, no forged "ERROR:" line, nothing that drives
# a terminal.
printf '<Plugin ebpf>\n  <Program "p">\n    Object "%s/x\033]0;pwned\007\nERROR: forged\302\233.bpf.o"\n    <Counter "m">\n    </Counter>\n  </Program>\n</Plugin>\n' "$WORK" |
	write_config /dev/stdout | expect_config_error hostile_object '<Program "p">: cannot use BPF object'
grep -qxF "ebpf plugin: <Program \"p\">: cannot use BPF object \"$WORK/x\\x1b]0;pwned\\x07\\nERROR: forged\\xc2\\x9b.bpf.o\": No such file or directory (collectd would start without this program)" \
	"$WORK/hostile_object.out" || { cat -A "$WORK/hostile_object.out" >&2; fail "the hostile Object is not logged escaped, on one line"; }
! grep -q '^ERROR: forged' "$WORK/hostile_object.out" || fail "the Object's newline started a log line"
! LC_ALL=C grep -q "$(printf '[\033\007]')" "$WORK/hostile_object.out" || fail "the Object's ESC or BEL reached the log"
pass "a <Program>'s ESC, OSC, newline and C1 are logged escaped, on one line"

write_config /dev/stdout <<'CONF' | expect_config_error unknown_syscall '"fsnyc" is not a syscall on this architecture'
<Plugin ebpf>
  <Module "syscalls">
    Latency "fsnyc"
  </Module>
</Plugin>
CONF

write_config /dev/stdout <<'CONF' | expect_config_error bad_percentile 'Percentile 250 is out of range'
<Plugin ebpf>
  <Module "syscalls">
    Percentile 250
  </Module>
</Plugin>
CONF

write_config /dev/stdout <<'CONF' | expect_config_error plugin_level_typo 'unknown option "Modules" in <Plugin ebpf>'
<Plugin ebpf>
  Modules "syscalls"
</Plugin>
CONF

write_config /dev/stdout <<'CONF' | expect_config_error duplicate_module 'module "syscalls" is configured twice'
<Plugin ebpf>
  <Module "syscalls">
  </Module>
  <Module "syscalls">
  </Module>
</Plugin>
CONF

# Equal values would name two series alike (collectd then drops one every interval).
write_config /dev/stdout <<'CONF' | expect_config_error duplicate_percentile 'Percentile 99.9 is given twice'
<Plugin ebpf>
  <Module "syscalls">
    Percentile 50 99.9
    Percentile 99.9
  </Module>
</Plugin>
CONF

write_config /dev/stdout <<'CONF' | expect_config_error duplicate_bucket 'Bucket 0 0.001 is given twice'
<Plugin ebpf>
  <Module "syscalls">
    Bucket 0 0.001
    Bucket 0 0.001
  </Module>
</Plugin>
CONF

# Options valid one by one but not together stop collectd like any bad value, instead of
# a module that starts "off" while collectd -T exits 0.
write_config /dev/stdout <<'CONF' | expect_config_error ports_without_breakdown 'module "tcp": Ports needs PortBreakdown "local" or "remote"'
<Plugin ebpf>
  <Module "tcp">
    Ports 443
  </Module>
</Plugin>
CONF

# A quoted number is a string to collectd: the error names the argument and its text.
write_config /dev/stdout <<'CONF' | expect_config_error quoted_percentile 'option "Percentile": argument 1 ("99") is a string, expected a number (remove the quotes)'
<Plugin ebpf>
  <Module "syscalls">
    Percentile "99"
  </Module>
</Plugin>
CONF

# fentry refused by a kernel that lets root load BPF (this project's CI machine: EPERM as root)
# once read "Operation not permitted" alone, like a missing privilege: the error says the kernel
# refuses the program type, and what the plugin does about it. Where fentry loads (the kernel
# matrix), the module starts and there is nothing to say.
write_config /dev/stdout <<'CONF' | sed '/^LoadPlugin logfile/,/^<\/Plugin>/d' > "$WORK/fentry.conf"
<Plugin ebpf>
  SnapshotFile ""
  <Module "vfs">
    AttachOrder "fentry"
  </Module>
</Plugin>
CONF
if "$COLLECTD" -T -C "$WORK/fentry.conf" > "$WORK/fentry.out" 2>&1; then
	pass "fentry loads on this kernel: vfs started on it"
elif grep -q 'fentry:vfs_read load failed (Operation not permitted' "$WORK/fentry.out"; then
	for said in 'module "vfs" is off: no attach method works for read: fentry:vfs_read load failed (Operation not permitted' \
		'[the kernel refuses fentry/fexit programs, although collectd may load BPF: kernel lockdown (' \
		'or no BPF trampoline for this function; the next method is tried, and an AttachOrder without "fentry" skips it]'; do
		grep -qF -- "$said" "$WORK/fentry.out" || { cat "$WORK/fentry.out" >&2; fail "fentry refused as root: the error does not say: $said"; }
	done
	pass "fentry refused as root: $(grep -o 'fentry:vfs_read load failed.*' "$WORK/fentry.out" | head -n 1 | cut -c1-400)"
else
	cat "$WORK/fentry.out" >&2
	fail "vfs on fentry alone neither started nor was refused with EPERM"
fi

# `Latency fsync, fdatasync`: collectd's parser takes unquoted words as strings and drops
# the comma (it echoes it to stdout), so this means `Latency "fsync" "fdatasync"`: both
# get latency, as the user meant, and nothing else.
write_config "$WORK/comma.conf" <<'CONF'
<Plugin ebpf>
  SnapshotFile ""
  <Module "syscalls">
    Latency fsync, fdatasync
  </Module>
</Plugin>
CONF
"$COLLECTD" -T -C "$WORK/comma.conf" > "$WORK/comma.out" 2>&1 || fail "unquoted Latency list: collectd -T failed"
grep -q 'latency for 2 syscalls' "$WORK/collectd.log" || fail "unquoted Latency fsync, fdatasync did not enable exactly 2 syscalls"
pass "unquoted Latency fsync, fdatasync: $(grep -o 'counting every syscall, latency for 2 syscalls' "$WORK/collectd.log")"
# The unprivileged collectd below creates its own log; and -T may have read and written
# values as root, leaving csv/rrd directories that nobody cannot write into.
rm -rf "$WORK/collectd.log" "$WORK/csv" "$WORK/rrd"

# --- no privileges: collectd as nobody; the error names root, CAP_BPF and CAP_PERFMON -----
command -v setpriv >/dev/null || skip "setpriv (util-linux) is needed to drop privileges"
chmod 777 "$WORK"
write_config "$WORK/unprivileged.conf" <<'CONF'
<Plugin ebpf>
  <Module "syscalls">
  </Module>
</Plugin>
CONF
start_collectd "$WORK/unprivileged.conf" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all
grep -q 'not permitted to load BPF programs: running as uid 65534 without CAP_BPF and CAP_PERFMON. Run collectd as root' \
	"$WORK/collectd.log" || fail "no privilege error"
pass "unprivileged: $(grep -o 'module "syscalls" is off: not permitted[^.]*' "$WORK/collectd.log")"
kill -0 "$COLLECTD_PID" || fail "collectd died instead of running on without the module"
pass "collectd keeps running without the module"
stop_collectd

# --- Without root, what contrib/collectd-ebpf.service.d.conf grants is enough: its
# AmbientCapabilities (the bounding set alone gives a non-root collectd nothing), as setpriv
# spells them (CAP_BPF CAP_PERFMON -> +bpf,+perfmon).
dropin="$top_srcdir/contrib/collectd-ebpf.service.d.conf"
caps=$(sed -n 's/^AmbientCapabilities=//p' "$dropin" | tr 'A-Z ' 'a-z\n' | sed -n 's/^cap_/+/p' | paste -sd, -)
for c in +bpf +perfmon; do
	case ",$caps," in *,$c,*) ;; *) fail "$dropin: AmbientCapabilities lacks $c ($caps)" ;; esac
done
# run_with_caps CONF DOES WHERE: collectd as nobody with only those capabilities runs CONF's
# one module and writes its values; the failure messages say it could not DOES, no values WHERE.
run_with_caps() {
	: > "$WORK/collectd.log"
	start_collectd "$1" setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all,$caps --ambient-caps=$caps
	wait_for_log '1 of 1 module running' 5 || fail "collectd as nobody with $caps could not $2"
	wait_for_csv syscalls operations-close 10 || fail "no values from the capability-only collectd$3"
}
run_with_caps "$WORK/unprivileged.conf" "start the module" ""
pass "nobody with the drop-in's ambient capabilities ($caps) runs the module"
stop_collectd

# The classic-tracepoint fallback reads tracepoint ids from tracefs, which is root's only
# (mode 0700): without root that takes CAP_DAC_READ_SEARCH among the ambient capabilities.
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing ||
	fail "cannot mount tracefs on /sys/kernel/tracing"
write_config "$WORK/unprivileged-tracepoint.conf" <<'CONF'
<Plugin ebpf>
  <Module "syscalls">
    AttachOrder "tracepoint"
  </Module>
</Plugin>
CONF
rm -rf "$WORK/csv" "$WORK/rrd"
run_with_caps "$WORK/unprivileged-tracepoint.conf" "attach a classic tracepoint" " on tracepoints"
pass "nobody with the drop-in's ambient capabilities attaches classic tracepoints too"
stop_collectd
