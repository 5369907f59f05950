#!/usr/bin/env bash
#
# examples/demo.sh -- what `make demo` runs once everything is built: trace
# module initialisation from boot in a QEMU guest, crash the guest, and read
# the trace back out of the crash dump with no kernel debuginfo.
#
# Each step says in plain words what it does.  It uses the same harness as
# the tests (tests/vm/kdt-vm); its files land in build/demo/.
#
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
demo=build/demo
script=examples/boot.d
modules=crc7,crc_itu_t,lz4_compress,xor
kver=$(sed -n 's/^KVER[[:space:]]*:=[[:space:]]*//p' mk/versions.mk)

step()
{
	echo
	echo "==> $*"
}

rm -rf "$demo"
mkdir -p "$demo"

step "1. Compile $script into an anonymous enabling (kdt -A)"
cat "$script"
build/bin/kdt -A -o "$demo/anon" -s "$script" --btf=build/kernel/vmlinux
echo "kdt -A wrote:"
ls -l "$demo/anon"
echo "kernel command line words ($demo/anon/cmdline):"
sed 's/^/    /' "$demo/anon/cmdline"

step "2. Boot Debian's kernel $kver in QEMU (TCG, 2 CPUs)"
cat <<TXT
The initramfs carries kdt.ko and the DOF (as the firmware file
kdt/anon.dof).  The memmap= word keeps 16 MiB of RAM away from the kernel;
the guest's /init loads kdt.ko before any other module, and kdt.ko puts its
ring buffers in that region and arms the probes.  Then the guest loads
these Debian modules, each of which passes through do_init_module:
    ${modules//,/ }
and crashes with 'echo c > /proc/sysrq-trigger'.  QEMU pauses the panicked
guest (pvpanic) and writes an ELF dump of its memory over QMP.  Guest
console lines start with 'guest| '.
TXT
t0=$(date +%s.%N)
tests/vm/kdt-vm --dof "$demo/anon/anon.dof" --load "$modules" \
    --run 'echo "guest: modules now loaded:"; cut -d" " -f1 /proc/modules' \
    --panic --dump "$demo/dump.elf" --serial-log "$demo/serial.log" \
    --workdir "$demo/vm" --prefix 'guest| '
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" \
    'BEGIN { printf "boot, trace, panic and dump took %.1f s\n", b - a }'

step "3. The dump"
ls -l "$demo/dump.elf"
echo "It is all of guest RAM; nothing in it was prepared for kdt-extract."

step "4. kdt-extract $demo/dump.elf (no vmlinux, no debuginfo)"
build/bin/kdt-extract "$demo/dump.elf" | tee "$demo/extract.out"
echo "(As with dtrace, each CPU's buffer is printed in turn: the lines are in"
echo "load order per CPU.  /init's own pvpanic, pvpanic_mmio and qemu_fw_cfg"
echo "were traced too: kdt.ko was loaded before them.)"

step "Done: probes in the guest's kernel wrote these records before it died."
