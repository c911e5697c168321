#!/bin/sh
# The manual pages in man/: groff has no warning for any of them (`man --warnings=all`), and
# each says every option there is: the four programs' pages every option of their --help,
# collectd-ebpf(5) every option collectd -T names as valid in each block of the plugin
# (<Plugin ebpf>, every <Module>, <Program>, its map blocks, <Label>): a new option without its
# line in the page fails here. No root: collectd -T stops at the unknown option, before any
# BPF program loads.
set -eu
: "${top_builddir:?run through make check}"
fail() { echo "FAIL: $*" >&2; exit 1; }
COLLECTD=${COLLECTD:-$(command -v collectd || echo /usr/sbin/collectd)}
command -v man >/dev/null || fail "man is not installed (apt-get install man-db)"
[ -x "$COLLECTD" ] || fail "collectd is not installed (apt-get install collectd-core)"
[ -f "$top_builddir/.libs/ebpf.so" ] || fail "$top_builddir/.libs/ebpf.so not built"
work=$(mktemp -d /tmp/ebpf-man.XXXXXX)
trap 'rm -rf "$work"' EXIT

pages="collectd-ebpf-cc.1 collectd-ebpf-hist.1 collectd-ebpf-import.1 collectd-ebpf.5"
[ -x "$top_builddir/ebpf-subagent" ] && pages="$pages ebpf-subagent.8"
[ -x "$top_builddir/collectd-ebpf-prometheus" ] && pages="$pages collectd-ebpf-prometheus.1"
for p in $pages; do
	page="$top_srcdir/man/$p"
	[ -f "$page" ] || fail "no manual page $page"
	MANWIDTH=80 man --warnings=all -l "$page" > "$work/$p.txt" 2> "$work/$p.err" || fail "man -l $page failed: $(cat "$work/$p.err")"
	[ ! -s "$work/$p.err" ] || fail "groff warns on $p: $(cat "$work/$p.err")"
	grep -q "^NAME" "$work/$p.txt" && grep -q "^SEE ALSO" "$work/$p.txt" || fail "$p renders without NAME or SEE ALSO"
done
echo "ok: $pages render without a groff warning"

# has_option PAGE OPTION: the rendered page names OPTION as a word (a "-" inside a word is
# rendered as "-" too, so --since-start is found as such).
has_option() { grep -Eq -- "(^|[^A-Za-z0-9_-])$2([^A-Za-z0-9_-]|\$)" "$work/$1.txt"; }

# The programs: every option their --help or usage names.
help_options() { grep -Eo -- '(^|[ [,])--?[A-Za-z0-9][A-Za-z0-9-]*' | sed 's/^[ [,]//' | sort -u; }
{ "$top_builddir/collectd-ebpf-hist" --help; } | help_options > "$work/hist.opts"
{ "$top_builddir/collectd-ebpf-cc" --help 2>&1 || :; } | help_options > "$work/cc.opts"
"$top_builddir/collectd-ebpf-import" --help | help_options > "$work/import.opts"
check_program() {
	[ -s "$2" ] || fail "no options found in $1's --help"
	while read -r o; do has_option "$1" "$o" || fail "$1 does not describe $o (from --help)"; done < "$2"
	echo "ok: $1 describes $(wc -l < "$2") options of --help"
}
check_program collectd-ebpf-hist.1 "$work/hist.opts"
check_program collectd-ebpf-cc.1 "$work/cc.opts"
check_program collectd-ebpf-import.1 "$work/import.opts"
if [ -x "$top_builddir/ebpf-subagent" ]; then
	"$top_builddir/ebpf-subagent" --help | help_options > "$work/subagent.opts"
	check_program ebpf-subagent.8 "$work/subagent.opts"
fi
if [ -x "$top_builddir/collectd-ebpf-prometheus" ]; then
	"$top_builddir/collectd-ebpf-prometheus" --help | help_options > "$work/prometheus.opts"
	check_program collectd-ebpf-prometheus.1 "$work/prometheus.opts"
fi

# collectd-ebpf(5): what collectd -T says is valid, block by block.
mkdir "$work/plugins"
cp "$top_builddir/.libs/ebpf.so" "$work/plugins/"
# valid_in BLOCK...: the names the "unknown option" error lists for a bad key in that block.
valid_in() {
	{
		echo "PluginDir \"$work/plugins\""
		echo 'TypesDB "/usr/share/collectd/types.db"'
		echo 'LoadPlugin ebpf'
		echo '<Plugin ebpf>'
		printf '%s\n' "$@"
		echo '</Plugin>'
	} > "$work/bad.conf"
	"$COLLECTD" -T -C "$work/bad.conf" > "$work/bad.out" 2>&1 && fail "collectd -T accepted an unknown option: $*"
	sed -n 's/.*unknown option "Nosuch"[^;]*; valid[^:]*: //p' "$work/bad.out" | head -n 1 | tr ',' '\n' |
		sed 's/^ *//; s/ *$//; s/^<\([A-Za-z]*\).*/\1/' | grep .
}
n=0
check_block() {
	names=$(valid_in "$@") || fail "collectd -T named no valid options for: $* ($(cat "$work/bad.out"))"
	for o in $names; do
		has_option collectd-ebpf.5 "$o" || fail "collectd-ebpf(5) does not describe $o (valid in: $*)"
		n=$((n + 1))
	done
}
check_block 'Nosuch 1'
# Every built-in module, as collectd -T names them for a module that does not exist.
valid_in '<Module "nosuch">' '</Module>' > /dev/null || :
modules=$(sed -n 's/.*unknown module "nosuch"; valid modules: //p' "$work/bad.out" | head -n 1 | tr -d ',')
[ -n "$modules" ] || fail "collectd -T named no valid modules for <Module \"nosuch\"> ($(cat "$work/bad.out"))"
for m in $modules; do
	check_block "<Module \"$m\">" 'Nosuch 1' '</Module>'
	has_option collectd-ebpf.5 "$m" || fail "collectd-ebpf(5) does not describe module $m"
done
check_block '<Program "p">' 'Nosuch 1' '</Program>'
check_block '<Program "p">' '<Histogram "m">' 'Nosuch 1' '</Histogram>' '</Program>'
check_block '<Program "p">' '<Counter "m">' 'Nosuch 1' '</Counter>' '</Program>'
check_block '<Program "p">' '<Counter "m">' '<Label "l">' 'Nosuch 1' '</Label>' '</Counter>' '</Program>'
echo "ok: collectd-ebpf(5) describes the $n options collectd -T names as valid in the plugin's blocks"
