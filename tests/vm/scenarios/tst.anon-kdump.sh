#!/usr/bin/env bash
#
# tst.anon-kdump: real kdump with an anonymous enabling.  Boot 1 traces
# examples/boot.d (kdt.anon=1, crashkernel=256M), loads the demo modules,
# arms the capture kernel with kexec -p -- the same kernel, with an
# initramfs made from the running one and the same command line, so the
# capture kernel's /init loads kdt.ko with kdt.anon=1 too, as a
# distribution's kdump does -- and panics.  Boot 2, the capture kernel:
# kdt.ko must not start the enabling there (it would write over the
# crashed kernel's records): `kdt -ae` says it is a capture kernel, and
# `kdt -a --previous` prints the crashed kernel's records -- BEGIN and
# every module boot 1 loaded, in order.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
command -v kexec > /dev/null || kv_fail "kexec (kexec-tools) missing: run 'make deps'"
work=$(mktemp -d "$KV_TOP/build/vm-anon-kdump.XXXXXX")
trap '[ -n "${KDT_KEEP:-}" ] || rm -rf "$work"' EXIT

cat > "$work/guest.sh" <<'EOF'
set +e
if [ -e /proc/vmcore ]; then
	echo "KDUMP: capture kernel, cmdline: $(cat /proc/cmdline)"
	dmesg | grep 'kdt: this is a kdump capture kernel' | sed 's/^\[[^]]*\] /KDUMP: dmesg: /'
	kdt -ae > /tmp/ae.out 2> /tmp/ae.err
	echo "KDUMP: kdt -ae rc=$? stderr: $(cat /tmp/ae.err)"
	kdt -a --previous > /dev/ttyS1 2> /tmp/prev.err
	echo "KDUMP: kdt -a --previous rc=$? stderr: $(cat /tmp/prev.err)"
else
	find / -xdev ! -path /tmp/capture.cpio | cpio -o -H newc > /tmp/capture.cpio 2> /dev/null
	kexec -p /boot/vmlinuz --initrd=/tmp/capture.cpio \
	    --append="$(cat /proc/cmdline) irqpoll nr_cpus=1 reset_devices"
	echo "KDUMP: kexec -p rc=$? loaded=$(cat /sys/kernel/kexec_crash_loaded)"
	echo c > /proc/sysrq-trigger
fi
EOF

"$KV_VM" --script "$KV_SCRIPT" --load "$KV_MODULES" --smp 1 --mem 1024 \
    --append crashkernel=256M --boots 2 --add-kdt \
    --add-bin "$(command -v kexec):/sbin/kexec" \
    --add "$(ls "$KV_TOP"/build/kernel/boot/vmlinuz-*):/boot/vmlinuz" \
    --add "$work/guest.sh:/guest.sh" --run 'sh /guest.sh' \
    --guest-out "$work/prev.out" --serial-log "$work/serial.log" \
    --workdir "$work/vm" --timeout 400 --quiet || {
	grep -a 'KDUMP\|kdt' "$work/serial.log" | tail -20
	kv_fail "the kdump boots failed"
}
grep -a '^KDUMP' "$work/serial.log"
grep -aq 'KDUMP: kexec -p rc=0 loaded=1' "$work/serial.log" ||
    kv_fail "kexec -p did not load the capture kernel"
grep -aq 'KDUMP: capture kernel, cmdline: .*kdt\.anon=1' "$work/serial.log" ||
    kv_fail "the capture kernel did not get kdt.anon=1"
grep -aq 'KDUMP: dmesg: kdt: this is a kdump capture kernel' "$work/serial.log" ||
    kv_fail "kdt.ko did not notice the capture kernel"
grep -aq "KDUMP: kdt -ae rc=1 stderr: kdt: no anonymous state: this is a kdump capture kernel" "$work/serial.log" ||
    kv_fail "kdt -ae in the capture kernel does not say why there is nothing to claim"
grep -aq 'KDUMP: kdt -a --previous rc=0' "$work/serial.log" ||
    kv_fail "kdt -a --previous failed in the capture kernel"
echo "--- kdt -a --previous in the capture kernel:"
cat "$work/prev.out"
kv_check_order "$work/prev.out" ||
    kv_fail "the crashed kernel's module records are missing or out of order"
echo "PASS"
