#!/bin/sh
# `collectd -T` on ebpf_exporter configs (<Program> ExporterConfig) that are wrong or use what
# is not supported yet (tests/exporter/exporter_errors.table: an unknown field at each
# level, a label size its decoder cannot read, an unknown decoder, a chain in the wrong order,
# kaddrs, tracing with and without metrics, fixed buckets, no help, a bucket label that is not
# a number, text that is not YAML, a key carrying an OSC title, a newline, C1 and bidi controls,
# never quoted): each stops collectd -T with one error naming the file, the line and column and
# the field, never the file's text. A label whose size does not add up to the map's key is
# refused against the object, and the good config passes -T, so it is the mistake that fails
# the others. The file itself is refused as the object would be (a link, writable by group or
# others, a FIFO, another user's, over 64 KiB), and so is a document nested deeper than 64
# (refused before libyaml loads it); a secret in a key or value is never in the error.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

TABLE="$top_srcdir/tests/exporter/exporter_errors.table"
OBJ="$WORK/objects"
install_objects "$OBJ" tests/exporter/exporter_syscalls.bpf.o

# run_t NAME [OBJECT]: collectd -T on <Program "p"> with ExporterConfig $OBJ/NAME.yaml (the
# object is $OBJ/OBJECT, by default exporter_syscalls.bpf.o); its exit status.
run_t() {
	conf="$WORK/$1.conf"
	write_config /dev/stdout < /dev/null | sed '/^LoadPlugin logfile/,/^<\/Plugin>/d' > "$conf"
	cat >> "$conf" <<CONF
<Plugin ebpf>
  SnapshotFile ""
  <Program "p">
    ExporterConfig "$OBJ/$1.yaml"
    Object "$OBJ/${2:-exporter_syscalls.bpf.o}"
  </Program>
</Plugin>
CONF
	rc=0
	"$COLLECTD" -T -C "$conf" > "$WORK/$1.out" 2>&1 || rc=$?
	[ "$rc" -lt 128 ] || { cat "$WORK/$1.out" >&2; fail "$1: collectd -T died with signal $((rc - 128))"; }
	return $rc
}

# refused NAME WHOLE [OBJECT]: collectd -T fails with the one error WHOLE.
refused() {
	if run_t "$1" "${3:-}"; then
		cat "$OBJ/$1.yaml" "$WORK/$1.out" >&2
		fail "$1: collectd -T accepted it"
	fi
	grep -qxF -- "$2" "$WORK/$1.out" || { cat "$WORK/$1.out" >&2; fail "$1: the error is not: $2"; }
	[ "$(grep -c 'ebpf plugin:' "$WORK/$1.out")" = 1 ] || { cat "$WORK/$1.out" >&2; fail "$1: more than one error"; }
	echo "$1: ok"
}

n=0
while IFS='|' read -r name expected yaml; do
	case "$name" in '' | '#'*) continue ;; esac
	n=$((n + 1))
	printf '%b\n' "$yaml" > "$OBJ/$name.yaml"
	refused "$name" "ebpf plugin: <Program \"p\">: ExporterConfig \"$OBJ/$name.yaml\" $expected"
done < "$TABLE"
[ "$n" -ge 12 ] || fail "only $n cases in $TABLE"
pass "$n mistakes in ebpf_exporter configs: each stops collectd -T with its whole message"

# A label size that does not match the map's key: found against the object's BTF.
sed 's/size: 8$/size: 4/; 1,/size: 4/!s/size: 4/size: 8/' "$top_srcdir/tests/exporter/exporter_syscalls.yaml" > "$OBJ/label_size.yaml"
refused label_size "ebpf plugin: <Program \"p\">: <Counter \"syscalls_total\">: the labels cover 4 of the key's 8 bytes; describe the rest with <Label> (Field, or Size and Padding for bytes to skip) (in $OBJ/exporter_syscalls.bpf.o)"
pass "a label size that does not add up to the key is refused, naming the map and the sizes"

