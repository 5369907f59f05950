#!/usr/bin/env bash
#
# tst.boot-multiboot2: an anonymous enabling handed over by real GRUB as a
# multiboot2 module.  tests/vm/mb2/mb2.d is compiled with kdt -e -o, put
# on a GRUB ISO (grub-mkrescue) beside the multiboot2 test kernel
# (make mb2; tests/vm/mb2/README.md) as "module2 /boot/anon.dof
# kdt-anon-dof", and booted under SeaBIOS and, when
# /usr/share/ovmf/OVMF.fd is installed, under OVMF.  The kernel finds the
# module with boot/mb2.c, loads it with common/'s dof_load, records
# BEGIN and its mb2 probes into a region at kdt.region=1M@0x2000000 and
# halts; the host dumps guest memory over QMP and kdt-extract on the dump
# must print tst.boot-multiboot2.out under both firmwares, line for line
# (DOFSIZE there stands for the size of the compiled DOF).
#
# Negative case: the same DOF with one byte flipped (a section's flags)
# must be refused by the test kernel with the loader's message -- the
# very message kdt-initrd gets from dof_load on the host for those bytes
# -- and nothing recorded: kdt-extract finds no region in that dump.
#
. "$(dirname "$0")/../lib.sh"

MB2_VM="$KV_TOP/tests/vm/mb2/mb2-vm"
MB2_ELF="$KV_TOP/build/mb2/kdt-mb2.elf"
OVMF=/usr/share/ovmf/OVMF.fd
REGION='kdt.region=1M@0x2000000'
FLIP_OFF=$((0x48))	# section 0's flags: the LOAD flag goes

for f in "$KV_KDT" "$KV_EXTRACT" "$KV_TOP/build/bin/kdt-initrd"; do
	[ -x "$f" ] || kv_fail "${f#$KV_TOP/}: missing (run 'make')"
done
command -v grub-mkrescue > /dev/null ||
    kv_fail "grub-mkrescue missing (run 'make deps')"
make -s -C "$KV_TOP" mb2 > /dev/null || kv_fail "make mb2 failed"
grub-file --is-x86-multiboot2 "$MB2_ELF" ||
    kv_fail "grub-file does not take build/mb2/kdt-mb2.elf as multiboot2"

work=$(mktemp -d "$KV_TOP/build/vm-mb2.XXXXXX")
trap 'rm -rf "$work"' EXIT

# mkiso DOF ISO: a GRUB ISO booting the test kernel with DOF as module.
mkiso()
{
	local d=$work/iso-$(basename "$2" .iso)

	mkdir -p "$d/boot/grub"
	cp "$MB2_ELF" "$d/boot/kdt-mb2.elf"
	cp "$1" "$d/boot/anon.dof"
	cat > "$d/boot/grub/grub.cfg" <<-EOF
	set timeout=0
	serial --unit=0 --speed=115200
	terminal_input serial console
	terminal_output serial console
	menuentry 'kdt multiboot2' {
	  multiboot2 /boot/kdt-mb2.elf $REGION
	  module2 /boot/anon.dof kdt-anon-dof
	  boot
	}
	EOF
	grub-mkrescue -o "$2" "$d" > "$work/mkrescue.log" 2>&1 ||
	    { cat "$work/mkrescue.log"; kv_fail "grub-mkrescue failed"; }
}

# boot NAME ISO [FIRMWARE]: run to the halt; serial log and dump in $work.
boot()
{
	local efi=()

	[ -n "${3:-}" ] && efi=(--efi "$3")
	"$MB2_VM" --iso "$2" --serial-log "$work/$1.log" \
	    --dump "$work/$1.elf" "${efi[@]}" ||
	    kv_fail "$1: the multiboot2 test kernel did not halt"
	sed 's/\r$//; s/^/guest| /' "$work/$1.log" | grep -a 'kdt-mb2\|KDT-MB2: halt'
}

"$KV_KDT" -e -o "$work/anon.dof" -s "$KV_TOP/tests/vm/mb2/mb2.d" ||
    kv_fail "kdt -e could not compile tests/vm/mb2/mb2.d"
dofsz=$(stat -c %s "$work/anon.dof")
mkiso "$work/anon.dof" "$work/good.iso"

fws=(bios)
[ -f "$OVMF" ] && fws+=(efi) || echo "note: $OVMF missing, EFI boot not tested"
for fw in "${fws[@]}"; do
	if [ "$fw" = efi ]; then boot "$fw" "$work/good.iso" "$OVMF"
	else boot "$fw" "$work/good.iso"; fi
	grep -aq 'KDT-MB2: halt recorded' "$work/$fw.log" ||
	    kv_fail "$fw: the test kernel recorded nothing"
	"$KV_EXTRACT" "$work/$fw.elf" > "$work/$fw.out" ||
	    kv_fail "$fw: kdt-extract exited $?"
	sed "s/^/$fw| /" "$work/$fw.out"
	# one CPU: the order is exact; the module's size is the DOF's
	sed "s/ $dofsz bytes,/ DOFSIZE bytes,/" "$work/$fw.out" |
	    diff -u "$(dirname "$0")/tst.boot-multiboot2.out" - ||
	    kv_fail "$fw: kdt-extract output differs from tst.boot-multiboot2.out"
	rm -f "$work/$fw.elf"
done

# The negative case: one flipped byte.
python3 - "$work/anon.dof" "$work/bad.dof" "$FLIP_OFF" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[int(sys.argv[3])] ^= 0x01
open(sys.argv[2], "wb").write(b)
PY
: > "$work/scratch.img"
host=$("$KV_TOP/build/bin/kdt-initrd" add "$work/scratch.img" \
    "$work/bad.dof" 2>&1) && kv_fail "the host loader accepted the flipped DOF"
want=${host#*: not a loadable DOF: }
mkiso "$work/bad.dof" "$work/bad.iso"
boot bad "$work/bad.iso"
grep -aqF "kdt-mb2: module kdt-anon-dof: $want" "$work/bad.log" ||
    kv_fail "the test kernel did not report the loader's message: $want"
grep -aq 'nothing recorded' "$work/bad.log" &&
    grep -aq 'KDT-MB2: halt no-enabling' "$work/bad.log" ||
    kv_fail "the test kernel did not drop the corrupted enabling"
rc=0
"$KV_EXTRACT" "$work/bad.elf" > "$work/bad.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && grep -qi 'no kdt region' "$work/bad.out" ||
    { cat "$work/bad.out"; kv_fail "kdt-extract found records after a rejected DOF (exit $rc)"; }
echo "PASS: ${fws[*]} recorded and extracted; the flipped DOF was refused: $want"
