#!/usr/bin/env bash
#
# tst.live-sched: sched:::enqueue and sched:::dequeue (kmod/kd_proc.c:
# kprobes on the scheduling classes' enqueue_task/dequeue_task methods)
# count the run-queue changes of a known workload.  In the guest, kdt
# runs tests/vm/progs/sleep-loop.c (50 sleeps of 20 ms) with -c and
# counts, for the task whose comm is "sleep-loop" (arg0, the task being
# queued -- not the current thread, which for a wakeup is the waker),
# enqueues with ENQUEUE_WAKEUP and dequeues with DEQUEUE_SLEEP (arg4, the
# Linux flags):
#
#   - wakeup enqueues: 50, give or take 2 (a sleep whose timer expired
#     before the task blocked neither dequeues nor enqueues it; -c's
#     ptrace stop at the entry point adds a pair)
#   - sleeping dequeues: as many as wakeup enqueues (each block is
#     followed by its wakeup), or one more: the task's last dequeue, as
#     it dies, comes after its parent (kdt, -c) may have seen the exit
#     and stopped tracing
#   - arg1 is the task's pid, arg2 a CPU of the guest (0 or 1), arg3
#     (front of the queue) 0 or 1
#   - sched:::enqueue and sched:::dequeue are listed by kdt -l
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-sched.XXXXXX")
trap 'rm -rf "$work"' EXIT

gcc -static -O2 -o "$work/sleep-loop" "$KV_PROGS/sleep-loop.c" ||
    kv_fail "cannot build the static sleep-loop"
cat > "$work/sched.sh" <<'EOS'
R=/tmp/r
mkdir -p $R
kdt -l -n 'sched:::*queue' > $R/list.out 2> $R/list.err
echo $? > $R/list.rc
kdt -q -c '/bin/sleep-loop 50' \
    -n 'sched:::enqueue,sched:::dequeue
    /stringof(((struct task_struct *)arg0)->comm) == "sleep-loop"/ {
	@n[probename, arg4 & 1] = count();
	@cpu = max(arg2);
	@front = max(arg3);
	@pidok = min(arg1 == ((struct task_struct *)arg0)->pid);
    }
    END {
	printa("%s %d %@d\n", @n);
	printa("maxcpu %@d\n", @cpu);
	printa("maxfront %@d\n", @front);
	printa("pidok %@d\n", @pidok);
    }' > $R/count.out 2> $R/count.err
echo $? > $R/count.rc
dmesg > $R/dmesg
tar -czf - -C $R . > /dev/ttyS1
EOS
"$KV_VM" --add-kdt --timeout 240 \
    --add "$work/sleep-loop:/bin/sleep-loop" \
    --add "$work/sched.sh:/sched.sh" \
    --run 'sh /sched.sh' --guest-out "$work/results.tgz" \
    --serial-log "$work/serial.log" --workdir "$work/vm" \
    --prefix 'guest| ' || kv_fail "boot failed"
r="$work/r"
mkdir -p "$r"
tar -xzf "$work/results.tgz" -C "$r" || kv_fail "no results"

kv_live_rc "$r" list 0
[ "$(awk 'NR > 1 { print $2, $3 }' "$r/list.out")" = "sched enqueue
sched dequeue" ] || kv_fail "list: want sched:::enqueue and sched:::dequeue"
kv_live_rc "$r" count 0
[ ! -s "$r/count.err" ] || kv_fail "count: unexpected stderr"
get()
{
	awk -v k="$1 $2" '$1 " " $2 == k { print $3 }' "$r/count.out"
}
enq=$(get enqueue 1)
deq=$(get dequeue 1)
echo "wakeup enqueues ${enq:-none}, sleeping dequeues ${deq:-none}"
[ -n "$enq" ] && [ "$enq" -ge 48 ] && [ "$enq" -le 52 ] ||
    kv_fail "wakeup enqueues: ${enq:-none}, want 50 +- 2"
[ -n "$deq" ] && { [ "$deq" = "$enq" ] || [ "$deq" = $((enq + 1)) ]; } ||
    kv_fail "sleeping dequeues: ${deq:-none}, want $enq or $((enq + 1))"
grep -qx 'pidok 1' "$r/count.out" || kv_fail "arg1 is not the task's pid"
grep -Eqx 'maxcpu [01]' "$r/count.out" || kv_fail "arg2 is not a CPU"
grep -Eqx 'maxfront [01]' "$r/count.out" || kv_fail "arg3 is not 0 or 1"
if grep -E 'WARNING:|BUG:|Call Trace|Oops' "$work/serial.log" "$r/dmesg"; then
	kv_fail "kernel warnings in the boot"
fi
echo "PASS"
