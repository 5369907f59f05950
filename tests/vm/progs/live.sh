#!/bin/sh
#
# live.sh -- the guest half of the live VM scenarios (tests/vm/scenarios/
# *.live-*.sh): every kdt command they judge, run in ONE boot, since each
# boot costs 7-18 s.  tests/vm/lib.sh (kv_live) boots a guest with kdt,
# this script at /live.sh, the static /bin/getppid-loop and an
# /etc/passwd with "nobody", runs it, and gets the results back as a gzip'd
# tar on the raw second serial port; the scenarios read the files.
#
# Each command NAME leaves $R/NAME.out (stdout), NAME.err (stderr) and
# NAME.rc (exit status).  Commands that trace a workload start kdt in the
# background, wait until its BEGIN clause's "ready" line has been
# consumed (so the probes are recording), run the workload, then stop kdt
# with SIGINT as a user's ^C would and wait for it.  The older scenarios
# pick the workload by its execname, "getppid-loop"; tst.live-upid's
# commands use -c and -p (their kdt ends when the workload does).
#
set +e
R=/tmp/live
rm -rf "$R"
mkdir -p "$R"

# run NAME CMD...: run in the foreground
run()
{
	n=$1
	shift
	"$@" > "$R/$n.out" 2> "$R/$n.err"
	echo $? > "$R/$n.rc"
}

# start NAME CMD...: run in the background until stop NAME
start()
{
	n=$1
	shift
	"$@" > "$R/$n.out" 2> "$R/$n.err" &
	echo $! > "$R/$n.pid"
	i=0
	while ! grep -q '^ready$' "$R/$n.out" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 300 ]; then
			echo "live.sh: $n: no ready line after 30 s" >> "$R/$n.err"
			break
		fi
		sleep 0.1
	done
}

stop()
{
	p=$(cat "$R/$1.pid")
	kill -INT "$p"
	wait "$p"
	echo $? > "$R/$1.rc"
}

READY='BEGIN { printf("ready\n"); }'
SYS='syscall::getppid:entry /execname == "getppid-loop"/ { @n = count(); }'
FBT='fbt::__x64_sys_getppid:entry /execname == "getppid-loop"/ { @n = count(); }'

# ---- tst.live-syscall: exact counts through two providers
start sys kdt -q -n "$READY" -n "$SYS" \
    -n 'END { printa("syscall::getppid:entry %@d\n", @n); }'
/bin/getppid-loop
stop sys
start fbt kdt -q -n "$READY" -n "$FBT" \
    -n 'END { printa("fbt::__x64_sys_getppid:entry %@d\n", @n); }'
/bin/getppid-loop
stop fbt

# ---- tst.live-multi: two consumers at once, each with its own state
start multi_a kdt -q -n "$READY" -n "$SYS" \
    -n 'END { printa("consumer A: %@d\n", @n); }'
/bin/getppid-loop 1234
start multi_b kdt -q -n "$READY" -n "$FBT" \
    -n 'END { printa("consumer B: %@d\n", @n); }'
/bin/getppid-loop 777
stop multi_a
/bin/getppid-loop 100
stop multi_b

# ---- tst.live-profile: timers, exit(), buffer policies, per-CPU data
run tick kdt -n 'BEGIN { t = timestamp; }' -n 'tick-100ms /++i == 10/ {
	printf("ticks %d after %s", i,
	    timestamp - t >= 900000000 ? ">= 900 ms" : "< 900 ms");
	exit(0);
}'
run status kdt -n 'BEGIN { printf("begin %d", 1); }' \
    -n 'tick-200ms /++i == 2/ { trace(i); }' \
    -n 'tick-200ms /i == 3/ { exit(7); }'
run percpu kdt -q -n 'profile-97 { @c[cpu] = count(); }' \
    -n 'tick-2s { printa("cpu %d %@d\n", @c); exit(0); }'
run ring kdt -q -x bufpolicy=ring -x bufsize=2k -n 'BEGIN { i = 0; }' \
    -n 'tick-10ms /i < 300/ { printf("%d %d\n", cpu, i++); }' \
    -n 'tick-10ms /i == 300/ { exit(0); }'
run fill kdt -q -x bufpolicy=fill -x bufsize=2k \
    -n 'tick-10ms { printf("%d %d\n", cpu, i++); }'

# ---- tst.live-list: kdt -l, whole and by description
kdt -l > "$R/list_all.full" 2> "$R/list_all.err"
echo $? > "$R/list_all.rc"
head -1 "$R/list_all.full" > "$R/list_all.out"
grep -E ' (dtrace +BEGIN|syscall +getppid entry|profile +tick-1)$' \
    "$R/list_all.full" >> "$R/list_all.out"
awk 'NR > 1 { n[$2]++ } END { for (p in n) print p, n[p] }' \
    "$R/list_all.full" | sort > "$R/list_all.count"
