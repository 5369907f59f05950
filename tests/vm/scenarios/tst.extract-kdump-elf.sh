#!/usr/bin/env bash
#
# tst.extract-kdump-elf: kdt-extract on a real "makedumpfile -E" ELF
# vmcore, written by a capture kernel (issue 6).  Its PT_LOADs are not
# /proc/vmcore's: makedumpfile -d 31 drops the excluded pages (free,
# cache, user, zero) and splits the kexec-described System RAM into many
# segments around them, and the memmap= region is not in it at all.
#
# Boot 1 traces examples/boot.d as an anonymous enabling (kdt.anon=1,
# crashkernel=256M), loads the demo modules, and starts a live session
# that stays running: "kdt -x bufpolicy=fill" traces every getppid() of
# /bin/gpl-A (NA calls, numbered by a thread-local counter); its buffers
# are vmalloc'd kernel memory, which kexec describes and -d 31 keeps.
# Then kexec -p (the same kernel, an initramfs made from the running one,
# as tst.extract-kdump-dir does) and a panic.  Boot 2, the capture kernel:
# no room for a ~100 MB ELF in its own RAM (crashkernel=256M; the write
# would exhaust it), so it writes to two virtio disks instead: the
# crashed kernel's region from /dev/kdt-previous (what kdt's kdump hook
# saves as kdt-region.img) onto the first, and "makedumpfile -F -E -d 31
# /proc/vmcore" (flattened ELF, makedumpfile(8) allows -F with -E) onto
# the second.  On the host "makedumpfile -R" turns that into the ELF
# file, placed as kdumpctl names it, DIR/vmcore, beside DIR/kdt-region.img:
#
#   (c) kdt-extract DIR/vmcore alone prints the live session, A 1..NA:
#       its page list and buffers come out of -E's filtered segments
#   (b) kdt-extract DIR says it takes the trace from kdt-region.img, that
#       the vmcore does not hold the region's phys, that the vmcore holds
#       one more region (the live session's), and prints region 1 of 2:
#       BEGIN and every module boot 1 loaded (tst.extract-kdump-dir.out),
#       and region 2 of 2: A 1..NA again
#   (d) kdt-extract on the disk's flattened -F -E stream itself (what
#       Debian's kdump-tools saves for -E) prints what (c) printed
#   (a) without kdt-region.img, kdt-extract --phys 0x10000000 DIR fails
#       (exit 1) naming the image it looked for and the hook that writes it
#
# -m 1024: in one run of four at -m 768 (tst.extract-kdump-dir's size)
# kexec -p failed with status 1 before any dump; the likely cause is that
# KASLR placed the kernel where no free 256 MiB block was left for
# crashkernel= beside the memmap= region and the initramfs.  A failing
# kexec -p now prints its messages and /proc/iomem's crash kernel line
# and ends the run at once instead of panicking without a capture kernel.
#
# 50-90 s on a loaded 2-core host (measured: 51, 57, 81 s): two boots, the -E
# run in the capture kernel (2-4 s, ~110 MB), nothing shipped over a
# serial port; makedumpfile -R and kdt-extract on the host take seconds.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
command -v kexec > /dev/null || kv_fail "kexec (kexec-tools) missing: run 'make deps'"
command -v makedumpfile > /dev/null ||
    kv_fail "makedumpfile missing: run 'make deps'"
work=$(mktemp -d "$KV_TOP/build/vm-kdump-elf.XXXXXX")
trap '[ -n "${KDT_KEEP:-}" ] || rm -rf "$work"' EXIT
NA=30
RPHYS=0x10000000	# kdt-vm's kdt.region=16M@0x10000000

gcc -static -O2 -o "$work/gpl" "$KV_PROGS/getppid-loop.c" ||
    kv_fail "cannot build the static getppid-loop"
printf '/bin/gpl-A %s\ntouch /tmp/A.done\nexec sleep 100000\n' "$NA" \
    > "$work/wA.sh"
P='syscall::getppid:entry /execname == "gpl-A"/ { printf("A %d\n", ++self->n); }'

cat > "$work/guest.sh" <<EOF
set +e
if [ -e /proc/vmcore ]; then
	echo "KDUMP: capture kernel"
	modprobe virtio_pci && modprobe virtio_blk
	i=0
	while [ ! -b /dev/vdb ] && [ \$i -lt 30 ]; do sleep 1; i=\$((i + 1)); done
	n=\$(cat /dev/kdt-previous | tee /dev/vda | wc -c)
	echo "KDUMP: region \$n bytes"
	t=\$(date +%s)
	makedumpfile -F -E -d 31 --message-level 6 /proc/vmcore > /dev/vdb 2> /tmp/mdf.err
	echo "KDUMP: makedumpfile rc=\$? (\$(( \$(date +%s) - t )) s)"
	sed 's/^/KDUMP: mdf: /' /tmp/mdf.err | grep -v '^KDUMP: mdf: *\$'
	sync
