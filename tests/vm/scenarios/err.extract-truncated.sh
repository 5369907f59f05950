#!/usr/bin/env bash
#
# err.extract-truncated: a QEMU dump cut short (as a disk filling up
# during the dump, or an interrupted copy, would leave it), at five
# places, from the largest cut down (one copy, truncated in turn):
#
#   cpu        8 MiB into the region (guest-physical 0x10800000), past
#              the region header and metadata, where CPU 1's buffer
#              starts: the region is read in part -- CPU 0's records are
#              printed, CPU 1's buffer is reported as not in the dump
#              (truncated at 0x10800000) and the exit status is 3
#              (partial)
#   rgnhdr     40 bytes into the region header (0x10000028)
#   load       in the middle of the PT_LOAD before the region (0x80c0000)
#   phdrs      in the middle of the program header table
#   ehdr       in the ELF header (30 bytes)
#
# For each of the others, kdt-extract must exit non-zero (not by a signal), print
# nothing on stdout, and say on stderr that the dump is truncated, naming
# the input and the place (the physical address where the dump ends, or
# the file offsets) -- never garbage, never a crash.  The demo dump is
# shared with tst.demo-path through lib.sh's cache.
#
. "$(dirname "$0")/../lib.sh"

dump=$(kv_demo_dump)
work=$(mktemp -d "$KV_TOP/build/vm-truncated.XXXXXX")
trap 'rm -rf "$work"' EXIT

cut=$work/cut.elf
off_cpu=$(kv_elf_offset "$dump" 0x10800000)
off_rgnhdr=$(kv_elf_offset "$dump" 0x10000028)
off_load=$(kv_elf_offset "$dump" 0x80c0000)
read -r phoff phnum <<< "$(python3 - "$dump" <<'PY'
import struct, sys
with open(sys.argv[1], "rb") as f:
    eh = f.read(64)
print(struct.unpack_from("<Q", eh, 32)[0], struct.unpack_from("<H", eh, 56)[0])
PY
)"
off_phdrs=$((phoff + 56 * phnum / 2))
head -c "$off_cpu" "$dump" > "$cut"

# check NAME OFFSET ERE: cut the copy to OFFSET bytes, run kdt-extract.
check()
{
	local n=$1 off=$2 ere=$3 rc=0

	truncate -s "$off" "$cut"
	"$KV_EXTRACT" "$cut" > "$work/$n.out" 2> "$work/$n.err" || rc=$?
	echo "--- $n: cut at file offset $off: exit $rc"
	cat "$work/$n.err"
	[ "$rc" -ne 0 ] || kv_fail "$n: kdt-extract exited 0 on a truncated dump"
	[ "$rc" -lt 128 ] || kv_fail "$n: kdt-extract died of signal $((rc - 128))"
	[ ! -s "$work/$n.out" ] || kv_fail "$n: kdt-extract printed records from a truncated dump"
	grep -q "^kdt-extract: $cut: " "$work/$n.err" ||
	    kv_fail "$n: the message does not name the input"
	grep -Eq "$ere" "$work/$n.err" ||
	    kv_fail "$n: the message does not say where the dump is truncated"
}

# The cut in the CPU buffers: what survived is printed (rgn.h, struct
# rgn_gap), what did not is named, and the status says partial.
truncate -s "$off_cpu" "$cut"
rc=0
"$KV_EXTRACT" "$cut" > "$work/cpu.out" 2> "$work/cpu.err" || rc=$?
echo "--- cpu: cut at file offset $off_cpu: exit $rc"
cat "$work/cpu.err"
[ "$rc" -eq 3 ] || kv_fail "cpu: kdt-extract exited $rc, not 3 (partial)"
# CPU 0's records are exactly those of the whole dump (which CPU ran the
# module loads differs from boot to boot: only BEGIN may be on CPU 0)
"$KV_EXTRACT" "$dump" > "$work/full.out" 2> /dev/null ||
    kv_fail "kdt-extract on the whole dump exited $?"
grep '^  0 ' "$work/full.out" > "$work/want0" || true
grep '^  0 ' "$work/cpu.out" > "$work/got0" || true
[ -s "$work/want0" ] || [ -s "$work/got0" ] ||
    echo "--- cpu: CPU 0 has no records in this boot's dump"
cmp -s "$work/want0" "$work/got0" ||
    kv_fail "cpu: CPU 0's records are not the whole dump's: $(diff "$work/want0" "$work/got0" | head -5)"
! grep -q '^  1 ' "$work/cpu.out" ||
    kv_fail "cpu: records of the cut CPU 1 are printed"
grep -q "^kdt-extract: $cut: region at phys 0x10000000: CPU 1's buffer: bytes 0x800000-0x[0-9a-f]* not in the dump (truncated at phys 0x10800000: the dump ends there); its records are left out\$" \
    "$work/cpu.err" || kv_fail "cpu: CPU 1's buffer is not reported"
grep -q 'partial: 1 part of the region not in the dump (above) left out' \
    "$work/cpu.err" || kv_fail "cpu: no partial summary"
check rgnhdr "$off_rgnhdr" 'no kdt region found in [0-9]+ MiB of physical memory, and the dump is truncated: it ends at phys 0x10000028'
check load "$off_load" 'no kdt region found in 128 MiB of physical memory, and the dump is truncated: it ends at phys 0x80c0000'
check phdrs "$off_phdrs" "truncated program header table: $phnum headers of 56 bytes at file offset 0x[0-9a-f]+ end at 0x[0-9a-f]+, past the end of the file \($off_phdrs bytes\)"
check ehdr 30 'truncated ELF header: the file is 30 bytes, an ELF64 header needs 64'
echo "PASS"