rm -f "$R/list_all.full"
run list_n kdt -l -n 'syscall::getppid*:'
run list_glob kdt -l -n 'syscall::getpp?d:ent*'
run list_P kdt -l -P dtrace
run list_f kdt -l -f '__x64_sys_getppid'
run list_mf kdt -l -m 'fbt:nosuchmod' -f 'fbt:kernel:__x64_sys_getppid'
printf '%s\n' 'syscall::getppid:entry, dtrace:::BEGIN' '{ trace(1); }' \
    'profile:::tick-1s {}' > /tmp/list.d
run list_s kdt -l -s /tmp/list.d
run list_none kdt -l -n 'nosuch:::' -n 'dtrace:::END'
# probe ids are kdt.ko's: -l's id for a probe is what -i takes and what
# the ID column shows, in two consumers at once whose own probe order
# differs (B matches getppid:return first); each exits at its first firing
ID=$(awk '$2 == "syscall" && $3 == "getppid" && $4 == "entry" { print $1 }' \
    "$R/list_n.out")
echo "$ID" > "$R/list_id"
run list_i kdt -l -i "$ID"
run list_ibad kdt -l -i 4000000000
kdt -i "$ID /execname == \"getppid-loop\"/ { exit(0); }" \
    > "$R/ids_a.out" 2> "$R/ids_a.err" &
A=$!
kdt -n 'syscall::getppid:return /0/ {}' \
    -n 'syscall::getppid:entry /execname == "getppid-loop"/ { exit(0); }' \
    > "$R/ids_b.out" 2> "$R/ids_b.err" &
B=$!
i=0
while [ $i -lt 60 ] && { kill -0 $A || kill -0 $B; } 2>/dev/null; do
	/bin/getppid-loop 1 > /dev/null
	sleep 0.5
	i=$((i + 1))
done
kill -INT $A $B 2>/dev/null
wait $A
echo $? > "$R/ids_a.rc"
wait $B
echo $? > "$R/ids_b.rc"

# ---- err.live-nomatch: dtrace's message for a description matching nothing
run nomatch kdt -n 'fbt::no_such_function:entry'
printf '%s\n' 'BEGIN {}' 'fbt::no_such_function:entry' '{ trace(1); }' \
    > /tmp/nomatch.d
run nomatch_s kdt -s /tmp/nomatch.d
run nomatch_z kdt -Z -n 'fbt::no_such_function:entry' \
    -n 'BEGIN { exit(0); }'

# ---- err.live-nonroot: /dev/kdt is root's
run nonroot su nobody -s /bin/sh -c 'kdt -n "BEGIN { exit(0); }"'
run nonroot_l su nobody -s /bin/sh -c 'kdt -l -P dtrace'
run nonroot_user su nobody -s /bin/sh -c \
    'kdt -x engine=user -n "BEGIN { trace(1); exit(0); }"'

# ---- tst.live-kernel: kdt.ko's other providers and kernel-side actions
# kinst at the first instruction counts like fbt; an offset inside an
# instruction is refused with the boundaries around it
start kinst kdt -q -n "$READY" \
    -n 'kinst::__x64_sys_getppid:0 /execname == "getppid-loop"/ { @n = count(); }' \
    -n 'END { printa("kinst %@d\n", @n); }'
/bin/getppid-loop 500
stop kinst
run kinst_bad kdt -n 'kinst::vfs_read:1 { exit(0); }'
# fbt return: arg1 is the return value (getppid() of getppid-loop is 1,
# the pid of /init's shell... whatever it is, it is the same every call)
start fbtret kdt -q -n "$READY" \
    -n 'fbt::__x64_sys_getppid:return /execname == "getppid-loop"/ { @r[arg1 > 0] = count(); }' \
    -n 'END { printa("return > 0: %d %@d\n", @r); }'
/bin/getppid-loop 300
stop fbtret
# stack() symbolised, caller, system() (-w), proc/sched/sdt probes
start stack kdt -q -n "$READY" -n 'fbt::__x64_sys_getppid:entry /execname == "getppid-loop"/ { stack(); printf("caller %a\n", caller); exit(0); }'
/bin/getppid-loop 3
wait "$(cat "$R/stack.pid")"
echo $? > "$R/stack.rc"
start stack2 kdt -q -n "$READY" -n 'fbt::__x64_sys_getppid:entry /execname == "getppid-loop"/ { @s[stack()] = count(); }' \
    -n 'END { printa("%k%@d\n", @s); }'
/bin/getppid-loop 10
stop stack2
run system kdt -q -w -n 'BEGIN { system("echo from system %d", 42); exit(0); }'
run system_now kdt -q -n 'BEGIN { system("echo no"); exit(0); }'
start proc kdt -q -n "$READY" \
    -n 'proc:::exec-success /execname == "getppid-loop"/ { printf("exec %s\n", stringof((char *)arg0)); }' \
    -n 'proc:::exit /execname == "getppid-loop"/ { printf("exit reason %d status %d\n", arg0, arg1); }' \
    -n 'sched:::on-cpu { @on = count(); }' \
    -n 'sdt:raw_syscalls::sys_enter /execname == "getppid-loop" && arg1 == 110/ { @tp = count(); }' \
    -n 'END { printa("on-cpu %@d\n", @on); printa("sys_enter getppid %@d\n", @tp); }'
