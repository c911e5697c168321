#!/bin/sh
# doc/snmp.md's SNMP walk, as printed: section "From package install to first poll (Debian)",
# steps 3-7, with steps 4 and 5 done by hand as its "Without systemd" paragraph says. The
# commands are taken from doc/snmp.md and run as they are, except for what must change to run
# on a test machine without touching its state:
#   - system paths move into the test's directory: /etc/snmp/snmpd.conf.d, /run/agentx,
#     /run/collectd-ebpf, /var/log, /var/lib/snmp (snmpd's persistent store);
#   - the subagent's user and group ebpf-snmp (doc/snmp.md step 2) are nobody and nogroup, and
#     SnapshotGroup and agentXPerms say nogroup to match;
#   - snmpd runs in the foreground (-f) on a private loopback UDP port with a config that
#     stands for Debian's /etc/snmp/snmpd.conf (-C -c: it only includes snmpd.conf.d), and
#     the clients poll that port where doc/snmp.md says localhost;
#   - ebpf-subagent is the build's, told the moved socket with --agentx-socket (doc/snmp.md relies
#     on its default /run/agentx/master, which the test checks --help names);
#   - step 7's -M names tests/mibs, which make install puts in /usr/share/collectd-ebpf/mibs, and
#     snmp/ for COLLECTD-EBPF-MIB, which it puts in /usr/share/snmp/mibs (net-snmp's default
#     path, which -M +DIR keeps). Not the machine's MIBs: nothing else is installed here.
# Steps 1-2 (packages, make install, adduser) are the machine's setup and are not run.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/snmp_lib.sh"

SNMP_LOGS="$WORK/log/ebpf-subagent.log $WORK/log/snmpd.log $WORK/collectd.log"
SOCK="$WORK/run/agentx/master"
N=200

