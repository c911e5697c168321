# Shared by the SNMP integration tests; sourced after lib.sh. The tools they need (skip,
# with the package to install, when one is missing), a private loopback UDP port for snmpd,
# net-snmp clients that read no system or user configuration, snmpd and the subagent
# stopped on exit, and their logs shown on failure.
SUBAGENT="$top_builddir/ebpf-subagent"
FSYNC_N="$top_builddir/tests/support/fsync_n"
[ -x "$SUBAGENT" ] || skip "ebpf-subagent not built (configure: SNMP subagent .... no; apt-get install libsnmp-dev)"
SNMPD=$(command -v snmpd || echo /usr/sbin/snmpd)
[ -x "$SNMPD" ] || skip "snmpd not installed (apt-get install snmpd)"
for t in snmpget snmpwalk snmptable setpriv; do
	command -v $t >/dev/null || skip "$t not installed (apt-get install snmp util-linux)"
done
getent group nogroup >/dev/null || skip "no group nogroup to run the subagent in"

PORT=$((20000 + $$ % 20000))
AGENT="udp:127.0.0.1:$PORT"
SNMPD_PID=
SUBAGENT_PID=
TRAPD_PID=
# snmptrapd's port (start_snmptrapd), beside snmpd's.
TRAP_PORT=$((PORT + 1))

# Clients read no system or user configuration: the test says everything on the command line.
# Their persistent state is private too, so every run is net-snmp's first run on a machine
# (it creates the directory and says so on stderr, which the tests never take as data).
# MIBS= is what Debian's /etc/snmp/snmp.conf says (`mibs :`): no MIB unless -m names one.
mkdir -p "$WORK/clientconf"
SNMPCONFPATH="$WORK/clientconf"
SNMP_PERSISTENT_DIR="$WORK/client-persist"
MIBS=
export SNMPCONFPATH SNMP_PERSISTENT_DIR MIBS

# snmp_stop_daemons: the subagent, snmpd and snmptrapd, for a test whose own exit trap needs more.
snmp_stop_daemons() {
	[ -n "$TRAPD_PID" ] && kill "$TRAPD_PID" 2>/dev/null && wait "$TRAPD_PID" 2>/dev/null
	[ -n "$SUBAGENT_PID" ] && kill "$SUBAGENT_PID" 2>/dev/null && wait "$SUBAGENT_PID" 2>/dev/null
	[ -n "$SNMPD_PID" ] && kill "$SNMPD_PID" 2>/dev/null && wait "$SNMPD_PID" 2>/dev/null
	SUBAGENT_PID= SNMPD_PID= TRAPD_PID=
}
snmp_cleanup() {
	snmp_stop_daemons || true
	cleanup
}
trap snmp_cleanup EXIT INT TERM

# The logs shown on failure (the last 30 lines of each); a test that moves them sets this.
SNMP_LOGS="$WORK/subagent.log $WORK/snmpd.log $WORK/collectd.log"
show_logs() {
	for f in $SNMP_LOGS; do
		[ -f "$f" ] && sed "s|^|  ${f##*/}: |" "$f" | tail -n 30 >&2
	done
}
sfail() { show_logs; KEEP_WORK=${KEEP_WORK:-}; echo "FAIL: $*" >&2; exit 1; }

# wait_for_snmpd COMMUNITY: until snmpd answers sysUpTime.0 on $AGENT over v2c (10 s).
wait_for_snmpd() {
	wait_until 10 snmpget -v2c -c "$1" -t 1 -r 0 "$AGENT" .1.3.6.1.2.1.1.3.0
}

# The private snmpd + subagent pair most tests run: AgentX on a socket in $WORK, the
# subagent as nobody:nogroup serving $SNAP, the MIB under $BASE, v2c community public.
SNAP="$WORK/snap/snapshot"
SOCK="$WORK/agentx/master"
BASE=.1.3.6.1.3.3273
PING=2
mkdir -p "$WORK/snmpd-persist" "$WORK/agentx"

