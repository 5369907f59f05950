#!/usr/bin/env bash
#
# tst.limits-cpus: resource limits of kdt.ko (issue 8, "Resource limits"),
# in one 4-CPU boot (--tcg-single: probes are disarmed while other vCPUs
# run the probed system call, see tests/vm/README.md):
#
#   cpus      the anonymous region is sized by kdt -A for 2 CPUs (a target
#             root whose /sys/devices/system/cpu/possible says 0-1) and the
#             guest has 4: kdt.ko divides it among the 4 (smaller buffers
#             than asked), and "kdt -a" says so once, in dtrace's words
#             ("kdt: buffer size lowered to N"), before the records; every
#             one of getppid-loop's 1234 calls is recorded once;
#             kdt-extract says the same of the region image (/dev/mem)
#   busy      rmmod kdt while "kdt -a" holds the claimed state open and
#             probes fire: refused (/dev/kdt's file holds a module
#             reference: delete_module() fails with EWOULDBLOCK, busybox
#             says "Resource temporarily unavailable"), the consumer goes
#             on; once it has ended, rmmod succeeds
#   busylive  the same with a live consumer (kdt -n)
#   unclaimed kdt.ko reloaded with the anonymous enabling, probes firing,
#             nobody claimed it: rmmod drains it and succeeds
#   aggbig    an enabling whose aggregation buffers (aggsize=64m x 4 CPUs)
#             do not fit the region: rejected at load with the reason, which
#             kdt -ae gives; nothing is left (VmallocUsed back, rmmod works)
#   nspec     nspec=1000000 x specsize=1m: rejected at load naming the
#             option and its limit (or set up), never an oops
#   live64g   live -x bufsize=64g: bufresize=manual fails naming the value
#             and the limit; auto lowers it and says so; aggsize=64g
#             likewise, and dynvarsize=64g ("kdt: dynamic variable size
#             lowered to N"; manual names dynvarsize, the bytes and the
#             limit); a huge nspec x specsize fails with a message naming
#             the option or the bytes; after
#             all of them VmallocUsed is back where it was and kdt.ko's
#             use count is 0
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-limits-cpus.XXXXXX")
trap 'rm -rf "$work"' EXIT
btf="--btf=$KV_TOP/build/kernel/vmlinux"

# kdt -A for a 2-CPU target
mkdir -p "$work/root2/sys/devices/system/cpu"
echo 0-1 > "$work/root2/sys/devices/system/cpu/possible"
"$KV_KDT" -A -o "$work/main" --root "$work/root2" "$btf" -n '
#pragma D option quiet
BEGIN { printf("limits begin\n"); }
syscall::getppid:entry /execname == "getppid-loop"/ { printf("getppid\n"); @n = count(); }' \
    > "$work/main.plan" || kv_fail "kdt -A (2 CPUs) failed"
