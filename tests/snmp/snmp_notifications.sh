#!/bin/sh
# SNMP notifications end to end, with the real daemons: collectd with the process module
# records its events in the snapshot, ebpf-subagent (as nobody, no BPF) sends them over
# AgentX with send_v2trap(), snmpd forwards them to a v2c trap2sink, a v2c informsink (an
# acknowledged inform, community ebpfinform) and a v3 authPriv trapsess, and the real
# snmptrapd receives all three and decodes them with COLLECTD-EBPF-MIB.
# - collectd as nobody without capabilities (privileges dropped): its process instance
#   cannot load BPF and gives one ebpfModuleStateChange per sink, state failed, the error;
# - a process instance forced off (AttachOrder "kprobe", a method its tracepoints do not
#   have) gives one ebpfModuleStateChange per sink, with the state and the error;
# - one OOM kill in a memory-limited cgroup gives exactly one ebpfOomKill per sink, with
#   the victim's pid, name, cgroup v2 path and trigger cgroup;
# - a storm of STORM OOM kills gives a bounded number of traps, ebpfOomKill one by one and
#   ebpfEventsNotSent whose counts add up with them to exactly STORM.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/snmp_lib.sh"

OOM_HOG="$top_builddir/tests/support/oom_hog"
STORM=${STORM:-250}
# snmpd's engine ID, built from this text (engineID): 0x80001f88 (net-snmp's enterprise
# 8072, high bit set), 04 (text), then the text's bytes. A v3 trap is sent with the sender's
# engine ID, so snmptrapd's user is made for it.
ENGINE_TEXT=ebpf-trap-test
ENGINE_ID=0x80001f8804$(printf '%s' "$ENGINE_TEXT" | od -An -tx1 | tr -d ' \n')

start_snmptrapd <<CONF
authCommunity log ebpfinform
createUser -e $ENGINE_ID ebpftrap SHA "ebpf-trap-auth" AES "ebpf-trap-priv"
authUser log ebpftrap priv
CONF

write_snmpd_conf <<CONF
engineID $ENGINE_TEXT
createUser ebpftrap SHA "ebpf-trap-auth" AES "ebpf-trap-priv"
trap2sink udp:127.0.0.1:$TRAP_PORT public
informsink udp:127.0.0.1:$TRAP_PORT ebpfinform
trapsess -v3 -u ebpftrap -l authPriv -a SHA -A ebpf-trap-auth -x AES -X ebpf-trap-priv udp:127.0.0.1:$TRAP_PORT
CONF
start_snmpd
start_subagent
wait_for_log "connected to snmpd's AgentX master" 10 "$WORK/subagent.log" || sfail "the subagent did not connect"

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$SNAP"
  SnapshotGroup "nogroup"
  <Module "process">
  </Module>
  <Module "process" "off">
    AttachOrder "kprobe"
  </Module>
</Plugin>
CONF

# traps SENDER PATTERN...: the trap lines from SENDER (public: v2c, ebpfinform: v2c inform,
# ebpftrap: v3) after the first TRAPS_SEEN lines of the log that have every PATTERN (fixed
# strings).
TRAPS_SEEN=0
traps() {
	_who=$1; shift
	tail -n +$((TRAPS_SEEN + 1)) "$WORK/snmptrapd.log" | grep "^TRAP $_who	" | while IFS= read -r _l; do
		_ok=1
		for _p in "$@"; do case "$_l" in *"$_p"*) ;; *) _ok=0; break ;; esac; done
		[ $_ok = 0 ] || printf '%s\n' "$_l"
	done
}
count_traps() { traps "$@" | wc -l; }
has_traps() { [ "$(count_traps "$@")" -ge 1 ]; }
# varbind LINE NAME: the value of COLLECTD-EBPF-MIB::NAME.0 in a trap line.
varbind() { printf '%s\n' "$1" | tr '\t' '\n' | sed -n "s/^COLLECTD-EBPF-MIB::$2\.0 = //p"; }
# one_trap_each TRAP FOR WHEN PATTERN...: within 15 s every sink has a COLLECTD-EBPF-MIB::TRAP
# trap with every PATTERN (the one FOR names: "for pid 123"), and 2 s later still exactly one
# TRAP trap (WHEN, if not empty, says in which case); else the test fails. Each notification
# below must reach the three sinks once, neither lost nor repeated: only its varbinds differ.
one_trap_each() {
	_trap=$1 _for=$2 _when=$3; shift 3
	for _sink in public ebpfinform ebpftrap; do
		wait_until 15 has_traps $_sink "COLLECTD-EBPF-MIB::$_trap" "$@" || sfail "no $_trap $_for from $_sink"
	done
	sleep 2
	for _sink in public ebpfinform ebpftrap; do
		_n=$(count_traps $_sink "COLLECTD-EBPF-MIB::$_trap")
		[ "$_n" = 1 ] || sfail "$_n $_trap traps via $_sink${_when:+ $_when}, expected 1"
	done
}

