#!/usr/bin/env bash
#
# tst.vm-harness: the harness and the initramfs on their own.  A plain
# guest (no kdt) loads the demo's modules (so the other scenarios can rely
# on them loading), runs commands in order, writes to the raw second
# serial port and powers off; kdt.ko's log lines reach the console unless
# --no-kdt-echo; then a run asking for a dump format this QEMU lacks must
# fail at once with a message that names the format.
#
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d "$KV_TOP/build/vm-harness.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KV_VM" --no-kdt --load "$KV_MODULES" --prefix 'guest| ' \
    --run 'cut -d" " -f1 /proc/modules | sort | tr "\n" " "; echo' \
    --run 'echo step-one > /dev/ttyS1' --run 'echo step-two > /dev/ttyS1' \
    --guest-out "$work/out" \
    --expect '^KDT-VM: modprobe xor$' \
    --expect "^$(tr ' ' '\n' <<<"$KV_LOADED" | sort | tr '\n' ' ')\$" \
    || kv_fail "plain boot failed"
printf 'step-one\nstep-two\n' | cmp - "$work/out" ||
    kv_fail "guest output on ttyS1 differs"

# /init copies kdt.ko's log lines to the console after loading it, for
# the scenarios that read them there, unless --no-kdt-echo (benchmarks);
# the kernel log has them either way
for e in echo no-echo; do
	flag=()
	if [ "$e" = no-echo ]; then
		flag=(--no-kdt-echo)
	fi
	"$KV_VM" --quiet "${flag[@]}" \
	    --serial-log "$work/$e.log" \
	    --run 'dmesg | grep -c "] kdt: loaded" > /dev/ttyS1' \
	    --guest-out "$work/$e.out" > /dev/null 2>&1 ||
	    kv_fail "$e: boot failed"
	grep -qx 1 "$work/$e.out" || kv_fail "$e: no 'kdt: loaded' in the kernel log"
done
grep -q '\] kdt: loaded' "$work/echo.log" ||
    kv_fail "kdt.ko's log lines not on the console by default"
grep -q '^KDT-VM: kdt.ko loaded' "$work/no-echo.log" &&
    ! grep -q '\] kdt: loaded' "$work/no-echo.log" ||
    kv_fail "--no-kdt-echo: kdt.ko's log lines still on the console"

rc=0
"$KV_VM" --no-kdt --quiet --panic --dump "$work/d" --dump-format kdump-lzo \
    > "$work/lzo.log" 2>&1 || rc=$?
cat "$work/lzo.log"
[ "$rc" -eq 1 ] || kv_fail "kdump-lzo run exited $rc, want 1"
grep -q 'FAIL: --dump-format kdump-lzo: this QEMU cannot write it' \
    "$work/lzo.log" || kv_fail "no clear message for kdump-lzo"
echo "PASS"
