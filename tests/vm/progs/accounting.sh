#!/bin/sh
#
# accounting.sh -- the guest half of tst.live-accounting: a workload with
# a known number of events (/bin/seqcall: N getppid() calls on each CPU,
# arg0 a sequence number) traced with count() and with printf() into
# small buffers under each buffer policy.  Each command NAME leaves
# $R/NAME.out, NAME.err and NAME.rc; the scenario judges them.
#
set +e
R=/tmp/accounting
N=${N:-20000}
rm -rf "$R"
mkdir -p "$R"

run()
{
	n=$1
	shift
	echo "accounting: $n"
	"$@" > "$R/$n.out" 2> "$R/$n.err"
	echo $? > "$R/$n.rc"
}

P='syscall::getppid:entry /execname == "seqcall"/'
F='fbt::__x64_sys_getppid:entry /execname == "seqcall"/'
# the same workload through a predicate the gate decides (seqcall's
# workers are children of the -c process): the record runs below take
# ecb.c's simple-record path (ecb_fire_simple), trace_big the general one
S='syscall::getppid:entry /ppid == $target/'
# counts: exact per CPU, through the syscall provider and through fbt
run count_sys kdt -q -n "$P { @[cpu] = count(); }" \
    -n 'END { printa("cpu %d %@d\n", @); }' -c "/bin/seqcall $N"
run count_fbt kdt -q -n "$F { @[cpu] = count(); }" \
    -n 'END { printa("cpu %d %@d\n", @); }' -c "/bin/seqcall $N"
# records into a one-page buffer: every firing is printed or counted as
# a drop (switch), the newest survive (ring), the oldest do (fill)
for pol in switch ring fill; do
	run "trace_$pol" kdt -q -x bufsize=4k -x bufpolicy=$pol \
	    -n "$S { printf(\"%d %d\\n\", cpu, arg0); }" -c "/bin/seqcall $N"
done
# switch again, consumed 100 times a second: many buffer switches, some
# drops; still printed + dropped = N
run trace_switchfast kdt -q -x bufsize=4k -x switchrate=100hz \
    -n "$S { printf(\"%d %d\\n\", cpu, arg0); }" -c "/bin/seqcall $N"
# a large buffer and a fast switchrate: nothing is dropped at all
run trace_big kdt -q -x bufsize=4m -x switchrate=10hz \
    -n "$P { printf(\"%d %d\\n\", cpu, arg0); }" -c "/bin/seqcall $N"
echo "$N" > "$R/N"
nproc > "$R/ncpu" 2> /dev/null || grep -c ^processor /proc/cpuinfo > "$R/ncpu"
dmesg > "$R/dmesg"
tar -czf - -C "$R" . > /dev/ttyS1
