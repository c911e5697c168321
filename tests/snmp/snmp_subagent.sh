#!/bin/sh
# SNMP end to end, with the real daemons: snmpd as AgentX master on a private socket and a
# loopback UDP port, collectd -f with the ebpf plugin publishing its snapshot, and
# ebpf-subagent as an unprivileged user. Clients are net-snmp's snmpget/snmpwalk/snmptable.
#
# Checks: bad arguments give clear errors; the subagent starts before snmpd and collectd
# and reports its state; counter, histogram and bucket values equal what collectd records;
# v1 (Counter32 twin), v2c and v3 authPriv; snmptable reads the histogram and bucket
# tables; snmpd restarts and the values come back within a ping interval; killing the
# subagent leaves collectd unaffected; OIDs are the same after restarts; collectd stopping,
# a malformed and an unreadable snapshot each show as a state.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/snmp_lib.sh"

MIBDIRS_T="$top_srcdir/snmp:/usr/share/snmp/mibs:$top_srcdir/tests/mibs"

# --- bad arguments ---------------------------------------------------------------------------
out=$("$SUBAGENT" --bogus 2>&1) && sfail "--bogus accepted"
echo "$out" | grep -q "unknown option --bogus; see ebpf-subagent --help" || sfail "unclear error: $out"
out=$("$SUBAGENT" --base-oid 1.3.x 2>&1) && sfail "bad --base-oid accepted"
echo "$out" | grep -q 'base-oid "1.3.x" is not a numeric OID' || sfail "unclear error: $out"
out=$("$SUBAGENT" --ping-interval 0 2>&1) && sfail "--ping-interval 0 accepted"
echo "$out" | grep -q 'expected whole seconds from 1 to 3600' || sfail "unclear error: $out"
"$SUBAGENT" --help | grep -q -- "--agentx-socket" || sfail "--help does not list the options"
pass "bad arguments give clear errors, exit status 2 ($out)"

# --- the subagent first: no snmpd, no collectd -------------------------------------------------
write_snmpd_conf <<CONF
createUser ebpfpoll SHA "ebpf-auth-pass" AES "ebpf-priv-pass"
rouser ebpfpoll authpriv -V ebpfView
CONF
start_subagent
sleep 1
kill -0 "$SUBAGENT_PID" 2>/dev/null || sfail "the subagent exited without snmpd"
grep -q "does not exist: collectd is not running" "$WORK/subagent.log" || sfail "the subagent did not report the missing snapshot"
pass "subagent runs without snmpd and collectd, and says so: $(grep -m1 'does not exist' "$WORK/subagent.log")"
grep -q "not connected to snmpd: no AgentX socket at $SOCK" "$WORK/subagent.log" ||
	sfail "the subagent did not say why it is not connected to snmpd"
pass "and says why it is not connected: $(grep -m1 'not connected to snmpd' "$WORK/subagent.log")"

start_snmpd
wait_until $((PING + 5)) status_is 2 || sfail "snapshot status not served as missing(2) within $((PING + 5)) s"
pass "snmpd started after the subagent: ebpfSnapshotStatus.0 = missing(2) before collectd runs"
grep -q "connected to snmpd's AgentX master at $SOCK" "$WORK/subagent.log" || sfail "the subagent did not log its connection"

# --- collectd with the plugin -----------------------------------------------------------------
write_fsync_config "$WORK/collectd.conf" "$SNAP" nogroup "Percentile 50" <<CONF
  <Module "syscalls" "broken">
    AttachOrder "fentry"
  </Module>
CONF
start_collectd "$WORK/collectd.conf"
"$FSYNC_N" 1
wait_until 10 status_is 1 || sfail "snapshot status not ok(1) after collectd started"
[ "$(stat -c '%a %G' "$SNAP")" = "640 nogroup" ] || sfail "snapshot is $(stat -c '%a %G' "$SNAP"), expected 640 nogroup"
pass "collectd publishes $SNAP (0640, group nogroup); the unprivileged subagent serves it"

SYS=$(str_oid syscalls implied)
BROKEN=$(str_oid syscalls-broken implied)
[ "$(value $BASE.1.2.1.2.$SYS)" = "running" ] || [ "$(value $BASE.1.2.1.2.$SYS)" = "1" ] ||
	sfail "ebpfModuleState.syscalls = $(value $BASE.1.2.1.2.$SYS)"
