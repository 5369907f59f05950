#!/usr/bin/env bash
#
# tst.pkg-deb: the Debian packages (issue 9) in a clean Debian 12 root.
# `make deb`'s debian/mkdeb builds kdt and kdt-dkms from this tree; the
# root (tst.pkg-deb.mkroot: minbase, initramfs-tools, dkms, the pinned
# kernel and its headers; cached in /var/cache/kdt) is copied for this
# run, and in it, chrooted with /proc, /sys and /dev mounted in a private
# mount namespace (as tests/vm/mkdebian runs apt):
#
#   1. dpkg -i kdt-dkms kdt: DKMS builds kdt.ko for the pinned kernel
#      (the package's postinst); the tools, man pages and completion are
#      there, and kdt runs;
#   2. kdt -A --root (the packaged kdt, run from the host on the root, as
#      tst.anon-dracut does) installs a BEGIN enabling with DKMS's kdt.ko:
#      update-initramfs runs in the root and the initramfs carries kdt.ko,
#      the DOF and the boot script (lsinitramfs); no GRUB in the root, so
#      kdt -A exits 1 with one "NOT done" line;
#   3. dpkg -i a second kernel and its headers from the archive (KVER2 of
#      tst.pkg-deb.mkroot, an older ABI of the same series), as a kernel
#      update arrives: DKMS's kernel hook builds kdt.ko for it, `dkms
#      status` lists kdt installed for both kernels, each kdt.ko's
#      vermagic names its kernel, and the new kernel's initramfs (made by
#      its postinst, after DKMS's hook) carries the enabling with DKMS's
#      kdt.ko, which kdt's initramfs-tools hook takes when kdt -A made no
#      copy for the kernel;
#   3b. QEMU boots the new kernel with that initramfs (no root disk; in
#      the background, during steps 4 and 5): DKMS's kdt.ko loads from
#      the init-top script and the enabling's probe is enabled;
#   4. kdt -A --root again: now it finds DKMS's kdt.ko for both kernels;
#   5. dpkg -r kdt: its prerm runs kdt -A (removal): the hook, the boot
#      script and /var/lib/kdt/anon go, and neither initramfs carries
#      kdt.ko any more; then dpkg -r kdt-dkms: DKMS removes kdt.ko from
#      both kernels and /usr/src/kdt-VERSION goes; dpkg --purge kdt
#      leaves no /var/lib/kdt.
#
# The boot stops in the initramfs: the whole path through GRUB to kdt -a
# in the booted system is tst.anon-debian's.
#
# Measured on the shared 2-core host: 2.5 min (make deb 41 s, the
# packages with DKMS's first build 22 s, the second kernel with its DKMS
# build 24 s, the kdt -A runs 2-11 s, the removals 18 s, the boot's
# remainder 24 s); twice that when the host is busiest.  The first run on
# a clean machine also builds the root (~2 min, then cached).
#
. "$(dirname "$0")/../lib.sh"

here="$KV_TOP/tests/vm/scenarios"
. "$KV_TOP/mk/versions.sh"
for t in unshare chroot dpkg-buildpackage dh_dkms qemu-system-x86_64; do
	command -v "$t" >/dev/null || kv_fail "$t not found (run 'make deps')"
done
work=$(mktemp -d "$KV_TOP/build/vm-pkg-deb.XXXXXX")
qemu=
# KDT_KEEP_WORK=1 keeps the run's files (logs, the stage).
cleanup()
{
	if [ -n "$qemu" ]; then
		kill "$qemu" 2>/dev/null
		wait "$qemu" 2>/dev/null
	fi
	if [ "${KDT_KEEP_WORK:-0}" = 1 ]; then
		echo "kept $work"
	else
		rm -rf --one-file-system "$work"
	fi
}
trap cleanup EXIT

