#!/bin/sh
# ebpf_exporter's ifname, pci_vendor, pci_subclass and dname decoders, and its errno, inet_ip,
# hex, ksym, pci_device and pci_class, in the real collectd: <Program> ExporterConfig reads
# tests/exporter/exporter_names.yaml and exporter_codes.yaml (this project's own configs and
# programs in that format: close() of a marker fd under a key of fixed values the command
# chooses). The workload (tests/support/close_n) closes the marker 3 times as "known",
# whose ids have names (interface 1, lo; vendor 0x8086; subclass 0x0200; example.com; errno
# 13; vfs_read's address, which kaddrs gives the program; device 1af4:1000, class 0x02; the
# IPv4 and IPv6 addresses, as addresses), and 4
# times as "other", whose ids have none (an address 1 no symbol starts at, a device and class
# pci.ids has not); each series must count exactly that, under
# the label texts ebpf_exporter gives (pci names from the system's pci.ids, Debian's package
# pci.ids, which contrib/debian-setup.sh installs).
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

OBJ="$WORK/objects"
install_exporter_configs "$OBJ" exporter_names exporter_codes

start_gated_workload close_n known:3 other:4

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  <Program "names">
    ExporterConfig "$OBJ/exporter_names.yaml"
  </Program>
  <Program "codes">
    ExporterConfig "$OBJ/exporter_codes.yaml"
  </Program>
</Plugin>
CONF

"$COLLECTD" -T -C "$WORK/collectd.conf" > "$WORK/t.out" 2>&1 || { cat "$WORK/t.out" >&2; fail "collectd -T refused the config"; }
pass "collectd -T takes the configs with their ifname, pci_vendor, pci_subclass, dname, errno, inet_ip, hex, ksym, pci_device and pci_class decoders"

start_collectd "$WORK/collectd.conf"
wait_for_log 'names: count_close attached' 10 || fail "the program did not attach"
wait_for_log 'codes: count_close attached' 10 || fail "the program codes did not attach"
echo go >&7
wait "$WORKLOAD" || fail "the workload failed"

KNOWN="derive-marked_closes-lo-Intel Corporation-Ethernet controller-example.com"
wait_until 5 csv_is names "$KNOWN" 3 || fail "$KNOWN is $(csv_last names "$KNOWN"), expected 3"
pass "named ids: lo, Intel Corporation, Ethernet controller, example.com; exactly 3 closes"
OTHER="derive-marked_closes-unknown:2147483632-unknown pci vendor: 0x8087-unknown pci subclass: 0x0b (class 0x01)-abc.xyz...."
wait_until 5 csv_is names "$OTHER" 4 || fail "$OTHER is $(csv_last names "$OTHER"), expected 4"
pass "unnamed ids as ebpf_exporter prints them, the name's 4 trailing 0 bytes as 4 dots; exactly 4 closes"

ls "$WORK/csv/itest/ebpf-names/" > "$WORK/files"
[ "$(grep -c '^derive-marked_closes-' "$WORK/files")" = 2 ] || { cat "$WORK/files" >&2; fail "series besides the two were sent"; }
pass "no other series"

KNOWN="derive-marked_closes-EACCES-127.0.0.1-be-vfs_read-Virtio network device-Network controller-::1"
wait_until 5 csv_is codes "$KNOWN" 3 || fail "$KNOWN is $(csv_last codes "$KNOWN"), expected 3"
OTHER="derive-marked_closes-ENOENT-1.2.3.4-0a-unknown_addr:0x1-unknown pci device: 0xdeadbeef-unknown pci class: 0xfe-2001:db8::1"
wait_until 5 csv_is codes "$OTHER" 4 || fail "$OTHER is $(csv_last codes "$OTHER"), expected 4"
ls "$WORK/csv/itest/ebpf-codes/" > "$WORK/files"
[ "$(grep -c '^derive-marked_closes-' "$WORK/files")" = 2 ] || { cat "$WORK/files" >&2; fail "codes: series besides the two were sent"; }
pass "errno, inet_ip (IPv4 and IPv6), hex, ksym, pci_device, pci_class: ${KNOWN#derive-marked_closes-} 3 closes, ${OTHER#derive-marked_closes-} 4, nothing else"
stop_collectd
