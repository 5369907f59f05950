#!/usr/bin/env bash
#
# tst.live-kernel: more of kdt.ko, live, in the shared live boot
# (tests/vm/progs/live.sh): kinst at a function's first instruction
# counts exactly what the workload did (500), and an offset inside an
# instruction is refused naming the instruction boundaries around it;
# fbt return probes give the return value in arg1; stack() prints the
# kernel stack symbolised (the probed function, then the syscall entry
# path) and caller names the calling function; system() runs in the
# consumer with -w and is refused without it; proc:::exec-success and
# proc:::exit see the workload's exec path and exit status, sched:::on-cpu
# fires, and sdt:raw_syscalls::sys_enter counts its 50 getppid() calls;
# a module loaded while tracing (xor; -Z, since it matched nothing at
# first) has its functions matched as it comes, so its init function
# shows up in the aggregation; @[stack()] aggregates by stack.
#
. "$(dirname "$0")/../lib.sh"

res=$(kv_live)
kv_live_rc "$res" kinst 0
grep -qx 'kinst 500' "$res/kinst.out" || kv_fail "kinst: want 'kinst 500'"
kv_live_rc "$res" kinst_bad 1
grep -q 'kinst::vfs_read:1: offset 1 is not an instruction boundary of vfs_read (instructions start at 0 and [0-9]*)' \
    "$res/kinst_bad.err" || kv_fail "kinst_bad: no boundary message"
kv_live_rc "$res" fbtret 0
grep -qx 'return > 0: 1 300' "$res/fbtret.out" ||
    kv_fail "fbtret: want 300 returns with a positive value"
kv_live_rc "$res" stack 0
grep -Eq 'vmlinux`(__x64|__do)_sys_getppid\+0x[0-9a-f]+$' "$res/stack.out" &&
    grep -q 'do_syscall_64' "$res/stack.out" ||
    kv_fail "stack: no symbolised __x64_sys_getppid/do_syscall_64 frames"
grep -Eq '^caller vmlinux`do_syscall_64\+0x[0-9a-f]+$' "$res/stack.out" ||
    kv_fail "stack: caller is not do_syscall_64"
kv_live_rc "$res" stack2 0
grep -Eq '^ *10$' "$res/stack2.out" || kv_fail "stack2: no stack seen 10 times"
kv_live_rc "$res" system 0
grep -qx 'from system 42' "$res/system.out" || kv_fail "system: no output"
kv_live_rc "$res" system_now 1
grep -q 'destructive' "$res/system_now.err" ||
    kv_fail "system without -w: not refused as destructive"
kv_live_rc "$res" proc 0
grep -qx 'exec /bin/getppid-loop' "$res/proc.out" || kv_fail "proc: no exec"
grep -qx 'exit reason 1 status 0' "$res/proc.out" || kv_fail "proc: no exit"
grep -Eq '^on-cpu [1-9][0-9]*$' "$res/proc.out" || kv_fail "proc: no on-cpu"
grep -qx 'sys_enter getppid 50' "$res/proc.out" || kv_fail "proc: sdt count"
kv_live_rc "$res" mod 0
grep -Eq '^ +xor +calibrate_xor_blocks +1$' "$res/mod.out" ||
    kv_fail "mod: xor's init function not traced as the module came"
echo "PASS"
