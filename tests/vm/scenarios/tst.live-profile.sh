#!/usr/bin/env bash
#
# tst.live-profile: the kernel engine's consumer loop on profile-provider
# timers (tests/vm/progs/live.sh runs each in the foreground):
#   tick    tick-100ms counted to 10, then exit(0): at least 900 ms
#           after BEGIN (timers never fire early; how late they fire
#           depends on the host's load, so there is no upper bound), the
#           dtrace heading and CPU/ID/FUNCTION:NAME columns, the matched
#           notice;
#   status  BEGIN's printf, a predicate on a counter picks the second
#           tick, the third calls exit(7): status 7;
#   percpu  profile-97 on both guest CPUs, merged per CPU over 2 s;
#   ring    bufpolicy=ring with a 2 KiB buffer per CPU, 300 records then
#           exit(): read only at the end, so the oldest records are gone
#           and the newest (299) is there
#           (the timer may move between CPUs: each record carries its CPU
#           and each CPU's records must be in firing order);
#   fill    bufpolicy=fill with a 2 KiB buffer and no exit(): the first
#           drop stops tracing by itself (exit 0) and is reported as
#           dtrace does ("N drops on CPU n"); the first record is there
#           and each CPU's records are in firing order.
#
. "$(dirname "$0")/../lib.sh"

res=$(kv_live)

kv_live_rc "$res" tick 0
head -1 "$res/tick.out" | grep -Eqx 'CPU +ID +FUNCTION:NAME' ||
    kv_fail "tick: no dtrace heading"
grep -Eqx '  [01] +[0-9]+ +:tick-100ms ticks 10 after >= 900 ms' \
    "$res/tick.out" || kv_fail "tick: not 10 ticks of 100 ms"
grep -qx "kdt: description 'BEGIN ' matched 2 probes" "$res/tick.err" ||
    kv_fail "tick: no matched notice"

kv_live_rc "$res" status 7
grep -Eqx '  [01] +1 +:BEGIN begin 1' "$res/status.out" ||
    kv_fail "status: no BEGIN record"
grep -Eqx '  [01] +[0-9]+ +:tick-200ms +2' "$res/status.out" ||
    kv_fail "status: the predicate did not pick the second tick"
[ "$(grep -Ec ':tick-200ms +[0-9]' "$res/status.out")" -eq 1 ] ||
    kv_fail "status: the predicate let more than one tick through"
grep -Eqx '  [01] +[0-9]+ +:tick-200ms ' "$res/status.out" ||
    kv_fail "status: no record of the exit() clause"

kv_live_rc "$res" percpu 0
for c in 0 1; do
	grep -Eqx "cpu $c [1-9][0-9]*" "$res/percpu.out" ||
	    kv_fail "percpu: no profile-97 firings on CPU $c"
done

# ordered FILE: lines "cpu n"; each CPU's n increase; prints "min max"
ordered()
{
	awk 'NF == 0 { next }
	    NF != 2 { print "bad line: " $0; bad = 1; exit }
	    ($1 in last) && $2 <= last[$1] {
		print "cpu " $1 ": " $2 " after " last[$1]; bad = 1; exit
	    }
	    {
		last[$1] = $2
		if (n++ == 0 || $2 < min) min = $2
		if (n == 1 || $2 > max) max = $2
	    }
	    END { if (bad || n == 0) exit 1; print min, max }' "$1"
}

kv_live_rc "$res" ring 0
r=$(ordered "$res/ring.out") || kv_fail "ring: $r"
read -r min max <<<"$r"
echo "ring: $min .. $max"
[ "$min" -gt 0 ] || kv_fail "ring: the buffer did not wrap"
[ "$max" -eq 299 ] || kv_fail "ring: the newest record (299) is missing"
[ ! -s "$res/ring.err" ] || kv_fail "ring: unexpected stderr"

kv_live_rc "$res" fill 0
r=$(ordered "$res/fill.out") || kv_fail "fill: $r"
read -r min max <<<"$r"
echo "fill: $min .. $max"
[ "$min" -eq 0 ] || kv_fail "fill: the first record is missing"
grep -Eqx 'kdt: [0-9]+ drops? on CPU [01]' "$res/fill.err" ||
    kv_fail "fill: no drop message"
echo "PASS"