state=$(value $BASE.1.2.1.2.$BROKEN)
[ "$state" = 4 ] || sfail "ebpfModuleState.syscalls-broken = $state, expected unsupported(4)"
value $BASE.1.2.1.4.$BROKEN | grep -q "no attach method works" || sfail "no last error for syscalls-broken"
methods=$(value $BASE.1.2.1.3.$SYS)
echo "$methods" | grep -q "=tp_btf" || sfail "attach methods of syscalls: \"$methods\""
disc=$(v2 -Ovt $BASE.1.2.1.5.$SYS | tr -dc 0-9)
up=$(v2 -Ovt .1.3.6.1.2.1.1.3.0 | tr -dc 0-9)
[ -n "$disc" ] && [ "$disc" -gt 0 ] && [ "$disc" -le "$up" ] || sfail "discontinuity time $disc vs sysUpTime $up"
pass "module table: syscalls running via $methods since sysUpTime $disc; syscalls-broken unsupported with its error"

# --- counters equal collectd's ----------------------------------------------------------------
FSYNC_CALLS="$BASE.1.3.1.3.$(str_oid syscalls).$(str_oid calls).$(str_oid fsync implied)"
FSYNC_CALLS32="$BASE.1.3.1.4.$(str_oid syscalls).$(str_oid calls).$(str_oid fsync implied)"
N=500
wait_until 10 is_number "$FSYNC_CALLS" || sfail "no value for calls/fsync at $FSYNC_CALLS: $(value "$FSYNC_CALLS")"
before=$(value "$FSYNC_CALLS")
"$FSYNC_N" $N
sleep 2.5
after=$(value "$FSYNC_CALLS")
grown=$((after - before))
[ "$grown" -ge $N ] || sfail "SNMP fsync count grew by $grown for $N fsync() calls"
pass "SNMP fsync count grew by $grown for $N fsync() calls ($before -> $after)"
# The value SNMP serves is one that collectd recorded (csv keeps every read's value).
sleep 1.5
csv_has() { tail -n +2 "$(csv_file syscalls "$1")" | cut -d, -f2 | awk -v v="$2" '$1 + 0 == v + 0 { f = 1 } END { exit !f }'; }
csv_has operations-fsync "$after" || sfail "SNMP value $after is not among collectd's operations-fsync values"
pass "the SNMP counter value $after is exactly collectd's operations-fsync of the same read"

# --- SNMPv1: the Counter32 twin; Counter64 is not for v1 ---------------------------------------
v1=$(snmpget -v1 -c public -On -t 2 -r 1 "$AGENT" "$FSYNC_CALLS32" 2>&1)
echo "$v1" | grep -q "= Counter32: " || sfail "SNMPv1 get of the Counter32 twin: $v1"
v1val=$(echo "$v1" | sed 's/.*Counter32: //')
v64=$(value "$FSYNC_CALLS")
[ $((v64 % 4294967296 - v1val)) -le 1000 ] && [ "$v1val" -le $((v64 % 4294967296)) ] || sfail "Counter32 $v1val vs Counter64 $v64"
pass "SNMPv1 get of ebpfCounterValue32: $v1val (Counter64 $v64)"

# --- SNMPv3 authPriv ---------------------------------------------------------------------------
v3=$(snmpget -v3 -l authPriv -u ebpfpoll -a SHA -A ebpf-auth-pass -x AES -X ebpf-priv-pass -On -t 2 -r 1 \
	"$AGENT" "$FSYNC_CALLS" 2>&1)
echo "$v3" | grep -q "= Counter64: " || sfail "SNMPv3 authPriv get: $v3"
bad=$(snmpget -v3 -l authPriv -u ebpfpoll -a SHA -A wrong-pass-1 -x AES -X ebpf-priv-pass -On -t 1 -r 0 \
	"$AGENT" "$FSYNC_CALLS" 2>&1) && sfail "SNMPv3 with a wrong password answered: $bad"
pass "SNMPv3 authPriv: $(echo "$v3" | sed 's/.*= //'); a wrong password is refused"

