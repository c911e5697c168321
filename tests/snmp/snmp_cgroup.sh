#!/bin/sh
# Per-cgroup rows over SNMP, with the real daemons (snmpd as AgentX master, collectd -f with
# syscalls By "cgroup", ebpf-subagent as nobody): two cgroups made by the test under a private
# parent in the cgroup2 mount do N and K fsync calls. ebpfCgroupCounterTable (under
# ebpfCgroupObjects, apart from the host-wide tables) serves them as the rows whose instance is
# the cgroup as collectd names it (path below the cgroup2 root, '/' -> '_') before a '/' and the
# syscall: calls of <parent>_a/fsync is N exactly, of <parent>_b/fsync K, by snmpget and in a
# snmpwalk of the module's calls; ebpfCgroupHistTable counts the same calls, and so do the
# cgroup's ebpfCgroupBucketTable rows added up; ebpfCounterTable has none of these rows. A
# third cgroup, whose instance is longer than the 48 bytes an index holds, is served under the
# index the MIB's rule gives (its first 34 bytes, '~', 13 base32hex digits of the FNV-1a 64-bit
# hash of the whole instance: computed here apart from the subagent), with its exact count,
# and ebpfCgroupCounterFullInstance is the whole instance (doc/snmp.md). contrib/snmpd.conf.snippet's
# views: a v2c walk names no cgroup (snmp.md, Security) and has the host-wide rows (the fsync
# calls of all three cgroups in the host-wide count, its histogram, buckets and gauges); an
# SNMPv3 authPriv walk has the per-cgroup rows with their exact counts.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/snmp_lib.sh"

cgroup2_root 'By "cgroup" names cgroup2 cgroups'
PARENT=ebpf-it-snmpcg-$$
LONG=name-longer-than-the-mib-index
CGROUPS="a b $LONG"
mkdir "$CG_ROOT/$PARENT" || skip "cannot make a cgroup under $CG_ROOT"
for c in $CGROUPS; do mkdir "$CG_ROOT/$PARENT/$c" || fail "cannot make the cgroup $PARENT/$c"; done
snmp_cg_cleanup() {
	snmp_stop_daemons || true
	for c in $CGROUPS; do rmdir "$CG_ROOT/$PARENT/$c" 2>/dev/null || true; done
	rmdir "$CG_ROOT/$PARENT" 2>/dev/null || true
	cleanup
}
trap snmp_cg_cleanup EXIT INT TERM

