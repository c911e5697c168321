#!/bin/sh
# fetch-kernels.sh KERNELS_LIST CACHE: resolves the newest Debian package for each line of
# KERNELS_LIST, downloads it with apt-get download and extracts it into CACHE/<release>/:
#   vmlinux   the uncompressed kernel (extract-vmlinux.sh)
#   config    its build configuration
#   modules/  its /lib/modules/<release> tree, for modules the tests need (modules.list)
# Prints the kernel directories, one a line. A kernel already in the cache is not downloaded
# again, so reruns take seconds; older releases of the same series are removed.
#
# apt runs with its own sources list, package lists and cache under CACHE/apt: the system's
# apt configuration is read (the mirror, proxies) but never changed. Debian 12's 6.12 kernels
# are in bookworm-backports (and bookworm-security), Debian 13's in trixie (and -security),
# which the system may not list, so the private sources list names bookworm, -updates,
# -backports and -security on the system's own mirrors, bullseye with -security for Debian
# 11's 5.10 kernels, and trixie with -updates and -security.
# shellcheck disable=SC2046 # $(aptopts) is a list of words by design
set -eu
list=$1 cache=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
apt="$cache/apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/sources.list.d"

log() { echo "fetch-kernels: $*" >&2; }

# shellcheck source=tests/vm/debian_mirror.sh
. "$here/debian_mirror.sh"

archive=$(uri_for bookworm)
security=$(uri_for bookworm-security)
: "${archive:=http://deb.debian.org/debian}"
: "${security:=http://deb.debian.org/debian-security}"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
opt=""
[ -f "$keyring" ] && opt="[signed-by=$keyring] "
cat > "$apt/sources.list" <<LIST
deb $opt$archive bookworm main
deb $opt$archive bookworm-updates main
deb $opt$archive bookworm-backports main
deb $opt$security bookworm-security main
deb $opt$archive bullseye main
deb $opt$security bullseye-security main
deb $opt$archive trixie main
deb $opt$archive trixie-updates main
deb $opt$security trixie-security main
LIST

aptopts() {
	echo "-o Dir::Etc::SourceList=$apt/sources.list -o Dir::Etc::SourceParts=$apt/sources.list.d" \
		"-o Dir::State::Lists=$apt/lists -o Dir::Cache=$apt/cache" \
		"-o APT::Sandbox::User=$(id -un) -q"
}
if ! apt-get $(aptopts) update > "$apt/update.log" 2>&1; then
	log "apt-get update failed (see $apt/update.log); using the package lists and kernels already cached"
fi

grep -v '^#' "$list" | grep -v '^[[:space:]]*$' | while read -r regex; do
	pkg=$(apt-cache $(aptopts) search --names-only "$regex" 2> /dev/null | cut -d' ' -f1 | sort -V | tail -n 1)
	if [ -z "$pkg" ]; then
		# Offline: the newest cached kernel of this series, if any.
		dir=$(for p in "$cache"/*/package; do [ -f "$p" ] && grep -Eq "$regex" "$p" && dirname "$p"; done | sort -V | tail -n 1)
		[ -n "$dir" ] || { log "no package matches $regex and none is cached"; exit 1; }
		log "no package list matches $regex: using the cached $(cat "$dir/package")"
		echo "$dir"
		continue
	fi
	release=${pkg#linux-image-}
	release=${release%-unsigned}
	dir="$cache/$release"
	if [ ! -f "$dir/vmlinux" ]; then
		log "downloading $pkg"
		rm -rf "$dir.tmp"
		mkdir -p "$dir.tmp/deb"
		(cd "$dir.tmp/deb" && apt-get $(aptopts) download "$pkg" >&2)
		dpkg-deb -x "$dir.tmp/deb/"*.deb "$dir.tmp/root"
		sh "$here/extract-vmlinux.sh" "$dir.tmp/root/boot/vmlinuz-$release" "$dir.tmp/vmlinux"
		cp "$dir.tmp/root/boot/config-$release" "$dir.tmp/config"
		# Debian 13's kernel packages keep their modules in /usr/lib (merged /usr), 12's in /lib.
		modules="$dir.tmp/root/lib/modules/$release"
		[ -d "$modules" ] || modules="$dir.tmp/root/usr/lib/modules/$release"
		mv "$modules" "$dir.tmp/modules"
		rm -rf "$dir.tmp/root" "$dir.tmp/deb"
		echo "$pkg" > "$dir.tmp/package"
		rm -rf "$dir"
		mv "$dir.tmp" "$dir"
		log "$release ready in $dir"
	fi
	# Older releases of the same series are of no further use.
	for p in "$cache"/*/package; do
		[ -f "$p" ] && [ "$(dirname "$p")" != "$dir" ] && grep -Eq "$regex" "$p" && rm -rf "$(dirname "$p")"
	done
	echo "$dir"
done
