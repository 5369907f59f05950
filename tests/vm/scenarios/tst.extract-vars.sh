#!/usr/bin/env bash
#
# tst.extract-vars: speculations and variables survive the panic.  The
# anonymous enabling tst.extract-vars.d sets, at BEGIN, two globals (an
# int and a string), a thread-local and an associative array, and makes
# three speculations: one it leaves uncommitted, one it commits and one it
# discards; every module initialisation then counts itself in a global
# and an array keyed by the module's name.  The guest loads crc7 and xor,
# claims the state with "kdt -ae --vars" (which must print exactly what
# kdt-extract --vars prints from the dump: one decoder) and panics; on the
# ELF dump
#
#   - kdt-extract prints the committed record as a principal record and
#     the uncommitted one apart, under "speculation 1 (uncommitted, CPU
#     N):"; the discarded one nowhere;
#   - kdt-extract --vars adds every variable with its name, type and
#     value (the thread-local with the thread id of BEGIN's thread);
#   - --format=json carries both as "speculation" and "variable" objects;
#   - --format=perfetto carries the uncommitted record as a "speculation"
#     instant on its CPU's track at its time, and with --vars one
#     "variable" instant per variable whose args are the JSON object;
#     --format=html has table#kdt-speculations and, with --vars,
#     table#kdt-variables with one row per variable (kc_export.h).
#
# With the CPU number and the thread id masked, the output must equal
# tst.extract-vars.out exactly (the modules /init loads are fixed: its
# QEMU helpers, then crc7 and xor).
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
d=$(dirname "$0")
work=$(mktemp -d "$KV_TOP/build/vm-extract-vars.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KV_VM" --script "$d/tst.extract-vars.d" --load crc7,xor --smp "$KV_SMP" \
    --add-kdt --run 'kdt -ae --vars > /dev/ttyS1' \
    --guest-out "$work/claim.out" \
    --panic --dump "$work/dump.elf" --workdir "$work/vm" \
    --prefix 'guest| ' --quiet || kv_fail "boot failed"
"$KV_EXTRACT" --vars "$work/dump.elf" > "$work/vars.out" \
    2> "$work/vars.err" ||
    kv_fail "kdt-extract --vars exited $?: $(cat "$work/vars.err")"
"$KV_EXTRACT" "$work/dump.elf" > "$work/plain.out" 2> /dev/null ||
    kv_fail "kdt-extract exited $?"
"$KV_EXTRACT" --vars --format=json "$work/dump.elf" > "$work/json.out" \
    2> /dev/null || kv_fail "kdt-extract --format=json exited $?"

echo "--- kdt-extract --vars:"
cat "$work/vars.out"
echo "--- its stderr:"
cat "$work/vars.err"
# notes about symbols and sizes may be there; damage must not
! grep -Eiq 'speculation|variable|left out|torn|corrupt' "$work/vars.err" ||
    kv_fail "kdt-extract reported damage"
sed -E 's/^(speculation [0-9]+ \(uncommitted, CPU )[0-9]+\):$/\1C):/;
    s/^(self->[a-z]+ \([a-z0-9]+\) tid )[0-9]+ /\1T /' \
    "$work/vars.out" > "$work/vars.norm"
diff -u "$d/tst.extract-vars.out" "$work/vars.norm" ||
    kv_fail "kdt-extract --vars differs from tst.extract-vars.out"
# the claim in the guest decoded the same state with the same code
echo "--- kdt -ae --vars in the guest:"
cat "$work/claim.out"
diff -u "$work/claim.out" "$work/vars.out" ||
    kv_fail "kdt -ae --vars and kdt-extract --vars disagree"
# without --vars: the same up to the variables
n=$(grep -c '' "$work/plain.out")
head -n "$n" "$work/vars.out" | diff -u - "$work/plain.out" ||
    kv_fail "kdt-extract without --vars prints other records"
grep -q '^global g' "$work/plain.out" &&
    kv_fail "kdt-extract without --vars printed variables"
echo "--- kdt-extract --vars --format=json (speculations, variables):"
grep -E '"type":"(speculation|variable)"' "$work/json.out"
grep -q '^{"type":"speculation","id":1,"cpu":[0-9]*,"state":"uncommitted",.*"text":"uncommitted at BEGIN\\n"}$' \
    "$work/json.out" || kv_fail "no JSON speculation object"
grep -q '^{"type":"variable","scope":"global","name":"g","id":[0-9]*,"vtype":"int32","value":42}$' \
    "$work/json.out" || kv_fail "no JSON object for g"
grep -q '^{"type":"variable","scope":"array","name":"mods","id":[0-9]*,"vtype":"int32","keys":\["xor"\],"value":1}$' \
    "$work/json.out" || kv_fail "no JSON object for mods[\"xor\"]"
grep -q '^{"type":"variable","scope":"thread","name":"t",.*"tid":[0-9]*,"value":7}$' \
    "$work/json.out" || kv_fail "no JSON object for self->t"

# Perfetto and HTML: the same speculation and variables
for f in perfetto html; do
	"$KV_EXTRACT" --vars --format=$f "$work/dump.elf" > "$work/out.$f" \
	    2> "$work/$f.err" ||
	    kv_fail "kdt-extract --vars --format=$f exited $?: $(cat "$work/$f.err")"
done
"$KV_EXTRACT" --format=html "$work/dump.elf" > "$work/novars.html" \
    2> /dev/null || kv_fail "kdt-extract --format=html exited $?"
python3 - "$work" <<'PY' || kv_fail "see above"
import json, sys
from html.parser import HTMLParser
w = sys.argv[1]
js = [json.loads(l) for l in open(w + "/json.out")]
jsp = [o for o in js if o["type"] == "speculation"]
jva = [o for o in js if o["type"] == "variable"]
ev = json.load(open(w + "/out.perfetto"))["traceEvents"]
sp = [e for e in ev if e.get("cat") == "speculation"]
if len(sp) != 1 or len(jsp) != 1:
    sys.exit("FAIL: perfetto speculation events %r, JSON %r" % (sp, jsp))
e = sp[0]
if (e["tid"] != jsp[0]["cpu"] + 1 or abs(e["ts"] - jsp[0]["timestamp"] / 1e3) > 1e-6
        or e["args"]["text"] != "uncommitted at BEGIN\n"
        or e["name"] != "speculation 1 (uncommitted)"):
    sys.exit("FAIL: perfetto speculation event %r for %r" % (e, jsp[0]))
va = [e for e in ev if e.get("cat") == "variable"]
if [e["args"]["variable"] for e in va] != jva or len(va) != 13:
    sys.exit("FAIL: perfetto variable events %r, JSON %r" % (va, jva))
if "global g (int32) = 42" not in [e["name"] for e in va]:
    sys.exit("FAIL: no perfetto event named 'global g (int32) = 42'")
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.t = None; s.rows = {}; s.c = None
    def handle_starttag(s, tag, a):
        if tag == "table":
            s.t = dict(a).get("id"); s.rows[s.t] = []
        elif tag == "tr" and s.t:
            s.rows[s.t].append([])
        elif tag == "td" and s.t:
            s.c = ""
    def handle_endtag(s, tag):
        if tag == "table":
            s.t = None
        elif tag == "td" and s.t:
            s.rows[s.t][-1].append(s.c); s.c = None
    def handle_data(s, d):
        if s.c is not None:
            s.c += d
for name, vars in (("out.html", True), ("novars.html", False)):
    p = P(); p.feed(open(w + "/" + name).read())
    r = p.rows.get("kdt-speculations") or []
    if len(r) != 2 or r[1][0] != "1" or r[1][5].strip() != "uncommitted at BEGIN":
        sys.exit("FAIL: %s: speculations table %r" % (name, r))
    v = p.rows.get("kdt-variables")
    if not vars:
        if v is not None:
            sys.exit("FAIL: %s: a variables table without --vars" % name)
        continue
    if v is None or len(v) != 14 or ["global", "g (int32) = 42"] not in v \
            or ["array", 'mods["xor"] (int32) = 1'] not in v:
        sys.exit("FAIL: %s: variables table %r" % (name, v))
print("perfetto: 1 speculation, %d variable events; html: both tables" % len(va))
PY
echo "PASS"
