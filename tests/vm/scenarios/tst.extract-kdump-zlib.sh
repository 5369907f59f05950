#!/usr/bin/env bash
#
# tst.extract-kdump-zlib: kdt-extract reads QEMU's kdump-compressed dump.
# The demo workload (examples/boot.d, the demo modules, panic) is booted
# once more with --dump-format kdump-zlib, which QEMU 7.2 writes as a
# flattened makedumpfile stream of zlib pages.  kdt-extract on it must
# print what it prints from the ELF dump of the demo (lib.sh
# kv_demo_dump): the same records, each CPU's in load order.  The two
# dumps come from two boots, so the CPU column and the interleaving are
# compared normalised (kv_compare), as tst.demo-path does.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-kdump-zlib.XXXXXX")
trap 'rm -rf "$work"' EXIT

elf=$(kv_demo_dump)
"$KV_EXTRACT" "$elf" > "$work/elf.out" || kv_fail "kdt-extract $elf exited $?"
"$KV_VM" --script "$KV_SCRIPT" --load "$KV_MODULES" --smp "$KV_SMP" \
    --panic --dump "$work/dump.kdump" --dump-format kdump-zlib \
    --workdir "$work/vm" --prefix 'guest| ' --quiet ||
    kv_fail "kdump-zlib boot failed"
[ "$(head -c 12 "$work/dump.kdump")" = makedumpfile ] ||
    kv_fail "QEMU did not write a flattened stream"
"$KV_EXTRACT" "$work/dump.kdump" > "$work/kdump.out" 2> "$work/kdump.err" ||
    kv_fail "kdt-extract dump.kdump exited $?: $(cat "$work/kdump.err")"

echo "--- kdt-extract on the kdump-zlib dump:"
cat "$work/kdump.out"
[ ! -s "$work/kdump.err" ] || kv_fail "stderr: $(cat "$work/kdump.err")"
kv_check_order "$work/kdump.out" || kv_fail "records missing or out of order"
kv_compare "$work/kdump.out" "$work/elf.out" ||
    kv_fail "the kdump-zlib and the ELF dump extract differently"
echo "PASS"
