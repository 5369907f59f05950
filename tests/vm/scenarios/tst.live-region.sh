#!/usr/bin/env bash
#
# tst.live-region: a live session's buffers in the reserved region
# (-x region) survive a panic.  The guest boots with a region but no
# anonymous enabling; kdt -x region runs in the background printing a
# numbered line per tick; a second kdt -x region is refused because the
# region is taken; the guest panics while the first session still
# records.  kdt-extract --merge on the dump must print the session's
# BEGIN line and an unbroken run of ticks from 0, with no torn or corrupt
# record reported.  (--merge: BEGIN fires on the CPU of kdt's KIO_GO and
# the ticks on the timer's CPU; without it kdt-extract prints CPU by CPU,
# so BEGIN comes first only when both were the same CPU.)
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-live-region.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KV_VM" --add-kdt \
    --append 'kdt.region=16M@0x10000000 memmap=16M$0x10000000' \
    --run 'kdt -q -x region -n "BEGIN { printf(\"live in region\n\"); }" -n "tick-100ms { printf(\"tick %d\n\", i++); }" > /tmp/live.out &
sleep 3
if kdt -x region -n "BEGIN { exit(0); }" 2> /tmp/second.err; then exit 1; fi
cat /tmp/second.err
grep -q "in use by another consumer" /tmp/second.err' \
    --panic --dump "$work/dump.elf" --workdir "$work/vm" \
    --expect 'is in use by another consumer' \
    --prefix 'guest| ' || kv_fail "boot failed"
"$KV_EXTRACT" --merge "$work/dump.elf" > "$work/out" 2> "$work/err" ||
    kv_fail "kdt-extract exited $?"
cat "$work/out"
cat "$work/err"
[ "$(head -1 "$work/out")" = "live in region" ] ||
    kv_fail "the session's BEGIN line is not first"
n=$(grep -c '^tick ' "$work/out" || true)
[ "$n" -ge 10 ] || kv_fail "only $n ticks recovered, want >= 10"
awk '/^tick / { if ($2 != n++) { print "tick " $2 " out of order"; exit 1 } }' \
    "$work/out" || kv_fail "the ticks are not 0, 1, 2, ..."
! grep -Eiq 'torn|corrupt' "$work/err" || kv_fail "torn or corrupt records"
echo "PASS"
