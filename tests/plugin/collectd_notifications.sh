#!/bin/sh
# Events as collectd notifications, received by a real consumer: collectd's exec plugin
# (NotificationExec, Debian's collectd-core) runs a handler per notification that saves it
# to a file of its own. First collectd as nobody without capabilities (privileges dropped):
# - its process instance cannot load BPF and gives exactly one FAILURE module_state
#   notification, state failed, with the error that says why.
# Then as root, with the process module running and a second instance forced off
# (AttachOrder "kprobe": its points are tracepoints, no kernel gives it that method):
# - the instance forced off gives exactly one FAILURE module_state notification;
# - vfs gives one WARNING module_state "fallback" notification per probe point that the
#   core logs as attached on a fallback (here, without fentry and kprobes, all of them);
# - one OOM kill in a memory-limited cgroup gives exactly one oom_kill notification with
#   the victim's pid, name, cgroup v2 path and trigger cgroup in its meta data, and one
#   log line that names the victim's cgroup;
# - doc/modules.md's exec example that mails OOM kills, run as printed (a fake mail(1) on
#   PATH), mails once per oom_kill notification and never for the others;
# - a storm of STORM OOM kills gives a bounded number of notifications (at most
#   EVENT_BURST one by one, the rest in summaries) whose counts add up to exactly STORM,
#   while the values go on: derive-oom_kills grows by exactly the kills made, and its csv
#   lines during the storm are never more than two intervals apart.
. "$top_srcdir/tests/support/lib.sh"

OOM_HOG="$top_builddir/tests/support/oom_hog"
STORM=${STORM:-250}
BURST=10 # EVENT_BURST, libcore/engine/events.h

cp "$STOCK_PLUGINDIR/exec.so" "$WORK/plugins/" || skip "collectd plugin exec.so missing from $STOCK_PLUGINDIR"
# exec refuses to run handlers as root: nobody saves each notification in a file of its own.
mkdir "$WORK/notes"
chown nobody "$WORK/notes"
cat > "$WORK/save-notification" <<HANDLER
#!/bin/sh
cat > "\$(mktemp "$WORK/notes/n.XXXXXX")"
HANDLER
chmod 755 "$WORK/save-notification"

