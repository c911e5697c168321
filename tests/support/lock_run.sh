#!/bin/sh
# The test driver's wrapper: runs one test under the machine-wide test lock, unless the test
# cannot touch the kernel's BPF state (unit tests: no programs, no daemons), which run at once:
# Makefile.am lists them in UNLOCKED_TESTS and passes the list in the environment.
# -o: the lock's descriptor is not passed to the test, so a daemon a failed test leaves behind
# (collectd, snmpd, carbon) cannot keep holding the lock and stall every later test.
# Its last line in the test's .log is "test-time: RUN s ran, WAIT s waited for the lock",
# which .ci/run reads to print the slowest tests of each pass (.ci/slowest-tests.sh).
LOCK=/run/lock/collectd-ebpf-tests.lock
# A shell test comes as "$(SHELL) tests/...": its name is the second word.
case $1 in */sh|*/bash|*/dash|sh|bash|dash) name=${2-} ;; *) name=$1 ;; esac
name=${name#./}
locked=1
for t in ${UNLOCKED_TESTS-}; do
	case $name in "$t"|*/"$t") locked= ;; esac
done
queued=$(date +%s)
rc=0
if [ -n "$locked" ]; then
	# The test starts once the lock is ours: its own start time is the end of the wait.
	flock -o "$LOCK" sh -c 'date +%s > "$0"; exec "$@"' "${TMPDIR:-/tmp}/lock_run.$$" "$@" || rc=$?
	started=$(cat "${TMPDIR:-/tmp}/lock_run.$$" 2>/dev/null || echo "$queued")
	rm -f "${TMPDIR:-/tmp}/lock_run.$$"
else
	started=$queued
	"$@" || rc=$?
fi
ended=$(date +%s)
echo "test-time: $((ended - started)) s ran, $((started - queued)) s waited for the lock"
exit "$rc"
