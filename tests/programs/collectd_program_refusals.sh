#!/bin/sh
# Every refusal of the loader (tests/programs/program_refusals.table, the list in
# doc/programs.md), in the real collectd -T, on an object the test makes hostile: a
# symlink, a FIFO, another user's file or directory or a link of theirs on the way, a group-writable file or directory, a huge file,
# bytes that are not ELF or not BPF, bytes libbpf 1.1 crashes on (one byte of .BTF), an
# object past the bound on instructions, a program type that does not observe (also behind
# a "?"), an object past the bounds on sections or relocations, each forbidden helper in a
# subprogram, a kfunc, a raw kfunc call by BTF id, a callx and a call of an unknown src_reg. For each,
# collectd -T fails with one error, the table's whole line naming the object and the reason
# (a refused object is a configuration error, as every other mistake in the block), and the
# daemon with the same configuration leaves that program off with the same reason while a
# good program beside it starts; collectd never crashes. Then Skip leaves the
# refused programs out, and AllowProgramType lets them past the loader (to whatever the
# kernel says), so it is the named check that refused them.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

TABLE="$top_srcdir/tests/programs/program_refusals.table"
HOSTILE="$top_builddir/tests/programs/make_hostile"
OBJ_DIR="$WORK/objects"
install_objects "$OBJ_DIR" contrib/programs/sync_count.bpf.o

# make_object NAME HOW...: the object of case NAME, as OBJ (and DIR, its directory).
make_object() {
	name=$1; shift
	DIR="$OBJ_DIR"
	OBJ="$DIR/$name.bpf.o"
	case "$1" in
	copy) cp "$top_builddir/$2" "$OBJ" 2>/dev/null || cp "$2" "$OBJ" ;;
	symlink) cp "$top_builddir/$2" "$DIR/$name.target.bpf.o"; ln -s "$DIR/$name.target.bpf.o" "$OBJ" ;;
	fifo) mkfifo "$OBJ" ;;
	owner) cp "$top_builddir/$3" "$OBJ"; chown "$2" "$OBJ" ;;
	mode) cp "$top_builddir/$3" "$OBJ"; chmod "$2" "$OBJ" ;;
	dir-mode) DIR="$WORK/dir-$2"; mkdir -p "$DIR"; chmod "$2" "$DIR"; OBJ="$DIR/$name.bpf.o"; cp "$top_builddir/$3" "$OBJ" ;;
	open-dir) DIR="$WORK/open"; mkdir -p "$DIR"; chmod 777 "$DIR"; OBJ="$DIR/$name.bpf.o"; cp "$top_builddir/$2" "$OBJ" ;;
	other-dir) DIR="$WORK/other"; mkdir -p "$DIR"; OBJ="$DIR/$name.bpf.o"; cp "$top_builddir/$3" "$OBJ"; chown "$2" "$DIR" ;;
	their-link) # DIR: a link owned by UID in root's directory, to root's safe TARGET
		TARGET="$WORK/linked"; DIR="$WORK/links/theirs"; OBJ="$DIR/$name.bpf.o"; mkdir -p "$TARGET" "$WORK/links"
		cp "$top_builddir/$3" "$TARGET/$name.bpf.o"; ln -s "$TARGET" "$DIR"; chown -h "$2" "$DIR" ;;
	huge) truncate -s 65M "$OBJ" ;;
	junk) echo "not an object" > "$OBJ" ;;
	raw-kfunc) # (exit 4: a kernel without bpf_send_signal_task; the call is as raw)
		INSN=$("$HOSTILE" raw-kfunc "$top_builddir/$2" "$OBJ" | sed -n 's/^instruction \([0-9]*\):.*/\1/p') ;;
	crash-btf) CRASH=0; "$HOSTILE" crash-btf "$top_builddir/$2" "$OBJ" > "$WORK/$name.hostile" || CRASH=$? ;;
	many-calls | many-relocs | many-sections) "$HOSTILE" "$1" "$2" "$OBJ" ;;
	helper) "$HOSTILE" helper "$2" "$top_builddir/$3" "$OBJ" ;;
	raw-call) INSN=$("$HOSTILE" raw-call "$2" "$3" "$top_builddir/$4" "$OBJ" | sed -n 's/^instruction \([0-9]*\):.*/\1/p') ;;
	*) fail "$name: unknown way to make an object: $*" ;;
	esac
	[ -L "$OBJ" ] || [ -p "$OBJ" ] || [ "$1" = owner ] || [ "$1" = mode ] || chmod 644 "$OBJ"
}

# run_t NAME LINES: collectd -T on <Program "p"> (OBJ, with LINES) and a good <Program "good">.
run_t() {
	conf="$WORK/$1.conf"
	write_config "$conf" <<CONF
<Plugin ebpf>
  SnapshotFile ""
  <Program "p">
    Object "$OBJ"
$(printf '%b\n' "$2" | sed 's/^/    /')
    <Counter "sync_calls">
    </Counter>
  </Program>
  <Program "good">
    Object "$OBJ_DIR/sync_count.bpf.o"
    Param "filter_tgid" 1
    <Probe "sync">
      Program "sync_kprobe" "sync_tp"
    </Probe>
    <Counter "sync_calls">
    </Counter>
  </Program>
</Plugin>
CONF
	: > "$WORK/collectd.log"
	rc=0
	"$COLLECTD" -T -C "$conf" > "$WORK/$1.stdout" 2>&1 || rc=$?
	[ "$rc" -lt 128 ] || fail "$1: collectd -T died with signal $((rc - 128))"
	cp "$WORK/collectd.log" "$WORK/$1.out"
}

