#!/bin/sh
# Installs what building, running and testing collectd-ebpf needs on Debian 12 (bookworm) or
# 13 (trixie), run as root. The names are the same on both; what a minimal install (debootstrap
# --variant=minbase, container images) lacks is named too: e2fsprogs (mkfs.ext4), kmod
# (modprobe), procps, iproute2, git and systemd (make check-packaging: git ls-files,
# systemd-analyze verify). libclang-rt-dev is clang's libFuzzer runtime, which clang 14 pulls
# in on Debian 12 and clang 19 only recommends on 13. pci.ids is the PCI names database the
# pci_* label decoders read (/usr/share/misc/pci.ids); systemtap-sdt-dev
# gives sys/sdt.h, for the USDT test's workload (tests/support/usdt_n.c). prometheus is the real
# server the Prometheus tests scrape collectd's write_prometheus with (their own instance on a
# free loopback port; on a host booted with systemd the package also enables its own
# prometheus.service on :9090: `systemctl disable --now prometheus` if unwanted);
# write_prometheus needs libmicrohttpd and libprotobuf-c, which collectd-core only suggests
# (the -dev packages: one name on 12 and 13, where the libraries' own names differ); curl
# scrapes collectd-ebpf-prometheus in its tests (a minimal Debian 13 root has none).
set -eu
export DEBIAN_FRONTEND=noninteractive
# A freshly booted Debian runs apt-daily/unattended-upgrades, which hold dpkg's lock for
# minutes: wait for it instead of failing.
apt-get update -q -o DPkg::Lock::Timeout=600
apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends \
	build-essential autoconf automake libtool pkg-config \
	clang llvm libclang-rt-dev libbpf-dev bpftool libelf-dev zlib1g-dev libyaml-dev linux-libc-dev pci.ids systemtap-sdt-dev \
	collectd-core collectd-dev rrdtool util-linux mount procps kmod e2fsprogs \
	iproute2 nftables git systemd \
	snmpd snmp snmptrapd libsnmp-dev smitools \
	graphite-carbon graphite-web \
	prometheus libmicrohttpd-dev libprotobuf-c-dev curl \
	debhelper lintian man-db