# --- histograms: the table as an NMS reads it, values equal collectd's ---------------------------
table() { snmptable -v2c -c public -t 2 -r 1 -M "$MIBDIRS_T" -m COLLECTD-EBPF-MIB -Cf '|' -Ci "$AGENT" "$@"; }
"$FSYNC_N" 3000 &
load=$!
hist=
i=0
while [ $i -lt 30 ]; do
	hist=$(table COLLECTD-EBPF-MIB::ebpfHistTable 2>&1) || sfail "snmptable ebpfHistTable: $hist"
	row=$(echo "$hist" | grep "^\"syscalls\".\"latency\".'fsync'|" | head -n 1)
	icount=$(echo "$row" | cut -d'|' -f8)
	[ -n "$icount" ] && [ "$icount" -gt 0 ] && break
	sleep 0.5; i=$((i + 1))
done
wait $load
echo "$hist" | head -n 4
echo "$hist" | grep -q 'index|ebpfHistUnit|ebpfHistCount|' || sfail "snmptable did not read the histogram table by its columns"
[ -n "$icount" ] && [ "$icount" -gt 0 ] || sfail "no interval with fsync events seen over SNMP: $row in $hist"
unit=$(echo "$row" | cut -d'|' -f2); count=$(echo "$row" | cut -d'|' -f3); sunit=$(echo "$row" | cut -d'|' -f7)
mean=$(echo "$row" | cut -d'|' -f9); p50=$(echo "$row" | cut -d'|' -f10); p99=$(echo "$row" | cut -d'|' -f12)
[ "$unit" = nanoseconds ] && [ "$sunit" = microseconds ] || sfail "units: $unit / $sunit"
# The last column, ebpfHistFullInstance: a short instance whole, as its index has it.
[ "$(echo "$row" | cut -d'|' -f13)" = fsync ] || sfail "ebpfHistFullInstance of the fsync row is not fsync: $row"
[ "$count" -ge $N ] || sfail "ebpfHistCount $count < $N"
[ "$p50" -le "$p99" ] && [ "$mean" -gt 0 ] || sfail "mean $mean, p50 $p50, p99 $p99"
sleep 1.5
# collectd's latency-fsync-50 and -average are seconds; SNMP's are rounded microseconds.
near() { tail -n +2 "$(csv_file syscalls "$1")" | cut -d, -f2 | awk -v v="$2" '{ d = $1 * 1e6 - v; if (d < 0) d = -d; if (d <= 1) f = 1 } END { exit !f }'; }
near latency-fsync-50 "$p50" || sfail "SNMP p50 $p50 us matches no collectd latency-fsync-50 value"
near latency-fsync-average "$mean" || sfail "SNMP mean $mean us matches no collectd latency-fsync-average value"
pass "snmptable ebpfHistTable: fsync count $count, mean $mean us, p50 $p50 us, p99 $p99 us = collectd's values"

buckets=$(table COLLECTD-EBPF-MIB::ebpfBucketTable 2>&1) || sfail "snmptable ebpfBucketTable: $buckets"
echo "$buckets" | head -n 4
histcount=$(value "$BASE.1.4.1.4.$(str_oid syscalls).$(str_oid latency).$(str_oid fsync implied)")
bsum=$(echo "$buckets" | awk -F'|' '$1 ~ /^"syscalls"\."latency"\."fsync"\./ { s += $4 } END { printf "%d", s }')
[ "$bsum" -gt 0 ] || sfail "no fsync buckets in: $buckets"
# Buckets and count come from one snapshot unless a read fell between the two requests.
[ $((histcount - bsum)) -ge 0 ] && [ $((histcount - bsum)) -lt 5000 ] || sfail "buckets add up to $bsum, count is $histcount"
# Log-linear slots at the default precision 5 (hist_slot.h): each (lower, upper] is 1 wide
# below 32, else 1/32 of the power of two it sits in, and starts on a multiple of its width.
echo "$buckets" | awk -F'|' '$1 ~ /"fsync"\./ && $2 + 0 > 0 { n++; lo = $2 + 0; w = $3 - lo;
	p = 1; while (p * 2 <= lo) p *= 2;
	if (w != (lo < 32 ? 1 : p / 32) || lo % w != 0) bad = 1 } END { exit bad || !n }' ||
	sfail "bucket bounds are not the log-linear slots of precision 5"
