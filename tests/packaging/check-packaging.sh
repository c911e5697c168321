#!/bin/sh
# make check-packaging: the Debian packages, built, linted, installed on this machine, used
# and removed without a trace.
#
#   1. dpkg-buildpackage -us -uc -b in a copy of the source tree (its checked-in and new
#      files, as git lists them), so the checkout's own build stays as it is;
#   2. lintian: no error;
#   3. under the machine-wide test lock: files the packages would overwrite (a `make install`,
#      the README walk's /etc/collectd/collectd.conf.d/ebpf.conf) are moved aside, the .debs
#      installed with apt-get, collectd run with the packaged /etc/collectd/collectd.conf.d/ebpf.conf
#      must report values, ebpf-subagent must run, collectd-ebpf-prometheus must serve that
#      collectd's snapshot, systemd-analyze verify must be silent on the packaged units and on
#      contrib's collectd drop-in;
#   4. apt-get remove leaves only the conffile, apt-get purge leaves nothing: the file lists
#      of the places the packages touch are compared with those from before the install;
#   5. on any exit: the packages purged, the moved files put back.
#
# Usage: check-packaging.sh SRCDIR BUILDDIR (BUILDDIR: for tests/support/fsync_n)
set -eu
SRCDIR=$(cd "$1" && pwd) BUILDDIR=$(cd "$2" && pwd)
LOCK=/run/lock/collectd-ebpf-tests.lock
PKGS="collectd-ebpf collectd-ebpf-snmp collectd-ebpf-prometheus"
# Another apt-get on the machine (a setup script) holds dpkg's lock for a while: wait for it.
APT="apt-get -y -q -o DPkg::Lock::Timeout=600"
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
# known_to_dpkg PKG: installed, or removed with its conffiles still there.
known_to_dpkg() {
	case "$(dpkg-query -W -f='${Status}' "$1" 2> /dev/null || true)" in
	"" | *" not-installed") return 1 ;;
	*) return 0 ;;
	esac
}

[ "$(id -u)" = 0 ] || fail "needs root: it installs and purges the packages with apt-get (CI runs it as root)"
for t in dpkg-buildpackage dh lintian apt-get systemd-analyze git; do
	command -v $t > /dev/null || fail "$t not found (sh contrib/debian-setup.sh installs debhelper, lintian, dpkg-dev)"
done
COLLECTD=$(command -v collectd || echo /usr/sbin/collectd)
[ -x "$COLLECTD" ] || fail "collectd not installed (apt-get install collectd-core)"
FSYNC_N="$BUILDDIR/tests/support/fsync_n"
[ -x "$FSYNC_N" ] || fail "$FSYNC_N not built: run make check-packaging from a configured build tree"
for p in $PKGS; do
	! known_to_dpkg "$p" ||
		fail "$p is installed on this machine; this test installs and purges its own build, so remove it first (apt-get purge $PKGS)"
done

