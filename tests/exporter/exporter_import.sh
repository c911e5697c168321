#!/bin/sh
# collectd-ebpf-import on the test configs in ebpf_exporter's format (tests/exporter/*.yaml):
# the printed <Program> block is exactly the one in tests/exporter/<name>.import.conf (the
# YAML's directory as @DIR@), Object the .bpf.o beside the YAML unless --object names
# another; a config with an unknown field exits 1 naming the file, the line and column and the
# fields there (never the file's text), as ExporterConfig does; a bad command line exits 2. That the block gives the same values as
# ExporterConfig in collectd: tests/exporter/collectd_exporter_import.sh. No root, no BPF.
set -eu
: "${top_builddir:?run through make check}"
fail() { echo "FAIL: $*" >&2; exit 1; }
IMPORT="$top_builddir/collectd-ebpf-import"
work=$(mktemp -d /tmp/ebpf-import.XXXXXX)
trap 'rm -rf "$work"' EXIT

for n in exporter_syscalls exporter_biolatency exporter_comm; do
	cp "$top_srcdir/tests/exporter/$n.yaml" "$work/"
	"$IMPORT" "$work/$n.yaml" > "$work/$n.out" 2> "$work/$n.err" || fail "$n.yaml refused: $(cat "$work/$n.err")"
	[ ! -s "$work/$n.err" ] || fail "$n.yaml: messages on stderr: $(cat "$work/$n.err")"
	sed "s|$work|@DIR@|g" "$work/$n.out" > "$work/$n.got"
	diff -u "$top_srcdir/tests/exporter/$n.import.conf" "$work/$n.got" >&2 || fail "$n.yaml printed another block"
	echo "ok: $n.yaml prints the block of tests/exporter/$n.import.conf"
done

# A relative path: Object and the comment are absolute (Object takes absolute paths only).
(cd "$work" && "$IMPORT" --name bio exporter_biolatency.yaml) > "$work/rel.out" || fail "a relative path is refused"
grep -qx "<Program \"bio\">" "$work/rel.out" || fail "--name bio: $(head -2 "$work/rel.out")"
grep -qx "  Object \"$work/exporter_biolatency.bpf.o\"" "$work/rel.out" || fail "relative path: $(grep Object "$work/rel.out")"
(cd "$work" && "$IMPORT" -o objs/bio.bpf.o exporter_biolatency.yaml) > "$work/obj.out" || fail "-o refused"
grep -qx "  Object \"$work/objs/bio.bpf.o\"" "$work/obj.out" || fail "-o objs/bio.bpf.o: $(grep Object "$work/obj.out")"
"$IMPORT" --object=/opt/bio.bpf.o "$work/exporter_biolatency.yaml" | grep -qx '  Object "/opt/bio.bpf.o"' ||
	fail "--object=/opt/bio.bpf.o is not the Object"
echo "ok: Object is the .bpf.o beside the YAML, or --object's (made absolute); --name names the program"

# An unknown field on line 7: exit 1, the message names the file, the line and column and
# ebpf_exporter's fields there, not the key, as collectd -T does for ExporterConfig.
sed 's/^      help: System calls of one process by name$/&\n      colour: blue/' \
	"$top_srcdir/tests/exporter/exporter_syscalls.yaml" > "$work/bad.yaml"
[ "$(sed -n 7p "$work/bad.yaml")" = "      colour: blue" ] || fail "the bad YAML is not as the test means: $(sed -n 5,8p "$work/bad.yaml")"
rc=0
"$IMPORT" "$work/bad.yaml" > "$work/bad.out" 2> "$work/bad.err" || rc=$?
[ "$rc" = 1 ] || fail "an unknown field exits $rc, not 1"
[ ! -s "$work/bad.out" ] || fail "a refused config printed a block: $(cat "$work/bad.out")"
grep -q "ExporterConfig \"$work/bad.yaml\" line 7 column 7: unknown field in a counter; ebpf_exporter's fields there: name, help" "$work/bad.err" ||
	fail "the message for an unknown field: $(cat "$work/bad.err")"
echo "ok: an unknown field exits 1: $(cat "$work/bad.err")"

# A key that carries an OSC title, BEL, a newline, a C1 CSI and a bidi override (YAML's
# escapes): the message never quotes the file's text (it names the line and column), so none
# of them reaches the terminal, and it is one line.
printf 'metrics:\n  counters:\n    - name: x\n      help: x\n      "\\e]0;pwned\\a\\nERROR: forged\\u009b\\u202e": 1\n' > "$work/hostile.yaml"
rc=0
"$IMPORT" "$work/hostile.yaml" > /dev/null 2> "$work/hostile.err" || rc=$?
[ "$rc" = 1 ] || fail "the hostile key exits $rc, not 1"
[ "$(cat "$work/hostile.err")" = "collectd-ebpf-import: ExporterConfig \"$work/hostile.yaml\" line 5 column 7: unknown field in a counter; ebpf_exporter's fields there: name, help, perf_event_array, flush_interval, labels" ] ||
	fail "the hostile key's error is not one line without the key: $(od -c "$work/hostile.err" | head -5)"
echo "ok: a key with ESC, OSC, newline, C1 and bidi is not quoted: $(cat "$work/hostile.err")"

rc=0; "$IMPORT" "$work/missing.yaml" 2> "$work/missing.err" > /dev/null || rc=$?
[ "$rc" = 1 ] && grep -q "cannot use ExporterConfig \"$work/missing.yaml\": No such file or directory" "$work/missing.err" || fail "a missing file exits $rc: $(cat "$work/missing.err")"
for args in "" "--colour" "a.yml" "a.yaml b.yaml" "--name a/b x.yaml" "--object"; do
	rc=0
	# shellcheck disable=SC2086 # each word an argument
	"$IMPORT" $args > /dev/null 2>&1 || rc=$?
	[ "$rc" = 2 ] || fail "'collectd-ebpf-import $args' exits $rc, not 2"
done
"$IMPORT" --help | grep -q -- "--object PATH" || fail "--help does not describe --object"
echo "ok: a missing file exits 1, a bad command line 2, --help exits 0"
