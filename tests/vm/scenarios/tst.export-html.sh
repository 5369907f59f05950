#!/usr/bin/env bash
#
# tst.export-html: kdt-extract --format=json|perfetto|html on a real dump
# (the demo workload's: examples/boot.d as the anonymous enabling, the
# demo modules loaded, panic, ELF dump; lib.sh kv_demo_dump, shared with
# the other demo scenarios), and the HTML report rendered by headless
# Chromium.  Asserted:
#
#   - JSON lines: every line parses; one "source" line naming the
#     kernel release and the boot id; exactly the records the text output
#     has (same texts, in the same order), each "init module NAME" record
#     with the module name as its string item; an "end" line counting
#     them; nothing on stderr;
#   - Perfetto: the file parses, has a "CPU n" track per guest CPU and one
#     instant event per record, at the record's time;
#   - HTML: Chromium (Debian's chromium, --headless --no-sandbox) loads
#     it; its DOM (--dump-dom) has the timeline SVG with a lane per CPU,
#     a tick per record and the records table; the screenshot is kept as
#     build/artifacts/export-demo.png and is not blank.
#
# Skipped (77) only when Chromium is missing or cannot start.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-export-html.XXXXXX")
trap 'rm -rf "$work"' EXIT
art="$KV_TOP/build/artifacts"
mkdir -p "$art"

dump=$(kv_demo_dump)
"$KV_EXTRACT" "$dump" > "$work/text" 2> "$work/text.err" ||
    kv_fail "kdt-extract $dump exited $?"
for f in json perfetto html; do
	"$KV_EXTRACT" --format=$f "$dump" > "$work/out.$f" \
	    2> "$work/$f.err" || kv_fail "kdt-extract --format=$f exited $?"
	[ ! -s "$work/$f.err" ] ||
	    kv_fail "--format=$f: stderr: $(cat "$work/$f.err")"
done
cp "$work/out.html" "$art/export-demo.html"
cp "$work/out.perfetto" "$art/export-demo.perfetto.json"

python3 - "$work" "$KV_LOADED" "$KV_SMP" <<'EOF' || kv_fail "see above"
import json, sys
w, loaded, smp = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
objs = [json.loads(l) for l in open(w + "/out.json")]
src = objs[0]
if src["type"] != "source" or not src["release"].startswith("6.1.0"):
    sys.exit("FAIL: first line is not the source: %r" % src)
if len(src["boot_id"]) != 32 or src["ncpu"] != smp:
    sys.exit("FAIL: source: %r" % src)
recs = [o for o in objs if o["type"] == "record"]
text = [l for l in open(w + "/text").read().split("\n")[1:] if l.strip()]
if [r["text"].rstrip("\n") for r in recs] != text:
    sys.exit("FAIL: JSON record texts differ from the text output:\n%r\n%r"
             % ([r["text"] for r in recs], text))
mods = sorted(r["data"][0]["value"] for r in recs
              if r["probe"] == "fbt:kernel:do_init_module:entry" or
              r["probe"].endswith(":do_init_module:entry"))
if mods != sorted(loaded):
    sys.exit("FAIL: module records %s, loaded %s" % (mods, loaded))
end = objs[-1]
if end["type"] != "end" or end["records"] != len(recs):
    sys.exit("FAIL: end line %r for %d records" % (end, len(recs)))
doc = json.load(open(w + "/out.perfetto"))
ev = doc["traceEvents"]
tracks = sorted(e["args"]["name"] for e in ev
                if e["ph"] == "M" and e["name"] == "thread_name")
if tracks != ["CPU %d" % i for i in range(smp)]:
    sys.exit("FAIL: perfetto tracks %s" % tracks)
inst = sorted(e["ts"] for e in ev if e["ph"] == "i" and e["s"] == "t")
want = sorted(r["timestamp"] / 1000 for r in recs)
if len(inst) != len(want) or any(abs(a - b) > 0.001 for a, b in zip(inst, want)):
    sys.exit("FAIL: perfetto instants %s, records at %s" % (inst, want))
