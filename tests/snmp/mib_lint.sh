#!/bin/sh
# COLLECTD-EBPF-MIB is clean under `smilint -l 6` (the strictest level), its OIDs are the
# ones the subagent serves, and net-snmp can load it (snmptable needs that). smilint exits
# 0 even on errors, so the test reads its output; a deliberately broken copy proves the
# check can fail.
set -eu
: "${top_srcdir:?run through make check}"
MIB="$top_srcdir/snmp/COLLECTD-EBPF-MIB.txt"
command -v smilint >/dev/null || { echo "SKIP: smilint not installed (apt-get install smitools)" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# The base modules: the system's if it has them, else our stand-ins (tests/mibs/README).
SMIPATH="$top_srcdir/snmp:/usr/share/snmp/mibs/ietf:/usr/share/mibs/ietf:$top_srcdir/tests/mibs"
export SMIPATH

out=$(smilint -l 6 -s "$MIB" 2>&1)
[ -z "$out" ] || { echo "$out" >&2; fail "smilint -l 6 reports problems in COLLECTD-EBPF-MIB"; }
echo "ok: smilint -l 6 is silent on COLLECTD-EBPF-MIB"

tree=$(smidump -f identifiers "$MIB" 2>&1)
for expect in "collectdEbpfMIB node 1.3.6.1.3.3273" "ebpfSnapshotStatus scalar 1.3.6.1.3.3273.1.1.1" \
	"ebpfModuleState column 1.3.6.1.3.3273.1.2.1.2" "ebpfCounterValue32 column 1.3.6.1.3.3273.1.3.1.4" \
	"ebpfHistP99 column 1.3.6.1.3.3273.1.4.1.13" "ebpfBucketCount32 column 1.3.6.1.3.3273.1.5.1.5" \
	"ebpfCounterFullInstance column 1.3.6.1.3.3273.1.3.1.5" "ebpfHistFullInstance column 1.3.6.1.3.3273.1.4.1.14" \
	"ebpfGaugeFullInstance column 1.3.6.1.3.3273.1.6.1.5" \
	"ebpfCgroupObjects node 1.3.6.1.3.3273.1.8" "ebpfCgroupCounterValue column 1.3.6.1.3.3273.1.8.1.1.3" \
	"ebpfCgroupCounterFullInstance column 1.3.6.1.3.3273.1.8.1.1.5" "ebpfCgroupHistP99 column 1.3.6.1.3.3273.1.8.2.1.13" \
	"ebpfCgroupHistFullInstance column 1.3.6.1.3.3273.1.8.2.1.14" "ebpfCgroupBucketCount32 column 1.3.6.1.3.3273.1.8.3.1.5" \
	"ebpfCgroupGaugeFullInstance column 1.3.6.1.3.3273.1.8.4.1.5" \
	"ebpfOomKill notification 1.3.6.1.3.3273.0.1" "ebpfModuleStateChange notification 1.3.6.1.3.3273.0.2" \
	"ebpfEventsNotSent notification 1.3.6.1.3.3273.0.5" "ebpfEventPid scalar 1.3.6.1.3.3273.1.7.7" \
	"ebpfEventTotal scalar 1.3.6.1.3.3273.1.7.14"; do
	echo "$tree" | awk '{ print $2, $3, $4 }' | grep -qx "$expect" || { echo "$tree" >&2; fail "MIB lacks: $expect"; }
done
echo "ok: the MIB's OIDs are the ones snmp/mib_tree.c serves and snmp/event_notify.h sends"

broken=$(mktemp -d /tmp/ebpf-miblint.XXXXXX)
trap 'rm -rf "$broken"' EXIT
sed 's/MAX-ACCESS  read-only/MAX-ACCESS  read-write/; s/^ebpfCompliance MODULE-COMPLIANCE/ebpfcompliance MODULE-COMPLIANCE/' \
	"$MIB" > "$broken/COLLECTD-EBPF-MIB.txt"
out=$(SMIPATH="$broken:$SMIPATH" smilint -l 6 -s "$broken/COLLECTD-EBPF-MIB.txt" 2>&1 || true)
[ -n "$out" ] || fail "smilint found nothing wrong in a broken copy: is it checking anything?"
echo "ok: smilint does flag a broken copy ($(echo "$out" | head -n 1))"

if command -v snmptranslate >/dev/null; then
	# The OID is stdout alone: stderr carries notices, such as the "Created directory:
	# /var/lib/snmp/..." of net-snmp's first run on a machine. A private persistent directory
	# makes every run of this test that first run.
	oid=$(SNMP_PERSISTENT_DIR="$broken/snmp-state" MIBS= snmptranslate \
		-M "$top_srcdir/snmp:/usr/share/snmp/mibs:$top_srcdir/tests/mibs" \
		-m COLLECTD-EBPF-MIB -On COLLECTD-EBPF-MIB::ebpfHistTable 2> "$broken/snmptranslate.err") || true
	[ "$oid" = ".1.3.6.1.3.3273.1.4" ] ||
		fail "net-snmp cannot load the MIB: got '$oid'; stderr: $(cat "$broken/snmptranslate.err")"
	echo "ok: net-snmp loads the MIB (ebpfHistTable = $oid)"
fi
