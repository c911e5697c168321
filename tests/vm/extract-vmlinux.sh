#!/bin/sh
# extract-vmlinux.sh VMLINUZ OUT: writes the uncompressed kernel ELF (vmlinux) held inside a
# bzImage. qemu boots it directly through its PVH entry note (Debian sets CONFIG_PVH), which
# under TCG takes about 5 s against 16 s for the bzImage, whose decompressor runs emulated.
#
# The bzImage is a setup stub followed by the compressed kernel: find each occurrence of a
# compression format's magic, decompress from there, and keep the first result that is an
# ELF file. Decompressors complain about the trailing data after the stream; that is expected.
set -eu
in=$1 out=$2
tmp="$out.tmp"
trap 'rm -f "$tmp"' EXIT

is_elf() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

# try MAGIC_REGEX DECOMPRESSOR...: every offset of the magic, first ELF wins.
try() {
	magic=$1; shift
	command -v "$1" > /dev/null || return 1
	for off in $(LC_ALL=C grep -obUaP "$magic" "$in" | cut -d: -f1); do
		tail -c +$((off + 1)) "$in" | "$@" > "$tmp" 2> /dev/null || true
		if [ -s "$tmp" ] && is_elf "$tmp"; then
			mv "$tmp" "$out"
			return 0
		fi
	done
	return 1
}

try '\x28\xb5\x2f\xfd' zstd -dcq && exit 0    # CONFIG_KERNEL_ZSTD (Debian >= 6.x backports)
try '\xfd7zXZ\x00' xz -dc && exit 0           # CONFIG_KERNEL_XZ (Debian 6.1)
try '\x1f\x8b\x08' gzip -dc && exit 0         # CONFIG_KERNEL_GZIP
try '\x02\x21\x4c\x18' lz4 -dc && exit 0      # CONFIG_KERNEL_LZ4
echo "extract-vmlinux: no compressed ELF kernel found in $in (tried zstd, xz, gzip, lz4; are zstd and xz-utils installed?)" >&2
exit 1
