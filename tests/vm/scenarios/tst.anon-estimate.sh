#!/usr/bin/env bash
#
# tst.anon-estimate: `kdt -A --estimate` rehearses the boot's arming on the
# running kernel (anon/an_rehearse.c, KIO_REHEARSE) and leaves nothing
# behind.  The guest boots with an anonymous enabling of its own (a
# BEGIN and a count of vfs_read), then, with no calibration:
#
#   - kdt -A --estimate of 20 fbt entry probes and 2 return probes on 20
#     functions says it rehearsed: 22 probes enabled, 20 functions armed
#     through one ftrace update, an arming time above the ftrace update's
#     (both > 0), kernel symbol hints from the running kernel for the 20
#     names (kdt.ko found all 20 through them, its log says, though
#     kallsyms names __x64_sys_getppid's and __x64_sys_getpid's address
#     by an alias, __do_sys_...: the hints list the aliases), the region
#     kdt -A would reserve, the arming and the DOF's loading as a share
#     of the time the kernel log says init started at; then the clear
#     error that
#     there is no calibration, exit 1;
#   - afterwards nothing it armed is left: kprobes/list holds only kdt.ko's
#     [DISABLED] kallsyms_lookup_name probe and the boot enabling's
#     vfs_read (one function: a kprobe), and none of the 20 functions is in
#     tracing/enabled_functions (vfs_read is);
#   - a program that matches nothing is not rehearsed, and says why;
#   - with a calibration, the per-firing table and then the rehearsal of
#     one probe (kdt.ko arms one function as a kprobe), exit 0;
#   - tests/vm/progs/rehearse-bad hands KIO_REHEARSE a zero-size DOF, a
#     region too small and too large, hints with no address or too large,
#     a junk DOF: each fails with a message naming the input and limit;
#     junk hints are refused by ksh_check and the names searched instead;
#   - the boot's anonymous state is untouched: kdt -ae claims it, exits 0
#     and prints its BEGIN count and a vfs_read count above 0;
#   - the kernel log has the rehearsal lines and no WARNING, BUG or Oops.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-anon-estimate.XXXXXX")
trap 'rm -rf "$work"' EXIT
gcc -static -O2 -I "$KV_TOP" -o "$work/rehearse-bad" \
    "$KV_PROGS/rehearse-bad.c" || kv_fail "cannot build rehearse-bad"
cat > "$work/boot.d" <<'EOF'
BEGIN { @begin = count(); }
fbt::vfs_read:entry { @reads = count(); }
EOF
F="vfs_write ksys_read ksys_write __x64_sys_read __x64_sys_write
   do_sys_openat2 __x64_sys_openat vfs_getattr vfs_statx __x64_sys_newfstatat
   __x64_sys_close __x64_sys_getppid __x64_sys_getpid __x64_sys_mmap
   __x64_sys_munmap __x64_sys_brk __x64_sys_lseek __x64_sys_fcntl
   __x64_sys_dup2 __x64_sys_uname"
{
	echo '#pragma D option quiet'
	p=
	for f in $F; do p="$p${p:+,
}fbt::$f:entry"; done
	echo "$p"
	echo '/pid == 999999/ { }'
	echo 'fbt::vfs_write:return, fbt::ksys_read:return { @r = count(); }'
} > "$work/est.d"
"$KV_KDT" -e -o "$work/est.dof" -s "$work/est.d" ||
    kv_fail "kdt -e -o est.dof failed"
printf '%s\n' $F > "$work/funcs"

