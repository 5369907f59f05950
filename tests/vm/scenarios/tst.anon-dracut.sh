#!/usr/bin/env bash
#
# tst.anon-dracut: kdt -A on a root whose initramfs is dracut's (issue 5).
# A Debian 12 root with dracut instead of initramfs-tools and the pinned
# kernel (tst.anon-dracut.mkroot; cached in /var/cache/kdt) is copied for
# this run, and kdt is installed into it with `make install DESTDIR=STAGE`
# (the tools under /usr/local, kdt's dracut module 90kdt, boot/dracut/,
# under /usr/lib/dracut/modules.d); on the host,
#
#   kdt -A -s tst.anon-dracut.d --root STAGE --module build/kmod/kdt.ko
#
# writes the enabling's state (/var/lib/kdt/anon) and runs `chroot STAGE
# dracut -f --kver KVER`, whose 90kdt puts it into the initramfs -- inside
# a private mount namespace with /proc, /sys and /dev mounted in the
# stage, as tests/vm/mkdebian runs apt, so nothing stays mounted.  The root has no GRUB, so kdt -A exits 1 with one "NOT done"
# line giving the kernel words (also in /var/lib/kdt/anon/cmdline).  Then
# QEMU boots the stage's kernel and new initramfs directly (-kernel/-initrd:
# GRUB is tst.anon-grub's and tst.anon-debian's) from an ext4 image of the
# stage, with those words plus root=/dev/vda and init=/sbin/kdt-test-init
# (tst.anon-dracut.init), which runs kdt -ae and prints the evidence on
# the console.  The region's address is kdt -A's choice from this host's
# /proc/iomem (what --root does: it installs for this machine), so the
# guest gets RAM there.  Judged here:
#
#   - kdt -A ran dracut -f in the root with exit 0 and wrote nothing under
#     /usr/lib/dracut; the new initramfs (lsinitrd) carries kdt.ko, the
#     DOF, kdt-load.sh and the cmdline hook;
#   - once the guest's disk image and initramfs are made, `kdt -A --root
#     STAGE` with no program removes the state, leaves 90kdt, and exits
#     0; its dracut -f says nothing of kdt (the module is silent without
#     an enabling) and the initramfs it makes has no kdt.ko, DOF or hook;
#   - the guest booted with kdt.anon=1 and had kdt.ko loaded (by the
#     cmdline hook: the root has no systemd, so dracut's initramfs is the
#     shell one and kdt-load.service is not in it);
#   - kdt -ae exits 0 and prints the BEGIN record and one record per
#     module the initramfs loaded (tst.anon-dracut.out, CPU column
#     masked, sorted), and those are exactly the modules lsmod shows
#     besides kdt: every module was loaded after kdt.ko, none before.
#
# Measured on the loaded 2-core host: ~90 s (copy, make install and kdt -A
# with dracut 27 s, image 11 s, the removal with dracut 19 s, boot to
# power-off 32 s), 150 s when the host is busiest; the first run on a
# clean machine also builds the root tree (~1 min, then cached).
#
. "$(dirname "$0")/../lib.sh"

here="$KV_TOP/tests/vm/scenarios"
. "$KV_TOP/mk/versions.sh"
for f in "$KV_KDT" "$KV_KMOD" "$KV_TOP/build/kernel/vmlinux"; do
	[ -f "$f" ] || kv_fail "${f#$KV_TOP/}: missing (run 'make' and 'make kernel')"
done
for t in qemu-system-x86_64 mke2fs unshare chroot; do
	command -v "$t" >/dev/null || kv_fail "$t not found (run 'make deps')"
done
work=$(mktemp -d "$KV_TOP/build/vm-anon-dracut.XXXXXX")
# KDT_KEEP_WORK=1 keeps the run's files (serial log, kdt -A's output).
if [ "${KDT_KEEP_WORK:-0}" = 1 ]; then
	trap 'echo "kept $work"' EXIT
else
	trap 'rm -rf --one-file-system "$work"' EXIT
fi

