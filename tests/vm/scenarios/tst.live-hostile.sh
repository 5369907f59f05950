#!/usr/bin/env bash
#
# tst.live-hostile: D programs and consumers that try to hurt the kernel,
# in one boot (tests/vm/progs/hostile.sh): NULL, wild, user-space and
# non-canonical pointers, division and modulo by zero, copyinstr(0) --
# each must be reported as dtrace reports faults ("error on enabled probe
# ID ... invalid address / divide-by-zero") with the ERROR probe firing;
# dynamic-variable, speculation and principal-buffer exhaustion must be
# reported as drops; hundreds of fbt probes plus every tracepoint,
# syscall and a 4999 Hz profile probe at once; a dozen consumers
# starting and stopping while probes fire, one killed with SIGKILL; a
# module unloaded and reloaded under its probes; and baddof -- every 7th
# single-bit flip, 500 random multi-bit corruptions and every 7th
# truncation of a valid 4.5 KB DOF handed to kdt.ko (about 6,400
# variants; `baddof FILE 3000 1` in the guest does all of them), each
# rejected with a reason or enabled safely.  Afterwards the kernel log must show no oops, BUG, WARNING,
# lockup, RCU stall or call trace.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-hostile.XXXXXX")
trap 'rm -rf "$work"' EXIT

gcc -static -O2 -I"$KV_TOP" -o "$work/baddof" "$KV_PROGS/baddof.c" ||
    kv_fail "cannot build baddof"
"$KV_KDT" -e -o "$work/baddof.dof" -n 'BEGIN { x = 1; s = "hello"; a["k"] = 3;
    @c[s] = count(); printf("%s %d\n", s, x); self->t = timestamp;
    this->p = speculation(); }' \
    -n 'tick-10ms /x < 5/ { x++; @q = quantize(x); trace(strlen(s));
    @l = lquantize(x, 0, 10, 2); }' \
    -n 'tick-50ms { exit(0); }' -x bufsize=16k -x aggsize=16k \
    -x dynvarsize=16k || kv_fail "cannot compile the baddof DOF"
# --tcg-single: the churn below registers and unregisters the same
# tracepoints and kprobes from a dozen consumers at once, so the guest
# kernel patches its text (jump labels, static calls, int3) constantly;
# QEMU 7.2's multi-threaded TCG then sometimes keeps executing a stale
# translation of an int3 the kernel has already removed, and the vCPU
# loops in asm_exc_int3 for ever (seen as soft lockups at
# syscall_trace_enter+0xe9, with the guest memory holding the new jmp).
# One host thread for both vCPUs avoids the emulator race; the guest
# still has two CPUs that interleave.
"$KV_VM" --add-kdt --tcg-single --modules xor --timeout 600 \
    --add "$KV_PROGS/hostile.sh:/hostile.sh" \
    --add "$work/baddof:/bin/baddof" --add "$work/baddof.dof:/baddof.dof" \
    --run 'sh /hostile.sh' --guest-out "$work/results.tgz" \
    --workdir "$work/vm" --quiet || kv_fail "boot failed"
mkdir -p "$work/r"
tar -xzf "$work/results.tgz" -C "$work/r" || kv_fail "no results"
r="$work/r"

show()
{
	echo "--- $1: exit $(cat "$r/$1.rc" 2>/dev/null)"
	cat "$r/$1.out" "$r/$1.err" 2>/dev/null || true
}

# faults: reported with dtrace's wording, the program still exits 0
for n in null wild userptr stringof_wild copyinstr0; do
	show $n
	[ "$(cat "$r/$n.rc")" = 0 ] || kv_fail "$n: exit status"
	grep -q 'error on enabled probe ID [0-9]* (ID 1: dtrace:::BEGIN): invalid address' \
	    "$r/$n.err" || kv_fail "$n: no invalid-address fault reported"
done
for n in divzero modzero; do
	show $n
	grep -q 'divide-by-zero in action #[0-9]' "$r/$n.err" ||
	    kv_fail "$n: no divide-by-zero fault reported"
done
show errprobe
grep -Eq '^ERROR probe: fault 1 at 0x8$' "$r/errprobe.out" ||
    kv_fail "errprobe: the ERROR probe did not get the fault (1, 0x8)"
# exhaustion is reported
show dynvar
grep -q 'dynamic variable drop' "$r/dynvar.err" ||
    kv_fail "dynvar: no dynamic variable drops reported"
show spec
grep -qx '1 0' "$r/spec.out" || kv_fail "spec: second speculation() not 0"
show principal
grep -q 'drop.* on CPU' "$r/principal.err" ||
    kv_fail "principal: no principal buffer drops reported"
# load
show manyfbt
grep -Eq '^vfs_read [0-9]+$' "$r/manyfbt.out" ||
    kv_fail "manyfbt: vfs_read not counted"
show sdtall
[ "$(cat "$r/sdtall.rc")" = 0 ] || kv_fail "sdtall: exit status"
show churn
if [ -s "$r/churn.err" ] && grep -v '^$' "$r/churn.err" | grep -qv 'drop'; then
	kv_fail "churn: errors"
fi
show modcycle
[ "$(cat "$r/modcycle.rc")" = 0 ] || kv_fail "modcycle: exit status"
grep -Eq 'calibrate_xor_blocks +2$' "$r/modcycle.out" ||
    kv_fail "modcycle: xor's init not traced on both loads"
show baddof
[ "$(cat "$r/baddof.rc")" = 0 ] || kv_fail "baddof: a variant misbehaved"
# the kernel stayed healthy
trouble='Oops|BUG:|WARNING:|Call Trace|soft lockup|hard LOCKUP|rcu.*stall|general protection'
if grep -Eq "$trouble" "$r/dmesg"; then
	grep -E -B12 -A30 "$trouble" "$r/dmesg"
	kv_fail "the kernel log shows trouble"
fi
echo "loadavg at the end: $(cat "$r/loadavg")"
echo "PASS"