# ExporterConfig naming the compiled object, or a config not named NAME.yaml: the error names
# the path, what it is, and the path to give (the object's own config beside it).
exporter_path_refused() {
	conf="$WORK/path-$1.conf"
	write_config /dev/stdout < /dev/null | sed '/^LoadPlugin logfile/,/^<\/Plugin>/d' > "$conf"
	printf '<Plugin ebpf>\n  SnapshotFile ""\n  <Program "p">\n    ExporterConfig "%s"\n  </Program>\n</Plugin>\n' "$2" >> "$conf"
	if "$COLLECTD" -T -C "$conf" > "$WORK/path-$1.out" 2>&1; then fail "$1: collectd -T accepted ExporterConfig \"$2\""; fi
	grep -qxF -- "ebpf plugin: <Program \"p\">: ExporterConfig \"$2\": $3" "$WORK/path-$1.out" ||
		{ cat "$WORK/path-$1.out" >&2; fail "$1: the error is not: $3"; }
	echo "$1: ok"
}
exporter_path_refused object "$OBJ/exporter_syscalls.bpf.o" "an ELF file (a compiled object) where an ebpf_exporter config (YAML) is expected: give its config, ExporterConfig \"$OBJ/exporter_syscalls.yaml\"; the plugin loads the object beside it by its name (exporter_syscalls.bpf.o), as ebpf_exporter does"
cp "$top_srcdir/tests/exporter/exporter_syscalls.yaml" "$OBJ/exporter_syscalls.yml"
exporter_path_refused yml "$OBJ/exporter_syscalls.yml" "its name must end in .yaml, as ebpf_exporter names its configs: the plugin loads the object beside it by that name (NAME.bpf.o beside NAME.yaml); rename it to \"$OBJ/exporter_syscalls.yaml\""
exporter_path_refused missing "$OBJ/typo.yml" "no such file; an ebpf_exporter config is a file NAME.yaml beside its object NAME.bpf.o. ExporterConfig takes the absolute path of one ebpf_exporter config, once: ExporterConfig \"/etc/collectd/ebpf.d/biolatency.yaml\""
pass "ExporterConfig naming the object, a .yml or a missing file: each error names the path, what is wrong and what to give"

cp "$top_srcdir/tests/exporter/exporter_syscalls.yaml" "$OBJ/good.yaml"
run_t good || { cat "$WORK/good.out" >&2; fail "collectd -T refused the good config"; }
pass "the good config passes collectd -T"

# The YAML is read as the object is (base/safe_file.h): not through a symbolic link, not
# when its group or others may write it or another user owns it, not over 64 KiB. Each
# error names the file, what is wrong and the fix; the good config beside them passes.
P="ebpf plugin: <Program \"p\">: ExporterConfig"
RISK="choose the maps collectd reads and the labels it logs and sends"
ln -s "$OBJ/good.yaml" "$OBJ/link.yaml"
refused link "$P \"$OBJ/link.yaml\" is a symbolic link: name the file itself, so that what is checked is what is loaded"
for mode in 664:"its group" 646:everyone; do
	name="mode${mode%%:*}"
	cp "$OBJ/good.yaml" "$OBJ/$name.yaml"
	chmod "${mode%%:*}" "$OBJ/$name.yaml"
	refused "$name" "$P \"$OBJ/$name.yaml\" is writable by ${mode#*:} (mode 0${mode%%:*}): others could $RISK (chmod go-w \"$OBJ/$name.yaml\")"
done
# a FIFO: refused at once (collectd -T hung on it, opening it to see whether it is ELF)
mkfifo "$OBJ/fifo.yaml"
refused fifo "$P \"$OBJ/fifo.yaml\" is not a regular file"
cp "$OBJ/good.yaml" "$OBJ/owner.yaml"
chown 65534 "$OBJ/owner.yaml"
refused owner "$P \"$OBJ/owner.yaml\" is owned by uid 65534, not by root or collectd's user: anyone who owns it can $RISK (chown root: \"$OBJ/owner.yaml\")"
# the good config, then comments to 65537 bytes (the last one cut): one byte over; then 65536
cp "$OBJ/good.yaml" "$OBJ/big.yaml"
while [ "$(wc -c < "$OBJ/big.yaml")" -le 65537 ]; do
	echo "# ........................................................................................" >> "$OBJ/big.yaml"
done
truncate -s 65537 "$OBJ/big.yaml"
refused big "$P \"$OBJ/big.yaml\" is 65537 bytes, more than the 64 KiB (65536 bytes) an ebpf_exporter config may have (ebpf_exporter's largest example is 3 KB)"
truncate -s 65536 "$OBJ/big.yaml"
run_t big || { cat "$WORK/big.out" >&2; fail "collectd -T refused a good config of 65536 bytes"; }
pass "ExporterConfig through a link, writable by group or others, a FIFO, another user's, over 64 KiB: each refused, naming the file and the fix; 64 KiB passes"

