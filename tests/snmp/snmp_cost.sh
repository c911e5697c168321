#!/bin/sh
# The cost governor's steps at a real snmptrapd (doc/snmp.md, Notifications; doc/modules.md,
# The budget): collectd with the syscalls module's `Latency "all"` in a getppid storm (3
# threads) under a CpuBudget of 75% of what the module cost in the same storm with
# `CpuBudget "off"` (measured first, in a short run of its own, as
# tests/engine/collectd_cpu_budget.sh does); ebpf-subagent sends the snapshot's events to
# snmpd, which forwards them to a v2c trap2sink, the real snmptrapd, decoding with
# COLLECTD-EBPF-MIB:
#  - every step collectd notified (type_instance cost: down to 1 in 2 and more, back to 1 in
#    1) arrives as exactly one ebpfModuleStateChange trap, ebpfEventSubject "cost", its
#    severity and message the notification's: a WARNING step down and an OKAY step back;
#  - while sampled, ebpfGaugeTable's sample_rate row of the module reads N >= 2, and after
#    the storm 1; its cpu_cost row is a number.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/snmp_lib.sh"

STORM="$top_builddir/tests/support/getppid_storm"
STORM_PID=
# collectd's csv timestamps: reads are at least a second apart (plugin/ebpf.c, rrdtool).
INTERVAL=1
# snmptrapd first: a machine without it skips before the storms.
start_snmptrapd < /dev/null
trap '[ -z "$STORM_PID" ] || kill "$STORM_PID" 2>/dev/null || true; snmp_cleanup' EXIT INT TERM

config() { # $1: CpuBudget, $2: CostPeriod
	write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$SNAP"
  SnapshotGroup "nogroup"
  CostPeriod $2
  <Module "syscalls">
    Latency "all"
    CpuBudget "$1"
  </Module>
</Plugin>
CONF
}
after_next_read() { wait_for_new_line syscalls percent-cpu_cost; }

# --- 1. unsampled: what the module costs in the storm (no SNMP yet) -----------------------
# CostPeriod 2: a cost window in the storm, as the governor's own windows will be below.
config off 2
start_collectd "$WORK/collectd.conf"
wait_for_csv syscalls percent-cpu_cost 15 || fail "no percent-cpu_cost"
after_next_read
"$STORM" 3 3 > /dev/null || fail "getppid_storm failed"
after_next_read
C0=$(tail -n 3 "$(csv_file syscalls percent-cpu_cost)" | cut -d, -f2 | sort -g | tail -n 1)
stop_collectd
BUDGET=$(awk -v c="$C0" 'BEGIN { printf "%.2f", c * 0.75 }')
awk -v b="$BUDGET" 'BEGIN { exit !(b >= 0.01) }' || fail "the storm cost too little to test a budget: $C0%"
pass "unsampled: the storm cost $C0% of one CPU; budget $BUDGET%"
rm -rf "$WORK/csv" "$WORK/rrd" "$WORK/snap"
mv "$WORK/collectd.log" "$WORK/unsampled.log"

# --- 2. snmpd forwarding to snmptrapd, the subagent ----------------------------------
write_snmpd_conf <<CONF
trap2sink udp:127.0.0.1:$TRAP_PORT public
CONF
start_snmpd
start_subagent
wait_for_log "connected to snmpd's AgentX master" 10 "$WORK/subagent.log" || sfail "the subagent did not connect"