# run_daemon NAME: the daemon on NAME's configuration until the good program attached or
# a program is off, then stopped; its log in $WORK/NAME.daemon.
run_daemon() {
	: > "$WORK/collectd.log"
	"$COLLECTD" -f -C "$WORK/$1.conf" >> "$WORK/collectd.stdout" 2>&1 &
	COLLECTD_PID=$!
	wait_for_log 'ebpf plugin: good: sync attached via' 20 ||
		{ cat "$WORK/collectd.log" >&2; fail "$1: the daemon's good program beside it did not start"; }
	kill -0 "$COLLECTD_PID" 2>/dev/null || fail "$1: the daemon died"
	stop_collectd
	cp "$WORK/collectd.log" "$WORK/$1.daemon"
}

# logged_once LOG TEXT ERRORS NOT_THERE NOT_ONCE: LOG has TEXT (a fixed string) and exactly one
# line that matches ERRORS (a grep pattern of the errors that leave a program off), else the
# test fails showing LOG, with NOT_THERE or NOT_ONCE. Each refusal is checked so twice, in
# collectd -T's log and in the daemon's.
logged_once() {
	grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "$4"; }
	[ "$(grep -c "$3" "$1")" = 1 ] || { cat "$1" >&2; fail "$5"; }
}

# in_out NAME PATTERN MESSAGE, not_in_out NAME PATTERN MESSAGE: collectd -T's log of case NAME
# has (has not) a line matching PATTERN, else the test fails showing the log, with MESSAGE.
in_out() { grep -q -- "$2" "$WORK/$1.out" || { cat "$WORK/$1.out" >&2; fail "$3"; }; }
not_in_out() { ! grep -q -- "$2" "$WORK/$1.out" || { cat "$WORK/$1.out" >&2; fail "$3"; }; }

n=0
while IFS='|' read -r name how lines expected; do
	case "$name" in '' | '#'*) continue ;; esac
	n=$((n + 1))
	INSN= TARGET=
	make_object "$name" $how
	case "$how" in crash-btf*) sed 's/^/  /' "$WORK/$name.hostile" ;; esac
	run_t "$name" "$lines"
	# A libbpf that no byte of .BTF crashes (newer than Debian 12's 1.1.2) refuses the
	# object or opens it: then only "collectd -T did not crash" is this case's to check.
	if [ "$name" = libbpf_crash ] && [ "$CRASH" = 3 ]; then
		echo "$name: this libbpf survives every one-byte .BTF corruption; collectd -T ran on"
		continue
	fi
	reason=$(OBJ="$OBJ" DIR="$DIR" INSN="$INSN" TARGET="$TARGET" sh -c "printf '%s' \"$(printf '%s' "$expected" | sed 's/["\\`]/\\&/g; s/\\\$\(OBJ\|DIR\|INSN\|TARGET\)/$\1/g')\"")
	[ "$rc" != 0 ] || { cat "$WORK/$name.out" >&2; fail "$name: collectd -T accepted it"; }
	whole="ebpf plugin: <Program \"p\">: $reason (collectd would start without this program)"
	logged_once "$WORK/$name.out" "$whole" 'ebpf plugin: module "[^"]*" is off\|ebpf plugin: <Program' \
		"$name: the refusal under -T is not: $whole" "$name: not exactly one error"
	run_daemon "$name"
	logged_once "$WORK/$name.daemon" "module \"p\" is off: $reason" 'ebpf plugin: module "[^"]*" is off' \
		"$name: the daemon's refusal is not: module \"p\" is off: $reason" "$name: the daemon logged not exactly one module off"
	echo "$name: $whole"
done < "$TABLE"
[ "$n" -ge 28 ] || fail "only $n cases in $TABLE"
pass "$n refusals: each one error naming the object and the reason in collectd -T (which fails) and in the daemon (the good program beside it runs), never a crash"

# Skip comes before the type check: both fmod_ret programs of the object (one behind a "?")
# left out, the rest of it starts.
make_object skipped copy tests/programs/hidden_fmod_ret.bpf.o
run_t skipped 'Skip "hidden_getsid"\nSkip "fail_sync"'
not_in_out skipped 'ebpf plugin: module "p" is off' "Skip did not leave the fmod_ret programs out"
in_out skipped 'ebpf plugin: p: count_sync attached via tracepoint' \
	"the object's observing program did not start with the others skipped"
pass "Skip \"hidden_getsid\" and \"fail_sync\": the refused programs are left out and the object starts"

# AllowProgramType "fmod_ret": the loader no longer refuses them (the kernel may: this one
# refuses fentry), so the refusal above was the type check's.
make_object allowed copy tests/programs/hidden_fmod_ret.bpf.o
run_t allowed 'AllowProgramType "fmod_ret"'
not_in_out allowed 'is fmod_ret, which changes what a kernel function returns' \
	"AllowProgramType \"fmod_ret\" did not let the fmod_ret programs past the loader"
in_out allowed 'ebpf plugin: good: sync attached via tracepoint' "the good program did not start beside the allowed one"
pass "AllowProgramType \"fmod_ret\": past the loader ($(grep -o 'module "p" is off: .\{0,80\}' "$WORK/allowed.out" || echo "p started"))"
