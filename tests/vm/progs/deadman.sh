#!/bin/sh
# tests/vm/progs/deadman.sh -- the guest half of tst.live-deadman (see it).
# Results go back as a gzip'd tar on /dev/ttyS1.
R=/tmp/r
mkdir -p $R
P=/sys/module/kdt/parameters
D='tick-100ms { @n = count(); }'

cat $P/deadman_timeout > $R/default_timeout
cat $P/deadman_interval_ms > $R/default_ival
echo 5 2> /dev/null > $P/deadman_interval_ms
echo $? > $R/bad_ival.rc
echo 3601 2> /dev/null > $P/deadman_timeout
echo $? > $R/bad_timeout.rc
echo 3 > $P/deadman_timeout
echo 250 > $P/deadman_interval_ms
cat $P/deadman_timeout $P/deadman_interval_ms > $R/set

# cut: stopped for 6 s, twice the timeout
kdt -q -n "$D" -n 'tick-14s { exit(0); }' > $R/cut.out 2> $R/cut.err &
pid=$!
sleep 4
kill -STOP $pid
cut -d' ' -f1 /proc/uptime > $R/cut.stopped
sleep 6
kill -CONT $pid
wait $pid
echo $? > $R/cut.rc

# kept: stopped for 1 s, a third of the timeout
kdt -q -n "$D" -n 'tick-7s { exit(0); }' > $R/kept.out 2> $R/kept.err &
pid=$!
sleep 4
kill -STOP $pid
sleep 1
kill -CONT $pid
wait $pid
echo $? > $R/kept.rc

dmesg > $R/dmesg
tar -czf - -C $R . > /dev/ttyS1
