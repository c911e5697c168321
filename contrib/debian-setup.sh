#!/bin/sh
# Installs what building, running and testing collectd-ebpf needs on Debian 12 (run as root).
set -eu
export DEBIAN_FRONTEND=noninteractive
# A freshly booted Debian runs apt-daily/unattended-upgrades, which hold dpkg's lock for
# minutes: wait for it instead of failing.
apt-get update -q -o DPkg::Lock::Timeout=600
apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends \
	build-essential autoconf automake libtool pkg-config \
	clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libyaml-dev linux-libc-dev \
	collectd-core collectd-dev rrdtool util-linux procps \
	iproute2 nftables \
	snmpd snmp snmptrapd libsnmp-dev smitools \
	graphite-carbon graphite-web \
	debhelper lintian man-db