v2() { snmpget -v2c -c public -On -Oe -t 2 -r 1 "$AGENT" "$@"; }
v2walk() { snmpwalk -v2c -c public -On -Oe -t 2 -r 1 "$AGENT" "$@"; }
# value OID: the bare value of one object over v2c ("" on error).
value() { v2 -Ovq "$1" 2>/dev/null | tr -d '"'; }
status_is() { [ "$(value $BASE.1.1.1.0)" = "$1" ]; }
is_number() { case "$(value "$1")" in ''|*[!0-9]*) return 1 ;; esac; }

# OID of a string index component: length-prefixed unless "implied".
str_oid() {
	bytes=$(printf '%s' "$1" | od -An -v -tu1 | tr -s ' \n' '  ' | sed 's/^ *//; s/ *$//' | tr ' ' '.')
	if [ "${2:-}" = implied ]; then echo "$bytes"; else echo "${#1}.$bytes"; fi
}

# write_snmpd_conf: $WORK/snmpd.conf, the AgentX master and a v2c view of the system group
# and $BASE; lines on stdin are appended.
write_snmpd_conf() {
	cat > "$WORK/snmpd.conf" <<CONF
[snmp] persistentDir $WORK/snmpd-persist
master agentx
agentXSocket $SOCK
agentXPerms 0660 0755 root nogroup
view ebpfView included .1.3.6.1.2.1.1
view ebpfView included $BASE
rocommunity public 127.0.0.1 -V ebpfView
dontLogTCPWrappersConnects yes
CONF
	cat >> "$WORK/snmpd.conf"
}

start_snmpd() {
	"$SNMPD" -f -C -c "$WORK/snmpd.conf" -p "$WORK/snmpd.pid" -Lf "$WORK/snmpd.log" \
		-I -smux,mteTrigger,mteTriggerConf "$AGENT" &
	SNMPD_PID=$!
	wait_for_snmpd public || sfail "snmpd did not answer on $AGENT"
}

stop_snmpd() {
	kill "$SNMPD_PID" && wait "$SNMPD_PID" 2>/dev/null || true
	SNMPD_PID=
}

# start_snmptrapd: the real snmptrapd on udp:127.0.0.1:$TRAP_PORT (skips when it is not
# installed), decoding with COLLECTD-EBPF-MIB; v2c community public is logged, lines on stdin
# are added to its configuration. One trap per line of $WORK/snmptrapd.log: "TRAP", the
# sender's community (v2c) or security name (v3), then the varbinds, TAB-separated.
start_snmptrapd() {
	_trapd=$(command -v snmptrapd || echo /usr/sbin/snmptrapd)
	[ -x "$_trapd" ] || skip "snmptrapd not installed (apt-get install snmptrapd)"
	mkdir -p "$WORK/trapd-persist"
	{
		printf '[snmp] persistentDir %s\nauthCommunity log public\ndoNotRetainNotificationLogs yes\n' "$WORK/trapd-persist"
		cat
	} > "$WORK/snmptrapd.conf"
	SNMP_LOGS="$SNMP_LOGS $WORK/snmptrapd.log"
	"$_trapd" -f -C -c "$WORK/snmptrapd.conf" -Lf "$WORK/snmptrapd.log" \
		-M "$top_srcdir/snmp:/usr/share/snmp/mibs:$top_srcdir/tests/mibs" -m COLLECTD-EBPF-MIB \
		-F "TRAP %u\t%v\n" "udp:127.0.0.1:$TRAP_PORT" &
	TRAPD_PID=$!
	wait_for_log "NET-SNMP version" 10 "$WORK/snmptrapd.log" || sfail "snmptrapd did not start"
}

# start_subagent [OPTION...]: in the background, options added to the usual ones.
start_subagent() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
		"$SUBAGENT" --snapshot="$SNAP" --agentx-socket="$SOCK" --ping-interval=$PING "$@" \
		>> "$WORK/subagent.log" 2>&1 &
	SUBAGENT_PID=$!
}

# start_snmp [OPTION...]: the usual pair, snmpd as write_snmpd_conf writes it with nothing
# added (answering), then the subagent with the OPTIONs.
start_snmp() {
	write_snmpd_conf < /dev/null
	start_snmpd
	start_subagent "$@"
}

