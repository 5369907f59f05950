#!/usr/bin/env bash
#
# tst.live-sdtmod: sdt probes for the tracepoints of modules.  One boot
# (tests/vm/progs/sdtmod.sh) with null_blk (a blk-mq disk without
# hardware) and the kyber I/O scheduler, whose kyber_latency tracepoint
# has seven arguments (dev, domain, type, percentile, numerator,
# denominator, samples) and fires from kyber's timer after direct reads:
#
#   list_none   kyber not loaded: 'sdt:kyber::' matches nothing
#   list_n      loaded: its three tracepoints, system "kyber" from the
#               module's trace events
#   list_P      kdt -l -P sdt lists them among the core tracepoints
#   before      loaded before the enabling: fires (arg1 "READ", arg2
#               "total" or "I/O", arg5 the denominator 4 -- a sixth
#               argument, so the argument count
#               came from the module's BPF raw-tracepoint table); then,
#               under the running enabling, rmmod succeeds (the enabling
#               holds no reference once it runs; the probes are
#               unregistered before tracepoint.c checks the module's
#               tracepoints are free) and modprobe brings the module back:
#               its new tracepoints get new probes, which fire too
#   list_after  after both: the module's probe is listed again
#   during      -Z, loaded only after the enabling started: fires, and the
#               module unloads under it
#
# Each kyber_latency probe prints once (its first firing), with its ID:
# "before" must print two distinct IDs, "during" one.  The boot's console
# must show no WARNING (tracepoint.c warns when a going module still has
# a probe on a tracepoint), BUG or call trace.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-sdtmod.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KV_VM" --add-kdt --modules null_blk,kyber-iosched --timeout 240 \
    --add "$KV_PROGS/sdtmod.sh:/sdtmod.sh" \
    --run 'sh /sdtmod.sh' --guest-out "$work/results.tgz" \
    --serial-log "$work/serial.log" --workdir "$work/vm" \
    --prefix 'guest| ' || kv_fail "boot failed"
r="$work/r"
mkdir -p "$r"
tar -xzf "$work/results.tgz" -C "$r" || kv_fail "no results"

for n in list_n list_P before list_after during; do
	kv_live_rc "$r" "$n" 0
done
kv_live_rc "$r" list_none 0
grep -q "failed to match sdt:kyber::" "$r/list_none.err" ||
    kv_fail "list_none: kyber's probes listed before it was loaded"

# the listing: ID PROVIDER MODULE FUNCTION NAME, IDs masked
want=$(printf '%s\n' "sdt kyber kyber_adjust" "sdt kyber kyber_latency" \
    "sdt kyber kyber_throttled")
got=$(awk 'NR > 1 { print $2, $3, $4 }' "$r/list_n.out" | sort)
[ "$got" = "$want" ] || kv_fail "list_n: got '$got', want '$want'"
got=$(awk '$3 == "kyber" { print $2, $3, $4 }' "$r/list_P.out" | sort)
[ "$got" = "$want" ] || kv_fail "list_P: kyber lines '$got', want '$want'"
grep -Eq '^ *[0-9]+ +sdt +sched +sched_switch$' "$r/list_P.out" ||
    kv_fail "list_P: no core tracepoint sdt:sched::sched_switch"
[ "$(awk 'NR > 1' "$r/list_after.out" | wc -l)" = 1 ] ||
    kv_fail "list_after: want one probe"

# firings: "ID kyber:kyber_latency READ TYPE 4", once per probe, and
# the newline kdt (like dtrace) prints at the end
check_fires()
{
	local n=$1 want=$2 ids

	echo "--- $n:"
	cat "$r/$n.out"
	ids=$(awk 'NF { print $1 }' "$r/$n.out" | sort -u | wc -l)
	[ "$ids" = "$want" ] ||
	    kv_fail "$n: $ids distinct kyber_latency probe IDs fired, want $want"
	[ -z "$(tail -n 1 "$r/$n.out")" ] || kv_fail "$n: no final newline"
	awk 'NF { $1 = "ID"; print }' "$r/$n.out" | sort -u |
	    grep -Evq '^ID kyber:kyber_latency READ (total|I/O) 4$' &&
	    kv_fail "$n: unexpected firing lines"
	return 0
}
check_fires before 2
check_fires during 1
[ "$(cat "$r/before.log")" = "rmmod under the enabling: ok
modprobe under the enabling: ok" ] || kv_fail "before: the module did not unload and reload under the enabling"
[ "$(cat "$r/during.log")" = "rmmod under the enabling: ok" ] ||
    kv_fail "during: the module did not unload under the enabling"
if grep -E 'WARNING:|BUG:|Call Trace|Oops' "$work/serial.log" "$r/dmesg"; then
	kv_fail "kernel warnings in the boot"
fi
echo "PASS"
