#!/usr/bin/env bash
#
# tst.readme-panic: README.md's walkthrough "panic-qemu 1" (section "After
# a panic in QEMU"), run as written by tests/vm/readme-walkthrough --run
# in a directory of its own (it links to every entry of this clone's top
# directory, so the block's relative paths work and dump.elf lands there).  Nothing is substituted: the block's
# kdt-vm boots the guest, panics it with sysrq and has QEMU write the dump
# -- the VM is the machine here.  The block must exit 0, leave dump.elf,
# and its kdt-extract must print dtrace's header, the BEGIN record of
# examples/boot.d and one "init module" record per module the guest
# loaded (/init's pvpanic, pvpanic_mmio, qemu_fw_cfg, then the block's
# crc7 and xor), each once and in load order per CPU: with the CPU column
# as 'C' and sorted, tst.readme-panic.out.  A README edit that renames a
# flag, drops --panic or --dump, or changes the modules fails here.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-readme-panic.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "--- README.md walkthrough panic-qemu 1:"
"$KV_TOP/tests/vm/readme-walkthrough" panic-qemu 1 ||
    kv_fail "README.md has no walkthrough block 'panic-qemu 1'"
t0=$(date +%s)
rc=0
"$KV_TOP/tests/vm/readme-walkthrough" --run "$work" panic-qemu 1 \
    > "$work/block.out" 2> "$work/block.err" || rc=$?
echo "--- the block: exit $rc in $(( $(date +%s) - t0 )) s; stderr:"
cat "$work/block.err"
[ "$rc" = 0 ] || { tail -40 "$work/block.out"; kv_fail "the walkthrough exited $rc"; }
[ -s "$work/dump.elf" ] || kv_fail "the walkthrough left no dump.elf"

# kdt-vm echoes the guest's console on stdout before kdt-extract prints:
# the records are from the last header line on.
n=$(grep -anE '^CPU +ID +FUNCTION:NAME$' "$work/block.out" | tail -1 | cut -d: -f1)
[ -n "$n" ] || { tail -40 "$work/block.out"; kv_fail "no dtrace header in the walkthrough's output"; }
tail -n +"$n" "$work/block.out" > "$work/extract.out"
echo "--- kdt-extract dump.elf:"
cat "$work/extract.out"
KV_LOADED="pvpanic pvpanic_mmio qemu_fw_cfg crc7 xor" kv_check_order "$work/extract.out" ||
    kv_fail "the records are not what the guest did"
kv_compare "$work/extract.out" "${0%.sh}.out" ||
    kv_fail "kdt-extract's output differs from $(basename "${0%.sh}").out"
echo "PASS"