fails=0
bad()
{
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# dpkg runs with --force-unsafe-io (no fsync per file: the stage is
# thrown away), which keeps unpacking a kernel's thousands of files quick.
#
# Run "$@" chrooted in the stage with /proc, /sys and /dev mounted for it
# alone; output to stdout.
in_root()
{
	unshare --mount --propagation private sh -c '
		stage=$1
		shift
		mount -t proc proc "$stage/proc" &&
		mount -t sysfs sysfs "$stage/sys" &&
		mount --bind /dev "$stage/dev" &&
		exec chroot "$stage" /usr/bin/env -i \
		    PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C \
		    DEBIAN_FRONTEND=noninteractive "$@"
	' sh "$stage" "$@"
}

# ---- the packages and the root
t0=$(date +%s)
version=$(cat "$KV_TOP/VERSION")
"$KV_TOP/debian/mkdeb" "$work/deb" > "$work/mkdeb.out" 2>&1 ||
    kv_fail "debian/mkdeb failed: $(tail -5 "$work/mkdeb.out")"
for p in "kdt_${version}_amd64" "kdt-dkms_${version}_all"; do
	[ -s "$work/deb/$p.deb" ] || kv_fail "make deb wrote no $p.deb"
done
t1=$(date +%s)
cache=$("$here/tst.pkg-deb.mkroot" | tail -1) || kv_fail "tst.pkg-deb.mkroot failed"
kver2=$(cat "$cache/kver2")
stage="$work/stage"
# A hard-link farm, except for where dpkg, DKMS, depmod and
# update-initramfs write in place: /etc, /boot and /var are real copies,
# so nothing in the cached tree changes.
cp -al "$cache/rootfs" "$stage" || kv_fail "cp -al $cache/rootfs $stage failed"
for d in etc boot var; do
	rm -rf "${stage:?}/$d"
	cp -a "$cache/rootfs/$d" "$stage/$d" || kv_fail "cp -a $cache/rootfs/$d failed"
done
mkdir -p "$stage/tmp/debs" "$stage/tmp/kernel2"
cp "$work/deb/kdt_${version}_amd64.deb" "$work/deb/kdt-dkms_${version}_all.deb" \
    "$stage/tmp/debs/"
cp "$cache"/kernel2/*.deb "$stage/tmp/kernel2/"
t2=$(date +%s)

# ---- 1. kdt-dkms and kdt
echo "--- dpkg -i kdt-dkms kdt"
in_root dpkg --force-unsafe-io -i "/tmp/debs/kdt-dkms_${version}_all.deb" \
    "/tmp/debs/kdt_${version}_amd64.deb" > "$work/install.out" 2>&1 ||
    kv_fail "dpkg -i kdt-dkms kdt failed: $(tail -15 "$work/install.out")"
grep -E '^(Setting up|Building|Installing|DKMS|Deleting)' "$work/install.out" || true
for f in usr/bin/kdt usr/bin/kdt-extract usr/bin/kdt-initrd \
    usr/lib/crash/extensions/kdt.so usr/share/man/man1/kdt.1.gz \
    usr/share/man/man1/kdt-extract.1.gz usr/share/man/man4/kdt.ko.4.gz \
    usr/share/bash-completion/completions/kdt \
    "usr/src/kdt-$version/dkms.conf" "usr/src/kdt-$version/kd_main.c" \
    "usr/src/kdt-$version/Kbuild"; do
	[ -e "$stage/$f" ] || bad "/$f: not installed by the packages"
done
in_root kdt --help > "$work/help.out" 2>&1 || bad "kdt --help in the root exited $?"
tail -1 "$work/help.out" | grep -qx 'See kdt(1).' || bad "kdt --help does not end with 'See kdt(1).'"
in_root kdt -q -n 'BEGIN { printf("kdt %d\n", 6 * 7); exit(0); }' > "$work/run.out" 2>&1 ||
    bad "kdt -n BEGIN in the root exited $?: $(cat "$work/run.out")"
grep -qx 'kdt 42' "$work/run.out" || bad "kdt -n BEGIN printed '$(cat "$work/run.out")', want 'kdt 42'"
t3=$(date +%s)

# kdt -A --root with the packaged kdt (run from the host on the root, as
# tst.anon-dracut does): $1 the kernels it must find DKMS's kdt.ko for.
# No GRUB in the root, so it exits 1 with one "NOT done" line.
kdt_A()
{
	local st=0 k

	unshare --mount --propagation private sh -c '
		stage=$1
		shift
		mount -t proc proc "$stage/proc" &&
		mount -t sysfs sysfs "$stage/sys" &&
		mount --bind /dev "$stage/dev" &&
		exec "$@"
	' sh "$stage" "$stage/usr/bin/kdt" -A -n 'BEGIN { trace("kdt-pkg"); }' \
	    --root "$stage" > "$work/A.out" 2> "$work/A.err" || st=$?
	sed "s|$stage|ROOT|g" "$work/A.out" "$work/A.err" | grep -E '^(  kernel|ran|NOT|kdt:)' || true
	[ "$st" = 1 ] || bad "kdt -A --root exited $st, want 1 (no GRUB in the root)"
	[ "$(grep -c '^NOT done' "$work/A.out")" = 1 ] && grep -q '^NOT done: no GRUB in ' "$work/A.out" ||
	    bad "kdt -A: want exactly one NOT done line, the one about GRUB"
	for k in $1; do
		cmp -s "$stage/var/lib/kdt/anon/modules/$k/kdt.ko" \
		    "$stage/lib/modules/$k/updates/dkms/kdt.ko" ||
		    bad "kdt -A did not install DKMS's kdt.ko of $k"
		initrd_has "$k" "after kdt -A"
	done
	for f in etc/initramfs-tools/hooks/kdt etc/initramfs-tools/scripts/init-top/00kdt \
	    var/lib/kdt/anon/manifest var/lib/kdt/anon/anon.dof; do
		[ -f "$stage/$f" ] || bad "kdt -A did not write /$f"
	done
}

# The initramfs of kernel $1 carries kdt.ko, the DOF and the boot script.
initrd_has()
{
	local e

	in_root lsinitramfs "/boot/initrd.img-$1" > "$work/lsinitramfs.$1" 2>&1 ||
	    bad "lsinitramfs /boot/initrd.img-$1 failed"
	for e in lib/modules/kdt.ko lib/firmware/kdt/anon.dof scripts/init-top/00kdt; do
		grep -qx "$e\|usr/$e" "$work/lsinitramfs.$1" ||
		    bad "the initramfs of $1 has no $e $2"
	done
}

# ---- 2. kdt -A: the pinned kernel's DKMS kdt.ko
echo "--- kdt -A --root (one kernel)"
kdt_A "$KVER"
t4=$(date +%s)

# ---- 3. a second kernel, as an update would bring it
echo "--- dpkg -i linux-image-$kver2 linux-headers-$kver2"
in_root sh -c 'dpkg --force-unsafe-io -i /tmp/kernel2/*.deb' > "$work/kernel2.out" 2>&1 ||
    kv_fail "dpkg -i the $kver2 packages failed: $(tail -15 "$work/kernel2.out")"
grep -E '^dkms|Installing to|kdt' "$work/kernel2.out" || true
t5=$(date +%s)
echo "--- dkms status"
in_root dkms status > "$work/dkms.out" 2>&1 || bad "dkms status exited $?"
cat "$work/dkms.out"
for k in "$KVER" "$kver2"; do
	grep -q "^kdt/$version, $k, x86_64: installed" "$work/dkms.out" ||
	    bad "dkms status: kdt/$version is not installed for $k"
	ko="$stage/lib/modules/$k/updates/dkms/kdt.ko"
	if [ ! -f "$ko" ]; then
		bad "/lib/modules/$k/updates/dkms/kdt.ko: not there"
		continue
	fi
	vm=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
	echo "kdt.ko for $k: vermagic $vm"
	[ "$vm" = "$k" ] || bad "kdt.ko in /lib/modules/$k has vermagic $vm"
	grep -q 'updates/dkms/kdt.ko' "$stage/lib/modules/$k/modules.dep" ||
	    bad "depmod did not list kdt.ko in /lib/modules/$k/modules.dep"
done
# The new kernel's initramfs (its postinst ran update-initramfs after
# DKMS's hook built kdt.ko): the hook took DKMS's kdt.ko, as kdt -A made
# no copy for a kernel that was not there.
[ ! -e "$stage/var/lib/kdt/anon/modules/$kver2" ] ||
    bad "/var/lib/kdt/anon/modules/$kver2 exists before kdt -A saw $kver2"
initrd_has "$kver2" "after its installation (the hook did not take DKMS's kdt.ko)"

# ---- 3b. boot the new kernel with that initramfs (in the background,
# while steps 4 and 5 run): its init-top script loads DKMS's kdt.ko with
# the kernel words and the enabling starts.  No root disk: the initramfs
# gives up on root=/dev/vdz after 30 s and, with panic=, reboots,
# which ends QEMU (-no-reboot).  The region goes at 256 MiB, which a
# 1 GiB guest has (kdt -A placed it from this host's memory map).
re='kdt\.region=([0-9]+[KMG])@'
[[ $(cat "$stage/var/lib/kdt/anon/cmdline") =~ $re ]] ||
    kv_fail "no kdt.region=SIZE@ADDR in /var/lib/kdt/anon/cmdline"
rsize=${BASH_REMATCH[1]}
cp "$stage/boot/vmlinuz-$kver2" "$stage/boot/initrd.img-$kver2" "$work/"
timeout 240 qemu-system-x86_64 -accel tcg,thread=single -cpu max -m 1024 -smp 2 \
    -display none -monitor none -no-reboot -serial "file:$work/boot.log" \
    -kernel "$work/vmlinuz-$kver2" -initrd "$work/initrd.img-$kver2" \
    -append "console=ttyS0 loglevel=7 panic=1 root=/dev/vdz rootdelay=1 kdt.anon=1 kdt.region=$rsize@0x10000000 memmap=$rsize\$0x10000000" \
    > "$work/qemu.out" 2>&1 &
qemu=$!

# ---- 4. kdt -A again: both kernels now
echo "--- kdt -A --root (both kernels)"
kdt_A "$KVER $kver2"
t6=$(date +%s)

# ---- 5. removal
echo "--- dpkg -r kdt"
in_root dpkg -r kdt > "$work/rm-kdt.out" 2>&1 ||
    bad "dpkg -r kdt failed: $(tail -10 "$work/rm-kdt.out")"
grep -E '^kdt|^removed|^Removing' "$work/rm-kdt.out" || true
for f in etc/initramfs-tools/hooks/kdt etc/initramfs-tools/scripts/init-top/00kdt \
    etc/default/grub.d/kdt.cfg var/lib/kdt/anon usr/bin/kdt; do
	[ ! -e "$stage/$f" ] || bad "/$f is still there after dpkg -r kdt"
done
for k in "$KVER" "$kver2"; do
	in_root lsinitramfs "/boot/initrd.img-$k" > "$work/lsinitramfs2.$k" 2>&1 ||
	    bad "lsinitramfs /boot/initrd.img-$k failed after the removal"
	! grep -q 'kdt\.ko$\|/kdt/\|00kdt$' "$work/lsinitramfs2.$k" ||
	    bad "the initramfs of $k still carries kdt after dpkg -r kdt: $(grep 'kdt\.ko$\|/kdt/\|00kdt$' "$work/lsinitramfs2.$k" | tr '\n' ' ')"
done
echo "--- dpkg -r kdt-dkms; dpkg --purge kdt"
in_root dpkg -r kdt-dkms > "$work/rm-dkms.out" 2>&1 ||
    bad "dpkg -r kdt-dkms failed: $(tail -10 "$work/rm-dkms.out")"
in_root dpkg --purge kdt > "$work/purge.out" 2>&1 ||
    bad "dpkg --purge kdt failed: $(tail -10 "$work/purge.out")"
for k in "$KVER" "$kver2"; do
	[ ! -e "$stage/lib/modules/$k/updates/dkms/kdt.ko" ] ||
	    bad "/lib/modules/$k/updates/dkms/kdt.ko is still there after dpkg -r kdt-dkms"
done
for f in "usr/src/kdt-$version" var/lib/dkms/kdt var/lib/kdt; do
	[ ! -e "$stage/$f" ] || bad "/$f is still there after removing both packages"
done
in_root dkms status > "$work/dkms2.out" 2>&1 || true
! grep -q '^kdt' "$work/dkms2.out" || bad "dkms status still lists kdt: $(cat "$work/dkms2.out")"
t7=$(date +%s)

echo "--- boot of $kver2 (QEMU, started after step 3)"
qst=0
wait "$qemu" || qst=$?
qemu=
t8=$(date +%s)
tr -d '\r' < "$work/boot.log" > "$work/console"
grep -E "Linux version|kdt:" "$work/console" | sed 's/^\[[ 0-9.]*\] //' || true
[ "$qst" = 0 ] || bad "qemu exited $qst (124: the guest did not reboot in 240 s)"
grep -q "Linux version $kver2 " "$work/console" || bad "the guest did not boot $kver2"
grep -q 'kdt: probes enabled: 1 of 1 matched' "$work/console" ||
    bad "$kver2's initramfs did not load DKMS's kdt.ko and start the enabling (no 'kdt: probes enabled: 1 of 1 matched')"
! grep -q 'kdt: anonymous enabling dropped' "$work/console" ||
    bad "the enabling was dropped: $(grep 'enabling dropped' "$work/console")"

echo "--- timing"
echo "make deb: $((t1 - t0)) s"
echo "root (cached unless the first run) and copy: $((t2 - t1)) s"
echo "dpkg -i kdt-dkms kdt (DKMS build for $KVER): $((t3 - t2)) s"
echo "kdt -A --root, one kernel: $((t4 - t3)) s"
echo "dpkg -i $kver2 (DKMS build, initramfs): $((t5 - t4)) s"
echo "kdt -A --root, both kernels: $((t6 - t5)) s"
echo "removal (update-initramfs x2, dkms remove): $((t7 - t6)) s"
echo "waiting for the boot of $kver2 after that: $((t8 - t7)) s"

[ "$fails" = 0 ] || kv_fail "$fails check(s) failed"
echo "PASS"