cat > "$work/guest.sh" <<'EOF'
exec > /dev/ttyS1 2>&1
mount -t debugfs none /sys/kernel/debug 2>/dev/null
mount -t tracefs none /sys/kernel/tracing 2>/dev/null
KDT_CALIBRATION=/tmp/none kdt -A --estimate -s /est.d > /tmp/est.out 2> /tmp/est.err
echo "ESTRC $?"
sed 's/^/EST /' /tmp/est.out
sed 's/^/ESTERR /' /tmp/est.err
dmesg | grep 'kdt: fbt: .*function names found through' | sed 's/^/HINTS /'
dmesg | grep -m1 '] Run .* as init process' | sed 's/^/TINIT /'
sed 's/^/KPLIST /' /sys/kernel/debug/kprobes/list
while read f; do
	grep -q "^$f " /sys/kernel/tracing/enabled_functions && echo "LEFT $f"
done < /funcs
grep -q '^vfs_read ' /sys/kernel/tracing/enabled_functions && echo "BOOTARMED"
KDT_CALIBRATION=/tmp/none kdt -A --estimate -n 'fbt::no_such_function_kdt:entry { }' 2>&1 | sed 's/^/NOMATCH /'
printf 'release x\nwhen 1\ncalls 1\npairs 1\ninsn 40\nmech.fbt 200\n' > /tmp/cal
KDT_CALIBRATION=/tmp/cal kdt -A --estimate -n 'fbt::vfs_write:entry { @ = count(); }' > /tmp/cal.out 2>&1
echo "CALRC $?"
sed 's/^/CAL /' /tmp/cal.out
/rehearse-bad /est.dof | sed 's/^/RB /'
echo "RBRC $?"
kdt -ae > /tmp/claim.out 2>&1
echo "CLAIMRC $?"
sed 's/^/CLAIM /' /tmp/claim.out
dmesg | grep 'kdt: rehearsed' | sed 's/^/LOG /'
dmesg | grep -E 'WARNING:|BUG:|Oops|soft lockup|Call Trace' | sed 's/^/BAD /'
echo DONE
EOF

"$KV_VM" --script "$work/boot.d" --add-kdt --add "$work/guest.sh:/guest.sh" \
    --add "$work/est.d:/est.d" --add "$work/est.dof:/est.dof" \
    --add "$work/funcs:/funcs" --add "$work/rehearse-bad:/rehearse-bad" \
    --run 'sh /guest.sh' --guest-out "$work/res" --workdir "$work/vm" \
    --prefix 'guest| ' || kv_fail "boot failed"
r="$work/res"
cat "$r"
grep -qx DONE "$r" || kv_fail "the guest script did not finish"
grep -q '^BAD ' "$r" && kv_fail "kernel log: $(grep -m1 '^BAD ' "$r")"
# the rehearsal, then the missing calibration
grep -qx "ESTRC 1" "$r" || kv_fail "kdt -A --estimate without a calibration: want exit 1"
grep -q '^ESTERR kdt: --estimate: /tmp/none: cannot open.*run kdt --calibrate' "$r" ||
    kv_fail "no clear error about the missing calibration"
grep -q '^EST kdt: arming at boot, rehearsed just now by kdt.ko on this kernel' "$r" ||
    kv_fail "no rehearsal"
grep -q '^EST kdt:   22 probes enabled (22 probe-clause pairs), 20 functions armed through one ftrace update$' "$r" ||
    kv_fail "rehearsal: want 22 probes on 20 functions in one ftrace update"
arm=$(sed -n 's/^EST kdt:   arming \([0-9.]*\) ms .*/\1/p' "$r")
ft=$(sed -n "s/^EST .*the kernel's ftrace update \([0-9.]*\) ms of it.*/\1/p" "$r")
awk -v a="${arm:-0}" -v f="${ft:-0}" 'BEGIN { exit !(f > 0 && a > f) }' ||
    kv_fail "rehearsal: arming '$arm' ms must exceed the ftrace update '$ft' ms > 0"
grep -q '^EST kdt:   region [0-9]* bytes for [0-9]* possible CPUs; kernel symbol hints from the running kernel' "$r" ||
    kv_fail "rehearsal: not with this kernel's symbol hints"
