#!/bin/sh
# ebpf_exporter's own examples, unmodified, against doc/programs.md's table of them: not in
# TESTS (CI cannot reach GitHub, and nothing of ebpf_exporter is kept in this tree); run by
# hand with a checkout of it:
#   EBPF_EXPORTER=/path/to/ebpf_exporter make check TESTS=tests/exporter/exporter_examples.sh
# Every examples/*.bpf.c compiles with collectd-ebpf-cc as it is; each example's YAML and
# object are then loaded through <Program> ExporterConfig in the real collectd, and each
# table row's status must hold: "refused" stops collectd -T with an ExporterConfig error,
# "loads" and "counts exactly" attach every program (here: this machine's kernel), "parses"
# passes the YAML (the object may stay off here: the row says why). A "parses" row that
# loads on this machine is printed, not a failure (a kernel with kprobes loads more).
# bpf-jit gets Skip "do_init" and xdp AllowProgramType "xdp", as the table says; the
# programs' names are x_<example> (the example syscalls is also a built-in module's name).
. "$top_srcdir/tests/support/lib.sh"

EX=${EBPF_EXPORTER:?set EBPF_EXPORTER to a checkout of github.com/cloudflare/ebpf_exporter}/examples
[ -d "$EX" ] || fail "$EX is not a directory"
TABLE="$top_srcdir/doc/programs.md"
OBJ="$WORK/objects"
mkdir -p "$OBJ" && chmod 755 "$OBJ"
export COLLECTD_EBPF_CACHE="$WORK/cache"

compiled=0 total=0
for src in "$EX"/*.bpf.c; do
	n=$(basename "$src" .bpf.c)
	total=$((total + 1))
	(cd "$EX" && sh "$top_srcdir/tools/collectd-ebpf-cc.sh" -o "$OBJ/$n.bpf.o" "$n.bpf.c") > "$WORK/$n.cc" 2>&1 ||
		{ cat "$WORK/$n.cc" >&2; fail "$n does not compile with collectd-ebpf-cc"; }
	compiled=$((compiled + 1))
done
pass "$compiled of $total examples compile with collectd-ebpf-cc, unmodified"

# status NAME: the table's status of example NAME.
status() {
	sed -n '/<!-- exporter-compat-begin -->/,/<!-- exporter-compat-end -->/p' "$TABLE" |
		awk -F' *[|] *' -v n="$1" '$2 == n { print $4 }'
}

loads=0 rows=0
for yaml in "$EX"/*.yaml; do
	n=$(basename "$yaml" .yaml)
	want=$(status "$n")
	[ -n "$want" ] || fail "$n is not in doc/programs.md's table"
	rows=$((rows + 1))
	cp "$yaml" "$OBJ/" && chmod 644 "$OBJ/$n.yaml" "$OBJ/$n.bpf.o"
	p=x_$(echo "$n" | tr -- '-.' '__')
	extra=
	case $n in bpf-jit) extra='Skip "do_init"' ;; xdp) extra='AllowProgramType "xdp"' ;; esac
	write_config "$WORK/$n.conf" <<CONF
<Plugin ebpf>
  SnapshotFile ""
  <Program "$p">
    ExporterConfig "$OBJ/$n.yaml"
    $extra
  </Program>
</Plugin>
CONF
	rm -f "$WORK/collectd.log"
	if "$COLLECTD" -T -C "$WORK/$n.conf" > "$WORK/$n.t" 2>&1; then got=loads; else got=off; fi
	why=$(grep -h 'ebpf plugin: .*\(<Program\|is off\)' "$WORK/collectd.log" "$WORK/$n.t" 2>/dev/null | head -n 1 | cut -c1-300)
	case "$want:$got" in
	refused:*)
		echo "$why" | grep -q "ExporterConfig \"$OBJ/$n.yaml\" line" || fail "$n: the table says refused, collectd -T: ${why:-accepted it}" ;;
	loads:loads | "counts exactly:loads") loads=$((loads + 1)) ;;
	loads:* | "counts exactly:"*) fail "$n: the table says $want, but it does not load here: $why" ;;
	parses:loads) loads=$((loads + 1)); echo "$n: loads here (the table says parses)" ;;
	parses:*)
		echo "$why" | grep -q "ExporterConfig \"$OBJ/$n.yaml\" line" && fail "$n: the table says parses, the YAML is refused: $why"
		echo "$n: parses; off here: $why" ;;
	*) fail "$n: unknown status \"$want\" in the table" ;;
	esac
done
pass "$rows examples' YAML through ExporterConfig as the table says: $loads load here"
