#!/bin/sh
# In the VM of `make bench-cost-vm` (bench-cost-vm.sh): bench/cost_modules on what the
# development VM cannot measure. Method "default": block on null_blk's /dev/nullb0, process,
# and fs, dcache, pagecache as the modules choose (fentry first), with runqueue and signals
# beside them (tp_btf, measured on the development VM too: how this VM's figures compare);
# any other method (init.sh's EBPF_ATTACH_ORDER, "kprobe") is the AttachOrder of fs, dcache
# and pagecache alone. EBPF_COST_ARGS (the kernel's command line): more options.
case ${EBPF_ATTACH_ORDER:-} in
"") set -- -m runqueue,signals,block,process,fs,dcache,pagecache -B /dev/nullb0 ;;
*) set -- -m fs,dcache,pagecache -a "$EBPF_ATTACH_ORDER" ;;
esac
echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
# shellcheck disable=SC2086 # EBPF_COST_ARGS is a list of options
exec /build/bench/cost_modules ${EBPF_COST_ARGS:-} "$@"
