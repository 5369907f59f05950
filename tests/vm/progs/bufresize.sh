#!/bin/sh
# tests/vm/progs/bufresize.sh -- the guest half of tst.live-bufresize (see
# it).  Results go back as a gzip'd tar on /dev/ttyS1.
R=/tmp/r
mkdir -p $R

run()
{
	n=$1
	shift
	"$@" > $R/$n.out 2> $R/$n.err
	echo $? > $R/$n.rc
}

P='BEGIN { trace("hello"); exit(0); }'
A='BEGIN { @n = count(); exit(0); } END { printa("%@d\n", @n); }'
run buf_auto kdt -q -x bufsize=2g -n "$P"
run buf_auto_ring kdt -q -x bufsize=2g -x bufpolicy=ring -n "$P"
run buf_manual kdt -q -x bufsize=2g -x bufresize=manual -n "$P"
run buf_fits kdt -q -x bufsize=1m -x bufresize=manual -n "$P"
run agg_auto kdt -q -x aggsize=2g -n "$A"
run agg_manual kdt -q -x aggsize=2g -x bufresize=manual -n "$A"
grep -E 'MemTotal' /proc/meminfo > $R/meminfo
dmesg > $R/dmesg
tar -czf - -C $R . > /dev/ttyS1
