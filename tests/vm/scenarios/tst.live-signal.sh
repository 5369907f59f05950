#!/usr/bin/env bash
#
# tst.live-signal: the process actions of kdt.ko, in one boot (guest
# half: tst.live-signal.run; workload: tst.live-signal.c, static, as
# /bin/sigtest).
#
#   raise      kdt -w, raise(SIGUSR1) on each of 200 getppid() calls of
#              the target: its handler counts exactly 200 (the signal is
#              queued in the probe and sent from an irq_work right after
#              it, so it is pending when the syscall returns)
#   raise_many 70 raise() clauses on each of 5 getppid() firings: one
#              interrupt-free window each, 64 per-CPU slots, so kdt
#              reports 30 "raise()/stop() signal drops" as they happen
#              (kst_sigdrops); the workload still gets its 5 SIGUSR1
#   raise_bad  raise(65): an illegal-operation error for each firing,
#              the process runs on unsignalled
#   raise_now  without -w: refused as a destructive action
#   stop       stop() at a running process's getppid(): /proc/PID/stat
#              says T afterwards, and no longer once SIGCONT is sent
#   psinfo     curpsinfo's pr_euid, pr_egid, pr_pgid, pr_sid, pr_nlwp and
#              curlwpsinfo's pr_state/pr_sname at a getppid() of a
#              process started with setsid: what /proc/PID/status and
#              /proc/PID/stat say, and SONPROC ('O')
#   syms       pid$target:a.out:report:entry with arg0 = &marker and
#              arg1 = &marker + 4 in the static workload: usym() names
#              the function of both, uaddr() adds the offset, umod() the
#              object (the executable's basename), an unmapped address
#              prints in hex -- as records and as aggregation keys
#              (tst.live-signal.out)
#   kthread    raise() and stop() in the idle tasks and in kworkers:
#              left alone (no user context), the system carries on
#   ustack     ustack(1) there: the frame is named as uaddr() names it,
#              sigtest`report
#
# The kernel log has no warning, BUG or oops afterwards.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-signal.XXXXXX")
trap 'rm -rf "$work"' EXIT

gcc -static -O2 -o "$work/sigtest" "$(dirname "$0")/tst.live-signal.c" ||
    kv_fail "cannot build the static workload (gcc -static)"
"$KV_VM" --add-kdt --timeout 150 \
    --add "$(dirname "$0")/tst.live-signal.run:/signal.sh" \
    --add "$work/sigtest:/bin/sigtest" \
    --run 'sh /signal.sh' --guest-out "$work/results.tgz" \
    --serial-log "$work/serial.log" --workdir "$work/vm" \
    --prefix 'guest| ' || kv_fail "boot failed"
r="$work/r"
mkdir -p "$r"
tar -xzf "$work/results.tgz" -C "$r" || kv_fail "no results"

kv_live_rc "$r" raise 0
[ "$(cat "$r/raise.out")" = "SIGUSR1 200 of 200" ] ||
    kv_fail "raise: the workload did not count 200 SIGUSR1"

kv_live_rc "$r" raise_many 0
[ "$(cat "$r/raise_many.out")" = "SIGUSR1 5 of 5" ] ||
    kv_fail "raise_many: want one SIGUSR1 per call (a pending signal merges)"
sigdrops=$(sed -n "s/^kdt: \([0-9]*\) raise()\/stop() signal drops* (kdt.ko's per-CPU queue full)\$/\1/p" \
    "$r/raise_many.err" | awk '{ n += $1 } END { print n + 0 }')
echo "raise_many: $sigdrops signal drops reported"
[ "$sigdrops" = 30 ] ||
    kv_fail "raise_many: want 30 signal drops (6 of 70 on each of 5 firings)"

kv_live_rc "$r" raise_bad 0
[ "$(cat "$r/raise_bad.out")" = "SIGUSR1 0 of 3" ] ||
    kv_fail "raise_bad: the workload was signalled"
[ "$(grep -c 'syscall::getppid:entry): illegal operation in action #1' \
    "$r/raise_bad.err")" = 3 ] ||
    kv_fail "raise_bad: want 3 illegal-operation errors"

kv_live_rc "$r" raise_now 1
grep -q '\[D_ACT_DESTR\] raise( ): destructive actions are not allowed' \
    "$r/raise_now.err" || kv_fail "raise_now: not refused as destructive"

kv_live_rc "$r" stop 0
echo "stopped: $(cat "$r/stop.state"), after SIGCONT: $(cat "$r/cont.state")"
[ "$(cat "$r/stop.state")" = T ] || kv_fail "stop: the process is not stopped"
[ "$(cat "$r/cont.state")" != T ] || kv_fail "stop: still stopped after SIGCONT"

kv_live_rc "$r" psinfo 0
echo "psinfo: kdt '$(head -1 "$r/psinfo.out")', /proc '$(cat "$r/psinfo.want")'"
[ "$(head -1 "$r/psinfo.out")" = "$(cat "$r/psinfo.want")" ] ||
    kv_fail "psinfo: curpsinfo/curlwpsinfo differ from /proc"
# setsid: the workload leads its own group and session
[ "$(cut -d' ' -f3,4 "$r/psinfo.want")" = \
    "$(cat "$r/psinfo.pid") $(cat "$r/psinfo.pid")" ] ||
    kv_fail "psinfo: the workload is not in its own session"

kv_live_rc "$r" syms 0
diff -u "$(dirname "$0")/tst.live-signal.out" "$r/syms.out" ||
    kv_fail "syms: output differs from tst.live-signal.out"

kv_live_rc "$r" kthread 0
[ "$(cat "$r/kthread.out")" = alive ] || kv_fail "kthread: no 'alive' line"

kv_live_rc "$r" ustack 0
[ "$(grep -v '^$' "$r/ustack.out" | tr -d ' ')" = 'sigtest`report' ] ||
    kv_fail "ustack: the frame is not named sigtest\`report"

if grep -E 'WARNING:|BUG:|Oops|Call Trace' "$r/dmesg" "$work/serial.log"; then
	kv_fail "kernel warnings in the guest"
fi
echo "PASS"