else
	kdt -q -x bufpolicy=fill -x bufsize=64k -n '$P' \\
	    -c '/bin/sh /wA.sh' > /tmp/A.out 2>&1 &
	i=0
	while [ ! -e /tmp/A.done ]; do
		i=\$((i + 1))
		[ \$i -lt 300 ] || { cat /tmp/A.out; exit 1; }
		sleep 1
	done
	find / -xdev ! -path /tmp/capture.cpio | cpio -o -H newc > /tmp/capture.cpio 2> /dev/null
	kexec -p /boot/vmlinuz --initrd=/tmp/capture.cpio \\
	    --append="\$(sed 's/crashkernel=[^ ]*//' /proc/cmdline) reset_devices nr_cpus=1 irqpoll usbcore.nousb" \\
	    > /tmp/kexec.log 2>&1
	rc=\$?
	echo "KDUMP: kexec -p rc=\$rc loaded=\$(cat /sys/kernel/kexec_crash_loaded)"
	if [ \$rc -ne 0 ]; then
		sed 's/^/KDUMP: kexec: /' /tmp/kexec.log
		ls -l /tmp/capture.cpio | sed 's/^/KDUMP: /'
		grep -i crash /proc/iomem | sed 's/^/KDUMP: iomem: /'
		exit 1
	fi
	echo c > /proc/sysrq-trigger
fi
EOF

truncate -s 64M "$work/region.disk"
truncate -s 1G "$work/vmcore.disk"
t0=$(date +%s)
"$KV_VM" --script "$KV_SCRIPT" --load "$KV_MODULES" --smp 1 --mem 1024 \
    --append crashkernel=256M --boots 2 --add-kdt \
    --modules virtio_pci,virtio_blk \
    --add-bin "$(command -v kexec):/sbin/kexec" \
    --add-bin "$(command -v makedumpfile):/usr/bin/makedumpfile" \
    --add "$(ls "$KV_TOP"/build/kernel/boot/vmlinuz-*):/boot/vmlinuz" \
    --add "$work/gpl:/bin/gpl-A" --add "$work/wA.sh:/wA.sh" \
    --add "$work/guest.sh:/guest.sh" --run 'sh /guest.sh' \
    --disk "$work/region.disk" --disk "$work/vmcore.disk" \
    --serial-log "$work/serial.log" \
    --workdir "$work/vm" --timeout 400 --quiet || {
	grep -a 'KDUMP\|kdt' "$work/serial.log" | tail -30
	kv_fail "the kdump boots failed"
}
echo "--- two boots and the dump: $(( $(date +%s) - t0 )) s"
grep -a '^KDUMP' "$work/serial.log"
grep -aq 'KDUMP: kexec -p rc=0 loaded=1' "$work/serial.log" ||
    kv_fail "kexec -p did not load the capture kernel"
grep -aq 'KDUMP: makedumpfile rc=0 ' "$work/serial.log" ||
    kv_fail "makedumpfile -F -E -d 31 failed in the capture kernel"
n=$(sed -n 's/^KDUMP: region \([0-9][0-9]*\) bytes.*/\1/p' \
    "$work/serial.log" | tr -d '\r')
[ -n "$n" ] && [ "$n" -gt 0 ] ||
    kv_fail "the capture kernel did not copy /dev/kdt-previous"

# The files as kdumpctl lays them out: DIR/vmcore, DIR/kdt-region.img
dir=$work/crash
mkdir -p "$dir"
head -c "$n" "$work/region.disk" > "$dir/kdt-region.img"
makedumpfile -R "$dir/vmcore" < "$work/vmcore.disk" > "$work/R.log" 2>&1 ||
    kv_fail "makedumpfile -R on the capture kernel's disk: $(cat "$work/R.log")"
# What makes -E's layout its own: many PT_LOADs, excluded pages dropped
python3 - "$dir/vmcore" <<'PY' || kv_fail "vmcore: not the ELF vmcore makedumpfile -E -d 31 writes"
import struct, sys
with open(sys.argv[1], "rb") as f:
    eh = f.read(64)
    if eh[:4] != b"\x7fELF" or struct.unpack_from("<H", eh, 16)[0] != 4:
        sys.exit("not an ELF core file")
    phoff, = struct.unpack_from("<Q", eh, 32)
    phentsize, phnum = struct.unpack_from("<HH", eh, 54)
    f.seek(phoff)
    ph = f.read(phentsize * phnum)
loads = [struct.unpack_from("<IIQQQQQ", ph, i * phentsize)
         for i in range(phnum)]
loads = [p for p in loads if p[0] == 1]
fsz = sum(p[5] for p in loads)
cut = sum(1 for p in loads if p[5] < p[6])
ov = sum(1 for a in loads for b in loads if a is not b and
         a[5] and b[5] and a[4] <= b[4] < a[4] + a[5])
print("vmcore: %d PT_LOADs, %d cut short by excluded pages, %d overlapping "
      "another (the kernel image's), %d MiB in the file" %
      (len(loads), cut, ov, fsz >> 20))
if cut == 0:
    sys.exit("no PT_LOAD has p_filesz < p_memsz: not filtered by -d 31")