pass "snmptable ebpfBucketTable: log-linear buckets adding up to $bsum of $histcount fsync calls"

walk=$(v2walk $BASE 2>&1)
nwalk=$(echo "$walk" | grep -c "^$BASE")
[ "$nwalk" -gt 20 ] || sfail "snmpwalk of $BASE returned $nwalk objects: $walk"
echo "$walk" | grep -q "^$BASE.1.1.1.0 = INTEGER: 1" || sfail "walk lacks ebpfSnapshotStatus.0"
pass "v2c snmpwalk of the subtree: $nwalk objects"
oids_before=$(echo "$walk" | grep "^$BASE.1.3.1.3." | cut -d' ' -f1 | sort)

# --- snmpd restarts: values are back within a ping interval ---------------------------------------
stop_snmpd
start_snmpd
t0=$(date +%s)
wait_until $((PING + 3)) is_number "$FSYNC_CALLS" || sfail "values not back $((PING + 3)) s after snmpd restarted"
pass "snmpd restarted: values back after $(( $(date +%s) - t0 )) s (ping interval $PING s)"

# --- killing the subagent leaves collectd alone -------------------------------------------------
csv_lines=$(wc -l < "$(csv_file syscalls operations-fsync)")
kill -9 "$SUBAGENT_PID"; wait "$SUBAGENT_PID" 2>/dev/null || true; SUBAGENT_PID=
mtime=$(stat -c %Y.%i "$SNAP")
"$FSYNC_N" 10
sleep 3
kill -0 "$COLLECTD_PID" || sfail "collectd died with the subagent"
[ "$(wc -l < "$(csv_file syscalls operations-fsync)")" -gt "$csv_lines" ] || sfail "collectd stopped recording"
[ "$(stat -c %Y.%i "$SNAP")" != "$mtime" ] || sfail "collectd stopped publishing the snapshot"
out=$(v2 "$FSYNC_CALLS" 2>&1)
echo "$out" | grep -q "No Such Object" || sfail "a killed subagent's subtree still answers: $out"
pass "subagent killed: collectd keeps recording and publishing; snmpd answers noSuchObject"

start_subagent
wait_until $((PING + 5)) is_number "$FSYNC_CALLS" || sfail "restarted subagent not serving"
oids_after=$(v2walk $BASE.1.3.1.3 2>/dev/null | cut -d' ' -f1 | sort)
for o in $(echo "$oids_before" | grep -F "$(str_oid fsync implied)"); do
	echo "$oids_after" | grep -qx "$o" || sfail "OID $o vanished after the subagent restarted"
done
pass "subagent restarted: the same OIDs serve the same counters"

# --- collectd stops: missing; a malformed and an unreadable file are states, not crashes ---------
stop_collectd
[ ! -e "$SNAP" ] || sfail "collectd left its snapshot behind: stale values would look current"
wait_until 5 status_is 2 || sfail "status not missing(2) after collectd stopped"
value $BASE.1.1.2.0 | grep -q "does not exist" || sfail "no error text for a missing snapshot"
[ -z "$(v2walk $BASE.1.3 2>/dev/null | grep "Counter")" ] || sfail "counters still served without a snapshot"
printf 'collectd-ebpf-snapshot\t3\nwritten\t1\n' > "$SNAP"
chmod 644 "$SNAP"
wait_until 5 status_is 4 || sfail "a truncated snapshot is not malformed(4)"
value $BASE.1.1.2.0 | grep -q "truncated" || sfail "no error text for a malformed snapshot"
printf 'collectd-ebpf-snapshot\t3\nend\n' > "$SNAP.new"; chmod 600 "$SNAP.new"; mv "$SNAP.new" "$SNAP"
wait_until 5 status_is 3 || sfail "an unreadable snapshot is not unreadable(3)"
value $BASE.1.1.2.0 | grep -q "Permission denied (run the subagent in the group of SnapshotGroup)" ||
	sfail "no error text for an unreadable snapshot: $(value $BASE.1.1.2.0)"
kill -0 "$SUBAGENT_PID" || sfail "the subagent died"
pass "collectd stopped: missing(2); malformed(4) and unreadable(3) files are reported with their reason"
