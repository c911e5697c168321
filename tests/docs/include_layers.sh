#!/bin/sh
# The floor plan of libcore/ as its `#include "..."` lines draw it, against the one drawn in
# doc/contributing.md (Layout, "Layers"): no include circle between files (headers that
# include each other, which include guards hide), none between libcore's folders, and no
# include against the layer order:
# a folder includes its own files and those of the folders below it in LAYERS, never one
# above it. snapshot/ is a room of its own on base/ (it includes base/ only, and nothing
# in LAYERS includes it). Includes that name no file of these folders (bpf/, the generated
# skeletons, system headers) are not counted. Loads nothing.
# And as the built code draws it: no call circle between units (a .c with its .h) of base/
# and libcore/, from the symbols each object of the two libraries defines and uses (nm).
# Two files that include only downwards can still call each other (a.c includes b.h, b.c
# includes a.h: cost_control.c called module_state_name() back in module.c, which called
# it); a table that names its members (module_table.c, label_decoder.c's decoders) is an
# arrow too, so the members' code must not call back into the table's file.
# One rule inside programs/: a user's program has two parsers, the `<Program>` block's
# (program_config.*) and ebpf_exporter's YAML (exporter_*), which each fill the model
# (program_model.h) and never call each other (program_module_config() runs one after the
# other): neither includes the other's headers.
set -eu
: "${top_srcdir:?run through make check}"
cd "$top_srcdir"

# The layers, bottom first: the same list as doc/contributing.md's picture.
LAYERS="base libcore/decode libcore/hist libcore/kernel libcore/metric libcore/read libcore/engine libcore/programs libcore/modules"
SIDE="snapshot"

# "CALL <unit> <unit> <symbol>": a unit using what another defines (functions and data),
# into $calls; a failure here fails the test (a pipeline would hide it).
calls=$(mktemp)
trap 'rm -f "$calls" "$calls.edges"' EXIT
for lib in "$top_builddir/.libs/libebpfcore.a" "$top_builddir/.libs/libebpfbase.a"; do
	[ -f "$lib" ] || { echo "FAIL: no $lib: build the tree first (make)"; exit 1; }
