#!/bin/sh
# `make install` puts every file the shipped units and configs point at where they point:
# the subagent unit's Documentation= (doc/snmp.md) and ExecStart=, the README and every page
# of doc/ it links to, into a scratch DESTDIR with README's --prefix=/usr.
set -eu
: "${top_builddir:?run through make check}"
fail() { echo "FAIL: $*" >&2; exit 1; }
dest=$(mktemp -d /tmp/ebpf-install.XXXXXX)
scratch=$(mktemp -d /tmp/ebpf-install-scratch.XXXXXX) # the tools' files, not in $dest
trap 'rm -rf "$dest" "$scratch"' EXIT
make -s -C "$top_builddir" install DESTDIR="$dest" prefix=/usr exec_prefix=/usr > "$dest.log" 2>&1 ||
	{ cat "$dest.log" >&2; rm -f "$dest.log"; fail "make install failed"; }
rm -f "$dest.log"
unit="$top_srcdir/contrib/ebpf-subagent.service"
doc=$(sed -n 's|^Documentation=file://||p' "$unit")
[ -n "$doc" ] || fail "no Documentation= in $unit"
[ -f "$dest$doc" ] || fail "Documentation=file://$doc: make install does not install $doc"
docdir=/usr/share/doc/collectd-ebpf
case $doc in "$docdir"/*) ;; *) fail "Documentation=file://$doc is not in $docdir" ;; esac
cmp -s "$dest$doc" "$top_srcdir/${doc#"$docdir"/}" || fail "$doc is not ${doc#"$docdir"/} of the source tree"
echo "ok: Documentation=file://$doc is installed"
# The README and its pages, at the same places relative to each other as in the source tree,
# so that the README's links work where it is installed.
pages=$(cd "$top_srcdir" && ls README.md doc/*.md) || fail "no README.md or doc/*.md in $top_srcdir"
for page in $pages; do
	cmp -s "$dest$docdir/$page" "$top_srcdir/$page" || fail "make install does not install $page as $docdir/$page"
done
echo "ok: $(echo $pages) installed in $docdir"
for f in ebpf.conf collectd.conf snmpd.conf.snippet; do
	[ -f "$dest/usr/share/doc/collectd-ebpf/examples/$f" ] || fail "contrib/$f not installed with the documentation"
done
echo "ok: contrib examples installed in /usr/share/doc/collectd-ebpf/examples"
# README's first command runs contrib/demo.sh after make install: it needs the terminal view
# in PATH, and the RRD graph script is shipped with the examples.
[ -x "$dest/usr/bin/collectd-ebpf-hist" ] || fail "make install does not install /usr/bin/collectd-ebpf-hist"
"$dest/usr/bin/collectd-ebpf-hist" --help | grep -q -- '--since-start' || fail "the installed collectd-ebpf-hist does not run"
[ -f "$dest/usr/share/doc/collectd-ebpf/examples/rrd-graph.sh" ] || fail "contrib/rrd-graph.sh not installed with the examples"
echo "ok: collectd-ebpf-hist installed in /usr/bin, rrd-graph.sh with the examples"
[ -x "$dest/usr/bin/collectd-ebpf-import" ] || fail "make install does not install /usr/bin/collectd-ebpf-import"
# (a copy: the YAML is read only from a file no one else could change, which a checkout
# owned by another user than the test's is not)
cp "$top_srcdir/tests/exporter/exporter_biolatency.yaml" "$scratch/"
"$dest/usr/bin/collectd-ebpf-import" "$scratch/exporter_biolatency.yaml" | grep -q '^  <Histogram "bio_latency_seconds">$' ||
	fail "the installed collectd-ebpf-import does not print an ExporterConfig's block"
echo "ok: collectd-ebpf-import installed in /usr/bin, prints a block"
# doc/snmp.md step 7's -M +/usr/share/collectd-ebpf/mibs: the base MIBs' stand-ins are there, and
# with them net-snmp loads the installed COLLECTD-EBPF-MIB (Debian ships no SNMPv2-SMI).
if [ -f "$dest/usr/share/snmp/mibs/COLLECTD-EBPF-MIB.txt" ]; then
	for m in SNMPv2-SMI SNMPv2-TC SNMPv2-CONF HCNUM-TC; do
		[ -f "$dest/usr/share/collectd-ebpf/mibs/$m.txt" ] || fail "make install does not install $m.txt in /usr/share/collectd-ebpf/mibs"
	done
	oid=$(MIBS= SNMPCONFPATH="$scratch" SNMP_PERSISTENT_DIR="$scratch/snmp-persist" snmptranslate \
		-M "+$dest/usr/share/collectd-ebpf/mibs:$dest/usr/share/snmp/mibs" -m COLLECTD-EBPF-MIB -On \
		COLLECTD-EBPF-MIB::ebpfHistTable 2>"$scratch/snmptranslate.err") || fail "the installed MIB does not load with the installed stand-ins: $(cat "$scratch/snmptranslate.err")"
	[ "$oid" = .1.3.6.1.3.3273.1.4 ] || fail "COLLECTD-EBPF-MIB::ebpfHistTable is $oid, not .1.3.6.1.3.3273.1.4"
	echo "ok: the base MIBs' stand-ins in /usr/share/collectd-ebpf/mibs load the installed MIB (ebpfHistTable $oid)"
fi

# The manual pages, where man finds them.
for page in man1/collectd-ebpf-cc.1 man1/collectd-ebpf-hist.1 man1/collectd-ebpf-import.1 man5/collectd-ebpf.5; do
	[ -f "$dest/usr/share/man/$page" ] || fail "make install does not install the manual page /usr/share/man/$page"
done
MANPATH="$dest/usr/share/man" man -w collectd-ebpf-hist > /dev/null 2>&1 || fail "man does not find the installed collectd-ebpf-hist(1)"
echo "ok: manual pages installed in /usr/share/man (man finds collectd-ebpf-hist(1))"
# The Prometheus endpoint (built when configure found libmicrohttpd): what its unit in the
# examples starts, and its manual page.
if [ -x "$top_builddir/collectd-ebpf-prometheus" ]; then
	unit="$dest/usr/share/doc/collectd-ebpf/examples/collectd-ebpf-prometheus.service"
	[ -f "$unit" ] || fail "contrib/collectd-ebpf-prometheus.service not installed with the examples"
	exe=$(sed -n 's|^ExecStart=\([^ ]*\).*|\1|p' "$unit")
	[ -x "$dest$exe" ] || fail "the unit's ExecStart=$exe is not installed there"
	"$dest$exe" --help | grep -q -- '--buckets' || fail "the installed $exe does not run"
	MANPATH="$dest/usr/share/man" man -w collectd-ebpf-prometheus > /dev/null 2>&1 ||
		fail "man does not find the installed collectd-ebpf-prometheus(1)"
	echo "ok: collectd-ebpf-prometheus.service's ExecStart=$exe installed, runs; its manual page found"
fi

# make uninstall leaves nothing: no file, and no directory but those a Debian machine with
# collectd and snmpd has anyway (shared by other packages: not the package's to remove).
make -s -C "$top_builddir" uninstall DESTDIR="$dest" prefix=/usr exec_prefix=/usr > "$scratch/uninstall.log" 2>&1 ||
	{ cat "$scratch/uninstall.log" >&2; fail "make uninstall failed"; }
left=$(cd "$dest" && find . -mindepth 1 ! -type d | sed 's|^\.||')
[ -z "$left" ] || fail "make uninstall left files: $left"
shared=$(printf '%s\n' /usr /usr/bin /usr/sbin /usr/include /usr/lib /usr/lib/collectd /usr/share /usr/share/doc \
	/usr/share/snmp /usr/share/snmp/mibs /usr/share/man /usr/share/man/man1 /usr/share/man/man5 /usr/share/man/man8)
left=$(cd "$dest" && find . -mindepth 1 -type d | sed 's|^\.||' | grep -vxF "$shared" || true)
[ -z "$left" ] || fail "make uninstall left directories: $(echo $left)"
echo "ok: make uninstall leaves no file and no directory of its own ($(cd "$dest" && find . -mindepth 1 -type d | wc -l) shared ones)"