# doc/modules.md's "Alerting on an OOM kill with exec", its two blocks as printed: the exec
# config (with the script's path here) and the script, which calls mail(1). The mail on PATH
# (collectd's exec hands its environment to the programs it runs) keeps each call in a file:
# its arguments one a line, an empty line, what it read.
# doc_block N: the Nth fenced block of that section.
doc_block() {
	awk -v n="$1" '/^### Alerting on an OOM kill with exec/ { s = 1; next }
		s && !inb && /^#/ { exit }
		s && /^```/ { if (inb) { inb = 0; if (k == n) exit } else { k++; inb = 1 }; next }
		s && inb && k == n' "$top_srcdir/doc/modules.md"
}
doc_block 1 > "$WORK/alert.conf"
doc_block 2 > "$WORK/ebpf-oom-alert"
grep -q '^ *NotificationExec "nobody" "/usr/local/bin/ebpf-oom-alert"' "$WORK/alert.conf" &&
	grep -q 'mail -s' "$WORK/ebpf-oom-alert" || fail "doc/modules.md: no exec example to run ($(cat "$WORK/alert.conf"))"
sed -i "s|/usr/local/bin/ebpf-oom-alert|$WORK/ebpf-oom-alert|" "$WORK/alert.conf"
chmod 755 "$WORK/ebpf-oom-alert"
mkdir "$WORK/bin" "$WORK/mails"
chown nobody "$WORK/mails"
cat > "$WORK/bin/mail" <<MAIL
#!/bin/sh
{ for a in "\$@"; do printf '%s\n' "\$a"; done; echo; cat; } > "\$(mktemp "$WORK/mails/m.XXXXXX")"
MAIL
chmod 755 "$WORK/bin/mail"
PATH="$WORK/bin:$PATH"
export PATH
mails() { ls "$WORK"/mails/m.* 2>/dev/null | wc -l; }
mails_at_least() { [ "$(mails)" -ge "$1" ]; }

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$WORK/snapshot"
  <Module "process">
  </Module>
  <Module "process" "off">
    AttachOrder "kprobe"
  </Module>
  <Module "vfs">
  </Module>
</Plugin>
$(cat "$WORK/alert.conf")
<Plugin exec>
  NotificationExec "nobody" "$WORK/save-notification"
</Plugin>
CONF

# notes_with LINE...: the saved notifications that have every LINE (whole lines).
notes_with() {
	for f in "$WORK"/notes/n.*; do
		[ -f "$f" ] || continue
		ok=1
		for l in "$@"; do grep -qxF -- "$l" "$f" || { ok=0; break; }; done
		[ $ok = 0 ] || echo "$f"
	done
}
count_notes() { notes_with "$@" | wc -l; }
has_notes() { [ "$(count_notes "$@")" -ge "$NEED" ]; }
# meta FILE NAME: a header line's value.
meta() { sed -n "s/^$2: //p" "$1" | head -n 1; }
show_notes() { for f in $(notes_with "$@"); do echo "--- $f"; cat "$f"; done >&2; }
# one_failure_state_note INSTANCE FROM FOR: within 10 s a module_state notification of
# PluginInstance INSTANCE, and a second later still exactly one, of severity FAILURE; its file
# in f. FROM and FOR name the instance in the failures. Both instances that cannot start
# (privileges dropped, forced off) must say so once: only the note's state and error differ.
one_failure_state_note() {
	NEED=1 wait_until 10 has_notes "PluginInstance: $1" "Type: module_state" ||
		fail "no module_state notification $2"
	sleep 1 # a second one, if any, would have come with the first
	_n=$(count_notes "PluginInstance: $1" "Type: module_state")
	[ "$_n" = 1 ] || { show_notes "PluginInstance: $1"; fail "$_n module_state notifications $3, expected 1"; }
	f=$(notes_with "PluginInstance: $1" "Type: module_state")
	[ "$(meta "$f" Severity)" = FAILURE ] || fail "severity $(meta "$f" Severity), expected FAILURE"
}

# --- Privileges dropped: collectd as nobody with no capability cannot load BPF. It writes
# its log, values and socket into $WORK, for the time made sticky and writable (as /tmp).
command -v setpriv >/dev/null || skip "setpriv (util-linux) is needed to drop privileges"
chmod 1777 "$WORK"
write_config "$WORK/nopriv.conf" <<CONF
<Plugin ebpf>
  SnapshotFile ""
  <Module "process" "nopriv">
  </Module>
</Plugin>
LoadPlugin exec
<Plugin exec>
  NotificationExec "nobody" "$WORK/save-notification"
</Plugin>
CONF
start_collectd "$WORK/nopriv.conf" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all
one_failure_state_note process-nopriv "from the collectd without privileges" "without privileges"
[ "$(meta "$f" state)" = failed ] || fail "state meta \"$(meta "$f" state)\", expected failed"
meta "$f" error | grep -q 'not permitted to load BPF programs: running as uid 65534 without CAP_BPF' ||
	fail "error meta \"$(meta "$f" error)\""
grep -qF 'module "process-nopriv" is off: not permitted' "$f" || fail "the message does not say the module is off"
pass "privileges dropped: one FAILURE module_state notification, state $(meta "$f" state): $(meta "$f" error | cut -c1-100)"
stop_collectd
mv "$WORK/collectd.log" "$WORK/nopriv.log"
rm -rf "$WORK/csv" "$WORK/rrd" "$WORK/collectd.sock" "$WORK"/notes/n.*
chmod 755 "$WORK"

start_collectd "$WORK/collectd.conf"
one_failure_state_note process-off "for the instance forced off" "for process-off"
case "$(meta "$f" state)" in failed|unsupported) ;; *) fail "state meta \"$(meta "$f" state)\"" ;; esac
[ -n "$(meta "$f" error)" ] || fail "no error meta in the state notification"
pass "instance forced off: one FAILURE module_state notification, state $(meta "$f" state): $(meta "$f" error | cut -c1-100)"
[ "$(count_notes "PluginInstance: process" "Type: module_state")" = 0 ] ||
	fail "the running instance sent a module_state notification"

# Fallbacks: as many notifications as the core's log lines saying so, each with the method.
fallbacks=$(grep -c "ebpf plugin: vfs: .* attached via .*, a fallback" "$WORK/collectd.log" || true)
[ "${EBPF_EXPECT_KFUNCS:-0}" = 1 ] || [ "$fallbacks" -ge 1 ] ||
	fail "vfs logged no fallback here, where it has neither fentry nor kprobes"
n=$(count_notes "PluginInstance: vfs" "Type: module_state" "TypeInstance: fallback" "Severity: WARNING")
[ "$n" = "$fallbacks" ] || { show_notes "PluginInstance: vfs"; fail "$n fallback notifications for $fallbacks fallbacks in the log"; }
f=$(notes_with "PluginInstance: vfs" "TypeInstance: fallback" | head -n 1)
if [ "$fallbacks" != 0 ]; then
	[ -n "$(meta "$f" point)" ] && [ -n "$(meta "$f" method)" ] && [ -n "$(meta "$f" error)" ] ||
		fail "a fallback notification without point, method or error"
fi
pass "vfs: $n fallback notifications for $fallbacks points on a fallback, e.g. $(meta "$f" point) via $(meta "$f" method)"

wait_for_csv process derive-execs 10 || fail "no derive-execs value"
set +e
out=$("$OOM_HOG" ebpf_oom_one 1 3)
rc=$?
set -e
[ $rc = 77 ] && skip "the kernel gives this test no cgroup memory controller to make an OOM kill in"
[ $rc = 0 ] || fail "oom_hog failed (exit $rc): $out"
victim=$(echo "$out" | sed -n 's/^victim //p')
cgroup=$(echo "$out" | sed -n 's/^cgroup2 //p')
NEED=1 wait_until 10 has_notes "Type: oom_kill" "pid: $victim" || fail "no oom_kill notification for pid $victim"
sleep 1
n=$(count_notes "Type: oom_kill")
[ "$n" = 1 ] || { show_notes "Type: oom_kill"; fail "$n oom_kill notifications for one OOM kill"; }
f=$(notes_with "Type: oom_kill" "pid: $victim")
[ "$(meta "$f" name)" = ebpf_oom_one ] || fail "name meta \"$(meta "$f" name)\", expected ebpf_oom_one"
[ "$(meta "$f" Severity)" = FAILURE ] || fail "severity $(meta "$f" Severity)"
[ "$(meta "$f" PluginInstance)" = process ] || fail "plugin instance $(meta "$f" PluginInstance)"
grep -qF "OOM kill: victim pid $victim (ebpf_oom_one)" "$f" || fail "the message does not name the victim"
# The victim's cgroup is known where the tracepoint passes the task (tp_btf, raw_tp: attached here).
[ "$(meta "$f" cgroup)" = "$cgroup" ] || fail "cgroup meta \"$(meta "$f" cgroup)\", the victim was in $cgroup"
[ -n "$(meta "$f" cgroup_id)" ] || fail "no cgroup_id meta"
# The memory cgroup that hit its limit is the trigger's or an ancestor: the trigger is the task
# whose allocation ran into it, here the victim itself (the hog allocates until it is killed,
# alone in its cgroup), so its cgroup v2 is the victim's.
[ "$(meta "$f" trigger_cgroup)" = "$cgroup" ] || fail "trigger_cgroup meta \"$(meta "$f" trigger_cgroup)\", the hog was in $cgroup"
[ "$(meta "$f" trigger_cgroup_id)" = "$(meta "$f" cgroup_id)" ] ||
	fail "trigger_cgroup_id meta \"$(meta "$f" trigger_cgroup_id)\", the victim's cgroup_id is $(meta "$f" cgroup_id)"
pass "one OOM kill, one notification: pid $victim, name $(meta "$f" name), cgroup $(meta "$f" cgroup) (id $(meta "$f" cgroup_id)), trigger_cgroup $(meta "$f" trigger_cgroup)"
# collectd's log line names the victim's cgroup too: whoever greps the log sees which service.
line="process: OOM kill: victim pid $victim (ebpf_oom_one) in cgroup $cgroup"
grep -qF -- "$line" "$WORK/collectd.log" ||
	{ grep -F "victim pid $victim" "$WORK/collectd.log" >&2; fail "collectd's log has no line: $line"; }
pass "the log line: $line"

# The doc's alert: one mail for this kill, as the script builds it, and none for the
# module_state notifications before it.
wait_until 10 mails_at_least 1 || fail "the doc's OOM alert sent no mail (PATH has $WORK/bin/mail)"
sleep 1
[ "$(mails)" = 1 ] || { cat "$WORK"/mails/m.* >&2; fail "the doc's OOM alert sent $(mails) mails for one OOM kill"; }
m=$(ls "$WORK"/mails/m.*)
[ "$(sed -n 1,3p "$m")" = "$(printf '%s\n' -s "OOM kill on itest: OOM kill: victim pid $victim (ebpf_oom_one)" ops@example.com)" ] ||
	{ cat "$m" >&2; fail "the doc's OOM alert called mail with other arguments"; }
grep -qx "pid: $victim" "$m" && grep -qx "Type: oom_kill" "$m" || { cat "$m" >&2; fail "the mail's body is not the notification"; }
pass "the doc's exec example: one mail for one OOM kill, none for $(count_notes "Type: module_state") module_state notifications: $(sed -n 2p "$m")"

wait_for_new_line process derive-oom_kills
kills_before=$(csv_last process derive-oom_kills)
rm -f "$WORK"/notes/n.* "$WORK"/mails/m.*
start=$(date +%s.%N)
out=$("$OOM_HOG" ebpf_oom_storm "$STORM") || fail "oom_hog storm failed: $(echo "$out" | tail -n 3)"
end=$(date +%s.%N)
seconds=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%d", e - s + 1 }')
made=$(echo "$out" | grep -c '^victim ')
[ "$made" = "$STORM" ] || fail "the storm made $made OOM kills, expected $STORM"
# storm_counts: "<notifications one by one> <summaries> <their not_sent>" of the storm.
storm_counts() {
	_one=$(count_notes "Type: oom_kill" "name: ebpf_oom_storm")
	_not_sent=0 _summaries=0
	for _f in $(notes_with "Type: oom_kill" "TypeInstance: summary"); do
		_not_sent=$((_not_sent + $(meta "$_f" not_sent))) _summaries=$((_summaries + 1))
	done
	echo "$_one $_summaries $_not_sent"
}
storm_complete() { set -- $(storm_counts); [ $(($1 + $3)) -ge "$STORM" ]; }
# The summaries come at the end of a read, the exec handlers a moment later.
wait_until 30 storm_complete || true
sleep 1 # one more, if any, would come with the last
set -- $(storm_counts)
one_by_one=$1 summaries=$2 not_sent=$3
all=$(count_notes "Type: oom_kill")
wait_for_new_line process derive-oom_kills
kills_after=$(csv_last process derive-oom_kills)
echo "storm of $STORM OOM kills in about $seconds s: $one_by_one notifications one by one, $summaries summaries with not_sent adding up to $not_sent; derive-oom_kills $kills_before -> $kills_after"
[ $((one_by_one + not_sent)) = "$STORM" ] ||
	fail "notifications one by one ($one_by_one) and not_sent ($not_sent) add up to $((one_by_one + not_sent)), not $STORM"
[ "$all" = $((one_by_one + summaries)) ] || fail "$all oom_kill notifications, neither one by one nor summaries: $((all - one_by_one - summaries))"
# At most the burst plus one per EVENT_REFILL_SECONDS (6) one by one; a summary per read.
limit=$((BURST + seconds / 6 + 1))
[ "$one_by_one" -le "$limit" ] || fail "$one_by_one OOM notifications one by one, the limit allows $limit in $seconds s"
[ "$summaries" -ge 1 ] && [ "$summaries" -le $((seconds + 4)) ] || fail "$summaries summaries for a storm of $seconds s at one read a second"
pass "storm: $((one_by_one + summaries)) notifications for $STORM OOM kills, the exact count in them"
[ $((kills_after - kills_before)) = "$STORM" ] || fail "derive-oom_kills grew by $((kills_after - kills_before)), expected $STORM"
[ "$(csv_last process derive-dropped-oom_events)" = 0 ] || fail "OOM events were dropped"
# Not delayed: every read during the storm wrote its value. The csv line's time is the read's,
# so a read held up by the storm (its ring buffer, the notifications) would leave a gap. From
# the last line before the storm to the first after it, no two lines more than 2 intervals apart.
gaps=$(awk -F, -v s="$start" -v e="$end" '$1 != "epoch" {
		if ($1 < s) { prev = $1; next }
		if (prev != "") { d = $1 - prev; if (d > max) max = d; n++ }
		prev = $1
		if ($1 > e) exit
	} END { printf "%d %.3f %.3f", n, max, prev }' "$(csv_file process derive-oom_kills)")
set -- $gaps
echo "derive-oom_kills during the storm: $1 csv lines, largest gap $2 s (Interval 1 s)"
awk -v g="$2" -v e="$end" -v last="$3" 'BEGIN { exit !(g > 0 && g <= 2 && last > e) }' ||
	fail "derive-oom_kills: the largest gap between csv lines during the storm was $2 s (more than 2 intervals), or no line after it (last $3, storm ended $end)"
[ "$1" -ge $((seconds - 3)) ] || fail "derive-oom_kills: $1 csv lines in a storm of $seconds s"
pass "values went on: derive-oom_kills +$STORM, no OOM event dropped, a value every interval (largest gap $2 s in $1 reads)"
# The doc's alert: one mail per oom_kill notification of the storm (one by one and summaries).
wait_until 10 mails_at_least "$all" || true
sleep 1
[ "$(mails)" = "$all" ] || fail "the doc's OOM alert sent $(mails) mails for $all oom_kill notifications in the storm"
pass "the doc's exec example during the storm: $(mails) mails, one per oom_kill notification"
stop_collectd