if ov == 0:
    sys.exit("no PT_LOAD overlaps another: no kernel image PT_LOAD")
PY
ls -l "$dir"

# (c) the live session from the -E vmcore alone
rc=0
"$KV_EXTRACT" "$dir/vmcore" > "$work/c.out" 2> "$work/c.err" || rc=$?
echo "--- (c) kdt-extract vmcore: exit $rc; stderr:"
sed "s|$work/||g" "$work/c.err"
echo "--- stdout:"
cat "$work/c.out"
[ "$rc" -eq 0 ] || kv_fail "kdt-extract on the -E vmcore exited $rc"
seq 1 "$NA" | sed 's/^/A /' > "$work/A.want"
grep -v '^$' "$work/c.out" | cmp -s - "$work/A.want" ||
    kv_fail "kdt-extract on the -E vmcore did not print A 1..$NA (the live session) and nothing else"

# (d) the flattened stream itself, as makedumpfile -F -E wrote it (and as
# Debian's kdump-tools saves an -E dump: kdump-config always adds -F),
# zeros after its end marker: the same records as (c)
rc=0
"$KV_EXTRACT" "$work/vmcore.disk" > "$work/d.out" 2> "$work/d.err" || rc=$?
echo "--- (d) kdt-extract on the flattened -F -E stream: exit $rc; stderr:"
sed "s|$work/||g" "$work/d.err"
[ "$rc" -eq 0 ] || kv_fail "kdt-extract on the flattened -E stream exited $rc"
cmp -s "$work/c.out" "$work/d.out" ||
    kv_fail "kdt-extract on the flattened -E stream printed other records than on the ELF makedumpfile -R made of it"
rm -f "$work/vmcore.disk"

# (b) the dump directory: the image's trace, then the live session
rc=0
"$KV_EXTRACT" "$dir" > "$work/b.out" 2> "$work/b.err" || rc=$?
echo "--- (b) kdt-extract DIR: exit $rc; stderr:"
sed "s|$work/||g" "$work/b.err"
echo "--- stdout:"
cat "$work/b.out"
[ "$rc" -eq 0 ] || kv_fail "kdt-extract DIR exited $rc"
grep -q "^kdt-extract: $dir: the trace from kdt-region.img, the context from vmcore (ELF vmcore)" "$work/b.err" ||
    kv_fail "kdt-extract DIR did not name the image and the ELF vmcore"
grep -q "^kdt-extract: $dir/vmcore: does not hold the region's phys $RPHYS-" "$work/b.err" ||
    kv_fail "kdt-extract DIR did not say the -E vmcore lacks the region"
grep -q "^kdt-extract: $dir/vmcore: also holds 1 more kdt region " "$work/b.err" ||
    kv_fail "kdt-extract DIR did not find the live session in the -E vmcore"
grep -q "^== region 1 of 2: anonymous enabling, boot id [0-9a-f]\{32\}, at phys $RPHYS ==\$" "$work/b.out" ||
    kv_fail "region 1 of 2 is not the image's anonymous enabling"
grep -q '^== region 2 of 2: live session, state id [0-9a-f]\{32\}, at phys 0x[0-9a-f]* ==$' "$work/b.out" ||
    kv_fail "region 2 of 2 is not the live session"
# region 1: as kdt-extract IMAGE prints it, without the blank line the
# next label starts with
awk '/^== region 2 of 2/ { exit } p; /^== region 1 of 2/ { p = 1 }' \
    "$work/b.out" | sed '$d' > "$work/b1.out"
awk '/^== region 2 of 2/ { p = 1; next } p && NF' "$work/b.out" \
    > "$work/b2.out"
kv_compare "$work/b1.out" "$(dirname "$0")/tst.extract-kdump-dir.out" ||
    kv_fail "the image's records differ from tst.extract-kdump-dir.out"
KV_SMP=1 kv_check_order "$work/b1.out" ||
    kv_fail "the crashed kernel's module records are out of order"
cmp -s "$work/b2.out" "$work/A.want" ||
    kv_fail "region 2 of 2 is not A 1..$NA"

# (a) the -E vmcore without the image: where the image should be
rm "$dir/kdt-region.img"
rc=0
"$KV_EXTRACT" --phys "$RPHYS" "$dir" > "$work/a.out" 2> "$work/a.err" ||
    rc=$?
echo "--- (a) without kdt-region.img, --phys $RPHYS: exit $rc; stderr:"
sed "s|$work/||g" "$work/a.err"
[ "$rc" -eq 1 ] || kv_fail "kdt-extract --phys $RPHYS DIR without the image exited $rc, want 1"
[ ! -s "$work/a.out" ] || kv_fail "kdt-extract DIR without the image printed records"
grep -q "^kdt-extract: $dir: no kdt region: vmcore does not hold it and there is no $dir/kdt-region.img, where kdt's kdump hook (/usr/lib/kdt/kdt-kdump-save, installed by kdt -A) copies the crashed kernel's region" "$work/a.err" ||
    kv_fail "kdt-extract did not name the image it looked for and the hook"
echo "PASS ($(( $(date +%s) - t0 )) s)"
