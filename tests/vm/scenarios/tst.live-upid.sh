#!/usr/bin/env bash
#
# tst.live-upid: user-space probes on kdt.ko, in the shared live boot
# (tests/vm/progs/live.sh), on the static workload tests/vm/progs/
# upid-test.c (work(i) for i = 1..N, and the USDT probe kdttest:::tick
# with (i, "str") each time):
#   kdt -c: pid$target:a.out:work:entry counts exactly 500 calls and
#   sums arg0 to 125250; pid$target::work:return sees arg1 = 2i (sum
#   250500); kdttest$target:::tick reads its string argument with
#   copyinstr(arg1) 500 times and sums arg0 (its USDT semaphore is set
#   while armed: the workload says so); kdt exits when the command
#   does, saying "kdt: pid N has exited" unless quiet, END fires and the
#   aggregations print (tst.live-upid.out: the three outputs in order).
#   The same workload as a PIE on the shared libc: work() counts 200,
#   and libc.so.6's exit() is probed (-c stops the command at its entry
#   point, after the dynamic loader mapped libc) with arg0 = 0.
#   kdt -p on a process already running (it waits on a fifo until kdt is
#   ready): its 300 calls and its last tick are seen, kdt ends with it
#   (quiet: no notice).
#   kdt -l -c lists the pid and USDT probes the descriptions match.
#   A pid probe of a process that does not exist, -p of one, and -c of a
#   command that does not exist fail with a message naming it, exit 1.
#
. "$(dirname "$0")/../lib.sh"

res=$(kv_live)
for n in upid_entry upid_return upid_usdt; do
	kv_live_rc "$res" "$n" 0
done
grep -qx "kdt: description 'pid\$target:a.out:work:entry ' matched 1 probe" \
    "$res/upid_entry.err" || kv_fail "upid_entry: no 'matched 1 probe' notice"
grep -Eqx 'kdt: pid [0-9]+ has exited' "$res/upid_entry.err" ||
    kv_fail "upid_entry: no 'pid N has exited' notice"
for n in upid_return upid_usdt; do
	[ ! -s "$res/$n.err" ] || kv_fail "$n: unexpected stderr (quiet)"
done
cat "$res/upid_entry.out" "$res/upid_return.out" "$res/upid_usdt.out" |
    diff -u "$(dirname "$0")/tst.live-upid.out" - ||
    kv_fail "outputs differ from tst.live-upid.out"

kv_live_rc "$res" upid_pie 0
[ ! -s "$res/upid_pie.err" ] || kv_fail "upid_pie: unexpected stderr (quiet)"
printf '\nexit(0)\nwork 200\n' | diff -u - <(LC_ALL=C sort "$res/upid_pie.out") ||
    kv_fail "upid_pie: output differs"

kv_live_rc "$res" upid_p 0
[ "$(cat "$res/upid_p.workrc")" = 0 ] || kv_fail "upid_p: the workload failed"
# END's printa and the last tick may be on different CPUs: any order
[ "$(head -1 "$res/upid_p.out")" = ready ] || kv_fail "upid_p: no ready line"
printf '\nlast tick 300 str\nready\nwork 300\n' |
    diff -u - <(LC_ALL=C sort "$res/upid_p.out") ||
    kv_fail "upid_p: output differs"

kv_live_rc "$res" upid_list 0
# ids are kdt.ko's (global, kmod/kd_cs.c): above dtrace's 3, one each
sed -E -e 's/(pid|kdttest)[0-9]+ /\1N /' -e 's/^ *[0-9]+ / N /' \
    "$res/upid_list.out" | tr -s ' ' |
    diff -u - <(cat <<'EOF'
 ID PROVIDER MODULE FUNCTION NAME
 N pidN a.out work entry
 N pidN a.out work return
 N kdttestN a.out main tick
EOF
) || kv_fail "upid_list: listing differs"
[ "$(awk 'NR > 1 && $1 > 3 { print $1 }' "$res/upid_list.out" |
    sort -u | wc -l)" = 3 ] ||
    kv_fail "upid_list: want 3 distinct probe ids above 3"

kv_live_rc "$res" upid_nopid 1
grep -qx 'kdt: probe description pid999999:a.out:work:entry: failed to grab pid 999999: no such process' \
    "$res/upid_nopid.err" || kv_fail "upid_nopid: no message"
kv_live_rc "$res" upid_nop 1
grep -qx 'kdt: failed to grab pid 999999: No such process' \
    "$res/upid_nop.err" || kv_fail "upid_nop: no message"
kv_live_rc "$res" upid_nocmd 1
grep -qx 'kdt: failed to execute /bin/no-such-command: No such file or directory' \
    "$res/upid_nocmd.err" || kv_fail "upid_nocmd: no message"
echo "PASS"
