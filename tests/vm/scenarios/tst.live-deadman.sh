#!/usr/bin/env bash
#
# tst.live-deadman: kdt.ko's deadman parameters (kmod/kd_main.c) are
# honoured (tests/vm/progs/deadman.sh):
#
#   - defaults deadman_timeout=30, deadman_interval_ms=1000, shown in
#     /sys/module/kdt/parameters/; out-of-range writes (interval 5 ms,
#     timeout 3601 s) are refused and logged with the name, the value and
#     the range
#   - with deadman_timeout=3 and deadman_interval_ms=250, a consumer
#     stopped with SIGSTOP for 6 s is cut off: the kernel log says so
#     between 1.5 and 5.5 s after the SIGSTOP (3 s after the consumer's
#     last ioctl, which came at most a second or so before the stop, plus
#     an interval; TCG slack), and once continued kdt exits 1 with
#     dtrace's "Abort due to systemic unresponsiveness" naming 3 s
#   - a consumer stopped for 1 s is not: it runs to its exit(0), silent
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-deadman.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KV_VM" --add-kdt --timeout 240 \
    --add "$KV_PROGS/deadman.sh:/deadman.sh" \
    --run 'sh /deadman.sh' --guest-out "$work/results.tgz" \
    --serial-log "$work/serial.log" --workdir "$work/vm" \
    --prefix 'guest| ' || kv_fail "boot failed"
r="$work/r"
mkdir -p "$r"
tar -xzf "$work/results.tgz" -C "$r" || kv_fail "no results"

[ "$(cat "$r/default_timeout")" = 30 ] || kv_fail "default deadman_timeout"
[ "$(cat "$r/default_ival")" = 1000 ] || kv_fail "default deadman_interval_ms"
[ "$(cat "$r/bad_ival.rc")" != 0 ] || kv_fail "deadman_interval_ms=5 accepted"
[ "$(cat "$r/bad_timeout.rc")" != 0 ] || kv_fail "deadman_timeout=3601 accepted"
grep -q 'kdt: parameter deadman_interval_ms=5 refused: want an integer from 10 to 60000$' "$r/dmesg" ||
    kv_fail "no log line for the refused deadman_interval_ms"
grep -q 'kdt: parameter deadman_timeout=3601 refused: want an integer from 0 to 3600$' "$r/dmesg" ||
    kv_fail "no log line for the refused deadman_timeout"
[ "$(cat "$r/set")" = "3
250" ] || kv_fail "the parameters did not take 3 and 250"

kv_live_rc "$r" cut 1
[ "$(cat "$r/cut.err")" = "kdt: processing aborted: Abort due to systemic unresponsiveness (kdt.ko's deadman: this consumer was not heard from for 3 s)" ] ||
    kv_fail "cut: stderr differs"
line=$(grep 'kdt: a consumer was not heard from for 3 s: its tracing is stopped (deadman; kdt.deadman_timeout=3)$' "$r/dmesg") ||
    kv_fail "cut: no deadman line in the kernel log"
[ "$(echo "$line" | wc -l)" = 1 ] || kv_fail "more than one deadman line"
at=$(echo "$line" | sed -E 's/^\[ *([0-9.]+)\].*/\1/')
stopped=$(cat "$r/cut.stopped")
echo "SIGSTOP at $stopped s, deadman at $at s"
awk -v a="$at" -v s="$stopped" 'BEGIN { d = a - s; exit !(d >= 1.5 && d <= 5.5) }' ||
    kv_fail "cut: deadman $at s is not 1.5-5.5 s after the SIGSTOP at $stopped s"
kv_live_rc "$r" kept 0
[ ! -s "$r/kept.err" ] || kv_fail "kept: unexpected stderr"
if grep -E 'WARNING:|BUG:|Call Trace|Oops' "$work/serial.log" "$r/dmesg"; then
	kv_fail "kernel warnings in the boot"
fi
echo "PASS"
