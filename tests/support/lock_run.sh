#!/bin/sh
# The test driver's wrapper: runs one test under the machine-wide test lock, unless the test
# cannot touch the kernel's BPF state (unit tests: no programs, no daemons), which run at once:
# Makefile.am lists them in UNLOCKED_TESTS and passes the list in the environment.
# -o: the lock's descriptor is not passed to the test, so a daemon a failed test leaves behind
# (collectd, snmpd, carbon) cannot keep holding the lock and stall every later test.
LOCK=/run/lock/collectd-ebpf-tests.lock
# A shell test comes as "$(SHELL) tests/...": its name is the second word.
case $1 in */sh|*/bash|*/dash|sh|bash|dash) name=${2-} ;; *) name=$1 ;; esac
name=${name#./}
for t in ${UNLOCKED_TESTS-}; do
	case $name in "$t"|*/"$t") exec "$@" ;; esac
done
exec flock -o "$LOCK" "$@"
