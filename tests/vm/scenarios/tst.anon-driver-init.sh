#!/usr/bin/env bash
#
# tst.anon-driver-init: retained enablings and panic() at boot.  The
# anonymous enabling examples/driver-init.d names functions of the xor
# module, which is loaded only later by the guest's commands; kdt.ko must
# match them when xor is coming, so that its module_init function
# calibrate_xor_blocks() fires at entry and at return, and the panic()
# action in the return clause must panic the guest (nothing else does).
# kdt-extract on the dump then prints, in order: BEGIN, xor's
# do_init_module, the init function's entry and its return value.  With
# the CPU column replaced by 'C' and the lines sorted, the output must
# equal tst.anon-driver-init.out.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-driver-init.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KV_VM" --script "$KV_TOP/examples/driver-init.d" --modules xor \
    --run 'modprobe xor; echo "xor init returned without a panic"' \
    --panic-during --dump "$work/dump.elf" --workdir "$work/vm" \
    --expect 'Kernel panic - not syncing: kdt: panic action at probe fbt:xor:calibrate_xor_blocks:return' \
    --prefix 'guest| ' || kv_fail "boot failed"
"$KV_EXTRACT" "$work/dump.elf" > "$work/extract.out" ||
    kv_fail "kdt-extract exited $?"
cat "$work/extract.out"
kv_compare "$(dirname "$0")/tst.anon-driver-init.out" "$work/extract.out" ||
    kv_fail "kdt-extract output differs from tst.anon-driver-init.out"
echo "PASS"
