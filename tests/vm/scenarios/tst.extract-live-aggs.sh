#!/usr/bin/env bash
#
# tst.extract-live-aggs: a live session's aggregations survive a panic
# (issue 6; common/rgn.h, "Aggregation totals").  The guest boots with
# kdt.ko and no reserved region and runs two ordinary consumers:
#
#  E (aggrate=3600s: never snapshotted) counts the getppid() calls of
#    /bin/gpl-E (NE calls) and stays running: its aggregations are only
#    in the region's buffers (no totals yet);
#  D (aggrate=50ms) counts the getppid() calls of /bin/gpl-D and
#    quantizes a per-thread counter, while its workload runs CHUNKS
#    chunks of PER calls 0.1 s apart (so the consumer snapshots a dozen
#    times or more and writes its merged totals into the region each
#    time), then one more chunk, and panics the guest right away -- with
#    that chunk snapshotted, merged, written as totals or still in the
#    buffers, whichever the timing gave.
#
#  F (bufpolicy=ring, aggrate=50ms) counts /bin/gpl-F's NF getppid()
#    calls into @n and @z while tick-20ms records normalize(@n, 10) and
#    clear(@z), then stays running: a consumer under ring acts on those
#    records when it stops, so the dump must print @n normalized and @z
#    cleared (consumer/kc_engine.h, kc_dec_apply_libacts).  Before the
#    panic run the same program runs to its end once in the guest; what
#    that live kdt prints (second serial port) is F's block, byte for
#    byte.
#
#  S (the default bufpolicy=switch, aggrate 1s) counts /bin/gpl-S's NS
#    getppid() calls into @n and @z while tick-1s records normalize(@n,
#    10) and clear(@z), then stays running.  Under switch the consumer
#    decodes and acts on the records as they come, so the dump must
#    replay exactly the records it had not acted on yet, from the
#    position its totals give (rgn.h, "Aggregation totals": replay) --
#    and print what this consumer would have printed after one more
#    round: @n = NS / 10 and @z = 0, with no "aggregations partial" and
#    exit 0.  The workload sleeps 1.5 s after its last call, so a tick
#    has cleared @z since, whenever the consumer's last round was; the
#    same program run to its end before the panic (its output on the
#    second serial port after the S-TWIN line) is S's block, byte for
#    byte.
#
# On the QMP dump kdt-extract must print exactly the aggregations the
# consumers had: @c[gpl-E] = NE, @c[gpl-D] = (CHUNKS + 1) * PER and D's
# quantize of 0..PER-1 per process, (CHUNKS + 1) times, F's as its live
# twin printed them; nothing on stderr (no partial totals, no missing
# interval).  The regions' order
# and labels differ from boot to boot, so the blocks are compared with
# the .out file with the labels normalised and the blocks sorted.  The
# crash(8) extension ("kdt -q" in crash on the same dump) must print the
# same bytes as kdt-extract.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-extract-live-aggs.XXXXXX")
trap '[ -n "${KDT_KEEP:-}" ] || rm -rf "$work"' EXIT
NE=77
NF=230
NS=470
CHUNKS=6
PER=50

gcc -static -O2 -o "$work/gpl" "$KV_PROGS/getppid-loop.c" ||
    kv_fail "cannot build the static getppid-loop"
printf '/bin/gpl-E %s\ntouch /tmp/E.done\nexec sleep 100000\n' "$NE" \
    > "$work/wE.sh"
printf '/bin/gpl-F %s\nsleep 0.4\n' "$NF" > "$work/wF1.sh"
printf '/bin/sh /wF1.sh\ntouch /tmp/F.done\nexec sleep 100000\n' \
    > "$work/wF.sh"
printf '/bin/gpl-S %s\nsleep 1.5\n' "$NS" > "$work/wS1.sh"
printf '/bin/sh /wS1.sh\ntouch /tmp/S.done\nexec sleep 100000\n' \
    > "$work/wS.sh"
