#!/usr/bin/env bash
#
# tst.anon-debian: the whole user path on a real distribution.  A Debian 12
# guest (tests/vm/mkdebian: debootstrap, initramfs-tools, the pinned
# kernel, GRUB's update-grub; cached) with the current kdt and kdt.ko
# installed as `make install` would, booted three times by
# tests/vm/debian-boot, every time through GRUB reading the guest's own
# grub.cfg and initramfs-tools' initramfs.  What the guest does is
# README.md's boot-time walkthrough ("Boot-time tracing on a real
# machine"): its blocks "boot 1" to "boot 3", taken out of README.md by
# tests/vm/readme-walkthrough at run time and run as written by the
# guest's init= program, tst.anon-debian.init (which says what it supplies
# around them: the reboot, the Ctrl-C).  So a README line that stops
# working, or changes meaning, fails this test:
#
#   boot 1  block 1: boot.d written, kdt -A -s boot.d --dry-run, kdt -A
#           -s boot.d, reboot (a warm reboot of the guest)
#   boot 2  the command line carries kdt.anon=1, kdt.region= and memmap=
#           with its `$` intact; block 2's kdt -a, ended by a ^C, prints
#           the BEGIN record and one record per module the initramfs
#           loaded after kdt.ko -- the same set lsmod shows
#           (tst.anon-debian.out, CPU column masked, sorted; its two
#           empty lines are the records' end and dtrace's newline at the
#           ^C, as tst.anon-claim-live checks); a kdt -ae
#           after it is refused; block 3's kdt -A removes everything: the
#           file list of /etc /usr /boot /var/lib, the grub.cfg and the
#           initramfs contents are again what they were before boot 1's
#           kdt -A; reboot
#   boot 3  no kdt word on the command line, no kdt.ko loaded, kdt -a
#           exits 1 with a one-line "no anonymous state" reason
#
# The judging is all here, on the files the guest left in /kdt-test/out.
# The first run on a clean machine also builds the Debian tree
# (2-3.5 min measured, then cached in /var/cache/kdt).
#
. "$(dirname "$0")/../lib.sh"

here="$KV_TOP/tests/vm/scenarios"
for f in "$KV_KDT" "$KV_KMOD"; do
	[ -f "$f" ] || kv_fail "${f#$KV_TOP/}: missing (run 'make')"
done
work=$(mktemp -d "$KV_TOP/build/vm-anon-debian.XXXXXX")
# KDT_KEEP_WORK=1 keeps the run's files (disk image, serial log) for a
# post-mortem.
if [ "${KDT_KEEP_WORK:-0}" = 1 ]; then
	trap 'echo "kept $work"' EXIT
else
	trap 'rm -rf "$work"' EXIT
fi
out="$work/out"

# README.md's walkthrough, as it is now.
wt=()
for n in 1 2 3; do
	"$KV_TOP/tests/vm/readme-walkthrough" boot $n > "$work/boot-$n.sh" ||
	    kv_fail "README.md has no walkthrough block 'boot $n'"
	echo "--- README.md walkthrough boot $n:"
	cat "$work/boot-$n.sh"
	wt+=(--add "$work/boot-$n.sh:/kdt-test/walkthrough/boot-$n.sh")
done

# The Debian tree first, so its one-time build is timed apart.
t0=$(date +%s)
"$KV_TOP/tests/vm/mkdebian" > /dev/null || kv_fail "tests/vm/mkdebian failed"
t1=$(date +%s)
"$KV_TOP/tests/vm/debian-boot" --init "$here/tst.anon-debian.init" \
    "${wt[@]}" \
    --workdir "$work/vm" --serial-log "$work/serial.log" --out "$out" \
    --prefix 'guest| ' --timeout 1500 ||
    kv_fail "the guest did not complete its three boots (see above)"
t2=$(date +%s)

