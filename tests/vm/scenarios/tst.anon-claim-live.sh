#!/usr/bin/env bash
#
# tst.anon-claim-live: "kdt -a" claims the anonymous state and keeps
# consuming it like a live session.  One QEMU, two boots (kdt-vm --boots;
# the guest tells them apart by /dev/kdt-previous, which only the second
# boot has), the enabling tst.anon-claim-live.d:
#
#   boot 1: kdt -a in the background prints what /init's modules recorded
#           since boot; crc7, loaded after the claim, arrives while it runs
#           (checked before it is stopped); a second kdt -a is refused
#           naming the claimer's pid; non-root is refused; SIGINT ends it:
#           END's line, then the aggregation, exit 0; a third kdt -a says
#           the claimed state has ended; then reboot -f.
#   boot 2: kdt -a in the background; loading xor makes the program call
#           exit(3): kdt ends by itself with status 3, END's line and the
#           aggregation printed.  Then kdt.ko is reloaded with a second
#           enabling (tst.anon-claim-live.fill: bufpolicy=fill, read and
#           write entries, a fault in BEGIN) in a 2 MiB region, dd fills
#           its buffers, and kdt -a reports the fault and the drops as
#           dtrace does and stops at once (a full fill buffer ends
#           tracing), exit 0.  Last, kdt.ko is reloaded with the first
#           enabling again and SIGTERM ends kdt -a as SIGINT does.
#
# Every record is printed exactly once (a line per module, no repeats).
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
d=$(dirname "$0")
work=$(mktemp -d "$KV_TOP/build/vm-anon-claim-live.XXXXXX")
trap 'rm -rf "$work"' EXIT

cat > "$work/guest.sh" <<'EOF'
set +e
R=/tmp/r
mkdir -p $R
# wait_for FILE TEXT: until FILE has the line TEXT (30 s at most)
wait_for()
{
	i=0
	while ! grep -qx "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 300 ] && return 1
		sleep 0.1
	done
	return 0
}
if [ ! -e /dev/kdt-previous ]; then
	B=$R/b1
	mkdir -p $B
	kdt -a > $B/a.out 2> $B/a.err &
	A=$!
	echo $A > $B/a.pid
	wait_for $B/a.out 'init module pvpanic_mmio' && echo ok > $B/boot.seen
	modprobe crc7
	wait_for $B/a.out 'init module crc7' && echo ok > $B/live.seen
	kdt -a > $B/second.out 2> $B/second.err
	echo $? > $B/second.rc
	su nobody -s /bin/sh -c 'kdt -a' > $B/nonroot.out 2> $B/nonroot.err
	echo $? > $B/nonroot.rc
	kill -INT $A
	wait $A
	echo $? > $B/a.rc
	kdt -a > $B/third.out 2> $B/third.err
	echo $? > $B/third.rc
	tar -cz -C $R b1 > /dev/ttyS1
	sleep 1
	reboot -f
	sleep 30
fi
B=$R/b2
mkdir -p $B
cp /lib/firmware/kdt/anon.dof /tmp/first.dof
kdt -a > $B/a.out 2> $B/a.err &
A=$!
wait_for $B/a.out 'init module qemu_fw_cfg' && echo ok > $B/boot.seen
modprobe xor
wait $A
echo $? > $B/a.rc
rmmod kdt
cp /fill.dof /lib/firmware/kdt/anon.dof
insmod /lib/modules/kdt.ko anon=1 region=2M@0x10000000
dd if=/dev/zero of=/dev/null bs=1 count=100000 2> /dev/null
kdt -a > $B/fill.out 2> $B/fill.err
echo $? > $B/fill.rc
rmmod kdt
cp /tmp/first.dof /lib/firmware/kdt/anon.dof
insmod /lib/modules/kdt.ko anon=1 region=2M@0x10000000
kdt -a > $B/term.out 2> $B/term.err &
A=$!
wait_for $B/term.out 'anon begin'
modprobe crc7
wait_for $B/term.out 'init module crc7' && echo ok > $B/term.seen
kill -TERM $A
wait $A
echo $? > $B/term.rc
tar -cz -C $R b2 > /dev/ttyS1
EOF
cat > "$work/fill.d" <<'EOF'
#pragma D option quiet
#pragma D option bufpolicy=fill

BEGIN
{
	trace(*(int *)8);
}

syscall::read:entry, syscall::write:entry
{
	printf("%d\n", arg2);
}
EOF
"$KV_KDT" -A -o "$work/fill" -s "$work/fill.d" \
    "--btf=$KV_TOP/build/kernel/vmlinux" > /dev/null ||
    kv_fail "kdt -A of the fill-policy program failed"

"$KV_VM" --script "$d/tst.anon-claim-live.d" --add-kdt --boots 2 \
    --modules crc7,xor --add "$work/guest.sh:/guest.sh" \
    --add "$work/fill/anon.dof:/fill.dof" \
    --add "$KV_TOP/tests/vm/progs/passwd:/etc/passwd" \
    --add "$KV_TOP/tests/vm/progs/group:/etc/group" \
    --run 'sh /guest.sh' --guest-out "$work/res.tgz" \
    --serial-log "$work/serial.log" --workdir "$work/vm" \
    --prefix 'guest| ' || kv_fail "boot failed"
mkdir -p "$work/r"
tar -xzi -f "$work/res.tgz" -C "$work/r" ||
    kv_fail "the guest's results do not unpack"
r=$work/r
for f in $(cd "$r" && find . -type f ! -name fill.out | sort); do
	echo "--- ${f#./}:"
	cat "$r/$f"