# --- 3. the same storm under the budget --------------------------------------------------
config "$BUDGET%" 60
start_collectd "$WORK/collectd.conf"
wait_for_csv syscalls percent-cpu_cost 15 || sfail "no percent-cpu_cost"
# The module's gauge rows: ebpfGaugeText (.4) of syscalls/sample_rate and syscalls/cpu_cost,
# whose instance is empty (nothing after the name in the index).
RATE_OID=$BASE.1.6.1.4.$(str_oid syscalls).$(str_oid sample_rate)
COST_OID=$BASE.1.6.1.4.$(str_oid syscalls).$(str_oid cpu_cost)
wait_until 10 snmp_is "$RATE_OID" 1 || sfail "ebpfGaugeText syscalls/sample_rate is '$(value "$RATE_OID")' before the storm, not 1"
after_next_read
"$STORM" 3 6 > /dev/null &
STORM_PID=$!
wait "$STORM_PID" || sfail "getppid_storm failed"
STORM_PID=
# A step back needs 5 reads at or under half the budget: right after the storm the module is
# still sampled.
rate=$(value "$RATE_OID")
awk -v n="$rate" 'BEGIN { exit !(n >= 2) }' ||
	sfail "after the storm ebpfGaugeText syscalls/sample_rate is '$rate', not N >= 2 (collectd: $(csv_values syscalls gauge-sample_rate))"
pass "sampled: ebpfGaugeText syscalls/sample_rate = $rate after the storm, cpu_cost $(value "$COST_OID")%"
wait_until 30 csv_is syscalls gauge-sample_rate 1.000000 || sfail "not back to 1 in 1 after the storm: $(csv_values syscalls gauge-sample_rate)"
wait_until 10 snmp_is "$RATE_OID" 1 || sfail "ebpfGaugeText syscalls/sample_rate is '$(value "$RATE_OID")' after the step back, not 1"
awk -v c="$(value "$COST_OID")" 'BEGIN { exit !(c ~ /^[0-9.e+-]+$/ && c >= 0) }' ||
	sfail "ebpfGaugeText syscalls/cpu_cost is '$(value "$COST_OID")', not a number"
pass "back: ebpfGaugeText syscalls/sample_rate = 1, cpu_cost $(value "$COST_OID")%"

# --- 4. each step collectd notified is one trap, with its severity and message -------------
# The notifications' messages (collectd's logfile: "... type_instance = cost, message = M").
sed -n 's/.*Notification: severity = \([A-Z]*\),.*type_instance = cost, message = /\1\t/p' "$WORK/collectd.log" > "$WORK/steps"
grep -q "^WARNING	.*Latency sampled 1 in 2," "$WORK/steps" || sfail "no WARNING notification of the step to 1 in 2: $(cat "$WORK/steps")"
grep -q "^OKAY	.*Latency measured 1 in 1 again" "$WORK/steps" || sfail "no OKAY notification of the step back: $(cat "$WORK/steps")"
cost_traps() { grep -F 'ebpfEventSubject.0 = STRING: cost	' "$WORK/snmptrapd.log" | grep -F "COLLECTD-EBPF-MIB::ebpfModuleStateChange" || true; }
all_arrived() { [ "$(cost_traps | wc -l)" -ge "$(wc -l < "$WORK/steps")" ]; }
wait_until 15 all_arrived || true
sleep 2 # none repeated: what arrives late would be counted below
cost_traps > "$WORK/cost_traps"
[ "$(wc -l < "$WORK/cost_traps")" = "$(wc -l < "$WORK/steps")" ] ||
	sfail "$(wc -l < "$WORK/steps") cost notifications but $(wc -l < "$WORK/cost_traps") cost traps: $(cat "$WORK/cost_traps")"
while IFS='	' read -r sev msg; do
	sev=$(echo "$sev" | tr 'A-Z' 'a-z')
	# the message after the module's quoted name: snmptrapd may escape the quotes
	tail=${msg#module \"syscalls\" }
	grep -F "ebpfEventSeverity.0 = INTEGER: $sev(" "$WORK/cost_traps" | grep -F "ebpfEventModule.0 = STRING: syscalls	" |
		grep -qF -- "$tail" || sfail "no $sev cost trap of syscalls saying: $tail; traps: $(cat "$WORK/cost_traps")"
done < "$WORK/steps"
pass "$(wc -l < "$WORK/steps") steps, each one ebpfModuleStateChange trap with subject cost, e.g. $(grep -m 1 -o 'ebpfEventMessage.0 = [^	]*' "$WORK/cost_traps")"
stop_collectd