cat > "$work/wD.sh" <<EOS
i=0
while [ \$i -lt $CHUNKS ]; do /bin/gpl-D $PER; sleep 0.1; i=\$((i + 1)); done
/bin/gpl-D $PER
echo c > /proc/sysrq-trigger
EOS
PE='syscall::getppid:entry /execname == "gpl-E"/ { @c[execname] = count(); }'
PF='syscall::getppid:entry /execname == "gpl-F"/ { @n[execname] = count(); @z[execname] = count(); } tick-20ms { normalize(@n, 10); clear(@z); }'
PS='syscall::getppid:entry /execname == "gpl-S"/ { @n[execname] = count(); @z[execname] = count(); } tick-1s { normalize(@n, 10); clear(@z); }'
PD='syscall::getppid:entry /execname == "gpl-D"/ { @c[execname] = count(); @q = quantize(self->n++); }'
"$KV_VM" --add-kdt --smp "$KV_SMP" --timeout 300 \
    --add "$work/gpl:/bin/gpl-E" --add "$work/gpl:/bin/gpl-D" \
    --add "$work/gpl:/bin/gpl-F" --add "$work/wF.sh:/wF.sh" \
    --add "$work/gpl:/bin/gpl-S" --add "$work/wS.sh:/wS.sh" \
    --add "$work/wS1.sh:/wS1.sh" \
    --add "$work/wF1.sh:/wF1.sh" --add "$work/wE.sh:/wE.sh" \
    --add "$work/wD.sh:/wD.sh" --guest-out "$work/live.out" \
    --run "kdt -q -x bufpolicy=ring -x aggrate=50ms -n '$PF' -c '/bin/sh /wF1.sh' > /dev/ttyS1" \
    --run "echo S-TWIN > /dev/ttyS1" \
    --run "kdt -q -n '$PS' -c '/bin/sh /wS1.sh' > /dev/ttyS1" \
    --run "kdt -q -x bufpolicy=ring -x aggrate=50ms -n '$PF' -c '/bin/sh /wF.sh' > /tmp/F.out 2>&1 &" \
    --run "kdt -q -n '$PS' -c '/bin/sh /wS.sh' > /tmp/S.out 2>&1 &" \
    --run "kdt -q -x aggrate=3600s -n '$PE' -c '/bin/sh /wE.sh' > /tmp/E.out 2>&1 &" \
    --run 'i=0; while [ ! -e /tmp/E.done ] || [ ! -e /tmp/F.done ] || [ ! -e /tmp/S.done ]; do i=$((i + 1)); [ $i -lt 300 ] || { cat /tmp/E.out /tmp/F.out /tmp/S.out; exit 1; }; sleep 1; done' \
    --run "kdt -q -x aggrate=50ms -n '$PD' -c '/bin/sh /wD.sh' 2>&1" \
    --panic-during --dump "$work/dump.elf" --workdir "$work/vm" \
    --prefix 'guest| ' --quiet || kv_fail "boot failed"

"$KV_EXTRACT" -q "$work/dump.elf" > "$work/out" 2> "$work/err" ||
    kv_fail "kdt-extract exited $?: $(cat "$work/err")"
echo "--- kdt-extract on the dump:"
cat "$work/out"
[ ! -s "$work/err" ] || kv_fail "stderr: $(cat "$work/err")"
[ "$(grep -c '^== region [1234] of 4: live session, state id [0-9a-f]\{32\}, at phys 0x[0-9a-f]* ==$' "$work/out")" = 4 ] ||
    kv_fail "not four labelled live sessions"
grep -q "^  gpl-E  *$NE\$" "$work/out" || kv_fail "@c[gpl-E] is not $NE"
grep -q "^  gpl-D  *$(((CHUNKS + 1) * PER))\$" "$work/out" ||
    kv_fail "@c[gpl-D] is not $(((CHUNKS + 1) * PER))"
