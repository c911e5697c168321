#!/bin/sh
# Every relative link of README.md and doc/*.md, outside code blocks, names a file of the
# source tree, and its #anchor (if any) a heading of that file, as GitHub makes anchors
# (lower case, punctuation dropped, blanks to hyphens). The README was split into doc/ pages
# that link to each other: a renamed heading or a moved page fails here.
set -eu
: "${top_srcdir:?run through make check}"
cd "$top_srcdir"
fail=0 links=0

# anchors FILE: the anchor of each heading of FILE outside code blocks, one a line.
anchors() {
	awk '/^```/ { code = !code; next } !code && /^#+ / {
		sub(/^#+ /, ""); s = tolower($0); gsub(/[^a-z0-9 _-]/, "", s); gsub(/ /, "-", s); print s }' "$1"
}

for page in README.md doc/*.md; do
	[ -f "$page" ] || { echo "FAIL: no $page" >&2; exit 1; }
	dir=$(dirname "$page")
	# The targets of [text](target) outside code blocks, one a line.
	targets=$(awk '/^```/ { code = !code; next } !code' "$page" | tr '\n' ' ' |
		grep -o '\](\([^)]*\))' | sed 's/^](//; s/)$//' || true)
	for t in $targets; do
		case $t in http://*|https://*|mailto:*) continue ;; esac
		links=$((links + 1))
		file=${t%%#*}
		anchor=
		case $t in *'#'*) anchor=${t#*#} ;; esac
		if [ -z "$file" ]; then target=$page; else target=$dir/$file; fi
		if [ ! -e "$target" ]; then
			echo "FAIL: $page links to $t: no file $target" >&2
			fail=1
			continue
		fi
		if [ -n "$anchor" ] && ! anchors "$target" | grep -qxF "$anchor"; then
			echo "FAIL: $page links to $t: $target has no heading with anchor #$anchor" >&2
			fail=1
		fi
	done
done
[ "$links" -gt 20 ] || { echo "FAIL: only $links links found: the link pattern no longer matches" >&2; exit 1; }
# Every doc page is reachable from the README.
for page in doc/*.md; do
	grep -q "](${page})" README.md || { echo "FAIL: README.md does not link to $page" >&2; fail=1; }
done
[ "$fail" = 0 ] || exit 1
echo "ok: $links links of README.md and doc/*.md name existing files and headings"
