#!/bin/sh
#
# guest.sh -- the guest half of bench/run-boot-overhead, run by /init
# (boot/init) as the scenario's commands once the initramfs has done its
# work: kdt.ko (module mode) or the built-in kdt has armed the anonymous
# enabling, the QEMU helpers and the --load modules are loaded.
#
# The instant measured is the line "boot-bench: end of initramfs" that
# run-boot-overhead's first --run command writes to /dev/kmsg before this
# script starts: its printk time, under -icount shift=0,sleep=off, is the
# number of guest instructions executed since the kernel's clock started.
# Everything here runs after that instant and costs nothing measured.
#
# Usage: sh /bb/guest.sh CLAIM FUNCS [REHEARSE]
#   CLAIM  1: claim the anonymous state with "kdt -ae" (prints the
#          enabling's aggregations: proof that it traced the boot)
#   FUNCS  1: also send available_filter_functions (the functions whose
#          entry kprobes puts on ftrace) and the kprobe blocklist:
#          run-boot-overhead picks the N-probe enablings from them
#   REHEARSE  1: kdt -A --estimate -s /bb/est/CFG.d for every script
#          there (no calibration: the arming rehearsal alone), into
#          est.CFG
#
# Output, one gzipped tar on the raw second serial port (/dev/ttyS1):
#   kplist    /sys/kernel/debug/kprobes/list (the armed kprobes)
#   dmesg     the kernel log (printk times, kdt's messages, WARNING/BUG)
#   claim, claim.err, claim.rc   kdt -ae's output and status (CLAIM=1)
#   funcs     available_filter_functions (FUNCS=1)
#   blacklist /sys/kernel/debug/kprobes/blacklist (FUNCS=1)
#   kallsyms  /proc/kallsyms (FUNCS=1)
#   est.CFG   kdt -A --estimate's output and errors (REHEARSE=1)
#   enabled_functions  /sys/kernel/tracing/enabled_functions: the functions
#             ftrace calls out from, with their callbacks
#   uptime    /proc/uptime now
#
set +e
CLAIM=$1
FUNCS=$2
R=/tmp/bb
mkdir -p $R
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
cat /sys/kernel/debug/kprobes/list > $R/kplist 2>&1
cat /sys/kernel/tracing/enabled_functions > $R/enabled_functions 2>&1
if [ "$CLAIM" = 1 ]; then
	kdt -ae > $R/claim 2> $R/claim.err
	echo $? > $R/claim.rc
fi
if [ "$3" = 1 ]; then
	for f in /bb/est/*.d; do
		KDT_CALIBRATION=/nonexistent kdt -A --estimate -s $f \
		    > $R/est.$(basename $f .d) 2>&1
	done
fi
if [ "$FUNCS" = 1 ]; then
	cat /sys/kernel/tracing/available_filter_functions > $R/funcs
	cat /sys/kernel/debug/kprobes/blacklist > $R/blacklist
	cat /proc/kallsyms > $R/kallsyms
fi
cat /proc/uptime > $R/uptime
dmesg > $R/dmesg
tar -cz -C $R . > /dev/ttyS1
exit 0