WORK=$(mktemp -d /var/tmp/ebpf-packaging.XXXXXX)
COLLECTD_PID=
INSTALLED=
cleanup() {
	status=$?
	[ -z "$COLLECTD_PID" ] || { kill "$COLLECTD_PID" 2> /dev/null || true; wait "$COLLECTD_PID" 2> /dev/null || true; }
	if [ -n "$INSTALLED" ]; then
		$APT purge $PKGS > "$WORK/cleanup-purge.log" 2>&1 || cat "$WORK/cleanup-purge.log" >&2
	fi
	if [ -d "$WORK/aside/run/collectd-ebpf" ]; then
		rm -rf /run/collectd-ebpf; mv "$WORK/aside/run/collectd-ebpf" /run/
	fi
	if [ -d "$WORK/aside" ]; then
		(cd "$WORK/aside" && find . ! -type d) | while read -r f; do
			mkdir -p "$(dirname "/$f")"; mv "$WORK/aside/$f" "/$f"
		done
	fi
	[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
	exit $status
}
trap cleanup EXIT INT TERM

# ---- 1. build in a copy ---------------------------------------------------------------------
git -C "$SRCDIR" rev-parse --git-dir > /dev/null 2>&1 ||
	fail "$SRCDIR is not a git checkout: the test copies the files git lists"
mkdir "$WORK/src"
(cd "$SRCDIR" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp -P --parents -t "$WORK/src")
start=$(date +%s)
(cd "$WORK/src" && dpkg-buildpackage -us -uc -b) > "$WORK/build.log" 2>&1 ||
	{ tail -n 40 "$WORK/build.log" >&2; fail "dpkg-buildpackage -us -uc -b failed (log above)"; }
for p in $PKGS; do
	set -- "$WORK"/${p}_*.deb
	[ -f "$1" ] || fail "dpkg-buildpackage built no $p package"
done
DEB_MAIN=$(ls "$WORK"/collectd-ebpf_*.deb) DEB_SNMP=$(ls "$WORK"/collectd-ebpf-snmp_*.deb)
DEB_PROM=$(ls "$WORK"/collectd-ebpf-prometheus_*.deb)
pass "dpkg-buildpackage -us -uc -b: $(basename "$DEB_MAIN"), $(basename "$DEB_SNMP"), $(basename "$DEB_PROM") in $(($(date +%s) - start)) s"

# What each package must hold.
dpkg-deb -c "$DEB_MAIN" | awk '{ print $6 }' | sed 's|^\./|/|' > "$WORK/main.files"
dpkg-deb -c "$DEB_SNMP" | awk '{ print $6 }' | sed 's|^\./|/|' > "$WORK/snmp.files"
dpkg-deb -c "$DEB_PROM" | awk '{ print $6 }' | sed 's|^\./|/|' > "$WORK/prom.files"
for f in /usr/lib/collectd/ebpf.so /usr/bin/collectd-ebpf-cc /usr/bin/collectd-ebpf-hist /usr/include/collectd-ebpf/hist_row.bpf.h \
	/etc/collectd/collectd.conf.d/ebpf.conf /usr/share/doc/collectd-ebpf/README.md /usr/share/doc/collectd-ebpf/doc/snmp.md \
	/usr/share/doc/collectd-ebpf/examples/collectd-ebpf.service.d.conf /usr/share/doc/collectd-ebpf/examples/collectd-ebpf.json \
	/usr/share/man/man1/collectd-ebpf-cc.1.gz /usr/share/man/man1/collectd-ebpf-hist.1.gz /usr/share/man/man5/collectd-ebpf.5.gz; do
	grep -qxF "$f" "$WORK/main.files" || fail "collectd-ebpf does not ship $f"
done
# The unit goes where this release keeps units, as collectd's own does (12: /lib, 13: /usr/lib).
unitdir=$(dpkg -L collectd-core | sed -n 's|/collectd\.service$||p' | grep '/systemd/system$' | head -n 1)
[ -n "$unitdir" ] || fail "collectd-core ships no collectd.service to say where units go"
for f in /usr/sbin/ebpf-subagent /usr/share/snmp/mibs/COLLECTD-EBPF-MIB.txt "$unitdir/ebpf-subagent.service" \
	/usr/share/collectd-ebpf/mibs/SNMPv2-SMI.txt /usr/share/man/man8/ebpf-subagent.8.gz \
	/usr/share/doc/collectd-ebpf-snmp/examples/snmpd.conf.snippet; do
	grep -qxF "$f" "$WORK/snmp.files" || fail "collectd-ebpf-snmp does not ship $f"
done
dpkg-deb -f "$DEB_MAIN" Depends | grep -q 'collectd-core' || fail "collectd-ebpf does not depend on collectd-core"
dpkg-deb -f "$DEB_MAIN" Depends | grep -q 'libbpf' || fail "collectd-ebpf does not depend on libbpf's runtime package"
dpkg-deb -f "$DEB_SNMP" Depends | grep -q 'libsnmp' || fail "collectd-ebpf-snmp does not depend on libsnmp's runtime package"
for f in /usr/bin/collectd-ebpf-prometheus "$unitdir/collectd-ebpf-prometheus.service" \
	/usr/share/man/man1/collectd-ebpf-prometheus.1.gz; do
	grep -qxF "$f" "$WORK/prom.files" || fail "collectd-ebpf-prometheus does not ship $f"
done
! grep -qx /usr/bin/collectd-ebpf-prometheus "$WORK/main.files" || fail "collectd-ebpf ships collectd-ebpf-prometheus too"
dpkg-deb -f "$DEB_PROM" Depends | grep -q 'libmicrohttpd' || fail "collectd-ebpf-prometheus does not depend on libmicrohttpd's runtime package"
pass "package contents and dependencies ($(dpkg-deb -f "$DEB_MAIN" Depends); $(dpkg-deb -f "$DEB_SNMP" Depends); $(dpkg-deb -f "$DEB_PROM" Depends))"

# ---- 2. lintian -------------------------------------------------------------------------------
lintian --fail-on error "$WORK"/collectd-ebpf_*.changes > "$WORK/lintian.log" 2>&1 ||
	{ cat "$WORK/lintian.log" >&2; fail "lintian reports errors"; }
# Every program has its manual page, and man has nothing to say about any of them.
! grep -E 'no-manual-page|manpage-has-errors|manpage-has-bad-whatis' "$WORK/lintian.log" ||
	fail "lintian reports on the manual pages (above)"
pass "lintian: no errors ($(grep -c '^W:' "$WORK/lintian.log" || true) warnings), none on the manual pages"

# ---- 3. install, run, verify (under the test lock: the packages use the paths other tests use)
exec 9> "$LOCK"
flock 9
# The places the packages write, listed before and after: a purge must leave them as they were.
WATCH="/etc/collectd /etc/systemd/system /usr/lib/collectd /usr/bin /usr/sbin /usr/include /usr/share/doc /usr/share/snmp/mibs /usr/share/collectd-ebpf \
	/lib/systemd/system /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked /run/collectd-ebpf"
snapshot_files() { find $WATCH 2> /dev/null | sort; }
# new_paths BEFORE AFTER: paths in AFTER that BEFORE lacks, less those another package owns
# (another agent on the machine may install something meanwhile).
new_paths() {
	comm -13 "$1" "$2" | while read -r f; do
		owner=$(dpkg -S "$f" 2> /dev/null | cut -d: -f1)
		case "$owner" in "" | collectd-ebpf*) echo "$f" ;; esac
	done
}
# Files already at the packages' paths (a make install, the README walk) go aside, and back.
mkdir "$WORK/aside"
cat "$WORK/main.files" "$WORK/snmp.files" "$WORK/prom.files" | while read -r f; do
	if [ -e "$f" ] && [ ! -d "$f" ]; then
		mkdir -p "$WORK/aside$(dirname "$f")"; mv "$f" "$WORK/aside$f"
	fi
