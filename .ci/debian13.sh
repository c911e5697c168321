#!/bin/bash
# .ci/debian13.sh create ROOT | run ROOT COMMAND: a Debian 13 (trixie) machine for CI, as a
# minimal root on this machine's kernel.
#   create  makes ROOT anew: debootstrap --variant=minbase trixie from the Debian mirror the
#           system's apt uses, then what a fresh installed machine has and a root made by
#           debootstrap lacks (trixie-updates and -security sources, /etc/hosts, no daemons
#           started by package scripts), and a copy of this checkout's tracked files in /src
#           (a git repository with them in its index).
#   run     runs COMMAND (sh -c) in /src of ROOT, as root, in a mount namespace of its own
#           (the mounts vanish with it): ROOT bind-mounted onto itself (`ip netns add` makes /
#           a slave mount: / must be a mount point), /proc, /sys with the host's cgroups and
#           tracefs/bpffs mount points, /dev (loop devices appear there), a fresh /run whose
#           /run/lock is the host's, so the tests' BPF lock (tests/support/lock_run.sh) is the host's
#           lock and kernel tests never run beside another's programs.
# DEBIAN_SUITE=bookworm makes a Debian 12 root the same way (to check what a minimal 12
# lacks; CI's second root is trixie).
# The packages debootstrap and apt download are kept in CACHE (DEBIAN13_CACHE, default
# /var/cache/collectd-ebpf-ci/debian13): a second CI run downloads nothing; without it
# everything is downloaded. Nothing else outlives a run: ROOT is made anew every time.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)
suite=${DEBIAN_SUITE:-trixie}
cache=${DEBIAN13_CACHE:-/var/cache/collectd-ebpf-ci/debian13}

usage() { echo "usage: $0 create ROOT | run ROOT COMMAND" >&2; exit 2; }
[ $# -ge 2 ] || usage
action=$1 root=$(realpath -m "$2")
shift 2
[ "$root" != / ] || { echo "debian13: the root cannot be /" >&2; exit 2; }

# mirror SUITE DEFAULT: the system's own mirror for SUITE (its proxies and caches), else DEFAULT.
mirror() {
	local uri
	uri=$(. "$here/tests/vm/debian_mirror.sh" && uri_for "$1")
	echo "${uri:-$2}"
}

# cache_for SUITE: each suite's packages in a cache of their own.
cache_for() { if [ "$1" = trixie ]; then echo "$cache"; else echo "$cache-$1"; fi; }

create() {
	local archive security
	cache=$(cache_for "$suite")
	archive=$(mirror bookworm http://deb.debian.org/debian)
	security=$(mirror bookworm-security http://deb.debian.org/debian-security)
	command -v debootstrap > /dev/null || apt-get install -y -q --no-install-recommends debootstrap
	mkdir -p "$cache"
	rm -rf "$root"
	mkdir -p "$root"
	debootstrap --variant=minbase --cache-dir="$cache" "$suite" "$root" "$archive" > "$root.debootstrap.log" 2>&1 ||
		{ tail -n 30 "$root.debootstrap.log" >&2; echo "debian13: debootstrap $suite from $archive failed" >&2; exit 1; }
	rm -f "$root/etc/apt/sources.list"
	cat > "$root/etc/apt/sources.list.d/debian.sources" <<-SOURCES
		Types: deb
		URIs: $archive
		Suites: $suite $suite-updates
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

		Types: deb
		URIs: $security
		Suites: $suite-security
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	SOURCES
	# An installed machine has these; debootstrap writes neither.
	printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' > "$root/etc/hosts"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	# Package scripts must not start daemons (snmpd, carbon) in the chroot: nothing would stop
	# them, and the tests start their own.
	printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	# The checkout's tracked files as they are in the work tree (not a build's leftovers), in a
	# git checkout of their own: make check-packaging copies the files git lists.
	mkdir -p "$root/src"
	git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$root/src"
	git -C "$root/src" init -q && git -C "$root/src" add -A
}

run() {
	[ -d "$root/src" ] || { echo "debian13: $root has no /src: run $0 create $root first" >&2; exit 1; }
	cache=$(cache_for "$(. "$root/etc/os-release" && echo "$VERSION_CODENAME")")
	mkdir -p "$cache/archives/partial"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private /bin/sh -euc '
		root=$1 cache=$2 cmd=$3
		mount --bind "$root" "$root"
		mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"
		mount --rbind /dev "$root/dev"
		mount -t tmpfs -o mode=755 tmpfs "$root/run"
		mkdir -p /run/lock "$root/run/lock"
		mount --bind /run/lock "$root/run/lock"
		mount --bind "$cache/archives" "$root/var/cache/apt/archives"
		exec chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			/bin/sh -c "cd /src && $cmd"
	' debian13 "$root" "$cache" "$*"
}

case $action in
create) create ;;
run) [ $# -ge 1 ] || usage; run "$@" ;;
*) usage ;;
esac
