#!/usr/bin/env bash
#
# tst.extract-live: a live session's buffers, in ordinary (vmalloc'd)
# kernel memory, are found in a plain dump (issue 6).  The guest boots
# with kdt.ko and no reserved region and starts two ordinary consumers
# that stay running: A (bufpolicy=fill) traces every getppid() of
# /bin/gpl-A (NA calls), B (bufpolicy=ring) every one of /bin/gpl-B (NB
# calls), C (bufpolicy=switch, dtrace's default, with spare buffers in
# the page list; switchrate=3600s so no snapshot takes the records away)
# every one of /bin/gpl-C (NC calls), each record numbered by a
# thread-local counter.  Each workload
# runs through -c, so it starts only once its consumer's probes are
# armed, and then sleeps: the consumers are still tracing when the guest
# panics.  On the QMP dump kdt-extract must find the three regions
# through their page lists (common/rgn.h), label them "region N of 3:
# live session", and print every record of each: A 1..NA, B 1..NB and
# C 1..NC.  The order of the regions (their physical addresses) and their state
# ids differ from boot to boot, so the output is compared with the .out
# file with the labels normalised and the blocks in name order.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-extract-live.XXXXXX")
trap '[ -n "${KDT_KEEP:-}" ] || rm -rf "$work"' EXIT
NA=25
NB=40
NC=30

gcc -static -O2 -o "$work/gpl" "$KV_PROGS/getppid-loop.c" ||
    kv_fail "cannot build the static getppid-loop"
for s in A:$NA B:$NB C:$NC; do
	n=${s%%:*}
	printf '/bin/gpl-%s %s\ntouch /tmp/%s.done\nexec sleep 100000\n' \
	    "$n" "${s#*:}" "$n" > "$work/w$n.sh"
done
P='syscall::getppid:entry /execname == "gpl-X"/ { printf("X %d\n", ++self->n); }'
"$KV_VM" --add-kdt --smp "$KV_SMP" --timeout 400 \
    --add "$work/gpl:/bin/gpl-A" --add "$work/gpl:/bin/gpl-B" \
    --add "$work/gpl:/bin/gpl-C" --add "$work/wC.sh:/wC.sh" \
    --add "$work/wA.sh:/wA.sh" --add "$work/wB.sh:/wB.sh" \
    --run "kdt -q -x bufpolicy=fill -x bufsize=64k -n '${P//X/A}' -c '/bin/sh /wA.sh' > /tmp/A.out 2>&1 &" \
    --run "kdt -q -x bufpolicy=ring -x bufsize=64k -n '${P//X/B}' -c '/bin/sh /wB.sh' > /tmp/B.out 2>&1 &" \
    --run "kdt -q -x switchrate=3600s -x bufsize=64k -n '${P//X/C}' -c '/bin/sh /wC.sh' > /tmp/C.out 2>&1 &" \
    --run 'i=0; while [ ! -e /tmp/A.done ] || [ ! -e /tmp/B.done ] || [ ! -e /tmp/C.done ]; do i=$((i + 1)); [ $i -lt 300 ] || { cat /tmp/[ABC].out; exit 1; }; sleep 1; done' \
    --run 'sleep 1' \
    --panic --dump "$work/dump.elf" --workdir "$work/vm" \
    --prefix 'guest| ' --quiet || kv_fail "boot failed"

"$KV_EXTRACT" -q "$work/dump.elf" > "$work/out" 2> "$work/err" ||
    kv_fail "kdt-extract exited $?: $(cat "$work/err")"
echo "--- kdt-extract on the dump:"
cat "$work/out"
[ ! -s "$work/err" ] || kv_fail "stderr: $(cat "$work/err")"
[ "$(grep -c '^== region [123] of 3: live session, state id [0-9a-f]\{32\}, at phys 0x[0-9a-f]* ==$' "$work/out")" = 3 ] ||
    kv_fail "not three labelled live sessions"
[ "$(grep -c '^A ' "$work/out")" = $NA ] || kv_fail "A: not $NA records"
[ "$(grep -c '^B ' "$work/out")" = $NB ] || kv_fail "B: not $NB records"
[ "$(grep -c '^C ' "$work/out")" = $NC ] || kv_fail "C: not $NC records"
# normalise: blocks in the order of their records' name, labels without
# the ids and addresses of this boot
awk '/^== region/ { n++; next } NF { print n, $0 }' "$work/out" |
    sort -k2,2 -k3,3n -s | awk '
	$1 != last { print "== region: live session, state id ID, at phys PA =="; last = $1 }
	{ print $2, $3 }' > "$work/norm"
diff -u "$(dirname "$0")/tst.extract-live.out" "$work/norm" ||
    kv_fail "the records differ from tst.extract-live.out"

echo "PASS"
