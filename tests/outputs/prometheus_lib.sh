# Shared by the Prometheus tests; sourced after lib.sh. collectd's own write_prometheus plugin
# on a private loopback port, scraped every second by Debian's real Prometheus server with
# its storage in the work directory (never the system's prometheus.service or its data);
# the server stopped on exit and its log shown on failure.
PY=/usr/bin/python3
PROMETHEUS=$(command -v prometheus || echo /usr/bin/prometheus)
[ -x "$PROMETHEUS" ] || skip "the Prometheus server is not installed (apt-get install prometheus)"
cp "$STOCK_PLUGINDIR/write_prometheus.so" "$WORK/plugins/" ||
	skip "collectd plugin write_prometheus.so missing from $STOCK_PLUGINDIR"
set -- $($PY "$top_srcdir/tests/outputs/graphite_client.py" free-ports 2)
WRITE_PROMETHEUS_PORT=$1 PROMETHEUS_PORT=$2
PROMETHEUS_URL="http://127.0.0.1:$PROMETHEUS_PORT"
PROMETHEUS_PID=

# A test with a trap of its own (test_cgroups) names stop_prometheus in it (CG_BEFORE_REMOVAL).
stop_prometheus() {
	[ -z "$PROMETHEUS_PID" ] || { kill "$PROMETHEUS_PID" 2>/dev/null || true; wait "$PROMETHEUS_PID" 2>/dev/null || true; }
	PROMETHEUS_PID=
}
prometheus_cleanup() {
	stop_prometheus
	cleanup
}
trap prometheus_cleanup EXIT INT TERM

pfail() {
	[ -f "$WORK/prometheus.log" ] && tail -n 20 "$WORK/prometheus.log" | sed 's/^/  prometheus: /' >&2
	fail "$@"
}

# The write_prometheus block for write_config's common part (before LoadPlugin ebpf).
write_prometheus_config() {
	cat <<CONF
LoadPlugin write_prometheus
<Plugin write_prometheus>
  Host "127.0.0.1"
  Port "$WRITE_PROMETHEUS_PORT"
</Plugin>
CONF
}

# start_prometheus: the server, scraping collectd's write_prometheus every second (or
# PROMETHEUS_TARGET, ADDRESS:PORT, when the test sets it: collectd-ebpf-prometheus); waits
# until it answers queries.
start_prometheus() {
	cat > "$WORK/prometheus.yml" <<CONF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: collectd
    static_configs:
      - targets: ["${PROMETHEUS_TARGET:-127.0.0.1:$WRITE_PROMETHEUS_PORT}"]
CONF
	"$PROMETHEUS" --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/prometheus-data" \
		--web.listen-address="127.0.0.1:$PROMETHEUS_PORT" > "$WORK/prometheus.log" 2>&1 &
	PROMETHEUS_PID=$!
	wait_until 30 prom_ready || pfail "the Prometheus server did not start on $PROMETHEUS_URL"
}
prom_ready() { prom_query 'vector(1)' >/dev/null 2>&1; }

# prom_query EXPR: the values of EXPR now, one line per series ("{labels} value").
prom_query() { $PY "$top_srcdir/tests/outputs/prometheus_query.py" "$PROMETHEUS_URL" "$1"; }
# prom_value EXPR: the value of EXPR's one series (empty when none).
prom_value() { prom_query "$1" | awk '{ print $NF; exit }'; }
prom_is() { [ "$(prom_value "$1")" = "$2" ]; }
