#!/bin/bash
# kdt's dracut module 90kdt: installed by "make install" and the kdt
# package as /usr/lib/dracut/modules.d/90kdt/ (with kdt-load.sh and
# kdt-load.service beside it); it is part of kdt, not of an enabling.
#
# It does something only while "kdt -A" has an anonymous enabling
# installed, that is while kdt's state directory /var/lib/kdt/anon holds
# anon.dof (kdt -A writes it and its manifest there and runs dracut -f;
# "kdt -A" with no program removes them and runs dracut -f again).
# Without one, check() answers 1: dracut leaves the module out, prints
# nothing about it and fails nothing.  With one:
#
#   installkernel()  the kernel-side files: the DOF as
#                    /lib/firmware/kdt/anon.dof (kdt.ko's request_firmware
#                    name) and kdt.ko, for the kernel being built, as
#                    /lib/modules/kdt.ko (outside /lib/modules/KVER, so
#                    nothing but kdt-load.sh loads it);
#   install()        the loader: insmod, kdt-load.sh as /lib/kdt/kdt-load.sh
#                    and as a "cmdline" hook (dracut's first hook, before
#                    pre-udev), and in a systemd initramfs kdt-load.service,
#                    ordered before systemd-modules-load.service and
#                    systemd-udevd.service.  Whichever runs first loads
#                    kdt.ko; the other sees /sys/module/kdt and stops.
#
# Which kdt.ko: the copy kdt -A made in /var/lib/kdt/anon/modules/KVER/,
# else (a kernel installed after kdt -A) the one DKMS or "make
# modules_install" built for it in /lib/modules/KVER/{updates/dkms,
# updates,extra}.  A kernel with none gets no enabling (a kdt.ko built for
# another kernel would not load): installkernel() says so with dwarn and
# install() adds nothing; the initramfs is still built.  The kernel words
# (kdt.anon=1 kdt.region=...) come from the boot loader, not from here:
# kdt-load.sh turns the kdt.* words of /proc/cmdline into kdt.ko's
# parameters.  Paths are read below $dracutsysrootdir (dracut --sysroot);
# dracut's inst_* functions add it themselves.

kdt_state=/var/lib/kdt/anon

# The kdt.ko for $kernel, as a path below the sysroot; none: return 1.
kdt_ko() {
	local d ko="$kdt_state/modules/${kernel}/kdt.ko"

	for d in updates/dkms updates extra; do
		[ -f "${dracutsysrootdir-}$ko" ] && break
		ko="/lib/modules/${kernel}/$d/kdt.ko"
	done
	[ -f "${dracutsysrootdir-}$ko" ] || return 1
	echo "$ko"
}

check() {
	[ -f "${dracutsysrootdir-}$kdt_state/anon.dof" ] || return 1
	return 0
}

depends() {
	return 0
}

installkernel() {
	local ko

	if ! ko=$(kdt_ko); then
		dwarn "kdt: no kdt.ko for ${kernel} in $kdt_state/modules/${kernel}/ or /lib/modules/${kernel}/{updates/dkms,updates,extra}/: the initramfs for ${kernel} carries no anonymous enabling"
		return 0
	fi
	inst_simple "$kdt_state/anon.dof" /lib/firmware/kdt/anon.dof
	if [ -f "${dracutsysrootdir-}$kdt_state/anon.ksym" ]; then
		inst_simple "$kdt_state/anon.ksym" /lib/firmware/kdt/anon.ksym
	fi
	inst_simple "$ko" /lib/modules/kdt.ko
}

install() {
	kdt_ko > /dev/null || return 0
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