N=140 K=65 M=20
LONG_INSTANCE="${PARENT}_$LONG/fsync"
[ ${#LONG_INSTANCE} -gt 48 ] || fail "the long instance $LONG_INSTANCE is only ${#LONG_INSTANCE} bytes"
mkdir -m 0755 "$WORK/snap"
write_fsync_config "$WORK/collectd.conf" "$SNAP" nogroup 'By "cgroup"' 'CgroupDepth 2' "Cgroup \"/$PARENT/*\"" < /dev/null
# Beside the tests' community public (a view of the whole subtree), contrib/snmpd.conf.snippet's
# views, communities and SNMPv3 user, and doc/snmp.md's v2c community for this host.
grep -E '^(view|rocommunity|createUser|rouser) ' "$top_srcdir/contrib/snmpd.conf.snippet" > "$WORK/snippet"
grep -q '^view ebpfV2cView ' "$WORK/snippet" && grep -q '^rouser ebpfpoll ' "$WORK/snippet" ||
	fail "contrib/snmpd.conf.snippet has no ebpfV2cView or user ebpfpoll: $(cat "$WORK/snippet")"
{ cat "$WORK/snippet"; echo 'rocommunity ebpf-ro-CHANGE-ME 127.0.0.1 -V ebpfV2cView'; } | write_snmpd_conf
start_snmpd
start_collectd "$WORK/collectd.conf"

# run CGROUP COUNT: fsync_n COUNT times from inside the cgroup.
run() { sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3"' sh "$CG_ROOT/$PARENT/$1" "$FSYNC_N" "$2" || sfail "the workload in $1 failed"; }
run a $N
run b $K
start_subagent
wait_until $((PING + 5)) status_is 1 || sfail "snapshot status not ok(1) over SNMP"
# The long cgroup appears while the subagent serves: it names the new series it leaves out.
run "$LONG" $M
snap_has_long() { grep -Eq "^counter	calls	$LONG_INSTANCE	$M(	|\$)" "$SNAP"; } # then its labels (format 3)
wait_until 15 snap_has_long ||
	sfail "the snapshot has no counter calls $LONG_INSTANCE $M: $(grep "$PARENT" "$SNAP" 2>&1 | head -5)"

CALLS="$EBPF_CGROUP_COUNTER_VALUE.$(str_oid syscalls).$(str_oid calls)"
HISTCOUNT="$EBPF_CGROUP_HIST_COUNT.$(str_oid syscalls).$(str_oid latency)"
HOST_CALLS="$EBPF_COUNTER_VALUE.$(str_oid syscalls).$(str_oid calls)"
oid_a="$CALLS.$(str_oid "${PARENT}_a/fsync" implied)"
oid_b="$CALLS.$(str_oid "${PARENT}_b/fsync" implied)"
value_is() { [ "$(value "$1")" = "$2" ]; }
# The rule on the MIB's own example, so that a wrong index_of fails here and not as a missing row.
[ "$(index_of system.slice_docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope/fsync)" = \
	system.slice_docker-0123456789abcd~atmmkn27eg7ds ] || fail "index_of does not give the MIB's example index"
wait_until 15 value_is "$oid_a" $N || sfail "calls of ${PARENT}_a/fsync is '$(value "$oid_a")' at $oid_a, not $N"
wait_until 15 value_is "$oid_b" $K || sfail "calls of ${PARENT}_b/fsync is '$(value "$oid_b")' at $oid_b, not $K"
pass "snmpget ebpfCgroupCounterValue: ${PARENT}_a/fsync $N, ${PARENT}_b/fsync $K"
# Not in the host-wide table: that one holds no cgroup's row.
for c in a b; do
	out=$(v2 "$HOST_CALLS.$(str_oid "${PARENT}_$c/fsync" implied)" 2>&1) || true
	echo "$out" | grep -q "No Such" || sfail "ebpfCounterTable has the row ${PARENT}_$c/fsync: $out"
done
host=$(v2walk "$BASE.1.3" 2>&1) || sfail "snmpwalk of ebpfCounterTable: $host"
! echo "$host" | grep -qF ".$(str_oid "${PARENT}_" implied)" ||
	sfail "ebpfCounterTable has rows of ${PARENT}: $(echo "$host" | grep -F ".$(str_oid "${PARENT}_" implied)" | head -n 3)"

# The walk of the module's calls: the same two fsync rows of this test's cgroups, those values.
walk=$(v2walk "$CALLS" 2>&1) || sfail "snmpwalk of $CALLS: $walk"
# Each of the cgroups has a row per syscall it called; those of fsync are two.
ours=$(echo "$walk" | grep -F "$CALLS.$(str_oid "${PARENT}_" implied)." | grep -F ".$(str_oid /fsync implied) = " || true)
[ "$(echo "$ours" | grep -c .)" = 2 ] || sfail "the walk of calls has not exactly two fsync rows of ${PARENT}: $ours"
echo "$ours" | grep -qxF "$oid_a = Counter64: $N" || sfail "the walk has no $oid_a = $N: $ours"
echo "$ours" | grep -qxF "$oid_b = Counter64: $K" || sfail "the walk has no $oid_b = $K: $ours"
for c in a b; do
	h=$(value "$HISTCOUNT.$(str_oid "${PARENT}_$c/fsync" implied)")
	want=$N; [ $c = a ] || want=$K
	[ "$h" = $want ] || sfail "ebpfCgroupHistCount of ${PARENT}_$c/fsync is '$h', not $want"
	b=$(v2walk "$EBPF_CGROUP_BUCKET_COUNT.$(str_oid syscalls).$(str_oid latency).$(str_oid "${PARENT}_$c/fsync")" 2>&1 |
		sed -n 's/.* = Counter64: //p' | awk '{ s += $1 } END { printf "%d", s }')
	[ "$b" = $want ] || sfail "the ebpfCgroupBucketCount rows of ${PARENT}_$c/fsync add up to '$b', not $want"
done
pass "snmpwalk: exactly the rows ${PARENT}_a/fsync = $N and ${PARENT}_b/fsync = $K; ebpfCgroupHistCount and the buckets the same"

# The long one: collectd has it (above); its row is served under the index the rule gives, with
# its exact count, and its whole instance in ebpfCounterFullInstance (column 5).
LONG_INDEX=$(index_of "$LONG_INSTANCE")
[ ${#LONG_INDEX} = 48 ] || fail "the index of $LONG_INSTANCE is not 48 bytes: $LONG_INDEX"
oid_long="$CALLS.$(str_oid "$LONG_INDEX" implied)"
wait_until 15 value_is "$oid_long" $M ||
	sfail "calls of the ${#LONG_INSTANCE}-byte $LONG_INSTANCE is '$(value "$oid_long")' at index $LONG_INDEX, not $M"
full=$(value "$EBPF_CGROUP_COUNTER_FULL.$(str_oid syscalls).$(str_oid calls).$(str_oid "$LONG_INDEX" implied)")
[ "$full" = "$LONG_INSTANCE" ] || sfail "ebpfCgroupCounterFullInstance at index $LONG_INDEX is '$full', not $LONG_INSTANCE"
h=$(value "$HISTCOUNT.$(str_oid "$LONG_INDEX" implied)")
[ "$h" = $M ] || sfail "ebpfCgroupHistCount of $LONG_INSTANCE (index $LONG_INDEX) is '$h', not $M"
walk=$(v2walk "$CALLS" 2>&1) || sfail "snmpwalk of $CALLS: $walk"
echo "$walk" | grep -qxF "$oid_long = Counter64: $M" || sfail "the walk of calls has no $oid_long = $M"
# The whole instance is no index (its OID would pass 128 arcs with a longer cgroup), and the
# subagent no longer leaves it out.
out=$(v2 "$CALLS.$(str_oid "$LONG_INSTANCE" implied)" 2>&1) || true
echo "$out" | grep -q "No Such" || sfail "the whole ${#LONG_INSTANCE}-byte instance answered as an index: $out"
! grep -q "series left out.*${PARENT}_$LONG" "$WORK/subagent.log" ||
	sfail "the subagent logged $LONG_INSTANCE as left out: $(grep -m1 'series left out' "$WORK/subagent.log")"
pass "the ${#LONG_INSTANCE}-byte instance $LONG_INSTANCE: calls $M and ebpfCgroupHistCount $M at index $LONG_INDEX, ebpfCgroupCounterFullInstance = the instance"

# The snippet's views: v2c (clear text) shows the module's state and every host-wide table, and
# no cgroup at all, neither in an OID nor in a value; SNMPv3 authPriv shows the per-cgroup rows.
v2c=$(snmpwalk -v2c -c ebpf-ro-CHANGE-ME -On -Oe -t 2 -r 1 "$AGENT" "$BASE" 2>&1) || sfail "v2c walk of $BASE: $v2c"
echo "$v2c" | grep -qF "$BASE.1.2.1.2.$(str_oid syscalls implied) = INTEGER: 1" ||
	sfail "the snippet's v2c view does not show the syscalls module running: $v2c"
leaks=$(echo "$v2c" | grep -F -e ".$(str_oid "${PARENT}_" implied)" -e "$PARENT" -e '.slice' -e "$EBPF_CGROUP." || true)
[ -z "$leaks" ] || sfail "the snippet's v2c view names cgroups: $(echo "$leaks" | head -n 3)"
# The host-wide fsync count holds the calls of all three cgroups (and of whatever else on this
# host called fsync); its histogram counts them too; the module's gauges (map fill) are there.
host_fsync=$(echo "$v2c" | sed -n "s/^$HOST_CALLS.$(str_oid fsync implied) = Counter64: //p")
[ -n "$host_fsync" ] && [ "$host_fsync" -ge $((N + K + M)) ] ||
	sfail "the snippet's v2c view has no host-wide fsync count of at least $((N + K + M)): '$host_fsync'"
host_hist=$(echo "$v2c" | sed -n "s/^$EBPF_HIST_COUNT.$(str_oid syscalls).$(str_oid latency).$(str_oid fsync implied) = Counter64: //p")
[ -n "$host_hist" ] && [ "$host_hist" -ge $((N + K + M)) ] ||
	sfail "the snippet's v2c view has no host-wide fsync latency count of at least $((N + K + M)): '$host_hist'"
for t in 3 4 5 6; do
	echo "$v2c" | grep -q "^$BASE\.1\.$t\.1\.[0-9]*\.$(str_oid syscalls)\." ||
		sfail "the snippet's v2c view has no row of the syscalls module under $BASE.1.$t"
done
v3=$(snmpwalk -v3 -l authPriv -u ebpfpoll -a SHA-256 -A auth-pass-CHANGE-ME -x AES -X priv-pass-CHANGE-ME \
	-On -Oe -t 2 -r 1 "$AGENT" "$EBPF_CGROUP" 2>&1) || sfail "v3 walk of $EBPF_CGROUP: $v3"
oid_long_hist="$HISTCOUNT.$(str_oid "$LONG_INDEX" implied)"
for row in "$oid_a = Counter64: $N" "$oid_b = Counter64: $K" "$oid_long = Counter64: $M" \
	"$HISTCOUNT.$(str_oid "${PARENT}_a/fsync" implied) = Counter64: $N" "$oid_long_hist = Counter64: $M"; do
	echo "$v3" | grep -qxF "$row" ||
		sfail "the snippet's v3 view has not $row: $(echo "$v3" | grep -F "$(str_oid "$PARENT" implied)" | head -n 3)"
done
# doc/snmp.md's snmptable of ebpfCgroupCounterTable, as printed (the private port for localhost,
# the MIB from the tree for the installed one): a row per cgroup's fsync with its calls.
doc_cmd=$(awk '/<!-- per-cgroup-table:/ { on = 1; next } on && /```sh/ { code = 1; next } code && /```/ { exit }
	code { sub(/^ +/, ""); line = line $0 } code && /\\$/ { sub(/\\$/, "", line); next } code && line != "" { print line; line = "" }' \
	"$top_srcdir/doc/snmp.md")
[ "$(echo "$doc_cmd" | grep -c '^snmptable ')" = 1 ] || fail "doc/snmp.md has no snmptable command after <!-- per-cgroup-table: -->: $doc_cmd"
doc_cmd=$(echo "$doc_cmd" | sed -e "s| localhost | $AGENT |" \
	-e "s|-M +/usr/share/collectd-ebpf/mibs |-M +$top_srcdir/tests/mibs:$top_srcdir/snmp |")
sh -c "$doc_cmd" > "$WORK/cgtable.out" 2> "$WORK/cgtable.err" || sfail "doc/snmp.md's $doc_cmd failed: $(cat "$WORK/cgtable.err")"
for row in "${PARENT}_a/fsync $N" "${PARENT}_b/fsync $K" "$LONG_INDEX $M"; do
	grep -Eq "^ *\"syscalls\"\.\"calls\"\.'${row% *}' +${row#* } +${row#* } +" "$WORK/cgtable.out" ||
		sfail "doc/snmp.md's snmptable of ebpfCgroupCounterTable has no row ${row% *} = ${row#* }: $(cat "$WORK/cgtable.out" "$WORK/cgtable.err")"
done
grep -Eq "'$LONG_INDEX' +$M +$M +$LONG_INSTANCE\$" "$WORK/cgtable.out" ||
	sfail "doc/snmp.md's snmptable of ebpfCgroupCounterTable does not show $LONG_INSTANCE whole: $(cat "$WORK/cgtable.out")"
sed 's/^/  /' "$WORK/cgtable.out"
pass "the snippet's views: v2c $(echo "$v2c" | grep -c .) objects, none naming a cgroup, host-wide fsync $host_fsync calls >= $((N + K + M)) and its latency, buckets and gauges; v3 the rows ${PARENT}_a/fsync = $N, ${PARENT}_b/fsync = $K and $LONG_INDEX = $M in ebpfCgroupCounterTable and ebpfCgroupHistTable"
stop_collectd