echo "--- timing"
echo "Debian tree (cached unless the first run): $((t1 - t0)) s"
echo "stage, image, three boots through GRUB: $((t2 - t1)) s"
grep -a 'KDT-DEB: boot [0-9]: ' "$work/serial.log" | tr -d '\r' || true

fails=0
bad()
{
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# show NAME: a guest command's status, stdout and stderr
show()
{
	echo "--- $1: exit $(cat "$out/$1.status" 2>/dev/null || echo '(did not run)')"
	cat "$out/$1.stdout" "$out/$1.stderr" 2>/dev/null
}

status()
{
	cat "$out/$1.status" 2>/dev/null || echo none
}

# ---- boot 1: README walkthrough block 1 (kdt -A -s boot.d)
show A1
[ "$(status A1)" = 0 ] || kv_fail "README walkthrough boot 1 exited $(status A1) in the guest"
grep -q '^kdt -A: plan (dry run, nothing changes)' "$out/A1.stdout" ||
    bad "kdt -A --dry-run did not print its plan ('kdt -A: plan (dry run...')"
for w in /etc/default/grub.d/kdt.cfg update-initramfs update-grub; do
	grep -qF -- "$w" "$out/A1.stdout" ||
	    bad "kdt -A's plan on stdout does not name $w"
done
grep -q 'kdt\.anon=1' "$out/kdt.cfg" 2>/dev/null ||
    bad "/etc/default/grub.d/kdt.cfg missing or without kdt.anon=1"
linux=$(grep -E '^[[:space:]]*linux[[:space:]]' "$out/grub.cfg.installed" | head -1)
echo "--- grub.cfg after kdt -A: $linux"
case "$linux" in
*kdt.anon=1*memmap=*|*memmap=*kdt.anon=1*) ;;
*) bad "update-grub did not put kdt.anon=1 and memmap= on the guest's linux line" ;;
esac
case "$linux" in
*init=/sbin/kdt-test-init*) ;;
*) bad "the guest's own drop-in (init=) is gone from the linux line" ;;
esac
echo "--- initramfs entries kdt -A added / removed:"
diff "$out/initrd.before" "$out/initrd.installed" | grep '^[<>]' || true
added=$(diff "$out/initrd.before" "$out/initrd.installed" | sed -n 's/^> //p' || true)
grep -q 'kdt\.ko$' <<<"$added" || bad "kdt.ko is not in the new initramfs"
grep -q 'init-top/.*kdt' <<<"$added" || bad "no kdt init-top script in the new initramfs"
grep -qi 'dof' <<<"$added" || bad "no DOF in the new initramfs"
if diff "$out/initrd.before" "$out/initrd.installed" | grep -q '^<'; then
	bad "kdt -A removed entries from the initramfs"
fi

# ---- boot 2: the records
cmd2=$(cat "$out/cmdline.2" 2>/dev/null) || kv_fail "no second boot"
echo "--- boot 2 command line: $cmd2"
re='kdt\.region=([0-9]+[KMG]?)@(0x[0-9a-f]+)'
[[ " $cmd2 " == *" kdt.anon=1 "* ]] || bad "boot 2: no kdt.anon=1 on the command line"
if [[ $cmd2 =~ $re ]]; then
	size=${BASH_REMATCH[1]} addr=${BASH_REMATCH[2]}
	[[ " $cmd2 " == *" memmap=$size\$$addr "* ]] ||
	    bad "boot 2: no memmap=$size\$$addr matching kdt.region=$size@$addr (GRUB expanded the \$?)"
else
	bad "boot 2: no kdt.region=SIZE@ADDR on the command line"
fi
grep -q '^kdt ' "$out/lsmod.2" || bad "boot 2: kdt.ko is not loaded"
# kdt -A ran as root on the kernel it installed for: it wrote kernel
# symbol hints from /proc/kallsyms, the initramfs carried them, and kdt.ko
# found do_init_module through them (kmod/kd_fbt.c, common/ksh.h)
grep -q 'kdt: fbt: kernel symbol hints for 1 functions' "$out/dmesg.2" &&
    ! grep -q 'kernel symbol hints not used' "$out/dmesg.2" ||
    bad "boot 2: kdt.ko did not take the kernel symbol hints kdt -A wrote"
