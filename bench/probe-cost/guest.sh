#!/bin/sh
#
# guest.sh -- the guest half of bench/run-probe-cost: every configuration
# measured as interleaved on/off pairs of /bin/bench chunks inside ONE
# boot (the method of /work/shared/reference/perf-anchors.md, section 2.2).
#
# Usage (as tests/vm/kdt-vm --run): sh /pc/guest.sh PAIRS CHUNK REPS SETTLE BPF
#   PAIRS   on/off pairs per configuration
#   CHUNK   getppid() calls per timed run (bench also makes 2,000 warm-up
#           calls first)
#   REPS    timed runs per chunk; the chunk's value is the fastest (bench.c)
#   SETTLE  seconds between a state change and the chunk that measures it
#   BPF     1: /bin/bpftrace is in the initramfs, run its rows
#
# Every line of the result file goes back to the host as it is, on the raw
# second serial port (/dev/ttyS1); bench/run-probe-cost parses them:
#   RESULT LABEL WALL CPU     one chunk (bench.c), LABEL = ID_off|ID_on|ID_after
#   KPLIST ID LINE            a line of kprobes/list that ID added
#   LEFT ID LINE              a kprobes/list line still there after ID ended
#   HITS ID N WANT            firings the floor module counted, and the calls
#   STATS ID ENTRIES OVERRUN  ftrace ring buffer (all CPUs) after ID
#   HIST ID LINE              hist trigger total after its last "on" chunk
#   RC ID PAIR STATUS         exit status of a kdt/bpftrace consumer
#   FAIL ID REASON            ID could not be measured as asked
#   NOTE ID TEXT              anything else worth printing (bpftrace output)
#
# Toggling.  Floors and ftrace are turned on and off through their control
# files, so one pair is: off, chunk, on, chunk.  A kdt or bpftrace
# enabling has no such knob, so each "on" chunk runs while a consumer
# started for that pair is running, and it is stopped with SIGINT (as ^C)
# and waited for before the next "off" chunk: every off chunk after the
# first is also a "disabled probe" measurement, and one more off chunk
# (ID_after) follows the last pair.  kdt runs with -q and its output to
# /dev/null; its BEGIN clause runs system("touch ...") (hence -w), which
# the consumer does only once BEGIN has fired, i.e. once every probe of
# the enabling is armed.  bpftrace is ready when its kprobe is in
# kprobes/list (its "Attaching" line may sit in stdio's buffer until it
# exits) and SETTLE has passed: it opens, attaches and enables the perf
# event in one go.
#
set +e
PAIRS=$1
CHUNK=$2
REPS=$3
SETTLE=$4
BPF=$5
R=/tmp/pc
OUT=$R/results
T=/sys/kernel/tracing
KL=/sys/kernel/debug/kprobes/list
KP=/sys/module/kpcount/parameters
TP=/sys/module/tpcount/parameters
mkdir -p $R
: > $OUT
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs $T 2>/dev/null

say()
{
	echo "$*" >> $OUT
}

# progress on the console, with the guest clock (instructions under icount)
step()
{
	echo "probe-cost: $1 at $(cut -d' ' -f1 /proc/uptime)s"
}

chunk()
{
	/bin/bench $CHUNK "$1" $REPS >> $OUT 2>&1
}

# the list, sorted, after a line no kprobe has: busybox grep -f with an
# empty pattern file matches every line, so a pattern file is never empty
kplist()
{
	echo '#'
	cat $KL 2>/dev/null | sort
}

# newlines ID BEFORE-FILE TAG: the kprobes/list lines not in BEFORE-FILE
newlines()
{
	kplist > $R/kl.now
	grep -vxF -f "$2" $R/kl.now | while read -r l; do
		say "$3 $1 $l"
	done
}

# pairs ID ON-CMD OFF-CMD [CHECK-CMD]: toggled through control files;
# CHECK-CMD runs once, after the first "on" chunk
pairs()
{
	step "$1"
	k=1
	while [ $k -le $PAIRS ]; do
		eval "$3"
		sleep $SETTLE
		chunk "$1_off"
		eval "$2"
		sleep $SETTLE
		chunk "$1_on"
		if [ $k = 1 ] && [ -n "$4" ]; then
			eval "$4"
		fi
		k=$((k + 1))
	done
	eval "$3"
	sleep $SETTLE
	chunk "$1_after"
}

# every probe reads the clock: say which one (hpet is an MMIO read)
say "NOTE clock $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

# ---- z: A/A control, f0/fopt: bare kprobe, g: bare tracepoint --------------
pairs z 'echo 1 > /dev/null' 'echo 0 > /dev/null'

