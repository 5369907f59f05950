#!/usr/bin/env bash
#
# tst.live-bufresize: -x bufresize=auto|manual with buffers larger than the
# guest (512 MiB, 2 CPUs) can give (tests/vm/progs/bufresize.sh):
#
#   buf_auto       bufsize=2g, auto (the default), switch policy: kdt.ko
#                  halves bufsize until region and spare buffers fit (a
#                  quarter of RAM each); kdt says once, on stderr even with
#                  -q, "kdt: buffer size lowered to N" (dtrace's words)
#                  with N the size in force, and traces
#   buf_auto_ring  the same under ring policy (no spare buffers)
#   buf_manual     bufsize=2g, manual: the enabling fails, naming the
#                  value, the limit and bufresize=manual
#   buf_fits       bufsize=1m, manual: nothing to say
#   agg_auto       aggsize=2g: "kdt: aggregation size lowered to N", and
#                  the aggregation still counts
#   agg_manual     aggsize=2g, manual: fails, naming aggsize
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-bufresize.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KV_VM" --add-kdt --timeout 240 --mem 512 \
    --add "$KV_PROGS/bufresize.sh:/bufresize.sh" \
    --run 'sh /bufresize.sh' --guest-out "$work/results.tgz" \
    --serial-log "$work/serial.log" --workdir "$work/vm" \
    --prefix 'guest| ' || kv_fail "boot failed"
r="$work/r"
mkdir -p "$r"
tar -xzf "$work/results.tgz" -C "$r" || kv_fail "no results"
cat "$r/meminfo"

# $1 name, $2 exit status, $3 stdout, $4 stderr (an ERE for the whole)
check()
{
	kv_live_rc "$r" "$1" "$2"
	[ "$(cat "$r/$1.out")" = "$3" ] || kv_fail "$1: stdout differs"
	[ -z "$4" ] && [ -s "$r/$1.err" ] && kv_fail "$1: unexpected stderr"
	[ -z "$4" ] || [ "$(wc -l < "$r/$1.err")" = 1 ] ||
	    kv_fail "$1: want one line on stderr"
	[ -z "$4" ] || grep -Eqx "$4" "$r/$1.err" ||
	    kv_fail "$1: stderr is not /$4/"
	return 0
}
# 2g halved to fit a quarter of ~480 MiB for 2 CPUs: 32m (the exact step
# depends on the guest's MemTotal, so any halving of 2g below 1g passes)
lowered='(512m|256m|128m|64m|32m|16m|8m)'
check buf_auto 0 hello "kdt: buffer size lowered to $lowered"
check buf_auto_ring 0 hello "kdt: buffer size lowered to $lowered"
check buf_manual 1 "" \
    'kdt: could not enable tracing: bufsize 2147483648 exceeds the limit of 1073741824 bytes per CPU \(bufresize=manual\)'
check buf_fits 0 hello ""
check agg_auto 0 1 "kdt: aggregation size lowered to $lowered"
check agg_manual 1 "" \
    'kdt: could not enable tracing: .*aggsize.*2147483648.*\(bufresize=manual\)'
if grep -E 'WARNING:|BUG:|Call Trace|Oops|invoked oom-killer' \
    "$work/serial.log" "$r/dmesg"; then
	kv_fail "kernel warnings in the boot"
fi
echo "PASS"