# The tables' value columns under $BASE, named as COLLECTD-EBPF-MIB names them: each row's
# index is the module, the metric (both length-prefixed), then the instance (implied).
EBPF_COUNTER_VALUE=$BASE.1.3.1.3
EBPF_COUNTER_FULL=$BASE.1.3.1.5
EBPF_HIST_COUNT=$BASE.1.4.1.4
EBPF_HIST_SUM=$BASE.1.4.1.6
EBPF_GAUGE_VALUE=$BASE.1.6.1.3
# The same columns per cgroup (ebpfCgroupObjects, .1.8): the rows whose instance is
# "<cgroup>/<instance>" (By "cgroup").
EBPF_CGROUP=$BASE.1.8
EBPF_CGROUP_COUNTER_VALUE=$EBPF_CGROUP.1.1.3
EBPF_CGROUP_COUNTER_FULL=$EBPF_CGROUP.1.1.5
EBPF_CGROUP_HIST_COUNT=$EBPF_CGROUP.2.1.4
EBPF_CGROUP_BUCKET_COUNT=$EBPF_CGROUP.3.1.4

# snmp_is OID VALUE: the object reads VALUE over v2c.
snmp_is() { [ "$(value "$1")" = "$2" ]; }

# snmp_row COLUMN MODULE METRIC INSTANCE: the OID of one row's value in COLUMN.
snmp_row() { echo "$1.$(str_oid "$2").$(str_oid "$3").$(str_oid "$4" implied)"; }

# snmp_as_csv COLUMN MODULE METRIC INSTANCE CSV-SERIES VALUE: the row reads VALUE over SNMP
# and collectd wrote VALUE as CSV-SERIES of plugin instance ebpf-MODULE (each waited for, 10 s),
# so what the subagent serves is what collectd dispatched. A gauge's csv value is compared as
# a number (collectd writes 1 as 1.000000).
snmp_as_csv() {
	_oid=$(snmp_row "$1" "$2" "$3" "$4")
	wait_until 10 snmp_is "$_oid" "$6" || sfail "$2/$3/$4 is '$(value "$_oid")' over SNMP ($_oid), expected $6"
	wait_until 10 csv_number_is "$2" "$5" "$6" || sfail "collectd's $5 of ebpf-$2 is '$(csv_last "$2" "$5")', expected $6"
}
csv_number_is() { [ "$(awk -v v="$(csv_last "$1" "$2")" 'BEGIN { if (v != "") printf "%.15g", v }')" = "$3" ]; }

# snmp_counter_as_csv MODULE COUNTER CSV-SERIES VALUE: ebpfCounterTable's row of the series
# (its instance is the series without its type: derive-syscalls-write is syscalls-write).
snmp_counter_as_csv() {
	snmp_as_csv "$EBPF_COUNTER_VALUE" "$1" "$2" "${3#*-}" "$3" "$4"
	pass "ebpfCounterTable $1.$2.${3#*-} = $4, as collectd's $3"
}

# snmp_counter_follows_csv MODULE COUNTER CSV-SERIES: for a count that grows at every read,
# the row and collectd's csv say the same number, not 0, at one moment within 10 s.
snmp_counter_follows_csv() {
	_oid=$(snmp_row "$EBPF_COUNTER_VALUE" "$1" "$2" "${3#*-}") _module=$1 _series=$3
	wait_until 10 snmp_same_as_csv ||
		sfail "$1/$2/${3#*-} over SNMP ($(value "$_oid")) never equalled collectd's $3 ($(csv_last "$1" "$3"))"
	pass "ebpfCounterTable $1.$2.${3#*-} = $_now, as collectd's $3 at that moment"
}
snmp_same_as_csv() {
	_now=$(value "$_oid")
	[ -n "$_now" ] && [ "$_now" != 0 ] && csv_number_is "$_module" "$_series" "$_now"
}