done
echo "--- b2/fill.out: $(wc -l < "$r/b2/fill.out") lines"
head -5 "$r/b2/fill.out"
if grep -E 'WARNING:|BUG:|Call Trace' "$work/serial.log"; then
	kv_fail "kernel warnings (serial log above)"
fi

# check_lines FILE LINE...: FILE's lines before the blank line that
# ends the records are exactly LINE... in some order (each once).
check_lines()
{
	local f=$1
	shift
	diff -u <(printf '%s\n' "$@" | sort) \
	    <(sed '/^$/q' "$f" | grep -v '^$' | sort) ||
	    kv_fail "$f: not each record exactly once"
}

# boot 1
b=$r/b1
pid=$(cat "$b/a.pid")
[ -f "$b/boot.seen" ] || kv_fail "boot 1: the records since boot never came"
[ -f "$b/live.seen" ] ||
    kv_fail "boot 1: crc7, loaded after the claim, did not arrive while kdt -a ran"
[ "$(cat "$b/a.rc")" = 0 ] || kv_fail "boot 1: kdt -a exited $(cat "$b/a.rc")"
[ ! -s "$b/a.err" ] || kv_fail "boot 1: kdt -a wrote errors"
check_lines "$b/a.out" "anon begin" "init module qemu_fw_cfg" \
    "init module pvpanic" "init module pvpanic_mmio" "init module crc7"
# SIGINT: dtrace's newline, END's line, the aggregation
sed -n '/^$/,$p' "$b/a.out" | diff -u - <(cat <<'EOF'

anon end

  crc7                                                              1
  pvpanic                                                           1
  pvpanic_mmio                                                      1
  qemu_fw_cfg                                                       1
EOF
) || kv_fail "boot 1: not END and the aggregation after SIGINT"
[ "$(cat "$b/second.rc")" = 1 ] || kv_fail "second claim: exit $(cat "$b/second.rc")"
echo "kdt: the anonymous state is already claimed by pid $pid; see kdt(1), ANONYMOUS TRACING" |
    diff -u - "$b/second.err" || kv_fail "second claim: wrong message"
[ "$(cat "$b/nonroot.rc")" = 1 ] || kv_fail "non-root claim: exit $(cat "$b/nonroot.rc")"
echo "kdt: /dev/kdt: permission denied: claiming the anonymous state needs root (CAP_SYS_ADMIN); see kdt(1), DEVICE ACCESS" |
    diff -u - "$b/nonroot.err" || kv_fail "non-root claim: wrong message"
[ "$(cat "$b/third.rc")" = 1 ] || kv_fail "claim after the end: exit $(cat "$b/third.rc")"
echo "kdt: no anonymous state to claim: it was claimed by pid $pid and ended when that process closed /dev/kdt; the region keeps its records; see kdt(1), ANONYMOUS TRACING" |
    diff -u - "$b/third.err" || kv_fail "claim after the end: wrong message"

# boot 2
b=$r/b2
[ -f "$b/boot.seen" ] || kv_fail "boot 2: the records since boot never came"
[ "$(cat "$b/a.rc")" = 3 ] || kv_fail "boot 2: kdt -a exited $(cat "$b/a.rc"), want exit()'s 3"
check_lines "$b/a.out" "anon begin" "init module qemu_fw_cfg" \
    "init module pvpanic" "init module pvpanic_mmio" "init module xor" \
    "anon end"
sed -n '/^$/,$p' "$b/a.out" | diff -u - <(cat <<'EOF'

  pvpanic                                                           1
  pvpanic_mmio                                                      1
  qemu_fw_cfg                                                       1
  xor                                                               1
EOF
) || kv_fail "boot 2: not the aggregation after exit()"
# SIGTERM
[ -f "$b/term.seen" ] || kv_fail "term: crc7 did not arrive while kdt -a ran"
[ "$(cat "$b/term.rc")" = 0 ] || kv_fail "term: kdt -a exited $(cat "$b/term.rc")"
diff -u - "$b/term.out" <<'EOF' || kv_fail "term: not the records, END and the aggregation"
anon begin
init module crc7

anon end

  crc7                                                              1
EOF

# the fill-policy enabling: the fault, the drops, stopped at once
[ "$(cat "$b/fill.rc")" = 0 ] || kv_fail "fill: kdt -a exited $(cat "$b/fill.rc")"
grep -Eqx 'kdt: error on enabled probe ID 1 \(ID 1: dtrace:::BEGIN\): invalid address \(0x8\) in action #1 at DIF offset [0-9]+' \
    "$b/fill.err" || kv_fail "fill: BEGIN's fault is not reported as dtrace does"
grep -Eq '^kdt: [0-9]+ drops? on CPU [01]$' "$b/fill.err" ||
    kv_fail "fill: the drops are not reported"
# the 2M region cannot give each of 2 CPUs the default 4m: said once,
# before the records, as dtrace says a lowered size
grep -Eqx 'kdt: buffer size lowered to [0-9]+ \(the 2m region is divided among 2 CPUs; the enabling asked for 4m per CPU: .*\)' \
    "$b/fill.err" || kv_fail "fill: the lowered buffer size is not reported"
grep -vEx 'kdt: error on enabled probe ID 1 .*|kdt: [0-9]+ drops? on CPU [01]|kdt: buffer size lowered to .*' \
    "$b/fill.err" && kv_fail "fill: unexpected messages"
[ "$(grep -cx 1 "$b/fill.out")" -gt 1000 ] ||
    kv_fail "fill: not the records of dd's one-byte reads and writes"
echo "PASS"
