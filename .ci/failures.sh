#!/bin/sh
# .ci/failures.sh BUILDDIR...: why each failed test failed, in a few lines, for the end of
# CI's output (a long run's output is often read only at its head and tail, where the
# failure's own output, printed with its lane, is not).
# .ci/failures.sh --kernels VMDIR: the same for the kernel matrix's runs, from the VM
# consoles (VMDIR/<release>.log: "==== BEGIN <test> <method>" ... "==== END ... rc=N").
# Each failure (CI counts a skip as one): its name, then its first 3 "FAIL:" or "SKIP:" lines
# (lib.sh's fail and skip; a C test's CHECK, "file.c:LINE: FAIL: ..."), cut at 600 characters.
usage() { echo "usage: $0 BUILDDIR... | --kernels VMDIR" >&2; exit 2; }
[ $# -ge 1 ] || usage
cut_lines() { awk '/(^|: )(FAIL|SKIP): / && n < 3 { n++; print "    " substr($0, 1, 600) }'; }
if [ "$1" = --kernels ]; then
	[ $# = 2 ] || usage
	for log in "$2"/*.log; do
		[ -f "$log" ] || continue
		rel=${log##*/}
		tr -d '\r' < "$log" | awk -v k="${rel%.log}" '
			$1 == "====" && $2 == "BEGIN" { name = $3 " " $4; open = 1; n = 0; delete lines; next }
			$1 == "====" && $2 == "END" {
				if ($5 != "rc=0") {
					print "  " k " " name " (" $5 ")"
					for (i = 1; i <= n; i++) print "    " substr(lines[i], 1, 600)
				}
				open = 0
				next
			}
			/(^|: )(FAIL|SKIP): / && n < 3 { lines[++n] = $0 }
			END { if (open) print "  " k " " name " (no END: the VM stopped in this run)" }'
	done
	exit 0
fi
for dir in "$@"; do
	for trs in "$dir"/tests/*/*.trs; do
		[ -f "$trs" ] || continue
		grep -q '^:test-result: \(FAIL\|ERROR\|XPASS\|SKIP\)' "$trs" || continue
		log=${trs%.trs}.log
		echo "  ${log#"$dir"/}"
		cut_lines < "$log"
	done
done
