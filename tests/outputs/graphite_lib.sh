# Shared by the Graphite tests; sourced after lib.sh. Debian's carbon-cache and graphite-web
# on a private directory and private loopback ports (never the system's carbon service or
# /var/lib/graphite), collectd's write_graphite plugin pointed at that carbon, both
# servers stopped on exit and their logs shown on failure.
PY=/usr/bin/python3    # Debian's: graphite-web and carbon are installed for it, not for another python3 on PATH
CARBON_CACHE=$(command -v carbon-cache || echo /usr/bin/carbon-cache)
[ -x "$CARBON_CACHE" ] || skip "carbon-cache not installed (apt-get install graphite-carbon)"
"$PY" -c 'import graphite.settings' 2>/dev/null || skip "graphite-web not installed for $PY (apt-get install graphite-web)"
cp "$STOCK_PLUGINDIR/write_graphite.so" "$WORK/plugins/" ||
	skip "collectd plugin write_graphite.so missing from $STOCK_PLUGINDIR"
GRAPHITE_CLIENT="$PY $top_srcdir/tests/outputs/graphite_client.py"

set -- $($GRAPHITE_CLIENT free-ports 4)
CARBON_LINE_PORT=$1 CARBON_PICKLE_PORT=$2 CARBON_QUERY_PORT=$3 GRAPHITE_WEB_PORT=$4
GRAPHITE_URL="http://127.0.0.1:$GRAPHITE_WEB_PORT"
CARBON_PID= GRAPHITE_WEB_PID=

# Each step may fail (a server that already exited, wait's status of a killed process)
# without stopping the others: the next test must not meet a carbon still holding the lock.
graphite_cleanup() {
	for pid in $GRAPHITE_WEB_PID $CARBON_PID; do kill "$pid" 2>/dev/null || true; done
	for pid in $GRAPHITE_WEB_PID $CARBON_PID; do wait "$pid" 2>/dev/null || true; done
	cleanup
}
trap graphite_cleanup EXIT INT TERM

gfail() {
	for f in "$WORK/carbon/carbon.out" "$WORK/carbon/log/console.log" "$WORK/graphite-web/web.log"; do
		[ -f "$f" ] && sed "s|^|  ${f#$WORK/}: |" "$f" | tail -n 20 >&2
	done
	fail "$@"
}

# start_carbon: carbon-cache in the foreground, every path in $WORK/carbon, one archive of
# one-second points for an hour (collectd sends every Interval = 1 s; whisper keeps the last
# value sent for each second). Returns once it accepts connections on its line port.
start_carbon() {
	c="$WORK/carbon"
	mkdir -p "$c/whisper" "$c/log"
	cat > "$c/carbon.conf" <<CONF
[cache]
STORAGE_DIR = $c/
LOCAL_DATA_DIR = $c/whisper/
CONF_DIR = $c/
LOG_DIR = $c/log/
PID_DIR = $c/
DATABASE = whisper
USER =
# No throttling: a first interval creates a few hundred series at once.
MAX_CACHE_SIZE = inf
MAX_UPDATES_PER_SECOND = inf
MAX_CREATES_PER_MINUTE = inf
LINE_RECEIVER_INTERFACE = 127.0.0.1
LINE_RECEIVER_PORT = $CARBON_LINE_PORT
PICKLE_RECEIVER_INTERFACE = 127.0.0.1
PICKLE_RECEIVER_PORT = $CARBON_PICKLE_PORT
CACHE_QUERY_INTERFACE = 127.0.0.1
CACHE_QUERY_PORT = $CARBON_QUERY_PORT
ENABLE_UDP_LISTENER = False
ENABLE_MANHOLE = False
WHISPER_AUTOFLUSH = False
# Errors only in the log the tests show on failure, not a line per point.
LOG_UPDATES = False
LOG_CREATES = False
LOG_CACHE_HITS = False
LOG_LISTENER_CONNECTIONS = False
# carbon's statistics about itself (carbon.agents.*) would sit beside the host's metrics.
CARBON_METRIC_INTERVAL = 0
# Tags would be registered with a graphite-web at 127.0.0.1:80; plain paths need none.
ENABLE_TAGS = False
CONF
	cat > "$c/storage-schemas.conf" <<CONF
[everything]
pattern = .*
retentions = 1s:1h
CONF
	"$CARBON_CACHE" --config="$c/carbon.conf" --nodaemon --pidfile="$c/carbon.pid" \
		--logdir="$c/log" start > "$c/carbon.out" 2>&1 &
	CARBON_PID=$!
	i=0
	until "$PY" -c "import socket; socket.create_connection(('127.0.0.1', $CARBON_QUERY_PORT)).close()" 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 100 ] || gfail "carbon-cache did not listen on port $CARBON_QUERY_PORT within 20 s"
		kill -0 "$CARBON_PID" 2>/dev/null || gfail "carbon-cache exited"
		sleep 0.2
	done
}

