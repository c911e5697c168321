#!/bin/sh
# collectd-ebpf-prometheus on bad input (no collectd, no BPF, no root needed):
# - a port in use: a clear error naming it, exit status 1;
# - bad options: exit status 2 with the fix;
# - a snapshot missing, truncated (no end line), of format version 2, then a good one: the
#   endpoint stays up and answers every scrape, collectd_ebpf_snapshot_up 0 with the reason
#   (and one log line for each new reason), then 1 with the values;
# - a hostile label value: escaped, one line, the page passes promtool check metrics;
# - a POST: 405 (refused before its body is read); another path: 404.
: "${top_builddir:?run through make check}"
EXPORTER="$top_builddir/collectd-ebpf-prometheus"
[ -x "$EXPORTER" ] || { echo "SKIP: collectd-ebpf-prometheus is not built (no libmicrohttpd)"; exit 77; }
command -v curl >/dev/null 2>&1 || { echo "SKIP: curl is missing"; exit 77; }
PY=/usr/bin/python3
WORK=$(mktemp -d /tmp/ebpf-prom.XXXXXX)
PID= HOLDER=
cleanup() {
	for p in $PID $HOLDER; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT INT TERM
fail() { echo "FAIL: $*" >&2; [ -f "$WORK/exporter.log" ] && sed 's/^/  log: /' "$WORK/exporter.log" >&2; exit 1; }
pass() { echo "ok: $*"; }
wait_until() {
	_n=$(($1 * 10)); shift
	while [ $_n -gt 0 ]; do "$@" && return 0; sleep 0.1; _n=$((_n - 1)); done
	return 1
}
set -- $($PY "$top_srcdir/tests/outputs/graphite_client.py" free-ports 2)
PORT=$1 BUSY=$2
URL=http://127.0.0.1:$PORT/metrics
SNAP=$WORK/snapshot

# A port in use: another listener holds BUSY.
$PY -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1)
print("ready", flush=True); time.sleep(60)' "$BUSY" > "$WORK/holder.out" &
HOLDER=$!
wait_until 5 grep -q ready "$WORK/holder.out" || fail "the test's own listener did not start"
rc=0
"$EXPORTER" --snapshot="$SNAP" --listen=127.0.0.1:$BUSY > "$WORK/busy.out" 2>&1 || rc=$?
[ $rc = 1 ] || fail "a port in use: exit status $rc, not 1"
grep -q "cannot listen on 127.0.0.1 port $BUSY: Address already in use; another process listens there" "$WORK/busy.out" ||
	fail "a port in use: $(cat "$WORK/busy.out")"
pass "a port in use: exit 1, $(cat "$WORK/busy.out")"

rc=0
"$EXPORTER" --listen=localhost > "$WORK/opt.out" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q 'expected ADDRESS:PORT' "$WORK/opt.out" || fail "--listen=localhost: exit $rc, $(cat "$WORK/opt.out")"
pass "a bad option: exit 2, $(cat "$WORK/opt.out")"

# No snapshot yet: the endpoint starts and says so.
"$EXPORTER" --snapshot="$SNAP" --listen=127.0.0.1:$PORT > "$WORK/exporter.log" 2>&1 &
PID=$!
wait_until 10 curl -sf -o "$WORK/page" "$URL" || fail "the endpoint does not answer without a snapshot"
# up_is VALUE PATTERN: the page's snapshot_up line is VALUE and names PATTERN.
up_is() {
	curl -sf -o "$WORK/page" "$URL" || fail "the endpoint stopped answering"
	grep -E "^collectd_ebpf_snapshot_up(\{error=\".*$2.*\"\})? $1\$" "$WORK/page" > /dev/null
}
up_is 0 "cannot open $SNAP: No such file or directory" || fail "missing snapshot: $(grep snapshot_up "$WORK/page")"
grep -q "serving snapshot_up 0: cannot open $SNAP: No such file or directory" "$WORK/exporter.log" || fail "no log line for the missing snapshot"
pass "missing: $(grep '^collectd_ebpf_snapshot_up' "$WORK/page")"

good() {
	printf 'collectd-ebpf-snapshot\t3\nwritten\t1700000000000000\nmodule\tsyscalls\trunning\t1700000000000000\tsys_exit=tp_btf\t\n'
	printf 'counter\tcalls\tfsync\t300\tsyscall=fsync\n'
	printf 'counter\tcalls\tx\t5\tsyscall=line1\\nline2 \\"q\\" \\\\xff end\n'
	printf 'histogram\tlatency\tfsync\tnanoseconds\t5\t3\t3000\t3\t1000\t1000\t1000\t1000\tsyscall=fsync\nbucket\t180\t3\n'
}
good | head -n 4 > "$SNAP" # no end line
up_is 0 "no end line \\(file truncated\\)" || fail "truncated snapshot: $(grep snapshot_up "$WORK/page")"
pass "truncated: $(grep '^collectd_ebpf_snapshot_up' "$WORK/page")"

printf 'collectd-ebpf-snapshot\t2\nwritten\t1\nend\n' > "$SNAP"
up_is 0 "unsupported format version 2: this reader reads snapshot format version 3 only" ||
	fail "version 2 snapshot: $(grep snapshot_up "$WORK/page")"
pass "version 2: $(grep '^collectd_ebpf_snapshot_up' "$WORK/page")"

{ good; echo end; } > "$SNAP"
up_is 1 || fail "a good snapshot: $(grep snapshot_up "$WORK/page")"
grep -q '^collectd_ebpf_syscalls_calls_total{module="syscalls",syscall="fsync"} 300$' "$WORK/page" || fail "no fsync count: $(grep calls "$WORK/page")"
grep -qF 'collectd_ebpf_syscalls_calls_total{module="syscalls",syscall="line1\nline2 \"q\" \\xff end"} 5' "$WORK/page" ||
	fail "the hostile label: $(grep -A1 'line1' "$WORK/page")"
grep -q "serving $SNAP again" "$WORK/exporter.log" || fail "no log line when the snapshot came back"
logged=$(grep -c 'serving snapshot_up 0' "$WORK/exporter.log")
[ "$logged" = 3 ] || fail "$logged log lines for the 3 reasons (once each, not each scrape)"
if command -v promtool >/dev/null 2>&1; then
	promtool check metrics < "$WORK/page" > "$WORK/promtool.out" 2>&1 || fail "promtool: $(cat "$WORK/promtool.out")"
	pass "promtool check metrics clean with the hostile label"
fi
# Other requests: a POST refused before its body, another path not found.
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -d body "$URL")
[ "$code" = 405 ] || fail "POST /metrics: HTTP $code, not 405"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/nope")
[ "$code" = 404 ] || fail "GET /nope: HTTP $code, not 404"
up_is 1 || fail "no page after the POST"
pass "POST: 405, another path: 404"
kill -0 "$PID" || fail "the endpoint exited"
pass "the endpoint stayed up through missing, truncated and version 2 snapshots; up 1 with a good one"
# SIGTERM: a clean stop, and in a sanitized build (check-sanitized) no report in its log.
kill "$PID"; rc=0; wait "$PID" || rc=$?; PID=
[ $rc = 0 ] || fail "SIGTERM: exit status $rc"
! grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$WORK/exporter.log" >&2 || fail "a sanitizer report (above)"
grep -q 'stopped by signal 15' "$WORK/exporter.log" || fail "no log line for the stop"
pass "SIGTERM: exit 0, $(tail -n 1 "$WORK/exporter.log")"
