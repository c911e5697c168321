#!/bin/sh
# The names a built-in module gives its BPF object (programs, maps, rodata) are checked by
# the compiler against the object's generated skeleton (libcore/engine/object_names.h):
# - a descriptor with one name misspelt, or compiled against a skeleton whose object lost
#   the name, fails to compile and the compiler names the name: a program (in a witnessed
#   tracepoint's candidates, in a hand-written list), a map of a view, a rodata variable of
#   a configure hook, and a name of the engine's own (module.c);
# - no descriptor spells a program, map or rodata variable of its object as a plain string
#   (which only the module's start would check), outside the contexts where the same word
#   is a metric's name.
# Compiles with -fsyntax-only; loads nothing.
set -eu
: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"

fail=0
# The compiler and flags the build uses (configure's, from the Makefile it wrote).
mkvar() { sed -n "s/^$1 = //p" "$top_builddir/Makefile" | head -n 1; }
CC=$(mkvar CC)
FLAGS="-std=gnu11 -fsyntax-only $(mkvar LIBBPF_CFLAGS) $(mkvar YAML_CFLAGS)"
tmp=$(mktemp -d /tmp/object-names.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# A skeleton directory of our own first on the path where a case replaces one.
mkdir "$tmp/skel"
compile() { # file: 0 if it compiles
	# shellcheck disable=SC2086
	LC_ALL=C $CC $FLAGS -I"$tmp/skel" -I"$top_srcdir" -I"$top_srcdir/bpf" -I"$top_builddir/bpf" -I"$top_builddir" \
		"$1" >"$tmp/out" 2>&1
}

# mistake <file> <sed expression> <the name the compiler must name> <what>
mistake() {
	f=$top_srcdir/$1
	copy=$tmp/$(basename "$f")
	if ! compile "$f"; then
		echo "FAIL: $1 does not compile as it is:"; head -n 5 "$tmp/out"; fail=1; return
	fi
	sed "$2" "$f" >"$copy"
	if cmp -s "$f" "$copy"; then
		echo "FAIL: $1: '$2' changed nothing (the test is out of date)"; fail=1; return
	fi
	if compile "$copy"; then
		echo "FAIL: $1 with $4 misspelt ($3) compiles"; fail=1
	elif ! grep -q "no member named '$3'" "$tmp/out"; then
		echo "FAIL: $1 with $4 misspelt fails, but not on the name $3:"; head -n 5 "$tmp/out"; fail=1
	else
		echo "ok: $1: $4 misspelt: $(grep -m1 "no member named" "$tmp/out" | sed 's/^[^ ]* //')"
	fi
}
mistake libcore/modules/signals.c 's/MODULE_WITNESSED_TRACEPOINT("signal_deliver", deliver)/MODULE_WITNESSED_TRACEPOINT("signal_deliver", delivr)/' \
	delivr_btf "a witnessed tracepoint's program"
mistake libcore/modules/runqueue.c 's/PROG_NAME(rq_switch_raw_hash)/PROG_NAME(rq_swtich_raw_hash)/' rq_swtich_raw_hash "a program"
mistake libcore/modules/vfs.c 's/MAP_NAME(ops)/MAP_NAME(opz)/' opz "a view's map"
mistake libcore/modules/tcp.c 's/MODULE_RODATA(obj, port_mode)/MODULE_RODATA(obj, port_mdoe)/' port_mdoe "a rodata variable"
mistake libcore/engine/module.c 's/ENGINE_RODATA(m->obj, filter_tgid)/ENGINE_RODATA(m->obj, filter_tigd)/' filter_tigd "an engine name"

# The object changes instead (a program renamed in bpf/dcache.bpf.c): its skeleton lacks the
# name, and the descriptor that still names it fails.
sed 's/\bmiss_kprobe\b/miss_kprobe_renamed/' "$top_builddir/bpf/dcache.skel.h" >"$tmp/skel/dcache.skel.h"
if compile "$top_srcdir/libcore/modules/dcache.c"; then
	echo "FAIL: dcache.c compiles against an object without its program miss_kprobe"; fail=1
elif ! grep -q "no member named 'miss_kprobe'" "$tmp/out"; then
	echo "FAIL: dcache.c against an object without miss_kprobe fails, but not on that name:"; head -n 5 "$tmp/out"; fail=1
else
	echo "ok: dcache.c against an object that renamed miss_kprobe does not compile"
fi
rm -f "$tmp/skel/dcache.skel.h"

# No plain-string names: every program, map and rodata variable of each module's skeleton,
# against the string literals of its descriptor, leaving out comments and the lines where the
# word is a metric's name (fields, histograms, cost events, stat rows) or an option's value.
for src in "$top_srcdir"/libcore/modules/*.c; do
	m=$(basename "$src" .c)
	skel=$top_builddir/bpf/$m.skel.h
	[ -f "$skel" ] || continue
	names=$(awk '
		/^\tstruct \{$/ { inside = 1; next }
		/^\tstruct [a-z0-9_]*__rodata \{$/ { inside = 1; next }
		/^\t\}/ { inside = 0 }
		inside && /;$/ { n = $NF; sub(/;$/, "", n); sub(/^\*/, "", n); sub(/\[.*/, "", n); print n }
	' "$skel" | sort -u)
	if [ -z "$names" ]; then
		echo "FAIL: no names read from $skel (its layout changed?)"; fail=1; continue
	fi
	for n in $names; do
		grep -n "\"$n\"" "$src" |
			grep -v -e 'VALUE_' -e 'hist_metric' -e 'cost_events' -e 'VIEW_ALWAYS' -e 'strcasecmp' \
				-e '^[0-9]*:[[:space:]]*/\?\*' |
			sed "s|^|FAIL: libcore/modules/$m.c names \"$n\" of its object in a string (use PROG_NAME, MAP_NAME, MODULE_RODATA): line |" ||
			true
	done
done >"$tmp/strings"
if [ -s "$tmp/strings" ]; then
	cat "$tmp/strings"; fail=1
else
	echo "ok: no descriptor names its object's programs, maps or rodata in strings"
fi
exit $fail