# --- Privileges dropped: collectd as nobody with no capability cannot load BPF; it still
# publishes the snapshot (its directory its own, in $WORK made sticky and writable for the
# time, as /tmp) and the subagent sends the module's state. Then that collectd's files go,
# and root's collectd below starts afresh (a new run to the subagent).
chmod 1777 "$WORK"
write_config "$WORK/nopriv.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$SNAP"
  SnapshotGroup "nogroup"
  <Module "process" "nopriv">
  </Module>
</Plugin>
CONF
start_collectd "$WORK/nopriv.conf" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all
NOPRIV='COLLECTD-EBPF-MIB::ebpfEventModule.0 = STRING: process-nopriv	'
one_trap_each ebpfModuleStateChange "for process-nopriv" "without privileges" "$NOPRIV"
for who in public ebpfinform ebpftrap; do
	t=$(traps $who "COLLECTD-EBPF-MIB::ebpfModuleStateChange" "$NOPRIV")
	[ "$(varbind "$t" ebpfEventModuleState)" = "INTEGER: failed(3)" ] ||
		sfail "ebpfEventModuleState: $(varbind "$t" ebpfEventModuleState)"
	[ "$(varbind "$t" ebpfEventSeverity)" = "INTEGER: failure(3)" ] || sfail "ebpfEventSeverity: $(varbind "$t" ebpfEventSeverity)"
	varbind "$t" ebpfEventError | grep -q "not permitted to load BPF programs: running as uid 65534 without CAP_BPF" ||
		sfail "ebpfEventError: $(varbind "$t" ebpfEventError)"
done
pass "privileges dropped: one ebpfModuleStateChange via v2c trap, v2c inform and v3, decoded: $(varbind "$t" ebpfEventModuleState), $(varbind "$t" ebpfEventError | cut -c1-80)"
stop_collectd
mv "$WORK/collectd.log" "$WORK/nopriv.log"
rm -rf "$WORK/snap" "$WORK/csv" "$WORK/rrd" "$WORK/collectd.sock"
chmod 755 "$WORK"
# The traps so far are that run's: the counts below are of root's collectd's, after them.
TRAPS_SEEN=$(wc -l < "$WORK/snmptrapd.log")

start_collectd "$WORK/collectd.conf"
OFF='COLLECTD-EBPF-MIB::ebpfEventModule.0 = STRING: process-off	'
one_trap_each ebpfModuleStateChange "for process-off" "" "$OFF"
for who in public ebpfinform ebpftrap; do
	t=$(traps $who "COLLECTD-EBPF-MIB::ebpfModuleStateChange")
	[ "$(varbind "$t" ebpfEventModuleState)" = "INTEGER: unsupported(4)" ] ||
		sfail "ebpfEventModuleState: $(varbind "$t" ebpfEventModuleState)"
	[ "$(varbind "$t" ebpfEventSeverity)" = "INTEGER: failure(3)" ] || sfail "ebpfEventSeverity: $(varbind "$t" ebpfEventSeverity)"
	varbind "$t" ebpfEventError | grep -q "no attach method works" || sfail "ebpfEventError: $(varbind "$t" ebpfEventError)"
done
pass "module forced off: one ebpfModuleStateChange via v2c trap, v2c inform and v3, decoded: $(varbind "$t" ebpfEventModuleState), $(varbind "$t" ebpfEventError | cut -c1-80)"