# start_graphite_web: graphite-web (tests/outputs/graphite_web.py) reading carbon's
# whisper files and its cache. Returns once /metrics/find answers.
start_graphite_web() {
	mkdir -p "$WORK/graphite-web"
	"$PY" "$top_srcdir/tests/outputs/graphite_web.py" "$WORK/graphite-web" "$GRAPHITE_WEB_PORT" \
		"$WORK/carbon/whisper" "$CARBON_QUERY_PORT" > "$WORK/graphite-web/web.log" 2>&1 &
	GRAPHITE_WEB_PID=$!
	i=0
	until $GRAPHITE_CLIENT "$GRAPHITE_URL" find '*' > /dev/null 2>&1; do
		i=$((i + 1)); [ $i -lt 150 ] || gfail "graphite-web did not answer on $GRAPHITE_URL within 30 s"
		kill -0 "$GRAPHITE_WEB_PID" 2>/dev/null || gfail "graphite-web exited"
		sleep 0.2
	done
}

# write_graphite_config: the write_graphite block for collectd.conf, sending to our carbon.
# StoreRates false: DERIVE counters arrive raw (cumulative counts), so a difference of two
# points is an exact count; graphs take nonNegativeDerivative() or perSecond() of them.
# FlushInterval 1: write_graphite holds values in a 1428-byte buffer until it is full; the
# flush sends the rest of every interval within a second.
write_graphite_config() {
	cat <<CONF
<LoadPlugin write_graphite>
  FlushInterval 1
</LoadPlugin>
<Plugin write_graphite>
  <Node "test">
    Host "127.0.0.1"
    Port "$CARBON_LINE_PORT"
    Protocol "tcp"
    StoreRates false
    LogSendErrors true
  </Node>
</Plugin>
CONF
}

# g_render TARGET [FROM]: "SERIES TIMESTAMP VALUE" per non-null point.
g_render() { $GRAPHITE_CLIENT "$GRAPHITE_URL" render "$@"; }
# g_find QUERY: "leaf|branch ID" per node.
g_find() { $GRAPHITE_CLIENT "$GRAPHITE_URL" find "$1"; }

# g_wait_leaf PATH SECONDS: until /metrics/find knows PATH (carbon creates each whisper
# file when the series' first point arrives, one after the other).
g_wait_leaf() {
	i=0
	until g_find "$1" | grep -xF "leaf $1" > /dev/null; do
		i=$((i + 1)); [ $i -lt $(($2 * 5)) ] || return 1
		sleep 0.2
	done
}

# g_last TARGET: "TIMESTAMP VALUE" of the newest non-null point of one series.
g_last() { g_render "$1" -2min | tail -n 1 | cut -d' ' -f2-; }

# g_wait_newer TARGET SECONDS TIME: waits until the series has a point later than TIME.
g_wait_newer() {
	i=0
	while [ $i -lt $(($2 * 5)) ]; do
		ts=$(g_last "$1" | cut -d' ' -f1)
		[ -n "$ts" ] && [ "$ts" -gt "$3" ] && return 0
		sleep 0.2; i=$((i + 1))
	done
	return 1
}
