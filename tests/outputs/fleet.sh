#!/bin/sh
# A fleet on one machine, as doc/viewing.md's "Many hosts" section sets it up: a client collectd
# with the plugin sends through collectd's network plugin, signed (SecurityLevel Sign,
# Username/Password), to a server collectd that checks signatures against its AuthFile
# and writes csv. N fsync() calls on the client arrive at the server under the client's
# host name, with the client's own values; a sender with a wrong password is dropped.
. "$top_srcdir/tests/support/lib.sh"

N=300
FSYNC_N="$top_builddir/tests/support/fsync_n"
for p in network cpu memory interface load processes; do
	cp "$STOCK_PLUGINDIR/$p.so" "$WORK/plugins/" || skip "collectd plugin $p.so missing from $STOCK_PLUGINDIR"
done

# A UDP port nothing on this machine listens on: the test's own, never collectd's 25826.
port=$((30000 + $$ % 20000))
while ss -Hlun "sport = :$port" | grep -q .; do port=$((port + 1)); done

SRV="$WORK/server"
mkdir -p "$SRV" "$WORK/intruder"
# The server's users, one "name: password" a line; readable by collectd's user only.
printf 'fleet: s3cret-fleet-pass\n' > "$SRV/passwd"
chmod 0600 "$SRV/passwd"

# head_conf HOST DIR: a collectd of its own (host name, directory, log), without the plugin.
head_conf() {
	cat <<CONF
Hostname "$1"
FQDNLookup false
Interval 1
BaseDir "$2"
PIDFile "$2/collectd.pid"
PluginDir "$WORK/plugins"
TypesDB "$TYPESDB"
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$2/collectd.log"
</Plugin>
LoadPlugin network
CONF
}
{ head_conf fleet-server "$SRV"; cat <<CONF; } > "$SRV/collectd.conf"
<Plugin network>
  <Listen "127.0.0.1" "$port">
    SecurityLevel Sign
    AuthFile "$SRV/passwd"
  </Listen>
</Plugin>
LoadPlugin csv
<Plugin csv>
  DataDir "$SRV/csv"
</Plugin>
CONF
"$COLLECTD" -f -C "$SRV/collectd.conf" > "$SRV/stdout" 2>&1 &
server_pid=$!
trap 'kill $server_pid ${intruder_pid:-} 2>/dev/null; wait $server_pid 2>/dev/null; cleanup' EXIT INT TERM
wait_for_log "Initialization complete" 20 "$SRV/collectd.log" || { cat "$SRV/collectd.log" "$SRV/stdout" >&2; fail "the server collectd did not start"; }

# The client: lib.sh's collectd (Hostname "itest", csv of its own) plus the network plugin.
write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile ""
  <Module "syscalls">
    Latency "fsync"
    Percentile 99
  </Module>
</Plugin>
LoadPlugin network
<Plugin network>
  <Server "127.0.0.1" "$port">
    SecurityLevel Sign
    Username "fleet"
    Password "s3cret-fleet-pass"
  </Server>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"

# A sender that signs with a wrong password. No BPF: the stock plugins below fill a network
# packet (about 1.4 KB, sent when full) within a few seconds.
{ head_conf intruder "$WORK/intruder"; cat <<CONF; } > "$WORK/intruder/collectd.conf"
LoadPlugin cpu
LoadPlugin memory
LoadPlugin interface
LoadPlugin load
LoadPlugin processes
<Plugin network>
  <Server "127.0.0.1" "$port">
    SecurityLevel Sign
    Username "fleet"
    Password "wrong"
  </Server>
</Plugin>
CONF
"$COLLECTD" -f -C "$WORK/intruder/collectd.conf" > "$WORK/intruder/stdout" 2>&1 &
intruder_pid=$!

srv_csv() { ls "$SRV/csv/itest/ebpf-syscalls/$1-"* 2>/dev/null | tail -n 1; }
srv_last() { f=$(srv_csv "$1"); [ -n "$f" ] && tail -n 1 "$f" | cut -d, -f2; }
"$FSYNC_N" 1
i=0
until [ -n "$(srv_csv operations-fsync)" ] || [ $i -ge 150 ]; do sleep 0.1; i=$((i + 1)); done
[ -n "$(srv_csv operations-fsync)" ] || { sed 's/^/  server log: /' "$SRV/collectd.log" >&2; fail "no fsync count from the client at the server"; }
pass "the client's values arrive at the server under the client's host name (itest)"

before=$(srv_last operations-fsync)
"$FSYNC_N" $N
sleep 3
after=$(srv_last operations-fsync)
grown=$((after - before))
echo "fsync count at the server: $before -> $after (+$grown, workload $N)"
# Machine-wide count: other processes may add fsync calls; none may be missing.
[ "$grown" -ge $N ] || fail "the server's fsync count grew by $grown, expected at least $N"
pass "N fsync calls on the client grow the server's count by at least N"

# The same numbers at both ends: the server's newest line is one of the client's lines.
line=$(tail -n 1 "$(srv_csv operations-fsync)")
grep -qxF "$line" "$(csv_file syscalls operations-fsync)" ||
	fail "the server's line '$line' is not in the client's own csv"
[ -n "$(srv_csv latency-fsync-99)" ] || fail "no fsync p99 at the server"
[ ! -d "$SRV/csv/fleet-server/ebpf-syscalls" ] || fail "values were filed under the server's host name"
pass "the server stores the client's values as the client does (timestamp and value)"

# The intruder has sent several intervals by now: the server must have dropped them all.
kill -0 $intruder_pid 2>/dev/null || fail "the wrong-password sender is not running"
[ ! -d "$SRV/csv/intruder" ] || fail "the server accepted values signed with a wrong password"
grep -q 'Verifying HMAC-SHA-256 signature failed' "$SRV/collectd.log" || { sed 's/^/  server log: /' "$SRV/collectd.log" >&2; fail "the server did not log the bad signature"; }
pass "values signed with a wrong password are dropped (server log: $(grep -m1 'signature failed' "$SRV/collectd.log" | cut -c1-120))"
stop_collectd