/bin/getppid-loop 50
stop proc
# a module loaded while tracing: its functions are matched as it comes
# (-Z: xor is not loaded yet, so the description matches nothing now)
start mod kdt -q -Z -n "$READY" -n 'fbt:xor::entry { @[probemod, probefunc] = count(); }'
modprobe xor
stop mod
# probe ids of a module's probes are retired when it goes (tst.live-list):
# when it comes back its probes get new ids, vmlinux's keep theirs
MODIDS="fbt:xor:xor_blocks:entry syscall::getppid:entry"
run modid1 kdt -l -n "${MODIDS% *}" -n "${MODIDS#* }"
rmmod xor
run modid2 kdt -l -n "${MODIDS% *}" -n "${MODIDS#* }"
modprobe xor
run modid3 kdt -l -n "${MODIDS% *}" -n "${MODIDS#* }"

# ---- tst.live-provglob: provider parts that are globs or empty reach
# every provider they can name (kd_ecb_provs()), also as a module comes
i=0
for d in 'sysc?ll::getppid:entry' '*ched:::wakeup' 'lock*:::contention-begin' \
    '[ef]bt::vfs_read:entry' 'pro[!c]*:::tick-1sec' ':::END'; do
	i=$((i + 1))
	run provglob$i kdt -n "$d" -n 'BEGIN { exit(0); }'
done
rmmod xor
start provmod kdt -q -Z -n "$READY" \
    -n '?bt:xor::entry { @[probeprov, probemod, probefunc] = count(); }'
modprobe xor
stop provmod

# ---- tst.live-upid: pid and USDT probes of -c and -p processes
# (/bin/upid-test N calls work(i) for i = 1..N and fires kdttest:::tick)
run upid_entry kdt -c '/bin/upid-test 500' \
    -n 'pid$target:a.out:work:entry { @c = count(); @s = sum(arg0); }'
run upid_return kdt -q -c '/bin/upid-test 500' \
    -n 'pid$target::work:return { @n = count(); @r = sum(arg1); }' \
    -n 'END { printa("returns %@d\n", @n); printa("sum of arg1 %@d\n", @r); }'
run upid_usdt kdt -q -c '/bin/upid-test 500' \
    -n 'kdttest$target:::tick { @[copyinstr(arg1)] = count(); @t = sum(arg0); }' \
    -n 'END { printa("%s %@d\n", @); printa("sum of arg0 %@d\n", @t); }'
# the toolkit's USDT script (tst.toolkit judges it)
run tk_usdt kdt -s /toolkit/usdt-events.d -c '/bin/upid-test 300' kdttest
# a PIE on the shared libc: -c runs it to its entry point, so libc is
# mapped when the probes are resolved
run upid_pie kdt -q -c '/bin/upid-pie 200' \
    -n 'pid$target:a.out:work:entry { @w = count(); }' \
    -n 'pid$target:libc.so.6:exit:entry { printf("exit(%d)\n", arg0); }' \
    -n 'END { printa("work %@d\n", @w); }'
# -p: the workload waits for a line on its stdin until kdt is ready
rm -f /tmp/upid.fifo
mkfifo /tmp/upid.fifo
exec 3<> /tmp/upid.fifo
/bin/upid-test 300 wait < /tmp/upid.fifo &
UP=$!
i=0
while [ "$(readlink /proc/$UP/exe)" != /bin/upid-test ] && [ $i -lt 100 ]; do
	i=$((i + 1))
	sleep 0.1
done
echo "$UP" > "$R/upid_p.target"
start upid_p kdt -q -p "$UP" -n "$READY" \
    -n 'pid$target:a.out:work:entry { @w = count(); }' \
    -n 'kdttest$target:::tick /arg0 == 300/ { printf("last tick %d %s\n", arg0, copyinstr(arg1)); }' \
    -n 'END { printa("work %@d\n", @w); }'
echo go >&3
exec 3>&-
wait "$UP"
echo $? > "$R/upid_p.workrc"
wait "$(cat "$R/upid_p.pid")"
echo $? > "$R/upid_p.rc"
run upid_list kdt -l -c '/bin/upid-test 5' -n 'pid$target:a.out:work:' \
    -n 'kdttest$target:::'
run upid_nopid kdt -n 'pid999999:a.out:work:entry'
run upid_nop kdt -p 999999 -n 'BEGIN { exit(0); }'
run upid_nocmd kdt -c '/bin/no-such-command' -n 'BEGIN { exit(0); }'

tar -czf - -C "$R" . > /dev/ttyS1
