#!/usr/bin/env bash
#
# tst.live-estimate: the probe-effect estimator on kdt.ko.  In the guest
# `kdt --calibrate=3` measures every item of the model (consumer/kc_est.h)
# with its own on/off runs on getppid() and saves the calibration; then
# `kdt --estimate` prints a row per clause (mechanism, DIF size, bytes,
# aggregations, the predicate-false and firing costs) without arming
# anything, and `--estimate-sample=2` measures each clause's firing rate
# while a workload runs and adds its share of a CPU.  Checked: every item
# measured and non-negative, a calibration file kdt reads back, the costs
# ordered as the model must order them (an fbt firing that aggregates by
# a string key with quantize costs more than a bare count(), a false
# predicate less than the firing), a sampled rate for the clause the
# workload drives, and a clear error without a calibration.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-estimate.XXXXXX")
trap 'rm -rf "$work"' EXIT
gcc -static -O2 -o "$work/seqcall" "$KV_PROGS/seqcall.c" ||
    kv_fail "cannot build the static seqcall"
cat > "$work/est.sh" <<'G'
R=/tmp/est
mkdir -p $R
KDT_CALIBRATION=/tmp/nonexistent kdt --estimate -n 'BEGIN {}' > $R/nocal.out 2> $R/nocal.err
echo $? > $R/nocal.rc
kdt --calibrate=3 > $R/cal.out 2> $R/cal.err
echo $? > $R/cal.rc
cp /var/lib/kdt/calibration $R/calibration 2> /dev/null
P='fbt::__x64_sys_getppid:entry'
kdt --estimate -n "$P { @a = count(); }" \
    -n "$P /pid == 99999/ { @q[execname] = quantize(arg0); }" \
    -n 'sdt:sched::sched_switch { @s = count(); }' > $R/est.out 2> $R/est.err
echo $? > $R/est.rc
/bin/seqcall 9000000 &
kdt --estimate --estimate-sample=2 -n "$P { @ = count(); }" > $R/sample.out 2> $R/sample.err
echo $? > $R/sample.rc
pkill seqcall
wait
tar -czf - -C $R . > /dev/ttyS1
G
# --tcg-single: kdt arms and disarms fbt on __x64_sys_getppid while the
# workload calls it on both vCPUs, and QEMU 7.2's multi-threaded TCG can
# then run a stale translation of the patched fentry site (the guest
# oopses at RIP 0 in do_syscall_64; one host thread for both vCPUs does
# not; tests/vm/README.md)
"$KV_VM" --add-kdt --tcg-single --timeout 900 --add "$work/est.sh:/est.sh" \
    --add "$work/seqcall:/bin/seqcall" --run 'sh /est.sh' \
    --guest-out "$work/results.tgz" --workdir "$work/vm" --quiet ||
    kv_fail "boot failed"
r="$work/r"
mkdir -p "$r"
tar -xzf "$work/results.tgz" -C "$r" || kv_fail "no results"
cat "$r/cal.out" "$r/cal.err" "$r/est.out" "$r/est.err" "$r/sample.out" "$r/sample.err"

[ "$(cat "$r/nocal.rc")" = 1 ] &&
    grep -q 'cannot open.*run kdt --calibrate' "$r/nocal.err" ||
    kv_fail "no calibration: not a clear error"
[ "$(cat "$r/cal.rc")" = 0 ] || kv_fail "kdt --calibrate failed"
for item in insn mech.fbt mech.fbtret mech.syscall mech.sdt record \
    record.item agg agg.key agg.strkey agg.hist dynvar fbt.context \
    agg.simple fbt.args; do
	grep -Eq "^$item [0-9]+\.[0-9]+$" "$r/calibration" ||
	    kv_fail "calibration: no $item"
done
grep -q 'calibration saved in /var/lib/kdt/calibration' "$r/cal.out" ||
    kv_fail "calibrate does not say where it saved"
[ "$(cat "$r/est.rc")" = 0 ] || kv_fail "kdt --estimate failed"
# rows: ECB, description, mechanism, DIF, bytes, aggs, pred-false, firing
row() { awk -v e="$1" '$1 == e { print }' "$r/est.out"; }
c0=$(row 0 | awk '{ print $NF }' | tr -d '~?')
c1=$(row 1 | awk '{ print $NF }' | tr -d '~?')
f1=$(row 1 | awk '{ print $(NF - 1) }' | tr -d '~?')
row 0 | grep -q 'fbt entry' || kv_fail "row 0: not an fbt entry"
row 2 | grep -q 'tracepoint' || kv_fail "row 2: not a tracepoint"
[ -n "$c0" ] && [ -n "$c1" ] && [ -n "$f1" ] || kv_fail "no costs in the table"
# The string key and quantize add agg.strkey and agg.hist to the firing;
# on a loaded host the guest's real-time calibration can measure both at
# or near 0 (an on/off difference lost in noise, clamped), and then the
# two rows are equal, not out of order.
extra=$(awk '$1 == "agg.strkey" || $1 == "agg.hist" { s += $2 } END { print s + 0 }' "$r/calibration")
awk -v a="$c0" -v b="$c1" -v f="$f1" -v x="$extra" \
    'BEGIN { exit !(a > 0 && (x >= 1 ? b > a : b >= a) && f < b) }' ||
    kv_fail "costs out of order: count $c0, quantize by execname $c1 (predicate false $f1; agg.strkey + agg.hist calibrated at $extra)"
[ "$(cat "$r/sample.rc")" = 0 ] || kv_fail "--estimate-sample failed"
rate=$(awk '$1 == 0 { for (i = 1; i <= NF; i++) if ($i ~ /\/s$/) print $i }' "$r/sample.out" | tr -d '/s')
awk -v r="${rate:-0}" 'BEGIN { exit !(r > 100) }' ||
    kv_fail "the sampled rate of the getppid clause is '$rate' while a workload calls getppid() on every CPU"
grep -q '% of one CPU' "$r/sample.out" || kv_fail "no CPU share"
echo "PASS"
