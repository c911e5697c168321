#!/bin/sh
# The non-root setup (contrib/collectd-ebpf.service.d.conf: CAP_BPF, CAP_PERFMON and
# CAP_DAC_READ_SEARCH as ambient capabilities of collectd's user) and collectd's exec plugin:
# a program collectd runs, as collectd's user, starts with no capability. The plugin clears
# the ambient and inheritable sets of every collectd thread once its modules started, and
# keeps its own (the module still reads). Two ways in: `Exec` (forked by a read thread,
# started after the plugins' init) and `NotificationExec` of a threshold notification
# (forked from a write thread, started before any plugin's init: cleared by the signal the
# plugin sends every thread). Each child writes its /proc/self/status Cap lines.
. "$top_srcdir/tests/support/lib.sh"

command -v setpriv >/dev/null || skip "setpriv (util-linux) is needed to drop privileges"
for p in exec threshold; do
	cp "$STOCK_PLUGINDIR/$p.so" "$WORK/plugins/" || skip "collectd plugin $p.so missing from $STOCK_PLUGINDIR"
done
chmod 1777 "$WORK"
# caps WHO: the child records its capability sets into $WORK/caps.WHO (written, then moved:
# never read half-written).
for who in exec notification; do
	cat > "$WORK/caps-$who" <<SH
#!/bin/sh
cat > /dev/null
grep '^Cap' /proc/\$\$/status > "$WORK/caps.$who.tmp" && mv "$WORK/caps.$who.tmp" "$WORK/caps.$who"
SH
	chmod 755 "$WORK/caps-$who"
done
# collectd's user is nobody: exec runs its programs as that user (it cannot switch to another
# without CAP_SETUID and CAP_SETGID, which the non-root setup does not grant).
INTERVAL=0.5 write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile ""
  <Module "syscalls">
  </Module>
</Plugin>
LoadPlugin threshold
<Plugin threshold>
  <Plugin "ebpf">
    Instance "syscalls"
    <Type "operations">
      Instance "close"
      WarningMax 0
      Persist true
    </Type>
  </Plugin>
</Plugin>
LoadPlugin exec
<Plugin exec>
  Exec "nobody" "$WORK/caps-exec"
  NotificationExec "nobody" "$WORK/caps-notification"
</Plugin>
CONF
dropin="$top_srcdir/contrib/collectd-ebpf.service.d.conf"
caps=$(sed -n 's/^AmbientCapabilities=//p' "$dropin" | tr 'A-Z ' 'a-z\n' | sed -n 's/^cap_/+/p' | paste -sd, -)
case ",$caps," in *,+dac_read_search,*) ;; *) fail "$dropin: AmbientCapabilities lacks CAP_DAC_READ_SEARCH ($caps)" ;; esac
start_collectd "$WORK/collectd.conf" setpriv --reuid=65534 --regid=65534 --clear-groups \
	--inh-caps=-all,$caps --ambient-caps=$caps
wait_for_log '1 of 1 module running' 5 || fail "collectd as nobody with $caps could not start the module"
grep '^Cap' "/proc/$COLLECTD_PID/status" | sed 's/^/  collectd: /'
eff=$(awk '$1 == "CapEff:" { print $2 }' "/proc/$COLLECTD_PID/status")
[ "$eff" != 0000000000000000 ] || fail "collectd itself lost its capabilities (CapEff $eff)"
wait_for_csv syscalls operations-close 10 || fail "no values from the capability-only collectd"
# Every thread of collectd: a program forked by any of them (other plugins' threads too) starts
# from that thread's sets.
# exec's threads are short-lived (one per program run): a thread that ended between the listing
# and the reading is skipped, not failed; every thread still there is checked.
checked=0
for t in /proc/$COLLECTD_PID/task/*; do
	status=$(cat "$t/status" 2>/dev/null) || continue
	comm=$(cat "$t/comm" 2>/dev/null)
	for set in CapInh CapAmb; do
		v=$(printf '%s\n' "$status" | awk -v s="$set:" '$1 == s { print $2 }')
		[ "$v" = 0000000000000000 ] || fail "collectd's thread ${t##*/} ($comm) still has $set $v"
	done
	checked=$((checked + 1))
done
[ "$checked" -ge 2 ] || fail "only $checked threads of collectd could be read"
pass "all $checked threads of collectd: CapInh and CapAmb 0"

for who in exec notification; do
	wait_until 10 test -s "$WORK/caps.$who" || fail "the $who child wrote no capabilities (exec said: $(grep -i exec "$WORK/collectd.log" | tail -n 3))"
	sed "s/^/  $who child: /" "$WORK/caps.$who"
	for set in CapInh CapPrm CapEff CapAmb; do
		v=$(awk -v s="$set:" '$1 == s { print $2 }' "$WORK/caps.$who")
		[ "$v" = 0000000000000000 ] || fail "the $who child, run as collectd's user, has $set $v: it inherited collectd's capabilities"
	done
	pass "$who child: CapInh, CapPrm, CapEff and CapAmb all 0"
done
# The plugin kept what it needs: its module still reads (values after the children ran).
wait_for_new_line syscalls operations-close || fail "the module stopped reading after the capabilities were cleared"
eff=$(awk '$1 == "CapEff:" { print $2 }' "/proc/$COLLECTD_PID/status")
[ "$eff" != 0000000000000000 ] || fail "collectd itself lost its capabilities (CapEff $eff)"
pass "collectd keeps its own capabilities (CapEff $eff) and reads on"
stop_collectd