cat "$work/main.plan"
grep -q 'cpus: 2 possible' "$work/main.plan" || kv_fail "kdt -A did not size for 2 CPUs"
read -r _ rgn _ < "$work/main/cmdline"
rgn=${rgn#kdt.region=}
rsize=${rgn%@*}
rphys=${rgn#*@}
"$KV_KDT" -A -o "$work/agg" "$btf" -n '
#pragma D option aggsize=64m
BEGIN { @a = count(); }' > /dev/null || kv_fail "kdt -A (aggsize) failed"
"$KV_KDT" -A -o "$work/spec" "$btf" -n '
#pragma D option nspec=1000000
#pragma D option specsize=1m
BEGIN { speculation(); }' > /dev/null || kv_fail "kdt -A (nspec) failed"
gcc -static -O2 -o "$work/getppid-loop" "$KV_PROGS/getppid-loop.c" ||
    kv_fail "cannot build the static getppid-loop"

cat > "$work/guest.sh" <<EOF
set +e
R=/tmp/r
mkdir -p \$R
vm() { awk '/^VmallocUsed/ { print \$2 }' /proc/meminfo; }
# wait_for FILE LINE: until kdt has printed LINE (its handlers are set:
# a SIGINT before that would be lost, as the shell ignores it for
# background jobs)
wait_for()
{
	i=0
	while ! grep -qx "\$2" "\$1" 2> /dev/null && [ \$i -lt 600 ]; do
		sleep 0.1
		i=\$((i + 1))
	done
}
# "busy-loop": the same program under another name, so the probe fires
# but the predicate keeps it out of the trace
cp /bin/getppid-loop /bin/busy-loop
grep -c ^processor /proc/cpuinfo > \$R/ncpu
# cpus + busy
echo "limits: cpus + busy"
kdt -a > \$R/cpus.out 2> \$R/cpus.err &
kp=\$!
wait_for \$R/cpus.out 'limits begin'
getppid-loop 1234
busy-loop 200000000 &
wl=\$!
sleep 1
rmmod kdt > \$R/busy.err 2>&1
echo \$? > \$R/busy.rc
kill \$wl
wait \$wl
echo "limits: stopping kdt -a"
kill -INT \$kp
wait \$kp
echo \$? > \$R/cpus.rc
echo "limits: kdt -a exited \$(cat \$R/cpus.rc)"
# the region image for kdt-extract (the claim has ended, the region keeps its records until kdt.ko lays it out again)
echo "limits: the region image for kdt-extract"
dd if=/dev/mem bs=1M skip=\$(( $rphys >> 20 )) count=\$(( ${rsize%M} )) 2> /dev/null |
    gzip > \$R/region.gz
rmmod kdt > \$R/busyend.err 2>&1
echo \$? > \$R/busyend.rc
# busylive
echo "limits: busylive"
insmod /lib/modules/kdt.ko
kdt -q -n 'BEGIN { printf("ready\\n"); } syscall::getppid:entry { @ = count(); }' > \$R/live.out 2>&1 &
kp=\$!
wait_for \$R/live.out ready
busy-loop 200000000 &
wl=\$!
sleep 2
rmmod kdt > \$R/busylive.err 2>&1
echo \$? > \$R/busylive.rc
kill -INT \$kp
wait \$kp
kill \$wl
wait \$wl
rmmod kdt > \$R/busyliveend.err 2>&1
echo \$? > \$R/busyliveend.rc
# unclaimed
echo "limits: unclaimed"
insmod /lib/modules/kdt.ko anon=1 region=$rgn
busy-loop 200000000 &
wl=\$!
sleep 2
rmmod kdt > \$R/unclaimed.err 2>&1
echo \$? > \$R/unclaimed.rc
kill \$wl
wait \$wl
# aggbig, nspec: reload with each DOF
echo "limits: aggbig, nspec"
v0=\$(vm)
for c in agg spec; do
	cp /\$c.dof /lib/firmware/kdt/anon.dof
	insmod /lib/modules/kdt.ko anon=1 region=$rgn
	echo \$? > \$R/\$c.insmod
	kdt -ae > \$R/\$c.out 2> \$R/\$c.err
	echo \$? > \$R/\$c.rc
	rmmod kdt
	echo \$? > \$R/\$c.rmmod
done
echo \$v0 \$(vm) > \$R/boot.vm
# live64g
echo "limits: live64g"
insmod /lib/modules/kdt.ko
v0=\$(vm)
L()
{
	n=\$1
	shift
	kdt "\$@" > \$R/\$n.out 2> \$R/\$n.err
	echo \$? > \$R/\$n.rc
}
L buf_manual -x bufsize=64g -x bufresize=manual -q -n 'BEGIN { printf("hello\n"); exit(0); }'
L buf_auto -x bufsize=64g -q -n 'BEGIN { printf("hello\n"); exit(0); }'
L agg_manual -x aggsize=64g -x bufresize=manual -q -n 'BEGIN { @ = count(); exit(0); }'
L agg_auto -x aggsize=64g -q -n 'BEGIN { @ = count(); exit(0); }'
L dyn_manual -x dynvarsize=64g -x bufresize=manual -q -n 'BEGIN { a[1] = 1; printf("%d\n", a[1]); exit(0); }'
L dyn_auto -x dynvarsize=64g -q -n 'BEGIN { a[1] = 1; printf("%d\n", a[1]); exit(0); }'
L lspec -x nspec=1000000 -x specsize=1m -q -n 'BEGIN { s = speculation(); printf("%d\n", s); exit(0); }'
echo \$v0 \$(vm) > \$R/live.vm
grep '^kdt ' /proc/modules > \$R/modules
dmesg > \$R/dmesg
tar -cz -C \$R . > /dev/ttyS1
EOF
"$KV_VM" --dof "$work/main/anon.dof" --smp 4 --tcg-single --add-kdt --timeout 300 \
    --add "$work/getppid-loop:/bin/getppid-loop" \
    --add "$work/agg/anon.dof:/agg.dof" --add "$work/spec/anon.dof:/spec.dof" \
    --add "$work/guest.sh:/guest.sh" --run 'sh /guest.sh' \
    --guest-out "$work/res.tgz" --serial-log "$work/serial.log" \
    --workdir "$work/vm" --prefix 'guest| ' || kv_fail "boot failed"
r=$work/r
mkdir -p "$r"
tar -xzf "$work/res.tgz" -C "$r" || kv_fail "the guest's results do not unpack"
if grep -E 'WARNING:|BUG:|Call Trace|Oops|soft lockup|rcu_sched|invoked oom-killer' \
    "$work/serial.log"; then
	kv_fail "kernel warnings (above)"
fi
show()
{
	echo "--- $1: exit $(cat "$r/$1.rc" 2>/dev/null); stderr:"
	cat "$r/$1.err" 2>/dev/null
}

# cpus
[ "$(cat "$r/ncpu")" = 4 ] || kv_fail "the guest has $(cat "$r/ncpu") CPUs, not 4"
show cpus
[ "$(cat "$r/cpus.rc")" = 0 ] || kv_fail "cpus: kdt -a exited $(cat "$r/cpus.rc")"
lowered=$(grep -c 'buffer size lowered' "$r/cpus.err")
[ "$lowered" = 1 ] || kv_fail "cpus: 'buffer size lowered' said $lowered times, want once"
grep -Eqx 'kdt: buffer size lowered to [0-9]+[kmg]? \(the [0-9]+[kmg]? region is divided among 4 CPUs; the enabling asked for 4m per CPU: the region was sized for fewer CPUs or a smaller bufsize\)' \
    "$r/cpus.err" || kv_fail "cpus: not the lowered message"
per=$(sed -n 's/.*kdt: region initialised: 4 cpus, \(0x[0-9a-f]*\) buffer bytes per cpu.*/\1/p' "$work/serial.log")
[ -n "$per" ] || kv_fail "cpus: kdt.ko did not log the region's layout for 4 CPUs"
grep -q "lowered to $((per)) " "$r/cpus.err" ||
    kv_fail "cpus: kdt -a's size is not kdt.ko's $per"
[ "$(head -1 "$r/cpus.out")" = "limits begin" ] || kv_fail "cpus: no BEGIN first"
n=$(grep -c '^getppid$' "$r/cpus.out")
[ "$n" = 1234 ] || kv_fail "cpus: $n getppid records, want 1234"
grep -Eq '^ +1234$' "$r/cpus.out" || kv_fail "cpus: count() is not 1234"
echo "cpus: 0x$(printf %x $((per))) bytes per CPU, 1234 records, lowered once"
# kdt-extract on the region image says the same
gunzip -c "$r/region.gz" > "$work/region.img"
"$KV_TOP/build/bin/kdt-extract" "$work/region.img" > "$work/ex.out" 2> "$work/ex.err" ||
    { cat "$work/ex.err"; kv_fail "kdt-extract on the region image failed"; }
grep -x "kdt-extract: buffer size lowered to $((per)) (.*4 CPUs.*4m per CPU.*)" "$work/ex.err" ||
    { cat "$work/ex.err"; kv_fail "kdt-extract does not report the lowered size"; }
[ "$(grep -c '^getppid$' "$work/ex.out")" = 1234 ] ||
    kv_fail "kdt-extract: not 1234 records"

# busy, busylive, unclaimed
show busy
[ "$(cat "$r/busy.rc")" != 0 ] || kv_fail "busy: rmmod kdt succeeded under a claimed consumer"
grep -Eqi 'in use|busy|temporarily unavailable' "$r/busy.err" || kv_fail "busy: rmmod does not say the module is in use (EBUSY/EWOULDBLOCK)"
show busyend
[ "$(cat "$r/busyend.rc")" = 0 ] || kv_fail "busyend: rmmod failed after the consumer ended"
show busylive
[ "$(cat "$r/busylive.rc")" != 0 ] || kv_fail "busylive: rmmod kdt succeeded under a live consumer"
show busyliveend
[ "$(cat "$r/busyliveend.rc")" = 0 ] || kv_fail "busyliveend: rmmod failed after the consumer ended"
show unclaimed
[ "$(cat "$r/unclaimed.rc")" = 0 ] || kv_fail "unclaimed: rmmod failed with an unclaimed state"

# aggbig, nspec
show agg
[ "$(cat "$r/agg.insmod")" = 0 ] || kv_fail "agg: insmod failed: the boot must go on"
grep -Eq '^kdt: no anonymous state: the anonymous enabling was rejected at boot: .*aggregation buffers' "$r/agg.err" ||
    kv_fail "agg: kdt -ae does not give the reason"
show spec
[ "$(cat "$r/spec.insmod")" = 0 ] || kv_fail "spec: insmod failed: the boot must go on"
[ "$(cat "$r/spec.rc")" = 0 ] || grep -Eq 'rejected at boot: .*(spec|memory)' "$r/spec.err" ||
    kv_fail "spec: neither set up nor rejected with a reason"
for c in agg spec; do
	[ "$(cat "$r/$c.rmmod")" = 0 ] || kv_fail "$c: rmmod failed"
done
read -r v0 v1 < "$r/boot.vm"
echo "boot cases: VmallocUsed ${v0} kB before, ${v1} kB after"
[ $((v1 - v0)) -lt 1024 ] || kv_fail "boot cases: ${v1} - ${v0} kB of vmalloc left behind"

# live64g
show buf_manual
[ "$(cat "$r/buf_manual.rc")" = 1 ] || kv_fail "buf_manual: not refused"
grep -Eq 'bufsize 68719476736 exceeds the limit of [0-9]+ bytes per CPU \(bufresize=manual\)' "$r/buf_manual.err" ||
    kv_fail "buf_manual: the message does not name the value and the limit"
show buf_auto
[ "$(cat "$r/buf_auto.rc")" = 0 ] && [ "$(cat "$r/buf_auto.out")" = hello ] ||
    kv_fail "buf_auto: did not trace"
grep -Eqx 'kdt: buffer size lowered to [0-9]+[kmg]?' "$r/buf_auto.err" || kv_fail "buf_auto: not lowered"
show agg_manual
[ "$(cat "$r/agg_manual.rc")" = 1 ] && grep -Eq 'aggsize 68719476736 x 4 CPUs\) exceed the limit of [0-9]+ bytes, a quarter of memory \(bufresize=manual\)' "$r/agg_manual.err" ||
    kv_fail "agg_manual: not refused naming aggsize and the limit"
show agg_auto
[ "$(cat "$r/agg_auto.rc")" = 0 ] && grep -Eqx 'kdt: aggregation size lowered to [0-9]+[kmg]?' "$r/agg_auto.err" ||
    kv_fail "agg_auto: not lowered"
show dyn_manual
[ "$(cat "$r/dyn_manual.rc")" = 1 ] && grep -Eq '^kdt: .*dynvarsize 68719476736 needs [0-9]+ bytes of variable state, over the limit of [0-9]+ bytes, a quarter of memory \(bufresize=manual\)' "$r/dyn_manual.err" ||
    kv_fail "dyn_manual: not refused naming dynvarsize and the limit"
show dyn_auto
[ "$(cat "$r/dyn_auto.rc")" = 0 ] && [ "$(cat "$r/dyn_auto.out")" = 1 ] ||
    kv_fail "dyn_auto: did not trace"
grep -Eqx 'kdt: dynamic variable size lowered to [0-9]+[kmg]?' "$r/dyn_auto.err" || kv_fail "dyn_auto: not lowered"
show lspec
rc=$(cat "$r/lspec.rc")
[ "$rc" = 0 ] || [ "$rc" = 1 ] || kv_fail "lspec: exit $rc"
[ "$rc" = 0 ] || grep -Eq '^kdt: .*(nspec|specsize|memory)' "$r/lspec.err" ||
    kv_fail "lspec: failed without naming the option"
read -r v0 v1 < "$r/live.vm"
echo "live cases: VmallocUsed ${v0} kB before, ${v1} kB after"
[ $((v1 - v0)) -lt 1024 ] || kv_fail "live cases: ${v1} - ${v0} kB of vmalloc left behind"
read -r _ _ refs _ < "$r/modules"
[ "$refs" = 0 ] || kv_fail "kdt.ko's use count is $refs after every consumer ended"
echo "PASS"
