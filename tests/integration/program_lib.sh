# Shared by the integration tests of <Program> blocks and block IO (after lib.sh).

# install_objects DIR BUILT.bpf.o...: copies the build's objects (paths under $top_builddir)
# into DIR as the safe loader wants them: mode 0644 in a directory of mode 0755.
install_objects() {
	dir=$1; shift
	mkdir -p "$dir"
	chmod 755 "$dir"
	for o in "$@"; do
		cp "$top_builddir/$o" "$dir/" || fail "$o not built"
		chmod 644 "$dir/${o##*/}"
	done
}

# attach_loop MEGABYTES: a loop device with direct IO over a new file in /var/tmp, set as
# LOOP (/dev/loopN) and DISK (loopN); detached and removed when the test exits.
attach_loop() {
	command -v losetup >/dev/null 2>&1 || skip "losetup is missing (apt-get install mount)"
	BACKING=$(mktemp /var/tmp/ebpf-it-loop.XXXXXX)
	LOOP=
	trap cleanup_loop EXIT INT TERM
	truncate -s "$1M" "$BACKING"
	LOOP=$(losetup -f --show --direct-io=on "$BACKING") || skip "cannot attach a loop device"
	DISK=${LOOP#/dev/}
	# udev probes a new disk: let it finish before a test counts the disk's requests.
	command -v udevadm >/dev/null 2>&1 && udevadm settle 2>/dev/null || true
}
cleanup_loop() {
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -f "$BACKING"
	cleanup
}
