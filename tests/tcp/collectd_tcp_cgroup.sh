#!/bin/sh
# The real collectd with tcp By "cgroup": two cgroups made by the test under a private parent
# in the cgroup2 mount. A listener on 127.0.0.1 (tcp_n serve) stays in the test's own cgroup,
# which is not selected; from inside a, tcp_n makes CA connects to it and FA connects to a
# closed port, from inside b CB and FB. tcp counts a socket's events for the cgroup the socket
# was made in (doc/modules.md, tcp), so each cgroup's series are exactly its own sockets':
#
# - its connect latency histogram has one sample per established connect (the snapshot's
#   lifetime count of <cgroup>/connect), and its percentiles are times in seconds;
# - each refused connect is one reset received and one failed connect
#   (derive-resets_received, derive-connect_failures);
# - its retransmits are exactly what its sockets resent, as each socket counts it
#   (tcpi_total_retrans, which tcp_n sums once each socket can send nothing more): 0 but on a
#   machine so loaded that a loopback segment was late (seen once in the first runs);
# - nothing else: every connection ends with FIN/ACK on both sides (tcp_n waits for the
#   server's close, one connection at a time, so no SYN meets a full accept queue), so no
#   reset sent. The resets the closed port sends have no socket, so no cgroup: they are
#   counted host-wide only.
#
# The host-wide series hold at least both cgroups' sums; nothing was folded or dropped.
. "$top_srcdir/tests/support/lib.sh"

test_cgroups ebpf-it-tcpcg a b
SERVER=
tcp_cleanup() {
	[ -z "$SERVER" ] || { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }
	remove_test_cgroups
}
trap tcp_cleanup EXIT INT TERM

CA=40 FA=3 CB=15 FB=9
TCP_N="$top_builddir/tests/tcp/tcp_n"
mkdir -m 0755 "$WORK/snap"
write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$WORK/snap/snapshot"
  <Module "tcp">
    By "cgroup"
    CgroupDepth 2
    Cgroup "/$PARENT/*"
  </Module>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"
wait_for_log 'tcp: inet_sock_set_state attached via' 5 || fail "tcp did not attach inet_sock_set_state"

"$TCP_N" serve > "$WORK/ports" &
SERVER=$!
wait_until 10 test -s "$WORK/ports" || fail "tcp_n serve did not say its ports"
read -r OPEN CLOSED < "$WORK/ports"

# run CGROUP CONNECTS REFUSED: from inside the cgroup, CONNECTS connects to the listener, then
# REFUSED to the closed port; what tcp_n says in $WORK/CGROUP.out.
run() {
	sh -c 'echo $$ > "$1/cgroup.procs" && "$2" connect "$3" "$4" && exec "$2" refuse "$5" "$6"' \
		sh "$CG_ROOT/$PARENT/$1" "$TCP_N" "$OPEN" "$2" "$CLOSED" "$3" > "$WORK/$1.out" || fail "the workload in $1 failed"
}
run a $CA $FA
run b $CB $FB
# resent CGROUP: what its sockets resent, by their own count.
resent() { awk '$1 == "retransmits" { r += $2 } END { print r + 0 }' "$WORK/$1.out"; }

# exact CGROUP CONNECTS REFUSED: one latency sample per connect, one reset received and one
# failed connect per refused connect.
exact() {
	cg=${PARENT}_$1
	wait_exact "tcp.$cg" derive-resets_received "$3"
	wait_exact "tcp.$cg" derive-connect_failures "$3"
	wait_until 5 hist_is latency "$cg/connect" "$2" ||
		fail "the snapshot's latency $cg/connect counts '$(hist_count latency "$cg/connect")' connects, not $2"
}
exact a $CA $FA
exact b $CB $FB
pass "per cgroup: a $CA connects (latency samples), $FA resets received and failed connects; b $CB, $FB"

# One more read: anything else of theirs would have been sent by now.
wait_for_new_line "tcp.${PARENT}_a" derive-resets_received
for n in a b; do
	cg=${PARENT}_$n
	for v in derive-resets_sent derive-retransmit_failures; do
		[ -z "$(csv_file "tcp.$cg" $v)" ] || csv_is "tcp.$cg" $v 0 ||
			fail "ebpf-tcp.$cg/$v is '$(csv_last "tcp.$cg" $v)': its connections ended without resets sent or failed sends"
	done
	r=$(resent $n)
	if [ "$r" = 0 ]; then
		[ -z "$(csv_file "tcp.$cg" derive-retransmits)" ] || csv_is "tcp.$cg" derive-retransmits 0 ||
			fail "ebpf-tcp.$cg/derive-retransmits is '$(csv_last "tcp.$cg" derive-retransmits)', and its sockets resent nothing"
	else
		echo "cgroup $n: its sockets resent $r segments (a loaded machine)"
		wait_exact "tcp.$cg" derive-retransmits "$r"
	fi
	for p in 50 99; do
		csv_had_seconds "tcp.$cg" latency-connect-$p ||
			fail "ebpf-tcp.$cg/latency-connect-$p never had a time in seconds: $(csv_values "tcp.$cg" latency-connect-$p)"
	done
done
pass "no reset sent in either cgroup, retransmits as their sockets' own (a $(resent a), b $(resent b)); connect p50/p99 in seconds (a's last p99 $(csv_last "tcp.${PARENT}_a" latency-connect-99) s)"

host_connects=$(hist_count latency connect)
[ "${host_connects:-0}" -ge $((CA + CB)) ] ||
	fail "host-wide latency connect counts '$host_connects' connects, fewer than the cgroups' $((CA + CB))"
for v in derive-resets_received derive-connect_failures; do
	host=$(csv_last tcp $v)
	[ "${host:-0}" -ge $((FA + FB)) ] || fail "host-wide $v is '$host', less than the cgroups' $((FA + FB))"
done
[ "$(csv_last tcp derive-dropped-cgroup_full)" = 0 ] || fail "tcp dropped sockets' cgroups"
[ ! -e "$WORK/csv/itest/ebpf-tcp.other" ] || fail "a cgroup was folded into other"
pass "host-wide: $host_connects connects, resets received $(csv_last tcp derive-resets_received), failed connects $(csv_last tcp derive-connect_failures); nothing folded or dropped"
stop_collectd
