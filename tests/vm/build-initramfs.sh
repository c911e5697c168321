#!/bin/sh
# build-initramfs.sh BUILDDIR SRCDIR KERNELDIR OUT: writes OUT, an uncompressed cpio archive
# (unpacking gzip under TCG costs seconds; reading a bigger file costs nothing) holding:
#   /bin/busybox, /init (init.sh), /etc/ebpf-tests.list (tests.list),
#   /etc/ebpf-unavailable.list (unavailable.list)
#   /build/...   every ELF executable under BUILDDIR/tests, BUILDDIR/.libs/ebpf.so,
#                BUILDDIR/collectd-ebpf-hist and the
#                users' programs built into BUILDDIR/contrib/programs (*.bpf.o) and
#                BUILDDIR/tests/exporter (exporter_*.bpf.o), at their paths relative to the
#                build tree (top_builddir=/build in the VM)
#   /src/tests, /src/contrib   their scripts and configurations, .conf and .yaml (top_srcdir=/src)
#   collectd, the stock plugins the integration tests use, types.db, rrdtool, at their
#                host paths
#   every shared library those need, as ldd lists it, plus libgcc_s.so.1: glibc dlopens it
#                for thread cancellation and unwinding, so ldd does not list it, and collectd
#                aborts at exit without it
#   mkfs.ext4 (e2fsprogs) with /etc/mke2fs.conf; ip and nft for the tcp test
#   /lib/modules/*.ko and load.order: modules.list with dependencies, for KERNELDIR's kernel
#                (and EBPF_VM_MODULES' list), NAME.options for those listed with parameters
#   /dev/console when run as root (init.sh also reopens it from devtmpfs, so non-root works)
set -eu
builddir=$1 srcdir=$2 kernel=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
COLLECTD=${COLLECTD:-$(command -v collectd || echo /usr/sbin/collectd)}
RRDTOOL=${RRDTOOL:-$(command -v rrdtool || true)}
root=$(mktemp -d "${TMPDIR:-/tmp}/ebpf-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT

die() { echo "build-initramfs: $*" >&2; exit 1; }
is_elf() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

# copy_file SRC [DEST]: SRC (symlinks followed) at DEST, by default its own path.
copy_file() {
	mkdir -p "$root$(dirname "${2:-$1}")"
	cp -L "$1" "$root${2:-$1}"
}

# copy_elf SRC [DEST]: the file and every library ldd resolves for it, at their host paths.
copy_elf() {
	copy_file "$@"
	ldd "$1" 2> /dev/null | awk '/=> \// { print $3 } /^[ \t]*\/[^ ]+ \(0x/ { print $1 }' |
		while read -r lib; do
			[ -e "$root$lib" ] || copy_file "$lib"
		done
}

command -v busybox > /dev/null || die "busybox is not installed (apt-get install busybox-static)"
mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys" "$root/tmp" "$root/var/tmp" "$root/run" \
	"$root/etc" "$root/lib/modules"
copy_elf "$(command -v busybox)" /bin/busybox
# /bin/sh is dash, as on the host: busybox's sh runs its own applets before PATH (its `ip`
# has no netns), and system() and the shell tests should meet the shell they meet on Debian.
# busybox --install (init.sh) leaves an existing /bin/sh alone.
copy_elf "$(command -v dash || echo /bin/dash)" /bin/sh
cp "$here/init.sh" "$root/init"
chmod 755 "$root/init"
# EBPF_VM_TESTS: another list (bench-scale.sh runs the scale bench instead of the matrix).
cp "${EBPF_VM_TESTS:-$here/tests.list}" "$root/etc/ebpf-tests.list"
cp "$here/unavailable.list" "$root/etc/ebpf-unavailable.list"
if [ "$(id -u)" = 0 ]; then
	mknod -m 600 "$root/dev/console" c 5 1
	mknod -m 666 "$root/dev/null" c 1 3
fi

# The build: test programs, helpers and the plugin.
[ -f "$builddir/.libs/ebpf.so" ] || die "$builddir/.libs/ebpf.so is not built (make)"
copy_elf "$builddir/.libs/ebpf.so" /build/.libs/ebpf.so
find "$builddir/tests" -type f -perm -u+x ! -path '*/.libs/*' | while read -r f; do
	is_elf "$f" && copy_elf "$f" "/build${f#"$builddir"}"
done
# The terminal view, which collectd_runqueue_behind.sh reads a snapshot with.
[ -x "$builddir/collectd-ebpf-hist" ] || die "$builddir/collectd-ebpf-hist is not built (make)"
copy_elf "$builddir/collectd-ebpf-hist" /build/collectd-ebpf-hist
# The benches of the VMs (make bench-scale and bench-cost-vm build them; the matrix does not need them).
for bench in scale_cost cost_modules; do
	[ -x "$builddir/bench/$bench" ] && copy_elf "$builddir/bench/$bench" "/build/bench/$bench"
done
for f in "$builddir"/contrib/programs/*.bpf.o "$builddir"/tests/exporter/exporter_*.bpf.o; do
	[ -f "$f" ] || die "$f: the users' programs are not built (make check builds them)"
	copy_file "$f" "/build${f#"$builddir"}"
done
# Scripts and the configurations they use (ExporterConfig's YAML too); not the build outputs
# of an in-tree build.
(cd "$srcdir" && find tests contrib -type f \( -name '*.sh' -o -name '*.conf' -o -name '*.yaml' \)) | while read -r f; do
	copy_file "$srcdir/$f" "/src/$f"
done

# collectd with the stock plugins tests/support/lib.sh loads.
[ -x "$COLLECTD" ] || die "collectd is not installed ($COLLECTD; apt-get install collectd-core)"
copy_elf "$COLLECTD"
plugindir=$("$COLLECTD" -h | sed -n 's/^ *Plugin directory *//p')
for p in csv rrdtool logfile unixsock; do
	copy_elf "$plugindir/$p.so"
done
copy_file /usr/share/collectd/types.db
[ -n "$RRDTOOL" ] && [ -x "$RRDTOOL" ] && copy_elf "$RRDTOOL"
# mkfs.ext4 for the tests on a scratch ext4 (tests/support/loop_ext4.h): busybox's mke2fs makes
# ext2 (no journal, no extents) and takes none of the options loop_ext4.h passes.
MKFS_EXT4=${MKFS_EXT4:-$(command -v mkfs.ext4 || echo /usr/sbin/mkfs.ext4)}
[ -x "$MKFS_EXT4" ] || die "mkfs.ext4 is not installed ($MKFS_EXT4; apt-get install e2fsprogs)"
copy_elf "$MKFS_EXT4" /usr/sbin/mkfs.ext4
[ -f /etc/mke2fs.conf ] && copy_file /etc/mke2fs.conf
# ip (iproute2) and nft (nftables) for the tcp test's network namespace and drop rule, in
# /usr/local/bin, which init.sh puts first in PATH: busybox's own `ip` has no netns; nice
# (coreutils) for collectd_runqueue_behind.sh's hogs: Debian's busybox has no nice applet.
for tool in ip nft nice; do
	path=$(command -v "$tool" || true)
	[ -n "$path" ] || die "$tool is not installed (apt-get install iproute2 nftables coreutils)"
	copy_elf "$path" "/usr/local/bin/$tool"
done
# mawk as awk, first in PATH: Debian's own awk, which the host's runs of every test use; busybox's
# awk took 8 times as long to sum a trace of 16,000 sched events (collectd_runqueue_behind.sh
# sums two a scenario, which under TCG beside CI's other lanes ran it past init.sh's limit).
MAWK=$(command -v mawk || echo /usr/bin/mawk)
[ -x "$MAWK" ] || die "mawk is not installed (apt-get install mawk)"
copy_elf "$MAWK" /usr/local/bin/awk
libgcc=$(/sbin/ldconfig -p | awk '/libgcc_s\.so\.1 .*x86-64/ { print $NF; exit }')
[ -n "$libgcc" ] || die "libgcc_s.so.1 not found (ldconfig -p)"
copy_file "$libgcc"

# Kernel modules: each after its dependencies, decompressed (busybox insmod takes plain .ko).
modules="$kernel/modules"
# add_module NAME[?]: appends NAME's dependencies, then NAME, to load.order (once each). A
# trailing ? makes it optional: a kernel without such a module has it built in elsewhere.
add_module() {
	optional=
	case "$1" in *\?) optional=1 ;; esac
	name=$(echo "${1%\?}" | tr - _)
	grep -qx "$name" "$root/lib/modules/load.order" 2> /dev/null && return 0
	# Built into this kernel: nothing to load.
	sed 's,.*/,,; s,\.ko.*,,' "$modules/modules.builtin" | tr - _ | grep -qx "$name" && return 0
	file=$(find "$modules/kernel" -name "$name.ko*" -o -name "$(echo "$name" | tr _ -).ko*" | head -n 1)
	if [ -z "$file" ]; then
		[ -n "$optional" ] && return 0
		die "module $name (modules.list) not found in $modules"
	fi
	case "$file" in
	*.xz) xz -dc "$file" ;;
	*.zst) zstd -dcq "$file" ;;
	*.gz) gzip -dc "$file" ;;
	*) cat "$file" ;;
	esac > "$root/lib/modules/$name.ko"
	for dep in $(tr '\0' '\n' < "$root/lib/modules/$name.ko" | sed -n 's/^depends=//p' | tr , ' '); do
		(add_module "$dep") # a subshell: sh has no local variables, and name is reused
	done
	echo "$name" >> "$root/lib/modules/load.order"
}
touch "$root/lib/modules/load.order"
# EBPF_VM_MODULES: a list loaded after modules.list's (bench-cost-vm.sh's null_blk); words after
# a module's name are its parameters, which init.sh gives insmod (NAME.options).
grep -hv '^#' "$here/modules.list" ${EBPF_VM_MODULES:+"$EBPF_VM_MODULES"} | while read -r m options; do
	[ -n "$m" ] || continue
	add_module "$m"
	[ -z "$options" ] || echo "$options" > "$root/lib/modules/$(echo "${m%\?}" | tr - _).options"
done

(cd "$root" && find . | busybox cpio -o -H newc 2> /dev/null) > "$out.tmp"
mv "$out.tmp" "$out"