fails=0
bad()
{
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# ---- the root: cached tree, copied for this run
t0=$(date +%s)
rootfs=$("$here/tst.anon-dracut.mkroot" | tail -1) ||
    kv_fail "tst.anon-dracut.mkroot failed"
t1=$(date +%s)
stage="$work/stage"
# A hard-link farm, except for what kdt -A and dracut write: /etc, /boot
# and /var are real copies, so nothing in the cached tree changes (dracut
# overwrites the initrd in place).
cp -al "$rootfs" "$stage" || kv_fail "cp -al $rootfs $stage failed"
for d in etc boot var; do
	rm -rf "${stage:?}/$d"
	cp -a "$rootfs/$d" "$stage/$d" || kv_fail "cp -a $rootfs/$d failed"
done
make -s -C "$KV_TOP" install DESTDIR="$stage" > "$work/install.out" 2>&1 ||
    kv_fail "make install DESTDIR=$stage failed: $(tail -5 "$work/install.out")"
dm=/usr/lib/dracut/modules.d/90kdt
for f in module-setup.sh kdt-load.sh kdt-load.service; do
	[ -f "$stage$dm/$f" ] || kv_fail "make install did not write $dm/$f"
done
[ -x "$stage/usr/local/bin/kdt" ] || kv_fail "make install did not write /usr/local/bin/kdt"
install -D -m 755 "$here/tst.anon-dracut.init" "$stage/sbin/kdt-test-init"

# Run "$@" with the stage's /proc, /sys and /dev mounted, in a private
# mount namespace (nothing stays mounted).
in_stage()
{
	unshare --mount --propagation private sh -c '
		stage=$1
		shift
		mount -t proc proc "$stage/proc" &&
		mount -t sysfs sysfs "$stage/sys" &&
		mount --bind /dev "$stage/dev" &&
		exec "$@"
	' sh "$stage" "$@"
}

# ---- kdt -A --root, dracut -f in the chroot
st=0
in_stage "$KV_KDT" -A -s "$here/tst.anon-dracut.d" --root "$stage" \
    --module "$KV_KMOD" --btf="$KV_TOP/build/kernel/vmlinux" \
    > "$work/A.stdout" 2> "$work/A.stderr" || st=$?
t2=$(date +%s)
echo "--- kdt -A --root: exit $st"
grep -v '^dracut: ' "$work/A.stdout" "$work/A.stderr" || true
# The root has no GRUB, so kdt -A does everything but the boot loader and
# exits 1 with one "NOT done" line giving the kernel words.
[ "$st" = 1 ] || kv_fail "kdt -A -s tst.anon-dracut.d --root $stage exited $st, want 1 (no GRUB)"
[ "$(grep -c '^NOT done' "$work/A.stdout")" = 1 ] &&
    grep -q '^NOT done: no GRUB in ' "$work/A.stdout" ||
    kv_fail "kdt -A: want exactly one NOT done line, the one about GRUB"
grep -q "^ran: chroot $stage dracut -f --kver $KVER: exit status 0" "$work/A.stdout" ||
    kv_fail "kdt -A did not run dracut -f --kver $KVER in the root successfully"
! grep -q "^wrote: .*/usr/lib/dracut" "$work/A.stdout" ||
    bad "kdt -A wrote into /usr/lib/dracut: $(grep "^wrote: .*/usr/lib/dracut" "$work/A.stdout")"
grep -q "Including module: kdt " "$work/A.stdout" "$work/A.stderr" ||
    bad "dracut did not include the module kdt (no 'Including module: kdt')"
for w in 90kdt dracut; do
	grep -qF -- "$w" "$work/A.stdout" || bad "kdt -A's plan on stdout does not name $w"
done
initrd="$stage/boot/initrd.img-$KVER"
if chroot "$stage" lsinitrd "/boot/initrd.img-$KVER" > "$work/lsinitrd" 2>&1; then
	for e in lib/modules/kdt.ko lib/firmware/kdt/anon.dof lib/kdt/kdt-load.sh \
	    'hooks/cmdline/00-kdt-load.sh'; do
		grep -q -- "$e" "$work/lsinitrd" || bad "the new initramfs has no $e"
	done
else
	bad "lsinitrd /boot/initrd.img-$KVER failed: $(tail -3 "$work/lsinitrd")"
fi
words=$(cat "$stage/var/lib/kdt/anon/cmdline") ||
    kv_fail "kdt -A wrote no /var/lib/kdt/anon/cmdline"
echo "--- the kernel words: $words"

# The region's address is kdt -A's choice from this host's /proc/iomem
# (--root installs for a system of this machine): give the guest RAM
# there.  QEMU's pc machine keeps 3 GiB below 4 GiB and the rest above
# once it has 3.5 GiB or more.
re='kdt\.region=([0-9]+)M@(0x[0-9a-f]+)'
[[ $words =~ $re ]] || kv_fail "no kdt.region=SIZEM@ADDR in the kernel words"
end=$(( ${BASH_REMATCH[2]} / 1048576 + ${BASH_REMATCH[1]} ))
if [ "$end" -le 2816 ]; then
	mem=$(( end + 256 > 1024 ? end + 256 : 1024 ))
elif [ $(( ${BASH_REMATCH[2]} / 1048576 )) -ge 4096 ]; then
	mem=$(( 3072 + end - 4096 + 256 ))
	[ "$mem" -ge 3584 ] || mem=3584
else
	kv_fail "kdt.region=${BASH_REMATCH[1]}M@${BASH_REMATCH[2]} lies where QEMU has no guest RAM"
fi
echo "--- guest memory: $mem MiB"

du=$(du -sm "$stage" | cut -f1)
mke2fs -q -t ext4 -L kdt-dracut -d "$stage" "$work/disk.img" "$((du + 128))M" ||
    kv_fail "mke2fs -d $stage failed"
cp "$stage/boot/vmlinuz-$KVER" "$initrd" "$work/"
t3=$(date +%s)

# ---- kdt -A --root with no program: the state goes, 90kdt stays silent
st=0
in_stage "$KV_KDT" -A --root "$stage" > "$work/R.stdout" 2> "$work/R.stderr" || st=$?
echo "--- kdt -A --root (remove): exit $st"
grep -v '^dracut: ' "$work/R.stdout" "$work/R.stderr" || true
[ "$st" = 0 ] || bad "kdt -A --root $stage (remove) exited $st, want 0"
grep -q "^ran: chroot $stage dracut -f --kver $KVER: exit status 0" "$work/R.stdout" ||
    bad "the removal did not run dracut -f --kver $KVER in the root successfully"
[ ! -e "$stage/var/lib/kdt/anon" ] || bad "the removal left /var/lib/kdt/anon"
for f in module-setup.sh kdt-load.sh kdt-load.service; do
	cmp -s "$stage$dm/$f" "$KV_TOP/boot/dracut/$f" ||
	    bad "the removal changed or removed the installed $dm/$f"
done
# dracut's words about the module: its "Including module: kdt" and
# module-setup.sh's dwarn "kdt: ..." lines.
dk='Including module: kdt |dracut[^ ]*: kdt: |90kdt|module-setup'
! grep -Eq "$dk" "$work/R.stdout" "$work/R.stderr" ||
    bad "dracut spoke of kdt without an enabling: $(grep -Eh "$dk" "$work/R.stdout" "$work/R.stderr" | head -3)"
if chroot "$stage" lsinitrd "/boot/initrd.img-$KVER" > "$work/lsinitrd.R" 2>&1; then
	grep -q "lib/modules/$KVER/" "$work/lsinitrd.R" ||
	    bad "lsinitrd after the removal lists no kernel modules (not an initramfs?)"
	for e in lib/modules/kdt.ko lib/firmware/kdt lib/kdt/kdt-load.sh kdt-load; do
		! grep -q -- "$e" "$work/lsinitrd.R" ||
		    bad "the initramfs without an enabling still has $e"
	done
else
	bad "lsinitrd after the removal failed: $(tail -3 "$work/lsinitrd.R")"
fi
rm -rf --one-file-system "$stage"
t3r=$(date +%s)
qst=0
timeout 240 qemu-system-x86_64 -accel tcg,thread=single -cpu max -m "$mem" -smp 2 \
    -display none -monitor none -no-reboot -serial "file:$work/serial.log" \
    -drive "file=$work/disk.img,if=virtio,format=raw" \
    -kernel "$work/vmlinuz-$KVER" -initrd "$work/initrd.img-$KVER" \
    -append "$words root=/dev/vda rw console=ttyS0 loglevel=4 panic=-1 init=/sbin/kdt-test-init" \
    > "$work/qemu.out" 2>&1 || qst=$?
t4=$(date +%s)
tr -d '\r' < "$work/serial.log" | sed 's/^/guest| /'
[ "$qst" = 0 ] || bad "qemu exited $qst (124: no power-off in 240 s)"

echo "--- timing"
echo "root tree (cached unless the first run): $((t1 - t0)) s"
echo "copy, kdt -A --root with dracut -f: $((t2 - t1)) s"
echo "image: $((t3 - t2)) s"
echo "kdt -A --root (remove) with dracut -f: $((t3r - t3)) s"
echo "boot to power-off: $((t4 - t3r)) s"

con="$work/console"
tr -d '\r' < "$work/serial.log" > "$con"
grep -q '^KDT-DRACUT: done' "$con" || kv_fail "the guest's init did not finish"
cmd=$(sed -n 's/^KDT-DRACUT: cmdline //p' "$con")
[[ " $cmd " == *" kdt.anon=1 "* ]] || bad "no kdt.anon=1 on the guest's command line"
sed -n 's/^KDT-DRACUT: lsmod| //p' "$con" > "$work/lsmod"
grep -q '^kdt ' "$work/lsmod" || bad "kdt.ko is not loaded in the guest"
sed -n 's/^KDT-DRACUT: ae| //p' "$con" > "$work/ae"
ast=$(sed -n 's/^KDT-DRACUT: ae exit //p' "$con")
if [ "$ast" != 0 ]; then
	bad "kdt -ae exited ${ast:-(none)}"
else
	kv_compare "$work/ae" "$here/tst.anon-dracut.out" ||
	    bad "kdt -ae did not print tst.anon-dracut.out's records"
	sed -n 's/.* init module \([^ ]*\)$/\1/p' "$work/ae" | sort > "$work/traced"
	awk 'NR > 1 && $1 != "kdt" { print $1 }' "$work/lsmod" | sort > "$work/loaded"
	diff -u --label 'lsmod' --label 'kdt -ae records' \
	    "$work/loaded" "$work/traced" ||
	    bad "the records are not the modules loaded after kdt.ko"
fi

[ "$fails" = 0 ] || kv_fail "$fails check(s) failed"
echo "PASS"
