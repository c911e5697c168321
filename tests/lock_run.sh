#!/bin/sh
# The test driver's wrapper: runs one test under the machine-wide test lock, unless the test
# cannot touch the kernel's BPF state (unit tests: no programs, no daemons), which run at once.
# -o: the lock's descriptor is not passed to the test, so a daemon a failed test leaves behind
# (collectd, snmpd, carbon) cannot keep holding the lock and stall every later test.
LOCK=/run/lock/collectd-ebpf-tests.lock
# A shell test comes as "$(SHELL) tests/...": its name is the second word.
case $1 in */sh|*/bash|*/dash|sh|bash|dash) name=${2-} ;; *) name=$1 ;; esac
case $name in
tests/unit/*|./tests/unit/*|*/tests/unit/*) exec "$@" ;;
esac
exec flock -o "$LOCK" "$@"