done
if [ -d /run/collectd-ebpf ]; then
	mkdir -p "$WORK/aside/run"; mv /run/collectd-ebpf "$WORK/aside/run/"
fi
snapshot_files > "$WORK/before.list"

INSTALLED=1
$APT install --no-install-recommends "$DEB_MAIN" "$DEB_SNMP" "$DEB_PROM" > "$WORK/install.log" 2>&1 ||
	{ cat "$WORK/install.log" >&2; fail "apt-get install of the built packages failed"; }
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" | grep -qx 'install ok installed' || fail "$p is not installed after apt-get install"
done
pass "apt-get install $(basename "$DEB_MAIN") $(basename "$DEB_SNMP") $(basename "$DEB_PROM")"

# collectd with the packaged configuration: a main config of the test's own (Debian's
# collectd-core ships none) that includes the packaged file, the packaged ebpf.so loaded
# from collectd's own plugin directory.
cat > "$WORK/collectd.conf" <<CONF
Hostname "pkgtest"
FQDNLookup false
Interval 1
BaseDir "$WORK"
PIDFile "$WORK/collectd.pid"
TypesDB "/usr/share/collectd/types.db"
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$WORK/collectd.log"
</Plugin>
LoadPlugin csv
<Plugin csv>
  DataDir "$WORK/csv"
</Plugin>
Include "/etc/collectd/collectd.conf.d/ebpf.conf"
CONF
"$COLLECTD" -f -C "$WORK/collectd.conf" > "$WORK/collectd.stdout" 2>&1 9>&- &
COLLECTD_PID=$!
csvdir="$WORK/csv/pkgtest/ebpf-syscalls"
i=0
until ls "$csvdir"/latency-fsync-50-* > /dev/null 2>&1 && ls "$csvdir"/operations-fsync-* > /dev/null 2>&1; do
	"$FSYNC_N" 10
	i=$((i + 1))
	[ $i -lt 20 ] || { cat "$WORK/collectd.log" >&2; fail "collectd with the packaged ebpf.conf wrote no fsync count and latency in 20 s"; }
	sleep 1
done
grep -q 'ebpf plugin: .* module.* running' "$WORK/collectd.log" || { cat "$WORK/collectd.log" >&2; fail "the plugin did not log its running modules"; }
# The packaged endpoint serves that collectd's snapshot, at the default path (as root here:
# the unit's user is checked below).
port=$(python3 "$SRCDIR/tests/outputs/graphite_client.py" free-ports 1)
collectd-ebpf-prometheus --listen=127.0.0.1:$port > "$WORK/prom.log" 2>&1 9>&- &
PROM_PID=$!
i=0
until python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' \
	"http://127.0.0.1:$port/metrics" > "$WORK/scrape.txt" 2> /dev/null && grep -q '^collectd_ebpf_syscalls_calls_total{.*syscall="fsync"}' "$WORK/scrape.txt"; do
	i=$((i + 1))
	[ $i -lt 50 ] || { cat "$WORK/prom.log" "$WORK/scrape.txt" >&2; kill "$PROM_PID"; fail "the packaged collectd-ebpf-prometheus served no fsync count"; }
	sleep 0.2
