#!/usr/bin/env bash
#
# tst.live-simple: the handlers that hand simple aggregations (ecb.h:
# "@[K] = AGG(V)" on integer keys and values) straight to
# kd_fire_simple() with the arguments they read give exact results.
# /bin/seqcall (tests/vm/progs/seqcall.c) makes N getppid() calls on every
# CPU with arg0 = (cpu + 1) * 10^7 + i, i = 1..N.  Per CPU:
#   sys_args  syscall entry, sum(arg0) past /arg0 > 10000000/: exactly
#             N * base + N (N + 1) / 2 (a wrong or missing argument
#             cannot give it);
#   sys_ret   syscall return, count() past /arg1 > 0/ (the parent's pid):
#             N, plus at most a few getppid() calls of other processes;
#   sdt_args  raw_syscalls:sys_enter (two arguments), count() past
#             /arg1 == 110/ (getppid's number): the same.
# The keyless, argument-less paths are tst.live-accounting's count_sys
# and count_fbt; ecb_fire_simple() itself is tests/unit/test_ecb.c's.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-simple.XXXXXX")
trap 'rm -rf "$work"' EXIT
N=5000

gcc -static -O2 -o "$work/seqcall" "$KV_PROGS/seqcall.c" ||
    kv_fail "cannot build the static seqcall"
"$KV_VM" --add-kdt --timeout 300 \
    --add "$(dirname "$0")/tst.live-simple.run:/simple.sh" \
    --add "$work/seqcall:/bin/seqcall" \
    --run "N=$N sh /simple.sh" --guest-out "$work/results.tgz" \
    --workdir "$work/vm" --quiet || kv_fail "boot failed"
r="$work/r"
mkdir -p "$r"
tar -xzf "$work/results.tgz" -C "$r" || kv_fail "no results"
ncpu=$(cat "$r/ncpu")
[ "$ncpu" -ge 1 ] || kv_fail "no CPU count from the guest"

for t in sys_args sys_ret sdt_args; do
	kv_live_rc "$r" $t 0
done
for c in $(seq 0 $((ncpu - 1))); do
	want=$(( N * (c + 1) * 10000000 + N * (N + 1) / 2 ))
	grep -qx "cpu $c $want" "$r/sys_args.out" || {
		cat "$r/sys_args.out"
		kv_fail "sys_args: CPU $c did not sum to $want"
	}
	for t in sys_ret sdt_args; do
		got=$(awk -v c="$c" '$1 == "cpu" && $2 == c { print $3 }' \
		    "$r/$t.out")
		[ -n "$got" ] && [ "$got" -ge "$N" ] &&
		    [ "$got" -le $((N + 20)) ] || {
			cat "$r/$t.out"
			kv_fail "$t: CPU $c counted '$got', not $N (+ at most 20)"
		}
	done
done
if grep -E 'WARNING:|BUG:|Call Trace|Oops' "$r/dmesg"; then
	kv_fail "kernel warnings in the boot"
fi
echo "PASS"
