#!/bin/sh
# kdt-load.sh: load kdt.ko first thing in a dracut initramfs; part of
# kdt's dracut module 90kdt, installed with it by "make install" and the
# kdt package (its module-setup.sh explains where this runs).  Sourced as
# a dracut hook and run by kdt-load.service, so it never calls exit.  The
# kdt.* words of the kernel command line become kdt.ko's parameters;
# without them kdt.ko is not loaded.  A failure is printed and the boot
# goes on.
kdt_load() {
	local w params=""

	[ -f /lib/modules/kdt.ko ] || return 0
	[ -d /sys/module/kdt ] && return 0
	for w in $(cat /proc/cmdline); do
		case "$w" in
		kdt.*=*) params="$params ${w#kdt.}" ;;
		esac
	done
	[ -n "$params" ] || return 0
	if ! insmod /lib/modules/kdt.ko $params; then
		echo "kdt: insmod /lib/modules/kdt.ko$params failed; booting without the anonymous enabling" >&2
	fi
	return 0
}
kdt_load