done
kill "$PROM_PID"; wait "$PROM_PID" || true
getent passwd ebpf-prometheus > /dev/null || fail "installing collectd-ebpf-prometheus created no ebpf-prometheus user"
kill "$COLLECTD_PID"; wait "$COLLECTD_PID" || true; COLLECTD_PID=
pass "the packaged collectd-ebpf-prometheus serves collectd's fsync count; its user ebpf-prometheus exists"
pass "collectd with the packaged ebpf.conf reports values ($(ls "$csvdir" | wc -l) ebpf-syscalls series; $(grep -o '[0-9]* of [0-9]* modules* running' "$WORK/collectd.log" | tail -n 1))"

ebpf-subagent --help > "$WORK/subagent.help" 2>&1 || { cat "$WORK/subagent.help" >&2; fail "the packaged ebpf-subagent --help failed"; }
getent passwd ebpf-snmp > /dev/null || fail "installing collectd-ebpf-snmp created no ebpf-snmp user"
pass "ebpf-subagent runs; its user ebpf-snmp exists"

# systemd-analyze verify exits 0 on unknown keys too: any line naming one of our files fails.
verify() {
	systemd-analyze verify "$1" > "$WORK/verify.log" 2>&1 || { cat "$WORK/verify.log" >&2; fail "systemd-analyze verify $1 failed"; }
	! grep -e "$2" "$WORK/verify.log" >&2 || fail "systemd-analyze verify $1 complains about $2"
}
verify /lib/systemd/system/ebpf-subagent.service ebpf-subagent
verify "$unitdir/collectd-ebpf-prometheus.service" collectd-ebpf-prometheus
mkdir -p "$WORK/units/collectd.service.d"
cp /lib/systemd/system/collectd.service "$WORK/units/"
cp /usr/share/doc/collectd-ebpf/examples/collectd-ebpf.service.d.conf "$WORK/units/collectd.service.d/ebpf.conf"
verify "$WORK/units/collectd.service" "collectd.service.d/ebpf.conf"
pass "systemd-analyze verify: the packaged ebpf-subagent.service, collectd-ebpf-prometheus.service and the shipped collectd drop-in"

# ---- 4. remove, purge ----------------------------------------------------------------------
$APT remove $PKGS > "$WORK/remove.log" 2>&1 || { cat "$WORK/remove.log" >&2; fail "apt-get remove failed"; }
snapshot_files > "$WORK/removed.list"
# What remove keeps by design until purge: the conffile (and its directories, if they were
# new: on a machine with collectd-core alone, which ships nothing in /etc/collectd, both
# /etc/collectd and collectd.conf.d are) and the unit's enable state (dh_installsystemd drops
# the symlink and deb-systemd-helper's records on purge, so that a reinstall keeps the
# admin's choice).
new_paths "$WORK/before.list" "$WORK/removed.list" | grep -v -x -e /etc/collectd -e /etc/collectd/collectd.conf.d \
	-e /etc/systemd/system/multi-user.target.wants \
	-e /etc/systemd/system/multi-user.target.wants/ebpf-subagent.service \
	-e '/var/lib/systemd/deb-systemd-helper-enabled/.*ebpf-subagent.service.*' \
	-e /etc/systemd/system/multi-user.target.wants/collectd-ebpf-prometheus.service \
	-e '/var/lib/systemd/deb-systemd-helper-enabled/.*collectd-ebpf-prometheus.service.*' \
	-e /var/lib/systemd/deb-systemd-helper-enabled/multi-user.target.wants \
	-e /var/lib/systemd/deb-systemd-helper-enabled > "$WORK/left" || true
[ "$(cat "$WORK/left")" = /etc/collectd/collectd.conf.d/ebpf.conf ] ||
	fail "after apt-get remove, expected the conffile and the unit's enable state left, found also: $(grep -vx /etc/collectd/collectd.conf.d/ebpf.conf "$WORK/left" | tr '\n' ' ')"
pass "apt-get remove leaves the conffile /etc/collectd/collectd.conf.d/ebpf.conf and the unit's enable state, nothing else"
$APT purge $PKGS > "$WORK/purge.log" 2>&1 || { cat "$WORK/purge.log" >&2; fail "apt-get purge failed"; }
INSTALLED=
snapshot_files > "$WORK/purged.list"
left=$(new_paths "$WORK/before.list" "$WORK/purged.list")
[ -z "$left" ] || fail "after apt-get purge, files left behind: $(echo $left)"
for p in $PKGS; do
	! known_to_dpkg "$p" || fail "$p still known to dpkg after purge"
done
pass "apt-get purge leaves no files behind (the ebpf-snmp and ebpf-prometheus system users stay, as Debian leaves system users)"
