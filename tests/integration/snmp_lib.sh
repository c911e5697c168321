# Shared by the SNMP integration tests; sourced after lib.sh. The tools they need (skip,
# with the package to install, when one is missing), a private loopback UDP port for snmpd,
# net-snmp clients that read no system or user configuration, snmpd and the subagent
# stopped on exit, and their logs shown on failure.
SUBAGENT="$top_builddir/ebpf-subagent"
FSYNC_N="$top_builddir/tests/integration/fsync_n"
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

# Clients read no system or user configuration: the test says everything on the command line.
# Their persistent state is private too, so every run is net-snmp's first run on a machine
# (it creates the directory and says so on stderr, which the tests never take as data).
# MIBS= is what Debian's /etc/snmp/snmp.conf says (`mibs :`): no MIB unless -m names one.
mkdir -p "$WORK/clientconf"
SNMPCONFPATH="$WORK/clientconf"
SNMP_PERSISTENT_DIR="$WORK/client-persist"
MIBS=
export SNMPCONFPATH SNMP_PERSISTENT_DIR MIBS

# snmp_stop_daemons: the subagent and snmpd, for a test whose own exit trap needs more.
snmp_stop_daemons() {
	[ -n "$SUBAGENT_PID" ] && kill "$SUBAGENT_PID" 2>/dev/null && wait "$SUBAGENT_PID" 2>/dev/null
	[ -n "$SNMPD_PID" ] && kill "$SNMPD_PID" 2>/dev/null && wait "$SNMPD_PID" 2>/dev/null
	SUBAGENT_PID= SNMPD_PID=
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