print("json: %d records, %d modules; perfetto: %d events"
      % (len(recs), len(mods), len(ev)))
EOF

chrome=$(command -v chromium || true)
[ -n "$chrome" ] || { echo "SKIP: chromium is not installed (mk/deps.sh installs it)"; exit 77; }
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars
    --user-data-dir="$work/chrome")
if ! timeout 120 "$chrome" "${flags[@]}" --dump-dom "file://$work/out.html" \
    > "$work/dom.html" 2> "$work/chrome.err"; then
	echo "SKIP: chromium cannot start: $(tail -3 "$work/chrome.err")"
	exit 77
fi
timeout 120 "$chrome" "${flags[@]}" --window-size=1280,900 \
    --screenshot="$art/export-demo.png" "file://$work/out.html" \
    > /dev/null 2>> "$work/chrome.err" ||
    kv_fail "chromium --screenshot failed: $(tail -3 "$work/chrome.err")"
python3 - "$work/dom.html" "$art/export-demo.png" "$KV_SMP" \
    "$(grep -c '"type":"record"' "$work/out.json")" <<'EOF' || kv_fail "see above"
import struct, sys, zlib
from html.parser import HTMLParser
dom, png, smp, nrec = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.tags = []; s.table = None; s.rows = 0
    def handle_starttag(s, tag, a):
        s.tags.append((tag, dict(a)))
        if tag == "table":
            s.table = dict(a).get("id")
        elif tag == "tr" and s.table == "kdt-records":
            s.rows += 1
    def handle_endtag(s, tag):
        if tag == "table":
            s.table = None
p = P(); p.feed(open(dom).read())
cls = lambda t, c: [a for g, a in p.tags if g == t and c in (a.get("class") or "").split()]
if not [a for g, a in p.tags if g == "svg" and a.get("id") == "kdt-timeline"]:
    sys.exit("FAIL: Chromium's DOM has no svg#kdt-timeline")
if len(cls("rect", "lane")) != smp or len(cls("line", "rec")) != nrec:
    sys.exit("FAIL: DOM has %d lanes, %d record ticks; want %d, %d"
             % (len(cls("rect", "lane")), len(cls("line", "rec")), smp, nrec))
if p.rows != nrec + 1:
    sys.exit("FAIL: records table has %d rows for %d records" % (p.rows, nrec))
# The screenshot: an 8-bit RGB(A) PNG; count the pixels that are not white.
b = open(png, "rb").read()
if b[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("FAIL: %s is not a PNG" % png)
w, h, depth, ctype = struct.unpack(">IIBB", b[16:26])
pos, idat = 8, b""
while pos < len(b):
    n, kind = struct.unpack(">I4s", b[pos:pos + 8])
    if kind == b"IDAT":
        idat += b[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
bpp = {2: 3, 6: 4}[ctype]
stride = w * bpp + 1
# Undo the PNG row filters (None, Sub, Up, Average, Paeth).
prev, dark, colours = bytearray(w * bpp), 0, set()
for y in range(h):
    f, row = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
    for i in range(len(row)):
        a = row[i - bpp] if i >= bpp else 0
        up = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: row[i] = (row[i] + a) & 255
        elif f == 2: row[i] = (row[i] + up) & 255
        elif f == 3: row[i] = (row[i] + (a + up) // 2) & 255
        elif f == 4:
            pa, pb, pc = abs(up - c), abs(a - c), abs(a + up - 2 * c)
            row[i] = (row[i] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
    for x in range(0, w * bpp, bpp):
        px = bytes(row[x:x + 3])
        colours.add(px)
        if px != b"\xff\xff\xff":
            dark += 1
    prev = row
frac = dark / float(w * h)
print("screenshot %dx%d: %.1f%% non-white pixels, %d colours" % (w, h, 100 * frac, len(colours)))
if frac < 0.01 or len(colours) < 8:
    sys.exit("FAIL: the screenshot looks blank")
EOF
echo "artifacts: build/artifacts/export-demo.{html,perfetto.json,png}"
echo "PASS"