WANT=$((PAIRS * (CHUNK * REPS + 2000)))
kplist > $R/kl.base
for f in f0:0 fopt:11; do
	id=${f%%:*}
	if ! insmod /pc/kpcount.ko off=${f#*:} 2> $R/err; then
		say "FAIL $id insmod kpcount.ko off=${f#*:}: $(cat $R/err)"
		continue
	fi
	# an optprobe is optimized a few jiffies after it is armed
	[ $id = fopt ] && S0=$SETTLE && SETTLE=0.5
	pairs $id "echo 1 > $KP/armed" "echo 0 > $KP/armed" \
	    "newlines $id $R/kl.base KPLIST"
	[ $id = fopt ] && SETTLE=$S0
	say "HITS $id $(cat $KP/hits) $WANT"
	rmmod kpcount
done

if insmod /pc/tpcount.ko 2> $R/err; then
	pairs g "echo 1 > $TP/armed" "echo 0 > $TP/armed"
	say "HITS g $(cat $TP/hits) $WANT"
	rmmod tpcount
else
	say "FAIL g insmod tpcount.ko: $(cat $R/err)"
fi

# ---- ftrace ----------------------------------------------------------------
ftstats()
{
	e=0
	o=0
	for s in $T/per_cpu/cpu*/stats; do
		e=$((e + $(sed -n 's/^entries: //p' $s)))
		o=$((o + $(sed -n 's/^overrun: //p' $s)))
	done
	say "STATS $1 $e $o"
	echo > $T/trace
}

echo 0 > $T/tracing_on
echo > $T/trace
echo 1 > $T/tracing_on
E=$T/events/kprobes
# kpevent NAME DEFINITION: create one kprobe event; only one exists at a
# time, since several kprobes on one address become an aggregate kprobe
# whose handler walks them all (about 50 instructions more per call)
kpevent()
{
	if ! echo "$2" >> $T/kprobe_events 2> $R/err; then
		say "FAIL $1 cannot create the kprobe event '$2': $(cat $R/err)"
		return 1
	fi
}

kpgone()
{
	echo "-:$1" >> $T/kprobe_events
}

if kpevent c 'p:pcprobe __x64_sys_getppid'; then
	echo 'common_pid < 0' > $E/pcprobe/filter
	pairs c "echo 1 > $E/pcprobe/enable" "echo 0 > $E/pcprobe/enable" \
	    "newlines c $R/kl.base KPLIST"
	ftstats c
	echo 0 > $E/pcprobe/filter
	pairs b "echo 1 > $E/pcprobe/enable" "echo 0 > $E/pcprobe/enable"
	ftstats b
	kpgone pcprobe
fi
if kpevent b3 'p:pcprobe3 __x64_sys_getppid a0=%di a1=%si a2=%dx'; then
	pairs b3 "echo 1 > $E/pcprobe3/enable" "echo 0 > $E/pcprobe3/enable"
	ftstats b3
	kpgone pcprobe3
fi
H='hist:keys=common_pid'
for d in 'd:p:pcprobe' 'dr:r:pcret'; do
	id=${d%%:*}
	ev=${d#*:}
	kpevent $id "$ev __x64_sys_getppid" || continue
	ev=$E/${ev#*:}
	pairs $id "echo '$H' > $ev/trigger" "echo '!$H' > $ev/trigger" \
	    "grep -m1 'Hits:' $ev/hist | sed 's/^/HIST $id /' >> $OUT"
	ftstats $id
	kpgone ${ev##*/}
done
pairs e "echo 1 > $T/events/raw_syscalls/sys_enter/enable" \
    "echo 0 > $T/events/raw_syscalls/sys_enter/enable"
ftstats e
newlines ftrace $R/kl.base LEFT

# ---- kdt -------------------------------------------------------------------
# kdtpairs ID PROGRAM
kdtpairs()
{
	step "$1"
	kplist > $R/kl.before
	k=1
	while [ $k -le $PAIRS ]; do
		chunk "$1_off"
		rm -f $R/ready
		kdt -q -w -n 'BEGIN { system("touch /tmp/pc/ready"); }' \
		    -n "$2" > /dev/null 2> $R/$1.err &
		pid=$!
		i=0
		while [ ! -f $R/ready ] && kill -0 $pid 2>/dev/null; do
			i=$((i + 1))
			[ $i -gt 1200 ] && break
			sleep 0.05
		done
		if [ ! -f $R/ready ]; then
			kill -INT $pid 2>/dev/null
			wait $pid
			say "FAIL $1 kdt was not ready (exit $?): $(head -c 300 $R/$1.err | tr '\n' ' ')"
			return
		fi
		sleep $SETTLE
		[ $k = 1 ] && newlines $1 $R/kl.before KPLIST
		chunk "$1_on"
		kill -INT $pid
		wait $pid
		say "RC $1 $k $?"
		k=$((k + 1))
	done
	chunk "$1_after"
	newlines $1 $R/kl.before LEFT
	[ -s $R/$1.err ] && say "NOTE $1 stderr: $(head -c 300 $R/$1.err | tr '\n' ' ')"
}

F=fbt::__x64_sys_getppid
kdtpairs k_pred "$F:entry /pid == 999999/ { }"
kdtpairs k_count "$F:entry { @ = count(); }"
kdtpairs k_pid "$F:entry { @[pid] = count(); }"
kdtpairs k_quant "$F:entry { @[execname] = quantize(arg0); }"
kdtpairs k_trace "$F:entry { trace(arg0); }"
kdtpairs k_printf "$F:entry { printf(\"%d %d %d\", arg0, arg1, arg2); }"
kdtpairs k_ret "$F:return { @ = count(); }"
kdtpairs k_sys 'syscall::getppid:entry { @ = count(); }'
kdtpairs k_sdt 'sdt:raw_syscalls::sys_enter { @ = count(); }'

# ---- the probe-effect estimator against the rows above (issue 7) ---------
# kdt --calibrate measures its model's items on this very guest; then
# kdt --estimate predicts each kdt row (PRED-FALSE for k_pred, FIRING for
# the others), in ns: under icount 1 ns is 1 guest instruction, the unit
# of the measured rows.  run-probe-cost prints both side by side.
step k_est
if kdt --calibrate=3 > $R/cal.out 2>&1; then
	sed 's/^/CAL cal /' /var/lib/kdt/calibration >> $OUT
	est()
	{
		kdt --estimate -n "$3" 2> $R/est.err | awk -v id=$1 -v col=$2 \
		    '$1 == "0" { v = (col == "false") ? $(NF - 1) : $NF;
		    gsub(/[~?]/, "", v); print "EST " id " " v }' >> $OUT
	}
	est k_pred false "$F:entry /pid == 999999/ { }"
	est k_count firing "$F:entry { @ = count(); }"
	est k_pid firing "$F:entry { @[pid] = count(); }"
	est k_quant firing "$F:entry { @[execname] = quantize(arg0); }"
	est k_trace firing "$F:entry { trace(arg0); }"
	est k_printf firing "$F:entry { printf(\"%d %d %d\", arg0, arg1, arg2); }"
	est k_ret firing "$F:return { @ = count(); }"
	est k_sys firing 'syscall::getppid:entry { @ = count(); }'
	est k_sdt firing 'sdt:raw_syscalls::sys_enter { @ = count(); }'
else
	say "FAIL k_est kdt --calibrate: $(tail -c 300 $R/cal.out | tr '\n' ' ')"
fi

# ---- bpftrace --------------------------------------------------------------
# btpairs ID PROGRAM
btpairs()
{
	step "$1"
	kplist > $R/kl.before
	k=1
	while [ $k -le $PAIRS ]; do
		chunk "$1_off"
		bpftrace -e "$2" > $R/$1.out 2>&1 &
		pid=$!
		i=0
		while kill -0 $pid 2>/dev/null; do
			kplist > $R/kl.now
			cmp -s $R/kl.now $R/kl.before || break
			i=$((i + 1))
			[ $i -gt 1200 ] && break
			sleep 0.1
		done
		if ! kill -0 $pid 2>/dev/null || [ $i -gt 1200 ]; then
			kill -INT $pid 2>/dev/null
			wait $pid
			say "FAIL $1 bpftrace did not attach (exit $?): $(head -c 400 $R/$1.out | tr '\n' ' ')"
			return
		fi
		sleep $SETTLE
		[ $k = 1 ] && newlines $1 $R/kl.before KPLIST
		chunk "$1_on"
		kill -INT $pid
		wait $pid
		say "RC $1 $k $?"
		k=$((k + 1))
	done
	chunk "$1_after"
	newlines $1 $R/kl.before LEFT
	say "NOTE $1 last output: $(grep -v '^$' $R/$1.out | tail -n 3 | tr '\n' ' ')"
}

if [ "$BPF" = 1 ]; then
	btpairs bt_count 'kprobe:__x64_sys_getppid { @ = count(); }'
	btpairs bt_pid 'kprobe:__x64_sys_getppid { @[pid] = count(); }'
fi

step done
cat $OUT > /dev/ttyS1
exit 0
