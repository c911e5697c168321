# The endpoint under test, collectd-ebpf-prometheus, for the tests that scrape it with a real
# Prometheus server (tests/outputs/prometheus_lib.sh, sourced here too).
. "$top_srcdir/tests/outputs/prometheus_lib.sh"

# need_endpoint: ENDPOINT and PROMTOOL set, or the test is skipped saying what is missing.
need_endpoint() {
	ENDPOINT="$top_builddir/collectd-ebpf-prometheus"
	[ -x "$ENDPOINT" ] || skip "collectd-ebpf-prometheus is not built (configure found no libmicrohttpd)"
	PROMTOOL=$(command -v promtool || echo /usr/bin/promtool)
	[ -x "$PROMTOOL" ] || skip "promtool is not installed (apt-get install prometheus)"
	command -v curl >/dev/null 2>&1 || skip "curl is missing"
	command -v dd >/dev/null 2>&1 || skip "dd is missing"
	ENDPOINT_PID=
	# The port first: collectd's config or the test may name it before the endpoint starts.
	PROMETHEUS_TARGET=127.0.0.1:$($PY "$top_srcdir/tests/outputs/graphite_client.py" free-ports 1)
	METRICS=http://$PROMETHEUS_TARGET/metrics
}

# start_endpoint SNAPSHOT [OPTION...]: the endpoint on PROMETHEUS_TARGET, its log in
# $WORK/endpoint.log, answering on METRICS (or the test fails with its log).
start_endpoint() {
	_snapshot=$1
	shift
	"$ENDPOINT" --snapshot="$_snapshot" --listen="$PROMETHEUS_TARGET" "$@" > "$WORK/endpoint.log" 2>&1 &
	ENDPOINT_PID=$!
	wait_until 10 curl -sf -o /dev/null "$METRICS" ||
		fail "collectd-ebpf-prometheus does not answer on $METRICS: $(cat "$WORK/endpoint.log")"
}

stop_endpoint() {
	[ -z "${ENDPOINT_PID:-}" ] || { kill "$ENDPOINT_PID" 2>/dev/null || true; wait "$ENDPOINT_PID" 2>/dev/null || true; }
	ENDPOINT_PID=
}
