#!/usr/bin/env bash
#
# tst.live-multi: two consumers at once, each with its own enabling,
# buffers and aggregations.  In the guest (tests/vm/progs/live.sh):
# consumer A (syscall::getppid:entry) starts; the workload makes 1234
# getppid() calls; consumer B (fbt::__x64_sys_getppid:entry) starts; 777
# calls; A stops (SIGINT); 100 calls; B stops.  A saw the first two runs
# (2011), B the last two (877) -- tst.live-multi.out, byte for byte, and
# both exit 0 with nothing on stderr.
#
. "$(dirname "$0")/../lib.sh"

res=$(kv_live)
for n in multi_a multi_b; do
	kv_live_rc "$res" "$n" 0
	[ ! -s "$res/$n.err" ] || kv_fail "$n: unexpected stderr"
done
cat "$res/multi_a.out" "$res/multi_b.out" |
    diff -u "$(dirname "$0")/tst.live-multi.out" - ||
    kv_fail "the consumers' counts differ from tst.live-multi.out"
echo "PASS"
