#!/bin/sh
# A program's read is all or nothing, as a module's is: a program with two counters whose
# second map the kernel refuses to read (BPF_F_WRONLY, tests/programs/read_fails.bpf.c) sends
# nothing at any read, not its first counter's value beside the failure (a read that left
# earlier values sent made a half interval look whole), and says why at every read.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

OBJ="$WORK/objects"
install_objects "$OBJ" tests/programs/read_fails.bpf.o

INTERVAL=0.5 write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  <Program "read_fails">
    Object "$OBJ/read_fails.bpf.o"
    <Counter "first">
    </Counter>
    <Counter "second">
    </Counter>
  </Program>
</Plugin>
CONF

start_collectd "$WORK/collectd.conf"
wait_for_log 'read_fails: on_sync attached via tracepoint' 5 || fail "read_fails did not attach"
failed='module "read_fails": reading the BPF maps failed: Operation not permitted'
three_failed() { [ "$(grep -c -- "$failed" "$WORK/collectd.log")" -ge 3 ]; }
wait_until 10 three_failed || fail "the read of map \"second\" did not fail as the test wants: $failed"
pass "every read fails at map \"second\": $(grep -c -- "$failed" "$WORK/collectd.log") reads"
# collectd's csv writer has written what the failed reads sent by the time the next read
# fails: one more failure, then nothing of the program may be there.
n=$(grep -c -- "$failed" "$WORK/collectd.log")
more_failed() { [ "$(grep -c -- "$failed" "$WORK/collectd.log")" -gt "$n" ]; }
wait_until 10 more_failed || fail "no read after the third"
[ ! -d "$WORK/csv/itest/ebpf-read_fails" ] ||
	fail "reads that failed at map \"second\" sent values: $(ls "$WORK/csv/itest/ebpf-read_fails")"
pass "nothing sent by a read that failed: not the first counter read before the failure"
stop_collectd