grep -q '^HINTS .*kdt: fbt: 20 of 20 function names found through the kernel symbol hints' "$r" ||
    kv_fail "rehearsal: kdt.ko did not find the 20 names through the hints"
# the share of the boot: arming and loading against the kernel log's
# "Run /init as init process" time
load=$(sed -n 's/^EST kdt:   arming .*, loading the DOF \([0-9.]*\) ms$/\1/p' "$r")
tinit=$(sed -n 's/^TINIT \[ *\([0-9.]*\)\] Run .* as init process$/\1/p' "$r")
line=$(grep '^EST kdt:   together ' "$r")
read -r pct secs <<EOS
$(echo "$line" | sed -n 's/.*together \([0-9.]*\) % of the \([0-9.]*\) s this boot took to start init (kernel log)$/\1 \2/p')
EOS
[ -n "$pct" ] && [ -n "$tinit" ] && [ -n "$load" ] ||
    kv_fail "rehearsal: no share of the boot ('$line', kernel log '$tinit')"
awk -v a="$arm" -v l="$load" -v t="$tinit" -v p="$pct" -v s="$secs" 'BEGIN {
	want = (a + l) / (t * 1000) * 100
	exit !(sprintf("%.3f", t) == s && p - want < 0.006 && want - p < 0.006)
}' || kv_fail "rehearsal: share $pct % of $secs s, want (arming $arm + loading $load ms) of the kernel log's $tinit s"
# nothing left armed; the boot enabling still is
[ "$(grep -c '^KPLIST ' "$r")" = 2 ] &&
    grep -Eq '^KPLIST .* k +kallsyms_lookup_name\+0x0 .*\[DISABLED\]' "$r" &&
    grep -Eq '^KPLIST .* k +vfs_read\+0x0 ' "$r" ||
    kv_fail "kprobes/list after the rehearsal: want only kallsyms_lookup_name [DISABLED] and the boot's vfs_read"
! grep -q '^LEFT ' "$r" || kv_fail "left armed: $(grep -m1 '^LEFT ' "$r")"
grep -qx BOOTARMED "$r" || kv_fail "the boot enabling's vfs_read is no longer armed"
grep -q '^NOMATCH kdt: arming at boot not rehearsed: kdt.ko: .*matche' "$r" ||
    kv_fail "a program matching nothing: no reason given"
# with a calibration: the table, then the rehearsal, exit 0
grep -qx "CALRC 0" "$r" || kv_fail "kdt -A --estimate with a calibration: want exit 0"
grep -q '^CAL kdt: probe-effect estimate for the anonymous enabling (at boot)' "$r" &&
    grep -q '^CAL kdt:   1 probe enabled (1 probe-clause pair)$' "$r" ||
    kv_fail "kdt -A --estimate with a calibration: want the table and a rehearsal of 1 probe"
# bad input
grep -qx "RBRC 0" "$r" || kv_fail "rehearse-bad: $(grep -m1 '^RB BAD' "$r")"
for c in dofsz-0 rgnsize-small rgnsize-huge ksh-noaddr ksh-huge dof-junk \
    ksh-junk; do
	grep -q "^RB CASE $c " "$r" || kv_fail "rehearse-bad: case $c missing"
done
grep -q '^RB CASE ksh-junk 0 armed 22 probes' "$r" ||
    kv_fail "junk hints: want the names searched and 22 probes armed"
# the anonymous state of the boot, claimed as if nothing happened
grep -qx "CLAIMRC 0" "$r" || kv_fail "kdt -ae after the rehearsals failed"
grep -Eq '^CLAIM +1$' "$r" || kv_fail "kdt -ae: no BEGIN count of 1"
grep -Eq '^CLAIM +[1-9][0-9]*$' "$r" || kv_fail "kdt -ae: no vfs_read count"
[ "$(grep -c '^LOG ' "$r")" -ge 2 ] ||
    kv_fail "the kernel log does not say it rehearsed"
echo "PASS"
