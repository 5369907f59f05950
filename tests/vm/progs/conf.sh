#!/bin/sh
#
# conf.sh -- the guest half of tst.conformance-kernel: runs every kdt
# command tests/conformance/kdt-record recorded on the host (line N of
# /conf/list: "cwd<TAB>shell-quoted arguments"), on kdt.ko this time,
# in the recorded directory (the suite is unpacked at the host's path),
# and keeps N.out, N.err and N.rc in /tmp/conf; they go back to the host
# as a gzip'd tar over the second serial port.
#
R=/tmp/conf
rm -rf "$R"
mkdir -p "$R"
n=0
while IFS='	' read -r dir args; do
	n=$((n + 1))
	(cd "$dir" && eval "TZ=UTC LC_ALL=C timeout 30 kdt $args" \
	    > "$R/$n.out" 2> "$R/$n.err" < /dev/null)
	echo $? > "$R/$n.rc"
done < /conf/list
echo "conf.sh: $n programs run"
tar -czf - -C "$R" . > /dev/ttyS1