# snmp_buckets MODULE HIST INSTANCE FILE: the histogram's ebpfBucketTable rows into FILE, a
# line each "lower upper count" (ebpfBucketLower .2, Upper .3, Count .4; the instance is
# length-prefixed there, not the last index part).
snmp_buckets() {
	_index="$(str_oid "$1").$(str_oid "$2").$(str_oid "$3")"
	for _c in 2 3 4; do
		v2walk "$BASE.1.5.1.$_c.$_index" 2>/dev/null | sed 's/.*: //' > "$4.$_c"
	done
	paste -d ' ' "$4.2" "$4.3" "$4.4" > "$4"
	[ -s "$4" ] || sfail "no ebpfBucketTable rows for $1/$2/$3"
}
# bucket_holding FILE VALUE: the count of the bucket row (lower, upper] that holds VALUE.
bucket_holding() { awk -v v="$2" '$1 + 0 < v && v <= $2 + 0 { print $3 }' "$1"; }
# bucket_total FILE: the counts of all its rows added up.
bucket_total() { awk '{ s += $3 } END { printf "%d", s }' "$1"; }

# snmp_rows COLUMN MODULE METRIC: how many rows the metric has in COLUMN.
snmp_rows() { v2walk "$1.$(str_oid "$2").$(str_oid "$3")" 2>/dev/null | grep -c ' = [A-Za-z0-9]*: ' || true; }

# index_of INSTANCE: the MIB's index text of an instance (COLLECTD-EBPF-MIB, ebpfCounterInstance):
# itself up to 48 bytes, else its first 34 bytes, '~' and 13 base32hex digits of FNV-1a 64 of the
# whole, most significant first. The hash in 32-bit halves, so that sh's 64-bit arithmetic never
# overflows: h * (2^40 + 0x1b3) mod 2^64. ASCII only (the C cuts back to a UTF-8 boundary).
index_of() {
	[ ${#1} -le 48 ] && { printf '%s' "$1"; return; }
	hi=$((0xcbf29ce4)) lo=$((0x84222325))
	for b in $(printf '%s' "$1" | od -An -v -tu1); do
		lo=$((lo ^ b))
		p=$((lo * 0x1b3))
		hi=$(((hi * 0x1b3 + (p >> 32) + (lo << 8)) & 0xffffffff))
		lo=$((p & 0xffffffff))
	done
	out="$(printf '%s' "$1" | cut -b1-34)~" s=60
	while [ $s -ge 0 ]; do
		if [ $s -ge 32 ]; then d=$(((hi >> (s - 32)) & 31))
		else d=$((((lo >> s) | (hi << (32 - s))) & 31)); fi
		out=$out$(echo 0123456789abcdefghijklmnopqrstuv | cut -c$((d + 1)))
		s=$((s - 5))
	done
	printf '%s' "$out"
}

# snmp_long_served MODULE METRIC INSTANCE VALUE: a series whose instance is longer than 48
# bytes is served under the index the MIB's rule gives (index_of) with VALUE, its whole
# instance in ebpfCounterFullInstance, and the subagent does not log it as left out; collectd
# has it (the caller checked).
snmp_long_served() {
	[ ${#3} -gt 48 ] || sfail "$3 is ${#3} bytes: served under itself, not a long instance"
	_index=$(index_of "$3")
	_oid=$(snmp_row "$EBPF_COUNTER_VALUE" "$1" "$2" "$_index")
	wait_until 10 snmp_is "$_oid" "$4" || sfail "the ${#3}-byte $1/$2/$3 is '$(value "$_oid")' at index $_index, expected $4"
	_full=$(value "$(snmp_row "$EBPF_COUNTER_FULL" "$1" "$2" "$_index")")
	[ "$_full" = "$3" ] || sfail "ebpfCounterFullInstance of $1/$2 at index $_index is '$_full', not $3"
	! grep -qF -- "$1/$2/$(printf '%.40s' "$3")" "$WORK/subagent.log" ||
		sfail "the subagent logged $1/$2/$3: $(grep -F -- "$1/$2/$(printf '%.40s' "$3")" "$WORK/subagent.log")"
	pass "the ${#3}-byte instance of $1/$2 is served at index $_index = $4, its whole instance in ebpfCounterFullInstance"
}

# wait_module_running MODULE: its ebpfModuleTable row says running(1) within 10 s.
module_running() { case "$(value "$BASE.1.2.1.2.$(str_oid "$1" implied)")" in 1|running*) return 0 ;; esac; return 1; }
wait_module_running() {
	wait_until 10 module_running "$1" || sfail "ebpfModuleState.$1 = $(value "$BASE.1.2.1.2.$(str_oid "$1" implied)"), not running"
}
