#!/usr/bin/env bash
#
# tst.anon-grub: kdt -A's artifacts boot through real GRUB.  On the host,
# `kdt -A -s boot.d -o DIR --module kdt.ko` writes DIR/grub.cfg (its linux
# line carries the same words, '$' escaped the same way, as the GRUB
# drop-in /etc/default/grub.d/kdt.cfg produces) and DIR/anon.cpio (the
# initrd fragment: the DOF as lib/firmware/kdt/anon.dof and kdt.ko).
# kdt-vm --grub-dir builds a grub-mkrescue ISO from them: the kernel, the
# busybox initramfs of kdt-vm WITHOUT kdt.ko or DOF (--no-kdt) as the
# first initrd, anon.cpio as the second.  So everything kdt needs reaches
# the guest through GRUB: the guest's /proc/cmdline must show memmap= with
# its '$' (GRUB did not expand it), /init must load kdt.ko from the
# fragment with the region of DIR/cmdline, and `kdt -ae` must claim the
# anonymous state and print what boot.d recorded: with the CPU column
# normalised and sorted, tst.anon-grub.out.  Booted with SeaBIOS, then
# with OVMF (EFI) when /usr/share/ovmf/OVMF.fd is installed.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-anon-grub.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KV_KDT" -A -s "$KV_SCRIPT" -o "$work/anon" --module "$KV_KMOD" \
    --btf="$KV_TOP/build/kernel/vmlinux" || kv_fail "kdt -A -o exited $?"
words=$(cat "$work/anon/cmdline")
region=$(sed -n 's/.*kdt\.region=\([^ ]*\).*/\1/p' "$work/anon/cmdline")
memmap=$(sed -n 's/.*memmap=\([^ ]*\).*/\1/p' "$work/anon/cmdline")
echo "kernel words: $words"
grep -F "memmap=${memmap%%\$*}\\\$" "$work/anon/grub.cfg" >/dev/null ||
    kv_fail "grub.cfg does not escape the \$ of memmap=$memmap"

fws=(bios)
[ -f /usr/share/ovmf/OVMF.fd ] && fws+=(efi) ||
    echo "no /usr/share/ovmf/OVMF.fd: EFI boot not tested"
for fw in "${fws[@]}"; do
	flag=()
	[ "$fw" = efi ] && flag=(--efi)
	echo "--- booting through GRUB ($fw)"
	t0=$(date +%s)
	"$KV_VM" --no-kdt --grub-dir "$work/anon" "${flag[@]}" --add-kdt \
	    --load "$KV_MODULES" --smp "$KV_SMP" \
	    --run 'cat /proc/cmdline' --run 'kdt -ae > /dev/ttyS1' \
	    --guest-out "$work/$fw.out" --workdir "$work/vm-$fw" \
	    --prefix "$fw| " --timeout 200 \
	    --expect "memmap=${memmap//\$/\\\$}( |\$)" \
	    --expect "KDT-VM: insmod /lib/modules/kdt.ko anon=1 region=$region" \
	    --expect 'KDT-VM: kdt.ko loaded' ||
	    kv_fail "GRUB boot ($fw) failed"
	# Under OVMF the firmware and GRUB also write to the second serial
	# port before Linux boots: what kdt printed starts at its header.
	tr -d '\r' < "$work/$fw.out" |
	    sed -n '/^CPU  *ID  *FUNCTION:NAME$/,$p' > "$work/$fw.kdt"
	echo "--- kdt -ae in the guest ($fw, $(( $(date +%s) - t0 )) s):"
	cat "$work/$fw.kdt"
	kv_compare "$(dirname "$0")/tst.anon-grub.out" "$work/$fw.kdt" ||
	    kv_fail "kdt -ae after the GRUB boot ($fw) differs from tst.anon-grub.out"
done
echo "PASS"
