#!/bin/sh
# doc/snmp.md's trap receiver as printed: the real snmptrapd with the page's snmptrapd.conf
# (its MIB lines load only COLLECTD-EBPF-MIB and what it imports) logs no MIB error on a
# Debian host without the IETF modules, and still decodes a trap by our names. The same
# snmptrapd with `-m +COLLECTD-EBPF-MIB`, as the page said before, logs the missing
# modules: the check can fail. No collectd, no BPF: the trap is sent with snmptrap.
. "$top_srcdir/tests/support/lib.sh"

SNMPTRAPD=$(command -v snmptrapd || echo /usr/sbin/snmptrapd)
[ -x "$SNMPTRAPD" ] || skip "snmptrapd not installed (apt-get install snmptrapd)"
command -v snmptrap >/dev/null || skip "snmptrap not installed (apt-get install snmp)"
PORT=$((20000 + $$ % 20000))
# Private persistent state (so every run is net-snmp's first), no user configuration, and no
# MIBS in the environment (it would override the conf's list).
mkdir -p "$WORK/clientconf"
SNMPCONFPATH="$WORK/clientconf" SNMP_PERSISTENT_DIR="$WORK/persist"
export SNMPCONFPATH SNMP_PERSISTENT_DIR
unset MIBS MIBDIRS

# The host as `make install` makes it: the stand-ins of the modules COLLECTD-EBPF-MIB imports
# in /usr/share/collectd-ebpf/mibs, here in $WORK/standins, and COLLECTD-EBPF-MIB in
# /usr/share/snmp/mibs, a directory of net-snmp's default path, which the test leaves as it
# is: the MIB goes with the stand-ins.
mkdir "$WORK/standins"
cp "$top_srcdir"/tests/mibs/*.txt "$top_srcdir/snmp/COLLECTD-EBPF-MIB.txt" "$WORK/standins/"
awk '/^<!-- snmptrapd-conf:/ { s = 1; next } s && /^```$/ { if (in_block) exit; in_block = 1; next } in_block' \
	"$top_srcdir/doc/snmp.md" | sed "s|/usr/share/collectd-ebpf/mibs|$WORK/standins|" > "$WORK/snmptrapd.conf"
grep -q '^\[snmp\] mibs ' "$WORK/snmptrapd.conf" || fail "doc/snmp.md's snmptrapd.conf names no MIBs: $(cat "$WORK/snmptrapd.conf")"
echo 'authCommunity log public' >> "$WORK/snmptrapd.conf"

# run_trapd LOG [OPTION...]: snmptrapd with the page's conf (and no system one: -C, so that
# net-snmp's compiled-in list of MIBs is what the conf must replace), one ebpfOomKill sent to
# it, stopped once it has logged that trap.
run_trapd() {
	_log=$1; shift
	"$SNMPTRAPD" -f -C -c "$WORK/snmptrapd.conf" -Lf "$_log" \
		-F "TRAP %v\n" "$@" "udp:127.0.0.1:$PORT" &
	_pid=$!
	wait_for_log "NET-SNMP version" 10 "$_log" || { kill $_pid; fail "snmptrapd did not start: $(cat "$_log")"; }
	snmptrap -v2c -c public "127.0.0.1:$PORT" '' 1.3.6.1.3.3273.0.1 \
		1.3.6.1.3.3273.1.7.7.0 u 20805 1.3.6.1.3.3273.1.7.8.0 s java >/dev/null 2>&1 || true
	wait_for_log "^TRAP " 10 "$_log" || true
	kill $_pid
	wait $_pid 2>/dev/null || true
}

run_trapd "$WORK/doc.log"
grep -q '^TRAP ' "$WORK/doc.log" || fail "snmptrapd logged no trap: $(cat "$WORK/doc.log")"
errors=$(grep -v -e '^TRAP ' -e 'NET-SNMP version' -e '^Stopping snmptrapd' -e '^Created directory: ' \
	-e '^$' "$WORK/doc.log" || true)
[ -z "$errors" ] || fail "snmptrapd with doc/snmp.md's conf logged: $errors"
for want in 'OID: COLLECTD-EBPF-MIB::ebpfOomKill' 'COLLECTD-EBPF-MIB::ebpfEventPid.0 = Gauge32: 20805' \
	'COLLECTD-EBPF-MIB::ebpfEventProcessName.0 = STRING: java'; do
	grep -qF "$want" "$WORK/doc.log" || fail "the trap is not decoded by name ($want): $(grep '^TRAP ' "$WORK/doc.log")"
done
pass "doc/snmp.md's snmptrapd.conf: no MIB error, the trap decoded as ebpfOomKill with ebpfEventPid.0 and ebpfEventProcessName.0"

# What the page said before: -m +COLLECTD-EBPF-MIB adds our MIB to net-snmp's list of IETF
# modules, which this host lacks where snmp-mibs-downloader is not installed.
sed -i '/^\[snmp\] mibs /d' "$WORK/snmptrapd.conf"
run_trapd "$WORK/plus.log" -m +COLLECTD-EBPF-MIB
n=$(grep -c '^Cannot find module' "$WORK/plus.log" || true)
if [ -d /usr/share/snmp/mibs/ietf ] && [ "$(ls /usr/share/snmp/mibs/ietf | wc -l)" -gt 50 ]; then
	echo "(snmp-mibs-downloader's IETF modules are installed: -m +COLLECTD-EBPF-MIB found $n missing)"
else
	[ "$n" -gt 10 ] || fail "-m +COLLECTD-EBPF-MIB logged $n missing modules: the check above proves nothing"
	echo "-m +COLLECTD-EBPF-MIB, for comparison: $n lines 'Cannot find module', e.g. $(grep -m1 '^Cannot find module' "$WORK/plus.log")"
fi
