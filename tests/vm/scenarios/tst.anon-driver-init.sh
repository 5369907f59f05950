#!/usr/bin/env bash
#
# tst.anon-driver-init: retained enablings and panic() at boot, through
# README.md's walkthrough "driver 1" (section "Debugging the early init of
# a driver"), run as written by tests/vm/readme-walkthrough --run in a
# directory of its own (it links to every entry of this clone's top
# directory; driver.elf lands there).  Nothing is substituted: the VM is the machine.
#
# The anonymous enabling examples/driver-init.d names functions of the
# xor module, which is loaded only later by the guest's commands; kdt.ko
# must match them when xor is coming, so that its module_init function
# calibrate_xor_blocks() fires at entry and at return, and the panic()
# action in the return clause must panic the guest (nothing else does:
# the block's kdt-vm --panic-during fails if the commands end instead).
# The console must show the panic action's message, and kdt-extract on the
# dump must then print, in order: BEGIN, xor's do_init_module, the init
# function's entry and its return value, and the count.  With the CPU
# column replaced by 'C' and the lines sorted, the output must equal
# tst.anon-driver-init.out.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-driver-init.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "--- README.md walkthrough driver 1:"
"$KV_TOP/tests/vm/readme-walkthrough" driver 1 ||
    kv_fail "README.md has no walkthrough block 'driver 1'"
rc=0
"$KV_TOP/tests/vm/readme-walkthrough" --run "$work" driver 1 \
    > "$work/block.out" 2> "$work/block.err" || rc=$?
echo "--- the block: exit $rc; stderr:"
cat "$work/block.err"
[ "$rc" = 0 ] || { tail -40 "$work/block.out"; kv_fail "the walkthrough exited $rc"; }
grep -aq 'Kernel panic - not syncing: kdt: panic action at probe fbt:xor:calibrate_xor_blocks:return' \
    "$work/block.out" || {
	tail -40 "$work/block.out"
	kv_fail "the console does not show the panic() action's panic"
}
[ -s "$work/driver.elf" ] || kv_fail "the walkthrough left no driver.elf"

# kdt-vm echoes the console on stdout first: kdt-extract's output is
# from the last header line on.
n=$(grep -anE '^CPU +ID +FUNCTION:NAME$' "$work/block.out" | tail -1 | cut -d: -f1)
[ -n "$n" ] || kv_fail "no dtrace header in the walkthrough's output"
tail -n +"$n" "$work/block.out" > "$work/extract.out"
cat "$work/extract.out"
kv_compare "$(dirname "$0")/tst.anon-driver-init.out" "$work/extract.out" ||
    kv_fail "kdt-extract output differs from tst.anon-driver-init.out"
echo "PASS"