out=$("$OOM_HOG" ebpf_oom_snmp 1 4) || sfail "oom_hog failed: $out"
victim=$(echo "$out" | sed -n 's/^victim //p')
cgroup=$(echo "$out" | sed -n 's/^cgroup2 //p')
one_trap_each ebpfOomKill "for pid $victim" "for one OOM kill" "ebpfEventPid.0 = Gauge32: $victim"
for who in public ebpfinform ebpftrap; do
	t=$(traps $who "COLLECTD-EBPF-MIB::ebpfOomKill")
	[ "$(varbind "$t" ebpfEventProcessName)" = 'STRING: ebpf_oom_snmp' ] || sfail "ebpfEventProcessName: $(varbind "$t" ebpfEventProcessName)"
	[ "$(varbind "$t" ebpfEventModule)" = 'STRING: process' ] || sfail "ebpfEventModule: $(varbind "$t" ebpfEventModule)"
	[ "$(varbind "$t" ebpfEventCgroup)" = "STRING: $cgroup" ] || sfail "ebpfEventCgroup: $(varbind "$t" ebpfEventCgroup), the victim was in $cgroup"
	# The trigger (whose allocation hit the limit) is the victim itself: the hog allocates until killed.
	[ "$(varbind "$t" ebpfEventTriggerCgroup)" = "STRING: $cgroup" ] ||
		sfail "ebpfEventTriggerCgroup: $(varbind "$t" ebpfEventTriggerCgroup), the hog was in $cgroup"
	varbind "$t" ebpfEventMessage | grep -qF "OOM kill: victim pid $victim (ebpf_oom_snmp)" || sfail "ebpfEventMessage: $(varbind "$t" ebpfEventMessage)"
done
pass "one OOM kill: one ebpfOomKill each via v2c trap, v2c inform and v3: pid $(varbind "$t" ebpfEventPid), name $(varbind "$t" ebpfEventProcessName), cgroup $(varbind "$t" ebpfEventCgroup)"

storm_start=$(date +%s)
out=$("$OOM_HOG" ebpf_trapstorm "$STORM") || sfail "oom_hog storm failed: $(echo "$out" | tail -n 3)"
made=$(echo "$out" | grep -c '^victim ')
[ "$made" = "$STORM" ] || sfail "the storm made $made OOM kills, expected $STORM"
# storm_counts SENDER: "<ebpfOomKill of the storm> <ebpfEventsNotSent traps> <their counts>".
storm_counts() {
	_one=$(count_traps $1 "COLLECTD-EBPF-MIB::ebpfOomKill" 'ebpfEventProcessName.0 = STRING: ebpf_trapstorm	')
	_not_sent=0 _summaries=0
	for _c in $(traps $1 "COLLECTD-EBPF-MIB::ebpfEventsNotSent" "ebpfEventKind.0 = INTEGER: oomKill(1)" |
			sed -n 's/.*ebpfEventCount\.0 = Gauge32: \([0-9]*\).*/\1/p'); do
		_not_sent=$((_not_sent + _c)) _summaries=$((_summaries + 1))
	done
	echo "$_one $_summaries $_not_sent"
}
storm_complete() { set -- $(storm_counts $1); [ $(($1 + $3)) -ge "$STORM" ]; }
# The limit (libcore/engine/events.h) is EVENT_BURST (10) at once, then one per
# EVENT_REFILL_SECONDS (6): over a storm of T seconds, from its first kill to the read that
# sends its last summary, at most 10 + T / 6 + 1 go one by one. On a quiet machine the storm
# takes seconds (the bound is then 11-12); on a loaded one the kills themselves take longer
# and the limit rightly lets more through, one per 6 s: the bound follows the measured time.
one_by_one_max() { echo $((10 + ($(date +%s) - storm_start) / 6 + 1)); }
for who in public ebpfinform ebpftrap; do
	# The last summary comes with the read after the storm, its trap within a second of the file.
	wait_until 30 storm_complete $who || true
	max_one=$(one_by_one_max)
	set -- $(storm_counts $who)
	echo "storm of $STORM via $who: $1 ebpfOomKill, $2 ebpfEventsNotSent counting $3"
	[ $(($1 + $3)) = "$STORM" ] || sfail "via $who: $1 ebpfOomKill + $3 not sent = $(($1 + $3)), not $STORM"
	[ "$1" -le "$max_one" ] ||
		sfail "via $who: $1 ebpfOomKill traps one by one, more than $max_one in $(($(date +%s) - storm_start)) s: the rate limit did not hold"
done
pass "storm: ebpfOomKill one by one plus ebpfEventsNotSent's counts are exactly $STORM, via v2c trap, v2c inform and v3"
stop_collectd