# --- doc/snmp.md's commands ------------------------------------------------------------------------
section=$(awk '/^## From package install to first poll \(Debian\)$/ { on = 1; next }
	on && /^##/ { exit } on' "$top_srcdir/doc/snmp.md")
[ -n "$section" ] || fail "doc/snmp.md has no section \"## From package install to first poll (Debian)\""
# The sh blocks as "STEP<TAB>command", continuation lines joined, comments left out.
steps=$(echo "$section" | awk '
	/^```sh$/ { code = 1; next } code && /^```$/ { code = 0; next } !code { next }
	/^# [0-9]+\. / { step = $2 + 0; next } /^#/ || /^$/ { next }
	{ line = line $0 } /\\$/ { sub(/\\$/, "", line); next } { print step "\t" line; line = "" }')
step() { echo "$steps" | awk -F'\t' -v n="$1" '$1 == n { print $2 }'; }
# Step 3's block is the first fenced block without a language.
conf_block=$(echo "$section" | awk '/^```/ && !fence { fence = 1; plain = ($0 == "```"); next }
	fence && /^```$/ { fence = 0; if (plain) exit; next } fence && plain')
[ -n "$conf_block" ] || fail "doc/snmp.md step 3 has no config block"
byhand=$(echo "$section" | awk '/^Without systemd, steps 4 and 5 by hand/ { on = 1 } on && /^$/ { exit } on' | tr '\n' ' ' |
	awk -F'`' '{ for (i = 2; i <= NF; i += 2) print $i }')
[ -n "$byhand" ] || fail "doc/snmp.md has no paragraph \"Without systemd, steps 4 and 5 by hand\""
step4=$(step 4 | grep -v '^systemctl ')
mkdir_cmd=$(echo "$byhand" | grep '^mkdir ')
snmpd_cmd=$(echo "$byhand" | grep '^snmpd ')
subagent_cmd=$(echo "$byhand" | grep '^setpriv ')
connected_msg=$(echo "$byhand" | sed -n 's/^\(connected to .*\) \.\.\.$/\1/p')
step6=$(step 6)
step7=$(step 7)
[ -n "$step4" ] && [ -n "$mkdir_cmd" ] && [ -n "$snmpd_cmd" ] && [ -n "$subagent_cmd" ] && [ -n "$connected_msg" ] &&
	[ "$(echo "$step6" | grep -c '^snmpget ')" = 2 ] && [ "$(echo "$step7" | grep -c '^snmptable ')" = 1 ] ||
	fail "doc/snmp.md's SNMP walk changed shape: step 4 \"$step4\", by hand \"$byhand\", step 6 \"$step6\", step 7 \"$step7\""

# The system paths and the user, moved (the same rewrite for commands and config files).
relocate() {
	sed -e "s|/etc/snmp/snmpd.conf.d|$WORK/etc/snmp/snmpd.conf.d|g" \
		-e "s|/run/collectd-ebpf/|$WORK/run/collectd-ebpf/|g" -e "s|/run/agentx|$WORK/run/agentx|g" \
		-e "s|/var/log/|$WORK/log/|g" -e "s|--reuid=ebpf-snmp|--reuid=nobody|g" -e "s|ebpf-snmp|nogroup|g"
}
# The clients: the private port where doc/snmp.md says localhost.
poll() {
	sed -e "s| localhost | $AGENT |" -e "s|-M +/usr/share/collectd-ebpf/mibs |-M +$top_srcdir/tests/mibs:$top_srcdir/snmp |"
}
# What a machine with the snmpd package and no collectd-ebpf has: /run, /var/log, the
# package's /etc/snmp/snmpd.conf.d, and its snmpd.conf (which ends by including that
# directory; here that is all it says) and persistent store (/var/lib/snmp, snmpd's user's).
mkdir -p "$WORK/run" "$WORK/log" "$WORK/etc/snmp/snmpd.conf.d" "$WORK/var/lib/snmp"
chown Debian-snmp:Debian-snmp "$WORK/var/lib/snmp" || skip "no user Debian-snmp (apt-get install snmpd)"
echo "includeDir $WORK/etc/snmp/snmpd.conf.d" > "$WORK/etc/snmp/snmpd.conf"
"$SUBAGENT" --help | grep -q -- '(default /run/agentx/master' ||
	fail "ebpf-subagent --help does not name /run/agentx/master as the default AgentX socket, as doc/snmp.md says"

# --- step 3: edit the existing <Plugin ebpf> of contrib/ebpf.conf, restart collectd ------------
# "uncomment SnapshotFile and SnapshotGroup, so that it begins as below"
sed -e 's/^\([[:space:]]*\)#\(SnapshotFile \)/\1\2/' -e 's/^\([[:space:]]*\)#\(SnapshotGroup \)/\1\2/' \
	"$top_srcdir/contrib/ebpf.conf" > "$WORK/ebpf.conf"
begins=$(awk '/^<Plugin ebpf>/ { on = 1 } on && !/^[[:space:]]*(#|$)/ { sub(/^[[:space:]]+/, ""); print }' "$WORK/ebpf.conf" |
	head -n "$(echo "$conf_block" | wc -l)")
[ "$begins" = "$(echo "$conf_block" | sed 's/^[[:space:]]*//')" ] ||
	fail "contrib/ebpf.conf with SnapshotFile and SnapshotGroup uncommented does not begin as doc/snmp.md step 3 shows:
$begins
doc/snmp.md:
$conf_block"
# lib.sh's common part already loads the plugin.
grep -v '^LoadPlugin ebpf$' "$WORK/ebpf.conf" | relocate | write_config "$WORK/collectd.conf"
start_collectd "$WORK/collectd.conf"
pass "step 3: contrib/ebpf.conf with SnapshotFile and SnapshotGroup uncommented begins as doc/snmp.md shows; collectd runs it"

# --- step 4: the snippet and doc/snmp.md's echo line; snmpd by hand ---------------------------------
( cd "$top_srcdir" && echo "$step4" | relocate | sh -e ) > "$WORK/step4.out" 2>&1 ||
	sfail "step 4 failed: $(cat "$WORK/step4.out")"
# The copy's system paths and the subagent's group, moved as for the commands.
relocate < "$WORK/etc/snmp/snmpd.conf.d/collectd-ebpf.conf" > "$WORK/snippet" &&
	mv "$WORK/snippet" "$WORK/etc/snmp/snmpd.conf.d/collectd-ebpf.conf"
echo "$mkdir_cmd" | relocate | sh -e || sfail "$mkdir_cmd failed"
snmpd_run=$(echo "$snmpd_cmd" | relocate |
	sed "s|^snmpd |exec \"$SNMPD\" -f -C -c \"$WORK/etc/snmp/snmpd.conf\" |; s|\$| $AGENT|")
SNMP_PERSISTENT_DIR="$WORK/var/lib/snmp" sh -c "$snmpd_run" &
SNMPD_PID=$!
wait_for_snmpd ebpf-ro-CHANGE-ME ||
	sfail "snmpd did not answer v2c community ebpf-ro-CHANGE-ME from 127.0.0.1 on $AGENT (step 4's copy of the snippet and doc/snmp.md's echo line: $(grep -v '^#' "$WORK/etc/snmp/snmpd.conf.d/collectd-ebpf.conf" | grep community))"
pass "step 4 by hand: snmpd answers v2c community ebpf-ro-CHANGE-ME from 127.0.0.1 ($snmpd_cmd)"

# --- step 5: the subagent by hand, as its own user ----------------------------------------------
subagent_run=$(echo "$subagent_cmd" | relocate |
	sed "s| ebpf-subagent | \"$SUBAGENT\" --agentx-socket=\"$SOCK\" |; s| &\$||; s|^|exec |")
echo "$subagent_run" | grep -q -- "--agentx-socket=" || sfail "could not find ebpf-subagent in: $subagent_cmd"
sh -c "$subagent_run" &
SUBAGENT_PID=$!
wait_until 10 grep -q "$connected_msg" "$WORK/log/ebpf-subagent.log" ||
	sfail "the subagent did not log \"$connected_msg ...\" as doc/snmp.md says"
pass "step 5 by hand: $(grep -m1 "$connected_msg" "$WORK/log/ebpf-subagent.log")"

# --- step 6: the first poll ----------------------------------------------------------------------
status_cmd=$(echo "$step6" | sed -n 1p | poll)
count_cmd=$(echo "$step6" | sed -n 2p | poll)
status_ok() { out=$(sh -c "$status_cmd" 2>/dev/null) && echo "$out" | grep -Eq '= (INTEGER: 1|INTEGER: ok\(1\))$'; }
wait_until 15 status_ok || sfail "step 6, $status_cmd: $(sh -c "$status_cmd" 2>&1), expected ok(1)"
pass "step 6: $(sh -c "$status_cmd" 2>/dev/null)"
fsync_count() { sh -c "$count_cmd" 2>/dev/null | sed -n 's/.*= Counter64: \([0-9][0-9]*\)$/\1/p'; }
have_count() { [ -n "$(fsync_count)" ]; }
"$FSYNC_N" 1
wait_until 10 have_count || sfail "step 6, $count_cmd: $(sh -c "$count_cmd" 2>&1), expected a Counter64"
before=$(fsync_count)
"$FSYNC_N" $N
grown_by() { after=$(fsync_count); [ -n "$after" ] && [ $((after - before)) -ge "$1" ]; }
wait_until 10 grown_by $N || sfail "step 6: the fsync count went from $before to $(fsync_count) for $N fsync() calls"
pass "step 6: the fsync count grew from $before to $after for $N fsync() calls"

# --- step 7: the histogram table -------------------------------------------------------------------
table_cmd=$(echo "$step7" | poll)
echo "$table_cmd" | grep -q -- "-M +$top_srcdir/tests/mibs:$top_srcdir/snmp " || sfail "step 7 has no -M +/usr/share/collectd-ebpf/mibs: $step7"
sh -c "$table_cmd" > "$WORK/step7.out" 2> "$WORK/step7.err" || sfail "step 7 failed: $(cat "$WORK/step7.out" "$WORK/step7.err")"
grep -q '^SNMP table: COLLECTD-EBPF-MIB::ebpfHistTable' "$WORK/step7.out" &&
	grep -Eq '^ *index +ebpfHistUnit +ebpfHistCount ' "$WORK/step7.out" &&
	grep -Eq "^ *\"syscalls\"\.\"latency\"\.'fsync' +nanoseconds +[0-9]+ " "$WORK/step7.out" ||
	sfail "step 7 did not print the histogram table with its index and the syscalls/latency/fsync row:
$(cat "$WORK/step7.out" "$WORK/step7.err")"
pass "step 7: $(grep -m1 'ebpfHistTable' "$WORK/step7.out"), row $(grep -m1 "'fsync'" "$WORK/step7.out" | tr -s ' ' | cut -c1-80)"

# --- README's uninstall: the SNMPv3 user snmpd saved in its store, removed as printed ----------
store="$WORK/var/lib/snmp/snmpd.conf"
snmp_stop_daemons || true
grep -q '^usmUser .*"ebpfpoll"' "$store" || sfail "snmpd saved no usmUser line for ebpfpoll in its store: $(grep usmUser "$store")"
forget=$(sed -n 's/.*`\(sed -i [^`]*usmUser[^`]*\)`.*/\1/p' "$top_srcdir/README.md")
[ -n "$forget" ] || fail "README's Uninstall has no sed command for the usmUser line"
sh -c "$(echo "$forget" | sed "s|/var/lib/snmp/|$WORK/var/lib/snmp/|")" || fail "README's $forget failed"
! grep -q 'ebpfpoll' "$store" || fail "README's $forget left: $(grep ebpfpoll "$store")"
pass "README's uninstall removes ebpfpoll from snmpd's store: $forget"