# Lists nested 30,000 deep (60 KB: libyaml's loader took 2.9 s on it, 48 s on 250 KB): refused
# where the 65th opens, before libyaml loads the document. The time is logged, not asserted.
{ printf 'metrics: '; head -c 30000 /dev/zero | tr '\0' '['; head -c 30000 /dev/zero | tr '\0' ']'; echo; } > "$OBJ/deep.yaml"
start=$(date +%s%N)
refused deep "$P \"$OBJ/deep.yaml\" line 1 column 73: lists and mappings nested more than 64 deep; an ebpf_exporter config nests 9 (the config, metrics, counters, a counter, labels, a label, decoders, a decoder, static_map): unnest it"
echo "deep: collectd -T refused 30,000 nested lists in $((($(date +%s%N) - start) / 1000000)) ms"
pass "a config nested 30,000 deep is refused at its 65th level, naming the line and column"

# A root-only config with a secret where a key or a value goes: the error names where it is
# and what goes there, never the text (the log may be readable by everyone).
SECRET="hunter2-Sekr1t"
secret_case() { # NAME YAML (SECRET in it)
	printf '%b\n' "$2" > "$OBJ/$1.yaml"
	chmod 600 "$OBJ/$1.yaml"
	if run_t "$1"; then fail "$1: collectd -T accepted it"; fi
	grep -q "$P \"$OBJ/$1.yaml\" line [0-9]* column [0-9]*: " "$WORK/$1.out" || { cat "$WORK/$1.out" >&2; fail "$1: no error naming the line and column"; }
	if grep -e "$SECRET" -e db_password "$WORK/$1.out" >&2; then fail "$1: the error quotes the file's text"; fi
	echo "$1: $(grep -o 'line [0-9]* column .*' "$WORK/$1.out")"
}
M='metrics:\n  counters:\n    - name: syscalls_total\n      help: x\n      labels:\n        - name: syscall\n          size: 8\n          decoders:\n'
secret_case secret_key "db_password_$SECRET: x\nmetrics: {}"
secret_case secret_number "metrics:\n  counters:\n    - name: syscalls_total\n      help: x\n      labels:\n        - name: syscall\n          size: $SECRET"
secret_case secret_decoder "${M}            - name: $SECRET"
secret_case secret_bucket "metrics:\n  histograms:\n    - name: x_seconds\n      help: x\n      bucket_type: $SECRET\n      labels:\n        - name: bucket\n          size: 8\n          decoders: [{name: uint}]"
secret_case secret_kaddr "kaddrs:\n  - db_password $SECRET\nmetrics: {}"
secret_case secret_regexp "${M}            - name: uint\n            - name: regexp\n              regexps: ['^$SECRET\\\\d']"
secret_case secret_static_map "${M}            - name: uint\n            - name: static_map\n              static_map: {1: a, 0x1: $SECRET}"
secret_case secret_cgroup_type "cgroup_id_map:\n  name: ids\n  type: $SECRET\nmetrics: {}"
pass "a secret in a key, a number, a decoder, a bucket_type, kaddrs, a regexp, static_map or cgroup_id_map: the error names the line and column, never the text"

# A map declared by key_size and value_size, without BTF types (as ebpf_exporter's regexp
# example declares it): its labels are read by their sizes, which must add up to key_size.
install_objects "$OBJ" tests/exporter/exporter_percpu.bpf.o
printf 'metrics:\n  counters:\n    - name: sized_closes_total\n      help: x\n      labels:\n        - name: comm\n          size: 8\n          decoders:\n            - name: string\n' > "$OBJ/sized_short.yaml"
refused sized_short "ebpf plugin: <Program \"p\">: <Counter \"sized_closes_total\">: the labels cover 8 of the key's 16 bytes (its key_size; the labels' sizes and paddings must add up to it); describe the rest with <Label> (Field, or Size and Padding for bytes to skip) (in $OBJ/exporter_percpu.bpf.o)" exporter_percpu.bpf.o
pass "a map declared by key_size: labels that do not add up to it are refused, naming the sizes"
