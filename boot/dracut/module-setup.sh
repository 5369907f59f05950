#!/bin/bash
# kdt's dracut module, installed by "kdt -A" as
# /usr/lib/dracut/modules.d/90kdt/ and removed by "kdt -A" with no program.
#
# It puts the anonymous enabling into the initramfs of each kernel that
# has a kdt.ko in /var/lib/kdt/anon/modules/KVER/ (kdt -A copies it there;
# for a kernel installed later, the one DKMS built in
# /lib/modules/KVER/updates/dkms):
# the DOF as /lib/firmware/kdt/anon.dof (kdt.ko's request_firmware name)
# and the module as /lib/modules/kdt.ko, loaded by kdt-load.sh before udev
# and before systemd-modules-load: as a "cmdline" hook (dracut's first hook,
# before pre-udev) and, in a systemd initramfs, also from kdt-load.service
# ordered before systemd-modules-load.service and systemd-udevd.service.
# Whichever runs first loads it; the other sees /sys/module/kdt and stops.

check() {
	[ -f /var/lib/kdt/anon/anon.dof ] || return 1
	return 0
}

depends() {
	return 0
}

install() {
	local ko="/var/lib/kdt/anon/modules/${kernel}/kdt.ko" d

	# A kernel installed after kdt -A: the kdt.ko DKMS built for it.
	for d in updates/dkms updates extra; do
		[ -f "$ko" ] && break
		ko="/lib/modules/${kernel}/$d/kdt.ko"
	done
	if [ ! -f "$ko" ]; then
		dwarn "kdt: no kdt.ko for ${kernel} in /var/lib/kdt/anon/modules/${kernel}/ or /lib/modules/${kernel}/{updates/dkms,updates,extra}/: the initramfs for ${kernel} carries no anonymous enabling"
		return 0
	fi
	inst_simple /var/lib/kdt/anon/anon.dof /lib/firmware/kdt/anon.dof
	inst_simple "$ko" /lib/modules/kdt.ko
	inst_multiple insmod
	inst_simple "$moddir/kdt-load.sh" /lib/kdt/kdt-load.sh
	inst_hook cmdline 00 "$moddir/kdt-load.sh"
	if dracut_module_included systemd; then
		inst_simple "$moddir/kdt-load.service" \
		    "$systemdsystemunitdir/kdt-load.service"
		$SYSTEMCTL -q --root "$initdir" add-wants sysinit.target \
		    kdt-load.service
	fi
}