grep -a 'kdt' "$out/dmesg.2" | head -10 || true

show a2
grep -a 'Ctrl-C: SIGINT to [0-9]* (kdt -a' "$work/serial.log" | tr -d '\r' ||
    bad "the ^C did not reach README walkthrough boot 2's kdt -a"
if [ "$(status a2)" != 0 ]; then
	bad "README walkthrough boot 2 (kdt -a, then ^C) exited $(status a2)"
else
	kv_compare "$out/a2.stdout" "$here/tst.anon-debian.out" ||
	    bad "kdt -a did not print tst.anon-debian.out's records"
	# Every module in the guest was loaded by the initramfs after
	# kdt.ko: each must have its record, once.
	sed -n 's/.* init module \([^ ]*\)$/\1/p' "$out/a2.stdout" | sort > "$work/traced"
	awk 'NR > 1 && $1 != "kdt" { print $1 }' "$out/lsmod.2" | sort > "$work/lsmod"
	diff -u --label 'lsmod (boot 2)' --label 'kdt -ae records' \
	    "$work/lsmod" "$work/traced" ||
	    bad "the records are not the modules loaded after kdt.ko"
fi
show a2again
[ "$(status a2again)" = 1 ] && grep -q 'claim' "$out/a2again.stderr" ||
    bad "kdt -ae after kdt -a was not refused with a reason about the claim"

show R2
[ "$(status R2)" = 0 ] || bad "README walkthrough boot 3 (kdt -A removal) exited $(status R2)"
grep -qF /etc/default/grub.d/kdt.cfg "$out/R2.stdout" ||
    bad "kdt -A (removal) does not say it removed /etc/default/grub.d/kdt.cfg"
diff -u --label 'before kdt -A' --label 'after kdt -A removal' \
    "$out/files.before" "$out/files.removed" ||
    bad "kdt -A removal left the file tree different from before kdt -A"
diff -u --label 'before kdt -A' --label 'after kdt -A removal' \
    "$out/grub.cfg.before" "$out/grub.cfg.removed" ||
    bad "the guest's grub.cfg after the removal differs from before kdt -A"
diff -u --label 'before kdt -A' --label 'after kdt -A removal' \
    "$out/initrd.before" "$out/initrd.removed" ||
    bad "the initramfs after the removal differs from before kdt -A"

# ---- boot 3: nothing left
cmd3=$(cat "$out/cmdline.3" 2>/dev/null) || kv_fail "no third boot"
echo "--- boot 3 command line: $cmd3"
if [[ " $cmd3 " =~ \ (kdt\.|memmap=) ]]; then
	bad "boot 3: kdt words still on the command line"
fi
if grep -q '^kdt ' "$out/lsmod.3"; then
	bad "boot 3: kdt.ko is loaded"
fi
show a3
if [ "$(status a3)" != 1 ]; then
	bad "kdt -a with no enabling exited $(status a3), want 1"
	echo "--- boot 3's kernel log after it:"
	grep -A40 -E 'soft lockup|BUG|Oops|WARNING' "$out/dmesg.3.end" 2>/dev/null | head -80 || true
fi
[ "$(wc -l < "$out/a3.stderr")" = 1 ] && grep -q '^kdt: no anonymous state' "$out/a3.stderr" ||
    bad "kdt -a with no enabling: want one line 'kdt: no anonymous state...'"
if [ -s "$out/a3.stdout" ]; then
	bad "kdt -a with no enabling printed on stdout"
fi

[ "$fails" = 0 ] || kv_fail "$fails check(s) failed"
echo "PASS"
