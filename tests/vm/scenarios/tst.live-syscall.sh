#!/usr/bin/env bash
#
# tst.live-syscall: live tracing through kdt.ko counts exactly.  In the
# guest (tests/vm/progs/live.sh), kdt runs in the background counting
# getppid() calls of the process named "getppid-loop" -- once through the
# syscall provider (syscall::getppid:entry), once through fbt
# (fbt::__x64_sys_getppid:entry) -- while the static workload makes
# exactly 1234 calls; then kdt gets SIGINT, as from ^C.  Each run must
# exit 0 with nothing on stderr (-q) and print, as dtrace does: the BEGIN
# line that said the probes were live, the newline dtrace prints when
# interrupted, END's printa() with the count, and the final newline --
# tst.live-syscall.out, byte for byte.
#
. "$(dirname "$0")/../lib.sh"

res=$(kv_live)
for n in sys fbt; do
	kv_live_rc "$res" "$n" 0
	[ ! -s "$res/$n.err" ] || kv_fail "$n: unexpected stderr"
done
cat "$res/sys.out" "$res/fbt.out" |
    diff -u "$(dirname "$0")/tst.live-syscall.out" - ||
    kv_fail "counts differ from tst.live-syscall.out"
echo "PASS"
