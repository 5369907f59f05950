#!/usr/bin/env bash
#
# tst.live-provglob: kdt.ko offers an ECB only to the providers whose
# names its provider part can match (kmod/kd_cs.c, kd_ecb_provs()); a
# glob or an empty provider part must still reach every provider it can
# name.  In the shared live boot (tests/vm/progs/live.sh), each with a
# BEGIN clause that exits: syscall, sched (kd_proc.c's second provider
# name), lockstat (its third), fbt, profile and dtrace through globbed or
# empty provider parts, each matching its one probe ("matched 2 probes"
# with BEGIN); and as a module comes (xor, unloaded first), a globbed
# provider part still has its functions matched, so xor's init function
# shows up in the aggregation under fbt.
#
. "$(dirname "$0")/../lib.sh"

res=$(kv_live)
i=0
for d in 'sysc?ll::getppid:entry' '*ched:::wakeup' 'lock*:::contention-begin' \
    '[ef]bt::vfs_read:entry' 'pro[!c]*:::tick-1sec' ':::END'; do
	i=$((i + 1))
	kv_live_rc "$res" provglob$i 0
	grep -qxF "kdt: description '$d' matched 2 probes" "$res/provglob$i.err" ||
	    kv_fail "provglob$i: '$d' did not match its one probe: $(cat "$res/provglob$i.err")"
done
kv_live_rc "$res" provmod 0
grep -Eq '^ +fbt +xor +calibrate_xor_blocks +1$' "$res/provmod.out" ||
    kv_fail "provmod: xor's init function not traced through ?bt as the module came"
echo "PASS"
