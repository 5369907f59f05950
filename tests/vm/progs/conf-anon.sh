#!/bin/sh
#
# conf-anon.sh -- the guest half of tests/vm/conformance-anon: every kdt
# command tests/conformance/kdt-record recorded on the host (line N of
# /conf/list: "cwd<TAB>shell-quoted arguments") is run as an ANONYMOUS
# enabling instead of a live session, through module mode's own path:
#
#   kdt -A -o DIR ARGS          compile, as `kdt -A -s x.d` would
#   rmmod kdt; cp DIR/anon.dof /lib/firmware/kdt/anon.dof
#   insmod kdt.ko anon=1 region=$REGION
#                               kdt.ko takes the DOF with request_firmware,
#                               lays it out in the reserved region and
#                               enables it, exactly as at boot
#   kdt -a                      claim: print what was buffered since the
#                               enabling, go on until the program's exit()
#
# A program that fails to compile keeps the compiler's stderr and status
# (as a live run would).  N.out, N.err and N.rc go back to the host as a
# gzip'd tar over the second serial port, for kdt-replay to judge.
#
R=/tmp/conf
A=/tmp/anon
REGION=${REGION:-16M@0x10000000}
rm -rf "$R"
mkdir -p "$R"
n=0
while IFS='	' read -r dir args; do
	n=$((n + 1))
	rm -rf "$A"
	(cd "$dir" && eval "TZ=UTC LC_ALL=C kdt -A -o $A $args" \
	    > /dev/null 2> "$R/$n.err" < /dev/null)
	rc=$?
	if [ "$rc" != 0 ] || [ ! -f "$A/anon.dof" ]; then
		: > "$R/$n.out"
		echo "$rc" > "$R/$n.rc"
		continue
	fi
	rmmod kdt 2> /dev/null
	cp "$A/anon.dof" /lib/firmware/kdt/anon.dof
	if ! insmod /lib/modules/kdt.ko anon=1 "region=$REGION" 2> "$R/$n.err"; then
		: > "$R/$n.out"
		echo 125 > "$R/$n.rc"
		continue
	fi
	(cd "$dir" && TZ=UTC LC_ALL=C timeout 30 kdt -a \
	    > "$R/$n.out" 2> "$R/$n.err" < /dev/null)
	echo $? > "$R/$n.rc"
done < /conf/list
rmmod kdt 2> /dev/null
echo "conf-anon.sh: $n programs run as anonymous enablings"
tar -czf - -C "$R" . > /dev/ttyS1