done
find base libcore -name '*.c' | sed 's/\.c$//' | sort > "$calls"
if ! nm -A "$top_builddir/.libs/libebpfcore.a" "$top_builddir/.libs/libebpfbase.a" | awk -v units="$calls" '
BEGIN {
	# an object is named by the base name of its source alone (libebpfcore_la-<name>.o)
	while ((getline u < units) > 0) {
		n = u; sub(/.*\//, "", n)
		if (n in path) { printf "FAIL: %s.c and %s.c: one object name for two units; rename one\n", path[n], u; bad = 1; exit 1 }
		path[n] = u
	}
	close(units)
}
# a unit by its path; one built outside the source tree (syscall_table.c in a VPATH build)
# by its object name
function unit(m) { return (m in path) ? path[m] : m }
NF == 3 {
	m = $1; sub(/:[^:]*$/, "", m); sub(/.*:/, "", m); sub(/^libebpf(core|base)_la-/, "", m); sub(/\.o$/, "", m)
	if ($2 == "U") { nu++; use_m[nu] = m; use_s[nu] = $3 }
	else if ($2 ~ /^[TDBR]$/) def[$3] = m
}
END {
	if (bad) exit 1
	for (i = 1; i <= nu; i++) {
		to = def[use_s[i]]
		if (to != "" && to != use_m[i]) print "CALL", unit(use_m[i]), unit(to), use_s[i]
	}
}' > "$calls.edges"; then
	cat "$calls.edges"; rm -f "$calls.edges"; exit 1
fi
mv "$calls.edges" "$calls"
# nm missing or unreadable archives would leave no uses, and no circle to find.
[ -s "$calls" ] || { echo "FAIL: nm found no uses between the units of $top_builddir/.libs/libebpf{core,base}.a (is nm, from binutils, installed?)"; exit 1; }

{ cat "$calls"; grep -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $(find base libcore snapshot -name '*.[ch]' | sort); } |
awk -v layers="$LAYERS" -v side="$SIDE" '
function folder(f,   p) {
	if (f ~ /^libcore\//) { split(f, p, "/"); return "libcore/" p[2] }
	split(f, p, "/"); return p[1]
}
# Tarjan: every strongly connected set of more than one node is a circle.
function visit(v, kind,   i, w, scc, n) {
	index_of[kind, v] = low[kind, v] = ++counter
	stack[++sp] = v; on[kind, v] = 1
	for (i = 1; i <= nout[kind, v]; i++) {
		w = out[kind, v, i]
		if (!((kind, w) in index_of)) {
			visit(w, kind)
			if (low[kind, w] < low[kind, v]) low[kind, v] = low[kind, w]
		} else if (on[kind, w] && index_of[kind, w] < low[kind, v])
			low[kind, v] = index_of[kind, w]
	}
	if (low[kind, v] == index_of[kind, v]) {
		scc = ""; n = 0
		do { w = stack[sp--]; on[kind, w] = 0; scc = w (n++ ? " " : "") scc } while (w != v)
		if (n > 1) {
			printf "FAIL: %s circle of %d %ss: %s\n", kind == "unit" ? "call" : "include", n, kind, scc
			bad = 1
			if (kind == "unit") say_calls(scc)
		}
	}
}
# The calls that tie a circle of units, each "a -> b: what a uses of b".
function say_calls(scc,   u, n, i, j) {
	n = split(scc, u, " ")
	for (i = 1; i <= n; i++)
		for (j = 1; j <= n; j++)
			if ((u[i], u[j]) in uses) printf "  %s -> %s:%s\n", u[i], u[j], uses[u[i], u[j]]
}
# Which parser of a user program file belongs to: "block", "yaml" or "".
function parser(f) {
	if (f ~ /^libcore\/programs\/program_config\.[ch]$/) return "block"
	if (f ~ /^libcore\/programs\/exporter_[a-z_]*\.[ch]$/) return "yaml"
	return ""
}
function edge(kind, a, b) {
	if (a == b || (kind, a, b) in seen) return
	seen[kind, a, b] = 1
	out[kind, a, ++nout[kind, a]] = b
	nodes[kind, a] = 1; nodes[kind, b] = 1
}
BEGIN {
	n = split(layers, l, " ")
	for (i = 1; i <= n; i++) rank[l[i]] = i
}
$1 == "CALL" {
	calls++
	edge("unit", $2, $3)
	if (length(uses[$2, $3]) < 200) uses[$2, $3] = uses[$2, $3] " " $4
	next
}
{
	file = $0; sub(/:.*/, "", file)
	inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
	dir = file; sub(/\/[^\/]*$/, "", dir)
	if ((getline junk < inc) >= 0) { close(inc); target = inc }
	else if ((getline junk < (dir "/" inc)) >= 0) { close(dir "/" inc); target = dir "/" inc }
	else next
	if (target !~ /^(base|libcore|snapshot)\//) next
	edges++
	edge("file", file, target)
	if (parser(file) != "" && parser(target) != "" && parser(file) != parser(target)) {
		printf "FAIL: %s includes %s: the parsers of the <Program> block and of the ebpf_exporter YAML each fill the model (program_model.h) and call only it; program_module_config() runs one after the other\n", file, inc
		bad = 1
	}
	from = folder(file); to = folder(target)
	if (from == to) next
	edge("folder", from, to)
	if (from == side) ok = (to == "base")
	else ok = (from in rank) && (to in rank) && rank[to] < rank[from]
	if (!ok) {
		printf "FAIL: %s includes %s: %s is not below %s in the layers\n", file, inc, to, from
		bad = against = 1
	}
}
END {
	for (k in nodes) { split(k, p, SUBSEP); if (!((p[1], p[2]) in index_of)) visit(p[2], p[1]) }
	if (against) printf "the layers, bottom first: %s; %s/ on base/ only\n", layers, side
	if (!bad) printf "ok: %d includes between files of base/, libcore/, snapshot/: no circle, none against the layers, no parser of a program including the other; %d uses between units of base/ and libcore/: no circle\n", edges, calls
	exit bad
}'