# normalise: each block as one paragraph, blocks in name order, labels
# without the ids and addresses of this boot
python3 - "$work/out" > "$work/norm" <<'PY'
import re, sys
blocks, cur = [], None
for line in open(sys.argv[1]):
    if line.startswith("== region"):
        cur = []
        blocks.append(cur)
    elif cur is not None:
        cur.append(line)
# kdt-extract puts a blank line between two regions' blocks: not theirs
for b in blocks[:-1]:
    if b and b[-1] == "\n":
        b.pop()
key = lambda b: "".join(l for l in b if "gpl-" in l)
for b in sorted(blocks, key=key):
    sys.stdout.write("== region: live session, state id ID, at phys PA ==\n")
    sys.stdout.write("".join(b))
PY
diff -u "$(dirname "$0")/tst.extract-live-aggs.out" "$work/norm" ||
    kv_fail "the aggregations differ from tst.extract-live-aggs.out"
# F's and S's blocks are what their live twins printed when they stopped
echo "--- the live kdt of F's, then S's program printed:"
cat "$work/live.out"
python3 - "$work/norm" "$work/live.out" <<'PY' || kv_fail "F's or S's block differs from what the live kdt printed"
import sys
blocks = open(sys.argv[1]).read().split("== region: live session, state id ID, at phys PA ==\n")
live = open(sys.argv[2], newline="").read().replace("\r\n", "\n")
if live.count("S-TWIN\n") != 1:
    sys.exit("no S-TWIN line in the live output %r" % live)
twin = dict(zip("FS", live.split("S-TWIN\n")))
for n in "FS":
    f = [b for b in blocks if "gpl-" + n in b]
    if len(f) != 1 or f[0].rstrip("\n") != twin[n].rstrip("\n"):
        sys.exit("%s's block %r, live %r" % (n, f, twin[n]))
PY

# The crash(8) extension decodes with the same code: "kdt -q" inside
# crash on the same dump prints the same bytes (as tst.crash-ext, which
# needs the same DWARF vmlinux, mk/kernel-dbg.sh's cache).
KV_CRASHEXT="$KV_TOP/build/lib/kdt.so"
KV_DBG="$KV_TOP/build/kernel-dbg"
[ -f "$KV_CRASHEXT" ] || kv_fail "build/lib/kdt.so: missing (run 'make')"
command -v crash > /dev/null || kv_fail "crash(8) is not installed (run 'make deps')"
bash "$KV_TOP/mk/kernel-dbg.sh" "$KV_DBG" ||
    kv_fail "no DWARF vmlinux for crash(8): mk/kernel-dbg.sh failed (above)"
M=KDT-AGGS-MARK
printf 'set scroll off\nextend %s\necho %s-begin\nkdt -q\necho %s-end\nq\n' \
    "$KV_CRASHEXT" "$M" "$M" > "$work/cmds"
timeout 300 crash -s "$KV_DBG/vmlinux" "$work/dump.elf" < "$work/cmds" \
    > "$work/crash.out" 2> "$work/crash.err" ||
    kv_fail "crash exited $?: $(cat "$work/crash.err")"
python3 - "$work/crash.out" "$M" > "$work/crash.kdt" <<'PY' ||
import sys
data = open(sys.argv[1], "rb").read()
b, e = (sys.argv[2] + "-begin\n").encode(), (sys.argv[2] + "-end\n").encode()
i = data.find(b)
j = data.find(e, i + 1)
if i < 0 or j < 0:
    sys.exit("markers not in crash's output")
sys.stdout.buffer.write(data[i + len(b):j])
PY
    kv_fail "crash: $(cat "$work/crash.out" "$work/crash.err")"
cmp -s "$work/crash.kdt" "$work/out" || {
	diff -u --label kdt-extract --label "crash: kdt -q" "$work/out" \
	    "$work/crash.kdt"
	kv_fail "crash's kdt -q differs from kdt-extract"
}
echo "crash: kdt -q prints what kdt-extract prints"

echo "PASS"
