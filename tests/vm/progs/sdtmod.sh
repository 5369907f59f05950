#!/bin/sh
# tests/vm/progs/sdtmod.sh -- the guest half of tst.live-sdtmod (see it).
# null_blk gives a blk-mq disk to put the kyber I/O scheduler on; kyber's
# tracepoints (sdt:kyber::kyber_latency, 7 arguments) fire from its timer
# about 100 ms after I/O completes once 500 requests have been sampled.
# Results go back as a gzip'd tar on /dev/ttyS1.
R=/tmp/r
mkdir -p $R
Q=/sys/block/nullb0/queue/scheduler
D='sdt:kyber::kyber_latency /!seen[id]/ { seen[id] = 1; printf("%d %s:%s %s %s %d\n", id, probemod, probename, stringof((char *)arg1), stringof((char *)arg2), arg5); }'

run()
{
	n=$1
	shift
	"$@" > $R/$n.out 2> $R/$n.err
	echo $? > $R/$n.rc
}

# 4000 direct 4 KiB reads: >= 500 samples per kyber timer period
cat > /bin/kyber-io <<'EOS'
#!/bin/sh
echo kyber > /sys/block/nullb0/queue/scheduler || exit 1
dd if=/dev/nullb0 of=/dev/null bs=4k count=4000 iflag=direct 2> /dev/null
sleep 1
echo none > /sys/block/nullb0/queue/scheduler
EOS
# before: loaded before the enabling, unloaded and reloaded under it
cat > /bin/kyber-before <<'EOS'
#!/bin/sh
kyber-io || exit 1
rmmod kyber_iosched && echo "rmmod under the enabling: ok" >> /tmp/r/before.log
modprobe kyber-iosched && echo "modprobe under the enabling: ok" >> /tmp/r/before.log
kyber-io || exit 1
EOS
# during: loaded only while the enabling runs
cat > /bin/kyber-during <<'EOS'
#!/bin/sh
modprobe kyber-iosched || exit 1
kyber-io || exit 1
rmmod kyber_iosched && echo "rmmod under the enabling: ok" >> /tmp/r/during.log
EOS
chmod +x /bin/kyber-io /bin/kyber-before /bin/kyber-during

modprobe null_blk || echo "modprobe null_blk failed"
run list_none kdt -l -n 'sdt:kyber::'
modprobe kyber-iosched
run list_n kdt -l -n 'sdt:kyber::'
run list_P kdt -l -P sdt
run before kdt -q -n "$D" -c /bin/kyber-before
# kyber is loaded again now: the enabling's probes went, the module stays
run list_after kdt -l -n 'sdt:kyber::kyber_latency'
rmmod kyber_iosched
run during kdt -q -Z -n "$D" -c /bin/kyber-during
lsmod > $R/lsmod
dmesg > $R/dmesg
tar -czf - -C $R . > /dev/ttyS1
